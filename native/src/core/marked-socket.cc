// Marked sockets on Linux: SO_MARK is set before the descriptor is handed out, so that no packet of the
// socket ever leaves without it.
#include "marked-socket.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace ferry {

int open_marked_socket(int family, SocketKind kind, uint32_t mark) {
  if (family != 4 && family != 6) throw std::invalid_argument("the address family is 4 or 6");
  const int type = (kind == SocketKind::kTcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC;
  const int fd = ::socket(family == 4 ? AF_INET : AF_INET6, type, 0);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot create a socket");
  if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0) {
    const int e = errno;
    ::close(fd);
    throw std::system_error(e, std::generic_category(), "cannot set the socket mark");
  }
  return fd;
}

}  // namespace ferry

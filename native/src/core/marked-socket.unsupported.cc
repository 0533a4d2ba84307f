// Marked sockets elsewhere than Linux: SO_MARK is Linux's, so opening one fails clearly.
#include <stdexcept>
#include <system_error>

#include "marked-socket.h"

namespace ferry {

int open_marked_socket(int family, SocketKind, uint32_t) {
  if (family != 4 && family != 6) throw std::invalid_argument("the address family is 4 or 6");
  throw std::system_error(std::make_error_code(std::errc::not_supported),
                          "socket marks (SO_MARK) are only implemented on Linux");
}

}  // namespace ferry

// PacketPipe: a socketpair standing in for a TUN device in tests of the engines (one packet per message).
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tun.h"

namespace ferry {

PacketPipe::PacketPipe(std::string name) : name_(std::move(name)) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
    throw TunError(std::string("socketpair: ") + std::strerror(errno));
  fd_ = sv[0];
  peer_fd_ = sv[1];
  // The engine's end is non-blocking like a TUN descriptor; the test's end blocks (with timeouts it sets).
  const int flags = fcntl(fd_, F_GETFL);
  if (flags < 0 || fcntl(fd_, F_SETFL, flags | O_NONBLOCK) < 0) {
    ::close(fd_);
    ::close(peer_fd_);
    throw TunError("cannot make the packet pipe non-blocking");
  }
  // Room for bursts: a full TUN queue would drop, a full socket buffer only delays.
  int sz = 4 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz);
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz);
  setsockopt(peer_fd_, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz);
  setsockopt(peer_fd_, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz);
}

PacketPipe::~PacketPipe() {
  close();
  if (peer_fd_ >= 0) ::close(peer_fd_);
}

void PacketPipe::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace ferry

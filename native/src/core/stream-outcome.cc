// The client's stream connect and the words for what a connection attempt ran into (stream-outcome.h).
#include "stream-outcome.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace ferry {

const char* connect_stream(int fd, const Endpoint& to, int stop_fd, int timeout_ms) {
  if (connect(fd, reinterpret_cast<const sockaddr*>(&to.addr), to.len) == 0) return nullptr;
  if (errno == ECONNREFUSED) return outcome::kRefused;  // a local node's RST arrives within connect()
  if (errno != EINPROGRESS) return "";                  // no route, or this machine's own firewall: nothing left
  pollfd p[2] = {{fd, POLLOUT, 0}, {stop_fd, POLLIN, 0}};
  const int n = poll(p, 2, timeout_ms);
  if (n < 0 || (p[1].revents & POLLIN)) return "";
  if (n == 0) return outcome::kConnectTimeout;
  int err = 0;
  socklen_t el = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0) return "";
  if (err == 0) return nullptr;
  // Anything else that ends a connect this early came back from the network: a RST, or an ICMP unreachable or
  // prohibited (a censor's `reject` says no as clearly as a closed port does).
  return err == ETIMEDOUT ? outcome::kConnectTimeout : outcome::kRefused;
}

const char* ended_outcome(const TcpConn& c) {
  const int cause = c.end_cause();
  return cause == 0 || cause == TcpConn::kPeerClosed ? outcome::kClosed : outcome::kReset;
}

Event transport_event(bool tls, const char* what) {
  Event e;
  e.type = "transport";
  e.transport = tls ? "tls" : "tcp";
  e.outcome = what;
  return e;
}

}  // namespace ferry

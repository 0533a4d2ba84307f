// What one TCP or TLS connection attempt of the client ran into, as the network showed it: the words of the
// "transport" event that the engine's autopilot classifies (a refused or unanswered SYN, a reset or silence after
// the first flight, the node's answer). No address, port or time: the no-logs rule.
#pragma once

#include "endpoint.h"
#include "tcp-conn.h"
#include "tunnel.h"

namespace ferry {

// The outcomes, by the names the event carries.
namespace outcome {
constexpr const char* kRefused = "refused";                 // the SYN was answered by a RST or an ICMP error
constexpr const char* kConnectTimeout = "connect-timeout";  // nothing answered the SYN
constexpr const char* kReset = "reset";                     // connected, then a socket error (RST) before any answer
constexpr const char* kClosed = "closed";                   // connected, then a FIN (or bytes that are no answer)
constexpr const char* kSilent = "silent";                   // connected, first flight out, nothing within the timeout
constexpr const char* kAnswered = "answered";               // the node's first answer arrived
}  // namespace outcome

// Connects the non-blocking socket fd to `to` within timeout_ms, or until stop_fd is readable. Returns nullptr
// when connected; otherwise the outcome (kRefused, kConnectTimeout), or "" when the attempt never reached the
// network (no local route, a local firewall) or the engine stops: nothing to report then.
const char* connect_stream(int fd, const Endpoint& to, int stop_fd, int timeout_ms);

// How a connection that ended before the node answered ended, from what its own reads and writes saw: a socket
// error (ECONNRESET, EPIPE, an ICMP error) is a reset; the peer's FIN, or an end the client chose because the bytes
// were not the node's (an impossible record, a TLS record that is not a server flight's), is closed.
const char* ended_outcome(const TcpConn& c);

// The event: {type "transport", transport "tcp" | "tls", outcome}.
Event transport_event(bool tls, const char* outcome);

}  // namespace ferry

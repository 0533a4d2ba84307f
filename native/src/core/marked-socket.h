// Sockets that carry a routing mark (SO_MARK) from their first packet: the client engine's own
// control-plane and probe sockets, which its kill switch lets out by that mark alone.
#pragma once

#include <cstdint>

namespace ferry {

enum class SocketKind { kTcp, kUdp };

// A new socket of `family` (4 or 6) and `kind`, non-blocking and close-on-exec, neither bound nor connected,
// with SO_MARK = mark; the caller owns the descriptor. Setting a mark needs CAP_NET_ADMIN: without it, as on
// any failure, no descriptor is left open and std::system_error carries the errno. A family other than 4 or
// 6 is std::invalid_argument.
int open_marked_socket(int family, SocketKind kind, uint32_t mark);

}  // namespace ferry

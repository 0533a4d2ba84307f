// Where a peer is: a UDP socket address, or the TCP connection it authenticated on; plus address helpers.
#pragma once

#include <netdb.h>
#include <sys/socket.h>

#include <cstring>
#include <memory>
#include <string>

namespace ferry {

class TcpConn;
using TcpConnPtr = std::shared_ptr<TcpConn>;

struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  TcpConnPtr conn;  // set: the peer is reached over this TCP connection
};

// Resolves host:port (numeric or a name) to a socket address; throws std::runtime_error.
Endpoint resolve(const std::string& host, uint16_t port, bool passive);

// A UDP source as a map key: family, address and port (16 + 2 + 1 bytes for IPv6), zero-padded.
struct EndpointKey {
  uint8_t bytes[20] = {};
  bool operator==(const EndpointKey& o) const { return std::memcmp(bytes, o.bytes, sizeof bytes) == 0; }
};
struct EndpointKeyHash {
  size_t operator()(const EndpointKey& k) const;
};
// The key of a UDP endpoint (addr/len); with_port=false keys the address alone (per-source budgets).
EndpointKey endpoint_key(const Endpoint& e, bool with_port = true);

// Bytes of IP and UDP header in front of a datagram to this endpoint (28 for IPv4, 48 for IPv6).
size_t udp_ip_overhead(const Endpoint& e);

}  // namespace ferry

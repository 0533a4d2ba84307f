// Endpoint helpers: name resolution, map keys and header overheads of UDP socket addresses.
#include "endpoint.h"

#include <netinet/in.h>

#include <stdexcept>

namespace ferry {

Endpoint resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* res = nullptr;
  std::string p = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), p.c_str(), &hints, &res);
  if (rc != 0 || !res) throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
  Endpoint e;
  std::memcpy(&e.addr, res->ai_addr, res->ai_addrlen);
  e.len = res->ai_addrlen;
  freeaddrinfo(res);
  return e;
}

size_t EndpointKeyHash::operator()(const EndpointKey& k) const {
  // FNV-1a over the key; sources are attacker-chosen, but a bucket collision only costs a comparison.
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : k.bytes) h = (h ^ b) * 1099511628211ull;
  return size_t(h);
}

EndpointKey endpoint_key(const Endpoint& e, bool with_port) {
  EndpointKey k;
  if (e.addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&e.addr);
    k.bytes[0] = 4;
    std::memcpy(k.bytes + 1, &a->sin_addr, 4);
    if (with_port) std::memcpy(k.bytes + 17, &a->sin_port, 2);
  } else if (e.addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&e.addr);
    k.bytes[0] = 6;
    std::memcpy(k.bytes + 1, &a->sin6_addr, 16);
    if (with_port) std::memcpy(k.bytes + 17, &a->sin6_port, 2);
  }
  return k;
}

size_t udp_ip_overhead(const Endpoint& e) { return e.addr.ss_family == AF_INET6 ? 48 : 28; }

}  // namespace ferry

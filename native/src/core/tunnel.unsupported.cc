// Tunnel engine stand-in for platforms without a TUN implementation yet: starting fails clearly.
#include "tunnel.h"

#include "tun.h"

namespace ferry {

std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::shared_ptr<EventSink>) {
  TunDevice::open(cfg.interface_name, true);  // throws the platform's clear "not implemented" error
  throw TunError("unreachable");
}

std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::shared_ptr<EventSink>) {
  TunDevice::open(cfg.interface_name, true);
  throw TunError("unreachable");
}

}  // namespace ferry

// Starting tunnels: on a new TUN interface (addressed and brought up here) or on a given packet device.
#include "tunnel.h"

#include <stdexcept>

#include "engines.h"

namespace ferry {

namespace {
std::unique_ptr<PacketIo> open_tun(const std::string& name, const std::string& cidr, int mtu, bool offload) {
  if (mtu < 576 || mtu > 65535 - 64) throw std::runtime_error("mtu must be between 576 and 65471");
  auto tun = std::make_unique<TunDevice>(TunDevice::open(name, offload));
  configure_interface(tun->name(), cidr, mtu);
  return tun;
}
}  // namespace

std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::shared_ptr<EventSink> sink) {
  return start_client(cfg, open_tun(cfg.interface_name, cfg.address_cidr, cfg.mtu, cfg.offload), std::move(sink));
}

std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::shared_ptr<EventSink> sink) {
  return start_server(cfg, open_tun(cfg.interface_name, cfg.address_cidr, cfg.mtu, cfg.offload), std::move(sink));
}

std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink) {
  return make_client_engine(cfg, std::move(io), std::move(sink));
}

std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink) {
  return make_server_engine(cfg, std::move(io), std::move(sink));
}

}  // namespace ferry

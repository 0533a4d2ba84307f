// Constructors of the two engines (client-engine.cc, server-engine.cc), used by tunnel.cc's start functions.
#pragma once

#include <memory>

#include "tun.h"
#include "tunnel.h"

namespace ferry {

std::unique_ptr<Tunnel> make_client_engine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                           std::shared_ptr<EventSink> sink);
std::unique_ptr<Tunnel> make_server_engine(const ServerConfig& cfg, std::unique_ptr<PacketIo> io,
                                           std::shared_ptr<EventSink> sink);

}  // namespace ferry

// The server's peer set: lookups by tunnel address (data path) and by static key (handshakes), changed in
// place by incremental updates, never by copying the whole set.
#pragma once

#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "endpoint.h"
#include "session.h"
#include "tcp-conn.h"
#include "tunnel.h"

namespace ferry {

// One peer. Identity fields never change: a new key or address for an id is a new ServerPeer.
struct ServerPeer {
  ServerPeer(std::string peer_id, const Key32& key, uint32_t address)
      : id(std::move(peer_id)), pub(key), address_v4(address) {}
  const std::string id;
  const Key32 pub;
  const uint32_t address_v4;  // host byte order, the peer's /32 tunnel address

  std::atomic<bool> removed{false};
  // Ferry message bytes, for metering (carried over when an id's entry is replaced).
  std::atomic<uint64_t> rx_bytes{0}, tx_bytes{0};
  std::atomic<int64_t> last_handshake_ms{-1};  // steady clock, ms; -1: never

  std::mutex mu;  // guards the fields below
  SessionPtr current, previous, next;
  Endpoint endpoint;  // where the TUN thread sends: the UDP address or the TCP connection
  bool has_endpoint = false;
  bool ever_connected = false;

  // Network thread only: the UDP sources mapped to this peer in the server's endpoint table, and the TCP
  // connections bound to it (oldest first).
  bool has_udp_source = false, has_pending_source = false;
  EndpointKey udp_source, pending_source;
  std::vector<std::weak_ptr<TcpConn>> tcp_conns;
};
using ServerPeerPtr = std::shared_ptr<ServerPeer>;

class PeerRegistry {
 public:
  // See Tunnel::update_peers. `gone` receives every peer entry that left the set (removed, replaced or
  // refused), already marked removed, so that the caller can end its sessions and connections.
  std::vector<PeerRejection> update(const std::vector<PeerConfig>& upsert, const std::vector<std::string>& remove,
                                    bool replace_all, std::vector<ServerPeerPtr>& gone);

  ServerPeerPtr by_address(uint32_t address) const;
  ServerPeerPtr by_key(const Key32& key) const;
  size_t size() const;

  // Calls f(ServerPeer&) for every peer while holding the set (shared): entries cannot be freed under it.
  template <typename F>
  void for_each(F f) const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (const auto& entry : by_id_) f(*entry.second);
  }

  std::vector<PeerStats> stats(int64_t now_ms) const;

 private:
  static std::string key_bytes(const Key32& k) { return std::string(reinterpret_cast<const char*>(k.data()), 32); }
  // Removes an entry from all maps (exclusive lock held).
  void erase_locked(ServerPeerPtr p, std::vector<ServerPeerPtr>& gone);

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, ServerPeerPtr> by_id_;
  std::unordered_map<std::string, ServerPeerPtr> by_key_;
  std::unordered_map<uint32_t, ServerPeerPtr> by_addr_;
};

}  // namespace ferry

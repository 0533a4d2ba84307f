// PeerRegistry: incremental peer updates with fail-closed rejections, and per-peer statistics.
#include "peer-registry.h"

#include <unordered_set>

namespace ferry {

void PeerRegistry::erase_locked(ServerPeerPtr p, std::vector<ServerPeerPtr>& gone) {
  // By value: p may refer to a map entry that the first erase destroys.
  by_id_.erase(p->id);
  auto k = by_key_.find(key_bytes(p->pub));
  if (k != by_key_.end() && k->second == p) by_key_.erase(k);
  auto a = by_addr_.find(p->address_v4);
  if (a != by_addr_.end() && a->second == p) by_addr_.erase(a);
  p->removed = true;
  gone.push_back(p);
}

std::vector<PeerRejection> PeerRegistry::update(const std::vector<PeerConfig>& upsert,
                                                const std::vector<std::string>& remove, bool replace_all,
                                                std::vector<ServerPeerPtr>& gone) {
  std::vector<PeerRejection> rejected;
  std::unique_lock<std::shared_mutex> lock(mu_);
  // Removals first, whatever happens to the upserts: a revocation must never wait for anything else.
  std::unordered_set<std::string> keep;
  if (replace_all) {
    for (const auto& pc : upsert) keep.insert(pc.id);
    std::vector<ServerPeerPtr> drop;
    for (const auto& entry : by_id_)
      if (!keep.count(entry.first)) drop.push_back(entry.second);
    for (const auto& p : drop) erase_locked(p, gone);
  }
  for (const auto& id : remove) {
    auto it = by_id_.find(id);
    if (it != by_id_.end()) erase_locked(it->second, gone);
  }
  std::unordered_set<std::string> seen;
  for (const auto& pc : upsert) {
    auto refuse = [&](const char* reason) {
      rejected.push_back({pc.id, reason});
      // Fail closed: an id whose new entry cannot be used keeps no older one.
      auto it = by_id_.find(pc.id);
      if (it != by_id_.end()) erase_locked(it->second, gone);
    };
    if (pc.id.empty()) {
      rejected.push_back({pc.id, "peer id is empty"});
      continue;
    }
    if (!seen.insert(pc.id).second) {
      refuse("duplicate peer id in one update");
      continue;
    }
    auto cur = by_id_.find(pc.id);
    if (cur != by_id_.end() && cur->second->pub == pc.public_key && cur->second->address_v4 == pc.address_v4)
      continue;  // unchanged: sessions stay
    auto k = by_key_.find(key_bytes(pc.public_key));
    if (k != by_key_.end() && k->second->id != pc.id) {
      refuse("public key in use by another peer");
      continue;
    }
    auto a = by_addr_.find(pc.address_v4);
    if (a != by_addr_.end() && a->second->id != pc.id) {
      refuse("address in use by another peer");
      continue;
    }
    auto fresh = std::make_shared<ServerPeer>(pc.id, pc.public_key, pc.address_v4);
    if (cur != by_id_.end()) {
      // A new key or address: the old entry's sessions end; metering continues for the id.
      fresh->rx_bytes = cur->second->rx_bytes.load();
      fresh->tx_bytes = cur->second->tx_bytes.load();
      erase_locked(cur->second, gone);
    }
    by_id_.emplace(pc.id, fresh);
    by_key_[key_bytes(pc.public_key)] = fresh;
    by_addr_[pc.address_v4] = fresh;
  }
  return rejected;
}

ServerPeerPtr PeerRegistry::by_address(uint32_t address) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_addr_.find(address);
  return it == by_addr_.end() ? nullptr : it->second;
}

ServerPeerPtr PeerRegistry::by_key(const Key32& key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = by_key_.find(key_bytes(key));
  return it == by_key_.end() ? nullptr : it->second;
}

size_t PeerRegistry::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return by_id_.size();
}

std::vector<PeerStats> PeerRegistry::stats(int64_t now_ms) const {
  std::vector<PeerStats> out;
  std::shared_lock<std::shared_mutex> lock(mu_);
  out.reserve(by_id_.size());
  for (const auto& entry : by_id_) {
    const ServerPeer& p = *entry.second;
    PeerStats s;
    s.id = p.id;
    s.rx_bytes = p.rx_bytes.load(std::memory_order_relaxed);
    s.tx_bytes = p.tx_bytes.load(std::memory_order_relaxed);
    const int64_t at = p.last_handshake_ms.load(std::memory_order_relaxed);
    s.handshake_age_ms = at < 0 ? -1 : std::max<int64_t>(0, now_ms - at);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ferry

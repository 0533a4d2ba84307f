// An engine's counters, updated by every thread without locks (relaxed atomics) and read as a snapshot.
#pragma once

#include <atomic>
#include <cstdint>

#include "tunnel.h"

namespace ferry {

struct AtomicCounters {
  std::atomic<uint64_t> tx_packets{0}, tx_bytes{0}, rx_packets{0}, rx_bytes{0};
  std::atomic<uint64_t> dropped{0}, replay_dropped{0}, auth_dropped{0}, handshakes{0}, handshakes_dropped{0};

  Counters snapshot() const {
    Counters c;
    c.tx_packets = tx_packets.load(std::memory_order_relaxed);
    c.tx_bytes = tx_bytes.load(std::memory_order_relaxed);
    c.rx_packets = rx_packets.load(std::memory_order_relaxed);
    c.rx_bytes = rx_bytes.load(std::memory_order_relaxed);
    c.dropped = dropped.load(std::memory_order_relaxed);
    c.replay_dropped = replay_dropped.load(std::memory_order_relaxed);
    c.auth_dropped = auth_dropped.load(std::memory_order_relaxed);
    c.handshakes = handshakes.load(std::memory_order_relaxed);
    c.handshakes_dropped = handshakes_dropped.load(std::memory_order_relaxed);
    return c;
  }
  void drop_auth() {
    dropped.fetch_add(1, std::memory_order_relaxed);
    auth_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  void drop_replay() {
    dropped.fetch_add(1, std::memory_order_relaxed);
    replay_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  void drop_handshake() {
    dropped.fetch_add(1, std::memory_order_relaxed);
    handshakes_dropped.fetch_add(1, std::memory_order_relaxed);
  }
  void drop() { dropped.fetch_add(1, std::memory_order_relaxed); }
};

}  // namespace ferry

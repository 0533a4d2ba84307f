// A token bucket per source for initiations: one source cannot take the handshake worker for itself.
#pragma once

#include <chrono>
#include <list>
#include <unordered_map>

#include "endpoint.h"

namespace ferry {

// Network thread only. A source is an IPv4 address or an IPv6 /64 (one subscriber's usual allocation, so
// that a host cannot multiply its budget by its addresses). The table is bounded: past kMaxSources the
// least recently seen source is forgotten (it starts afresh with a full bucket if it comes back); spoofed
// sources can churn the table, but then the worker's bounded queue is what limits the work
// (handshake-worker.h). Everyone behind one address (a CGNAT) shares its budget.
class SourceLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxSources = 8192;

  explicit SourceLimiter(int per_second) : rate_(per_second > 0 ? per_second : 1) {}

  bool allow(const Endpoint& from, Clock::time_point now) {
    EndpointKey k = endpoint_key(from, false);
    if (k.bytes[0] == 6) std::memset(k.bytes + 1 + 8, 0, 8);  // IPv6: the /64
    auto it = buckets_.find(k);
    if (it == buckets_.end()) {
      if (buckets_.size() >= kMaxSources) {
        buckets_.erase(order_.back());
        order_.pop_back();
      }
      order_.push_front(k);
      it = buckets_.emplace(k, Bucket{double(rate_), now, order_.begin()}).first;
    } else {
      order_.splice(order_.begin(), order_, it->second.pos);  // most recently seen first
      const double refill = std::chrono::duration<double>(now - it->second.at).count() * rate_;
      it->second.tokens = std::min(double(rate_), it->second.tokens + refill);
      it->second.at = now;
    }
    if (it->second.tokens < 1) return false;
    it->second.tokens -= 1;
    return true;
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point at;
    std::list<EndpointKey>::iterator pos;
  };
  const int rate_;
  std::list<EndpointKey> order_;  // most recently seen first
  std::unordered_map<EndpointKey, Bucket, EndpointKeyHash> buckets_;
};

}  // namespace ferry

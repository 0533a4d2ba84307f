// A token bucket per source address for initiations: one source cannot take the handshake worker for itself.
#pragma once

#include <chrono>
#include <unordered_map>

#include "endpoint.h"

namespace ferry {

// Network thread only. The table is bounded: when it is full it starts afresh (spoofed sources can fill it,
// but then the worker's bounded queue is what limits the work, see handshake-worker.h).
class SourceLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr size_t kMaxSources = 8192;

  explicit SourceLimiter(int per_second) : rate_(per_second > 0 ? per_second : 1) {}

  bool allow(const Endpoint& from, Clock::time_point now) {
    if (buckets_.size() >= kMaxSources) buckets_.clear();
    Bucket& b = buckets_[endpoint_key(from, false)];
    if (b.at == Clock::time_point{}) {
      b.tokens = rate_;
    } else {
      const double refill = std::chrono::duration<double>(now - b.at).count() * rate_;
      b.tokens = std::min(double(rate_), b.tokens + refill);
    }
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point at{};
  };
  const int rate_;
  std::unordered_map<EndpointKey, Bucket, EndpointKeyHash> buckets_;
};

}  // namespace ferry

// Sliding anti-replay window over 64-bit packet counters (2048 packets wide).
#pragma once

#include <cstdint>
#include <cstring>

namespace ferry {

// Not thread-safe: owned by the single receive thread of a session.
class ReplayWindow {
 public:
  static constexpr uint64_t kSize = 2048;

  // True when c has not been seen and is not older than the window. Does not record it:
  // call commit() only after the packet authenticated, so forged packets cannot move the window.
  bool check(uint64_t c) const {
    if (!any_ || c > top_) return true;
    if (top_ - c >= kSize) return false;
    return (bits_[word(c)] & bit(c)) == 0;
  }

  void commit(uint64_t c) {
    if (!any_ || c > top_) {
      uint64_t start = any_ ? top_ + 1 : 0;
      if (!any_ || c - start >= kSize) {
        std::memset(bits_, 0, sizeof bits_);
      } else {
        for (uint64_t i = start; i <= c; ++i) bits_[word(i)] &= ~bit(i);
      }
      top_ = c;
      any_ = true;
    }
    bits_[word(c)] |= bit(c);
  }

  uint64_t highest() const { return top_; }
  bool any() const { return any_; }

 private:
  static size_t word(uint64_t c) { return static_cast<size_t>((c % kSize) / 64); }
  static uint64_t bit(uint64_t c) { return uint64_t{1} << (c % 64); }

  uint64_t bits_[kSize / 64] = {};
  uint64_t top_ = 0;
  bool any_ = false;
};

}  // namespace ferry

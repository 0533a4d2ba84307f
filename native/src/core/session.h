// One session: a direction pair of AEAD keys and data-header masks with counters and a replay window.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>

#include "crypto.h"
#include "protocol.h"
#include "replay-window.h"

namespace ferry {

using Clock = std::chrono::steady_clock;

// The send half may be used by several threads (data from the TUN thread, pings/pongs and responses from
// the network thread), so it is guarded by send_mu; the receive half and the replay window belong to the
// network thread alone.
class Session {
 public:
  explicit Session(const SessionKeys& k)
      : local_index(k.local_index),
        remote_index(k.remote_index),
        cipher(k.cipher),
        created(Clock::now()),
        send_(k.cipher, k.send),
        send_hdr_(k.hdr_send),
        recv_(k.cipher, k.recv),
        recv_hdr_(k.hdr_recv) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const uint32_t local_index, remote_index;
  const Cipher cipher;
  const Clock::time_point created;
  Clock::time_point replaced_at{};  // network thread only; set when a newer session takes over

  // Seals buf (plaintext at buf+kHeaderLen) and returns the message length, or 0 when the key is spent.
  size_t seal(uint8_t* buf, size_t pt_len) {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (send_count_ >= kRejectAfterMessages) return 0;
    return seal_data(send_, send_hdr_, remote_index, send_count_++, buf, pt_len);
  }
  uint64_t sent() {
    std::lock_guard<std::mutex> lock(send_mu_);
    return send_count_;
  }

  // Network thread only. True (header unmasked in place) when the message is a data packet of this session.
  bool matches(uint8_t* buf, size_t len) { return unmask_data(recv_hdr_, local_index, buf, len); }

  // Network thread only, after matches(). Checks the replay window and opens buf in place. The caller commits
  // `counter` (commit()) once it accepts the packet. Returns false for a replay (replay=true) or a forgery.
  bool open(uint8_t* buf, size_t len, uint64_t& counter, bool& replay) {
    counter = data_counter(buf);
    replay = !window_.check(counter) || counter >= kRejectAfterMessages;
    return !replay && open_data(recv_, buf, len);
  }
  void commit(uint64_t counter) { window_.commit(counter); }
  // Highest counter received (0 before any), for volume-based rekeying.
  uint64_t received() const { return window_.any() ? window_.highest() : 0; }

 private:
  std::mutex send_mu_;
  Aead send_;                // guarded by send_mu_
  Masker send_hdr_;          // guarded by send_mu_
  uint64_t send_count_ = 0;  // guarded by send_mu_
  Aead recv_;                // network thread only
  Masker recv_hdr_;          // network thread only
  ReplayWindow window_;      // network thread only
};

using SessionPtr = std::shared_ptr<Session>;

}  // namespace ferry

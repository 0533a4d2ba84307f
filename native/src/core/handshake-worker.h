// The server's handshake worker: public-key work on initiations that passed mac1 and the per-source budget,
// off the data path, with a bounded queue, a replay cache by static key, and results for the network thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "counters.h"
#include "crypto.h"
#include "endpoint.h"
#include "peer-registry.h"
#include "protocol.h"
#include "secret.h"

namespace ferry {

struct HandshakeJob {
  uint8_t msg[kInitMaxLen];  // the unmasked initiation (mac1 checked)
  size_t len = 0;
  Endpoint from;  // UDP address, or the TCP connection it came on
};

struct HandshakeResult {
  bool ok = false;
  Endpoint from;
  ServerPeerPtr peer;                         // ok only
  std::unique_ptr<Secret<SessionKeys>> keys;  // ok only; erased when dropped
  uint8_t response[kResponseMaxLen];          // ok only: the masked response, ready to send
  size_t response_len = 0;
};

class HandshakeWorker {
 public:
  static constexpr size_t kQueueLimit = 1024;

  // wake_fd: written when results are ready. start_ms: the node's start (wall clock): initiations made
  // before it are refused, so a restart does not reopen the replay window.
  HandshakeWorker(const Key32& private_key, const PeerRegistry& peers, AtomicCounters& counters, int wake_fd,
                  int64_t start_ms);
  ~HandshakeWorker();
  HandshakeWorker(const HandshakeWorker&) = delete;
  HandshakeWorker& operator=(const HandshakeWorker&) = delete;

  // Network thread. False when the queue is full (the caller counts the drop).
  bool submit(std::unique_ptr<HandshakeJob> job);
  // Network thread: the outcomes since the last call.
  std::vector<HandshakeResult> take_results();
  void stop();

 private:
  void run();
  HandshakeResult process(HandshakeJob& job);
  // Whether an initiation of `key` with timestamp ts may be answered (and records it). Worker thread only.
  bool fresh(const Key32& key, uint64_t ts, int64_t now_ms);

  const X25519Key key_;  // parsed once
  const PeerRegistry& peers_;
  AtomicCounters& counters_;  // refused initiations are counted like every other drop
  const int wake_fd_;
  const int64_t start_ms_;
  Masker hs_mask_;                                            // worker thread only
  RandomPool rng_;                                            // worker thread only
  std::unordered_map<std::string, uint64_t> last_timestamp_;  // worker thread only: the replay cache
  int64_t last_prune_ms_ = 0;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<HandshakeJob>> queue_;  // guarded by mu_
  std::vector<HandshakeResult> results_;             // guarded by mu_
  bool stopping_ = false;                            // guarded by mu_
  std::thread thread_;
};

}  // namespace ferry

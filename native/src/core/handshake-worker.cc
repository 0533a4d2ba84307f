// HandshakeWorker: one thread at a lower priority than the data path, fed through a bounded queue.
#include "handshake-worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace ferry {

namespace {
int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

HandshakeWorker::HandshakeWorker(const Key32& private_key, const PeerRegistry& peers, AtomicCounters& counters,
                                 int wake_fd, int64_t start_ms)
    : key_(private_key),
      peers_(peers),
      counters_(counters),
      wake_fd_(wake_fd),
      start_ms_(start_ms),
      hs_mask_(derive_handshake_mask_key(key_.public_key())) {
  thread_ = std::thread([this] { run(); });
}

HandshakeWorker::~HandshakeWorker() { stop(); }

void HandshakeWorker::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool HandshakeWorker::submit(std::unique_ptr<HandshakeJob> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= kQueueLimit) return false;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

std::vector<HandshakeResult> HandshakeWorker::take_results() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<HandshakeResult> out;
  out.swap(results_);
  return out;
}

void HandshakeWorker::run() {
  // Handshakes yield to packets: under a flood the data path keeps the CPU (Linux: per-thread nice).
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  for (;;) {
    std::unique_ptr<HandshakeJob> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    HandshakeResult r;
    try {
      r = process(*job);
    } catch (const std::exception&) {
      r = HandshakeResult();  // a failed allocation or OpenSSL error fails this handshake only, closed
    }
    r.from = std::move(job->from);
    // A job whose outcome nobody waits for (UDP, refused) needs no result: the network thread only cares
    // about successes, and about TCP connections waiting for their first handshake.
    if (!r.ok && !r.from.conn) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      results_.push_back(std::move(r));
    }
    uint64_t one = 1;
    ssize_t w = write(wake_fd_, &one, sizeof one);
    (void)w;
  }
}

bool HandshakeWorker::fresh(const Key32& key, uint64_t ts, int64_t now_ms) {
  // Anything made before this node started may have been answered by its previous run. (A timestamp up to
  // kHandshakeFutureSkewSeconds ahead may have been, too: see docs/protocol.md on that residual window.)
  if (int64_t(ts) < start_ms_) return false;
  std::string k(reinterpret_cast<const char*>(key.data()), 32);
  auto it = last_timestamp_.find(k);
  if (it != last_timestamp_.end() && ts <= it->second) return false;
  last_timestamp_[k] = ts;
  // Entries older than the clock-skew window protect nothing (such timestamps fail the skew check anyway).
  if (now_ms - last_prune_ms_ > 10000) {
    last_prune_ms_ = now_ms;
    const int64_t horizon = now_ms - int64_t(kHandshakeClockSkewSeconds) * 1000;
    for (auto e = last_timestamp_.begin(); e != last_timestamp_.end();)
      e = int64_t(e->second) < horizon ? last_timestamp_.erase(e) : std::next(e);
  }
  return true;
}

HandshakeResult HandshakeWorker::process(HandshakeJob& job) {
  HandshakeResult r;
  Secret<ResponderState> st;
  ServerPeerPtr peer;
  if (!read_init(key_, job.msg, job.len, *st) || !(peer = peers_.by_key(st->client_pub))) {
    counters_.drop_auth();
    return r;
  }
  const int64_t now = wall_ms();
  const int64_t skew = int64_t(st->timestamp_ms) - now;
  if (skew > kHandshakeFutureSkewSeconds * 1000 || skew < -kHandshakeClockSkewSeconds * 1000 ||
      !fresh(st->client_pub, st->timestamp_ms, now)) {
    counters_.drop_replay();  // too old, from the future, or seen: a replay as far as the node can tell
    return r;
  }
  Secret<ResponseParams> rp;
  rp->ephemeral_priv = x25519_generate_private();
  rp->sender_index = rng_.u32();
  rp->pad_len = rng_.below(kMaxHandshakePad + 1);
  auto keys = std::make_unique<Secret<SessionKeys>>();
  r.response_len = write_response(*st, hs_mask_, *rp, **keys, r.response);
  if (!r.response_len) return r;
  r.ok = true;
  r.peer = std::move(peer);
  r.keys = std::move(keys);
  return r;
}

}  // namespace ferry

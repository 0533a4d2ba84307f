// One TCP connection carrying Ferry records: length masks, a bounded send queue, and the reader's buffer.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "tcp-framing.h"
#include "tls-records.h"

namespace ferry {

class TcpConn;

// Connections that need the network thread: their send queue became non-empty (poll for writability) or
// they broke (close them). Written by any thread, taken by the network thread, which a wake fd rouses.
class TcpAttention {
 public:
  explicit TcpAttention(int wake_fd) : wake_fd_(wake_fd) {}
  void note(std::weak_ptr<TcpConn> c);
  std::vector<std::weak_ptr<TcpConn>> take();

 private:
  const int wake_fd_;
  std::mutex mu_;
  std::vector<std::weak_ptr<TcpConn>> list_;  // guarded by mu_
};

// Never blocks. Writers (TUN thread, network thread) serialise on an internal lock, which also keeps the
// length keystream in record order; what the socket does not take at once waits in a queue of at most
// kMaxQueued bytes that the network thread flushes when the socket is writable. The network thread alone
// reads. The descriptor is non-blocking and closed with the object.
class TcpConn : public std::enable_shared_from_this<TcpConn> {
 public:
  static constexpr size_t kSmallRx = 512;                // a preamble and an initiation record fit
  static constexpr size_t kRxSize = 64 * 1024;           // after authentication
  static constexpr size_t kMaxQueued = size_t(1) << 20;  // a client that stops reading loses its connection

  // attention: told when the queue turns non-empty or the connection breaks (null: nobody is told; the
  // owner then checks wants_write() and broken itself).
  TcpConn(int fd, std::chrono::steady_clock::time_point opened, bool server_side,
          std::shared_ptr<TcpAttention> attention);
  ~TcpConn();
  TcpConn(const TcpConn&) = delete;
  TcpConn& operator=(const TcpConn&) = delete;

  const int fd;
  const std::chrono::steady_clock::time_point opened;
  const bool server_side;
  uint64_t tag = 0;  // the owner's name for the connection (the server's connection table key)

  bool broken() const { return broken_.load(); }
  // Marks the connection failed (any thread); the network thread then closes it.
  void set_broken();

  // What ended the connection as its own reads and writes saw it (the first one counts, any thread): the errno
  // of a failed send or receive, kPeerClosed when the peer's FIN arrived, 0 while neither happened (also when
  // the owner ends it for what it read or for silence). The client reports it (stream-outcome.h).
  static constexpr int kPeerClosed = -1;
  int end_cause() const { return end_cause_.load(); }
  void note_end(int cause) {
    int none = 0;
    end_cause_.compare_exchange_strong(none, cause);
  }

  // Must be called before the connection is shared between threads.
  void set_masks(std::unique_ptr<RecordMasks> masks) { masks_ = std::move(masks); }
  // The TLS transport: from now on sends are cut into TLS application-data records, and the reader strips
  // them, after skipping the peer's handshake flight (its records' content types in `skip`). Before the
  // connection is shared between threads.
  void set_tls(std::vector<uint8_t> skip) { tls_rx_ = std::make_unique<TlsRecordReader>(std::move(skip)); }
  // The record reader (network thread only), or null on plain Ferry TCP.
  TlsRecordReader* tls_reader() { return tls_rx_.get(); }
  RecordMasks& masks() { return *masks_; }

  // buf holds records laid out as [2-byte length, big-endian, unmasked][message]...; masks each length in
  // order, then sends what the socket takes now and queues the rest (prefix, e.g. a preamble, goes first).
  // With TLS, buf leaves in application-data records (headers from a small array beside it, not a copy).
  // False when the connection is broken or the queue would exceed kMaxQueued (it breaks then).
  // may_wait: a sender that owns the connection alone (the client's TUN thread) waits for the socket (up
  // to 2 s, or until stop_fd is readable) instead of queueing: backpressure instead of a copy and a
  // hand-over. A shared sender (the server's threads) must never wait.
  bool send_records(uint8_t* buf, size_t len, const uint8_t* prefix = nullptr, size_t prefix_len = 0,
                    bool may_wait = false);
  // Where a waiting sender learns that the engine stops (-1: none).
  void set_stop_fd(int fd) { stop_fd_ = fd; }
  // Network thread: whether bytes wait for the socket, and write what it takes now (false: it failed).
  bool wants_write();
  bool flush();

  // Reader state, network thread only. The buffer is small until grow_rx() (after authentication), so an
  // unauthenticated connection costs a few hundred bytes.
  uint8_t* rx() { return big_ ? big_.get() : small_; }
  size_t rx_cap() const { return big_ ? kRxSize : kSmallRx; }
  void grow_rx();
  size_t rx_len = 0;
  bool preamble_done = false;
  size_t pending_len = 0;  // length of a record whose length bytes were already unmasked
  bool paused = false;     // stop reading (the server waits for a handshake's outcome)

 private:
  std::unique_ptr<RecordMasks> masks_;
  std::unique_ptr<TlsRecordReader> tls_rx_;  // set: the TLS transport (the writer wraps too)
  const std::shared_ptr<TcpAttention> attention_;
  int stop_fd_ = -1;
  std::atomic<bool> broken_{false};
  std::atomic<int> end_cause_{0};
  std::mutex send_mu_;
  std::vector<uint8_t> out_;  // guarded by send_mu_: queued bytes from out_head_ on
  size_t out_head_ = 0;       // guarded by send_mu_
  std::unique_ptr<uint8_t[]> big_;
  uint8_t small_[kSmallRx];
};

using TcpConnPtr = std::shared_ptr<TcpConn>;

// TCP_NODELAY on an accepted or connected socket.
void set_tcp_options(int fd);

}  // namespace ferry

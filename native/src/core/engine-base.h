// Shared plumbing of the client and server engines: the packet device, the UDP socket, the stop and wake
// signals, the two data-plane threads, batching and sealing of outgoing packets, receiving, counters, events.
#pragma once

#include <netinet/udp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "counters.h"
#include "crypto.h"
#include "endpoint.h"
#include "offload.h"
#include "protocol.h"
#include "session.h"
#include "tcp-conn.h"
#include "tun.h"
#include "tunnel.h"

namespace ferry {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr size_t kBufSize = 65536 + 64;
constexpr auto kCountersEvery = milliseconds(1000);
constexpr int kTimerTickMs = 50;
// One UDP GSO send carries at most this many bytes / datagrams (kernel limits: 64 KB, UDP_MAX_SEGMENTS).
constexpr size_t kBatchLimit = 65000;
constexpr size_t kMaxGsoSegments = 64;
// Datagrams (each possibly a 64 KB GRO aggregate) per recvmmsg call.
constexpr size_t kRxBatch = 8;

int64_t system_ms();
uint64_t steady_ns();
int make_udp_socket(int family);

class EngineBase : public Tunnel {
 public:
  EngineBase(std::unique_ptr<PacketIo> io, int mtu, int path_mtu, std::shared_ptr<EventSink> sink);
  ~EngineBase() override;

  void close() override;
  Counters counters() const override { return counters_.snapshot(); }
  const std::string& interface_name() const override { return io_->name(); }

 protected:
  void start_threads();
  void stop_threads();
  void wake();  // makes the network thread run its loop once (TCP sends queued, handshake results)
  void drain_wake();

  // Runs a thread body; an exception ends the tunnel visibly: error event, state "failed", both threads stop.
  template <typename F>
  void guarded(const char* name, F f) {
    try {
      f();
    } catch (const std::exception& ex) {
      fail(std::string(name) + " thread stopped: " + ex.what());
    } catch (...) {
      fail(std::string(name) + " thread stopped");
    }
  }
  void fail(const std::string& why);

  virtual void net_loop() = 0;

  // Waits for fd readability or stop; returns false when stopping.
  bool wait_readable(int fd, int timeout_ms);

  void emit(const Event& e) { sink_->emit(e); }
  void error(const std::string& msg);
  void maybe_emit_counters(Clock::time_point now);

  // Where packets read from the packet device go: the session to seal them with and the peer's address.
  struct Target {
    SessionPtr session;
    Endpoint endpoint;
    std::atomic<uint64_t>* tx_meter = nullptr;  // per-peer byte count (server), kept alive by `keep`
    std::shared_ptr<const void> keep;
  };
  // Picks the target for an IP packet read from the packet device; false drops it. TUN thread only.
  virtual bool route(const uint8_t* ip, size_t len, Target& t) = 0;

  // Sealed messages for one destination, back to back. While they are all the same size (a short last one
  // allowed) the batch leaves in one UDP GSO send; mixed sizes leave in one sendmmsg.
  struct TxBatch {
    uint8_t* buf = nullptr;
    size_t used = 0, count = 0, seg = 0, inner_bytes = 0, message_bytes = 0;
    bool short_tail = false;
    bool uniform = true;
    size_t lens[kMaxGsoSegments] = {};
    Target target;
  };
  static bool same_target(const Target& a, const Target& b);

  void tun_loop();
  void batch_add(TxBatch& b, size_t pad, const uint8_t* pkt, size_t len);
  void batch_flush(TxBatch& b);
  bool send_many(TxBatch& b, const Endpoint& ep);
  bool wait_writable();
  // One UDP GSO send; on failure *err holds the errno of the failed call.
  bool send_gso(const uint8_t* buf, size_t len, size_t seg, const Endpoint& ep, int* err);
  // One message to an endpoint (UDP datagram or TCP record). Never blocks on TCP; on UDP it waits for room
  // (bounded) only when may_wait: the TUN thread may, the network thread must not (it drops instead).
  bool send_to(const uint8_t* buf, size_t len, const Endpoint& ep, bool may_wait = false);
  // Called when sending over UDP failed with errno e (the client reopens its socket on some).
  virtual void on_send_error(int e) { (void)e; }

  // The largest padding that keeps a message with `inner` bytes of plaintext within the path's budget.
  size_t pad_room(const Endpoint& ep, size_t inner) const;

  // Receives bursts of datagrams (recvmmsg, kRxBatch at a time), splits UDP GRO aggregates, and hands each
  // datagram to f(data, len, from). Network thread only.
  template <typename F>
  void receive_burst(F f) {
    if (!rx_bufs_) rx_bufs_.reset(new uint8_t[kRxBatch * kBufSize]);
    mmsghdr msgs[kRxBatch];
    iovec iovs[kRxBatch];
    Endpoint from[kRxBatch];
    alignas(cmsghdr) char ctrl[kRxBatch][CMSG_SPACE(sizeof(int))];
    for (int round = 0; round < 8; ++round) {
      for (size_t i = 0; i < kRxBatch; ++i) {
        iovs[i] = {rx_bufs_.get() + i * kBufSize, kBufSize};
        msgs[i] = {};
        msgs[i].msg_hdr.msg_name = &from[i].addr;
        msgs[i].msg_hdr.msg_namelen = sizeof from[i].addr;
        msgs[i].msg_hdr.msg_iov = &iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_control = ctrl[i];
        msgs[i].msg_hdr.msg_controllen = sizeof ctrl[i];
      }
      int n = recvmmsg(udp_fd_, msgs, kRxBatch, 0, nullptr);
      if (n <= 0) return;
      for (int i = 0; i < n; ++i) {
        msghdr& msg = msgs[i].msg_hdr;
        from[i].len = msg.msg_namelen;
        size_t gso = 0;
        for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
          if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int v = 0;
            std::memcpy(&v, CMSG_DATA(c), sizeof v);
            gso = v > 0 ? size_t(v) : 0;
          }
        }
        uint8_t* buf = static_cast<uint8_t*>(iovs[i].iov_base);
        const size_t len = msgs[i].msg_len;
        if (gso == 0 || gso >= len) {
          f(buf, len, from[i]);
        } else {
          for (size_t off = 0; off < len; off += gso) f(buf + off, std::min(gso, len - off), from[i]);
        }
      }
      if (size_t(n) < kRxBatch) return;  // drained
    }
  }

  // Reads what the connection has and hands each complete record to f(p, avail, consumed). Returns false
  // when the connection ended (noted on c: end_cause) or sent an impossible length (the caller closes it).
  // Stops without reading while c.paused.
  // With TLS, record headers are stripped as the bytes arrive (the peer's handshake flight is skipped first).
  template <typename F>
  bool tcp_receive(TcpConn& c, F f) {
    TlsRecordReader* const tls = c.tls_reader();
    for (int reads = 0; reads < 64 && !c.paused; ++reads) {
      if (c.rx_len == c.rx_cap()) return false;  // cannot happen with valid lengths
      const size_t space = c.rx_cap() - c.rx_len;
      ssize_t n = recv(c.fd, c.rx() + c.rx_len, tls ? tls->read_size(space) : space, MSG_DONTWAIT);
      if (n == 0) {
        c.note_end(TcpConn::kPeerClosed);
        return false;
      }
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return true;
        c.note_end(errno);
        return false;
      }
      size_t kept = size_t(n);
      if (tls && !tls->take(c.rx() + c.rx_len, size_t(n), kept)) return false;
      c.rx_len += kept;
      if (kept && !parse_buffered(c, f)) return false;
    }
    return true;
  }

  // Parses what is buffered (also after an unpause). False on an impossible record.
  template <typename F>
  bool parse_buffered(TcpConn& c, F f) {
    size_t off = 0;
    bool ok = true;
    while (ok && !c.paused) {
      size_t consumed = 0;
      // f may grow the buffer (after authentication): always index through c.rx().
      ok = f(c.rx() + off, c.rx_len - off, consumed);
      if (consumed == 0) break;
      off += consumed;
    }
    if (off >= c.rx_len) {
      c.rx_len = 0;
    } else {
      std::memmove(c.rx(), c.rx() + off, c.rx_len - off);
      c.rx_len -= off;
    }
    return ok;
  }

  // Parses one record from p (avail bytes) whose length mask is applied by unmask_len; calls handle(msg, len)
  // for it. Sets consumed (0 when incomplete); false on an impossible length.
  template <typename Unmask, typename Handle>
  static bool parse_record(uint8_t* p, size_t avail, size_t& consumed, size_t min_len, size_t max_len,
                           size_t& pending_len, Unmask unmask_len, Handle handle) {
    consumed = 0;
    if (pending_len == 0) {
      if (avail < kRecordLenBytes) return true;
      uint8_t l[2] = {p[0], p[1]};
      unmask_len(l);
      pending_len = (size_t(l[0]) << 8) | l[1];
      if (pending_len < min_len || pending_len > max_len) return false;
      p[0] = l[0];
      p[1] = l[1];
    }
    // Otherwise the length bytes were already unmasked in place on an earlier, incomplete pass.
    if (avail < kRecordLenBytes + pending_len) return true;
    const size_t len = pending_len;
    pending_len = 0;
    consumed = kRecordLenBytes + len;
    return handle(p + kRecordLenBytes, len);
  }

  // Hands an authenticated inner IP packet to the packet device, merging TCP segments when offloads are on.
  // Network thread only; flush_deliveries() must follow every receive burst.
  void deliver(const uint8_t* pt, size_t len);
  void flush_deliveries();
  void tun_write(const VnetHdr* h, const uint8_t* pt, size_t len);

  // Builds and sends an encrypted ping/pong with random padding through session s.
  void send_control(Session& s, RandomPool& rng, uint8_t kind, uint64_t t, const Endpoint& ep);
  static uint64_t read_control_time(const uint8_t* pt) {
    uint64_t t = 0;
    for (int i = 7; i >= 0; --i) t = (t << 8) | pt[1 + i];
    return t;
  }

  std::unique_ptr<PacketIo> io_;
  const int mtu_;
  const int path_mtu_;
  std::shared_ptr<EventSink> sink_;
  std::unique_ptr<TcpCoalescer> gro_;   // network thread only
  std::unique_ptr<uint8_t[]> rx_bufs_;  // network thread only: recvmmsg buffers, allocated once
  bool gso_ok_ = true;                  // TUN thread only: cleared when the kernel refuses UDP_SEGMENT
  bool tcp_tun_may_wait_ = false;       // set by a client: its TUN thread waits for its one TCP connection
  int udp_fd_ = -1;
  int stop_fd_ = -1;
  int wake_fd_ = -1;
  AtomicCounters counters_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> failed_{false};
  std::thread tun_thread_, net_thread_;
  Clock::time_point last_counters_{};
  Counters last_sent_counters_{};
};

}  // namespace ferry

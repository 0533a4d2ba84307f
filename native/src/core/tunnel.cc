// Client and server tunnel engines: one thread reads the TUN device, one reads the network (UDP or TCP).
#include "tunnel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "offload.h"
#include "protocol.h"
#include "replay-window.h"
#include "tcp-framing.h"
#include "tun.h"

namespace ferry {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr size_t kBufSize = 65536 + 64;
constexpr auto kPreviousKeep = seconds(15);
constexpr auto kHandshakeRetry = milliseconds(1000);
constexpr auto kTcpHandshakeTimeout = milliseconds(5000);
constexpr auto kCountersEvery = milliseconds(1000);
constexpr int kTimerTickMs = 50;
// One UDP GSO send carries at most this many bytes / datagrams (kernel limits: 64 KB, UDP_MAX_SEGMENTS).
constexpr size_t kBatchLimit = 65000;
constexpr size_t kMaxGsoSegments = 64;
// Datagrams (each possibly a 64 KB GRO aggregate) per recvmmsg call.
constexpr size_t kRxBatch = 8;

int64_t system_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}
uint64_t steady_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}

// Padding lengths only need to be unpredictable to observers of ciphertext lengths, not secret keys;
// a CSPRNG-seeded xorshift avoids a syscall or lock per packet.
class FastRandom {
 public:
  FastRandom() {
    random_bytes(reinterpret_cast<uint8_t*>(&s_), sizeof s_);
    if (s_ == 0) s_ = 0x9e3779b97f4a7c15ull;
  }
  uint64_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return s_;
  }

 private:
  uint64_t s_ = 0;
};

uint32_t random_u32() {
  uint32_t v;
  random_bytes(reinterpret_cast<uint8_t*>(&v), sizeof v);
  return v;
}

// One TCP connection carrying Ferry records. Writers (TUN and network threads) serialise on send_mu,
// which also keeps the length keystream in record order; the network thread alone reads.
struct TcpConn {
  TcpConn(int f, Clock::time_point now) : fd(f), opened(now), rx(new uint8_t[kRxSize]) {}
  ~TcpConn() {
    if (fd >= 0) ::close(fd);
  }
  TcpConn(const TcpConn&) = delete;
  TcpConn& operator=(const TcpConn&) = delete;

  static constexpr size_t kRxSize = 256 * 1024;
  const int fd;
  const Clock::time_point opened;
  std::atomic<bool> broken{false};

  std::mutex send_mu;
  std::unique_ptr<RecordMasks> masks;  // set before the connection is shared between threads
  bool server_side = false;

  // Reader state (network thread only).
  std::unique_ptr<uint8_t[]> rx;
  size_t rx_len = 0;
  bool preamble_done = false;
  size_t pending_len = 0;  // length of a record whose length bytes were already unmasked
  bool authenticated = false;
  bool draining = false;
  int peer = -1;

  // buf holds records laid out as [2-byte length, big-endian, unmasked][message]...; masks each length
  // in order and writes everything. A short write (2 s send timeout) breaks the connection.
  bool send_records(uint8_t* buf, size_t len, const uint8_t* prefix = nullptr, size_t prefix_len = 0) {
    std::lock_guard<std::mutex> lock(send_mu);
    if (broken.load()) return false;
    for (size_t off = 0; off + kRecordLenBytes <= len;) {
      const size_t l = (size_t(buf[off]) << 8) | buf[off + 1];
      if (server_side)
        masks->s2c(buf + off);
      else
        masks->c2s(buf + off);
      off += kRecordLenBytes + l;
    }
    iovec iov[2] = {{const_cast<uint8_t*>(prefix), prefix_len}, {buf, len}};
    msghdr msg{};
    msg.msg_iov = prefix_len ? iov : iov + 1;
    msg.msg_iovlen = prefix_len ? 2 : 1;
    size_t total = prefix_len + len, done = 0;
    while (done < total) {
      ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        broken = true;
        return false;
      }
      done += size_t(n);
      // Advance the iovecs past what was written.
      size_t k = size_t(n);
      while (k > 0 && msg.msg_iovlen > 0) {
        if (k >= msg.msg_iov[0].iov_len) {
          k -= msg.msg_iov[0].iov_len;
          ++msg.msg_iov;
          --msg.msg_iovlen;
        } else {
          msg.msg_iov[0].iov_base = static_cast<uint8_t*>(msg.msg_iov[0].iov_base) + k;
          msg.msg_iov[0].iov_len -= k;
          k = 0;
        }
      }
    }
    return true;
  }
};

using TcpConnPtr = std::shared_ptr<TcpConn>;

// Where a peer is: a UDP address, or (TCP transport) the connection it authenticated on.
struct Endpoint {
  sockaddr_storage addr{};
  socklen_t len = 0;
  TcpConnPtr conn;
};

void set_tcp_options(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

Endpoint resolve(const std::string& host, uint16_t port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  addrinfo* res = nullptr;
  std::string p = std::to_string(port);
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), p.c_str(), &hints, &res);
  if (rc != 0 || !res) throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
  Endpoint e;
  std::memcpy(&e.addr, res->ai_addr, res->ai_addrlen);
  e.len = res->ai_addrlen;
  freeaddrinfo(res);
  return e;
}

int make_udp_socket(int family) {
  int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot create UDP socket: ") + std::strerror(errno));
  // Large buffers absorb bursts between our batch reads; FORCE works as root, the plain call is the fallback.
  int sz = 8 << 20;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz) < 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof sz) < 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
  // Coalesced receives when the kernel supports UDP GRO; receive_burst() splits them again.
  int one = 1;
  setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one);
  return fd;
}

struct AtomicCounters {
  std::atomic<uint64_t> tx_packets{0}, tx_bytes{0}, rx_packets{0}, rx_bytes{0};
  std::atomic<uint64_t> dropped{0}, replay_dropped{0}, auth_dropped{0}, handshakes{0};
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
  void drop() { dropped.fetch_add(1, std::memory_order_relaxed); }
};

struct ServerPeer;

// One direction pair of keys. The send half may be used by both threads (data from the TUN thread,
// pings/pongs from the network thread), so it is guarded by send_mu; the receive half and the replay
// window belong to the network thread alone.
struct Session {
  Session(const SessionKeys& k, std::weak_ptr<ServerPeer> owner_peer)
      : local_index(k.local_index),
        remote_index(k.remote_index),
        cipher(k.cipher),
        owner(std::move(owner_peer)),
        created(Clock::now()),
        send(k.cipher, k.send),
        recv(k.cipher, k.recv) {}

  const uint32_t local_index, remote_index;
  const Cipher cipher;
  // Server: the peer this session belongs to; expired once the peer is removed (revoked).
  const std::weak_ptr<ServerPeer> owner;
  const Clock::time_point created;

  std::mutex send_mu;
  Aead send;                // guarded by send_mu
  uint64_t send_count = 0;  // guarded by send_mu

  Aead recv;                        // network thread only
  ReplayWindow window;              // network thread only
  Clock::time_point replaced_at{};  // network thread only; set when a newer session takes over

  // Checks the replay window and opens buf in place, counting what it refuses. The caller commits
  // `counter` to the window once it accepts the packet. Network thread only.
  bool open(uint8_t* buf, size_t len, AtomicCounters& counters, uint64_t& counter) {
    counter = data_counter(buf);
    if (!window.check(counter) || counter >= kRejectAfterMessages) {
      counters.drop_replay();
      return false;
    }
    if (!open_data(recv, buf, len)) {
      counters.drop_auth();
      return false;
    }
    return true;
  }

  // Seals buf (plaintext at buf+kHeaderLen) and returns the datagram length, or 0 when the key is spent.
  size_t seal(Masker& m, uint8_t* buf, size_t pt_len) {
    std::lock_guard<std::mutex> lock(send_mu);
    if (send_count >= kRejectAfterMessages) return 0;
    return seal_data(send, m, remote_index, send_count++, buf, pt_len);
  }
  uint64_t sent() {
    std::lock_guard<std::mutex> lock(send_mu);
    return send_count;
  }
};

using SessionPtr = std::shared_ptr<Session>;

// Shared plumbing of both engines: TUN, socket, stop signal, threads, counters, events.
class EngineBase : public Tunnel {
 public:
  EngineBase(std::unique_ptr<PacketIo> io, int mtu, bool offload, std::shared_ptr<EventSink> sink)
      : io_(std::move(io)), mtu_(mtu), offload_(offload), sink_(std::move(sink)) {
    if (mtu < 576 || mtu > 65535 - 64) throw std::runtime_error("mtu must be between 576 and 65471");
    if (io_->vnet_hdr()) gro_ = std::make_unique<TcpCoalescer>();
    stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd_ < 0) throw std::runtime_error("eventfd failed");
  }

  ~EngineBase() override {
    // Subclasses call close() in their destructors; this is a safety net for construction failures.
    stop_threads();
    if (udp_fd_ >= 0) ::close(udp_fd_);
    if (stop_fd_ >= 0) ::close(stop_fd_);
  }

  void close() override {
    if (closed_.exchange(true)) return;
    stop_threads();
    io_->close();  // removes the interface
    if (udp_fd_ >= 0) ::close(udp_fd_);
    udp_fd_ = -1;
    Event e;
    e.type = "state";
    e.state = "closed";
    e.counters = counters_.snapshot();
    emit(e);
  }

  Counters counters() const override { return counters_.snapshot(); }
  const std::string& interface_name() const override { return io_->name(); }

 protected:
  void start_threads() {
    tun_thread_ = std::thread([this] { guarded("tun", [this] { tun_loop(); }); });
    net_thread_ = std::thread([this] { guarded("net", [this] { net_loop(); }); });
  }

  void stop_threads() {
    if (stop_fd_ >= 0) {
      uint64_t one = 1;
      ssize_t w = write(stop_fd_, &one, sizeof one);
      (void)w;
    }
    if (tun_thread_.joinable()) tun_thread_.join();
    if (net_thread_.joinable()) net_thread_.join();
  }

  template <typename F>
  void guarded(const char* name, F f) {
    try {
      f();
    } catch (const std::exception& ex) {
      error(std::string(name) + " thread stopped: " + ex.what());
    }
  }

  virtual void net_loop() = 0;

  // Waits for fd readability or stop; returns false when stopping.
  bool wait_readable(int fd, int timeout_ms) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int rc = poll(p, 2, timeout_ms);
    if (rc < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    return !(p[1].revents & POLLIN);
  }

  void emit(const Event& e) {
    if (sink_) sink_->emit(e);
  }
  void error(const std::string& msg) {
    Event e;
    e.type = "error";
    e.message = msg;
    emit(e);
  }

  void maybe_emit_counters(Clock::time_point now) {
    if (now - last_counters_ < kCountersEvery) return;
    last_counters_ = now;
    Counters c = counters_.snapshot();
    if (std::memcmp(&c, &last_sent_counters_, sizeof c) == 0) return;
    last_sent_counters_ = c;
    Event e;
    e.type = "counters";
    e.counters = c;
    emit(e);
  }

  // Where packets read from the TUN device go: the session to seal them with and the peer's address.
  struct Target {
    SessionPtr session;
    Endpoint endpoint;
  };
  // Picks the target for an IP packet read from the TUN device; false drops it. TUN thread only.
  virtual bool route(const uint8_t* ip, size_t len, Target& t) = 0;

  // Datagrams sealed back to back for one UDP GSO send: all the same size except possibly the last.
  // Sealed datagrams for one destination, back to back. While they are all the same size (a short
  // last one allowed) the batch leaves in one UDP GSO send; mixed sizes leave in one sendmmsg.
  struct TxBatch {
    uint8_t* buf = nullptr;
    size_t used = 0, count = 0, seg = 0, inner_bytes = 0;
    bool short_tail = false;
    bool uniform = true;
    size_t lens[kMaxGsoSegments] = {};
    Target target;
  };

  static bool same_target(const Target& a, const Target& b) {
    return a.session == b.session && a.endpoint.conn == b.endpoint.conn && a.endpoint.len == b.endpoint.len &&
           std::memcmp(&a.endpoint.addr, &b.endpoint.addr, a.endpoint.len) == 0;
  }

  // The TUN thread: read (super-)packets, segment TSO packets, seal, send in GSO batches.
  void tun_loop() {
    Masker m(mask_key_);
    FastRandom rng;
    std::unique_ptr<uint8_t[]> rbuf(new uint8_t[kBufSize]);
    std::unique_ptr<uint8_t[]> scratch(new uint8_t[kBufSize]);
    std::unique_ptr<uint8_t[]> bbuf(new uint8_t[kBatchLimit + kBufSize]);
    TxBatch b;
    b.buf = bbuf.get();
    const bool vnet = io_->vnet_hdr();
    while (wait_readable(io_->fd(), -1)) {
      for (int burst = 0; burst < 64; ++burst) {
        ssize_t n = read(io_->fd(), rbuf.get(), kBufSize);
        if (n <= 0) break;
        uint8_t* pkt = rbuf.get();
        size_t len = size_t(n);
        VnetHdr h{};
        if (vnet) {
          if (len < kVnetHdrLen) continue;
          std::memcpy(&h, pkt, kVnetHdrLen);
          pkt += kVnetHdrLen;
          len -= kVnetHdrLen;
        }
        Target t;
        if (len < 20 || !route(pkt, len, t)) {
          counters_.drop();
          continue;
        }
        if (b.count && !same_target(b.target, t)) batch_flush(b);
        b.target = t;
        // One padding length per read keeps the segments of a super-packet equal-sized for GSO.
        const size_t pad = size_t(rng.next() & 15);
        if (vnet && (h.gso_type & ~kGsoEcn) != kGsoNone) {
          int segs = segment_tcp(h, pkt, len, scratch.get(), kBufSize,
                                 [&](const uint8_t* seg, size_t seg_len) { batch_add(b, m, pad, seg, seg_len); });
          if (segs < 0) counters_.drop();
        } else if (!vnet || complete_checksum(h, pkt, len)) {
          if (len <= size_t(mtu_))
            batch_add(b, m, pad, pkt, len);
          else
            counters_.drop();
        } else {
          counters_.drop();
        }
      }
      // Nothing more to read right now: send what this burst produced without waiting, and let go
      // of the session so that a retired one is not kept alive by an idle TUN thread.
      batch_flush(b);
      b.target = Target();
    }
  }

  void batch_add(TxBatch& b, Masker& m, size_t pad, const uint8_t* pkt, size_t len) {
    const Target& t = b.target;
    const size_t room = len < size_t(mtu_) ? size_t(mtu_) - len : 0;
    const size_t p = pad < room ? pad : room;
    const size_t dlen = len + p + kDataOverhead;
    const bool tcp = t.endpoint.conn != nullptr;
    const size_t prefix = tcp ? kRecordLenBytes : 0;
    if (b.count && (b.used + prefix + dlen > kBatchLimit || b.count >= kMaxGsoSegments)) batch_flush(b);
    // Keep a GSO-able run intact: a datagram that would break it starts a new batch instead.
    if (!tcp && b.count >= 2 && b.uniform && (dlen > b.seg || b.short_tail)) batch_flush(b);
    uint8_t* slot = b.buf + b.used + prefix;
    std::memcpy(slot + kHeaderLen, pkt, len);
    std::memset(slot + kHeaderLen + len, 0, p);
    const size_t out = t.session->seal(m, slot, len + p);
    if (!out) {
      counters_.drop();
      return;
    }
    if (tcp) {
      slot[-2] = uint8_t(out >> 8);
      slot[-1] = uint8_t(out);
    }
    if (b.count == 0) {
      b.seg = out;
    } else if (b.uniform) {
      if (out > b.seg || b.short_tail)
        b.uniform = false;
      else if (out < b.seg)
        b.short_tail = true;
    }
    b.lens[b.count] = out;
    b.used += prefix + out;
    b.inner_bytes += len;
    ++b.count;
  }

  void batch_flush(TxBatch& b) {
    if (!b.count) return;
    const Target& t = b.target;
    bool ok = false;
    if (t.endpoint.conn) {
      ok = t.endpoint.conn->send_records(b.buf, b.used);
    } else if (b.count == 1) {
      ok = send_to(b.buf, b.used, t.endpoint);
    } else {
      if (b.uniform && gso_ok_) {
        ok = send_gso(b.buf, b.used, b.seg, t.endpoint);
        if (!ok && (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT || errno == EOPNOTSUPP)) {
          gso_ok_ = false;  // no UDP GSO here (old kernel, or a device without checksum offload)
        }
      }
      if (!ok) ok = send_many(b, t.endpoint);
    }
    if (ok) {
      counters_.tx_packets.fetch_add(b.count, std::memory_order_relaxed);
      counters_.tx_bytes.fetch_add(b.inner_bytes, std::memory_order_relaxed);
    } else {
      counters_.dropped.fetch_add(b.count, std::memory_order_relaxed);
    }
    b.used = b.count = b.seg = b.inner_bytes = 0;
    b.short_tail = false;
    b.uniform = true;  // the target stays: a super-packet may continue into the next batch
  }

  // One sendmmsg for datagrams of mixed sizes (small packets of several flows, ACKs).
  bool send_many(TxBatch& b, const Endpoint& ep) {
    mmsghdr msgs[kMaxGsoSegments];
    iovec iovs[kMaxGsoSegments];
    size_t off = 0;
    for (size_t i = 0; i < b.count; ++i) {
      iovs[i] = {b.buf + off, b.lens[i]};
      off += b.lens[i];
      msgs[i] = {};
      msgs[i].msg_hdr.msg_name = const_cast<sockaddr_storage*>(&ep.addr);
      msgs[i].msg_hdr.msg_namelen = ep.len;
      msgs[i].msg_hdr.msg_iov = &iovs[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    size_t sent = 0;
    for (int tries = 0; tries < 50 && sent < b.count; ++tries) {
      int n = sendmmsg(udp_fd_, msgs + sent, unsigned(b.count - sent), 0);
      if (n > 0) {
        sent += size_t(n);
        continue;
      }
      if (n < 0 && errno == EAGAIN && wait_writable()) continue;
      return false;
    }
    return sent == b.count;
  }

  // Waits (bounded) for room in the socket buffer instead of dropping a burst. False when stopping.
  bool wait_writable() {
    pollfd p[2] = {{udp_fd_, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
    return poll(p, 2, 100) > 0 && !(p[1].revents & POLLIN) && (p[0].revents & POLLOUT);
  }

  bool send_gso(const uint8_t* buf, size_t len, size_t seg, const Endpoint& ep) {
    iovec iov{const_cast<uint8_t*>(buf), len};
    msghdr msg{};
    msg.msg_name = const_cast<sockaddr_storage*>(&ep.addr);
    msg.msg_namelen = ep.len;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(uint16_t))] = {};
    msg.msg_control = ctrl;
    msg.msg_controllen = sizeof ctrl;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
    const uint16_t s = uint16_t(seg);
    std::memcpy(CMSG_DATA(c), &s, sizeof s);
    for (int tries = 0; tries < 50; ++tries) {
      ssize_t n = sendmsg(udp_fd_, &msg, 0);
      if (n == ssize_t(len)) return true;
      if (n >= 0 || errno != EAGAIN || !wait_writable()) return false;
    }
    return false;
  }

  bool send_to(const uint8_t* buf, size_t len, const Endpoint& ep) {
    if (ep.conn) {
      if (len > kMaxRecord) return false;
      uint8_t rec[kRecordLenBytes + kMaxRecord];
      rec[0] = uint8_t(len >> 8);
      rec[1] = uint8_t(len);
      std::memcpy(rec + kRecordLenBytes, buf, len);
      return ep.conn->send_records(rec, kRecordLenBytes + len);
    }
    for (int tries = 0; tries < 50; ++tries) {
      ssize_t n = sendto(udp_fd_, buf, len, 0, reinterpret_cast<const sockaddr*>(&ep.addr), ep.len);
      if (n == ssize_t(len)) return true;
      if (n >= 0 || errno != EAGAIN || !wait_writable()) return false;
    }
    return false;
  }

  // Receives bursts of datagrams (recvmmsg, kRxBatch at a time), splits UDP GRO aggregates, and
  // hands each datagram to f(data, len, from). Network thread only (uses rx_bufs_).
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

  // Reads what the connection has and hands each complete record to f(msg, len). Returns false when
  // the connection ended or sent an impossible length (the caller closes it). The server parses
  // the preamble itself before calling this (prefix_done).
  template <typename F>
  bool tcp_receive(TcpConn& c, F f) {
    for (;;) {
      if (c.rx_len == TcpConn::kRxSize) return false;  // cannot happen with valid lengths
      ssize_t n = recv(c.fd, c.rx.get() + c.rx_len, TcpConn::kRxSize - c.rx_len, MSG_DONTWAIT);
      if (n == 0) return false;
      if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      c.rx_len += size_t(n);
      size_t off = 0;
      bool ok = true;
      while (ok) {
        size_t consumed = 0;
        ok = f(c.rx.get() + off, c.rx_len - off, consumed);
        if (consumed == 0) break;
        off += consumed;
      }
      std::memmove(c.rx.get(), c.rx.get() + off, c.rx_len - off);
      c.rx_len -= off;
      if (!ok) return false;
    }
  }

  // Parses one record from p (avail bytes) whose length mask is applied by unmask_len; calls
  // handle(msg, len) for it. Sets consumed (0 when incomplete); false on an impossible length.
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
    } else {
      // The length bytes were already unmasked in place on an earlier, incomplete pass.
    }
    if (avail < kRecordLenBytes + pending_len) return true;
    const size_t len = pending_len;
    pending_len = 0;
    consumed = kRecordLenBytes + len;
    return handle(p + kRecordLenBytes, len);
  }

  // Hands an authenticated inner IP packet to the TUN device, merging TCP segments when offloads are
  // on. Network thread only; flush_deliveries() must follow every receive burst.
  void deliver(const uint8_t* pt, size_t len) {
    counters_.rx_packets.fetch_add(1, std::memory_order_relaxed);
    counters_.rx_bytes.fetch_add(len, std::memory_order_relaxed);
    if (gro_)
      gro_->deliver(pt, len, [this](const VnetHdr* h, const uint8_t* d, size_t l) { tun_write(h, d, l); });
    else
      tun_write(nullptr, pt, len);
  }

  void flush_deliveries() {
    if (gro_) gro_->flush([this](const VnetHdr* h, const uint8_t* d, size_t l) { tun_write(h, d, l); });
  }

  void tun_write(const VnetHdr* h, const uint8_t* pt, size_t len) {
    static const VnetHdr kNoOffload{};
    iovec iov[2] = {{const_cast<VnetHdr*>(h ? h : &kNoOffload), kVnetHdrLen}, {const_cast<uint8_t*>(pt), len}};
    const bool vnet = io_->vnet_hdr();
    if (writev(io_->fd(), vnet ? iov : iov + 1, vnet ? 2 : 1) < 0) counters_.drop();
  }

  // Builds and sends an encrypted ping/pong with random padding through session s.
  void send_control(Session& s, Masker& m, FastRandom& rng, uint8_t kind, uint64_t t, const Endpoint& ep) {
    uint8_t buf[kHeaderLen + 9 + 63 + kTagLen];
    uint8_t* pt = buf + kHeaderLen;
    pt[0] = kind;
    for (int i = 0; i < 8; ++i) pt[1 + i] = uint8_t(t >> (8 * i));
    size_t padlen = size_t(rng.next() % 64);
    std::memset(pt + 9, 0, padlen);
    size_t len = s.seal(m, buf, 9 + padlen);
    if (len) send_to(buf, len, ep);
  }

  std::unique_ptr<PacketIo> io_;
  const int mtu_;
  const bool offload_;
  std::shared_ptr<EventSink> sink_;
  Key32 mask_key_{};                    // set by the subclass before start_threads()
  std::unique_ptr<TcpCoalescer> gro_;   // network thread only
  std::unique_ptr<uint8_t[]> rx_bufs_;  // network thread only: recvmmsg buffers, allocated once
  bool gso_ok_ = true;                  // TUN thread only: cleared when the kernel refuses UDP_SEGMENT
  int udp_fd_ = -1;
  int stop_fd_ = -1;
  AtomicCounters counters_;
  std::atomic<bool> closed_{false};
  std::thread tun_thread_, net_thread_;
  Clock::time_point last_counters_{};
  Counters last_sent_counters_{};
};

// ---------------------------------------------------------------------------------------------
// Client

class ClientEngine final : public EngineBase {
 public:
  ClientEngine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink)
      : EngineBase(std::move(io), cfg.mtu, cfg.offload, std::move(sink)),
        cfg_(cfg),
        client_pub_(x25519_public_from_private(cfg.private_key)),
        server_(resolve(cfg.server_host, cfg.server_port, false)) {
    mask_key_ = derive_mask_key(cfg.server_public);
    if (cfg.rekey_seconds < 1 || cfg.rekey_seconds > kRekeyAfterSecondsMax)
      throw std::runtime_error("rekey seconds must be between 1 and 120");
    if (cfg.keepalive_seconds < 1 || cfg.keepalive_seconds > 60)
      throw std::runtime_error("keepalive seconds must be between 1 and 60");
    if (cfg.rekey_packets < 16) throw std::runtime_error("rekey packets must be at least 16");
    udp_fd_ = make_udp_socket(server_.addr.ss_family);
    start_threads();
  }
  ~ClientEngine() override { close(); }

 private:
  SessionPtr current() {
    std::lock_guard<std::mutex> lock(mu_);
    return current_;
  }

  bool route(const uint8_t*, size_t, Target& t) override {
    std::lock_guard<std::mutex> lock(mu_);
    t.session = current_;
    t.endpoint = server_;
    if (cfg_.tcp) {
      if (!tcp_ || tcp_->broken.load()) return false;
      t.endpoint.conn = tcp_;
    }
    return t.session != nullptr;
  }

  // The server as a destination: its UDP address, or the live TCP connection.
  Endpoint server_endpoint() {
    Endpoint e = server_;
    if (cfg_.tcp) {
      std::lock_guard<std::mutex> lock(mu_);
      e.conn = tcp_;
    }
    return e;
  }

  // Opens a TCP connection and sends preamble + initiation in one segment before any other thread
  // may write to it (the server insists that the first record is an initiation).
  void tcp_connect(Masker& m, FastRandom& rng) {
    tcp_attempt_ = Clock::now();
    int fd = socket(server_.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return;
    int rc = connect(fd, reinterpret_cast<const sockaddr*>(&server_.addr), server_.len);
    if (rc < 0 && errno == EINPROGRESS) {
      pollfd p[2] = {{fd, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
      int err = 0;
      socklen_t el = sizeof err;
      if (poll(p, 2, 3000) <= 0 || (p[1].revents & POLLIN) || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 ||
          err != 0) {
        ::close(fd);
        return;
      }
    } else if (rc < 0) {
      ::close(fd);
      return;
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // writes block (bounded by SO_SNDTIMEO); reads use MSG_DONTWAIT
    set_tcp_options(fd);
    auto conn = std::make_shared<TcpConn>(fd, Clock::now());
    const std::string pre = make_preamble();
    conn->masks =
        std::make_unique<RecordMasks>(cfg_.server_public, reinterpret_cast<const uint8_t*>(pre.data()), pre.size());
    uint8_t rec[kRecordLenBytes + kInitMaxLen];
    size_t len = build_init(m, rng, rec + kRecordLenBytes);
    if (!len) return;
    rec[0] = uint8_t(len >> 8);
    rec[1] = uint8_t(len);
    if (!conn->send_records(rec, kRecordLenBytes + len, reinterpret_cast<const uint8_t*>(pre.data()), pre.size()))
      return;
    std::lock_guard<std::mutex> lock(mu_);
    tcp_ = conn;
  }

  void set_state(const char* state) {
    if (state_ == state) return;
    state_ = state;
    Event e;
    e.type = "state";
    e.state = state;
    emit(e);
  }

  size_t build_init(Masker& m, FastRandom& rng, uint8_t* out) {
    uint64_t ts = uint64_t(system_ms());
    if (ts <= last_ts_) ts = last_ts_ + 1;  // strictly increasing, as the server's replay cache demands
    last_ts_ = ts;
    InitParams p{x25519_generate_private(), random_u32(), ts, cfg_.cipher, size_t(rng.next() % (kMaxHandshakePad + 1))};
    size_t len = write_init(cfg_.private_key, client_pub_, cfg_.server_public, m, p, hs_, out);
    hs_in_flight_ = len != 0;
    hs_sent_ = Clock::now();
    return len;
  }

  void send_init(Masker& m, FastRandom& rng) {
    uint8_t out[kInitMaxLen];
    size_t len = build_init(m, rng, out);
    if (len) send_to(out, len, server_endpoint());
  }

  void on_response(uint8_t* buf, size_t len, Masker& m, FastRandom& rng) {
    SessionKeys keys;
    if (!hs_in_flight_ || !read_response(hs_, cfg_.private_key, buf, len, keys)) {
      counters_.drop_auth();
      return;
    }
    hs_in_flight_ = false;
    last_recv_ = Clock::now();
    auto s = std::make_shared<Session>(keys, std::weak_ptr<ServerPeer>());
    OPENSSL_cleanse(&keys, sizeof keys);  // the AEAD contexts hold the keys from here on
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (current_) {
        current_->replaced_at = Clock::now();
        previous_ = current_;
      } else {
        first = true;
      }
      current_ = s;
    }
    counters_.handshakes.fetch_add(1, std::memory_order_relaxed);
    // The ping confirms the new keys to the server, which switches its sending side on receipt.
    last_ping_ = Clock::now();
    send_control(*s, m, rng, kInnerPing, steady_ns(), server_endpoint());
    Event e;
    e.type = "rekey";
    e.cipher = cipher_name(s->cipher);
    if (!first) emit(e);
    set_state("connected");
  }

  void on_data(uint8_t* buf, size_t len, Masker& m, FastRandom& rng) {
    const uint32_t idx = data_receiver(buf);
    SessionPtr s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (current_ && current_->local_index == idx)
        s = current_;
      else if (previous_ && previous_->local_index == idx)
        s = previous_;
    }
    if (!s) {
      counters_.drop_auth();
      return;
    }
    uint64_t c;
    if (!s->open(buf, len, counters_, c)) return;
    s->window.commit(c);
    last_recv_ = Clock::now();
    uint8_t* pt = buf + kHeaderLen;
    const size_t pt_len = len - kDataOverhead;
    if (pt[0] == kInnerPong && pt_len >= 9) {
      uint64_t t = 0;
      for (int i = 7; i >= 0; --i) t = (t << 8) | pt[1 + i];
      uint64_t now = steady_ns();
      if (t <= now && now - t < uint64_t(60) * 1000000000ull) {
        Event e;
        e.type = "rtt";
        e.rtt_ms = double(now - t) / 1e6;
        emit(e);
      }
      return;
    }
    if (pt[0] == kInnerPing && pt_len >= 9) {
      uint64_t t = 0;
      for (int i = 7; i >= 0; --i) t = (t << 8) | pt[1 + i];
      send_control(*s, m, rng, kInnerPong, t, server_endpoint());
      return;
    }
    size_t ip_len = ip_packet_length(pt, pt_len);
    if (!ip_len) {
      counters_.drop();
      return;
    }
    deliver(pt, ip_len);
  }

  void timers(Masker& m, FastRandom& rng) {
    const auto now = Clock::now();
    SessionPtr cur = current();
    bool need_handshake = !cur;
    if (cur) {
      const bool old = now - cur->created >= seconds(cfg_.rekey_seconds);
      const bool volume =
          cur->sent() >= cfg_.rekey_packets || (cur->window.any() && cur->window.highest() >= cfg_.rekey_packets);
      need_handshake = old || volume;
      // Dead-peer detection: pings go out every keepalive interval, so a long silence means the
      // server lost our session (restart, failover) or the path died; keep the session but re-handshake.
      const auto dead_after = std::max<Clock::duration>(seconds(3 * cfg_.keepalive_seconds), seconds(5));
      if (now - last_recv_ >= dead_after) {
        need_handshake = true;
        set_state("connecting");
      }
      if (now - cur->created >= seconds(kRejectAfterSeconds)) {
        // The server no longer accepts this session: start over visibly rather than send into a void.
        std::lock_guard<std::mutex> lock(mu_);
        current_.reset();
        previous_.reset();
        set_state("connecting");
      }
    }
    if (cfg_.tcp) {
      TcpConnPtr conn;
      {
        std::lock_guard<std::mutex> lock(mu_);
        conn = tcp_;
      }
      // Over TCP nothing is lost in transit: an unanswered initiation means the connection is bad.
      if (conn && hs_in_flight_ && now - hs_sent_ >= kTcpHandshakeTimeout) conn->broken = true;
      if ((!conn || conn->broken.load()) && now - tcp_attempt_ >= kHandshakeRetry) {
        if (conn) {
          std::lock_guard<std::mutex> lock(mu_);
          tcp_.reset();
        }
        tcp_connect(m, rng);
      } else if (conn && need_handshake && !hs_in_flight_) {
        send_init(m, rng);
      }
    } else if (need_handshake && (!hs_in_flight_ || now - hs_sent_ >= kHandshakeRetry)) {
      send_init(m, rng);
    }
    if (cur && now - last_ping_ >= seconds(cfg_.keepalive_seconds)) {
      last_ping_ = now;
      send_control(*cur, m, rng, kInnerPing, steady_ns(), server_endpoint());
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (previous_ && now - previous_->replaced_at >= kPreviousKeep) previous_.reset();
    }
    maybe_emit_counters(now);
  }

  void net_loop() override {
    Masker m(mask_key_);
    FastRandom rng;
    set_state("connecting");
    timers(m, rng);
    auto dispatch = [&](uint8_t* d, size_t len) {
      uint8_t type = unmask_datagram(m, d, len);
      if (type == uint8_t(MsgType::kData))
        on_data(d, len, m, rng);
      else if (type == uint8_t(MsgType::kResponse))
        on_response(d, len, m, rng);
      else
        counters_.drop_auth();
    };
    for (;;) {
      TcpConnPtr conn;
      if (cfg_.tcp) {
        std::lock_guard<std::mutex> lock(mu_);
        conn = tcp_;
      }
      const int fd = cfg_.tcp ? (conn && !conn->broken.load() ? conn->fd : -1) : udp_fd_;
      if (!wait_readable(fd, kTimerTickMs)) break;
      if (!cfg_.tcp) {
        receive_burst([&](uint8_t* d, size_t len, const Endpoint&) { dispatch(d, len); });
      } else if (fd >= 0) {
        bool ok = tcp_receive(*conn, [&](uint8_t* p, size_t avail, size_t& consumed) {
          return parse_record(
              p, avail, consumed, kDataMinLen, kMaxRecord, conn->pending_len, [&](uint8_t* l) { conn->masks->s2c(l); },
              [&](uint8_t* msg, size_t len) {
                dispatch(msg, len);
                return true;
              });
        });
        if (!ok) conn->broken = true;
      }
      flush_deliveries();
      timers(m, rng);
    }
  }

  const ClientConfig cfg_;
  const Key32 client_pub_;
  const Endpoint server_;

  std::mutex mu_;
  SessionPtr current_, previous_;  // guarded by mu_

  // Network thread only:
  InitiatorState hs_;
  bool hs_in_flight_ = false;
  Clock::time_point hs_sent_{}, last_ping_{}, last_recv_{};
  uint64_t last_ts_ = 0;
  std::string state_;
  TcpConnPtr tcp_;  // guarded by mu_
  Clock::time_point tcp_attempt_{};
};

// ---------------------------------------------------------------------------------------------
// Server

struct ServerPeer {
  Key32 pub{};
  uint32_t address_v4 = 0;
  std::atomic<int> index{-1};   // position in the latest peer list, for events (no keys, no addresses)
  uint64_t last_timestamp = 0;  // network thread only: the per-peer handshake replay cache

  std::mutex mu;  // guards the fields below
  SessionPtr current, previous, next;
  Endpoint endpoint;
  bool has_endpoint = false;
  bool ever_connected = false;
};

// An immutable peer set; set_peers() swaps in a new one.
struct PeerTable {
  std::unordered_map<std::string, std::shared_ptr<ServerPeer>> by_key;
  std::unordered_map<uint32_t, std::shared_ptr<ServerPeer>> by_addr;
};

class ServerEngine final : public EngineBase {
 public:
  ServerEngine(const ServerConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink)
      : EngineBase(std::move(io), cfg.mtu, cfg.offload, std::move(sink)),
        priv_(cfg.private_key),
        pub_(x25519_public_from_private(cfg.private_key)),
        table_(build_table(cfg.peers, nullptr)) {
    mask_key_ = derive_mask_key(pub_);
    Endpoint listen = resolve(cfg.listen_host, cfg.listen_port, true);
    udp_fd_ = make_udp_socket(listen.addr.ss_family);
    if (bind(udp_fd_, reinterpret_cast<sockaddr*>(&listen.addr), listen.len) < 0)
      throw std::runtime_error(std::string("cannot bind UDP listen address: ") + std::strerror(errno));
    if (cfg.tcp_listen_port != 0) {
      if (cfg.tcp_auth_timeout_ms < 100 || cfg.tcp_auth_timeout_ms > 600000)
        throw std::runtime_error("TCP authentication timeout out of range");
      Endpoint tl = resolve(cfg.tcp_listen_host, cfg.tcp_listen_port, true);
      tcp_listen_fd_ = socket(tl.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      int one = 1;
      if (tcp_listen_fd_ < 0 || setsockopt(tcp_listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
          bind(tcp_listen_fd_, reinterpret_cast<sockaddr*>(&tl.addr), tl.len) < 0 ||
          ::listen(tcp_listen_fd_, 128) < 0) {
        int e = errno;
        if (tcp_listen_fd_ >= 0) ::close(tcp_listen_fd_);
        tcp_listen_fd_ = -1;
        throw std::runtime_error(std::string("cannot listen on the TCP address: ") + std::strerror(e));
      }
    }
    tcp_auth_timeout_ = milliseconds(cfg.tcp_auth_timeout_ms);
    start_threads();
  }
  // Replaces the peer set while running: unchanged peers (same key and address) keep their sessions;
  // removed ones stop at once (their sessions are refused and purged). Throws on duplicates.
  void set_peers(const std::vector<PeerConfig>& peers) override {
    std::lock_guard<std::mutex> update(update_mu_);
    auto next = build_table(peers, table());
    std::lock_guard<std::mutex> lock(table_mu_);
    table_ = std::move(next);
  }

  ~ServerEngine() override {
    close();
    for (auto& c : conns_) ::shutdown(c->fd, SHUT_RDWR);
    if (tcp_listen_fd_ >= 0) ::close(tcp_listen_fd_);
  }

 private:
  // Cryptokey routing: the peer is chosen by destination address. Only IPv4 peers so far.
  bool route(const uint8_t* ip, size_t len, Target& t) override {
    if (len < 20 || (ip[0] >> 4) != 4) return false;
    uint32_t dst = uint32_t(ip[16]) << 24 | uint32_t(ip[17]) << 16 | uint32_t(ip[18]) << 8 | ip[19];
    auto tbl = table();
    auto it = tbl->by_addr.find(dst);
    if (it == tbl->by_addr.end()) return false;
    ServerPeer& p = *it->second;
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.current || !p.has_endpoint) return false;
    t.session = p.current;
    t.endpoint = p.endpoint;
    return true;
  }

  static std::shared_ptr<const PeerTable> build_table(const std::vector<PeerConfig>& peers,
                                                      const std::shared_ptr<const PeerTable>& old) {
    auto t = std::make_shared<PeerTable>();
    for (size_t i = 0; i < peers.size(); ++i) {
      const PeerConfig& pc = peers[i];
      std::string k(reinterpret_cast<const char*>(pc.public_key.data()), 32);
      std::shared_ptr<ServerPeer> p;
      if (old) {
        auto it = old->by_key.find(k);
        if (it != old->by_key.end() && it->second->address_v4 == pc.address_v4) p = it->second;
      }
      if (!p) {
        p = std::make_shared<ServerPeer>();
        p->pub = pc.public_key;
        p->address_v4 = pc.address_v4;
      }
      p->index = int(i);
      if (!t->by_key.emplace(k, p).second) throw std::runtime_error("duplicate peer public key");
      if (!t->by_addr.emplace(pc.address_v4, p).second) throw std::runtime_error("duplicate peer tunnel address");
    }
    return t;
  }

  uint32_t fresh_index() {
    for (;;) {
      uint32_t i = random_u32();
      if (sessions_.find(i) == sessions_.end()) return i;
    }
  }

  // Authentic, fresh initiations from configured peers get a response; everything else gets silence.
  bool on_init(uint8_t* buf, size_t len, const Endpoint& from, Masker& m, FastRandom& rng) {
    ResponderState st;
    if (!read_init(priv_, pub_, buf, len, st)) {
      counters_.drop_auth();
      return false;
    }
    auto tbl = table();
    auto it = tbl->by_key.find(std::string(reinterpret_cast<const char*>(st.client_pub.data()), 32));
    if (it == tbl->by_key.end()) {
      counters_.drop_auth();
      return false;
    }
    std::shared_ptr<ServerPeer> peer = it->second;
    ServerPeer& p = *peer;
    const int64_t now_ms = system_ms();
    const int64_t skew = int64_t(st.timestamp_ms) - now_ms;
    if (skew > kHandshakeClockSkewSeconds * 1000 || skew < -kHandshakeClockSkewSeconds * 1000 ||
        st.timestamp_ms <= p.last_timestamp) {
      counters_.drop_replay();
      return false;
    }
    ResponseParams rp{x25519_generate_private(), fresh_index(), size_t(rng.next() % (kMaxHandshakePad + 1))};
    SessionKeys keys;
    uint8_t out[kResponseMaxLen];
    size_t out_len = write_response(st, m, rp, keys, out);
    if (!out_len) {
      counters_.drop_auth();
      return false;
    }
    p.last_timestamp = st.timestamp_ms;
    auto s = std::make_shared<Session>(keys, peer);
    OPENSSL_cleanse(&keys, sizeof keys);
    sessions_[s->local_index] = s;
    SessionPtr stale;
    {
      std::lock_guard<std::mutex> lock(p.mu);
      stale = p.next;  // an unconfirmed earlier attempt (e.g. its response was lost) is superseded
      p.next = s;
    }
    if (stale) sessions_.erase(stale->local_index);
    send_to(out, out_len, from);
    return true;
  }

  void on_data(uint8_t* buf, size_t len, const Endpoint& from, Masker& m, FastRandom& rng) {
    auto it = sessions_.find(data_receiver(buf));
    if (it == sessions_.end()) {
      counters_.drop_auth();
      return;
    }
    SessionPtr s = it->second;
    const auto now = Clock::now();
    if (now - s->created >= seconds(kRejectAfterSeconds)) {
      counters_.drop_auth();
      return;
    }
    uint64_t c;
    if (!s->open(buf, len, counters_, c)) return;
    std::shared_ptr<ServerPeer> peer = s->owner.lock();
    if (!peer) {  // the peer was removed: its sessions die with it
      sessions_.erase(it);
      counters_.drop_auth();
      return;
    }
    s->window.commit(c);
    ServerPeer& p = *peer;
    bool promoted = false, first = false;
    {
      std::lock_guard<std::mutex> lock(p.mu);
      // Roaming: the latest authentic packet says where the client is now.
      p.endpoint = from;
      p.has_endpoint = true;
      if (p.next == s) {
        if (p.current) {
          p.current->replaced_at = now;
          if (p.previous) retired_.push_back(p.previous);
          p.previous = p.current;
        }
        p.current = s;
        p.next.reset();
        promoted = true;
        first = !p.ever_connected;
        p.ever_connected = true;
      }
    }
    if (promoted) {
      counters_.handshakes.fetch_add(1, std::memory_order_relaxed);
      Event e;
      e.type = first ? "peer" : "rekey";
      e.state = "connected";
      e.peer = p.index.load();
      e.cipher = cipher_name(s->cipher);
      emit(e);
    }
    uint8_t* pt = buf + kHeaderLen;
    const size_t pt_len = len - kDataOverhead;
    if (pt[0] == kInnerPing && pt_len >= 9) {
      uint64_t t = 0;
      for (int i = 7; i >= 0; --i) t = (t << 8) | pt[1 + i];
      send_control(*s, m, rng, kInnerPong, t, from);
      return;
    }
    if (pt[0] == kInnerPong) return;
    size_t ip_len = ip_packet_length(pt, pt_len);
    // Cryptokey routing: a peer may only send from its own tunnel address.
    if (!ip_len || (pt[0] >> 4) != 4 ||
        (uint32_t(pt[12]) << 24 | uint32_t(pt[13]) << 16 | uint32_t(pt[14]) << 8 | pt[15]) != p.address_v4) {
      counters_.drop();
      return;
    }
    deliver(pt, ip_len);
  }

  void timers() {
    const auto now = Clock::now();
    if (now - last_sweep_ >= seconds(1)) {
      last_sweep_ = now;
      for (auto& entry : table()->by_key) {
        ServerPeer& p = *entry.second;
        std::lock_guard<std::mutex> lock(p.mu);
        if (p.previous && now - p.previous->replaced_at >= kPreviousKeep) {
          retired_.push_back(p.previous);
          p.previous.reset();
        }
        if (p.next && now - p.next->created >= seconds(kRejectAfterSeconds)) {
          retired_.push_back(p.next);
          p.next.reset();
        }
        if (p.current && now - p.current->created >= seconds(kRejectAfterSeconds)) {
          retired_.push_back(p.current);
          p.current.reset();
        }
      }
      for (auto& s : retired_) sessions_.erase(s->local_index);
      retired_.clear();
      for (auto it = sessions_.begin(); it != sessions_.end();) {
        if (it->second->owner.expired())
          it = sessions_.erase(it);
        else
          ++it;
      }
    }
    // Probing resistance: every unauthenticated connection, whatever it sent, ends at the same time.
    for (size_t i = 0; i < conns_.size();) {
      TcpConn& c = *conns_[i];
      if (!c.authenticated && now - c.opened >= tcp_auth_timeout_)
        close_conn(i);
      else
        ++i;
    }
    maybe_emit_counters(now);
  }

  // Reads and discards what is pending (so that close sends FIN, not RST), then closes.
  void close_conn(size_t i) {
    TcpConnPtr c = conns_[i];
    uint8_t sink[4096];
    while (recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
    ::shutdown(c->fd, SHUT_RDWR);
    c->broken = true;
    conns_[i] = conns_.back();
    conns_.pop_back();
  }

  // Returns false when the connection must be closed now (the peer closed it, or it failed after
  // authenticating). Bad input before authentication only switches it to draining.
  bool on_tcp_readable(const TcpConnPtr& conn, Masker& m, FastRandom& rng) {
    TcpConn& c = *conn;
    if (c.draining) {
      uint8_t sink[4096];
      for (;;) {
        ssize_t n = recv(c.fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n == 0) return false;
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      }
    }
    Endpoint from;
    from.conn = conn;
    bool ok = tcp_receive(c, [&](uint8_t* p, size_t avail, size_t& consumed) -> bool {
      consumed = 0;
      if (!c.preamble_done) {
        if (avail < 1) return true;
        const size_t plen = preamble_length(p[0]);
        if (plen == 0) return bad_input(c);
        if (avail < plen) return true;
        if (!preamble_valid(p, plen)) return bad_input(c);
        c.masks = std::make_unique<RecordMasks>(pub_, p, plen);
        c.server_side = true;
        c.preamble_done = true;
        consumed = plen;
        return true;
      }
      const size_t min_len = c.authenticated ? kDataMinLen : kInitMinLen;
      const size_t max_len = c.authenticated ? kMaxRecord : kInitMaxLen;
      bool good = parse_record(
          p, avail, consumed, min_len, max_len, c.pending_len, [&](uint8_t* l) { c.masks->c2s(l); },
          [&](uint8_t* msg, size_t len) {
            uint8_t type = unmask_datagram(m, msg, len);
            if (!c.authenticated) {
              if (type != uint8_t(MsgType::kInit) || !on_init(msg, len, from, m, rng)) {
                if (type != uint8_t(MsgType::kInit)) counters_.drop_auth();
                return false;
              }
              c.authenticated = true;
              return true;
            }
            if (type == uint8_t(MsgType::kData))
              on_data(msg, len, from, m, rng);
            else if (type == uint8_t(MsgType::kInit))
              on_init(msg, len, from, m, rng);
            else
              counters_.drop_auth();
            return true;
          });
      return good ? true : bad_input(c);
    });
    return ok || c.draining;
  }

  bool bad_input(TcpConn& c) {
    if (!c.authenticated) c.draining = true;
    return false;
  }

  void accept_all() {
    for (;;) {
      int fd = accept4(tcp_listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      set_tcp_options(fd);
      if (conns_.size() >= kMaxTcpConns) {
        ::close(fd);
        continue;
      }
      conns_.push_back(std::make_shared<TcpConn>(fd, Clock::now()));
    }
  }

  void net_loop() override {
    Masker m(mask_key_);
    FastRandom rng;
    Event e;
    e.type = "state";
    e.state = "connected";  // listening: the server is up as soon as its socket is bound
    emit(e);
    std::vector<pollfd> fds;
    std::vector<TcpConnPtr> polled;
    for (;;) {
      fds.clear();
      polled.clear();
      fds.push_back({stop_fd_, POLLIN, 0});
      fds.push_back({udp_fd_, POLLIN, 0});
      fds.push_back({tcp_listen_fd_, POLLIN, 0});  // a negative fd is ignored by poll
      for (auto& c : conns_) {
        fds.push_back({c->fd, POLLIN, 0});
        polled.push_back(c);
      }
      int rc = poll(fds.data(), fds.size(), kTimerTickMs);
      if (rc < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      if (fds[0].revents & POLLIN) break;
      if (fds[1].revents & POLLIN) {
        receive_burst([&](uint8_t* d, size_t len, const Endpoint& from) {
          uint8_t type = unmask_datagram(m, d, len);
          if (type == uint8_t(MsgType::kData))
            on_data(d, len, from, m, rng);
          else if (type == uint8_t(MsgType::kInit))
            on_init(d, len, from, m, rng);
          else
            counters_.drop_auth();
        });
      }
      flush_deliveries();
      if (fds[2].revents & POLLIN) accept_all();
      for (size_t i = 0; i < polled.size(); ++i) {
        if (!(fds[3 + i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        if (!on_tcp_readable(polled[i], m, rng)) {
          for (size_t j = 0; j < conns_.size(); ++j)
            if (conns_[j] == polled[i]) {
              close_conn(j);
              break;
            }
        }
      }
      flush_deliveries();
      timers();
    }
  }

  const Key32 priv_, pub_;
  // The peer set is replaced as a whole (set_peers) and read through table(): a snapshot per lookup.
  std::shared_ptr<const PeerTable> table() {
    std::lock_guard<std::mutex> lock(table_mu_);
    return table_;
  }
  std::mutex table_mu_;
  std::shared_ptr<const PeerTable> table_;             // guarded by table_mu_
  std::unordered_map<uint32_t, SessionPtr> sessions_;  // network thread only
  std::vector<SessionPtr> retired_;                    // network thread only (filled under peer locks)
  Clock::time_point last_sweep_{};
  int tcp_listen_fd_ = -1;
  std::vector<TcpConnPtr> conns_;  // network thread only
  std::mutex update_mu_;           // serialises set_peers calls
  Clock::duration tcp_auth_timeout_{};
  static constexpr size_t kMaxTcpConns = 1024;
};

}  // namespace

namespace {
std::unique_ptr<PacketIo> open_tun(const std::string& name, const std::string& cidr, int mtu, bool offload) {
  if (mtu < 576 || mtu > 65535 - 64) throw std::runtime_error("mtu must be between 576 and 65471");
  auto tun = std::make_unique<TunDevice>(TunDevice::open(name, offload));
  configure_interface(tun->name(), cidr, mtu);
  return tun;
}
}  // namespace

std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::shared_ptr<EventSink> sink) {
  return start_client(cfg, open_tun(cfg.interface_name, cfg.address_cidr, cfg.mtu, cfg.offload), std::move(sink));
}

std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::shared_ptr<EventSink> sink) {
  return start_server(cfg, open_tun(cfg.interface_name, cfg.address_cidr, cfg.mtu, cfg.offload), std::move(sink));
}

std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink) {
  return std::make_unique<ClientEngine>(cfg, std::move(io), std::move(sink));
}

std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink) {
  return std::make_unique<ServerEngine>(cfg, std::move(io), std::move(sink));
}

}  // namespace ferry

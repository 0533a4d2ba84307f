// EngineBase: threads, the TUN loop (read, segment, pad, seal, batch), sends, deliveries, counters, events.
#include "engine-base.h"

#include <netinet/udp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace ferry {

int64_t system_ms() {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

uint64_t steady_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
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

EngineBase::EngineBase(std::unique_ptr<PacketIo> io, int mtu, int path_mtu, std::shared_ptr<EventSink> sink)
    : io_(std::move(io)), mtu_(mtu), path_mtu_(path_mtu), sink_(std::move(sink)) {
  if (!sink_) throw std::runtime_error("an event sink is required");
  if (mtu < 576 || mtu > 65535 - 64) throw std::runtime_error("mtu must be between 576 and 65471");
  if (path_mtu < 576 || path_mtu > 65535) throw std::runtime_error("path mtu must be between 576 and 65535");
  if (io_->vnet_hdr()) gro_ = std::make_unique<TcpCoalescer>();
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0 || wake_fd_ < 0) {
    if (stop_fd_ >= 0) ::close(stop_fd_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    throw std::runtime_error("eventfd failed");
  }
}

EngineBase::~EngineBase() {
  // Subclasses call close() in their destructors; this is a safety net for construction failures.
  stop_threads();
  if (udp_fd_ >= 0) ::close(udp_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void EngineBase::close() {
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

void EngineBase::start_threads() {
  tun_thread_ = std::thread([this] { guarded("tun", [this] { tun_loop(); }); });
  try {
    net_thread_ = std::thread([this] { guarded("net", [this] { net_loop(); }); });
  } catch (...) {
    // The subclass is not constructed after all: the TUN thread must not outlive this (it calls route()).
    stop_threads();
    throw;
  }
}

void EngineBase::stop_threads() {
  if (stop_fd_ >= 0) {
    uint64_t one = 1;
    ssize_t w = write(stop_fd_, &one, sizeof one);
    (void)w;
  }
  if (tun_thread_.joinable()) tun_thread_.join();
  if (net_thread_.joinable()) net_thread_.join();
}

void EngineBase::wake() {
  uint64_t one = 1;
  ssize_t w = write(wake_fd_, &one, sizeof one);
  (void)w;
}

void EngineBase::drain_wake() {
  uint64_t v;
  ssize_t r = read(wake_fd_, &v, sizeof v);
  (void)r;
}

void EngineBase::fail(const std::string& why) {
  // Only the first failure is reported; the other thread stops because of it, not on its own.
  if (failed_.exchange(true) || closed_.load()) return;
  error(why);
  Event e;
  e.type = "state";
  e.state = "failed";
  e.counters = counters_.snapshot();
  emit(e);
  uint64_t one = 1;
  ssize_t w = write(stop_fd_, &one, sizeof one);
  (void)w;
}

bool EngineBase::wait_readable(int fd, int timeout_ms) {
  pollfd p[2] = {{fd, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  int rc = poll(p, 2, timeout_ms);
  if (rc < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  return !(p[1].revents & POLLIN);
}

void EngineBase::error(const std::string& msg) {
  Event e;
  e.type = "error";
  e.message = msg;
  emit(e);
}

void EngineBase::maybe_emit_counters(Clock::time_point now) {
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

bool EngineBase::same_target(const Target& a, const Target& b) {
  return a.session == b.session && a.endpoint.conn == b.endpoint.conn && a.endpoint.len == b.endpoint.len &&
         std::memcmp(&a.endpoint.addr, &b.endpoint.addr, a.endpoint.len) == 0;
}

size_t EngineBase::pad_room(const Endpoint& ep, size_t inner) const {
  if (ep.conn) return kMaxDataPad;  // TCP records are not bound by the path MTU
  const size_t budget = size_t(path_mtu_) - udp_ip_overhead(ep);
  const size_t used = inner + kDataOverhead;
  return used >= budget ? 0 : std::min(kMaxDataPad, budget - used);
}

void EngineBase::tun_loop() {
  RandomPool rng;
  std::unique_ptr<uint8_t[]> rbuf(new uint8_t[kBufSize]);
  std::unique_ptr<uint8_t[]> scratch(new uint8_t[kBufSize]);
  std::unique_ptr<uint8_t[]> bbuf(new uint8_t[kBatchLimit + kBufSize]);
  TxBatch b;
  b.buf = bbuf.get();
  const bool vnet = io_->vnet_hdr();
  const int fd = io_->fd();
  while (wait_readable(fd, -1)) {
    for (int burst = 0; burst < 64; ++burst) {
      ssize_t n = read(fd, rbuf.get(), kBufSize);
      if (n == 0) throw std::runtime_error("the TUN device was closed");
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) break;
        // EBADFD, EIO: the interface went away under us. Stop visibly instead of spinning.
        throw std::runtime_error(std::string("reading the TUN device failed: ") + std::strerror(errno));
      }
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
      // One padding draw per read keeps the segments of a super-packet equal-sized for GSO; each is then cut
      // to what fits the path.
      const size_t pad = rng.below(kMaxDataPad + 1);
      if (vnet && (h.gso_type & ~kGsoEcn) != kGsoNone) {
        // A segment larger than the tunnel MTU would leave as a datagram the path may not carry: drop the lot.
        if (h.gso_size == 0 || h.gso_size > size_t(mtu_)) {
          counters_.drop();
          continue;
        }
        int segs = segment_tcp(h, pkt, len, scratch.get(), kBufSize, [&](const uint8_t* seg, size_t seg_len) {
          if (seg_len <= size_t(mtu_))
            batch_add(b, pad, seg, seg_len);
          else
            counters_.drop();
        });
        if (segs < 0) counters_.drop();
      } else if (!vnet || complete_checksum(h, pkt, len)) {
        if (len <= size_t(mtu_))
          batch_add(b, pad, pkt, len);
        else
          counters_.drop();
      } else {
        counters_.drop();
      }
    }
    // Nothing more to read right now: send what this burst produced without waiting, and let go of the
    // session so that a retired one is not kept alive by an idle TUN thread.
    batch_flush(b);
    b.target = Target();
  }
}

void EngineBase::batch_add(TxBatch& b, size_t pad, const uint8_t* pkt, size_t len) {
  const Target& t = b.target;
  const size_t p = std::min(pad, pad_room(t.endpoint, len));
  const size_t dlen = len + p + kDataOverhead;
  const bool tcp = t.endpoint.conn != nullptr;
  const size_t prefix = tcp ? kRecordLenBytes : 0;
  if (b.count && (b.used + prefix + dlen > kBatchLimit || b.count >= kMaxGsoSegments)) batch_flush(b);
  // Keep a GSO-able run intact: a datagram that would break it starts a new batch instead.
  if (!tcp && b.count >= 2 && b.uniform && (dlen > b.seg || b.short_tail)) batch_flush(b);
  uint8_t* slot = b.buf + b.used + prefix;
  std::memcpy(slot + kHeaderLen, pkt, len);
  std::memset(slot + kHeaderLen + len, 0, p);
  const size_t out = t.session->seal(slot, len + p);
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
  b.message_bytes += out;
  ++b.count;
}

void EngineBase::batch_flush(TxBatch& b) {
  if (!b.count) return;
  const Target& t = b.target;
  bool ok = false;
  if (t.endpoint.conn) {
    // A broken connection tells the network thread itself.
    ok = t.endpoint.conn->send_records(b.buf, b.used, nullptr, 0, tcp_tun_may_wait_);
  } else if (b.count == 1) {
    ok = send_to(b.buf, b.used, t.endpoint, true);
  } else {
    int err = 0;
    if (b.uniform && gso_ok_) ok = send_gso(b.buf, b.used, b.seg, t.endpoint, &err);
    if (!ok) {
      ok = send_many(b, t.endpoint);
      // GSO refused where plain sends work: no UDP GSO here (old kernel, or a device without checksum
      // offload). An error that plain sends share (a vanished source address, a smaller path) says nothing.
      if (ok && (err == EIO || err == EINVAL || err == ENOPROTOOPT || err == EOPNOTSUPP)) gso_ok_ = false;
    }
  }
  if (ok) {
    counters_.tx_packets.fetch_add(b.count, std::memory_order_relaxed);
    counters_.tx_bytes.fetch_add(b.inner_bytes, std::memory_order_relaxed);
    if (t.tx_meter) t.tx_meter->fetch_add(b.message_bytes, std::memory_order_relaxed);
  } else {
    counters_.dropped.fetch_add(b.count, std::memory_order_relaxed);
  }
  b.used = b.count = b.seg = b.inner_bytes = b.message_bytes = 0;
  b.short_tail = false;
  b.uniform = true;  // the target stays: a super-packet may continue into the next batch
}

bool EngineBase::send_many(TxBatch& b, const Endpoint& ep) {
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
    if (n < 0) on_send_error(errno);
    return false;
  }
  return sent == b.count;
}

bool EngineBase::wait_writable() {
  pollfd p[2] = {{udp_fd_, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
  return poll(p, 2, 100) > 0 && !(p[1].revents & POLLIN) && (p[0].revents & POLLOUT);
}

bool EngineBase::send_gso(const uint8_t* buf, size_t len, size_t seg, const Endpoint& ep, int* err) {
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
  *err = 0;
  for (int tries = 0; tries < 50; ++tries) {
    ssize_t n = sendmsg(udp_fd_, &msg, 0);
    if (n == ssize_t(len)) return true;
    if (n >= 0) return false;  // a partial send: the rest goes by sendmmsg
    *err = errno;
    if (errno != EAGAIN || !wait_writable()) return false;
  }
  return false;
}

bool EngineBase::send_to(const uint8_t* buf, size_t len, const Endpoint& ep, bool may_wait) {
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
    if (n < 0 && errno == EAGAIN && may_wait && wait_writable()) continue;
    if (n < 0) on_send_error(errno);
    return false;
  }
  return false;
}

void EngineBase::deliver(const uint8_t* pt, size_t len) {
  counters_.rx_packets.fetch_add(1, std::memory_order_relaxed);
  counters_.rx_bytes.fetch_add(len, std::memory_order_relaxed);
  if (gro_)
    gro_->deliver(pt, len, [this](const VnetHdr* h, const uint8_t* d, size_t l) { tun_write(h, d, l); });
  else
    tun_write(nullptr, pt, len);
}

void EngineBase::flush_deliveries() {
  if (gro_) gro_->flush([this](const VnetHdr* h, const uint8_t* d, size_t l) { tun_write(h, d, l); });
}

void EngineBase::tun_write(const VnetHdr* h, const uint8_t* pt, size_t len) {
  static const VnetHdr kNoOffload{};
  iovec iov[2] = {{const_cast<VnetHdr*>(h ? h : &kNoOffload), kVnetHdrLen}, {const_cast<uint8_t*>(pt), len}};
  const bool vnet = io_->vnet_hdr();
  if (writev(io_->fd(), vnet ? iov : iov + 1, vnet ? 2 : 1) < 0) counters_.drop();
}

void EngineBase::send_control(Session& s, RandomPool& rng, uint8_t kind, uint64_t t, const Endpoint& ep) {
  uint8_t buf[kHeaderLen + 9 + 63 + kTagLen];
  uint8_t* pt = buf + kHeaderLen;
  pt[0] = kind;
  for (int i = 0; i < 8; ++i) pt[1 + i] = uint8_t(t >> (8 * i));
  const size_t padlen = rng.below(64);
  std::memset(pt + 9, 0, padlen);
  const size_t len = s.seal(buf, 9 + padlen);
  if (len) send_to(buf, len, ep);
}

}  // namespace ferry

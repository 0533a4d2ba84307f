// TcpConn: masking records, non-blocking sends with a bounded queue, lazily grown receive buffers.
#include "tcp-conn.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ferry {

void set_tcp_options(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void TcpAttention::note(std::weak_ptr<TcpConn> c) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    list_.push_back(std::move(c));
  }
  uint64_t one = 1;
  ssize_t w = write(wake_fd_, &one, sizeof one);
  (void)w;
}

std::vector<std::weak_ptr<TcpConn>> TcpAttention::take() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::weak_ptr<TcpConn>> out;
  out.swap(list_);
  return out;
}

TcpConn::TcpConn(int f, std::chrono::steady_clock::time_point now, bool server, std::shared_ptr<TcpAttention> attention)
    : fd(f), opened(now), server_side(server), attention_(std::move(attention)) {}

void TcpConn::set_broken() {
  if (broken_.exchange(true)) return;
  if (attention_) attention_->note(weak_from_this());
}

TcpConn::~TcpConn() {
  if (fd >= 0) ::close(fd);
}

void TcpConn::grow_rx() {
  if (big_) return;
  big_.reset(new uint8_t[kRxSize]);
  std::memcpy(big_.get(), small_, rx_len);
}

namespace {

// Sends through the socket from an iovec list; what has gone is counted in `done`.
struct Pieces {
  static constexpr size_t kMaxRecords = 16;  // a send of the TUN thread's batches fits several times over
  iovec iov[1 + 2 * kMaxRecords];
  uint8_t headers[kMaxRecords][kTlsHeaderLen];
  size_t count = 0, total = 0;
  void add(const uint8_t* p, size_t n) {
    if (!n) return;
    iov[count++] = {const_cast<uint8_t*>(p), n};
    total += n;
  }
  // The iovecs of what is left after `done` bytes, in out (at most as many as there are).
  size_t rest(size_t done, iovec* out) const {
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
      if (done >= iov[i].iov_len) {
        done -= iov[i].iov_len;
        continue;
      }
      out[n++] = {static_cast<uint8_t*>(iov[i].iov_base) + done, iov[i].iov_len - done};
      done = 0;
    }
    return n;
  }
};

}  // namespace

bool TcpConn::send_records(uint8_t* buf, size_t len, const uint8_t* prefix, size_t prefix_len, bool may_wait) {
  bool failed = false, queued_first = false;
  {
    std::lock_guard<std::mutex> lock(send_mu_);
    if (broken_.load()) return false;
    for (size_t off = 0; off + kRecordLenBytes <= len;) {
      const size_t l = (size_t(buf[off]) << 8) | buf[off + 1];
      if (server_side)
        masks_->s2c(buf + off);
      else
        masks_->c2s(buf + off);
      off += kRecordLenBytes + l;
    }
    Pieces pieces;
    pieces.add(prefix, prefix_len);
    if (tls_rx_ && len > 0) {
      size_t lens[Pieces::kMaxRecords];
      const size_t n = tls_split(len, lens, Pieces::kMaxRecords);
      if (n == 0) failed = true;  // larger than any send of the engines: a bug, never a silent truncation
      for (size_t i = 0, off = 0; i < n; off += lens[i], ++i) {
        tls_app_header(lens[i], pieces.headers[i]);
        pieces.add(pieces.headers[i], kTlsHeaderLen);
        pieces.add(buf + off, lens[i]);
      }
    } else {
      pieces.add(buf, len);
    }
    const size_t total = pieces.total;
    size_t done = 0;
    const size_t queued = out_.size() - out_head_;
    if (queued == 0 && !failed) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      while (done < total) {
        iovec iov[sizeof pieces.iov / sizeof pieces.iov[0]];
        msghdr msg{};
        msg.msg_iov = iov;
        msg.msg_iovlen = pieces.rest(done, iov);
        const ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          done += size_t(n);
          continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
          note_end(errno);
          failed = true;
          break;
        }
        if (!may_wait || std::chrono::steady_clock::now() >= deadline) break;
        pollfd p[2] = {{fd, POLLOUT, 0}, {stop_fd_, POLLIN, 0}};
        if (poll(p, stop_fd_ >= 0 ? 2 : 1, 100) < 0 && errno != EINTR) break;
        if (stop_fd_ >= 0 && (p[1].revents & POLLIN)) break;
      }
    }
    // A reader that does not keep up loses its connection; nobody else waits for it.
    if (!failed && queued + (total - done) > kMaxQueued) failed = true;
    if (!failed && done < total) {
      queued_first = queued == 0;
      iovec iov[sizeof pieces.iov / sizeof pieces.iov[0]];
      const size_t n = pieces.rest(done, iov);
      for (size_t i = 0; i < n; ++i) {
        const uint8_t* p = static_cast<const uint8_t*>(iov[i].iov_base);
        out_.insert(out_.end(), p, p + iov[i].iov_len);
      }
    }
  }
  if (failed) {
    set_broken();
    return false;
  }
  if (queued_first && attention_) attention_->note(weak_from_this());
  return true;
}

bool TcpConn::wants_write() {
  std::lock_guard<std::mutex> lock(send_mu_);
  return out_.size() > out_head_;
}

bool TcpConn::flush() {
  std::lock_guard<std::mutex> lock(send_mu_);
  while (out_head_ < out_.size()) {
    ssize_t n = send(fd, out_.data() + out_head_, out_.size() - out_head_, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      note_end(errno);
      broken_ = true;  // the caller (the network thread) closes it
      return false;
    }
    out_head_ += size_t(n);
  }
  if (out_head_ == out_.size()) {
    out_.clear();
    out_head_ = 0;
    if (out_.capacity() > kMaxQueued / 4) out_.shrink_to_fit();  // a burst's buffer is not kept per idle connection
  } else if (out_head_ > out_.size() / 2) {
    out_.erase(out_.begin(), out_.begin() + long(out_head_));
    out_head_ = 0;
  }
  return !broken_.load();
}

}  // namespace ferry

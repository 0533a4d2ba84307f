// The client engine's paths to the node: its UDP socket (marked, reopened when the address goes away), the TCP or
// TLS connection (its preamble or browser-shaped first flight, the initiation it carries, what each attempt ran
// into), and the race of UDP beside a stream (ClientConfig::race_udp_port).
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "client-engine.h"
#include "stream-outcome.h"
#include "tls-stream.h"

namespace ferry {

using namespace client;

void ClientEngine::mark(int fd) const {
  if (fwmark_ == 0) return;
  if (setsockopt(fd, SOL_SOCKET, SO_MARK, &fwmark_, sizeof fwmark_) < 0) {
    const int e = errno;
    ::close(fd);
    throw std::runtime_error(std::string("cannot set the socket mark: ") + std::strerror(e));
  }
}

int ClientEngine::open_udp() {
  int fd = make_udp_socket(udp_server_.addr.ss_family);
  mark(fd);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&udp_server_.addr), udp_server_.len) < 0) {
    int e = errno;
    ::close(fd);
    throw std::runtime_error(std::string("cannot reach the server address: ") + std::strerror(e));
  }
  return fd;
}

void ClientEngine::on_send_error(int e) {
  if (e == EINVAL || e == EADDRNOTAVAIL || e == ENETUNREACH || e == EHOSTUNREACH || e == ENETDOWN)
    reopen_wanted_ = true;
}

void ClientEngine::reopen_udp(Clock::time_point now) {
  if (now - last_reopen_ < kReopenEvery) return;
  last_reopen_ = now;
  reopen_wanted_ = false;
  int fd = -1;
  try {
    fd = open_udp();
  } catch (const std::exception&) {
    return;  // still no route: try again later
  }
  if (dup2(fd, udp_fd_) < 0) {
    ::close(fd);
    return;
  }
  ::close(fd);
  need_handshake_now_ = true;  // the node learns the new address from an initiation
}

Endpoint ClientEngine::server_endpoint() {
  if (!on_stream()) return udp_server_;
  Endpoint e = server_;
  std::lock_guard<std::mutex> lock(mu_);
  e.conn = conn_;
  return e;
}

void ClientEngine::start_race(RandomPool& rng, Clock::time_point now) {
  race_sent_ = true;
  uint8_t out[kInitMaxLen];
  const size_t len = build_init(rng, out);
  if (!len) return;
  send_to(out, len, udp_server_);
  std::memcpy(race_init_, out, len);
  race_init_len_ = len;  // the stream's first initiation repeats it
  tcp_attempt_ = now - kStreamRetry + kRaceHeadStart;
}

size_t ClientEngine::stream_init(RandomPool& rng, uint8_t* out) {
  const size_t len = race_init_len_;
  race_init_len_ = 0;
  if (racing_ && hs_in_flight_ && len) {
    std::memcpy(out, race_init_, len);
    hs_sent_ = Clock::now();
    return len;
  }
  return build_init(rng, out);
}

void ClientEngine::decide_race(bool via_udp) {
  racing_ = false;
  race_init_len_ = 0;
  TcpConnPtr dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    udp_path_ = via_udp;
    if (via_udp) dropped.swap(conn_);
  }
  if (dropped) {
    attempt_open_ = false;  // not a failed attempt: UDP won
    tls_awaiting_ = false;
    dropped->set_broken();
  }
  Event e;
  e.type = "path";
  e.transport = via_udp ? "udp" : tls_ ? "tls" : "tcp";
  emit(e);
}

TcpConnPtr ClientEngine::connection() {
  std::lock_guard<std::mutex> lock(mu_);
  return conn_;
}

void ClientEngine::tcp_connect(RandomPool& rng) {
  tcp_attempt_ = Clock::now();
  attempt_open_ = false;  // an attempt that never reaches the network has nothing to report
  int fd = socket(server_.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return;
  try {
    mark(fd);  // closes fd on failure
  } catch (const std::exception&) {
    return;
  }
  if (const char* failed = connect_stream(fd, server_, stop_fd_, kTcpConnectTimeoutMs)) {
    ::close(fd);
    attempt_open_ = *failed != 0;
    attempt_ended(failed);
    return;
  }
  attempt_open_ = true;
  set_tcp_options(fd);
  auto conn = std::make_shared<TcpConn>(fd, Clock::now(), false, attention_);
  conn->set_stop_fd(stop_fd_);
  if (tls_) {
    // The hello goes first; the initiation follows the node's flight (tls_finish), as a browser's Finished
    // and first request follow the server's.
    SystemBytes rnd;
    tls_awaiting_ = true;
    tls_sent_ = Clock::now();
    if (!begin_client_stream(*conn, tls_template_, tls_name_, server_pub_, uint32_t(system_ms() / 1000), rnd)) {
      attempt_ended(ended_outcome(*conn));
      return;
    }
    conn->grow_rx();
    std::lock_guard<std::mutex> lock(mu_);
    conn_ = conn;
    return;
  }
  const std::string pre = make_preamble();
  conn->set_masks(
      std::make_unique<RecordMasks>(server_pub_, reinterpret_cast<const uint8_t*>(pre.data()), pre.size()));
  uint8_t rec[kRecordLenBytes + kInitMaxLen];
  const size_t len = stream_init(rng, rec + kRecordLenBytes);
  if (!len) {
    attempt_open_ = false;
    return;
  }
  rec[0] = uint8_t(len >> 8);
  rec[1] = uint8_t(len);
  if (!conn->send_records(rec, kRecordLenBytes + len, reinterpret_cast<const uint8_t*>(pre.data()), pre.size())) {
    attempt_ended(ended_outcome(*conn));
    return;
  }
  conn->grow_rx();
  std::lock_guard<std::mutex> lock(mu_);
  conn_ = conn;
}

void ClientEngine::attempt_ended(const char* what) {
  if (!attempt_open_) return;
  attempt_open_ = false;
  emit(transport_event(tls_, what));
}

bool ClientEngine::tls_finish(TcpConn& c, RandomPool& rng) {
  tls_awaiting_ = false;
  SystemBytes rnd;
  const std::vector<uint8_t> fin = build_client_finished(rnd);
  uint8_t rec[kRecordLenBytes + kInitMaxLen];
  const size_t len = stream_init(rng, rec + kRecordLenBytes);
  if (!len) return false;
  rec[0] = uint8_t(len >> 8);
  rec[1] = uint8_t(len);
  return c.send_records(rec, kRecordLenBytes + len, fin.data(), fin.size());
}

}  // namespace ferry

// The client engine: handshakes with one node, keeps the session fresh (rekey, keepalive, roaming, dead-peer
// detection) and carries packets between the packet device and the node over UDP or TCP (or TLS); over a stream
// it may race a UDP path (ClientConfig::race_udp_port), and the first handshake answered picks the path.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <stdexcept>

#include "engine-base.h"
#include "engines.h"
#include "secret.h"
#include "stream-outcome.h"
#include "tls-stream.h"

namespace ferry {

namespace {

constexpr auto kPreviousKeep = seconds(15);
constexpr auto kTcpHandshakeTimeout = milliseconds(5000);
constexpr auto kTcpConnectTimeoutMs = 3000;
constexpr auto kUnansweredWarnAfter = seconds(5);
constexpr auto kReopenEvery = milliseconds(1000);
// A race's head start for UDP: the stream connection starts this long after the UDP initiation went out unless
// it was answered (as Happy Eyeballs gives the preferred family; RFC 8305 recommends 250 ms).
constexpr auto kRaceHeadStart = milliseconds(250);
// Stream connections are attempted at most once a second.
constexpr auto kStreamRetry = milliseconds(1000);

class ClientEngine final : public EngineBase {
 public:
  ClientEngine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink)
      : EngineBase(std::move(io), cfg.mtu, cfg.path_mtu, std::move(sink)),
        tcp_(cfg.tcp),
        tls_(cfg.tls),
        tls_name_(cfg.tls_server_name),
        rekey_seconds_(cfg.rekey_seconds),
        rekey_packets_(cfg.rekey_packets),
        keepalive_seconds_(cfg.keepalive_seconds),
        cipher_(cfg.cipher),
        private_key_(cfg.private_key),
        client_pub_(x25519_public_from_private(cfg.private_key)),
        server_pub_(cfg.server_public),
        server_(resolve(cfg.server_host, cfg.server_port, false)),
        race_(cfg.tcp && cfg.race_udp_port != 0),
        udp_server_(race_ ? resolve(cfg.server_host, cfg.race_udp_port, false) : server_),
        fwmark_(cfg.fwmark),
        hs_mask_(derive_handshake_mask_key(cfg.server_public)),
        mac1_(derive_mac1_key(cfg.server_public)) {
    if (cfg.rekey_seconds < 1 || cfg.rekey_seconds > kRekeyAfterSecondsMax)
      throw std::runtime_error("rekey seconds must be between 1 and 120");
    if (cfg.keepalive_seconds < 1 || cfg.keepalive_seconds > 60)
      throw std::runtime_error("keepalive seconds must be between 1 and 60");
    if (cfg.rekey_packets < 16) throw std::runtime_error("rekey packets must be at least 16");
    if (cfg.race_udp_port != 0 && !cfg.tcp) throw std::runtime_error("a UDP race runs beside a TCP or TLS transport");
    racing_ = race_;
    if (tls_) {
      std::string why;
      if (!tcp_) throw std::runtime_error("the TLS transport runs over TCP");
      if (tls_name_.empty()) throw std::runtime_error("the TLS transport needs a server name");
      if (!parse_hello_template(cfg.tls_hello, tls_template_, why))
        throw std::runtime_error("the TLS ClientHello template is invalid: " + why);
    }
    udp_fd_ = open_udp();
    tcp_tun_may_wait_ = true;  // one connection, one sender of data: backpressure rather than a queue
    start_threads();
  }
  ~ClientEngine() override { close(); }

 private:
  // A UDP socket connected to the node: the kernel passes only the node's datagrams and reports ICMP errors.
  // The routing mark of the tunnel's own sockets (see ClientConfig::fwmark); failing to set it fails the start
  // or the reconnect: without it the encrypted packets could be routed into the tunnel itself.
  void mark(int fd) const {
    if (fwmark_ == 0) return;
    if (setsockopt(fd, SOL_SOCKET, SO_MARK, &fwmark_, sizeof fwmark_) < 0) {
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(std::string("cannot set the socket mark: ") + std::strerror(e));
    }
  }

  int open_udp() {
    int fd = make_udp_socket(udp_server_.addr.ss_family);
    mark(fd);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&udp_server_.addr), udp_server_.len) < 0) {
      int e = errno;
      ::close(fd);
      throw std::runtime_error(std::string("cannot reach the server address: ") + std::strerror(e));
    }
    return fd;
  }

  // The socket's source address went away (roaming, interface change): sends fail until it is reopened.
  void on_send_error(int e) override {
    if (e == EINVAL || e == EADDRNOTAVAIL || e == ENETUNREACH || e == EHOSTUNREACH || e == ENETDOWN)
      reopen_wanted_ = true;
  }

  // Replaces the socket behind udp_fd_ in one step (dup2), so the TUN thread never sees a closed descriptor.
  void reopen_udp(Clock::time_point now) {
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

  bool route(const uint8_t*, size_t, Target& t) override {
    std::lock_guard<std::mutex> lock(mu_);
    t.session = current_;
    if (on_stream()) {
      if (!conn_ || conn_->broken()) return false;
      t.endpoint = server_;
      t.endpoint.conn = conn_;
    } else {
      t.endpoint = udp_server_;
    }
    return t.session != nullptr;
  }

  // Whether the tunnel runs over the stream (TCP or TLS), not UDP: a stream transport unless a race chose UDP.
  // The network thread writes udp_path_ under mu_; it reads it without (its own writes), others under mu_.
  bool on_stream() const { return tcp_ && !udp_path_; }

  // The node as a destination: its UDP address, or the live TCP connection.
  Endpoint server_endpoint() {
    if (!on_stream()) return udp_server_;
    Endpoint e = server_;
    std::lock_guard<std::mutex> lock(mu_);
    e.conn = conn_;
    return e;
  }

  // The first initiation of a race: over UDP at once; the stream connection follows after the head start.
  void start_race(RandomPool& rng, Clock::time_point now) {
    race_sent_ = true;
    uint8_t out[kInitMaxLen];
    const size_t len = build_init(rng, out);
    if (!len) return;
    send_to(out, len, udp_server_);
    std::memcpy(race_init_, out, len);
    race_init_len_ = len;  // the stream's first initiation repeats it
    tcp_attempt_ = now - kStreamRetry + kRaceHeadStart;
  }

  // The initiation a stream connection carries: once, the race's (the same bytes, so that the node answers
  // one of the two copies) while it is unanswered; else a new one (a copy the node refused as a replay would
  // be refused again).
  size_t stream_init(RandomPool& rng, uint8_t* out) {
    const size_t len = race_init_len_;
    race_init_len_ = 0;
    if (racing_ && hs_in_flight_ && len) {
      std::memcpy(out, race_init_, len);
      hs_sent_ = Clock::now();
      return len;
    }
    return build_init(rng, out);
  }

  // A race is decided by the first answer: over UDP the stream is given up, over the stream UDP is.
  void decide_race(bool via_udp) {
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

  TcpConnPtr connection() {
    std::lock_guard<std::mutex> lock(mu_);
    return conn_;
  }

  // Opens a TCP connection and queues preamble + initiation before any other thread may write to it (the
  // node insists that the first record is an initiation).
  void tcp_connect(RandomPool& rng) {
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

  // Reports the open connection attempt's outcome (outcome::*), once: the first word about an attempt is what it
  // ran into; what happens later on a connection the node answered is not the attempt's.
  void attempt_ended(const char* what) {
    if (!attempt_open_) return;
    attempt_open_ = false;
    emit(transport_event(tls_, what));
  }

  // The node's flight has arrived: change_cipher_spec and Finished, then the initiation, in one send.
  bool tls_finish(TcpConn& c, RandomPool& rng) {
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

  void set_state(const char* state) {
    if (state_ == state) return;
    state_ = state;
    Event e;
    e.type = "state";
    e.state = state;
    emit(e);
  }

  // A random duration in [lo, hi] milliseconds.
  static milliseconds jitter(RandomPool& rng, int64_t lo, int64_t hi) {
    return milliseconds(lo + int64_t(rng.u32() % uint32_t(hi - lo + 1)));
  }

  size_t build_init(RandomPool& rng, uint8_t* out) {
    uint64_t ts = uint64_t(system_ms());
    if (ts <= last_ts_) ts = last_ts_ + 1;  // strictly increasing, as the node's replay cache demands
    last_ts_ = ts;
    Secret<InitParams> p;
    p->ephemeral_priv = x25519_generate_private();
    p->sender_index = rng.u32();
    p->timestamp_ms = ts;
    p->cipher = cipher_;
    p->pad_len = rng.below(kMaxHandshakePad + 1);
    const size_t len = write_init(*private_key_, client_pub_, server_pub_, hs_mask_, mac1_, *p, *hs_, out);
    hs_in_flight_ = len != 0;
    const auto now = Clock::now();
    hs_sent_ = now;
    hs_retry_after_ = jitter(rng, 800, 1200);
    if (unanswered_since_ == Clock::time_point{}) unanswered_since_ = now;
    return len;
  }

  void send_init(RandomPool& rng) {
    uint8_t out[kInitMaxLen];
    const size_t len = build_init(rng, out);
    if (len) send_to(out, len, server_endpoint());
  }

  void on_response(uint8_t* buf, size_t len, RandomPool& rng, bool via_udp) {
    Secret<SessionKeys> keys;
    // Outside a race an answer comes over the path in use only.
    if (!hs_in_flight_ || (!racing_ && via_udp == on_stream()) ||
        !read_response(*hs_, *private_key_, buf, len, *keys)) {
      counters_.drop_auth();
      return;
    }
    hs_in_flight_ = false;
    if (racing_) decide_race(via_udp);
    *hs_ = InitiatorState();  // the handshake's secrets are not needed any more
    attempt_ended(outcome::kAnswered);  // over TCP (over TLS the node's flight was the answer)
    const auto now = Clock::now();
    last_recv_ = now;
    unanswered_since_ = {};
    warned_ = false;
    auto s = std::make_shared<Session>(*keys);
    // Each session rekeys at its own, slightly earlier time, so that rotations do not tick like a clock.
    const int64_t spread_ms = std::min<int64_t>(30, rekey_seconds_ / 4) * 1000;
    rekey_after_ = milliseconds(int64_t(rekey_seconds_) * 1000) - jitter(rng, 0, spread_ms);
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (current_) {
        current_->replaced_at = now;
        previous_ = current_;
      } else {
        first = true;
      }
      current_ = s;
    }
    counters_.handshakes.fetch_add(1, std::memory_order_relaxed);
    // The ping confirms the new keys to the node, which switches its sending side on receipt.
    send_ping(*s, rng, now);
    if (!first) {
      Event e;
      e.type = "rekey";
      e.cipher = cipher_name(s->cipher);
      emit(e);
    }
    set_state("connected");
  }

  void send_ping(Session& s, RandomPool& rng, Clock::time_point now) {
    const int64_t k = int64_t(keepalive_seconds_) * 1000;
    next_ping_ = now + jitter(rng, k * 7 / 10, k * 13 / 10);
    if (!awaiting_pong_) ping_sent_ = now;  // the oldest unanswered ping is what roaming detection measures
    awaiting_pong_ = true;
    send_control(s, rng, kInnerPing, steady_ns(), server_endpoint());
  }

  // A message from the node: a data packet of the current or previous session, or a handshake response.
  // The network thread is the only writer of current_ and previous_ (it publishes them to the TUN thread under
  // mu_), so it reads them here without the lock.
  void dispatch(uint8_t* d, size_t len, RandomPool& rng, bool via_udp) {
    Session* const cur = current_.get();
    Session* const prev = previous_.get();
    if (cur && cur->matches(d, len)) return on_data(*cur, d, len, rng);
    if (prev && prev->matches(d, len)) return on_data(*prev, d, len, rng);
    if (unmask_handshake(hs_mask_, d, len) == uint8_t(MsgType::kResponse)) return on_response(d, len, rng, via_udp);
    counters_.drop_auth();
  }

  void on_data(Session& s, uint8_t* buf, size_t len, RandomPool& rng) {
    uint64_t c;
    bool replay = false;
    if (!s.open(buf, len, c, replay)) {
      if (replay)
        counters_.drop_replay();
      else
        counters_.drop_auth();
      return;
    }
    s.commit(c);
    const auto now = Clock::now();
    last_recv_ = now;
    awaiting_pong_ = false;
    uint8_t* pt = buf + kHeaderLen;
    const size_t pt_len = len - kDataOverhead;
    if (pt[0] == kInnerPong && pt_len >= 9) {
      const uint64_t t = read_control_time(pt);
      const uint64_t ns = steady_ns();
      if (t <= ns && ns - t < uint64_t(60) * 1000000000ull) {
        const double rtt = double(ns - t) / 1e6;
        srtt_ms_ = srtt_ms_ == 0 ? rtt : srtt_ms_ * 0.875 + rtt * 0.125;
        Event e;
        e.type = "rtt";
        e.rtt_ms = rtt;
        emit(e);
      }
      return;
    }
    if (pt[0] == kInnerPing && pt_len >= 9) {
      send_control(s, rng, kInnerPong, read_control_time(pt), server_endpoint());
      return;
    }
    const size_t ip_len = ip_packet_length(pt, pt_len);
    if (!ip_len) {
      counters_.drop();
      return;
    }
    deliver(pt, ip_len);
  }

  void timers(RandomPool& rng) {
    const auto now = Clock::now();
    if (reopen_wanted_.load()) reopen_udp(now);
    SessionPtr cur;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cur = current_;
    }
    bool need_handshake = !cur || need_handshake_now_;
    bool urgent = need_handshake_now_;  // do not wait for the retry interval
    need_handshake_now_ = false;
    if (cur) {
      const bool old = now - cur->created >= rekey_after_;
      const bool volume = cur->sent() >= rekey_packets_ || cur->received() >= rekey_packets_;
      need_handshake = need_handshake || old || volume;
      // Dead-peer detection: pings go out every keepalive interval, so a long silence means the node lost
      // our session (restart, failover) or the path died; keep the session but handshake again.
      const auto dead_after = std::max<Clock::duration>(seconds(3 * keepalive_seconds_), seconds(5));
      if (now - last_recv_ >= dead_after) {
        need_handshake = true;
        set_state("connecting");
      }
      // Roaming: a ping unanswered for a second (or two smoothed RTTs) means the node may no longer know
      // where we are (our address changed, or a NAT rebound): an initiation tells it.
      const auto probe_timeout = std::max<Clock::duration>(milliseconds(1000), milliseconds(int64_t(2 * srtt_ms_)));
      if (awaiting_pong_ && last_recv_ < ping_sent_ && now - ping_sent_ >= probe_timeout && !probed_) {
        probed_ = true;
        urgent = need_handshake = true;
      }
      if (!awaiting_pong_) probed_ = false;
      if (now - cur->created >= seconds(kRejectAfterSeconds)) {
        // The node no longer accepts this session: start over visibly rather than send into a void.
        std::lock_guard<std::mutex> lock(mu_);
        current_.reset();
        previous_.reset();
        cur.reset();
        set_state("connecting");
      }
    }
    if (racing_ && !race_sent_ && need_handshake) start_race(rng, now);
    if (on_stream()) {
      TcpConnPtr conn = connection();
      // Over TCP nothing is lost in transit: an unanswered initiation means the connection is bad.
      if (conn && !conn->broken() && ((hs_in_flight_ && now - hs_sent_ >= kTcpHandshakeTimeout) ||
                                      (tls_awaiting_ && now - tls_sent_ >= kTcpHandshakeTimeout))) {
        attempt_ended(outcome::kSilent);
        conn->set_broken();
      }
      if ((!conn || conn->broken()) && now - tcp_attempt_ >= kStreamRetry) {
        if (conn) {
          attempt_ended(ended_outcome(*conn));  // broken by a send (the TUN thread's, a flush) before any answer
          std::lock_guard<std::mutex> lock(mu_);
          conn_.reset();
        }
        tcp_connect(rng);
      } else if (conn && need_handshake && !hs_in_flight_ && !tls_awaiting_) {
        send_init(rng);
      }
    } else if (need_handshake && (urgent || !hs_in_flight_ || now - hs_sent_ >= hs_retry_after_)) {
      send_init(rng);
    }
    if (unanswered_since_ != Clock::time_point{} && !warned_ && now - unanswered_since_ >= kUnansweredWarnAfter) {
      warned_ = true;
      Event e;
      e.type = "warning";
      e.code = "handshake-unanswered";
      e.message =
          "the node has not answered for 5 s: it is unreachable from here, it does not know this device's key, "
          "or this machine's clock is more than 120 s behind or 10 s ahead of the node's; still trying";
      emit(e);
    }
    if (cur && now >= next_ping_) send_ping(*cur, rng, now);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (previous_ && now - previous_->replaced_at >= kPreviousKeep) previous_.reset();
    }
    maybe_emit_counters(now);
  }

  void net_loop() override {
    RandomPool rng;
    set_state("connecting");
    timers(rng);
    for (;;) {
      const bool stream = on_stream();
      TcpConnPtr conn = stream ? connection() : nullptr;
      const int fd = stream ? (conn && !conn->broken() ? conn->fd : -1) : udp_fd_;
      short events = POLLIN;
      if (conn && conn->wants_write()) events |= POLLOUT;
      // A race listens on UDP beside the stream until it is decided.
      const int race_fd = stream && racing_ ? udp_fd_ : -1;
      pollfd p[4] = {{stop_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}, {fd, events, 0}, {race_fd, POLLIN, 0}};
      int rc = poll(p, 4, kTimerTickMs);
      if (rc < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
      if (p[0].revents & POLLIN) break;
      if (p[1].revents & POLLIN) {
        drain_wake();
        attention_->take();  // the loop looks at the one connection's queue and state itself
      }
      if (p[3].revents & (POLLIN | POLLERR))
        receive_burst([&](uint8_t* d, size_t len, const Endpoint&) { dispatch(d, len, rng, true); });
      if (!stream) {
        if (p[2].revents & (POLLIN | POLLERR)) {
          receive_burst([&](uint8_t* d, size_t len, const Endpoint&) { dispatch(d, len, rng, true); });
        }
      } else if (on_stream() && conn && fd >= 0) {
        if ((p[2].revents & POLLOUT) && !conn->flush()) attempt_ended(ended_outcome(*conn));
        if (p[2].revents & (POLLIN | POLLHUP | POLLERR)) {
          bool ok = tcp_receive(*conn, [&](uint8_t* d, size_t avail, size_t& consumed) {
            return parse_record(
                d, avail, consumed, kDataMinLen, kMaxRecord, conn->pending_len,
                [&](uint8_t* l) { conn->masks().s2c(l); },
                [&](uint8_t* msg, size_t len) {
                  dispatch(msg, len, rng, false);
                  return true;
                });
          });
          if (tls_awaiting_ && conn->tls_reader()->flight_done()) {
            attempt_ended(outcome::kAnswered);  // also when the connection ended right behind the flight
            if (ok) ok = tls_finish(*conn, rng);
          }
          if (!ok) {
            attempt_ended(ended_outcome(*conn));
            conn->set_broken();
          }
        }
      }
      flush_deliveries();
      timers(rng);
    }
  }

  const bool tcp_;
  const bool tls_;
  const std::string tls_name_;
  HelloTemplate tls_template_;  // set in the constructor, read by the network thread
  const int rekey_seconds_;
  const uint64_t rekey_packets_;
  const int keepalive_seconds_;
  const Cipher cipher_;
  const Secret<Key32> private_key_;
  const Key32 client_pub_;
  const Key32 server_pub_;
  const Endpoint server_;
  const bool race_;
  const Endpoint udp_server_;  // the UDP path's address: server_ without a race, the race's port with one
  const uint32_t fwmark_;

  std::mutex mu_;
  SessionPtr current_, previous_;  // guarded by mu_
  TcpConnPtr conn_;                // guarded by mu_
  bool udp_path_ = false;          // a race chose UDP; written by the network thread under mu_
  std::atomic<bool> reopen_wanted_{false};
  const std::shared_ptr<TcpAttention> attention_ = std::make_shared<TcpAttention>(wake_fd_);

  // Network thread only:
  Masker hs_mask_;
  Mac16 mac1_;
  Secret<InitiatorState> hs_;
  bool hs_in_flight_ = false;
  bool tls_awaiting_ = false;  // the hello went out; the node's flight has not arrived whole yet
  bool racing_ = false;        // a UDP race is not decided yet
  bool race_sent_ = false;     // its UDP initiation went out
  uint8_t race_init_[kInitMaxLen] = {};
  size_t race_init_len_ = 0;  // the race's initiation, while the stream may still carry it
  bool attempt_open_ = false;  // the current TCP/TLS connection attempt's outcome is not reported yet
  Clock::time_point tls_sent_{};
  bool need_handshake_now_ = false;
  Clock::time_point hs_sent_{}, last_recv_{}, next_ping_{}, ping_sent_{}, last_reopen_{}, tcp_attempt_{};
  Clock::time_point unanswered_since_{};
  Clock::duration hs_retry_after_ = milliseconds(1000);
  Clock::duration rekey_after_ = seconds(120);
  bool awaiting_pong_ = false, probed_ = false, warned_ = false;
  double srtt_ms_ = 0;
  uint64_t last_ts_ = 0;
  std::string state_;
};

}  // namespace

std::unique_ptr<Tunnel> make_client_engine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                           std::shared_ptr<EventSink> sink) {
  return std::make_unique<ClientEngine>(cfg, std::move(io), std::move(sink));
}

}  // namespace ferry

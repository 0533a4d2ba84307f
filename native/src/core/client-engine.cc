// The client engine: handshakes with one node, keeps the session fresh (rekey, keepalive, roaming, dead-peer
// detection) and carries packets between the packet device and the node over UDP or TCP (or TLS); over a stream
// it may race a UDP path (ClientConfig::race_udp_port), and the first handshake answered picks the path.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <stdexcept>

#include "client-engine.h"
#include "engines.h"
#include "stream-outcome.h"
#include "tls-stream.h"

namespace ferry {

using namespace client;

ClientEngine::ClientEngine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink)
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

bool ClientEngine::route(const uint8_t*, size_t, Target& t) {
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

void ClientEngine::set_state(const char* state) {
  if (state_ == state) return;
  state_ = state;
  Event e;
  e.type = "state";
  e.state = state;
  emit(e);
}

milliseconds ClientEngine::jitter(RandomPool& rng, int64_t lo, int64_t hi) {
  return milliseconds(lo + int64_t(rng.u32() % uint32_t(hi - lo + 1)));
}

size_t ClientEngine::build_init(RandomPool& rng, uint8_t* out) {
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

void ClientEngine::send_init(RandomPool& rng) {
  uint8_t out[kInitMaxLen];
  const size_t len = build_init(rng, out);
  if (len) send_to(out, len, server_endpoint());
}

void ClientEngine::on_response(uint8_t* buf, size_t len, RandomPool& rng, bool via_udp) {
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

void ClientEngine::send_ping(Session& s, RandomPool& rng, Clock::time_point now) {
  const int64_t k = int64_t(keepalive_seconds_) * 1000;
  next_ping_ = now + jitter(rng, k * 7 / 10, k * 13 / 10);
  if (!awaiting_pong_) ping_sent_ = now;  // the oldest unanswered ping is what roaming detection measures
  awaiting_pong_ = true;
  send_control(s, rng, kInnerPing, steady_ns(), server_endpoint());
}

void ClientEngine::dispatch(uint8_t* d, size_t len, RandomPool& rng, bool via_udp) {
  Session* const cur = current_.get();
  Session* const prev = previous_.get();
  if (cur && cur->matches(d, len)) return on_data(*cur, d, len, rng);
  if (prev && prev->matches(d, len)) return on_data(*prev, d, len, rng);
  if (unmask_handshake(hs_mask_, d, len) == uint8_t(MsgType::kResponse)) return on_response(d, len, rng, via_udp);
  counters_.drop_auth();
}

void ClientEngine::on_data(Session& s, uint8_t* buf, size_t len, RandomPool& rng) {
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

void ClientEngine::timers(RandomPool& rng) {
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

void ClientEngine::net_loop() {
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

std::unique_ptr<Tunnel> make_client_engine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                           std::shared_ptr<EventSink> sink) {
  return std::make_unique<ClientEngine>(cfg, std::move(io), std::move(sink));
}

}  // namespace ferry

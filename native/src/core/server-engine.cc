// The server engine: many peers over UDP and TCP. The network thread demultiplexes by sender, opens data
// packets, screens initiations cheaply and hands them to the handshake worker, installs the sessions it
// returns, and keeps TCP connections within their limits; the TUN thread routes by destination address.
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "engine-base.h"
#include "engines.h"
#include "handshake-worker.h"
#include "peer-registry.h"
#include "source-limiter.h"
#include "tls-stream.h"

namespace ferry {

namespace {

constexpr auto kPreviousKeep = seconds(15);
constexpr auto kTcpIdle = seconds(kRejectAfterSeconds);  // no authentic record for this long: closed
constexpr size_t kTcpPerPeer = 4;                        // a fifth connection of one peer closes its oldest
constexpr auto kAcceptPause = milliseconds(100);         // after EMFILE and the like
constexpr int kAcceptsPerLoop = 256;
constexpr int kEventsPerWait = 256;
// epoll tags of the fixed descriptors; connections use their own tag (from 16 on).
constexpr uint64_t kTagStop = 1, kTagWake = 2, kTagUdp = 3, kTagListen = 4, kTagTlsListen = 5, kFirstConnTag = 16;

int64_t steady_ms() { return std::chrono::duration_cast<milliseconds>(Clock::now().time_since_epoch()).count(); }

// Descriptors bound how many connections a node holds: take what the hard limit allows.
void raise_fd_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

// The server's view of one TCP connection (network thread only).
struct ServerConn {
  // kAwaitHello: a TLS listener's connection before its first flight is judged (authentic, or a stranger's).
  enum class Stage { kAwaitHello, kAwaitInit, kPending, kAuthenticated, kDraining };
  TcpConnPtr conn;
  Endpoint from;       // the remote address (for the per-source budget) with conn set
  EndpointKey source;  // the remote address without port: unauthenticated connections are counted by it
  Stage stage = Stage::kAwaitInit;
  ServerPeerPtr peer;  // authenticated only
  Clock::time_point last_authentic{};
  uint32_t events = 0;  // what epoll watches for it now
  std::unique_ptr<TlsHelloReader> hello;  // kAwaitHello only
};

// A listening TCP socket (the Ferry TCP and TLS transports); throws with `what` in the message.
int listen_tcp(const std::string& host, uint16_t port, const char* what) {
  Endpoint tl = resolve(host, port, true);
  int fd = socket(tl.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int one = 1;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
      bind(fd, reinterpret_cast<sockaddr*>(&tl.addr), tl.len) < 0 || ::listen(fd, 512) < 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(std::string("cannot listen on the ") + what + " address: " + std::strerror(e));
  }
  return fd;
}

class ServerEngine final : public EngineBase {
 public:
  ServerEngine(const ServerConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink)
      : EngineBase(std::move(io), cfg.mtu, cfg.path_mtu, std::move(sink)),
        pub_(x25519_public_from_private(cfg.private_key)),
        hs_mask_(derive_handshake_mask_key(pub_)),
        mac1_(derive_mac1_key(pub_)),
        limiter_(cfg.handshakes_per_source),
        tcp_auth_timeout_(milliseconds(cfg.tcp_auth_timeout_ms)),
        tcp_max_authenticated_(size_t(cfg.tcp_max_authenticated)),
        tcp_max_pending_(size_t(cfg.tcp_max_pending)),
        tcp_pending_per_source_(size_t(cfg.tcp_pending_per_source)),
        tls_key_(cfg.private_key),
        on_stranger_(cfg.on_stranger),
        on_api_stream_(cfg.on_api_stream) {
    if (cfg.tcp_auth_timeout_ms < 100 || cfg.tcp_auth_timeout_ms > 600000)
      throw std::runtime_error("TCP authentication timeout out of range");
    if (cfg.tcp_max_authenticated < 1 || cfg.tcp_max_pending < 1 || cfg.tcp_pending_per_source < 1)
      throw std::runtime_error("TCP connection limits must be at least 1");
    std::vector<ServerPeerPtr> gone;
    auto rejected = registry_.update(cfg.peers, {}, true, gone);
    if (!rejected.empty()) throw std::runtime_error("peer " + rejected[0].id + ": " + rejected[0].reason);
    raise_fd_limit();
    Endpoint listen = resolve(cfg.listen_host, cfg.listen_port, true);
    udp_fd_ = make_udp_socket(listen.addr.ss_family);
    if (bind(udp_fd_, reinterpret_cast<sockaddr*>(&listen.addr), listen.len) < 0)
      throw std::runtime_error(std::string("cannot bind UDP listen address: ") + std::strerror(errno));
    if (cfg.tcp_listen_port != 0) tcp_listen_fd_ = listen_tcp(cfg.tcp_listen_host, cfg.tcp_listen_port, "TCP");
    if (cfg.tls_listen_port != 0) {
      try {
        tls_listen_fd_ = listen_tcp(cfg.tls_listen_host, cfg.tls_listen_port, "TLS");
      } catch (...) {
        if (tcp_listen_fd_ >= 0) ::close(tcp_listen_fd_);
        tcp_listen_fd_ = -1;
        throw;
      }
    }
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::runtime_error(std::string("epoll: ") + std::strerror(errno));
    watch(stop_fd_, kTagStop, EPOLLIN);
    watch(wake_fd_, kTagWake, EPOLLIN);
    watch(udp_fd_, kTagUdp, EPOLLIN);
    if (tcp_listen_fd_ >= 0) watch(tcp_listen_fd_, kTagListen, EPOLLIN);
    if (tls_listen_fd_ >= 0) watch(tls_listen_fd_, kTagTlsListen, EPOLLIN);
    listening_ = true;
    worker_ = std::make_unique<HandshakeWorker>(cfg.private_key, registry_, counters_, wake_fd_, system_ms());
    start_threads();
  }

  ~ServerEngine() override {
    close();
    if (epoll_fd_ >= 0) ::close(epoll_fd_);
  }

  // After the threads: TCP clients see their connections end now, not whenever the object is destroyed.
  void close() override {
    EngineBase::close();
    if (worker_) worker_->stop();
    for (auto& entry : conns_) {
      ::shutdown(entry.second.conn->fd, SHUT_RDWR);
      entry.second.conn->set_broken();
    }
    conns_.clear();
    if (tcp_listen_fd_ >= 0) ::close(tcp_listen_fd_);
    tcp_listen_fd_ = -1;
    if (tls_listen_fd_ >= 0) ::close(tls_listen_fd_);
    tls_listen_fd_ = -1;
  }

  std::vector<PeerRejection> update_peers(const std::vector<PeerConfig>& upsert, const std::vector<std::string>& remove,
                                          bool replace_all) override {
    std::vector<ServerPeerPtr> gone;
    std::vector<PeerRejection> rejected;
    {
      std::lock_guard<std::mutex> lock(update_mu_);
      rejected = registry_.update(upsert, remove, replace_all, gone);
    }
    if (!gone.empty()) {
      {
        std::lock_guard<std::mutex> lock(gone_mu_);
        gone_.insert(gone_.end(), gone.begin(), gone.end());
      }
      wake();  // the network thread ends their sessions and connections now, not at the next sweep
    }
    return rejected;
  }

  std::vector<PeerStats> peer_stats() const override { return registry_.stats(steady_ms()); }

 private:
  // Cryptokey routing: the peer is chosen by destination address. Only IPv4 peers so far.
  bool route(const uint8_t* ip, size_t len, Target& t) override {
    if (len < 20 || (ip[0] >> 4) != 4) return false;
    const uint32_t dst = uint32_t(ip[16]) << 24 | uint32_t(ip[17]) << 16 | uint32_t(ip[18]) << 8 | ip[19];
    ServerPeerPtr peer = registry_.by_address(dst);
    if (!peer) return false;
    {
      std::lock_guard<std::mutex> lock(peer->mu);
      if (!peer->current || !peer->has_endpoint) return false;
      t.session = peer->current;
      t.endpoint = peer->endpoint;
    }
    t.tx_meter = &peer->tx_bytes;
    t.keep = std::move(peer);
    return true;
  }

  // ---- receiving ----

  // Tries a message against the sessions of `peer`: -1 no session's, 0 one's but refused, 1 accepted.
  // The network thread is the only writer of a peer's sessions and endpoint (it publishes them to the TUN
  // thread under peer->mu), so it reads them here without the lock and without touching reference counts.
  int try_sessions(const ServerPeerPtr& peer, uint8_t* d, size_t len, const Endpoint& from, RandomPool& rng) {
    Session* const candidates[3] = {peer->current.get(), peer->next.get(), peer->previous.get()};
    for (Session* s : candidates)
      if (s && s->matches(d, len)) return on_data(peer, s, d, len, from, rng) ? 1 : 0;
    return -1;
  }

  static bool same_endpoint(const Endpoint& a, const Endpoint& b) {
    return a.conn == b.conn && a.len == b.len && std::memcmp(&a.addr, &b.addr, a.len) == 0;
  }

  void dispatch_udp(uint8_t* d, size_t len, const Endpoint& from, RandomPool& rng) {
    auto it = sources_.find(endpoint_key(from));
    if (it != sources_.end()) {
      ServerPeerPtr peer = it->second;
      if (peer->removed.load()) {
        sources_.erase(it);
      } else if (try_sessions(peer, d, len, from, rng) >= 0) {
        return;
      }
    }
    screen_initiation(d, len, from);
  }

  // The cheap checks (mask, header, mac1, the source's budget) and then the worker's queue. True: queued.
  bool screen_initiation(uint8_t* d, size_t len, const Endpoint& from) {
    if (unmask_handshake(hs_mask_, d, len) != uint8_t(MsgType::kInit) || !check_mac1(mac1_, d, len)) {
      counters_.drop_auth();
      return false;
    }
    if (!limiter_.allow(from, Clock::now())) {
      counters_.drop_handshake();
      return false;
    }
    auto job = std::make_unique<HandshakeJob>();
    std::memcpy(job->msg, d, len);
    job->len = len;
    job->from = from;
    if (!worker_->submit(std::move(job))) {
      counters_.drop_handshake();
      return false;
    }
    return true;
  }

  bool on_data(const ServerPeerPtr& peer, Session* s, uint8_t* buf, size_t len, const Endpoint& from, RandomPool& rng) {
    const auto now = Clock::now();
    if (now - s->created >= seconds(kRejectAfterSeconds)) {
      counters_.drop_auth();
      return false;
    }
    uint64_t c;
    bool replay = false;
    if (!s->open(buf, len, c, replay)) {
      if (replay)
        counters_.drop_replay();
      else
        counters_.drop_auth();
      return false;
    }
    if (peer->removed.load()) {  // revoked: its sessions die with it
      counters_.drop_auth();
      return false;
    }
    s->commit(c);
    peer->rx_bytes.fetch_add(len, std::memory_order_relaxed);
    bool promoted = false, first = false;
    const bool promote = peer->next.get() == s;
    // Roaming: the latest authentic packet says where the client is now. Most packets change nothing, and
    // then the lock is not taken.
    const bool moved = !peer->has_endpoint || !same_endpoint(peer->endpoint, from);
    if (promote || moved) {
      std::lock_guard<std::mutex> lock(peer->mu);
      peer->endpoint = from;
      peer->has_endpoint = true;
      if (promote) {
        if (peer->current) {
          peer->current->replaced_at = now;
          peer->previous = peer->current;
        }
        peer->current = std::move(peer->next);
        promoted = true;
        first = !peer->ever_connected;
        peer->ever_connected = true;
      }
    }
    if (moved && !from.conn) note_udp_source(*peer, endpoint_key(from), false);
    if (promoted) {
      counters_.handshakes.fetch_add(1, std::memory_order_relaxed);
      peer->last_handshake_ms = steady_ms();
      Event e;
      e.type = first ? "peer" : "rekey";
      e.state = "connected";
      e.peer = peer->id;
      e.cipher = cipher_name(s->cipher);
      emit(e);
    }
    uint8_t* pt = buf + kHeaderLen;
    const size_t pt_len = len - kDataOverhead;
    if (pt[0] == kInnerPing && pt_len >= 9) {
      send_control(*s, rng, kInnerPong, read_control_time(pt), from);
      return true;
    }
    if (pt[0] == kInnerPong) return true;
    const size_t ip_len = ip_packet_length(pt, pt_len);
    // Cryptokey routing: a peer may only send from its own tunnel address.
    if (!ip_len || (pt[0] >> 4) != 4 ||
        (uint32_t(pt[12]) << 24 | uint32_t(pt[13]) << 16 | uint32_t(pt[14]) << 8 | pt[15]) != peer->address_v4) {
      counters_.drop();
      return true;
    }
    deliver(pt, ip_len);
    return true;
  }

  // Records that `key` is (pending=false) or may soon be (pending=true, an accepted initiation) the peer's
  // UDP source; forgets the source it replaces. Each peer maps at most two sources.
  void note_udp_source(ServerPeer& p, const EndpointKey& key, bool pending) {
    auto forget = [&](const EndpointKey& old) {
      auto it = sources_.find(old);
      if (it != sources_.end() && it->second.get() == &p) sources_.erase(it);
    };
    if (pending) {
      if (p.has_pending_source && !(p.pending_source == key) && !(p.has_udp_source && p.udp_source == p.pending_source))
        forget(p.pending_source);
      p.pending_source = key;
      p.has_pending_source = true;
      return;
    }
    if (p.has_udp_source && p.udp_source == key) return;
    if (p.has_udp_source && !(p.has_pending_source && p.pending_source == p.udp_source)) forget(p.udp_source);
    p.udp_source = key;
    p.has_udp_source = true;
    if (p.has_pending_source && p.pending_source == key) p.has_pending_source = false;
  }

  // ---- handshake outcomes and peer changes ----

  // The live connection table entry of c, or null (closed meanwhile). c is held, so its address cannot be a
  // newer connection's.
  ServerConn* find_conn(const TcpConnPtr& c) {
    if (!c) return nullptr;
    auto it = conns_.find(c->tag);
    return it != conns_.end() && it->second.conn == c ? &it->second : nullptr;
  }

  void process_results(RandomPool& rng, std::vector<TcpConnPtr>& to_close) {
    for (HandshakeResult& r : worker_->take_results()) {
      ServerConn* sc = r.from.conn ? find_conn(r.from.conn) : nullptr;
      if (r.from.conn && !sc) continue;  // the connection ended meanwhile
      if (!r.ok || r.peer->removed.load()) {
        if (sc && sc->stage == ServerConn::Stage::kPending) drain(*sc);
        continue;
      }
      ServerPeerPtr peer = r.peer;
      if (sc) {
        if (sc->stage == ServerConn::Stage::kPending) {
          if (!bind_conn(*sc, peer, to_close)) {
            // At the limit a new connection is treated like any other that does not authenticate.
            counters_.drop_handshake();
            drain(*sc);
            continue;
          }
        } else if (sc->peer != peer) {
          continue;  // another key's initiation on a bound connection: ignored
        }
      }
      auto s = std::make_shared<Session>(**r.keys);
      r.keys.reset();  // erases the raw keys
      {
        std::lock_guard<std::mutex> lock(peer->mu);
        peer->next = s;  // an unconfirmed earlier attempt (e.g. its response was lost) is superseded
      }
      if (!r.from.conn) {
        const EndpointKey key = endpoint_key(r.from);
        sources_[key] = peer;
        note_udp_source(*peer, key, true);
      }
      send_to(r.response, r.response_len, r.from);
      if (sc && sc->stage == ServerConn::Stage::kAuthenticated && sc->conn->rx_len > 0) {
        // Records that arrived behind the initiation were held while it was checked.
        if (!parse_buffered(*sc->conn, [&](uint8_t* p, size_t avail, size_t& consumed) {
              return on_record(*sc, p, avail, consumed, rng);
            }))
          to_close.push_back(sc->conn);
      }
      if (sc) update_interest(*sc);
    }
  }

  // Binds a connection to the peer whose initiation it carried, within the limits: a peer keeps its newest
  // kTcpPerPeer connections, and at the node's limit a peer that holds one replaces its own oldest (others
  // are refused: false).
  bool bind_conn(ServerConn& sc, const ServerPeerPtr& peer, std::vector<TcpConnPtr>& to_close) {
    auto& list = peer->tcp_conns;
    auto gone = [&](const std::weak_ptr<TcpConn>& w) {
      TcpConnPtr c = w.lock();
      return !find_conn(c) || std::find(to_close.begin(), to_close.end(), c) != to_close.end();
    };
    list.erase(std::remove_if(list.begin(), list.end(), gone), list.end());
    const bool full = authenticated_ >= tcp_max_authenticated_;
    if (full && list.empty()) return false;
    // The peer's oldest make room: to stay within kTcpPerPeer, and at the node's limit one for this one.
    size_t must_go = list.size() + 1 > kTcpPerPeer ? list.size() + 1 - kTcpPerPeer : 0;
    if (full) must_go = std::max<size_t>(must_go, 1);
    for (size_t i = 0; i < must_go && !list.empty(); ++i) {
      if (TcpConnPtr old = list.front().lock()) to_close.push_back(old);
      list.erase(list.begin());
    }
    set_stage(sc, ServerConn::Stage::kAuthenticated);
    sc.peer = peer;
    sc.last_authentic = Clock::now();
    sc.conn->paused = false;
    sc.conn->grow_rx();
    list.push_back(sc.conn);
    return true;
  }

  void process_gone(std::vector<TcpConnPtr>& to_close) {
    std::vector<ServerPeerPtr> gone;
    {
      std::lock_guard<std::mutex> lock(gone_mu_);
      gone.swap(gone_);
    }
    for (const auto& p : gone) {
      {
        std::lock_guard<std::mutex> lock(p->mu);
        p->current.reset();
        p->next.reset();
        p->previous.reset();
        p->endpoint = Endpoint();
        p->has_endpoint = false;
      }
      for (const EndpointKey* k : {&p->udp_source, &p->pending_source}) {
        auto it = sources_.find(*k);
        if (it != sources_.end() && it->second == p) sources_.erase(it);
      }
      for (auto& w : p->tcp_conns)
        if (TcpConnPtr c = w.lock()) to_close.push_back(c);
      p->tcp_conns.clear();
    }
  }

  // Connections whose send queue filled up (watch for writability) or that broke (close them).
  void process_attention(std::vector<TcpConnPtr>& to_close) {
    for (auto& w : attention_->take()) {
      TcpConnPtr c = w.lock();
      ServerConn* sc = find_conn(c);
      if (!sc) continue;
      if (c->broken())
        to_close.push_back(c);
      else
        update_interest(*sc);
    }
  }

  // ---- TCP ----

  void watch(int fd, uint64_t tag, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = tag;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0)
      throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
  }

  // Reads while not waiting for the worker, writability while bytes are queued. (Hang-ups and errors are
  // always reported.)
  void update_interest(ServerConn& sc) {
    const uint32_t want = (sc.conn->paused ? 0 : uint32_t(EPOLLIN)) | (sc.conn->wants_write() ? uint32_t(EPOLLOUT) : 0);
    if (want == sc.events) return;
    epoll_event ev{};
    ev.events = want;
    ev.data.u64 = sc.conn->tag;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, sc.conn->fd, &ev) == 0) sc.events = want;
  }

  size_t& pending_from(const EndpointKey& source) { return pending_by_source_[source]; }

  // Unauthenticated connections are counted (overall and per source) from accept until they authenticate
  // or close.
  void set_stage(ServerConn& sc, ServerConn::Stage next) {
    const bool was_pending = sc.stage != ServerConn::Stage::kAuthenticated;
    const bool is_pending = next != ServerConn::Stage::kAuthenticated;
    sc.stage = next;
    if (was_pending && !is_pending) {
      --pending_;
      if (--pending_from(sc.source) == 0) pending_by_source_.erase(sc.source);
      ++authenticated_;
    }
  }

  // Stops watching the listeners for a moment (out of descriptors) instead of spinning on them.
  void pause_accepting(Clock::time_point now) {
    for (int fd : {tcp_listen_fd_, tls_listen_fd_})
      if (fd >= 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
    listening_ = false;
    accept_paused_until_ = now + kAcceptPause;
  }

  void accept_all(Clock::time_point now, bool tls) {
    const int listen_fd = tls ? tls_listen_fd_ : tcp_listen_fd_;
    for (int i = 0; i < kAcceptsPerLoop && listening_; ++i) {
      Endpoint from;
      from.len = sizeof from.addr;
      int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&from.addr), &from.len, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
          pause_accepting(now);
          counters_.drop();
        }
        return;
      }
      const EndpointKey source = endpoint_key(from, false);
      if (pending_ >= tcp_max_pending_ || pending_by_source_[source] >= tcp_pending_per_source_) {
        // Over the limits of unauthenticated connections (overall, and per source address): closed at once,
        // after reading what is there (FIN, not RST). Only whoever fills the limit sees this.
        if (pending_by_source_[source] == 0) pending_by_source_.erase(source);
        counters_.drop();
        if (tls && on_stranger_) {  // on the TLS port, the cover site answers it, as it answers every stranger
          give_away(on_stranger_, fd, {});
          continue;
        }
        uint8_t sink[4096];
        while (recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
        }
        ::shutdown(fd, SHUT_RDWR);
        ::close(fd);
        continue;
      }
      set_tcp_options(fd);
      auto conn = std::make_shared<TcpConn>(fd, now, true, attention_);
      conn->tag = next_tag_++;
      ServerConn sc;
      from.conn = conn;
      sc.conn = conn;
      sc.from = from;
      sc.source = source;
      sc.events = EPOLLIN;
      if (tls) {
        sc.stage = ServerConn::Stage::kAwaitHello;
        sc.hello = std::make_unique<TlsHelloReader>();
      }
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = conn->tag;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) continue;  // conn's destructor closes fd
      ++pending_;
      ++pending_from(source);
      unauth_deadlines_.emplace_back(now + tcp_auth_timeout_, conn);
      conns_.emplace(conn->tag, std::move(sc));
    }
  }

  // Probing resistance: after bad input an unauthenticated connection reads and discards until its fixed
  // closing time.
  void drain(ServerConn& sc) {
    set_stage(sc, ServerConn::Stage::kDraining);
    sc.conn->paused = false;
    update_interest(sc);
  }

  bool bad_input(ServerConn& sc) {
    if (sc.stage != ServerConn::Stage::kAuthenticated) {
      sc.stage = ServerConn::Stage::kDraining;  // still unauthenticated: update_interest follows the read
      sc.conn->paused = false;
    }
    return false;
  }

  bool on_record(ServerConn& sc, uint8_t* p, size_t avail, size_t& consumed, RandomPool& rng) {
    TcpConn& c = *sc.conn;
    consumed = 0;
    if (!c.preamble_done) {
      if (avail < 1) return true;
      const size_t plen = preamble_length(p[0]);
      if (plen == 0) return bad_input(sc);
      if (avail < plen) return true;
      if (!preamble_valid(p, plen)) return bad_input(sc);
      c.set_masks(std::make_unique<RecordMasks>(pub_, p, plen));
      c.preamble_done = true;
      consumed = plen;
      return true;
    }
    const bool authed = sc.stage == ServerConn::Stage::kAuthenticated;
    const bool good = parse_record(
        p, avail, consumed, authed ? kDataMinLen : kInitMinLen, authed ? kMaxRecord : kInitMaxLen, c.pending_len,
        [&](uint8_t* l) { c.masks().c2s(l); },
        [&](uint8_t* msg, size_t len) {
          if (!authed) {
            if (!screen_initiation(msg, len, sc.from)) return false;
            sc.stage = ServerConn::Stage::kPending;
            c.paused = true;  // nothing more is read until the worker has decided
            return true;
          }
          if (sc.peer->removed.load()) return false;
          const int r = try_sessions(sc.peer, msg, len, sc.from, rng);
          if (r == 1) sc.last_authentic = Clock::now();
          if (r < 0) screen_initiation(msg, len, sc.from);  // a rekey of the bound peer (others are ignored)
          return true;
        });
    return good ? true : bad_input(sc);
  }

  // False when the connection must be closed now (the other side closed or reset it, or it failed after
  // authenticating).
  bool on_tcp_readable(ServerConn& sc, uint32_t events, RandomPool& rng) {
    TcpConn& c = *sc.conn;
    // A connection waiting for the worker reads nothing; if its other side hung up or reset meanwhile, the
    // prober went first and so do we.
    if (c.paused) return !(events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP));
    if (sc.stage == ServerConn::Stage::kAwaitHello) return on_hello_readable(sc);
    if (sc.stage == ServerConn::Stage::kDraining) {
      uint8_t sink[4096];
      for (int i = 0; i < 64; ++i) {
        ssize_t n = recv(c.fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n == 0) return false;  // the prober closed first: so do we
        if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
      }
      return true;
    }
    const bool ok = tcp_receive(
        c, [&](uint8_t* p, size_t avail, size_t& consumed) { return on_record(sc, p, avail, consumed, rng); });
    update_interest(sc);
    return ok || sc.stage == ServerConn::Stage::kDraining;
  }

  // The first flight on the TLS port: an authentic hello starts the Ferry stream inside TLS records (the
  // initiation follows as on Ferry TCP); anything else is a stranger's, handed over after this round.
  bool on_hello_readable(ServerConn& sc) {
    AuthenticHello hello;
    switch (sc.hello->read(sc.conn->fd, tls_key_, system_ms() / 1000, tls_replay_, hello)) {
      case HelloVerdict::kIncomplete:
        return true;
      case HelloVerdict::kStranger:
        strangers_.push_back(sc.conn);
        return true;
      case HelloVerdict::kAuthentic:
        break;
    }
    SystemBytes rnd;
    if (hello.purpose == HelloPurpose::kApi) {
      // Without a taker the node offers no API access: the hello is answered as any stranger's.
      if (on_api_stream_)
        api_streams_.emplace_back(sc.conn, build_server_flight(hello.session_id.data(), rnd));
      else
        strangers_.push_back(sc.conn);
      return true;
    }
    sc.hello.reset();
    sc.stage = ServerConn::Stage::kAwaitInit;
    const bool ok = begin_server_stream(*sc.conn, pub_, hello, rnd);
    update_interest(sc);
    return ok;
  }

  // A stranger's connection leaves the engine: a descriptor of its own and what was read go to on_stranger_
  // (the relay splices it to the cover site); the engine's descriptor closes without a shutdown, so the
  // connection itself stays open. Without on_stranger_ it is closed like any unauthenticated connection.
  void hand_over(const TcpConnPtr& c) {
    ServerConn* sc = find_conn(c);
    if (!sc || sc->stage != ServerConn::Stage::kAwaitHello) return;
    const int fd = on_stranger_ ? fcntl(c->fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (fd < 0) return close_conn(c);
    std::vector<uint8_t> head = sc->hello->head();
    forget_pending(*sc);
    give_away(on_stranger_, fd, std::move(head));
  }

  // An API stream's connection leaves the engine as a stranger's does; the callee writes `reply` first.
  void hand_over_api(const TcpConnPtr& c, std::vector<uint8_t> reply) {
    ServerConn* sc = find_conn(c);
    if (!sc || sc->stage != ServerConn::Stage::kAwaitHello) return;
    const int fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return close_conn(c);
    forget_pending(*sc);
    give_away(on_api_stream_, fd, std::move(reply));
  }

  void forget_pending(ServerConn& sc) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, sc.conn->fd, nullptr);
    --pending_;
    if (--pending_from(sc.source) == 0) pending_by_source_.erase(sc.source);
    conns_.erase(sc.conn->tag);
  }

  static void give_away(const std::function<void(int, std::vector<uint8_t>)>& taker, int fd,
                        std::vector<uint8_t> bytes) {
    try {
      taker(fd, std::move(bytes));
    } catch (...) {
      ::close(fd);  // the callee could not take it
    }
  }

  // Reads and discards what is pending (so that close sends FIN, not RST), shuts down, forgets.
  void close_conn(const TcpConnPtr& c) {
    ServerConn* found = find_conn(c);
    if (!found) return;
    ServerConn& sc = *found;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
    uint8_t sink[4096];
    for (int i = 0; i < 64 && recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) > 0; ++i) {
    }
    ::shutdown(c->fd, SHUT_RDWR);
    c->set_broken();
    if (sc.stage == ServerConn::Stage::kAuthenticated) {
      --authenticated_;
      auto& list = sc.peer->tcp_conns;
      list.erase(
          std::remove_if(list.begin(), list.end(), [&](const std::weak_ptr<TcpConn>& w) { return w.lock() == c; }),
          list.end());
      std::lock_guard<std::mutex> lock(sc.peer->mu);
      if (sc.peer->endpoint.conn == c) {
        sc.peer->endpoint = Endpoint();
        sc.peer->has_endpoint = false;
      }
    } else {
      --pending_;
      if (--pending_from(sc.source) == 0) pending_by_source_.erase(sc.source);
    }
    conns_.erase(c->tag);
  }

  // ---- timers ----

  void timers(std::vector<TcpConnPtr>& to_close) {
    const auto now = Clock::now();
    if (now - last_sweep_ >= seconds(1)) {
      last_sweep_ = now;
      // The registry is held for the whole walk: a concurrent update cannot free an entry under it.
      registry_.for_each([&](ServerPeer& p) {
        std::lock_guard<std::mutex> lock(p.mu);
        if (p.previous && now - p.previous->replaced_at >= kPreviousKeep) p.previous.reset();
        if (p.next && now - p.next->created >= seconds(kRejectAfterSeconds)) p.next.reset();
        if (p.current && now - p.current->created >= seconds(kRejectAfterSeconds)) p.current.reset();
      });
      for (auto it = sources_.begin(); it != sources_.end();)
        it = it->second->removed.load() ? sources_.erase(it) : std::next(it);
      // Once a second is enough for authenticated connections (idle for 180 s, or their peer removed).
      for (auto& entry : conns_) {
        const ServerConn& sc = entry.second;
        if (sc.stage == ServerConn::Stage::kAuthenticated &&
            (sc.peer->removed.load() || now - sc.last_authentic >= kTcpIdle))
          to_close.push_back(sc.conn);
      }
    }
    // Probing resistance: every unauthenticated connection, whatever it sent, ends at the same time after
    // accept. Deadlines are in accept order, so only the expired ones are looked at.
    while (!unauth_deadlines_.empty() && unauth_deadlines_.front().first <= now) {
      TcpConnPtr c = unauth_deadlines_.front().second.lock();
      unauth_deadlines_.pop_front();
      ServerConn* sc = find_conn(c);
      if (sc && sc->stage == ServerConn::Stage::kAwaitHello)
        strangers_.push_back(c);  // silence on the TLS port: the cover site gets what came so far
      else if (sc && sc->stage != ServerConn::Stage::kAuthenticated)
        to_close.push_back(c);
    }
    if (!listening_ && now >= accept_paused_until_) {
      listening_ = true;
      for (auto [fd, tag] : {std::pair<int, uint64_t>{tcp_listen_fd_, kTagListen}, {tls_listen_fd_, kTagTlsListen}}) {
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = tag;
        if (fd >= 0 && epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) listening_ = false;
      }
    }
    maybe_emit_counters(now);
  }

  void net_loop() override {
    RandomPool rng;
    Event e;
    e.type = "state";
    e.state = "connected";  // listening: the server is up as soon as its socket is bound
    emit(e);
    epoll_event events[kEventsPerWait];
    std::vector<TcpConnPtr> to_close;
    for (;;) {
      const int n = epoll_wait(epoll_fd_, events, kEventsPerWait, kTimerTickMs);
      if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
      to_close.clear();
      bool udp_ready = false, listen_ready = false, tls_listen_ready = false;
      for (int i = 0; i < n; ++i) {
        const uint64_t tag = events[i].data.u64;
        if (tag == kTagStop) return;
        if (tag == kTagWake) {
          drain_wake();
          process_gone(to_close);
          process_results(rng, to_close);
          process_attention(to_close);
        } else if (tag == kTagUdp) {
          udp_ready = true;
        } else if (tag == kTagListen) {
          listen_ready = true;
        } else if (tag == kTagTlsListen) {
          tls_listen_ready = true;
        }
      }
      if (udp_ready)
        receive_burst([&](uint8_t* d, size_t len, const Endpoint& from) { dispatch_udp(d, len, from, rng); });
      flush_deliveries();
      for (int i = 0; i < n; ++i) {
        const uint64_t tag = events[i].data.u64;
        if (tag < kFirstConnTag) continue;
        auto it = conns_.find(tag);
        if (it == conns_.end()) continue;  // closed earlier in this round
        ServerConn& sc = it->second;
        const uint32_t ev = events[i].events;
        if (ev & EPOLLOUT) {
          if (!sc.conn->flush()) {
            to_close.push_back(sc.conn);
            continue;
          }
          update_interest(sc);
        }
        if ((ev & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !on_tcp_readable(sc, ev, rng)) to_close.push_back(sc.conn);
      }
      flush_deliveries();
      if (listen_ready) accept_all(Clock::now(), false);
      if (tls_listen_ready) accept_all(Clock::now(), true);
      timers(to_close);
      for (const TcpConnPtr& c : to_close) close_conn(c);
      for (const TcpConnPtr& c : strangers_) hand_over(c);
      strangers_.clear();
      for (auto& [c, reply] : api_streams_) hand_over_api(c, std::move(reply));
      api_streams_.clear();
    }
  }

  const Key32 pub_;
  PeerRegistry registry_;
  std::mutex update_mu_;  // serialises peer updates
  std::mutex gone_mu_;
  std::vector<ServerPeerPtr> gone_;  // guarded by gone_mu_: left the set, for the network thread to cut off
  std::unique_ptr<HandshakeWorker> worker_;
  const std::shared_ptr<TcpAttention> attention_ = std::make_shared<TcpAttention>(wake_fd_);

  // Network thread only:
  Masker hs_mask_;
  Mac16 mac1_;
  SourceLimiter limiter_;
  std::unordered_map<EndpointKey, ServerPeerPtr, EndpointKeyHash> sources_;            // UDP sender -> peer
  std::unordered_map<uint64_t, ServerConn> conns_;                                     // by TcpConn::tag
  std::deque<std::pair<Clock::time_point, std::weak_ptr<TcpConn>>> unauth_deadlines_;  // in accept order
  std::unordered_map<EndpointKey, size_t, EndpointKeyHash> pending_by_source_;
  size_t authenticated_ = 0, pending_ = 0;
  uint64_t next_tag_ = kFirstConnTag;
  const Clock::duration tcp_auth_timeout_;
  const size_t tcp_max_authenticated_, tcp_max_pending_, tcp_pending_per_source_;
  int tcp_listen_fd_ = -1;
  int tls_listen_fd_ = -1;
  X25519Key tls_key_;  // the node's static key, for the hellos' check on the network thread
  TlsReplayCache tls_replay_;
  const std::function<void(int, std::vector<uint8_t>)> on_stranger_;
  std::vector<TcpConnPtr> strangers_;  // judged in this round; handed over at its end
  const std::function<void(int, std::vector<uint8_t>)> on_api_stream_;
  std::vector<std::pair<TcpConnPtr, std::vector<uint8_t>>> api_streams_;  // the same, with the node's answer
  int epoll_fd_ = -1;
  bool listening_ = false;
  Clock::time_point last_sweep_{}, accept_paused_until_{};
};

}  // namespace

std::unique_ptr<Tunnel> make_server_engine(const ServerConfig& cfg, std::unique_ptr<PacketIo> io,
                                           std::shared_ptr<EventSink> sink) {
  return std::make_unique<ServerEngine>(cfg, std::move(io), std::move(sink));
}

}  // namespace ferry

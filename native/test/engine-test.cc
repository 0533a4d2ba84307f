// Engine tests: the real client and server engines of src/core in one process, over loopback, with
// PacketPipes for TUN. Usage: engine-test [name-substring...]
#include <dirent.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine-kit.h"

using namespace kit;
using ferry::Event;

namespace {

bool is_state(const Event& e, const char* s) { return e.type == "state" && e.state == s; }

// A client connects over each transport and cipher; packets flow both ways.
void test_handshake_and_data() {
  for (bool tcp : {false, true}) {
    for (auto cipher : {ferry::Cipher::kAes256Gcm, ferry::Cipher::kChaCha20Poly1305}) {
      Peer a = make_peer("dev_a", "10.99.0.2");
      Server s = start_server({{a}});
      ClientOptions co;
      co.tcp = tcp;
      co.cipher = cipher;
      Node c = start_client(s, a, co);
      CHECK_MSG(wait_connected(c), "tcp=%d", int(tcp));
      int ok = 0;
      for (int i = 0; i < 50; ++i) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
      CHECK_MSG(ok == 50, "tcp=%d: %d of 50 round trips", int(tcp), ok);
      CHECK(s.events->wait_for([](const Event& e) { return e.type == "peer" && e.state == "connected"; }, 1000));
    }
  }
}

// Keys rotate every second under traffic and not one packet is lost to a rotation.
void test_rekey_without_loss() {
  for (bool tcp : {false, true}) {
    Peer a = make_peer("dev_a", "10.99.0.2");
    Server s = start_server({{a}});
    ClientOptions co;
    co.tcp = tcp;
    co.rekey_seconds = 1;
    Node c = start_client(s, a, co);
    CHECK(wait_connected(c));
    int ok = 0, n = 0;
    for (const int64_t end = now_ms() + 3500; now_ms() < end; ++n) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
    CHECK_MSG(ok == n, "tcp=%d: %d of %d round trips", int(tcp), ok, n);
    const size_t rekeys = c.events->count([](const Event& e) { return e.type == "rekey"; });
    CHECK_MSG(rekeys >= 2, "tcp=%d: %zu rekeys", int(tcp), rekeys);
    const auto ctr = c.tunnel->counters();
    CHECK_MSG(ctr.auth_dropped == 0 && ctr.replay_dropped == 0, "client drops auth=%llu replay=%llu",
              (unsigned long long)ctr.auth_dropped, (unsigned long long)ctr.replay_dropped);
  }
}

// The once-a-second sweep walks the peer set while the relay replaces it (as on every feed answer).
// Before the fix the sweep walked a table that set_peers could free under it: ThreadSanitizer reports
// the race and AddressSanitizer the use-after-free.
void test_peer_updates_during_sweep() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  std::vector<Peer> others;
  for (int i = 0; i < 300; ++i) {
    char addr[32];
    std::snprintf(addr, sizeof addr, "10.99.%d.%d", 1 + i / 200, 1 + i % 200);
    others.push_back(make_peer("dev_" + std::to_string(i), addr));
  }
  Server s = start_server({{a}});
  Node c = start_client(s, a);
  CHECK(wait_connected(c));
  std::atomic<bool> stop{false};
  std::atomic<int> updates{0};
  std::thread updater([&] {
    for (int round = 0; !stop.load(); ++round) {
      std::vector<ferry::PeerConfig> set{a.config()};
      // Every other round the others move to new addresses, so that their entries are re-created.
      for (size_t i = 0; i < others.size(); ++i) {
        ferry::PeerConfig pc = others[i].config();
        if (round % 2) pc.address_v4 += 0x10000;
        set.push_back(pc);
      }
      s.tunnel->set_peers(set);
      updates.fetch_add(1);
    }
  });
  // No traffic meanwhile: the data path's own locking would otherwise order the sweep's reads before
  // the frees by accident and hide the race from ThreadSanitizer.
  sleep_ms(3200);
  stop = true;
  updater.join();
  int ok = 0;
  for (int i = 0; i < 20; ++i) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
  CHECK_MSG(ok == 20, "%d of 20 round trips after %d peer updates", ok, updates.load());
  CHECK(updates.load() > 10);
}

// A revoked peer's sessions stop at once and its TCP connections are closed.
void test_revocation_cuts_sessions_and_tcp() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer b = make_peer("dev_b", "10.99.0.3");
  Server s = start_server({{a, b}});
  Node cb = start_client(s, b);
  CHECK(wait_connected(cb));
  const int fd = raw_tcp_session(s.tcp_port, s.pub, a).fd;
  CHECK(fd >= 0);
  CHECK(s.events->wait_for([](const Event& e) { return e.type == "peer" && e.peer == "dev_a"; }, 3000));
  CHECK(round_trip(cb, s, b, 2000) >= 0);
  s.tunnel->set_peers({b.config()});
  int waited = 0;
  const TcpEnd end = tcp_wait_end(fd, 3000, &waited);
  CHECK_MSG(end != TcpEnd::kOpen, "the revoked peer's TCP connection is still open after %d ms", waited);
  ::close(fd);
  CHECK(round_trip(cb, s, b, 2000) >= 0);
}

// Every unauthenticated TCP connection ends the same way (FIN at the fixed time), whatever it sent, and
// also when one device key has opened more connections than the server keeps.
void test_tcp_probe_reaction() {
  raise_fd_limit();
  Peer a = make_peer("dev_a", "10.99.0.2");
  ServerOptions so{{a}};
  so.tcp_auth_timeout_ms = 400;
  Server s = start_server(so);
  auto probe = [&](const char* what, const Bytes& bytes) {
    int fd = tcp_connect(s.tcp_port);
    CHECK(fd >= 0);
    if (!bytes.empty()) CHECK(send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == ssize_t(bytes.size()));
    int waited = 0;
    const TcpEnd end = tcp_wait_end(fd, 3000, &waited);
    CHECK_MSG(end == TcpEnd::kFin && waited >= 300 && waited <= 1500, "%s: end=%d after %d ms", what, int(end), waited);
    ::close(fd);
  };
  Bytes junk(300, 0x17);
  Bytes preamble_then_junk(40, 'A');  // 'A' announces a 24-character preamble; junk follows it
  preamble_then_junk.resize(40 + junk.size(), 0x17);
  probe("silence", {});
  probe("bad first byte", junk);
  probe("preamble then junk", preamble_then_junk);

  // One device key opens far more authenticated connections than the server keeps.
  std::vector<int> fds;
  for (int i = 0; i < 1100; ++i) {
    int fd = tcp_connect_and_init(s.tcp_port, s.pub, make_init(a, s.pub));
    if (fd >= 0) fds.push_back(fd);
  }
  sleep_ms(500);
  int open = 0;
  for (int fd : fds) {
    uint8_t buf[512];
    // A connection the server closed reads EOF (after the response it may have sent).
    bool closed = false;
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) continue;
      closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
      break;
    }
    open += closed ? 0 : 1;
  }
  CHECK_MSG(open <= 8, "one device key holds %d TCP connections", open);
  probe("silence, after one key opened 1100 connections", {});
  probe("junk, after one key opened 1100 connections", junk);
  for (int fd : fds) ::close(fd);
}

// A captured initiation is never answered twice: not after a peer-set update re-created the peer, and
// not by a restarted server.
void test_replay_after_peer_update() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer fast = make_peer("dev_fast", "10.99.0.3");
  Server s = start_server({{a, fast}});
  {
    // Timestamps may run up to 10 s ahead of the node's clock, not more (a restarted node's replay window).
    int f = udp_socket_to(s.udp_port);
    CHECK_MSG(!udp_answered(f, make_init(fast, s.pub, 15000).message, 300), "an initiation 15 s ahead answered");
    CHECK(udp_answered(f, make_init(fast, s.pub, 5000).message, 1000));
    ::close(f);
  }
  const RawInit captured = make_init(a, s.pub);
  int fd = udp_socket_to(s.udp_port);
  CHECK(udp_answered(fd, captured.message, 1000));
  CHECK(!udp_answered(fd, captured.message, 300));
  Peer moved = a;
  moved.address = ip4("10.99.0.9");
  s.tunnel->set_peers({moved.config()});
  CHECK_MSG(!udp_answered(fd, captured.message, 300), "replayed initiation answered after a peer update");
  s.tunnel->set_peers({});
  s.tunnel->set_peers({a.config()});
  CHECK_MSG(!udp_answered(fd, captured.message, 300), "replayed initiation answered after remove and re-add");
  ::close(fd);

  // A restarted server (same key, new process state) does not answer an initiation made before it started.
  Server restarted;
  {
    sleep_ms(5);
    ferry::ServerConfig c;
    c.private_key = s.priv;
    c.listen_host = "127.0.0.1";
    c.listen_port = free_port(false);
    c.offload = false;
    c.peers = {a.config()};
    auto pipe = std::make_unique<ferry::PacketPipe>("pipe-restart");
    restarted.pipe = pipe->release_peer();
    restarted.events = std::make_shared<Recorder>();
    restarted.udp_port = c.listen_port;
    restarted.tunnel = ferry::start_server(c, std::move(pipe), restarted.events);
  }
  int fd2 = udp_socket_to(restarted.udp_port);
  CHECK_MSG(!udp_answered(fd2, captured.message, 300), "restarted server answered an old initiation");
  CHECK(udp_answered(fd2, make_init(a, s.pub).message, 1000));
  ::close(fd2);
}

// A TCP client that stops reading must not stall anyone else: the server drops that connection only.
void test_slow_tcp_client() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer b = make_peer("dev_b", "10.99.0.3");
  Server s = start_server({{a, b}});
  Node cb = start_client(s, b);
  CHECK(wait_connected(cb));
  // a authenticates over TCP with a tiny receive window and then never reads.
  RawTcpSession slow = raw_tcp_session(s.tcp_port, s.pub, a, 4096);
  CHECK(slow.fd >= 0);
  CHECK(s.events->wait_for([](const Event& e) { return e.type == "peer" && e.peer == "dev_a"; }, 3000));
  std::atomic<bool> stop{false};
  std::thread flood([&] {
    const Bytes big = udp_packet(ip4("10.99.0.1"), a.address, 7, 1300);
    while (!stop.load()) s.send(big);
  });
  double worst = 0;
  int ok = 0, n = 0;
  for (const int64_t end = now_ms() + 6000; now_ms() < end; ++n) {
    const double rtt = round_trip(cb, s, b, 1000);
    if (rtt >= 0) ++ok;
    if (rtt > worst) worst = rtt;
  }
  stop = true;
  flood.join();
  CHECK_MSG(ok == n, "%d of %d round trips of another client within 1 s while one TCP client stalled (worst %.0f ms)",
            ok, n, worst);
  // The stalled connection itself is given up by the server.
  int waited = 0;
  CHECK_MSG(tcp_wait_end(slow.fd, 5000, &waited) != TcpEnd::kOpen, "the stalled connection is still open");
  ::close(slow.fd);
}

// Initiations flood in from many sources while a client works: its packets keep flowing, and a new
// client still gets through.
void test_handshake_flood() {
  Peer b = make_peer("dev_b", "10.99.0.3");
  Peer c2 = make_peer("dev_c", "10.99.0.4");
  Server s = start_server({{b, c2}});
  Node cb = start_client(s, b);
  CHECK(wait_connected(cb));
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> sent{0};
  std::vector<std::thread> flooders;
  for (int t = 0; t < 2; ++t) {
    flooders.emplace_back([&, t] {
      std::vector<int> fds;
      for (int i = 0; i < 8; ++i) {
        char from[32];
        std::snprintf(from, sizeof from, "127.0.%d.%d", 1 + t, 2 + i);
        fds.push_back(udp_socket_to(s.udp_port, from));
      }
      std::vector<Bytes> msgs;
      for (int i = 0; i < 64; ++i) msgs.push_back(make_bogus_init(s.pub));
      // About 10,000 initiations a second per thread: far more than a node can afford to compute.
      for (uint64_t i = 0; !stop.load(); ++i) {
        const Bytes& m = msgs[i % msgs.size()];
        send(fds[i % fds.size()], m.data(), m.size(), MSG_DONTWAIT);
        sent.fetch_add(1);
        if (i % 100 == 99) sleep_ms(10);
      }
      for (int fd : fds) ::close(fd);
    });
  }
  sleep_ms(300);
  Node cc = start_client(s, c2);
  double worst = 0;
  int ok = 0, n = 0;
  for (const int64_t end = now_ms() + 4000; now_ms() < end; ++n) {
    const double rtt = round_trip(cb, s, b, 1000);
    if (rtt >= 0) ++ok;
    if (rtt > worst) worst = rtt;
  }
  const bool newcomer = wait_connected(cc, 100);
  stop = true;
  for (auto& f : flooders) f.join();
  CHECK_MSG(ok == n, "%d of %d round trips within 1 s during a flood of %llu initiations (worst %.0f ms)", ok, n,
            (unsigned long long)sent.load(), worst);
  CHECK_MSG(newcomer, "a new client could not connect during the flood");
}

// A data-plane thread that dies takes the tunnel to "failed", never leaves it reporting connected.
void test_dead_thread_reports_failed() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Server s = start_server({{a}});
  Node c = start_client(s, a);
  CHECK(wait_connected(c));
  // The OS side goes away (as when an interface is deleted under a running tunnel).
  ::close(c.pipe);
  c.pipe = -1;
  CHECK_MSG(c.events->wait_for([](const Event& e) { return is_state(e, "failed"); }, 3000),
            "no failed state after the TUN side went away");
}

// Handshakes that nobody answers (unknown key, a clock far off, a dead node) produce a warning that says so.
void test_unanswered_handshakes_warn() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer stranger = make_peer("dev_x", "10.99.0.5");
  Server s = start_server({{a}});
  Node c = start_client(s, stranger);
  CHECK_MSG(c.events->wait_for([](const Event& e) { return e.type == "warning"; }, 8000),
            "no warning after 8 s of unanswered handshakes");
  CHECK(!is_state(c.events->snapshot().back(), "connected"));
}

// Peer changes apply one by one: removals always, a refused upsert removes its id's old entry, unchanged
// peers keep their sessions; statistics count each peer's bytes.
void test_peer_updates_and_stats() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer b = make_peer("dev_b", "10.99.0.3");
  Peer c = make_peer("dev_c", "10.99.0.4");
  Server s = start_server({{a, b}});
  Node ca = start_client(s, a);
  CHECK(wait_connected(ca));
  for (int i = 0; i < 10; ++i) CHECK(round_trip(ca, s, a, 2000) >= 0);
  auto stat_of = [&](const std::string& id) {
    for (auto& st : s.tunnel->peer_stats())
      if (st.id == id) return st;
    return ferry::PeerStats{};
  };
  const auto sa = stat_of("dev_a");
  CHECK_MSG(sa.rx_bytes >= 10 * (28 + 64 + 32) && sa.tx_bytes >= 10 * (28 + 64 + 32), "rx %llu tx %llu",
            (unsigned long long)sa.rx_bytes, (unsigned long long)sa.tx_bytes);
  CHECK(sa.handshake_age_ms >= 0 && sa.handshake_age_ms < 10000);
  CHECK(stat_of("dev_b").handshake_age_ms == -1);
  const uint64_t handshakes = s.tunnel->counters().handshakes;

  // c takes b's address (refused) while b is removed in the same change: the removal still applies.
  ferry::PeerConfig clash = c.config();
  clash.address_v4 = a.address;
  auto rejected = s.tunnel->update_peers({clash}, {"dev_b"}, false);
  CHECK(rejected.size() == 1 && rejected[0].id == "dev_c" && rejected[0].reason == "address in use by another peer");
  CHECK(s.tunnel->peer_stats().size() == 1);
  // Re-stating a (unchanged) keeps its session: no new handshake is needed for traffic to flow.
  CHECK(s.tunnel->update_peers({a.config()}, {}, false).empty());
  CHECK(round_trip(ca, s, a, 2000) >= 0);
  CHECK(s.tunnel->counters().handshakes == handshakes);
  // A refused upsert of an existing id leaves no old entry behind (fail closed).
  ferry::PeerConfig moved = a.config();
  moved.public_key = c.pub;
  moved.address_v4 = ip4("10.99.0.9");
  CHECK(s.tunnel->update_peers({c.config(), moved}, {}, false).size() == 1);
  CHECK(round_trip(ca, s, a, 500) < 0);
  bool a_left = true;
  for (auto& st : s.tunnel->peer_stats()) a_left = a_left && st.id != "dev_a";
  CHECK(a_left);
}

// At the node's limit of authenticated TCP connections a new one meets the probe reaction, and so do
// probes: nothing tells the limit from a refusal.
void test_tcp_limit_reaction() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Peer b = make_peer("dev_b", "10.99.0.3");
  Peer c = make_peer("dev_c", "10.99.0.4");
  ServerOptions so{{a, b, c}};
  so.tcp_auth_timeout_ms = 400;
  so.tcp_max_authenticated = 2;
  Server s = start_server(so);
  RawTcpSession sa = raw_tcp_session(s.tcp_port, s.pub, a);
  RawTcpSession sb = raw_tcp_session(s.tcp_port, s.pub, b);
  CHECK(sa.fd >= 0 && sb.fd >= 0);
  // c's initiation is authentic, but the node is full: no answer, and the same end as any probe.
  const int fd = tcp_connect_and_init(s.tcp_port, s.pub, make_init(c, s.pub));
  int waited = 0;
  TcpEnd end = tcp_wait_end(fd, 3000, &waited);
  CHECK_MSG(end == TcpEnd::kFin && waited >= 300 && waited <= 1500, "over the limit: end=%d after %d ms", int(end),
            waited);
  ::close(fd);
  const int probe = tcp_connect(s.tcp_port);
  end = tcp_wait_end(probe, 3000, &waited);
  CHECK_MSG(end == TcpEnd::kFin && waited >= 300 && waited <= 1500, "probe at the limit: end=%d after %d ms", int(end),
            waited);
  ::close(probe);
  CHECK(s.tunnel->counters().handshakes_dropped >= 1);
  // The two that got in are still served.
  CHECK(tcp_wait_end(sa.fd, 200) == TcpEnd::kOpen && tcp_wait_end(sb.fd, 200) == TcpEnd::kOpen);
  ::close(sa.fd);
  ::close(sb.fd);
}

// On the wire: padding drawn per packet (sizes vary, full-size packets included, within the path budget)
// and keepalives at jittered intervals.
void test_padding_and_jitter() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  Server s = start_server({{a}});
  WireTap tap(s.udp_port);
  ClientOptions co;
  co.port = tap.port();
  co.keepalive_seconds = 1;
  Node c = start_client(s, a, co);
  CHECK(wait_connected(c));
  sleep_ms(200);
  const size_t before = tap.seen().size();
  const uint32_t far = ip4("10.99.0.1");
  for (int i = 0; i < 200; ++i) c.send(udp_packet(a.address, far, 1000 + i, 200 - 28));   // 200-byte IP packets
  for (int i = 0; i < 200; ++i) c.send(udp_packet(a.address, far, 2000 + i, 1420 - 28));  // full-size packets
  sleep_ms(500);
  std::vector<size_t> small, full;
  auto seen = tap.seen();
  for (size_t i = before; i < seen.size(); ++i) {
    if (!seen[i].to_server) continue;
    if (seen[i].len >= 200 + 32 && seen[i].len <= 200 + 32 + 63) small.push_back(seen[i].len);
    if (seen[i].len >= 1420 + 32) full.push_back(seen[i].len);
  }
  auto distinct = [](std::vector<size_t> v) {
    std::sort(v.begin(), v.end());
    return size_t(std::unique(v.begin(), v.end()) - v.begin());
  };
  // (Under the sanitizers the tap may miss some; the sizes are what matters.)
  CHECK_MSG(small.size() >= 100 && distinct(small) >= 30, "%zu small packets, %zu sizes", small.size(),
            distinct(small));
  const size_t full_max = full.empty() ? 0 : *std::max_element(full.begin(), full.end());
  // IPv4 path of 1500: a 1420-byte packet may carry up to 1500 - 28 - 32 - 1420 = 20 bytes of padding.
  CHECK_MSG(full.size() >= 100 && distinct(full) >= 10 && full_max <= 1472, "%zu full packets, %zu sizes, max %zu",
            full.size(), distinct(full), full_max);
  // Idle: only keepalive pings cross, at intervals of 0.7..1.3 s that are not all the same.
  const size_t idle_from = tap.seen().size();
  sleep_ms(6500);
  seen = tap.seen();
  std::vector<int64_t> times;
  for (size_t i = idle_from; i < seen.size(); ++i)
    if (seen[i].to_server) times.push_back(seen[i].at_ms);
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
  CHECK_MSG(gaps.size() >= 3, "%zu keepalives", times.size());
  if (!gaps.empty()) {
    const auto mm = std::minmax_element(gaps.begin(), gaps.end());
    CHECK_MSG(*mm.first >= 600 && *mm.second <= 1400 && *mm.second - *mm.first >= 20, "gaps %lld..%lld ms",
              (long long)*mm.first, (long long)*mm.second);
  }
}

// Out of descriptors, the node stops accepting for a moment instead of spinning on the listener, and
// accepts again once descriptors are free.
void test_accept_at_fd_limit() {
  Peer a = make_peer("dev_a", "10.99.0.2");
  ServerOptions so{{a}};
  so.tcp_auth_timeout_ms = 400;
  Server s = start_server(so);
  rlimit saved{};
  getrlimit(RLIMIT_NOFILE, &saved);
  int open_fds = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) open_fds += e->d_name[0] == '.' ? 0 : 1;
    closedir(d);
    open_fds -= 1;  // the directory's own descriptor, closed again
  }
  // The connecting side is a child process, with descriptors of its own.
  const pid_t child = fork();
  if (child == 0) {
    sleep_ms(200);  // after the parent has used up its descriptors
    std::vector<int> fds;
    for (int i = 0; i < 5; ++i) fds.push_back(tcp_connect(s.tcp_port));
    sleep_ms(2500);
    _exit(0);
  }
  rlimit tight = saved;
  tight.rlim_cur = rlim_t(open_fds);  // no descriptor left for accept()
  setrlimit(RLIMIT_NOFILE, &tight);
  sleep_ms(500);
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  sleep_ms(1000);
  getrusage(RUSAGE_SELF, &after);
  setrlimit(RLIMIT_NOFILE, &saved);
  auto cpu = [](const rusage& r) {
    return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  };
  const double used = cpu(after) - cpu(before);
  CHECK_MSG(used < 0.5, "%.2f s of CPU in 1 s at the descriptor limit", used);
  int status = 0;
  waitpid(child, &status, 0);
  // Descriptors are back: a new connection gets the usual treatment.
  const int probe = tcp_connect(s.tcp_port);
  int waited = 0;
  const TcpEnd end = tcp_wait_end(probe, 3000, &waited);
  CHECK_MSG(end == TcpEnd::kFin && waited >= 300 && waited <= 1500, "after the limit: end=%d after %d ms", int(end),
            waited);
  ::close(probe);
}

const TestCase kTests[] = {
    {"handshake-and-data", test_handshake_and_data},
    {"rekey-without-loss", test_rekey_without_loss},
    {"peer-updates-during-sweep", test_peer_updates_during_sweep},
    {"revocation-cuts-sessions-and-tcp", test_revocation_cuts_sessions_and_tcp},
    {"tcp-probe-reaction", test_tcp_probe_reaction},
    {"replay-after-peer-update", test_replay_after_peer_update},
    {"slow-tcp-client", test_slow_tcp_client},
    {"handshake-flood", test_handshake_flood},
    {"dead-thread-reports-failed", test_dead_thread_reports_failed},
    {"unanswered-handshakes-warn", test_unanswered_handshakes_warn},
    {"peer-updates-and-stats", test_peer_updates_and_stats},
    {"tcp-limit-reaction", test_tcp_limit_reaction},
    {"padding-and-jitter", test_padding_and_jitter},
    {"accept-at-fd-limit", test_accept_at_fd_limit},
};

}  // namespace

int main(int argc, char** argv) {
  return kit::run_tests("engine-test", kTests, sizeof kTests / sizeof kTests[0], argc, argv);
}

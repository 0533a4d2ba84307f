// The client's "transport" event: a real client engine over TCP and over TLS, on loopback, against a port nobody
// listens on, a listener whose queue is full, listeners that read the first flight and then reset, close or hold
// the connection without a word (what a censor makes a node look like), and a real node. Each attempt reports
// once what it ran into; the retries go on as before.
// Usage: stream-outcome-test [name substrings...]
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine-kit.h"

namespace {

using namespace kit;
using ferry::Event;

bool is_transport(const Event& e) { return e.type == "transport"; }

// A listener on 127.0.0.1 that reads each connection's first flight (until 150 ms pass without a byte) and then
// does `act` to it.
class FakeNode {
 public:
  enum class Act { kReset, kClose, kHold };
  explicit FakeNode(Act act) : act_(act) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0 || listen(fd_, 16) < 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) < 0) {
      std::perror("FakeNode");
      std::abort();
    }
    port = ntohs(a.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~FakeNode() {
    stop_ = true;
    thread_.join();
    for (int h : held_) ::close(h);
    ::close(fd_);
  }
  uint16_t port = 0;
  // Bytes of the first flight that each connection brought before the act.
  std::vector<size_t> flights() {
    std::lock_guard<std::mutex> lock(mu_);
    return flights_;
  }

 private:
  void run() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      size_t got = 0;
      for (int64_t quiet_until = now_ms() + 2000; now_ms() < quiet_until && !stop_;) {
        pollfd q{c, POLLIN, 0};
        if (poll(&q, 1, 20) <= 0) continue;
        uint8_t buf[4096];
        const ssize_t n = recv(c, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        got += size_t(n);
        quiet_until = now_ms() + 150;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        flights_.push_back(got);
      }
      if (act_ == Act::kHold) {
        held_.push_back(c);
        continue;
      }
      if (act_ == Act::kReset) {
        const linger hard{1, 0};  // close() then sends a RST instead of a FIN
        setsockopt(c, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
      }
      ::close(c);
    }
  }

  const Act act_;
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<size_t> flights_;  // guarded by mu_
  std::vector<int> held_;        // the listener thread's, then the destructor's
  std::thread thread_;
};

// The two clients of a case, over TCP and over TLS, to the same port (the node's key is one nobody holds).
struct Pair {
  Node clients[2];
  static const char* name(int i) { return i == 0 ? "tcp" : "tls"; }
};

Pair start_pair(uint16_t port) {
  Server nobody;
  nobody.pub = ferry::x25519_public_from_private(ferry::x25519_generate_private());
  Pair p;
  for (int i = 0; i < 2; ++i) {
    ClientOptions co;
    co.tcp = true;
    co.tls = i == 1;
    co.port = port;
    p.clients[i] = start_client(nobody, make_peer(std::string("c") + Pair::name(i), "10.99.0.2"), co);
  }
  return p;
}

// Each client's first transport event within timeout_ms says `outcome` for its own transport; the event carries
// nothing else (no address, port or time: every other field is empty).
void expect_first(Pair& p, const char* outcome, int timeout_ms) {
  for (int i = 0; i < 2; ++i) {
    Node& c = p.clients[i];
    CHECK_MSG(c.events->wait_for(is_transport, timeout_ms), "%s: no transport event", Pair::name(i));
    for (const Event& e : c.events->snapshot()) {
      if (!is_transport(e)) continue;
      CHECK_MSG(e.transport == Pair::name(i) && e.outcome == outcome, "%s: %s over %s, expected %s", Pair::name(i),
                e.outcome.c_str(), e.transport.c_str(), outcome);
      CHECK(e.state.empty() && e.message.empty() && e.code.empty() && e.cipher.empty() && e.peer.empty() &&
            e.rtt_ms == 0);
      break;
    }
  }
}

// Attempts go on once a second, each reported once: over `window_ms` from the first report, between `lo` and
// `hi` reports, all saying `outcome`.
void expect_rate(Pair& p, const char* outcome, int window_ms, size_t lo, size_t hi) {
  sleep_ms(window_ms);
  for (int i = 0; i < 2; ++i) {
    const size_t all = p.clients[i].events->count(is_transport);
    const size_t same =
        p.clients[i].events->count([&](const Event& e) { return is_transport(e) && e.outcome == outcome; });
    CHECK_MSG(all >= lo && all <= hi && same == all, "%s: %zu reports (%zu %s) in %d ms", Pair::name(i), all, same,
              outcome, window_ms);
  }
}

void test_refused() {
  Pair p = start_pair(free_port(true));
  expect_first(p, "refused", 2000);
  expect_rate(p, "refused", 2500, 2, 4);
}

// A listener whose accept queue is full drops the SYN (as a censor's drop rule does): no answer within 3 s.
void test_connect_timeout() {
  const int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  CHECK(bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(l, 0) == 0 &&
        getsockname(l, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  const uint16_t port = ntohs(a.sin_port);
  int fill[3];
  for (int& f : fill) {
    f = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    connect(f, reinterpret_cast<sockaddr*>(&a), sizeof a);
    sleep_ms(50);
  }
  const int64_t start = now_ms();
  Pair p = start_pair(port);
  expect_first(p, "connect-timeout", 5000);
  CHECK_MSG(now_ms() - start >= 2900, "connect-timeout after %lld ms", static_cast<long long>(now_ms() - start));
  for (auto& c : p.clients) c.close();
  for (int f : fill) ::close(f);
  ::close(l);
}

// The first flight goes out whole, then a RST (a censor's answer to a hello or a first packet).
void test_reset_after_first_flight() {
  FakeNode node(FakeNode::Act::kReset);
  Pair p = start_pair(node.port);
  expect_first(p, "reset", 3000);
  for (size_t got : node.flights()) CHECK_MSG(got > 0, "a connection was reset before its first flight");
  expect_rate(p, "reset", 2500, 2, 5);
}

void test_closed_after_first_flight() {
  FakeNode node(FakeNode::Act::kClose);
  Pair p = start_pair(node.port);
  expect_first(p, "closed", 3000);
  expect_rate(p, "closed", 2500, 2, 5);
}

// Read and never answered: the handshake timeout (5 s) ends the attempt, reported once, then the next one starts.
void test_silent() {
  FakeNode node(FakeNode::Act::kHold);
  Pair p = start_pair(node.port);
  sleep_ms(4000);
  for (auto& c : p.clients) CHECK(c.events->count(is_transport) == 0);
  expect_first(p, "silent", 3000);
  CHECK(node.flights().size() >= 2);
}

// A real node: "answered" once per client, before "connected"; nothing more while the connection lives (rekeys
// included); a UDP client reports no transport event.
void test_answered() {
  Peer tcp = make_peer("ctcp", "10.99.0.2"), tls = make_peer("ctls", "10.99.0.3"), udp = make_peer("cudp", "10.99.0.4");
  ServerOptions so;
  so.peers = {tcp, tls, udp};
  so.tls = true;
  Server s = start_server(so);
  Node clients[3];
  for (int i = 0; i < 3; ++i) {
    ClientOptions co;
    co.tcp = i == 0;
    co.tls = i == 1;
    co.rekey_seconds = 1;
    clients[i] = start_client(s, i == 0 ? tcp : i == 1 ? tls : udp, co);
  }
  for (auto& c : clients) CHECK(wait_connected(c));
  sleep_ms(2500);
  for (int i = 0; i < 2; ++i) {
    const auto events = clients[i].events->snapshot();
    int answered = -1, connected = -1, others = 0;
    for (size_t k = 0; k < events.size(); ++k) {
      if (is_transport(events[k]) && events[k].outcome == "answered" && answered < 0) {
        answered = int(k);
        CHECK(events[k].transport == Pair::name(i));
      } else if (is_transport(events[k])) {
        ++others;
      }
      if (events[k].type == "state" && events[k].state == "connected" && connected < 0) connected = int(k);
    }
    CHECK_MSG(answered >= 0 && answered < connected && others == 0, "%s: answered at %d, connected at %d, %d more",
              Pair::name(i), answered, connected, others);
    CHECK(clients[i].events->count([](const Event& e) { return e.type == "rekey"; }) >= 1);
  }
  CHECK(clients[2].events->count(is_transport) == 0);
}

const TestCase kTests[] = {
    {"refused", test_refused},
    {"connect-timeout", test_connect_timeout},
    {"reset-after-first-flight", test_reset_after_first_flight},
    {"closed-after-first-flight", test_closed_after_first_flight},
    {"silent", test_silent},
    {"answered", test_answered},
};

}  // namespace

int main(int argc, char** argv) {
  return kit::run_tests("stream-outcome-test", kTests, sizeof kTests / sizeof kTests[0], argc, argv);
}

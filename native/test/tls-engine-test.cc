// The TLS transport end to end in one process: a real client and server engine over loopback carry packets
// inside TLS records; strangers (random bytes, an HTTP request, a real OpenSSL ClientHello, a replayed authentic
// first flight, silence, a hello cut short) get no byte from the engine and are handed over with exactly what
// they sent, on a connection that still works, as is a connection over the limits; without a taker they are
// closed.
// Usage: tls-engine-test [name substrings...]
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "../src/core/tls-hello.h"
#include "../src/core/tls-template.h"
#include "engine-kit.h"
#include "hello-templates.h"

namespace {

using namespace kit;

// What the engine handed over, collected from its network thread.
struct Strangers {
  std::mutex mu;
  std::vector<std::pair<int, Bytes>> got;
  std::function<void(int, std::vector<uint8_t>)> taker() {
    return [this](int fd, std::vector<uint8_t> head) {
      std::lock_guard<std::mutex> lock(mu);
      got.emplace_back(fd, std::move(head));
    };
  }
  // Waits for the n-th hand-over; its fd (or -1) and head.
  bool wait(size_t n, int timeout_ms, int& fd, Bytes& head) {
    const int64_t end = now_ms() + timeout_ms;
    while (now_ms() < end) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (got.size() > n) {
          fd = got[n].first;
          head = got[n].second;
          return true;
        }
      }
      sleep_ms(10);
    }
    return false;
  }
  ~Strangers() {
    for (auto& g : got) ::close(g.first);
  }
};

void send_all(int fd, const Bytes& b) {
  size_t off = 0;
  while (off < b.size()) {
    const ssize_t n = send(fd, b.data() + off, b.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Bytes that arrive within timeout_ms (stops early at EOF or when `want` bytes are there).
Bytes read_for(int fd, int timeout_ms, size_t want = 1 << 20) {
  Bytes out;
  const int64_t end = now_ms() + timeout_ms;
  while (out.size() < want) {
    const int64_t left = end - now_ms();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, int(left)) <= 0) break;
    uint8_t buf[4096];
    const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    out.insert(out.end(), buf, buf + n);
  }
  return out;
}

ferry::HelloTemplate chrome_like() {
  ferry::HelloTemplate t;
  std::string error;
  ferry::parse_hello_template(test_templates::kChromeLike, t, error);
  return t;
}

// A ClientHello from a real OpenSSL client (libssl, TLS 1.2-1.3, SNI set), as bytes.
Bytes openssl_client_hello() {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  BIO* rbio = BIO_new(BIO_s_mem());
  BIO* wbio = BIO_new(BIO_s_mem());
  SSL_set_bio(ssl, rbio, wbio);
  SSL_set_tlsext_host_name(ssl, kTlsServerName);
  SSL_connect(ssl);  // writes the hello into wbio, then wants to read
  Bytes out(size_t(BIO_ctrl_pending(wbio)));
  BIO_read(wbio, out.data(), int(out.size()));
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  return out;
}

void test_tls_handshake_and_data() {
  Peer a = make_peer("a", "10.99.0.2");
  ServerOptions so;
  so.peers = {a};
  so.tls = true;
  Server s = start_server(so);
  ClientOptions co;
  co.tls = true;
  Node c = start_client(s, a, co);
  CHECK(wait_connected(c));
  int ok = 0;
  for (int i = 0; i < 50; ++i) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
  CHECK_MSG(ok == 50, "%d of 50 round trips", ok);
  // A burst of large packets: coalesced into full records by the writer, reassembled by the reader.
  const int n = 400;
  for (int i = 0; i < n; ++i) c.send(udp_packet(a.address, ip4("10.99.0.1"), 1000000 + uint64_t(i), 1300));
  int got = 0;
  while (got < n && s.receive([](const Bytes& p) { return packet_tag(p) >= 1000000; }, 3000)) ++got;
  CHECK_MSG(got == n, "%d of %d burst packets", got, n);
  c.close();
  s.close();
}

// One prober: what it sends (then, if close_after, a half-close), and what it must get.
void probe(Server& s, Strangers& st, size_t index, const Bytes& sent, bool close_after, const char* what) {
  const int fd = tcp_connect(s.tls_port);
  CHECK(fd >= 0);
  send_all(fd, sent);
  if (close_after) shutdown(fd, SHUT_WR);
  int handed = -1;
  Bytes head;
  CHECK_MSG(st.wait(index, 3000, handed, head), "%s: not handed over", what);
  // The engine stops reading as soon as it has decided: what it read and what the connection still holds are
  // exactly what was sent (the taker forwards both to the cover site).
  Bytes all = head;
  if (handed >= 0) {
    const Bytes rest = read_for(handed, 300, sent.size() - std::min(sent.size(), head.size()));
    all.insert(all.end(), rest.begin(), rest.end());
  }
  CHECK_MSG(all == sent, "%s: handed over %zu + left %zu bytes, sent %zu", what, head.size(), all.size() - head.size(),
            sent.size());
  // The connection is intact and the engine wrote nothing: the prober's first bytes are the taker's.
  const std::string cover = "HTTP/1.1 400 Bad Request\r\n\r\n";
  if (handed >= 0) send_all(handed, Bytes(cover.begin(), cover.end()));
  const Bytes answer = read_for(fd, 1000, cover.size());
  CHECK_MSG(answer == Bytes(cover.begin(), cover.end()), "%s: the prober got %zu other bytes", what, answer.size());
  ::close(fd);
}

// A server with a TLS listener whose strangers go to st.
Server tls_server(Strangers& st, int auth_timeout_ms, int pending_per_source = 64) {
  ServerOptions so;
  so.peers = {make_peer("a", "10.99.0.2")};
  so.tls = true;
  so.tcp_auth_timeout_ms = auth_timeout_ms;
  so.tcp_pending_per_source = pending_per_source;
  so.on_stranger = st.taker();
  return start_server(so);
}

void test_tls_strangers_handed_over() {
  Strangers st;
  Server s = tls_server(st, 500);
  size_t i = 0;
  Bytes random(300);
  ferry::random_bytes(random.data(), random.size());
  random[0] = 0x17;  // not a handshake record
  probe(s, st, i++, random, false, "random bytes");
  const std::string http = "GET / HTTP/1.1\r\nHost: www.example.com\r\n\r\n";
  probe(s, st, i++, Bytes(http.begin(), http.begin() + 1), false, "an HTTP request");  // decided at 'G'
  probe(s, st, i++, openssl_client_hello(), false, "an OpenSSL ClientHello");
  // A Chrome-shaped hello for another node's key.
  ferry::SystemBytes rnd;
  std::array<uint8_t, 32> cr;
  const Bytes other = ferry::build_client_hello(chrome_like(), kTlsServerName,
                                                ferry::x25519_public_from_private(ferry::x25519_generate_private()),
                                                uint32_t(time(nullptr)), rnd, cr);
  probe(s, st, i++, other, false, "a hello for another key");
  // An authentic first flight is answered with a ServerHello flight; the same bytes again are a stranger's.
  const Bytes authentic =
      ferry::build_client_hello(chrome_like(), kTlsServerName, s.pub, uint32_t(time(nullptr)), rnd, cr);
  const int fd = tcp_connect(s.tls_port);
  send_all(fd, authentic);
  const Bytes flight = read_for(fd, 1000, 5 + 122 + 6 + 5 + ferry::kTlsServerFlightMin);
  CHECK(flight.size() >= 5 + 122 + 6 && flight[0] == 22 && flight[5] == 2);
  CHECK(flight.size() > 44 + 32 && std::memcmp(flight.data() + 44, authentic.data() + 44, 32) == 0);
  probe(s, st, i++, authentic, false, "a replayed authentic hello");
  ::close(fd);
  // A hello cut short and closed, and silence until the timeout.
  probe(s, st, i++, Bytes(authentic.begin(), authentic.begin() + 700), true, "a hello cut short");
  probe(s, st, i++, Bytes(), false, "silence");
  s.close();
}

// Past the limit of unauthenticated connections per source, a new connection on the TLS port is handed over
// at once and unread (the cover site answers it, as it answers every stranger), not closed by the node.
void test_tls_over_limit_handed_over() {
  Strangers st;
  Server s = tls_server(st, 5000, 2);
  const int held[2] = {tcp_connect(s.tls_port), tcp_connect(s.tls_port)};
  sleep_ms(100);
  const int64_t start = now_ms();
  const int fd = tcp_connect(s.tls_port);
  send_all(fd, {22, 3, 1});
  int handed = -1;
  Bytes head;
  CHECK(st.wait(0, 2000, handed, head));
  CHECK_MSG(now_ms() - start < 1500, "handed over after %lld ms", static_cast<long long>(now_ms() - start));
  CHECK(head.empty());
  CHECK(read_for(handed, 500, 3) == Bytes({22, 3, 1}));
  for (int h : held) ::close(h);
  ::close(fd);
  s.close();
}

void test_tls_strangers_closed_without_taker() {
  Peer a = make_peer("a", "10.99.0.2");
  ServerOptions so;
  so.peers = {a};
  so.tls = true;
  so.tcp_auth_timeout_ms = 400;
  Server s = start_server(so);
  const int fd = tcp_connect(s.tls_port);
  const std::string http = "GET / HTTP/1.1\r\n\r\n";
  send_all(fd, Bytes(http.begin(), http.end()));
  const Bytes answer = read_for(fd, 2000);
  CHECK(answer.empty());
  int waited = 0;
  CHECK(tcp_wait_end(fd, 2000, &waited) != TcpEnd::kOpen);
  ::close(fd);
  // The engine's TLS port still serves clients.
  ClientOptions co;
  co.tls = true;
  Node c = start_client(s, a, co);
  CHECK(wait_connected(c));
  CHECK(round_trip(c, s, a, 2000) >= 0);
  c.close();
  s.close();
}

// The chosen path of a client, from its "path" event ("" before one).
std::string path_of(Node& c, int timeout_ms) {
  std::string path;
  c.events->wait_for(
      [&](const ferry::Event& e) {
        if (e.type != "path") return false;
        path = e.transport;
        return true;
      },
      timeout_ms);
  return path;
}

// A server with UDP and a TLS listener for peer a, its strangers going to st.
Server race_server(Strangers& st, const Peer& a) {
  ServerOptions so;
  so.peers = {a};
  so.tls = true;
  so.on_stranger = st.taker();
  return start_server(so);
}

// A race where UDP gets through: UDP answers within its head start, and the stream is never opened (nothing of
// it on the wire: no connection reaches the TLS port).
void test_race_udp_wins() {
  Strangers st;
  const Peer a = make_peer("a", "10.99.0.2");
  Server s = race_server(st, a);
  ClientOptions co;
  co.tls = true;
  co.race_udp = s.udp_port;
  Node c = start_client(s, a, co);
  CHECK(wait_connected(c));
  CHECK(path_of(c, 1000) == "udp");
  int ok = 0;
  for (int i = 0; i < 20; ++i) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
  CHECK_MSG(ok == 20, "%d of 20 round trips over UDP", ok);
  sleep_ms(500);
  CHECK(c.events->count([](const ferry::Event& e) { return e.type == "transport"; }) == 0);
  int fd = -1;
  Bytes head;
  CHECK(!st.wait(0, 100, fd, head));
  c.close();
  s.close();
}

// A race where UDP goes unanswered (a port that swallows datagrams): the stream starts after UDP's head start,
// carries the same initiation, and its answer picks TLS.
void test_race_tls_wins_when_udp_is_dropped() {
  Strangers st;
  const Peer a = make_peer("a", "10.99.0.2");
  Server s = race_server(st, a);
  const int sink = socket(AF_INET, SOCK_DGRAM, 0);  // bound, never read: no ICMP, no answer
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof sa;
  CHECK(bind(sink, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0);
  CHECK(getsockname(sink, reinterpret_cast<sockaddr*>(&sa), &len) == 0);
  ClientOptions co;
  co.tls = true;
  co.race_udp = ntohs(sa.sin_port);
  const int64_t t0 = now_ms();
  Node c = start_client(s, a, co);
  CHECK(wait_connected(c));
  const int64_t took = now_ms() - t0;
  CHECK(path_of(c, 1000) == "tls");
  // UDP's head start, then the TLS flight: well within the seconds a ladder would have given UDP alone.
  CHECK_MSG(took >= 200 && took < 2000, "connected after %lld ms", (long long)took);
  int ok = 0;
  for (int i = 0; i < 20; ++i) ok += round_trip(c, s, a, 2000) >= 0 ? 1 : 0;
  CHECK_MSG(ok == 20, "%d of 20 round trips over TLS", ok);
  c.close();
  s.close();
  ::close(sink);
}

const TestCase kTests[] = {
    {"race-udp-wins", test_race_udp_wins},
    {"race-tls-wins-when-udp-is-dropped", test_race_tls_wins_when_udp_is_dropped},
    {"tls-handshake-and-data", test_tls_handshake_and_data},
    {"tls-strangers-handed-over", test_tls_strangers_handed_over},
    {"tls-over-limit-handed-over", test_tls_over_limit_handed_over},
    {"tls-strangers-closed-without-taker", test_tls_strangers_closed_without_taker},
};

}  // namespace

int main(int argc, char** argv) {
  return kit::run_tests("tls-engine-test", kTests, sizeof kTests / sizeof kTests[0], argc, argv);
}

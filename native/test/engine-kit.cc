// Test kit implementation: engines on PacketPipes, IP packets, loopback sockets, protocol-level clients.
#include "engine-kit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>
#include <utility>

#include "../src/core/protocol.h"
#include "../src/core/tcp-framing.h"
#include "../src/core/tun.h"
#include "hello-templates.h"

namespace kit {

int g_failures = 0;
int g_checks = 0;

int run_tests(const char* program, const TestCase* tests, size_t count, int argc, char** argv) {
  int failed_tests = 0, ran = 0;
  for (size_t k = 0; k < count; ++k) {
    const TestCase& t = tests[k];
    bool selected = argc < 2;
    for (int i = 1; i < argc; ++i) selected = selected || std::strstr(t.name, argv[i]) != nullptr;
    if (!selected) continue;
    const int before = g_failures;
    const int64_t start = now_ms();
    std::fprintf(stderr, "%s: %s ...\n", program, t.name);
    t.fn();
    ++ran;
    const bool ok = g_failures == before;
    failed_tests += ok ? 0 : 1;
    std::fprintf(stderr, "%s: %s %s (%.1f s)\n", program, t.name, ok ? "ok" : "FAILED", (now_ms() - start) / 1000.0);
  }
  std::printf("%s: %d tests, %d failed, %d checks\n", program, ran, failed_tests, g_checks);
  return failed_tests == 0 && ran > 0 ? 0 : 1;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

uint32_t ip4(const char* dotted) {
  in_addr a{};
  inet_pton(AF_INET, dotted, &a);
  return ntohl(a.s_addr);
}

static void put16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
static void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}

Bytes udp_packet(uint32_t src, uint32_t dst, uint64_t tag, size_t payload_len) {
  if (payload_len < 8) payload_len = 8;
  Bytes p(20 + 8 + payload_len, 0);
  p[0] = 0x45;
  put16(&p[2], uint16_t(p.size()));
  p[8] = 64;
  p[9] = 17;
  put32(&p[12], src);
  put32(&p[16], dst);
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += uint32_t(p[i]) << 8 | p[i + 1];
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  put16(&p[10], uint16_t(~sum));
  put16(&p[20], 40000);
  put16(&p[22], 40001);
  put16(&p[24], uint16_t(8 + payload_len));  // UDP checksum 0: none (IPv4 allows it)
  for (int i = 0; i < 8; ++i) p[28 + i] = uint8_t(tag >> (56 - 8 * i));
  for (size_t i = 8; i < payload_len; ++i) p[28 + i] = uint8_t(i);
  return p;
}

uint64_t packet_tag(const Bytes& p) {
  if (p.size() < 36 || (p[0] >> 4) != 4 || p[9] != 17) return 0;
  uint64_t t = 0;
  for (int i = 0; i < 8; ++i) t = t << 8 | p[28 + i];
  return t;
}
uint32_t packet_src(const Bytes& p) {
  return p.size() < 20 ? 0 : uint32_t(p[12]) << 24 | uint32_t(p[13]) << 16 | uint32_t(p[14]) << 8 | p[15];
}
uint32_t packet_dst(const Bytes& p) {
  return p.size() < 20 ? 0 : uint32_t(p[16]) << 24 | uint32_t(p[17]) << 16 | uint32_t(p[18]) << 8 | p[19];
}

uint16_t free_port(bool tcp) {
  int fd = socket(AF_INET, tcp ? SOCK_STREAM : SOCK_DGRAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) < 0) {
    std::perror("free_port");
    std::abort();
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

void raise_fd_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

void Recorder::emit(const ferry::Event& e) noexcept {
  try {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(e);
  } catch (...) {
    return;
  }
  cv_.notify_all();
}

bool Recorder::wait_for(const std::function<bool(const ferry::Event&)>& pred, int timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  size_t seen = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    for (; seen < events_.size(); ++seen)
      if (pred(events_[seen])) return true;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
      for (; seen < events_.size(); ++seen)
        if (pred(events_[seen])) return true;
      return false;
    }
  }
}

size_t Recorder::count(const std::function<bool(const ferry::Event&)>& pred) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (auto& e : events_) n += pred(e) ? 1 : 0;
  return n;
}

std::vector<ferry::Event> Recorder::snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  return events_;
}

Node::~Node() { close(); }

Node& Node::operator=(Node&& o) noexcept {
  if (this == &o) return *this;
  close();
  tunnel = std::move(o.tunnel);
  events = std::move(o.events);
  pipe = std::exchange(o.pipe, -1);
  priv = o.priv;
  pub = o.pub;
  return *this;
}

void Node::close() {
  if (tunnel) tunnel->close();
  tunnel.reset();
  if (pipe >= 0) ::close(pipe);
  pipe = -1;
}

void Node::send(const Bytes& pkt) {
  // The pipe's buffer is large; a full one means the engine is not reading: wait a little, then give up.
  for (int i = 0; i < 100; ++i) {
    if (::send(pipe, pkt.data(), pkt.size(), MSG_DONTWAIT) >= 0) return;
    if (errno != EAGAIN) return;
    sleep_ms(1);
  }
}

bool Node::receive(const std::function<bool(const Bytes&)>& pred, int timeout_ms, Bytes* out) {
  const int64_t deadline = now_ms() + timeout_ms;
  uint8_t buf[65536];
  for (;;) {
    const int64_t left = deadline - now_ms();
    if (left <= 0) return false;
    pollfd p{pipe, POLLIN, 0};
    if (poll(&p, 1, int(left)) <= 0) continue;
    ssize_t n = recv(pipe, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) continue;
    Bytes pkt(buf, buf + n);
    if (pred(pkt)) {
      if (out) *out = std::move(pkt);
      return true;
    }
  }
}

ferry::PeerConfig Peer::config() const {
  ferry::PeerConfig c;
  c.public_key = pub;
  c.address_v4 = address;
  c.id = id;
  return c;
}

Peer make_peer(const std::string& id, const char* address) {
  Peer p;
  p.id = id;
  p.priv = ferry::x25519_generate_private();
  p.pub = ferry::x25519_public_from_private(p.priv);
  p.address = ip4(address);
  return p;
}

static int take_pipe(ferry::PacketPipe& p) { return p.release_peer(); }

// Starts the server engine on s's ports (throws when one cannot be bound).
static void start_server_on(Server& s, const ServerOptions& o);

Server start_server(const ServerOptions& o) {
  Server s;
  s.priv = ferry::x25519_generate_private();
  s.pub = ferry::x25519_public_from_private(s.priv);
  // A free port may be taken again before the server binds it (free_port closes its probe): a
  // start that meets "Address already in use" tries fresh ports, a few times. (Seen in CI: the
  // TLS listener's port was the TCP listener's.)
  for (int attempt = 1;; ++attempt) {
    s.udp_port = free_port(false);
    s.tcp_port = o.tcp ? free_port(true) : 0;
    s.tls_port = o.tls ? free_port(true) : 0;
    // Two probes in a row may be given the same port: TCP's and TLS's listeners need two.
    while (o.tls && o.tcp && s.tls_port == s.tcp_port) s.tls_port = free_port(true);
    try {
      start_server_on(s, o);
      return s;
    } catch (const std::runtime_error& e) {
      if (attempt >= 5 || std::strstr(e.what(), "already in use") == nullptr) throw;
      if (s.pipe >= 0) ::close(s.pipe);  // the failed start's pipe end
      s.pipe = -1;
    }
  }
}

static void start_server_on(Server& s, const ServerOptions& o) {
  ferry::ServerConfig c;
  c.interface_name = "pipe-server";
  c.private_key = s.priv;
  c.listen_host = "127.0.0.1";
  c.listen_port = s.udp_port;
  if (o.tcp) {
    c.tcp_listen_host = "127.0.0.1";
    c.tcp_listen_port = s.tcp_port;
  }
  if (o.tls) {
    c.tls_listen_host = "127.0.0.1";
    c.tls_listen_port = s.tls_port;
    c.on_stranger = o.on_stranger;
  }
  c.tcp_auth_timeout_ms = o.tcp_auth_timeout_ms;
  c.tcp_max_authenticated = o.tcp_max_authenticated;
  c.tcp_pending_per_source = o.tcp_pending_per_source;
  c.offload = false;
  for (auto& p : o.peers) c.peers.push_back(p.config());
  auto pipe = std::make_unique<ferry::PacketPipe>("pipe-server");
  s.pipe = take_pipe(*pipe);
  s.events = std::make_shared<Recorder>();
  s.tunnel = ferry::start_server(c, std::move(pipe), s.events);
}

Node start_client(const Server& s, const Peer& me, const ClientOptions& o) {
  Node n;
  n.priv = me.priv;
  n.pub = me.pub;
  ferry::ClientConfig c;
  c.interface_name = "pipe-" + me.id;
  c.private_key = me.priv;
  c.server_host = "127.0.0.1";
  c.server_port = o.port ? o.port : o.tls ? s.tls_port : o.tcp ? s.tcp_port : s.udp_port;
  c.server_public = s.pub;
  c.cipher = o.cipher;
  c.rekey_seconds = o.rekey_seconds;
  c.keepalive_seconds = o.keepalive_seconds;
  c.offload = false;
  c.tcp = o.tcp || o.tls;
  c.tls = o.tls;
  c.tls_server_name = kTlsServerName;
  c.tls_hello = test_templates::kChromeLike;
  c.race_udp_port = o.race_udp;
  auto pipe = std::make_unique<ferry::PacketPipe>(c.interface_name);
  n.pipe = take_pipe(*pipe);
  n.events = std::make_shared<Recorder>();
  n.tunnel = ferry::start_client(c, std::move(pipe), n.events);
  return n;
}

bool wait_connected(Node& client, int timeout_ms) {
  return client.events->wait_for([](const ferry::Event& e) { return e.type == "state" && e.state == "connected"; },
                                 timeout_ms);
}

double round_trip(Node& client, Server& server, const Peer& me, int timeout_ms) {
  static std::atomic<uint64_t> next_tag{1};
  const uint64_t tag = next_tag.fetch_add(1);
  const uint32_t far = ip4("10.99.0.1");
  const auto start = std::chrono::steady_clock::now();
  client.send(udp_packet(me.address, far, tag));
  if (!server.receive([&](const Bytes& p) { return packet_tag(p) == tag && packet_src(p) == me.address; }, timeout_ms))
    return -1;
  server.send(udp_packet(far, me.address, tag | (uint64_t{1} << 63)));
  if (!client.receive([&](const Bytes& p) { return packet_tag(p) == (tag | (uint64_t{1} << 63)); }, timeout_ms))
    return -1;
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

WireTap::WireTap(uint16_t server_port) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) < 0)
    std::abort();
  port_ = ntohs(a.sin_port);
  up_ = udp_socket_to(server_port);
  int sz = 4 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz);
  setsockopt(up_, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof sz);
  thread_ = std::thread([this] { run(); });
}

WireTap::~WireTap() {
  stop_ = true;
  thread_.join();
  ::close(fd_);
  ::close(up_);
}

std::vector<WireTap::Datagram> WireTap::seen() {
  std::lock_guard<std::mutex> lock(mu_);
  return seen_;
}

void WireTap::run() {
  sockaddr_in client{};
  socklen_t client_len = 0;
  uint8_t buf[65536];
  while (!stop_.load()) {
    pollfd p[2] = {{fd_, POLLIN, 0}, {up_, POLLIN, 0}};
    if (poll(p, 2, 50) <= 0) continue;
    if (p[0].revents & POLLIN) {
      sockaddr_in from{};
      socklen_t fl = sizeof from;
      ssize_t n = recvfrom(fd_, buf, sizeof buf, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), &fl);
      if (n > 0) {
        client = from;
        client_len = fl;
        send(up_, buf, size_t(n), MSG_DONTWAIT);
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back({now_ms(), size_t(n), true});
      }
    }
    if (p[1].revents & POLLIN) {
      ssize_t n = recv(up_, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0 && client_len) {
        sendto(fd_, buf, size_t(n), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&client), client_len);
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back({now_ms(), size_t(n), false});
      }
    }
  }
}

static int64_t system_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

RawInit make_init(const Peer& me, const Key32& server_pub, int64_t skew_ms) {
  ferry::Masker m(ferry::derive_handshake_mask_key(server_pub));
  ferry::Mac16 mac1(ferry::derive_mac1_key(server_pub));
  uint32_t index = 0;
  ferry::random_bytes(reinterpret_cast<uint8_t*>(&index), sizeof index);
  ferry::InitParams p{ferry::x25519_generate_private(), index, uint64_t(system_ms() + skew_ms),
                      ferry::Cipher::kAes256Gcm, 5};
  RawInit out;
  out.message.resize(ferry::kInitMaxLen);
  size_t len = ferry::write_init(me.priv, me.pub, server_pub, m, mac1, p, out.state, out.message.data());
  out.message.resize(len);
  return out;
}

Bytes make_bogus_init(const Key32& server_pub) {
  // What an attacker who read the node's public key can make for the price of an HMAC: random content
  // with a valid header and mac1, so that it passes every cheap check and costs the node public-key work.
  ferry::Masker m(ferry::derive_handshake_mask_key(server_pub));
  ferry::Mac16 mac1(ferry::derive_mac1_key(server_pub));
  Bytes b(ferry::kInitMinLen + 20);
  ferry::random_bytes(b.data(), b.size());
  b[0] = uint8_t(ferry::MsgType::kInit);
  b[1] = b[2] = b[3] = 0;
  for (int i = 8; i < 16; ++i) b[i] = 0;
  mac1.compute(b.data(), b.size() - ferry::kMac1Len, b.data() + b.size() - ferry::kMac1Len);
  uint8_t iv[16];
  std::memcpy(iv, b.data() + b.size() - 16, 16);
  m.apply(iv, b.data(), ferry::kMaskedHandshakePrefix);
  return b;
}

int udp_socket_to(uint16_t port, const char* from) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(ip4(from));
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) std::perror("bind");
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) std::perror("connect");
  return fd;
}

bool udp_answered(int fd, const Bytes& msg, int timeout_ms) {
  uint8_t buf[2048];
  while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0) {
  }
  if (send(fd, msg.data(), msg.size(), 0) < 0) return false;
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, timeout_ms) > 0 && recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0;
}

const char* const kTlsServerName = "www.example.com";

int tcp_connect(uint16_t port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  // Before connect, so that the advertised window is small from the start.
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int tcp_connect_and_init(uint16_t port, const Key32& server_pub, const RawInit& init) {
  int fd = tcp_connect(port);
  if (fd < 0) return -1;
  const std::string pre = ferry::make_preamble();
  ferry::RecordMasks masks(server_pub, reinterpret_cast<const uint8_t*>(pre.data()), pre.size());
  Bytes out(pre.begin(), pre.end());
  uint8_t len[2] = {uint8_t(init.message.size() >> 8), uint8_t(init.message.size())};
  masks.c2s(len);
  out.push_back(len[0]);
  out.push_back(len[1]);
  out.insert(out.end(), init.message.begin(), init.message.end());
  if (send(fd, out.data(), out.size(), MSG_NOSIGNAL) != ssize_t(out.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

static bool read_exact(int fd, uint8_t* p, size_t n, int timeout_ms) {
  const int64_t deadline = now_ms() + timeout_ms;
  size_t got = 0;
  while (got < n) {
    const int64_t left = deadline - now_ms();
    pollfd pf{fd, POLLIN, 0};
    if (left <= 0 || poll(&pf, 1, int(left)) <= 0) return false;
    ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) return false;
    if (r > 0) got += size_t(r);
  }
  return true;
}

RawTcpSession raw_tcp_session(uint16_t port, const Key32& server_pub, const Peer& me, int rcvbuf) {
  RawTcpSession out;
  RawInit init = make_init(me, server_pub);
  int fd = tcp_connect(port, rcvbuf);
  if (fd < 0) return out;
  const std::string pre = ferry::make_preamble();
  ferry::RecordMasks masks(server_pub, reinterpret_cast<const uint8_t*>(pre.data()), pre.size());
  Bytes wire(pre.begin(), pre.end());
  auto add_record = [&](const uint8_t* msg, size_t len) {
    uint8_t l[2] = {uint8_t(len >> 8), uint8_t(len)};
    masks.c2s(l);
    wire.push_back(l[0]);
    wire.push_back(l[1]);
    wire.insert(wire.end(), msg, msg + len);
  };
  add_record(init.message.data(), init.message.size());
  uint8_t l[2];
  uint8_t msg[ferry::kResponseMaxLen];
  ferry::SessionKeys keys;
  ferry::Masker m(ferry::derive_handshake_mask_key(server_pub));
  size_t len = 0;
  bool ok = send(fd, wire.data(), wire.size(), MSG_NOSIGNAL) == ssize_t(wire.size()) && read_exact(fd, l, 2, 3000);
  if (ok) {
    masks.s2c(l);
    len = size_t(l[0]) << 8 | l[1];
    ok = len <= sizeof msg && read_exact(fd, msg, len, 3000) &&
         ferry::unmask_handshake(m, msg, len) == uint8_t(ferry::MsgType::kResponse) &&
         ferry::read_response(init.state, me.priv, msg, len, keys);
  }
  if (ok) {
    // The confirming ping: the server switches to the new session only once it arrives.
    ferry::Aead send_key(keys.cipher, keys.send);
    ferry::Masker hdr(keys.hdr_send);
    uint8_t pkt[ferry::kHeaderLen + 9 + ferry::kTagLen];
    pkt[ferry::kHeaderLen] = ferry::kInnerPing;
    std::memset(pkt + ferry::kHeaderLen + 1, 0, 8);
    const size_t n = ferry::seal_data(send_key, hdr, keys.remote_index, 0, pkt, 9);
    wire.clear();
    add_record(pkt, n);
    ok = n > 0 && send(fd, wire.data(), wire.size(), MSG_NOSIGNAL) == ssize_t(wire.size());
  }
  if (!ok) {
    ::close(fd);
    return out;
  }
  out.fd = fd;
  return out;
}

TcpEnd tcp_wait_end(int fd, int timeout_ms, int* waited_ms) {
  const int64_t start = now_ms();
  uint8_t buf[4096];
  for (;;) {
    const int64_t left = start + timeout_ms - now_ms();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, int(left)) <= 0) continue;
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) continue;  // data from the server (a response): keep waiting for the end
    if (waited_ms) *waited_ms = int(now_ms() - start);
    if (n == 0) return TcpEnd::kFin;
    if (errno == ECONNRESET) return TcpEnd::kReset;
    if (errno == EAGAIN || errno == EINTR) continue;
    return TcpEnd::kReset;
  }
  if (waited_ms) *waited_ms = int(now_ms() - start);
  return TcpEnd::kOpen;
}

}  // namespace kit

// Test kit for the engine tests: real client and server engines in this process, PacketPipes in place of
// TUN devices, loopback UDP/TCP between them, IP packets written and read by the test.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../src/core/crypto.h"
#include "../src/core/protocol.h"
#include "../src/core/tunnel.h"

namespace kit {

using ferry::Key32;
using Bytes = std::vector<uint8_t>;

// ---- the minimal test framework (CHECK counts; a failed check prints and marks the run failed) ----
extern int g_failures;
extern int g_checks;
#define CHECK(cond)                                                        \
  do {                                                                     \
    ++kit::g_checks;                                                       \
    if (!(cond)) {                                                         \
      ++kit::g_failures;                                                   \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)
#define CHECK_MSG(cond, ...)                                               \
  do {                                                                     \
    ++kit::g_checks;                                                       \
    if (!(cond)) {                                                         \
      ++kit::g_failures;                                                   \
      std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fprintf(stderr, "\n");                                          \
    }                                                                      \
  } while (0)

int64_t now_ms();
void sleep_ms(int ms);

// Runs the tests whose names contain one of the arguments (all without arguments), each timed on stderr;
// returns the process exit code.
struct TestCase {
  const char* name;
  void (*fn)();
};
int run_tests(const char* program, const TestCase* tests, size_t count, int argc, char** argv);

// ---- addresses and packets ----
uint32_t ip4(const char* dotted);  // host byte order
// An IPv4/UDP packet with valid header checksum; the payload starts with `tag` (8 bytes, big-endian).
Bytes udp_packet(uint32_t src, uint32_t dst, uint64_t tag, size_t payload_len = 64);
// The tag of a packet made by udp_packet, or 0 when it is not one.
uint64_t packet_tag(const Bytes& pkt);
uint32_t packet_src(const Bytes& pkt);
uint32_t packet_dst(const Bytes& pkt);

// A local port that was free a moment ago (bind to 0, read, close).
uint16_t free_port(bool tcp);

// Raises the soft descriptor limit to the hard one (tests that open a thousand sockets).
void raise_fd_limit();

// ---- events ----
class Recorder final : public ferry::EventSink {
 public:
  void emit(const ferry::Event& e) noexcept override;
  // Waits until pred holds for some event recorded so far (or until timeout); returns whether it did.
  bool wait_for(const std::function<bool(const ferry::Event&)>& pred, int timeout_ms);
  size_t count(const std::function<bool(const ferry::Event&)>& pred);
  std::vector<ferry::Event> snapshot();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<ferry::Event> events_;
};

// ---- one engine with its packet pipe ----
struct Node {
  std::unique_ptr<ferry::Tunnel> tunnel;
  std::shared_ptr<Recorder> events;
  int pipe = -1;  // the test's end of the PacketPipe (owned here)
  Key32 priv{}, pub{};
  ~Node();
  Node() = default;
  // A moved-from node owns nothing (its destructor must not close the pipe or the tunnel it gave away).
  Node(Node&& o) noexcept { *this = std::move(o); }
  Node& operator=(Node&& o) noexcept;

  void send(const Bytes& pkt);
  // Reads packets until one satisfies pred (others are discarded); false on timeout.
  bool receive(const std::function<bool(const Bytes&)>& pred, int timeout_ms, Bytes* out = nullptr);
  void close();
};

struct Peer {
  std::string id;
  Key32 priv{}, pub{};
  uint32_t address = 0;
  ferry::PeerConfig config() const;
};
Peer make_peer(const std::string& id, const char* address);

struct ServerOptions {
  std::vector<Peer> peers;
  bool tcp = true;
  bool tls = false;  // a TLS listener too
  std::function<void(int, std::vector<uint8_t>)> on_stranger = nullptr;
  int tcp_auth_timeout_ms = 10000;
  int tcp_max_authenticated = 16384;
  int tcp_pending_per_source = 64;
};
struct Server : Node {
  uint16_t udp_port = 0, tcp_port = 0, tls_port = 0;
};
Server start_server(const ServerOptions& o);

struct ClientOptions {
  bool tcp = false;
  bool tls = false;  // the TLS transport (to the server's TLS port), with the Chrome-shaped test template
  uint16_t port = 0;  // connect here instead of the server's own port (a WireTap in between)
  uint16_t race_udp = 0;  // over tcp or tls: race a UDP path to this port (ClientConfig::race_udp_port)
  int rekey_seconds = 120;
  int keepalive_seconds = 1;
  ferry::Cipher cipher = ferry::Cipher::kAes256Gcm;
};
Node start_client(const Server& s, const Peer& me, const ClientOptions& o = {});

// Waits for the client's "connected" state.
bool wait_connected(Node& client, int timeout_ms = 5000);

// A packet from the client's tunnel address to 10.99.0.1 arrives at the server's pipe, and the reply
// arrives at the client's pipe. Returns the round-trip time in ms, or -1 when either leg timed out.
double round_trip(Node& client, Server& server, const Peer& me, int timeout_ms);

// ---- a UDP forwarder between a client and the server that records what crosses the wire ----
class WireTap {
 public:
  struct Datagram {
    int64_t at_ms;
    size_t len;
    bool to_server;
  };
  explicit WireTap(uint16_t server_port);
  ~WireTap();
  uint16_t port() const { return port_; }
  std::vector<Datagram> seen();

 private:
  void run();
  int fd_ = -1, up_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<Datagram> seen_;
  std::thread thread_;
};

// ---- a protocol-level client that the test drives byte by byte (captures, replays, misbehaves) ----
struct RawInit {
  Bytes message;  // masked initiation, ready to send
  ferry::InitiatorState state;
};
// A fresh initiation from `me` to the server (timestamp now + skew_ms).
RawInit make_init(const Peer& me, const Key32& server_pub, int64_t skew_ms = 0);
// An initiation-shaped message with random content: what a flooder without a device key sends.
Bytes make_bogus_init(const Key32& server_pub);

// UDP socket bound to 127.0.0.x (x from `host`), connected to the server's UDP port.
int udp_socket_to(uint16_t port, const char* from = "127.0.0.1");
// Sends `msg` and reports whether any datagram comes back within timeout_ms.
bool udp_answered(int fd, const Bytes& msg, int timeout_ms);

// TCP: connects, writes a preamble and the initiation as one record; returns the fd (or -1).
int tcp_connect_and_init(uint16_t port, const Key32& server_pub, const RawInit& init);
int tcp_connect(uint16_t port, int rcvbuf = 0);
// The server name the TLS tests' clients put in their hellos.
extern const char* const kTlsServerName;
// A TCP session driven by the test: preamble, initiation, the response read and a confirming encrypted
// ping sent, so that the server holds an authenticated connection bound to `me`. fd < 0 on failure.
struct RawTcpSession {
  int fd = -1;
};
RawTcpSession raw_tcp_session(uint16_t port, const Key32& server_pub, const Peer& me, int rcvbuf = 0);
// How the server ended a TCP connection after `sent`: waits (bounded) for EOF or reset.
enum class TcpEnd { kFin, kReset, kOpen };
TcpEnd tcp_wait_end(int fd, int timeout_ms, int* waited_ms = nullptr);

}  // namespace kit

// The client engine (one node, one session at a time): client-engine.cc holds the session, the handshakes and the
// timers, client-paths.cc the paths to the node (the UDP socket, the TCP or TLS connection, the race between
// them). Internal to src/core: the rest of the addon makes one with make_client_engine (engines.h).
#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "engine-base.h"
#include "secret.h"
#include "tls-template.h"

namespace ferry {

// The client engine's timings (client-engine.cc and client-paths.cc).
namespace client {

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

}  // namespace client

class ClientEngine final : public EngineBase {
 public:
  ClientEngine(const ClientConfig& cfg, std::unique_ptr<PacketIo> io, std::shared_ptr<EventSink> sink);
  ~ClientEngine() override { close(); }

 private:
  // A UDP socket connected to the node: the kernel passes only the node's datagrams and reports ICMP errors.
  // The routing mark of the tunnel's own sockets (see ClientConfig::fwmark); failing to set it fails the start
  // or the reconnect: without it the encrypted packets could be routed into the tunnel itself.
  void mark(int fd) const;

  int open_udp();

  // The socket's source address went away (roaming, interface change): sends fail until it is reopened.
  void on_send_error(int e) override;

  // Replaces the socket behind udp_fd_ in one step (dup2), so the TUN thread never sees a closed descriptor.
  void reopen_udp(Clock::time_point now);

  bool route(const uint8_t*, size_t, Target& t) override;

  // Whether the tunnel runs over the stream (TCP or TLS), not UDP: a stream transport unless a race chose UDP.
  // The network thread writes udp_path_ under mu_; it reads it without (its own writes), others under mu_.
  bool on_stream() const { return tcp_ && !udp_path_; }

  // The node as a destination: its UDP address, or the live TCP connection.
  Endpoint server_endpoint();

  // The first initiation of a race: over UDP at once; the stream connection follows after the head start.
  void start_race(RandomPool& rng, Clock::time_point now);

  // The initiation a stream connection carries: once, the race's (the same bytes, so that the node answers
  // one of the two copies) while it is unanswered; else a new one (a copy the node refused as a replay would
  // be refused again).
  size_t stream_init(RandomPool& rng, uint8_t* out);

  // A race is decided by the first answer: over UDP the stream is given up, over the stream UDP is.
  void decide_race(bool via_udp);

  TcpConnPtr connection();

  // Opens a TCP connection and queues preamble + initiation before any other thread may write to it (the
  // node insists that the first record is an initiation).
  void tcp_connect(RandomPool& rng);

  // Reports the open connection attempt's outcome (outcome::*), once: the first word about an attempt is what it
  // ran into; what happens later on a connection the node answered is not the attempt's.
  void attempt_ended(const char* what);

  // The node's flight has arrived: change_cipher_spec and Finished, then the initiation, in one send.
  bool tls_finish(TcpConn& c, RandomPool& rng);

  void set_state(const char* state);

  // A random duration in [lo, hi] milliseconds.
  static milliseconds jitter(RandomPool& rng, int64_t lo, int64_t hi);

  size_t build_init(RandomPool& rng, uint8_t* out);

  void send_init(RandomPool& rng);

  void on_response(uint8_t* buf, size_t len, RandomPool& rng, bool via_udp);

  void send_ping(Session& s, RandomPool& rng, Clock::time_point now);

  // A message from the node: a data packet of the current or previous session, or a handshake response.
  // The network thread is the only writer of current_ and previous_ (it publishes them to the TUN thread under
  // mu_), so it reads them here without the lock.
  void dispatch(uint8_t* d, size_t len, RandomPool& rng, bool via_udp);

  void on_data(Session& s, uint8_t* buf, size_t len, RandomPool& rng);

  void timers(RandomPool& rng);

  void net_loop() override;


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

}  // namespace ferry

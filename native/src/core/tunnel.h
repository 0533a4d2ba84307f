// Core tunnel engine API: client and server tunnels with their own data-plane threads and an event sink.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "crypto.h"
#include "tun.h"

namespace ferry {

struct Counters {
  uint64_t tx_packets = 0, tx_bytes = 0, rx_packets = 0, rx_bytes = 0;
  uint64_t dropped = 0;             // every silently dropped datagram or packet (auth, replay, unknown, routing)
  uint64_t replay_dropped = 0;      // subset of dropped: counter already seen or too old
  uint64_t auth_dropped = 0;        // subset of dropped: not a Ferry message or failed authentication
  uint64_t handshakes = 0;          // completed handshakes (including rotations)
  uint64_t handshakes_dropped = 0;  // subset of dropped: initiations over a source's budget or a full queue
};

// Events leave the data-plane threads through this seam. emit() must never block (the napi side
// counts drops when its queue is full) and never throw. Events carry no keys and no addresses.
struct Event {
  std::string type;  // "state" | "rtt" | "counters" | "rekey" | "error" | "peer" | "warning" | "transport" | "path"
  std::string state;    // state: "connecting" | "connected" | "closed" | "failed"; peer: "connected"
  std::string message;  // error and warning text
  std::string code;     // warning: a stable code ("handshake-unanswered")
  std::string cipher;   // rekey: cipher in effect
  double rtt_ms = 0;
  std::string peer;       // server: the peer's id (as given in its PeerConfig)
  std::string transport;  // transport (client, once per TCP/TLS connection attempt): "tcp" | "tls"
  std::string outcome;    // transport: what the attempt ran into (stream-outcome.h)
  Counters counters;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const Event& e) noexcept = 0;
};

struct ClientConfig {
  std::string interface_name;
  std::string address_cidr;
  int mtu = 1420;
  Key32 private_key{};
  std::string server_host;
  uint16_t server_port = 0;
  Key32 server_public{};
  Cipher cipher = Cipher::kAes256Gcm;
  int rekey_seconds = 120;                       // 1..120
  uint64_t rekey_packets = (uint64_t{1} << 32);  // per direction
  int keepalive_seconds = 5;
  bool offload = true;  // TUN TSO + UDP GSO/GRO; off only to measure their effect
  bool tcp = false;     // TCP transport (records, preamble) instead of UDP datagrams
  // TLS transport (tcp must be set too): the Ferry TCP stream inside TLS records after a browser-shaped first
  // flight for tls_server_name, built from tls_hello (the template's line form, native/hello-template.ts).
  bool tls = false;
  std::string tls_server_name;
  std::string tls_hello;
  // Over TCP or TLS: also race a UDP path to this port of the server (0: none). The first initiation goes over
  // UDP at once and the stream connection starts kRaceHeadStart later, carrying the same initiation (the node
  // answers one copy: its replay check refuses the other); the path whose answer arrives carries the tunnel
  // (a "path" event says which) and the other is given up.
  uint16_t race_udp_port = 0;
  int path_mtu = 1500;  // the largest IP packet the path to the server carries (bounds padding)
  // A mark (SO_MARK) on the tunnel's own sockets, so that policy routing can send them around the tunnel
  // when the default route goes into it (0: none). Needs CAP_NET_ADMIN.
  uint32_t fwmark = 0;
};

struct PeerConfig {
  std::string id;  // the caller's stable name for the peer (events and statistics use it)
  Key32 public_key{};
  uint32_t address_v4 = 0;  // host byte order, the peer's /32 tunnel address
};

struct ServerConfig {
  std::string interface_name;
  std::string address_cidr;
  int mtu = 1420;
  Key32 private_key{};
  std::string listen_host;
  uint16_t listen_port = 0;
  std::vector<PeerConfig> peers;
  bool offload = true;
  std::string tcp_listen_host;  // TCP transport listener; tcp_listen_port 0 disables it
  uint16_t tcp_listen_port = 0;
  int tcp_auth_timeout_ms = 10000;    // unauthenticated TCP connections are closed this long after accept
  int tcp_max_authenticated = 16384;  // authenticated TCP connections held at once (all peers)
  int tcp_max_pending = 4096;         // unauthenticated TCP connections held at once; more are closed at once
  int tcp_pending_per_source = 64;    // the same per source address
  // TLS transport listener; tls_listen_port 0 disables it. Its unauthenticated connections share the TCP
  // limits above.
  std::string tls_listen_host;
  uint16_t tls_listen_port = 0;
  // Takes a stranger's connection on the TLS listener: fd (a descriptor of its own, now the callee's to close)
  // and every byte the engine read from it. Called on the network thread; must not block. Unset: the engine
  // closes strangers' connections itself.
  std::function<void(int fd, std::vector<uint8_t> head)> on_stranger;
  // Takes an authentic hello's connection that asks for the control plane (HelloPurpose::kApi): fd (the callee's)
  // and the node's answer to write to it first (the server flight). The callee splices the stream inside to
  // the control plane. Called on the network thread; must not block. Unset: such hellos are strangers'.
  std::function<void(int fd, std::vector<uint8_t> reply)> on_api_stream;
  int path_mtu = 1500;
  int handshakes_per_source = 20;  // initiations per second per source address (and burst)
};

struct PeerRejection {
  std::string id, reason;
};

struct PeerStats {
  std::string id;
  uint64_t rx_bytes = 0, tx_bytes = 0;  // Ferry message bytes received from / sent to the peer
  int64_t handshake_age_ms = -1;        // since the last completed handshake; -1: never
};

// A running tunnel. Construction creates the interface and starts the threads (throws on failure);
// close() stops and joins the threads and removes the interface; it is idempotent.
class Tunnel {
 public:
  virtual ~Tunnel() = default;
  virtual void close() = 0;
  virtual Counters counters() const = 0;
  virtual const std::string& interface_name() const = 0;
  // Server only (any thread): removes `remove` (ids), then adds or changes each of `upsert` on its own; with
  // replace_all, every peer not in `upsert` is removed. Removals always apply. A refused upsert (its key or
  // address belongs to another peer, a duplicate id) is reported and leaves no earlier entry of its id.
  // A removed or changed peer's sessions and TCP connections end at once.
  virtual std::vector<PeerRejection> update_peers(const std::vector<PeerConfig>& upsert,
                                                  const std::vector<std::string>& remove, bool replace_all) {
    (void)upsert;
    (void)remove;
    (void)replace_all;
    throw std::runtime_error("only a server has peers");
  }
  std::vector<PeerRejection> set_peers(const std::vector<PeerConfig>& peers) { return update_peers(peers, {}, true); }
  virtual std::vector<PeerStats> peer_stats() const { throw std::runtime_error("only a server has peers"); }
};

// Start on a new TUN interface (created, addressed and brought up here).
std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::shared_ptr<EventSink> sink);
std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::shared_ptr<EventSink> sink);
// Start on a given packet device (tests: a PacketPipe); interface_name and address_cidr are not used.
std::unique_ptr<Tunnel> start_client(const ClientConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink);
std::unique_ptr<Tunnel> start_server(const ServerConfig& cfg, std::unique_ptr<PacketIo> io,
                                     std::shared_ptr<EventSink> sink);

}  // namespace ferry

// N-API bindings only: translate options, errors, lifetimes and events between JS and src/core.
#ifdef _WIN32
#include <io.h>
#include <ws2tcpip.h>
#else
#include <arpa/inet.h>
#include <unistd.h>
#endif
#include <napi.h>
#include <openssl/crypto.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <system_error>
#include <vector>

#include "../core/crypto.h"
#include "../core/marked-socket.h"
#include "../core/tls-hello.h"
#include "../core/tls-template.h"
#include "../core/tun.h"
#include "../core/tunnel.h"

namespace {

using ferry::Event;
using ferry::Key32;

// Delivers core events to one JS callback through a bounded thread-safe function. A full queue
// drops the event and counts it: the data plane must never wait for JavaScript.
class NapiSink final : public ferry::EventSink {
 public:
  static constexpr size_t kQueueSize = 1024;

  struct Queued {
    Event event;
    uint64_t drops;
  };

  NapiSink(Napi::Env env, Napi::Function cb) {
    tsfn_ = Napi::ThreadSafeFunction::New(env, cb, "ferry-events", kQueueSize, 1);
  }

  void emit(const Event& e) noexcept override {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;
    Queued* copy = nullptr;
    try {
      copy = new Queued{e, drops_.load()};
    } catch (...) {
      drops_.fetch_add(1);
      return;
    }
    // The callback must not touch `this`: queued events may outlive the sink.
    napi_status st = tsfn_.NonBlockingCall(copy, [](Napi::Env env, Napi::Function cb, Queued* q) {
      std::unique_ptr<Queued> owned(q);
      if (env == nullptr || cb.IsEmpty()) return;
      cb.Call({to_js(env, owned->event, owned->drops)});
    });
    if (st != napi_ok) {
      delete copy;
      drops_.fetch_add(1);
    }
  }

  // After release no event is queued; events already queued are still delivered.
  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;
    released_ = true;
    tsfn_.Release();
  }

  uint64_t drops() const { return drops_.load(); }

 private:
  static Napi::Object to_js(Napi::Env env, const Event& e, uint64_t drops) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("type", e.type);
    if (!e.state.empty()) o.Set("state", e.state);
    if (!e.message.empty()) o.Set("message", e.message);
    if (!e.code.empty()) o.Set("code", e.code);
    if (!e.cipher.empty()) o.Set("cipher", e.cipher);
    if (e.type == "rtt") o.Set("rttMs", e.rtt_ms);
    if (!e.peer.empty()) o.Set("peer", e.peer);
    if (!e.transport.empty()) o.Set("transport", e.transport);
    if (!e.outcome.empty()) o.Set("outcome", e.outcome);
    if (e.type == "counters" || (e.type == "state" && (e.state == "closed" || e.state == "failed")))
      o.Set("counters", counters_to_js(env, e.counters));
    o.Set("eventDrops", double(drops));
    return o;
  }

 public:
  static Napi::Object counters_to_js(Napi::Env env, const ferry::Counters& c) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("txPackets", double(c.tx_packets));
    o.Set("txBytes", double(c.tx_bytes));
    o.Set("rxPackets", double(c.rx_packets));
    o.Set("rxBytes", double(c.rx_bytes));
    o.Set("dropped", double(c.dropped));
    o.Set("replayDropped", double(c.replay_dropped));
    o.Set("authDropped", double(c.auth_dropped));
    o.Set("handshakes", double(c.handshakes));
    o.Set("handshakesDropped", double(c.handshakes_dropped));
    return o;
  }

 private:
  std::mutex mu_;
  bool released_ = false;
  Napi::ThreadSafeFunction tsfn_;
  std::atomic<uint64_t> drops_{0};
};

// Hands connections on a server's TLS port to one JS callback, (fd, bytes), through a bounded thread-safe
// function: strangers' to onStranger (with what was read), API streams' to onApiStream (with what to write). The descriptor is the callee's from then on; whenever it cannot be delivered (a full
// queue, the tunnel closing) it is closed here, so that no descriptor is ever lost.
void close_fd(int fd) {
#ifdef _WIN32
  _close(fd);
#else
  ::close(fd);
#endif
}

class FdTaker {
 public:
  static constexpr size_t kQueueSize = 1024;

  struct Queued {
    int fd;
    std::vector<uint8_t> head;
  };

  FdTaker(Napi::Env env, Napi::Function cb, const char* name) {
    tsfn_ = Napi::ThreadSafeFunction::New(env, cb, name, kQueueSize, 1);
  }

  void take(int fd, std::vector<uint8_t> head) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Queued> q(new Queued{fd, std::move(head)});
    if (released_ || tsfn_.NonBlockingCall(q.get(), deliver) != napi_ok) {
      close_fd(fd);
      return;
    }
    q.release();  // deliver() owns it now
  }

  void release() {
    std::lock_guard<std::mutex> lock(mu_);
    if (released_) return;
    released_ = true;
    tsfn_.Release();
  }

 private:
  static void deliver(Napi::Env env, Napi::Function cb, Queued* q) {
    std::unique_ptr<Queued> owned(q);
    if (env == nullptr || cb.IsEmpty()) {
      close_fd(owned->fd);
      return;
    }
    Napi::Buffer<uint8_t> head = Napi::Buffer<uint8_t>::Copy(env, owned->head.data(), owned->head.size());
    cb.Call({Napi::Number::New(env, owned->fd), head});
  }

  std::mutex mu_;
  bool released_ = false;
  Napi::ThreadSafeFunction tsfn_;
};

using FdTakers = std::vector<std::shared_ptr<FdTaker>>;

class TunnelHandle final : public Napi::ObjectWrap<TunnelHandle> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(
        env, "TunnelHandle",
        {InstanceMethod<&TunnelHandle::Close>("close"), InstanceMethod<&TunnelHandle::Counters>("counters"),
         InstanceMethod<&TunnelHandle::EventDrops>("eventDrops"),
         InstanceMethod<&TunnelHandle::InterfaceName>("interfaceName"),
         InstanceMethod<&TunnelHandle::UpdatePeers>("updatePeers"),
         InstanceMethod<&TunnelHandle::PeerStats>("peerStats")});
  }

  explicit TunnelHandle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<TunnelHandle>(info) {}
  ~TunnelHandle() override { shutdown(); }

  void attach(std::unique_ptr<ferry::Tunnel> t, std::shared_ptr<NapiSink> sink, FdTakers takers) {
    tunnel_ = std::move(t);
    sink_ = std::move(sink);
    takers_ = std::move(takers);
  }

 private:
  void shutdown() {
    if (tunnel_) tunnel_->close();  // joins the data-plane threads and removes the interface
    if (sink_) sink_->release();
    for (auto& t : takers_) t->release();  // after close: the engine hands nothing over any more
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    shutdown();
    return info.Env().Undefined();
  }
  Napi::Value Counters(const Napi::CallbackInfo& info) {
    if (!tunnel_) return info.Env().Null();
    return NapiSink::counters_to_js(info.Env(), tunnel_->counters());
  }
  Napi::Value EventDrops(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), sink_ ? double(sink_->drops()) : 0);
  }
  Napi::Value UpdatePeers(const Napi::CallbackInfo& info);
  Napi::Value PeerStats(const Napi::CallbackInfo& info);
  Napi::Value InterfaceName(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), tunnel_ ? tunnel_->interface_name() : "");
  }

  std::unique_ptr<ferry::Tunnel> tunnel_;
  std::shared_ptr<NapiSink> sink_;
  FdTakers takers_;
};

// Errors carry a stable code that native/index.ts maps into its error type.
[[noreturn]] void fail(Napi::Env env, const char* code, const std::string& msg) {
  Napi::Error err = Napi::Error::New(env, msg);
  err.Set("code", Napi::String::New(env, code));
  throw err;
}

std::string get_string(Napi::Env env, const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) fail(env, "ERR_FERRY_OPTIONS", std::string("option ") + key + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

// Erases a key when the scope ends, however it ends.
struct WipeOnExit {
  explicit WipeOnExit(Key32& k) : key(k) {}
  ~WipeOnExit() { OPENSSL_cleanse(key.data(), key.size()); }
  Key32& key;
};

// Erases a string that held key material (the JavaScript heap's copy is out of our reach).
void wipe(std::string& s) {
  if (!s.empty()) OPENSSL_cleanse(&s[0], s.size());
}

double get_number(Napi::Env env, const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsNumber()) fail(env, "ERR_FERRY_OPTIONS", std::string("option ") + key + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

bool get_bool(Napi::Env env, const Napi::Object& o, const char* key, bool fallback) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsBoolean()) fail(env, "ERR_FERRY_OPTIONS", std::string("option ") + key + " must be a boolean");
  return v.As<Napi::Boolean>().Value();
}

Key32 get_key(Napi::Env env, const Napi::Object& o, const char* key) {
  Key32 k;
  std::string text = get_string(env, o, key);
  const bool ok = ferry::base64_decode_key(text, k);
  wipe(text);
  if (!ok) fail(env, "ERR_FERRY_KEY", std::string("option ") + key + " is not a base64 32-byte key");
  return k;
}

uint16_t get_port(Napi::Env env, const Napi::Object& o, const char* key) {
  double p = get_number(env, o, key, -1);
  if (!(p >= 1 && p <= 65535) || p != double(int(p)))
    fail(env, "ERR_FERRY_OPTIONS", std::string("option ") + key + " must be a port number");
  return uint16_t(p);
}

int get_int(Napi::Env env, const Napi::Object& o, const char* key, int fallback, int lo, int hi) {
  double v = get_number(env, o, key, fallback);
  if (!(v >= lo && v <= hi) || v != double(int(v)))
    fail(env, "ERR_FERRY_OPTIONS",
         std::string("option ") + key + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
  return int(v);
}

// One peer, or the reason it cannot be one (id may still be set, for removing the old entry).
bool parse_peer(Napi::Value pv, ferry::PeerConfig& p, std::string& why) {
  if (!pv.IsObject()) {
    why = "each peer must be an object";
    return false;
  }
  Napi::Object po = pv.As<Napi::Object>();
  Napi::Value id = po.Get("id"), key = po.Get("publicKey"), addr = po.Get("address");
  if (!id.IsString() || id.As<Napi::String>().Utf8Value().empty() || id.As<Napi::String>().Utf8Value().size() > 64) {
    why = "peer id must be 1-64 characters";
    return false;
  }
  p.id = id.As<Napi::String>().Utf8Value();
  if (!key.IsString() || !ferry::base64_decode_key(key.As<Napi::String>().Utf8Value(), p.public_key)) {
    why = "peer publicKey must be a base64 32-byte key";
    return false;
  }
  in_addr a;
  if (!addr.IsString() || inet_pton(AF_INET, addr.As<Napi::String>().Utf8Value().c_str(), &a) != 1) {
    why = "peer address must be an IPv4 address";
    return false;
  }
  p.address_v4 = ntohl(a.s_addr);
  return true;
}

// A complete peer list (start options): any bad peer is an error.
std::vector<ferry::PeerConfig> parse_peers(Napi::Env env, Napi::Value peers) {
  if (!peers.IsArray()) fail(env, "ERR_FERRY_OPTIONS", "option peers must be an array");
  Napi::Array arr = peers.As<Napi::Array>();
  std::vector<ferry::PeerConfig> out;
  for (uint32_t i = 0; i < arr.Length(); ++i) {
    ferry::PeerConfig p;
    std::string why;
    if (!parse_peer(arr.Get(i), p, why)) fail(env, "ERR_FERRY_OPTIONS", why);
    out.push_back(p);
  }
  return out;
}

template <typename F>
Napi::Value start(const Napi::CallbackInfo& info, F make) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsFunction())
    fail(env, "ERR_FERRY_OPTIONS", "expected (options, onEvent)");
  Napi::Object opts = info[0].As<Napi::Object>();
  auto sink = std::make_shared<NapiSink>(env, info[1].As<Napi::Function>());
  FdTakers takers;  // a server with onStranger / onApiStream adds them
  auto release = [&] {
    sink->release();
    for (auto& t : takers) t->release();
  };
  std::unique_ptr<ferry::Tunnel> tunnel;
  try {
    tunnel = make(env, opts, sink, takers);
  } catch (const Napi::Error&) {
    release();
    throw;
  } catch (const ferry::TunError& ex) {
    release();
    fail(env, "ERR_FERRY_TUN", ex.what());
  } catch (const std::exception& ex) {
    release();
    fail(env, "ERR_FERRY_START", ex.what());
  }
  Napi::Object handle = env.GetInstanceData<Napi::FunctionReference>()->New({});
  TunnelHandle::Unwrap(handle)->attach(std::move(tunnel), sink, std::move(takers));
  return handle;
}

// updatePeers(upsert, removeIds, replaceAll) -> [{id, reason}] of the refused upserts.
Napi::Value TunnelHandle::UpdatePeers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!tunnel_) fail(env, "ERR_FERRY_START", "the tunnel is closed");
  if (info.Length() < 3 || !info[1].IsArray() || !info[2].IsBoolean())
    fail(env, "ERR_FERRY_OPTIONS", "expected (upsert, remove, replaceAll)");
  if (!info[0].IsArray()) fail(env, "ERR_FERRY_OPTIONS", "upsert must be an array");
  // A peer that cannot be read is refused on its own, and its id's old entry goes (fail closed): one bad
  // entry neither stops the others nor keeps a key that was meant to be replaced.
  std::vector<ferry::PeerConfig> upsert;
  std::vector<ferry::PeerRejection> refused;
  std::vector<std::string> remove;
  Napi::Array list = info[0].As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); ++i) {
    ferry::PeerConfig p;
    std::string why;
    if (parse_peer(list.Get(i), p, why)) {
      upsert.push_back(p);
    } else {
      refused.push_back({p.id, why});
      if (!p.id.empty()) remove.push_back(p.id);
    }
  }
  Napi::Array ids = info[1].As<Napi::Array>();
  for (uint32_t i = 0; i < ids.Length(); ++i) {
    Napi::Value v = ids.Get(i);
    if (!v.IsString()) fail(env, "ERR_FERRY_OPTIONS", "peer ids to remove must be strings");
    remove.push_back(v.As<Napi::String>().Utf8Value());
  }
  std::vector<ferry::PeerRejection> rejected = refused;
  try {
    auto more = tunnel_->update_peers(upsert, remove, info[2].As<Napi::Boolean>().Value());
    rejected.insert(rejected.end(), more.begin(), more.end());
  } catch (const std::exception& ex) {
    fail(env, "ERR_FERRY_START", ex.what());
  }
  Napi::Array out = Napi::Array::New(env, rejected.size());
  for (size_t i = 0; i < rejected.size(); ++i) {
    Napi::Object r = Napi::Object::New(env);
    r.Set("id", rejected[i].id);
    r.Set("reason", rejected[i].reason);
    out.Set(uint32_t(i), r);
  }
  return out;
}

Napi::Value TunnelHandle::PeerStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!tunnel_) fail(env, "ERR_FERRY_START", "the tunnel is closed");
  std::vector<ferry::PeerStats> stats;
  try {
    stats = tunnel_->peer_stats();
  } catch (const std::exception& ex) {
    fail(env, "ERR_FERRY_START", ex.what());
  }
  Napi::Array out = Napi::Array::New(env, stats.size());
  for (size_t i = 0; i < stats.size(); ++i) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("id", stats[i].id);
    o.Set("rxBytes", double(stats[i].rx_bytes));
    o.Set("txBytes", double(stats[i].tx_bytes));
    if (stats[i].handshake_age_ms < 0)
      o.Set("handshakeAgeMs", env.Null());
    else
      o.Set("handshakeAgeMs", double(stats[i].handshake_age_ms));
    out.Set(uint32_t(i), o);
  }
  return out;
}

Napi::Value StartClient(const Napi::CallbackInfo& info) {
  return start(info, [](Napi::Env env, const Napi::Object& o, std::shared_ptr<NapiSink> sink,
                        FdTakers&) {
    ferry::ClientConfig c;
    WipeOnExit wipe_key(c.private_key);  // on every path out, a failed start included
    c.interface_name = get_string(env, o, "interfaceName");
    c.address_cidr = get_string(env, o, "address");
    c.mtu = get_int(env, o, "mtu", 1420, 576, 9000);
    c.private_key = get_key(env, o, "privateKey");
    c.server_host = get_string(env, o, "serverHost");
    c.server_port = get_port(env, o, "serverPort");
    c.server_public = get_key(env, o, "serverPublicKey");
    std::string cipher = o.Get("cipher").IsUndefined() ? "aes-256-gcm" : get_string(env, o, "cipher");
    if (!ferry::cipher_from_name(cipher, c.cipher))
      fail(env, "ERR_FERRY_OPTIONS", "cipher must be aes-256-gcm or chacha20-poly1305");
    c.rekey_seconds = get_int(env, o, "rekeySeconds", 120, 1, 120);
    double rp = get_number(env, o, "rekeyPackets", double(uint64_t{1} << 32));
    if (!(rp >= 16 && rp <= double(uint64_t{1} << 50))) fail(env, "ERR_FERRY_OPTIONS", "rekeyPackets out of range");
    c.rekey_packets = uint64_t(rp);
    c.keepalive_seconds = get_int(env, o, "keepaliveSeconds", 5, 1, 60);
    c.offload = get_bool(env, o, "offload", true);
    std::string transport = o.Get("transport").IsUndefined() ? "udp" : get_string(env, o, "transport");
    if (transport != "udp" && transport != "tcp" && transport != "tls")
      fail(env, "ERR_FERRY_OPTIONS", "transport must be udp, tcp or tls");
    c.tcp = transport != "udp";
    c.tls = transport == "tls";
    if (c.tls) {
      // native/index.ts compiles the template to its line form; the core parses and checks it.
      Napi::Value tls = o.Get("tls");
      if (!tls.IsObject()) fail(env, "ERR_FERRY_OPTIONS", "transport tls needs the option tls {serverName, hello}");
      c.tls_server_name = get_string(env, tls.As<Napi::Object>(), "serverName");
      c.tls_hello = get_string(env, tls.As<Napi::Object>(), "hello");
    }
    if (!o.Get("raceUdpPort").IsUndefined()) {
      if (!c.tcp) fail(env, "ERR_FERRY_OPTIONS", "raceUdpPort races UDP beside transport tcp or tls");
      c.race_udp_port = get_port(env, o, "raceUdpPort");
    }
    c.path_mtu = get_int(env, o, "pathMtu", 1500, 576, 65535);
    const double mark = get_number(env, o, "fwmark", 0);
    if (!(mark >= 0 && mark <= 4294967295.0) || mark != double(uint32_t(mark)))
      fail(env, "ERR_FERRY_OPTIONS", "option fwmark must be an integer from 0 to 4294967295");
    c.fwmark = uint32_t(mark);
    return ferry::start_client(c, std::move(sink));
  });
}

Napi::Value StartServer(const Napi::CallbackInfo& info) {
  return start(info, [](Napi::Env env, const Napi::Object& o, std::shared_ptr<NapiSink> sink,
                        FdTakers& takers) {
    ferry::ServerConfig c;
    WipeOnExit wipe_key(c.private_key);
    c.interface_name = get_string(env, o, "interfaceName");
    c.address_cidr = get_string(env, o, "address");
    c.mtu = get_int(env, o, "mtu", 1420, 576, 9000);
    c.private_key = get_key(env, o, "privateKey");
    c.listen_host = get_string(env, o, "listenHost");
    c.listen_port = get_port(env, o, "listenPort");
    c.peers = parse_peers(env, o.Get("peers"));
    c.offload = get_bool(env, o, "offload", true);
    if (!o.Get("tcpListenPort").IsUndefined()) {
      c.tcp_listen_host = get_string(env, o, "tcpListenHost");
      c.tcp_listen_port = get_port(env, o, "tcpListenPort");
    }
    if (!o.Get("tlsListenPort").IsUndefined()) {
      c.tls_listen_host = get_string(env, o, "tlsListenHost");
      c.tls_listen_port = get_port(env, o, "tlsListenPort");
    }
    Napi::Value on_stranger = o.Get("onStranger");
    if (!on_stranger.IsUndefined()) {
      if (!on_stranger.IsFunction()) fail(env, "ERR_FERRY_OPTIONS", "option onStranger must be a function");
      auto t = std::make_shared<FdTaker>(env, on_stranger.As<Napi::Function>(), "ferry-strangers");
      takers.push_back(t);
      c.on_stranger = [t](int fd, std::vector<uint8_t> head) { t->take(fd, std::move(head)); };
    }
    Napi::Value on_api = o.Get("onApiStream");
    if (!on_api.IsUndefined()) {
      if (!on_api.IsFunction()) fail(env, "ERR_FERRY_OPTIONS", "option onApiStream must be a function");
      if (c.tls_listen_port == 0) fail(env, "ERR_FERRY_OPTIONS", "onApiStream needs tlsListenPort");
      auto t = std::make_shared<FdTaker>(env, on_api.As<Napi::Function>(), "ferry-api-streams");
      takers.push_back(t);
      c.on_api_stream = [t](int fd, std::vector<uint8_t> reply) { t->take(fd, std::move(reply)); };
    }
    c.tcp_auth_timeout_ms = get_int(env, o, "tcpAuthTimeoutMs", 10000, 100, 600000);
    c.tcp_max_authenticated = get_int(env, o, "tcpMaxConnections", 16384, 1, 1 << 20);
    c.tcp_max_pending = get_int(env, o, "tcpMaxPending", 4096, 1, 1 << 20);
    c.tcp_pending_per_source = get_int(env, o, "tcpPendingPerSource", 64, 1, 1 << 20);
    c.handshakes_per_source = get_int(env, o, "handshakesPerSource", 20, 1, 100000);
    c.path_mtu = get_int(env, o, "pathMtu", 1500, 576, 65535);
    return ferry::start_server(c, std::move(sink));
  });
}

Napi::Value GeneratePrivateKey(const Napi::CallbackInfo& info) {
  Key32 k = ferry::x25519_generate_private();
  std::string text = ferry::base64_encode(k.data(), k.size());
  OPENSSL_cleanse(k.data(), k.size());
  Napi::String out = Napi::String::New(info.Env(), text);
  wipe(text);
  return out;
}

Napi::Value PublicKey(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) fail(env, "ERR_FERRY_KEY", "expected a base64 private key");
  Key32 k;
  std::string text = info[0].As<Napi::String>().Utf8Value();
  const bool ok = ferry::base64_decode_key(text, k);
  wipe(text);
  if (!ok) fail(env, "ERR_FERRY_KEY", "not a base64 32-byte key");
  Key32 pub = ferry::x25519_public_from_private(k);
  OPENSSL_cleanse(k.data(), k.size());
  return Napi::String::New(env, ferry::base64_encode(pub.data(), pub.size()));
}

// markedSocket(family 4|6, kind 'tcp'|'udp', mark): a new socket's descriptor, for net.Socket / dgram.
Napi::Value MarkedSocket(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsNumber() || !info[1].IsString() || !info[2].IsNumber())
    fail(env, "ERR_FERRY_OPTIONS", "expected (family, kind, mark)");
  const double family = info[0].As<Napi::Number>().DoubleValue();
  const std::string kind = info[1].As<Napi::String>().Utf8Value();
  const double mark = info[2].As<Napi::Number>().DoubleValue();
  if (family != 4 && family != 6) fail(env, "ERR_FERRY_OPTIONS", "the address family is 4 or 6");
  if (kind != "tcp" && kind != "udp") fail(env, "ERR_FERRY_OPTIONS", "the socket kind is tcp or udp");
  if (!(mark >= 1 && mark <= 4294967295.0) || std::floor(mark) != mark)
    fail(env, "ERR_FERRY_OPTIONS", "the mark is a whole number from 1 to 2^32-1");
  try {
    const auto k = kind == "tcp" ? ferry::SocketKind::kTcp : ferry::SocketKind::kUdp;
    return Napi::Number::New(env, ferry::open_marked_socket(int(family), k, uint32_t(mark)));
  } catch (const std::system_error& e) {
    fail(env, "ERR_FERRY_MARK", e.what());
  }
}

// apiHello(nodePublicKey, serverName, helloTemplate): one TLS record holding a ClientHello from the template (its
// compiled line form), authenticated for that node and asking for its control plane (API access through relays).
Napi::Value ApiHello(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsString())
    fail(env, "ERR_FERRY_OPTIONS", "expected (nodePublicKey, serverName, helloTemplate)");
  Key32 node;
  if (!ferry::base64_decode_key(info[0].As<Napi::String>().Utf8Value(), node))
    fail(env, "ERR_FERRY_KEY", "the node's public key is not a base64 32-byte key");
  ferry::HelloTemplate t;
  std::string why;
  if (!ferry::parse_hello_template(info[2].As<Napi::String>().Utf8Value(), t, why))
    fail(env, "ERR_FERRY_OPTIONS", "the hello template is invalid: " + why);
  try {
    ferry::SystemBytes rnd;
    std::array<uint8_t, 32> random;
    const std::vector<uint8_t> hello =
        ferry::build_client_hello(t, info[1].As<Napi::String>().Utf8Value(), node, uint32_t(time(nullptr)), rnd,
                                  random, ferry::HelloPurpose::kApi);
    return Napi::Buffer<uint8_t>::Copy(env, hello.data(), hello.size());
  } catch (const std::exception& e) {
    fail(env, "ERR_FERRY_OPTIONS", e.what());
  }
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = TunnelHandle::Define(env);
  env.SetInstanceData(new Napi::FunctionReference(Napi::Persistent(ctor)));
  exports.Set("startClient", Napi::Function::New(env, StartClient));
  exports.Set("startServer", Napi::Function::New(env, StartServer));
  exports.Set("generatePrivateKey", Napi::Function::New(env, GeneratePrivateKey));
  exports.Set("publicKey", Napi::Function::New(env, PublicKey));
  exports.Set("markedSocket", Napi::Function::New(env, MarkedSocket));
  exports.Set("apiHello", Napi::Function::New(env, ApiHello));
  return exports;
}

}  // namespace

NODE_API_MODULE(ferry_native, Init)

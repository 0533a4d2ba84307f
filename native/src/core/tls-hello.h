// The TLS transport's first flights (no I/O): the client's ClientHello, a copy of a browser's from a template
// that carries the client's authentication in its session id, the node's check of it, and the shape of the
// answers (docs/protocol.md, "TLS transport").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

#include "crypto.h"
#include "tls-template.h"

namespace ferry {

constexpr size_t kTlsRecordHeader = 5;
constexpr size_t kTlsMaxHelloRecord = kTlsRecordHeader + 16384;  // the node reads at most one such record
constexpr int64_t kTlsHelloWindowS = 120;                          // |node's time - hello's time| at most
constexpr size_t kTlsFinishedLen = 53;                             // Chrome's Finished record payload
constexpr size_t kTlsServerFlightMin = 2500, kTlsServerFlightMax = 5000;  // EncryptedExtensions..Finished

// Where a hello's random parts come from: the CSPRNG, or in tests a fixed stream.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual void fill(uint8_t* p, size_t n) = 0;
};
class SystemBytes final : public ByteSource {
 public:
  void fill(uint8_t* p, size_t n) override { random_bytes(p, n); }
};

// What an authentic hello asks for (the byte after the version in its authentication): the Ferry stream of a
// tunnel, or a byte stream the relay splices to its control plane (API access through relays, before the client
// has an account: the authentication needs only the node's public key).
enum class HelloPurpose : uint8_t { kTunnel = 0, kApi = 1 };

// One TLS record holding a ClientHello built from t for server_name, authenticated for the node whose static
// public key is node_pub at unix_time (seconds). client_random receives the hello's random (the TLS stream's
// length masks are keyed by it).
std::vector<uint8_t> build_client_hello(const HelloTemplate& t, const std::string& server_name, const Key32& node_pub,
                                        uint32_t unix_time, ByteSource& rnd, std::array<uint8_t, 32>& client_random,
                                        HelloPurpose purpose = HelloPurpose::kTunnel);

// The authentication alone: the 32-byte legacy_session_id for a hello whose handshake message (from its type
// byte, session id zeroed) is aad. Exposed for the test vectors.
bool tls_auth_session_id(const Key32& ephemeral_priv, const Key32& node_pub, const uint8_t client_random[32],
                         uint32_t unix_time, const uint8_t nonce8[8], const uint8_t* aad, size_t aad_len,
                         uint8_t out[32], HelloPurpose purpose = HelloPurpose::kTunnel);

// Client randoms of accepted hellos, kept for 2 windows (a hello may be dated up to a window ahead). Bounded:
// when full, nothing more is accepted until entries expire (fail closed: the hello is a stranger's).
class TlsReplayCache {
 public:
  explicit TlsReplayCache(size_t capacity = size_t(1) << 17) : capacity_(capacity) {}
  // False when the random was seen within the window or the cache is full.
  bool insert(const uint8_t random[32], int64_t now_s);
  size_t size() const { return seen_.size(); }

 private:
  struct Key {
    std::array<uint8_t, 16> b;
    bool operator==(const Key& o) const { return b == o.b; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  const size_t capacity_;
  std::unordered_set<Key, KeyHash> seen_;
  std::deque<std::pair<int64_t, Key>> order_;  // expiry, in insertion order (= expiry order)
};

// What the node learns from the first bytes of a TLS connection.
enum class HelloVerdict {
  kIncomplete,  // could still become a whole handshake record: read more
  kStranger,    // cannot be a handshake record, or not an authentic fresh hello: hand it to the cover site
  kAuthentic,
};

struct AuthenticHello {
  std::array<uint8_t, 32> client_random{};
  std::array<uint8_t, 32> session_id{};
  HelloPurpose purpose = HelloPurpose::kTunnel;
  size_t record_len = 0;  // bytes of the hello record; what follows is the client's stream
};

// Looks at what arrived so far (never past the first record). node: the node's static key; now_s: its clock.
HelloVerdict check_client_hello(const uint8_t* p, size_t n, const X25519Key& node, int64_t now_s,
                                TlsReplayCache& replay, AuthenticHello& out);

// The node's answer to an authentic hello: ServerHello (session id echoed, TLS_AES_128_GCM_SHA256, a fresh
// X25519 share), change_cipher_spec, and one application-data record of random bytes in place of the
// encrypted flight.
std::vector<uint8_t> build_server_flight(const uint8_t session_id[32], ByteSource& rnd);
// The client's answer to it: change_cipher_spec and a 53-byte application-data record (its Finished).
std::vector<uint8_t> build_client_finished(ByteSource& rnd);

}  // namespace ferry

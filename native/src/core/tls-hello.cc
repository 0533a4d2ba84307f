// Building a browser-shaped ClientHello that authenticates the client to the node, checking one on the node,
// and the shapes of the two answers that follow (docs/protocol.md, "TLS transport").
#include "tls-hello.h"

#include <cstring>

#include "secret.h"

namespace ferry {

namespace {

constexpr char kAuthInfo[] = "ferry tls v1 auth";
constexpr uint8_t kAuthVersion = 1;
constexpr size_t kSessionIdAt = 4 + 2 + 32 + 1;  // in the handshake message: type, length, version, random, len
constexpr size_t kMlkemKeyLen = 1184;             // ML-KEM-768 encapsulation key: 3 * 384 + 32
constexpr uint16_t kMlkemQ = 3329;

void put8(std::vector<uint8_t>& v, size_t x) { v.push_back(uint8_t(x)); }
void put16(std::vector<uint8_t>& v, size_t x) {
  v.push_back(uint8_t(x >> 8));
  v.push_back(uint8_t(x));
}
void put24(std::vector<uint8_t>& v, size_t x) {
  v.push_back(uint8_t(x >> 16));
  put16(v, x & 0xffff);
}
void put_bytes(std::vector<uint8_t>& v, const uint8_t* p, size_t n) { v.insert(v.end(), p, p + n); }
void put_grease_bytes(std::vector<uint8_t>& v, const GreaseBytes& g, const uint16_t grease[kGreaseSlots]) {
  for (uint16_t t : g) {
    if (t >= kGreaseToken)
      put16(v, grease[t - kGreaseToken]);
    else
      put8(v, t);
  }
}
// Writes the 2-byte length of what was appended since `at` (which the caller reserved) into v[at..at+2).
void patch16(std::vector<uint8_t>& v, size_t at) {
  const size_t n = v.size() - at - 2;
  v[at] = uint8_t(n >> 8);
  v[at + 1] = uint8_t(n);
}

// Uniform in [0, n) from 16-bit draws, without modulo bias.
uint32_t uniform_below(ByteSource& rnd, uint32_t n) {
  const uint32_t limit = (65536u / n) * n;
  for (;;) {
    uint8_t b[2];
    rnd.fill(b, 2);
    const uint32_t v = uint32_t(b[0]) << 8 | b[1];
    if (v < limit) return v % n;
  }
}

Key32 random_x25519_public(ByteSource& rnd) {
  Secret<Key32> priv;
  rnd.fill(priv->data(), priv->size());
  return x25519_public_from_private(*priv);
}

// An ML-KEM-768 encapsulation key's shape (FIPS 203): 768 coefficients uniform mod q by rejection sampling of
// 12-bit values, ByteEncode12'd, then 32 bytes of rho. A real key is indistinguishable from this (MLWE); no
// secret exists for it.
void put_mlkem_shape(std::vector<uint8_t>& v, ByteSource& rnd) {
  uint16_t coeffs[768];
  size_t have = 0;
  uint8_t buf[384];
  while (have < 768) {
    rnd.fill(buf, sizeof buf);
    for (size_t i = 0; i + 2 < sizeof buf && have < 768; i += 3) {
      const uint16_t d1 = uint16_t(buf[i] | (buf[i + 1] & 0x0f) << 8);
      const uint16_t d2 = uint16_t(buf[i + 1] >> 4 | buf[i + 2] << 4);
      if (d1 < kMlkemQ) coeffs[have++] = d1;
      if (d2 < kMlkemQ && have < 768) coeffs[have++] = d2;
    }
  }
  for (size_t i = 0; i < 768; i += 2) {
    const uint16_t a = coeffs[i], b = coeffs[i + 1];
    put8(v, a & 0xff);
    put8(v, (a >> 8) | (b & 0x0f) << 4);
    put8(v, b >> 4);
  }
  uint8_t rho[32];
  rnd.fill(rho, sizeof rho);
  put_bytes(v, rho, sizeof rho);
}

void put_extension_data(std::vector<uint8_t>& v, const HelloExtensionTemplate& e, const uint16_t grease[],
                        const std::string& server_name, const Key32& auth_pub, ByteSource& rnd) {
  using Kind = HelloExtensionTemplate::Kind;
  switch (e.kind) {
    case Kind::kFixed:
      put_grease_bytes(v, e.data, grease);
      break;
    case Kind::kServerName:
      put16(v, server_name.size() + 3);
      put8(v, 0);  // host_name
      put16(v, server_name.size());
      put_bytes(v, reinterpret_cast<const uint8_t*>(server_name.data()), server_name.size());
      break;
    case Kind::kKeyShare: {
      const size_t at = v.size();
      put16(v, 0);
      for (uint16_t g : e.shares) {
        if (g == 0) {  // GREASE share: one zero byte, as Chrome sends
          put16(v, grease[kGreaseGroup]);
          put16(v, 1);
          put8(v, 0);
        } else if (g == 0x11ec) {  // X25519MLKEM768: ML-KEM-768 key, then an X25519 key of its own
          put16(v, g);
          put16(v, kMlkemKeyLen + 32);
          put_mlkem_shape(v, rnd);
          const Key32 x = random_x25519_public(rnd);
          put_bytes(v, x.data(), x.size());
        } else {  // X25519: the key the authentication is computed with
          put16(v, g);
          put16(v, 32);
          put_bytes(v, auth_pub.data(), auth_pub.size());
        }
      }
      patch16(v, at);
      break;
    }
    case Kind::kEchGrease: {
      put8(v, 0);  // outer ClientHello
      put16(v, e.kdf);
      put16(v, e.aead);
      uint8_t config_id;
      rnd.fill(&config_id, 1);
      put8(v, config_id);
      const Key32 enc = random_x25519_public(rnd);
      put16(v, enc.size());
      put_bytes(v, enc.data(), enc.size());
      const size_t len = e.payload_lengths[uniform_below(rnd, uint32_t(e.payload_lengths.size()))];
      put16(v, len);
      const size_t at = v.size();
      v.resize(at + len);
      rnd.fill(v.data() + at, len);
      break;
    }
  }
}

}  // namespace

bool tls_auth_session_id(const Key32& ephemeral_priv, const Key32& node_pub, const uint8_t client_random[32],
                         uint32_t unix_time, const uint8_t nonce8[8], const uint8_t* aad, size_t aad_len,
                         uint8_t out[32], HelloPurpose purpose) {
  Secret<Key32> shared, auth_key;
  if (!x25519_shared(ephemeral_priv, node_pub, *shared)) return false;
  hkdf_label(client_random, 20, shared->data(), shared->size(), kAuthInfo, *auth_key);
  uint8_t pt[16] = {kAuthVersion, uint8_t(purpose), 0, 0, uint8_t(unix_time >> 24), uint8_t(unix_time >> 16),
                    uint8_t(unix_time >> 8), uint8_t(unix_time)};
  std::memcpy(pt + 8, nonce8, 8);
  Aead aead(Cipher::kAes256Gcm, *auth_key);
  return aead.seal(client_random + 20, aad, aad_len, pt, sizeof pt, out);
}

std::vector<uint8_t> build_client_hello(const HelloTemplate& t, const std::string& server_name, const Key32& node_pub,
                                        uint32_t unix_time, ByteSource& rnd, std::array<uint8_t, 32>& client_random,
                                        HelloPurpose purpose) {
  if (server_name.empty() || server_name.size() > 253) throw std::runtime_error("bad TLS server name");
  uint8_t seeds[kGreaseSlots];
  rnd.fill(seeds, sizeof seeds);
  uint16_t grease[kGreaseSlots];
  for (int i = 0; i < kGreaseSlots; ++i) {
    const uint16_t b = uint16_t((seeds[i] & 0xf0) | 0x0a);
    grease[i] = uint16_t(b << 8 | b);
  }
  if (grease[kGreaseExt2] == grease[kGreaseExt1]) grease[kGreaseExt2] ^= 0x1010;  // as BoringSSL: never equal
  rnd.fill(client_random.data(), client_random.size());
  Secret<Key32> auth_priv;
  rnd.fill(auth_priv->data(), auth_priv->size());
  const Key32 auth_pub = x25519_public_from_private(*auth_priv);

  // Chrome shuffles every extension but the GREASE ones, which keep their places (first and last).
  std::vector<size_t> order(t.extensions.size());
  std::vector<size_t> movable;
  for (size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
    if (t.extensions[i].type_slot < 0) movable.push_back(i);
  }
  if (t.shuffle) {
    std::vector<size_t> perm = movable;
    for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[uniform_below(rnd, uint32_t(i))]);
    for (size_t k = 0; k < movable.size(); ++k) order[movable[k]] = perm[k];
  }

  std::vector<uint8_t> rec;
  rec.reserve(2048);
  put8(rec, 22);
  put16(rec, t.record_version);
  put16(rec, 0);
  put8(rec, 1);  // ClientHello
  put24(rec, 0);
  put16(rec, t.legacy_version);
  put_bytes(rec, client_random.data(), client_random.size());
  put8(rec, 32);
  rec.resize(rec.size() + 32);  // the session id, zero until the authentication is computed over the rest
  const size_t suites_at = rec.size();
  put16(rec, 0);
  put_grease_bytes(rec, t.cipher_suites, grease);
  patch16(rec, suites_at);
  put8(rec, t.compression.size());
  put_bytes(rec, t.compression.data(), t.compression.size());
  const size_t exts_at = rec.size();
  put16(rec, 0);
  for (size_t i : order) {
    const HelloExtensionTemplate& e = t.extensions[i];
    put16(rec, e.type_slot >= 0 ? grease[e.type_slot] : e.type);
    const size_t at = rec.size();
    put16(rec, 0);
    put_extension_data(rec, e, grease, server_name, auth_pub, rnd);
    patch16(rec, at);
  }
  patch16(rec, exts_at);
  const size_t hs_len = rec.size() - kTlsRecordHeader;
  if (hs_len > 16384) throw std::runtime_error("the ClientHello does not fit one record");
  rec[3] = uint8_t(hs_len >> 8);
  rec[4] = uint8_t(hs_len);
  rec[6] = uint8_t((hs_len - 4) >> 16);
  rec[7] = uint8_t((hs_len - 4) >> 8);
  rec[8] = uint8_t(hs_len - 4);
  uint8_t nonce8[8];
  rnd.fill(nonce8, sizeof nonce8);
  uint8_t* sid = rec.data() + kTlsRecordHeader + kSessionIdAt;
  if (!tls_auth_session_id(*auth_priv, node_pub, client_random.data(), unix_time, nonce8,
                           rec.data() + kTlsRecordHeader, hs_len, sid, purpose))
    throw std::runtime_error("the node's public key is not usable");
  return rec;
}

size_t TlsReplayCache::KeyHash::operator()(const Key& k) const {
  size_t h;
  std::memcpy(&h, k.b.data(), sizeof h);  // random bytes: any slice of them is a good hash
  return h;
}

bool TlsReplayCache::insert(const uint8_t random[32], int64_t now_s) {
  while (!order_.empty() && order_.front().first <= now_s) {
    seen_.erase(order_.front().second);
    order_.pop_front();
  }
  Key k;
  std::memcpy(k.b.data(), random, k.b.size());
  if (seen_.count(k) || seen_.size() >= capacity_) return false;
  seen_.insert(k);
  order_.emplace_back(now_s + 2 * kTlsHelloWindowS, k);
  return true;
}

namespace {

// A bounds-checked reader over [p, end).
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;
  bool need(size_t n) { return ok = ok && size_t(end - p) >= n; }
  size_t u8() { return need(1) ? *p++ : 0; }
  size_t u16() {
    if (!need(2)) return 0;
    const size_t v = size_t(p[0]) << 8 | p[1];
    p += 2;
    return v;
  }
  const uint8_t* skip(size_t n) {
    if (!need(n)) return nullptr;
    const uint8_t* at = p;
    p += n;
    return at;
  }
};

// The X25519 share of a ClientHello handshake message, or null (malformed, or none).
const uint8_t* find_x25519_share(const uint8_t* hs, size_t len) {
  Cursor c{hs + 4, hs + len};
  c.skip(2 + 32);
  c.skip(c.u8());       // session id
  c.skip(c.u16());      // cipher suites
  c.skip(c.u8());       // compression
  const size_t ext_len = c.u16();
  const uint8_t* exts = c.skip(ext_len);
  if (!c.ok || c.p != c.end) return nullptr;
  Cursor e{exts, exts + ext_len};
  const uint8_t* found = nullptr;
  while (e.ok && e.p < e.end) {
    const size_t type = e.u16();
    const size_t n = e.u16();
    const uint8_t* data = e.skip(n);
    if (!e.ok || type != 0x0033) continue;
    if (found) return nullptr;  // two key_share extensions: not a valid hello
    Cursor k{data, data + n};
    const size_t shares_len = k.u16();
    if (!k.ok || shares_len != n - 2) return nullptr;
    while (k.ok && k.p < k.end) {
      const size_t group = k.u16();
      const size_t klen = k.u16();
      const uint8_t* key = k.skip(klen);
      if (k.ok && group == 0x001d && klen == 32) found = key;
    }
    if (!k.ok || !found) return nullptr;
  }
  return e.ok ? found : nullptr;
}

}  // namespace

HelloVerdict check_client_hello(const uint8_t* p, size_t n, const X25519Key& node, int64_t now_s,
                                TlsReplayCache& replay, AuthenticHello& out) {
  // Byte by byte, as soon as the prefix cannot start a TLS handshake record, it is a stranger's.
  if (n >= 1 && p[0] != 22) return HelloVerdict::kStranger;
  if (n >= 2 && p[1] != 3) return HelloVerdict::kStranger;
  if (n >= 3 && p[2] > 3) return HelloVerdict::kStranger;
  if (n < kTlsRecordHeader) return HelloVerdict::kIncomplete;
  const size_t len = size_t(p[3]) << 8 | p[4];
  if (len < 4 || kTlsRecordHeader + len > kTlsMaxHelloRecord) return HelloVerdict::kStranger;
  if (n < kTlsRecordHeader + len) return HelloVerdict::kIncomplete;
  const uint8_t* hs = p + kTlsRecordHeader;
  // One whole ClientHello in exactly this record, with a 32-byte session id.
  if (hs[0] != 1 || (size_t(hs[1]) << 16 | size_t(hs[2]) << 8 | hs[3]) + 4 != len) return HelloVerdict::kStranger;
  if (len < kSessionIdAt + 32 || hs[kSessionIdAt - 1] != 32) return HelloVerdict::kStranger;
  const uint8_t* share = find_x25519_share(hs, len);
  if (!share) return HelloVerdict::kStranger;
  Key32 e_pub;
  std::memcpy(e_pub.data(), share, 32);
  Secret<Key32> shared, auth_key;
  if (!node.shared(e_pub, *shared)) return HelloVerdict::kStranger;
  const uint8_t* random = hs + 6;
  hkdf_label(random, 20, shared->data(), shared->size(), kAuthInfo, *auth_key);
  std::vector<uint8_t> aad(hs, hs + len);
  std::memset(aad.data() + kSessionIdAt, 0, 32);
  uint8_t pt[16];
  Aead aead(Cipher::kAes256Gcm, *auth_key);
  if (!aead.open(random + 20, aad.data(), aad.size(), hs + kSessionIdAt, 16, pt)) return HelloVerdict::kStranger;
  if (pt[0] != kAuthVersion || pt[1] > uint8_t(HelloPurpose::kApi) || pt[2] || pt[3]) return HelloVerdict::kStranger;
  const int64_t t = int64_t(uint32_t(pt[4]) << 24 | uint32_t(pt[5]) << 16 | uint32_t(pt[6]) << 8 | pt[7]);
  if (t > now_s + kTlsHelloWindowS || t < now_s - kTlsHelloWindowS) return HelloVerdict::kStranger;
  if (!replay.insert(random, now_s)) return HelloVerdict::kStranger;
  std::memcpy(out.client_random.data(), random, 32);
  std::memcpy(out.session_id.data(), hs + kSessionIdAt, 32);
  out.purpose = HelloPurpose(pt[1]);
  out.record_len = kTlsRecordHeader + len;
  return HelloVerdict::kAuthentic;
}

std::vector<uint8_t> build_server_flight(const uint8_t session_id[32], ByteSource& rnd) {
  std::vector<uint8_t> v;
  v.reserve(kTlsServerFlightMax + 160);
  put8(v, 22);
  put16(v, 0x0303);
  const size_t rec_at = v.size();
  put16(v, 0);
  put8(v, 2);  // ServerHello
  const size_t hs_at = v.size();
  put24(v, 0);
  put16(v, 0x0303);
  uint8_t random[32];
  rnd.fill(random, sizeof random);
  put_bytes(v, random, sizeof random);
  put8(v, 32);
  put_bytes(v, session_id, 32);
  put16(v, 0x1301);  // TLS_AES_128_GCM_SHA256
  put8(v, 0);
  const size_t ext_at = v.size();
  put16(v, 0);
  put16(v, 0x002b);  // supported_versions: TLS 1.3 (OpenSSL's order: this, then key_share)
  put16(v, 2);
  put16(v, 0x0304);
  put16(v, 0x0033);  // key_share: X25519
  put16(v, 36);
  put16(v, 0x001d);
  put16(v, 32);
  const Key32 share = random_x25519_public(rnd);
  put_bytes(v, share.data(), share.size());
  patch16(v, ext_at);
  patch16(v, rec_at);
  const size_t hs_len = v.size() - hs_at - 3;
  v[hs_at] = 0;
  v[hs_at + 1] = uint8_t(hs_len >> 8);
  v[hs_at + 2] = uint8_t(hs_len);
  const uint8_t ccs[6] = {20, 3, 3, 0, 1, 1};
  put_bytes(v, ccs, sizeof ccs);
  const size_t len = kTlsServerFlightMin + uniform_below(rnd, uint32_t(kTlsServerFlightMax - kTlsServerFlightMin + 1));
  put8(v, 23);
  put16(v, 0x0303);
  put16(v, len);
  const size_t at = v.size();
  v.resize(at + len);
  rnd.fill(v.data() + at, len);
  return v;
}

std::vector<uint8_t> build_client_finished(ByteSource& rnd) {
  std::vector<uint8_t> v = {20, 3, 3, 0, 1, 1, 23, 3, 3, 0, uint8_t(kTlsFinishedLen)};
  const size_t at = v.size();
  v.resize(at + kTlsFinishedLen);
  rnd.fill(v.data() + at, kTlsFinishedLen);
  return v;
}

}  // namespace ferry

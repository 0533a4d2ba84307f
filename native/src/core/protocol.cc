// Ferry handshake (Noise IK pattern over X25519/HKDF-SHA256/ChaCha20-Poly1305), data packets and masking.
#include "protocol.h"

#include <openssl/crypto.h>

#include <cstring>

namespace ferry {

namespace {

constexpr char kConstruction[] = "Ferry_v2_IK_25519_ChaChaPoly_SHA256";
constexpr char kNodeKeySalt[] = "ferry-v2-obfuscation";
constexpr char kHeaderMaskLabel[] = "data-header-mask";

void put_le32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
void put_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t get_le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

void mix_hash(Key32& h, const uint8_t* data, size_t len) {
  Key32 out;
  sha256(h.data(), h.size(), data, len, out);
  h = out;
  OPENSSL_cleanse(out.data(), out.size());
}

// ck0 = SHA256(construction), h0 = SHA256(ck0 || server static public key)
void initial_state(const Key32& server_pub, Key32& ck, Key32& h) {
  sha256(reinterpret_cast<const uint8_t*>(kConstruction), sizeof kConstruction - 1, nullptr, 0, ck);
  sha256(ck.data(), ck.size(), server_pub.data(), server_pub.size(), h);
}

// Erases a key on every path out of a scope.
struct Wipe {
  explicit Wipe(Key32& k) : k_(k) {}
  ~Wipe() { OPENSSL_cleanse(k_.data(), k_.size()); }
  Key32& k_;
};

void mix_dh_result(Key32& ck, Key32& k, Key32& dh) {
  Key32 ck2;
  hkdf2(ck, dh.data(), dh.size(), ck2, k);
  ck = ck2;
  OPENSSL_cleanse(ck2.data(), ck2.size());
  OPENSSL_cleanse(dh.data(), dh.size());
}

bool mix_dh(Key32& ck, Key32& k, const Key32& priv, const Key32& pub) {
  Key32 dh;
  if (!x25519_shared(priv, pub, dh)) return false;
  mix_dh_result(ck, k, dh);
  return true;
}

bool mix_dh(Key32& ck, Key32& k, const X25519Key& priv, const Key32& pub) {
  Key32 dh;
  if (!priv.shared(pub, dh)) return false;
  mix_dh_result(ck, k, dh);
  return true;
}

const uint8_t kZeroNonce[12] = {0};

// Masks the first n bytes with AES-256-CTR(mask key, IV = the datagram's last 16 bytes).
bool mask_prefix(Masker& m, uint8_t* buf, size_t len, size_t n) {
  uint8_t iv[16];
  std::memcpy(iv, buf + len - 16, 16);
  return m.apply(iv, buf, n);
}

}  // namespace

static Key32 node_key(const Key32& server_pub, const char* info) {
  Key32 k;
  hkdf_label(reinterpret_cast<const uint8_t*>(kNodeKeySalt), sizeof kNodeKeySalt - 1, server_pub.data(),
             server_pub.size(), info, k);
  return k;
}

Key32 derive_handshake_mask_key(const Key32& server_pub) { return node_key(server_pub, "handshake-mask"); }
Key32 derive_mac1_key(const Key32& server_pub) { return node_key(server_pub, "mac1"); }

uint8_t unmask_handshake(Masker& m, uint8_t* buf, size_t len) {
  if (len < kResponseMinLen) return 0;
  uint8_t ks[kMaskedHandshakePrefix] = {0};
  uint8_t iv[16];
  std::memcpy(iv, buf + len - 16, 16);
  if (!m.apply(iv, ks, sizeof ks)) return 0;
  const uint8_t type = buf[0] ^ ks[0];
  if (buf[1] != ks[1] || buf[2] != ks[2] || buf[3] != ks[3]) return 0;  // reserved bytes must be zero
  switch (static_cast<MsgType>(type)) {
    case MsgType::kInit:
      if (len < kInitMinLen || len > kInitMaxLen) return 0;
      break;
    case MsgType::kResponse:
      if (len < kResponseMinLen || len > kResponseMaxLen) return 0;
      break;
    default:
      return 0;
  }
  for (size_t i = 0; i < kMaskedHandshakePrefix; ++i) buf[i] ^= ks[i];
  return type;
}

bool check_mac1(Mac16& mac1, const uint8_t* init, size_t len) {
  return len >= kInitMinLen && mac1.verify(init, len - kMac1Len, init + len - kMac1Len);
}

bool unmask_data(Masker& m, uint32_t local_index, uint8_t* buf, size_t len) {
  if (len < kDataMinLen) return false;
  uint8_t ks[kHeaderLen] = {0};
  uint8_t iv[16];
  std::memcpy(iv, buf + len - 16, 16);
  if (!m.apply(iv, ks, sizeof ks)) return false;
  if ((buf[0] ^ ks[0]) != uint8_t(MsgType::kData) || buf[1] != ks[1] || buf[2] != ks[2] || buf[3] != ks[3])
    return false;
  if ((uint32_t(buf[4] ^ ks[4]) | uint32_t(buf[5] ^ ks[5]) << 8 | uint32_t(buf[6] ^ ks[6]) << 16 |
       uint32_t(buf[7] ^ ks[7]) << 24) != local_index)
    return false;
  for (size_t i = 0; i < kHeaderLen; ++i) buf[i] ^= ks[i];
  return true;
}

size_t write_init(const Key32& client_priv, const Key32& client_pub, const Key32& server_pub, Masker& m, Mac16& mac1,
                  const InitParams& p, InitiatorState& st, uint8_t* out) {
  if (p.pad_len > kMaxHandshakePad) return 0;
  const size_t payload_len = 9 + p.pad_len;
  const size_t len = kInitMinLen + p.pad_len;
  std::memset(out, 0, len);
  out[0] = uint8_t(MsgType::kInit);
  put_le32(out + 4, p.sender_index);

  st.sender_index = p.sender_index;
  st.cipher = p.cipher;
  st.e_priv = p.ephemeral_priv;
  st.e_pub = x25519_public_from_private(st.e_priv);
  initial_state(server_pub, st.ck, st.h);
  mix_hash(st.h, out, kHeaderLen);
  std::memcpy(out + 16, st.e_pub.data(), 32);
  mix_hash(st.h, st.e_pub.data(), 32);

  Key32 k;
  Wipe wipe_k(k);
  if (!mix_dh(st.ck, k, st.e_priv, server_pub)) return 0;  // es
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.seal(kZeroNonce, st.h.data(), 32, client_pub.data(), 32, out + 48)) return 0;
  }
  mix_hash(st.h, out + 48, 48);
  if (!mix_dh(st.ck, k, client_priv, server_pub)) return 0;  // ss

  uint8_t* payload = out + 96;
  for (int i = 0; i < 8; ++i) payload[i] = uint8_t(p.timestamp_ms >> (56 - 8 * i));  // big-endian
  payload[8] = uint8_t(p.cipher);
  // Padding bytes stay zero: they are encrypted, so their value is invisible; only the length varies.
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.seal(kZeroNonce, st.h.data(), 32, payload, payload_len, payload)) return 0;
  }
  mix_hash(st.h, payload, payload_len + kTagLen);
  if (!mac1.compute(out, len - kMac1Len, out + len - kMac1Len)) return 0;
  if (!mask_prefix(m, out, len, kMaskedHandshakePrefix)) return 0;
  return len;
}

bool read_init(const X25519Key& server, const uint8_t* buf, size_t len, ResponderState& st) {
  if (len < kInitMinLen || len > kInitMaxLen || buf[0] != uint8_t(MsgType::kInit)) return false;
  for (int i = 8; i < 16; ++i)
    if (buf[i] != 0) return false;
  const size_t body = len - kMac1Len;  // mac1 was checked by the caller and is not part of the transcript
  st.client_index = get_le32(buf + 4);
  initial_state(server.public_key(), st.ck, st.h);
  mix_hash(st.h, buf, kHeaderLen);
  std::memcpy(st.e_c.data(), buf + 16, 32);
  mix_hash(st.h, st.e_c.data(), 32);
  Key32 k;
  Wipe wipe_k(k);
  if (!mix_dh(st.ck, k, server, st.e_c)) return false;
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.open(kZeroNonce, st.h.data(), 32, buf + 48, 32, st.client_pub.data())) return false;
  }
  mix_hash(st.h, buf + 48, 48);
  if (!mix_dh(st.ck, k, server, st.client_pub)) return false;
  const size_t payload_len = body - 96 - kTagLen;
  uint8_t payload[9 + kMaxHandshakePad];
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.open(kZeroNonce, st.h.data(), 32, buf + 96, payload_len, payload)) return false;
  }
  mix_hash(st.h, buf + 96, payload_len + kTagLen);
  st.timestamp_ms = 0;
  for (int i = 0; i < 8; ++i) st.timestamp_ms = (st.timestamp_ms << 8) | payload[i];
  if (payload[8] != uint8_t(Cipher::kAes256Gcm) && payload[8] != uint8_t(Cipher::kChaCha20Poly1305)) return false;
  st.cipher = static_cast<Cipher>(payload[8]);
  return true;
}

// The cipher byte is mixed in so that one key is never used with two algorithms.
static void split(const Key32& ck, Cipher c, Key32& c2s, Key32& s2c, Key32& hdr_c2s, Key32& hdr_s2c) {
  const uint8_t id = uint8_t(c);
  hkdf2(ck, &id, 1, c2s, s2c);
  uint8_t ikm[sizeof kHeaderMaskLabel];  // the label without its terminating zero, then the cipher byte
  std::memcpy(ikm, kHeaderMaskLabel, sizeof kHeaderMaskLabel - 1);
  ikm[sizeof kHeaderMaskLabel - 1] = id;
  hkdf2(ck, ikm, sizeof ikm, hdr_c2s, hdr_s2c);
}

size_t write_response(const ResponderState& in, Masker& m, const ResponseParams& p, SessionKeys& keys, uint8_t* out) {
  if (p.pad_len > kMaxHandshakePad) return 0;
  Key32 ck = in.ck, h = in.h;
  Wipe wipe_ck(ck), wipe_h(h);
  const size_t payload_len = 1 + p.pad_len;
  const size_t len = kResponseMinLen + p.pad_len;
  std::memset(out, 0, len);
  out[0] = uint8_t(MsgType::kResponse);
  put_le32(out + 4, in.client_index);
  put_le32(out + 8, p.sender_index);
  mix_hash(h, out, kHeaderLen);
  Key32 e_pub = x25519_public_from_private(p.ephemeral_priv);
  std::memcpy(out + 16, e_pub.data(), 32);
  mix_hash(h, e_pub.data(), 32);
  Key32 k;
  Wipe wipe_k(k);
  if (!mix_dh(ck, k, p.ephemeral_priv, in.e_c)) return 0;         // ee
  if (!mix_dh(ck, k, p.ephemeral_priv, in.client_pub)) return 0;  // se
  uint8_t* payload = out + 48;
  payload[0] = uint8_t(in.cipher);
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.seal(kZeroNonce, h.data(), 32, payload, payload_len, payload)) return 0;
  }
  split(ck, in.cipher, keys.recv, keys.send, keys.hdr_recv, keys.hdr_send);
  keys.cipher = in.cipher;
  keys.local_index = p.sender_index;
  keys.remote_index = in.client_index;
  if (!mask_prefix(m, out, len, kMaskedHandshakePrefix)) return 0;
  return len;
}

bool read_response(const InitiatorState& st, const Key32& client_priv, const uint8_t* buf, size_t len,
                   SessionKeys& keys) {
  if (len < kResponseMinLen || len > kResponseMaxLen || buf[0] != uint8_t(MsgType::kResponse)) return false;
  if (get_le32(buf + 4) != st.sender_index) return false;
  for (int i = 12; i < 16; ++i)
    if (buf[i] != 0) return false;
  Key32 ck = st.ck, h = st.h;
  Wipe wipe_ck(ck), wipe_h(h);
  mix_hash(h, buf, kHeaderLen);
  Key32 e_s;
  std::memcpy(e_s.data(), buf + 16, 32);
  mix_hash(h, e_s.data(), 32);
  Key32 k;
  Wipe wipe_k(k);
  if (!mix_dh(ck, k, st.e_priv, e_s)) return false;    // ee
  if (!mix_dh(ck, k, client_priv, e_s)) return false;  // se
  const size_t payload_len = len - 48 - kTagLen;
  uint8_t payload[1 + kMaxHandshakePad];
  {
    Aead a(Cipher::kChaCha20Poly1305, k);
    if (!a.open(kZeroNonce, h.data(), 32, buf + 48, payload_len, payload)) return false;
  }
  // The server must confirm the client's choice; anything else means a confused or hostile peer.
  if (payload[0] != uint8_t(st.cipher)) return false;
  split(ck, st.cipher, keys.send, keys.recv, keys.hdr_send, keys.hdr_recv);
  keys.cipher = st.cipher;
  keys.local_index = st.sender_index;
  keys.remote_index = get_le32(buf + 8);
  return true;
}

size_t seal_data(Aead& a, Masker& m, uint32_t remote_index, uint64_t counter, uint8_t* buf, size_t pt_len) {
  buf[0] = uint8_t(MsgType::kData);
  buf[1] = buf[2] = buf[3] = 0;
  put_le32(buf + 4, remote_index);
  put_le64(buf + 8, counter);
  uint8_t nonce[12] = {0};
  put_le64(nonce + 4, counter);
  if (!a.seal(nonce, buf, kHeaderLen, buf + kHeaderLen, pt_len, buf + kHeaderLen)) return 0;
  const size_t len = pt_len + kDataOverhead;
  if (!mask_prefix(m, buf, len, kHeaderLen)) return 0;
  return len;
}

uint64_t data_counter(const uint8_t* hdr) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | hdr[8 + i];
  return v;
}

bool open_data(Aead& a, uint8_t* buf, size_t len) {
  if (len < kDataMinLen) return false;
  uint8_t nonce[12] = {0};
  std::memcpy(nonce + 4, buf + 8, 8);
  return a.open(nonce, buf, kHeaderLen, buf + kHeaderLen, len - kDataOverhead, buf + kHeaderLen);
}

size_t ip_packet_length(const uint8_t* pt, size_t avail) {
  if (avail < 20) return 0;
  const uint8_t version = pt[0] >> 4;
  size_t n = 0;
  if (version == 4) {
    n = (size_t(pt[2]) << 8) | pt[3];
    if (n < 20) return 0;
  } else if (version == 6) {
    if (avail < 40) return 0;
    n = 40 + ((size_t(pt[4]) << 8) | pt[5]);
  } else {
    return 0;
  }
  return n <= avail ? n : 0;
}

}  // namespace ferry

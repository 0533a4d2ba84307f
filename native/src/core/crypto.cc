// OpenSSL-backed implementations of the primitives declared in crypto.h; nothing here is hand-rolled.
#include "crypto.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstring>
#include <memory>

namespace ferry {

namespace {
struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* p) const { EVP_PKEY_CTX_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

const EVP_CIPHER* evp_for(Cipher c) { return c == Cipher::kAes256Gcm ? EVP_aes_256_gcm() : EVP_chacha20_poly1305(); }
}  // namespace

void random_bytes(uint8_t* buf, size_t len) {
  if (RAND_bytes(buf, static_cast<int>(len)) != 1) throw CryptoError("CSPRNG unavailable");
}

Key32 x25519_generate_private() {
  Key32 k;
  random_bytes(k.data(), k.size());
  return k;
}

Key32 x25519_public_from_private(const Key32& priv) { return X25519Key(priv).public_key(); }

bool x25519_shared(const Key32& priv, const Key32& peer_pub, Key32& out) {
  try {
    return X25519Key(priv).shared(peer_pub, out);
  } catch (const CryptoError&) {
    return false;
  }
}

X25519Key::X25519Key(const Key32& priv) {
  pkey_ = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nullptr, priv.data(), priv.size());
  if (!pkey_) throw CryptoError("invalid X25519 private key");
  size_t len = pub_.size();
  if (EVP_PKEY_get_raw_public_key(pkey_, pub_.data(), &len) != 1 || len != 32) {
    EVP_PKEY_free(pkey_);
    throw CryptoError("X25519 public key derivation failed");
  }
}

X25519Key::~X25519Key() { EVP_PKEY_free(pkey_); }

bool X25519Key::shared(const Key32& peer_pub, Key32& out) const {
  PkeyPtr peer(EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peer_pub.data(), peer_pub.size()));
  if (!peer) return false;
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new(pkey_, nullptr));
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1) return false;
  if (EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) != 1) return false;
  size_t len = out.size();
  // OpenSSL itself rejects an all-zero result (low-order points) in derive; we double check.
  if (EVP_PKEY_derive(ctx.get(), out.data(), &len) != 1 || len != 32) return false;
  uint8_t acc = 0;
  for (uint8_t b : out) acc |= b;
  return acc != 0;
}

Mac16::Mac16(const Key32& key) {
  mac_ = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  ctx_ = mac_ ? EVP_MAC_CTX_new(mac_) : nullptr;
  OSSL_PARAM params[2] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>("SHA256"), 0),
                          OSSL_PARAM_construct_end()};
  if (!ctx_ || EVP_MAC_init(ctx_, key.data(), key.size(), params) != 1) {
    EVP_MAC_CTX_free(ctx_);
    EVP_MAC_free(mac_);
    throw CryptoError("HMAC unavailable");
  }
}

Mac16::~Mac16() {
  EVP_MAC_CTX_free(ctx_);
  EVP_MAC_free(mac_);
}

bool Mac16::compute(const uint8_t* data, size_t len, uint8_t out[16]) {
  uint8_t full[32];
  size_t outl = 0;
  // A null key re-initialises with the key already set (OpenSSL 3).
  if (EVP_MAC_init(ctx_, nullptr, 0, nullptr) != 1 || EVP_MAC_update(ctx_, data, len) != 1 ||
      EVP_MAC_final(ctx_, full, &outl, sizeof full) != 1 || outl != 32)
    return false;
  std::memcpy(out, full, 16);
  return true;
}

bool Mac16::verify(const uint8_t* data, size_t len, const uint8_t tag[16]) {
  uint8_t want[16];
  return compute(data, len, want) && CRYPTO_memcmp(want, tag, 16) == 0;
}

void RandomPool::refill() {
  random_bytes(buf_, sizeof buf_);
  pos_ = 0;
}

uint32_t RandomPool::below(uint32_t n) {
  if (n <= 1) return 0;
  // Rejection sampling over one byte keeps every value equally likely.
  const uint32_t limit = 256 - 256 % n;
  for (;;) {
    const uint32_t b = byte();
    if (b < limit) return b % n;
  }
}

uint32_t RandomPool::u32() {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = v << 8 | byte();
  return v;
}

void sha256(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen, Key32& out) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  unsigned int len = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1 &&
            (alen == 0 || EVP_DigestUpdate(ctx, a, alen) == 1) && (blen == 0 || EVP_DigestUpdate(ctx, b, blen) == 1) &&
            EVP_DigestFinal_ex(ctx, out.data(), &len) == 1 && len == 32;
  EVP_MD_CTX_free(ctx);
  if (!ok) throw CryptoError("SHA-256 failed");
}

static void hkdf_raw(const uint8_t* salt, size_t salt_len, const uint8_t* ikm, size_t ikm_len, const uint8_t* info,
                     size_t info_len, uint8_t* out, size_t out_len) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* kctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
  EVP_KDF_free(kdf);
  if (!kctx) throw CryptoError("HKDF unavailable");
  // An empty IKM is legal in HKDF; OpenSSL needs a non-null pointer for it.
  static const uint8_t kEmpty[1] = {0};
  OSSL_PARAM params[5];
  int n = 0;
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>("SHA256"), 0);
  params[n++] =
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(ikm_len ? ikm : kEmpty), ikm_len);
  params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<uint8_t*>(salt), salt_len);
  if (info_len)
    params[n++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<uint8_t*>(info), info_len);
  params[n] = OSSL_PARAM_construct_end();
  int rc = EVP_KDF_derive(kctx, out, out_len, params);
  EVP_KDF_CTX_free(kctx);
  if (rc != 1) throw CryptoError("HKDF failed");
}

void hkdf2(const Key32& ck, const uint8_t* ikm, size_t ikm_len, Key32& out1, Key32& out2) {
  uint8_t okm[64];
  hkdf_raw(ck.data(), ck.size(), ikm, ikm_len, nullptr, 0, okm, sizeof okm);
  std::memcpy(out1.data(), okm, 32);
  std::memcpy(out2.data(), okm + 32, 32);
  OPENSSL_cleanse(okm, sizeof okm);
}

void hkdf_label(const uint8_t* salt, size_t salt_len, const uint8_t* ikm, size_t ikm_len, const char* info,
                Key32& out) {
  hkdf_raw(salt, salt_len, ikm, ikm_len, reinterpret_cast<const uint8_t*>(info), std::strlen(info), out.data(),
           out.size());
}

const char* cipher_name(Cipher c) { return c == Cipher::kAes256Gcm ? "aes-256-gcm" : "chacha20-poly1305"; }

bool cipher_from_name(const std::string& name, Cipher& out) {
  if (name == "aes-256-gcm") {
    out = Cipher::kAes256Gcm;
    return true;
  }
  if (name == "chacha20-poly1305") {
    out = Cipher::kChaCha20Poly1305;
    return true;
  }
  return false;
}

Aead::Aead(Cipher cipher, const Key32& key) {
  enc_ = EVP_CIPHER_CTX_new();
  dec_ = EVP_CIPHER_CTX_new();
  if (!enc_ || !dec_ || EVP_EncryptInit_ex(enc_, evp_for(cipher), nullptr, key.data(), nullptr) != 1 ||
      EVP_DecryptInit_ex(dec_, evp_for(cipher), nullptr, key.data(), nullptr) != 1) {
    EVP_CIPHER_CTX_free(enc_);
    EVP_CIPHER_CTX_free(dec_);
    enc_ = dec_ = nullptr;
    throw CryptoError("AEAD init failed");
  }
}

Aead::~Aead() {
  EVP_CIPHER_CTX_free(enc_);
  EVP_CIPHER_CTX_free(dec_);
}

Aead::Aead(Aead&& o) noexcept : enc_(o.enc_), dec_(o.dec_) { o.enc_ = o.dec_ = nullptr; }

Aead& Aead::operator=(Aead&& o) noexcept {
  if (this != &o) {
    EVP_CIPHER_CTX_free(enc_);
    EVP_CIPHER_CTX_free(dec_);
    enc_ = o.enc_;
    dec_ = o.dec_;
    o.enc_ = o.dec_ = nullptr;
  }
  return *this;
}

bool Aead::seal(const uint8_t nonce[12], const uint8_t* ad, size_t ad_len, const uint8_t* pt, size_t len,
                uint8_t* out) {
  int outl = 0;
  if (!enc_ || EVP_EncryptInit_ex(enc_, nullptr, nullptr, nullptr, nonce) != 1) return false;
  if (ad_len && EVP_EncryptUpdate(enc_, nullptr, &outl, ad, static_cast<int>(ad_len)) != 1) return false;
  if (len && EVP_EncryptUpdate(enc_, out, &outl, pt, static_cast<int>(len)) != 1) return false;
  if (EVP_EncryptFinal_ex(enc_, out + len, &outl) != 1) return false;
  return EVP_CIPHER_CTX_ctrl(enc_, EVP_CTRL_AEAD_GET_TAG, kTagLen, out + len) == 1;
}

bool Aead::open(const uint8_t nonce[12], const uint8_t* ad, size_t ad_len, const uint8_t* in, size_t len,
                uint8_t* out) {
  int outl = 0;
  if (!dec_ || EVP_DecryptInit_ex(dec_, nullptr, nullptr, nullptr, nonce) != 1) return false;
  if (ad_len && EVP_DecryptUpdate(dec_, nullptr, &outl, ad, static_cast<int>(ad_len)) != 1) return false;
  if (len && EVP_DecryptUpdate(dec_, out, &outl, in, static_cast<int>(len)) != 1) return false;
  if (EVP_CIPHER_CTX_ctrl(dec_, EVP_CTRL_AEAD_SET_TAG, kTagLen, const_cast<uint8_t*>(in + len)) != 1) return false;
  return EVP_DecryptFinal_ex(dec_, out + len, &outl) == 1;
}

Masker::Masker(const Key32& key) {
  ctx_ = EVP_CIPHER_CTX_new();
  if (!ctx_ || EVP_EncryptInit_ex(ctx_, EVP_aes_256_ctr(), nullptr, key.data(), nullptr) != 1) {
    EVP_CIPHER_CTX_free(ctx_);
    ctx_ = nullptr;
    throw CryptoError("mask init failed");
  }
}

Masker::~Masker() { EVP_CIPHER_CTX_free(ctx_); }

bool Masker::apply(const uint8_t iv[16], uint8_t* buf, size_t len) {
  int outl = 0;
  if (!ctx_ || EVP_EncryptInit_ex(ctx_, nullptr, nullptr, nullptr, iv) != 1) return false;
  return EVP_EncryptUpdate(ctx_, buf, &outl, buf, static_cast<int>(len)) == 1;
}

KeyStream::KeyStream(const Key32& key, const uint8_t iv[16]) {
  ctx_ = EVP_CIPHER_CTX_new();
  if (!ctx_ || EVP_EncryptInit_ex(ctx_, EVP_aes_256_ctr(), nullptr, key.data(), iv) != 1) {
    EVP_CIPHER_CTX_free(ctx_);
    ctx_ = nullptr;
    throw CryptoError("keystream init failed");
  }
}

KeyStream::~KeyStream() { EVP_CIPHER_CTX_free(ctx_); }

bool KeyStream::apply(uint8_t* buf, size_t len) {
  int outl = 0;
  return ctx_ && EVP_EncryptUpdate(ctx_, buf, &outl, buf, static_cast<int>(len)) == 1;
}

std::string base64_encode(const uint8_t* data, size_t len) {
  std::string out(4 * ((len + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(&out[0]), data, static_cast<int>(len));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

bool base64_decode_key(const std::string& text, Key32& out) {
  size_t n = text.size();
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ')) --n;
  // 32 bytes encode to exactly 44 characters ending in one '='.
  if (n != 44 || text[43] != '=' || text[42] == '=') return false;
  unsigned char buf[33];
  int got = EVP_DecodeBlock(buf, reinterpret_cast<const unsigned char*>(text.data()), 44);
  bool ok = got == 33;  // EVP_DecodeBlock counts the padding byte
  if (ok) std::memcpy(out.data(), buf, 32);
  OPENSSL_cleanse(buf, sizeof buf);
  if (!ok) return false;
  // Reject non-canonical encodings by re-encoding (the copy may be a private key: erase it).
  std::string again = base64_encode(out.data(), 32);
  ok = again.size() == 44 && CRYPTO_memcmp(again.data(), text.data(), 44) == 0;
  OPENSSL_cleanse(&again[0], again.size());
  if (!ok) OPENSSL_cleanse(out.data(), out.size());
  return ok;
}

bool equal_ct(const uint8_t* a, const uint8_t* b, size_t len) { return CRYPTO_memcmp(a, b, len) == 0; }

}  // namespace ferry

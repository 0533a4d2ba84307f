// Thin C++ wrappers over OpenSSL libcrypto (X25519, HKDF-SHA256, SHA-256, AEADs, AES-CTR, CSPRNG).
#pragma once

#include <openssl/evp.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ferry {

using Key32 = std::array<uint8_t, 32>;

// Thrown only on setup paths (bad key material, OpenSSL failure); the per-packet paths return bool.
class CryptoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Fills buf from OpenSSL's CSPRNG; throws if the generator is unavailable (fail closed).
void random_bytes(uint8_t* buf, size_t len);

// X25519: private keys are 32 random bytes (clamped by OpenSSL on use).
Key32 x25519_generate_private();
Key32 x25519_public_from_private(const Key32& priv);
// Returns false when the shared secret is all zero (low-order peer point): the handshake must fail.
bool x25519_shared(const Key32& priv, const Key32& peer_pub, Key32& out);

// A static X25519 private key parsed into OpenSSL once, for the many handshakes that use it.
// shared() may be called from one thread at a time.
class X25519Key {
 public:
  explicit X25519Key(const Key32& priv);
  ~X25519Key();
  X25519Key(const X25519Key&) = delete;
  X25519Key& operator=(const X25519Key&) = delete;
  const Key32& public_key() const { return pub_; }
  // Same contract as x25519_shared.
  bool shared(const Key32& peer_pub, Key32& out) const;

 private:
  EVP_PKEY* pkey_ = nullptr;
  Key32 pub_{};
};

// MAC(k, x) of docs/protocol.md: the first 16 bytes of HMAC-SHA256. One instance per thread.
class Mac16 {
 public:
  explicit Mac16(const Key32& key);
  ~Mac16();
  Mac16(const Mac16&) = delete;
  Mac16& operator=(const Mac16&) = delete;
  bool compute(const uint8_t* data, size_t len, uint8_t out[16]);
  // Constant-time check of a 16-byte tag.
  bool verify(const uint8_t* data, size_t len, const uint8_t tag[16]);

 private:
  EVP_MAC* mac_ = nullptr;
  EVP_MAC_CTX* ctx_ = nullptr;
};

// Random bytes from OpenSSL's CSPRNG, fetched in blocks so that the per-packet cost is a memory read.
// One instance per thread.
class RandomPool {
 public:
  uint8_t byte() {
    if (pos_ == sizeof buf_) refill();
    return buf_[pos_++];
  }
  // Uniform in [0, n) for n <= 256, without modulo bias.
  uint32_t below(uint32_t n);
  uint32_t u32();

 private:
  void refill();
  uint8_t buf_[1024];
  size_t pos_ = sizeof buf_;
};

void sha256(const uint8_t* a, size_t alen, const uint8_t* b, size_t blen, Key32& out);
// HKDF-SHA256 with salt=ck, ikm, empty info, 64 output bytes split into (out1, out2), as Noise's HKDF.
void hkdf2(const Key32& ck, const uint8_t* ikm, size_t ikm_len, Key32& out1, Key32& out2);
// HKDF-SHA256 with explicit salt and info, 32 output bytes; used for labelled derivations.
void hkdf_label(const uint8_t* salt, size_t salt_len, const uint8_t* ikm, size_t ikm_len, const char* info, Key32& out);

enum class Cipher : uint8_t { kAes256Gcm = 1, kChaCha20Poly1305 = 2 };
const char* cipher_name(Cipher c);
bool cipher_from_name(const std::string& name, Cipher& out);

constexpr size_t kTagLen = 16;

// One AEAD key with a reusable OpenSSL context. Not thread-safe: one instance per thread/direction.
class Aead {
 public:
  Aead() = default;
  Aead(Cipher cipher, const Key32& key);
  ~Aead();
  Aead(const Aead&) = delete;
  Aead& operator=(const Aead&) = delete;
  Aead(Aead&& o) noexcept;
  Aead& operator=(Aead&& o) noexcept;

  // out receives len bytes of ciphertext followed by the 16-byte tag; out may equal pt.
  bool seal(const uint8_t nonce[12], const uint8_t* ad, size_t ad_len, const uint8_t* pt, size_t len, uint8_t* out);
  // in is len bytes of ciphertext followed by the tag; out receives len bytes; false on any mismatch.
  bool open(const uint8_t nonce[12], const uint8_t* ad, size_t ad_len, const uint8_t* in, size_t len, uint8_t* out);
  bool valid() const { return enc_ != nullptr; }

 private:
  EVP_CIPHER_CTX* enc_ = nullptr;
  EVP_CIPHER_CTX* dec_ = nullptr;
};

// AES-256-CTR keystream used to mask headers (obfuscation, not confidentiality). Not thread-safe.
class Masker {
 public:
  Masker() = default;
  explicit Masker(const Key32& key);
  ~Masker();
  Masker(const Masker&) = delete;
  Masker& operator=(const Masker&) = delete;
  // XORs len bytes of buf with AES-256-CTR(key, iv) starting at block 0.
  bool apply(const uint8_t iv[16], uint8_t* buf, size_t len);
  bool valid() const { return ctx_ != nullptr; }

 private:
  EVP_CIPHER_CTX* ctx_ = nullptr;
};

// A continuous AES-256-CTR stream (TCP length masks): each call consumes keystream.
class KeyStream {
 public:
  KeyStream() = default;
  KeyStream(const Key32& key, const uint8_t iv[16]);
  ~KeyStream();
  KeyStream(const KeyStream&) = delete;
  KeyStream& operator=(const KeyStream&) = delete;
  bool apply(uint8_t* buf, size_t len);

 private:
  EVP_CIPHER_CTX* ctx_ = nullptr;
};

std::string base64_encode(const uint8_t* data, size_t len);
// Strict: exactly 32 decoded bytes, or false.
bool base64_decode_key(const std::string& text, Key32& out);

// Constant-time comparison for key material.
bool equal_ct(const uint8_t* a, const uint8_t* b, size_t len);

}  // namespace ferry

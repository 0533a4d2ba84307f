// Preamble generation/validation and the keyed length masks of Ferry's TCP records.
#include "tcp-framing.h"

#include <cstring>

namespace ferry {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kTcpSalt[] = "ferry-v2-tcp";

int alphabet_index(uint8_t c) {
  const char* p = c ? std::strchr(kAlphabet, c) : nullptr;
  return p ? int(p - kAlphabet) : -1;
}
}  // namespace

std::string make_preamble() {
  uint8_t r[kPreambleMax];
  random_bytes(r, sizeof r);
  const size_t len = kPreambleMin + (r[0] & 63);
  std::string s(len, 'A');
  // 64 divides 256, so taking the low 6 bits keeps every character uniform.
  for (size_t i = 0; i < len; ++i) s[i] = kAlphabet[r[i] & 63];
  return s;
}

size_t preamble_length(uint8_t first) {
  int v = alphabet_index(first);
  return v < 0 ? 0 : kPreambleMin + size_t(v);
}

bool preamble_valid(const uint8_t* p, size_t n) {
  if (n < kPreambleMin || preamble_length(p[0]) != n) return false;
  for (size_t i = 0; i < n; ++i)
    if (alphabet_index(p[i]) < 0) return false;
  return true;
}

RecordMasks::RecordMasks(const Key32& server_pub, const uint8_t* preamble, size_t preamble_len) {
  Key32 c2s_key, s2c_key, digest;
  const uint8_t* salt = reinterpret_cast<const uint8_t*>(kTcpSalt);
  hkdf_label(salt, sizeof kTcpSalt - 1, server_pub.data(), server_pub.size(), "c2s-length", c2s_key);
  hkdf_label(salt, sizeof kTcpSalt - 1, server_pub.data(), server_pub.size(), "s2c-length", s2c_key);
  sha256(preamble, preamble_len, nullptr, 0, digest);
  c2s_ = std::make_unique<KeyStream>(c2s_key, digest.data());
  s2c_ = std::make_unique<KeyStream>(s2c_key, digest.data());
}

}  // namespace ferry

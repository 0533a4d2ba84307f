// Ferry over TCP: the printable preamble, per-direction length masks and record parsing (no I/O).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "crypto.h"

namespace ferry {

constexpr size_t kPreambleMin = 24;
constexpr size_t kPreambleMax = kPreambleMin + 63;
constexpr size_t kRecordLenBytes = 2;
// Largest message: a jumbo-MTU (9000) packet with header, tag (32) and the most padding (63), rounded up.
constexpr size_t kMaxRecord = 9000 + 128;

// Random preamble of 24 + v base64-alphabet characters, v being the alphabet index of the first one.
std::string make_preamble();
// Total preamble length announced by its first byte, or 0 if the byte is not in the alphabet.
size_t preamble_length(uint8_t first);
bool preamble_valid(const uint8_t* p, size_t n);

// Length masks of one TCP connection, keyed by the server's public key and the connection's preamble.
class RecordMasks {
 public:
  RecordMasks(const Key32& server_pub, const uint8_t* preamble, size_t preamble_len);
  // Masks/unmasks the 2-byte length of the next record in each direction (consumes keystream).
  void c2s(uint8_t len_bytes[2]) { c2s_->apply(len_bytes, 2); }
  void s2c(uint8_t len_bytes[2]) { s2c_->apply(len_bytes, 2); }

 private:
  std::unique_ptr<KeyStream> c2s_, s2c_;
};

}  // namespace ferry

// The browser ClientHello template the TLS transport copies, in the line form that native/hello-template.ts
// compiles native/hello/*.json into (no I/O; see docs/protocol.md, "TLS transport").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ferry {

// The GREASE slots (RFC 8701): each hello draws one value per slot, as Chrome does.
enum GreaseSlot : uint8_t { kGreaseCipher, kGreaseGroup, kGreaseExt1, kGreaseExt2, kGreaseVersion, kGreaseSigalg };
constexpr int kGreaseSlots = 6;

// Bytes in which some pairs are GREASE placeholders: a token below 256 is a byte, 256 + slot stands for that
// slot's two bytes.
using GreaseBytes = std::vector<uint16_t>;
constexpr uint16_t kGreaseToken = 256;

struct HelloExtensionTemplate {
  enum class Kind { kFixed, kServerName, kKeyShare, kEchGrease };
  Kind kind = Kind::kFixed;
  int type_slot = -1;  // >= 0: the extension's type is that slot's GREASE value
  uint16_t type = 0;
  GreaseBytes data;              // kFixed
  std::vector<uint16_t> shares;  // kKeyShare, in order: 0 = a GREASE share (group slot), 0x11ec, 0x001d
  uint16_t kdf = 0, aead = 0;    // kEchGrease
  std::vector<uint16_t> payload_lengths;
};

struct HelloTemplate {
  uint16_t record_version = 0, legacy_version = 0;
  GreaseBytes cipher_suites;
  std::vector<uint8_t> compression;
  std::vector<HelloExtensionTemplate> extensions;
  bool shuffle = false;  // every extension but the GREASE ones is permuted per hello
};

// Parses the line form; false with a reason in `error` on anything it does not know (fail closed).
bool parse_hello_template(const std::string& text, HelloTemplate& out, std::string& error);

}  // namespace ferry

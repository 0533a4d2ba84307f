// Parser of the ClientHello template's line form (one item per line, space-separated tokens).
#include "tls-template.h"

#include <cstdlib>
#include <sstream>

namespace ferry {

namespace {

const char* const kSlotNames[kGreaseSlots] = {"cipher", "group", "ext1", "ext2", "version", "sigalg"};

int slot_of(const std::string& token) {
  for (int i = 0; i < kGreaseSlots; ++i)
    if (token == std::string("{") + kSlotNames[i] + "}") return i;
  return -1;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool parse_hex16(const std::string& s, uint16_t& out) {
  if (s.size() != 4) return false;
  unsigned v = 0;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    v = v * 16 + unsigned(d);
  }
  out = uint16_t(v);
  return true;
}

// Hex bytes with {slot} placeholders.
bool parse_grease_bytes(const std::string& s, GreaseBytes& out) {
  out.clear();
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '{') {
      const size_t end = s.find('}', i);
      if (end == std::string::npos) return false;
      const int slot = slot_of(s.substr(i, end - i + 1));
      if (slot < 0) return false;
      out.push_back(uint16_t(kGreaseToken + slot));
      i = end + 1;
      continue;
    }
    if (i + 1 >= s.size() || hex_digit(s[i]) < 0 || hex_digit(s[i + 1]) < 0) return false;
    out.push_back(uint16_t(hex_digit(s[i]) * 16 + hex_digit(s[i + 1])));
    i += 2;
  }
  return true;
}

bool parse_extension(std::istringstream& in, HelloExtensionTemplate& e, std::string& error) {
  std::string type, kind;
  in >> type >> kind;
  e.type_slot = slot_of(type);
  if (e.type_slot < 0 && !parse_hex16(type, e.type)) return error = "bad extension type " + type, false;
  std::string rest, tok;
  std::vector<std::string> args;
  while (in >> tok) args.push_back(tok);
  if (kind == "fixed") {
    e.kind = HelloExtensionTemplate::Kind::kFixed;
    if (args.size() > 1 || !parse_grease_bytes(args.empty() ? "" : args[0], e.data))
      return error = "bad data of extension " + type, false;
    return true;
  }
  if (e.type_slot >= 0) return error = "a GREASE extension must be fixed", false;
  if (kind == "server_name" && e.type == 0x0000 && args.empty()) {
    e.kind = HelloExtensionTemplate::Kind::kServerName;
    return true;
  }
  if (kind == "key_share" && e.type == 0x0033 && !args.empty()) {
    e.kind = HelloExtensionTemplate::Kind::kKeyShare;
    bool x25519 = false;
    for (const auto& a : args) {
      uint16_t g = 0;
      if (a == "{group}")
        g = 0;
      else if (!parse_hex16(a, g) || (g != 0x11ec && g != 0x001d))
        return error = "no builder for key share " + a, false;
      x25519 = x25519 || g == 0x001d;
      e.shares.push_back(g);
    }
    if (!x25519) return error = "the key shares lack X25519 (it carries the authentication)", false;
    return true;
  }
  if (kind == "ech_grease" && e.type == 0xfe0d && args.size() >= 3) {
    e.kind = HelloExtensionTemplate::Kind::kEchGrease;
    if (!parse_hex16(args[0], e.kdf) || !parse_hex16(args[1], e.aead)) return error = "bad ECH suite", false;
    for (size_t i = 2; i < args.size(); ++i) {
      char* end = nullptr;
      const unsigned long n = std::strtoul(args[i].c_str(), &end, 10);
      if (*end != '\0' || n < 17 || n > 1024) return error = "bad ECH payload length " + args[i], false;
      e.payload_lengths.push_back(uint16_t(n));
    }
    return true;
  }
  return error = "unknown extension kind " + kind + " for " + type, false;
}

}  // namespace

bool parse_hello_template(const std::string& text, HelloTemplate& out, std::string& error) {
  out = HelloTemplate();
  std::istringstream lines(text);
  std::string line;
  bool have_record = false, have_legacy = false, have_suites = false, have_permute = false, sni = false,
       x25519 = false;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream in(line);
    std::string key, value;
    in >> key;
    if (key == "ext") {
      HelloExtensionTemplate e;
      if (!parse_extension(in, e, error)) return false;
      for (const auto& o : out.extensions)
        if ((e.type_slot >= 0 && o.type_slot == e.type_slot) ||
            (e.type_slot < 0 && o.type_slot < 0 && o.type == e.type))
          return error = "an extension twice", false;
      sni = sni || e.kind == HelloExtensionTemplate::Kind::kServerName;
      x25519 = x25519 || e.kind == HelloExtensionTemplate::Kind::kKeyShare;
      out.extensions.push_back(std::move(e));
      continue;
    }
    in >> value;
    std::string extra;
    if (in >> extra) return error = "extra tokens after " + key, false;
    if (key == "record_version") {
      have_record = parse_hex16(value, out.record_version);
      if (!have_record) return error = "bad record_version", false;
    } else if (key == "legacy_version") {
      have_legacy = parse_hex16(value, out.legacy_version);
      if (!have_legacy) return error = "bad legacy_version", false;
    } else if (key == "cipher_suites") {
      have_suites = parse_grease_bytes(value, out.cipher_suites) && !out.cipher_suites.empty();
      size_t bytes = 0;
      for (uint16_t t : out.cipher_suites) bytes += t >= kGreaseToken ? 2 : 1;
      if (!have_suites || bytes % 2) return error = "bad cipher_suites", false;
    } else if (key == "compression") {
      GreaseBytes c;
      if (!parse_grease_bytes(value, c) || c.empty()) return error = "bad compression", false;
      for (uint16_t t : c) {
        if (t >= kGreaseToken) return error = "bad compression", false;
        out.compression.push_back(uint8_t(t));
      }
    } else if (key == "permute") {
      if (value != "shuffle-all-but-grease" && value != "fixed") return error = "unknown permutation " + value, false;
      out.shuffle = value == "shuffle-all-but-grease";
      have_permute = true;
    } else {
      return error = "unknown item " + key, false;
    }
  }
  if (!have_record || !have_legacy || !have_suites || out.compression.empty() || !have_permute)
    return error = "the template lacks an item", false;
  if (!sni || !x25519) return error = "the template needs a server_name and a key_share", false;
  return true;
}

}  // namespace ferry

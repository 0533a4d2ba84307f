// The C++ unit tests' minimal framework (core-test, tls-test): CHECK counts and reports failures; hex and
// fixed-key helpers, docs/protocol.md's vectors, and the command line they share.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>

#include "../src/core/crypto.h"
#include "../src/core/tcp-framing.h"

inline int g_failures = 0;
inline int g_checks = 0;
#define CHECK(cond)                                                        \
  do {                                                                     \
    ++g_checks;                                                            \
    if (!(cond)) {                                                         \
      ++g_failures;                                                        \
      std::fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                      \
  } while (0)

inline std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

// The key whose bytes are start, start + 1, ..., start + 31.
inline ferry::Key32 seq_key(uint8_t start) {
  ferry::Key32 k;
  for (int i = 0; i < 32; ++i) k[i] = uint8_t(start + i);
  return k;
}

// Reads "vector.name.key = value" lines from the protocol document's test-vector section (keys without
// "vector.").
inline std::map<std::string, std::string> parse_doc(const char* path) {
  std::map<std::string, std::string> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    auto eq = line.find(" = ");
    if (line.rfind("vector.", 0) != 0 || eq == std::string::npos) continue;
    out[line.substr(7, eq - 7)] = line.substr(eq + 3);
  }
  return out;
}

// `program <docs/protocol.md>` runs the tests (run(doc)); `program --print-vectors` prints the vectors.
inline int unit_main(int argc, char** argv, const char* program, void (*print_vectors)(),
                     void (*run)(const char* doc)) {
  if (argc == 2 && std::strcmp(argv[1], "--print-vectors") == 0) {
    print_vectors();
    return 0;
  }
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <docs/protocol.md> | --print-vectors\n", program);
    return 2;
  }
  run(argv[1]);
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

// The vectors c2s_masks/s2c_masks: the 2-byte length masks of the first two records in each direction of a
// stream keyed by the node's public key and `seed` (the preamble on Ferry TCP, the client random in TLS).
inline void put_mask_vectors(std::map<std::string, std::string>& kv, const ferry::Key32& server_pub,
                             const uint8_t* seed, size_t seed_len) {
  ferry::RecordMasks masks(server_pub, seed, seed_len);
  uint8_t c2s[4] = {0}, s2c[4] = {0};
  masks.c2s(c2s);
  masks.c2s(c2s + 2);
  masks.s2c(s2c);
  masks.s2c(s2c + 2);
  kv["c2s_masks"] = hex(c2s, 4);
  kv["s2c_masks"] = hex(s2c, 4);
}

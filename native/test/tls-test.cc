// C++ unit tests of the TLS transport's core (tls-template, tls-hello, tls-records): docs/protocol.md's TLS
// test vectors, round trips, every tampered byte, the time window, replays, malformed input, record framing.
// Usage: tls-test <path to docs/protocol.md>   |   tls-test --print-vectors
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "../src/core/crypto.h"
#include "../src/core/tcp-framing.h"
#include "../src/core/tls-hello.h"
#include "../src/core/tls-records.h"
#include "../src/core/tls-template.h"
#include "hello-templates.h"
#include "unit-check.h"

using namespace ferry;

// A deterministic stand-in for the CSPRNG: the AES-256-CTR keystream of an all-zero key and counter.
class FixedBytes final : public ByteSource {
 public:
  FixedBytes() : ks_(Key32{}, kZeroIv) {}
  void fill(uint8_t* p, size_t n) override {
    std::memset(p, 0, n);
    ks_.apply(p, n);
  }

 private:
  static constexpr uint8_t kZeroIv[16] = {};
  KeyStream ks_;
};

static const char* const kVectorTemplate = test_templates::kVector;
static const char* const kChromeLike = test_templates::kChromeLike;

static const uint32_t kVectorTime = 1700000000;
static const char* kVectorName = "cover.example";

static HelloTemplate parsed(const char* text) {
  HelloTemplate t;
  std::string error;
  if (!parse_hello_template(text, t, error)) std::fprintf(stderr, "template: %s\n", error.c_str());
  return t;
}

// A parsed hello: suites and extension types in order, and each extension's data.
struct Shape {
  std::vector<uint16_t> suites, types;
  std::map<uint16_t, std::vector<uint8_t>> data;
  std::vector<uint8_t> random, session_id;
};

static bool grease(uint16_t v) { return (v & 0x0f0f) == 0x0a0a && (v >> 8) == (v & 0xff); }

static bool shape_of(const std::vector<uint8_t>& r, Shape& s) {
  if (r.size() < 5 + 4 + 2 + 32 + 1) return false;
  size_t p = 9 + 2;
  s.random.assign(r.begin() + long(p), r.begin() + long(p + 32));
  p += 32;
  const size_t sl = r[p++];
  s.session_id.assign(r.begin() + long(p), r.begin() + long(p + sl));
  p += sl;
  const size_t cl = size_t(r[p]) << 8 | r[p + 1];
  p += 2;
  for (size_t i = 0; i < cl; i += 2) s.suites.push_back(uint16_t(r[p + i] << 8 | r[p + i + 1]));
  p += cl;
  p += 1 + r[p];
  const size_t el = size_t(r[p]) << 8 | r[p + 1];
  p += 2;
  const size_t end = p + el;
  if (end != r.size()) return false;
  while (p + 4 <= end) {
    const uint16_t t = uint16_t(r[p] << 8 | r[p + 1]);
    const size_t l = size_t(r[p + 2]) << 8 | r[p + 3];
    s.types.push_back(t);
    s.data[t].assign(r.begin() + long(p + 4), r.begin() + long(p + 4 + l));
    p += 4 + l;
  }
  return p == end;
}

static std::vector<uint8_t> vector_hello() {
  FixedBytes rnd;
  std::array<uint8_t, 32> cr;
  return build_client_hello(parsed(kVectorTemplate), kVectorName, x25519_public_from_private(seq_key(0x21)),
                            kVectorTime, rnd, cr);
}

static std::map<std::string, std::string> run_vectors() {
  std::map<std::string, std::string> kv;
  const std::vector<uint8_t> hello = vector_hello();
  kv["hello"] = hex(hello.data(), hello.size());
  X25519Key node(seq_key(0x21));
  TlsReplayCache cache;
  AuthenticHello ok;
  kv["node_accepts"] =
      check_client_hello(hello.data(), hello.size(), node, kVectorTime, cache, ok) == HelloVerdict::kAuthentic ? "yes"
                                                                                                             : "no";
  TlsReplayCache fresh;
  kv["node_accepts_121s_later"] =
      check_client_hello(hello.data(), hello.size(), node, kVectorTime + 121, fresh, ok) == HelloVerdict::kAuthentic
          ? "yes"
          : "no";
  // The length masks of the stream inside the records: keyed as Ferry TCP's, with the client random in place
  // of the preamble.
  put_mask_vectors(kv, x25519_public_from_private(seq_key(0x21)), hello.data() + 11, 32);
  return kv;
}

static void test_vectors(const char* doc) {
  const std::map<std::string, std::string> expected = parse_doc(doc);
  for (auto& [k, val] : run_vectors()) {
    auto it = expected.find("tls." + k);
    const bool match = it != expected.end() && it->second == val;
    if (!match) std::fprintf(stderr, "vector tls.%s differs\n", k.c_str());
    CHECK(match);
  }
}

static void test_template_parser() {
  HelloTemplate t;
  std::string error;
  CHECK(parse_hello_template(kChromeLike, t, error));
  CHECK(t.extensions.size() == 18 && t.shuffle);
  const char* bad[] = {
      "",
      "record_version 0301\n",
      "record_version 03x1\nlegacy_version 0303\ncipher_suites 1301\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 001d\npermute fixed\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites {nope}1301\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 001d\npermute fixed\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites 1301\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 11ec\npermute fixed\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites 1301\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 001d\next 0033 fixed 00\npermute fixed\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites 130\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 001d\npermute fixed\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites 1301\ncompression 00\next 0000 server_name\n"
      "ext 0033 key_share 001d\npermute sometimes\n",
      "record_version 0301\nlegacy_version 0303\ncipher_suites 1301\ncompression 00\next 0033 key_share 001d\n"
      "permute fixed\n",
  };
  for (const char* b : bad) CHECK(!parse_hello_template(b, t, error));
}

// Hellos built from the Chrome-like template: the node accepts them, they parse, their fingerprint-relevant
// sets equal the template's, and what Chrome varies varies.
static void test_round_trip_and_shape() {
  const HelloTemplate t = parsed(kChromeLike);
  const Key32 node_priv = x25519_generate_private();
  const Key32 node_pub = x25519_public_from_private(node_priv);
  X25519Key node(node_priv);
  TlsReplayCache cache;
  SystemBytes rnd;
  std::set<std::string> orders, randoms;
  std::set<uint16_t> cipher_grease, ext1;
  std::set<size_t> ech_lengths;
  const int64_t now = 1800000000;
  for (int i = 0; i < 40; ++i) {
    std::array<uint8_t, 32> cr;
    const std::vector<uint8_t> h = build_client_hello(t, "www.example.com", node_pub, uint32_t(now), rnd, cr);
    AuthenticHello a;
    CHECK(check_client_hello(h.data(), h.size(), node, now, cache, a) == HelloVerdict::kAuthentic);
    CHECK(a.record_len == h.size() && std::memcmp(a.client_random.data(), cr.data(), 32) == 0);
    CHECK(h[0] == 22 && h[1] == 3 && h[2] == 1);
    Shape s;
    CHECK(shape_of(h, s));
    CHECK(s.session_id.size() == 32 && std::memcmp(s.random.data(), cr.data(), 32) == 0);
    CHECK(s.suites.size() == 16 && grease(s.suites[0]) && s.suites[1] == 0x1301 && s.suites[15] == 0x0035);
    CHECK(s.types.size() == 18 && grease(s.types.front()) && grease(s.types.back()));
    CHECK(s.types.front() != s.types.back());
    std::vector<uint16_t> sorted(s.types.begin() + 1, s.types.end() - 1);
    std::sort(sorted.begin(), sorted.end());
    const std::vector<uint16_t> want = {0x0000, 0x0005, 0x000a, 0x000b, 0x000d, 0x0010, 0x0012, 0x0017,
                                        0x001b, 0x0023, 0x002b, 0x002d, 0x0033, 0x44cd, 0xfe0d, 0xff01};
    CHECK(sorted == want);
    // The group GREASE is the same in supported_groups and key_share, as Chrome's.
    const auto& ks = s.data[0x0033];
    const auto& groups = s.data[0x000a];
    CHECK(ks.size() == 2 + 5 + 4 + 1216 + 4 + 32 && groups.size() == 12 && ks[2] == groups[2] && ks[3] == groups[3]);
    CHECK(ks[7] == 0x11 && ks[8] == 0xec && ks[9] == 0x04 && ks[10] == 0xc0);
    // ML-KEM coefficients are below q.
    bool below_q = true;
    for (size_t j = 0; j < 1152; j += 3) {
      const uint8_t* b = ks.data() + 11 + j;
      below_q = below_q && (b[0] | (b[1] & 15) << 8) < 3329 && (b[1] >> 4 | b[2] << 4) < 3329;
    }
    CHECK(below_q);
    const auto& sni = s.data[0x0000];
    CHECK(std::string(sni.begin() + 5, sni.end()) == "www.example.com");
    const auto& ech = s.data[0xfe0d];
    ech_lengths.insert(size_t(ech[40]) << 8 | ech[41]);
    CHECK(ech.size() == 42 + (size_t(ech[40]) << 8 | ech[41]) && (ech[39] & 0x80) == 0);
    std::string order;
    for (uint16_t ty : s.types)
      if (!grease(ty)) order += hex(reinterpret_cast<const uint8_t*>(&ty), 2);
    orders.insert(order);
    randoms.insert(hex(cr.data(), 32));
    cipher_grease.insert(s.suites[0]);
    ext1.insert(s.types.front());
  }
  CHECK(orders.size() == 40 && randoms.size() == 40);
  CHECK(cipher_grease.size() > 4 && ext1.size() > 4);
  CHECK(ech_lengths == std::set<size_t>({144, 176, 208, 240}));
}

// Every changed byte of an authentic hello (and of its record's type and length) makes it a stranger's; so do
// the wrong node key, a time past the window, a replay, a full cache, and every truncation.
static void test_tamper_time_replay() {
  const Key32 node_priv = seq_key(0x21);
  X25519Key node(node_priv);
  const std::vector<uint8_t> h = vector_hello();
  AuthenticHello a;
  // The record header's version (bytes 1..2) is the record layer's, not the hello's: not authenticated.
  for (size_t i = 0; i < h.size(); ++i) {
    if (i == 1 || i == 2) continue;
    std::vector<uint8_t> t = h;
    t[i] ^= 0x01;
    TlsReplayCache cache;
    CHECK(check_client_hello(t.data(), t.size(), node, kVectorTime, cache, a) != HelloVerdict::kAuthentic);
  }
  for (int64_t d : {-120, 120}) {
    TlsReplayCache cache;
    CHECK(check_client_hello(h.data(), h.size(), node, kVectorTime + d, cache, a) == HelloVerdict::kAuthentic);
  }
  for (int64_t d : {-121, 121, 100000}) {
    TlsReplayCache cache;
    CHECK(check_client_hello(h.data(), h.size(), node, kVectorTime + d, cache, a) == HelloVerdict::kStranger);
  }
  X25519Key other(x25519_generate_private());
  TlsReplayCache c1;
  CHECK(check_client_hello(h.data(), h.size(), other, kVectorTime, c1, a) == HelloVerdict::kStranger);
  TlsReplayCache c2;
  CHECK(check_client_hello(h.data(), h.size(), node, kVectorTime, c2, a) == HelloVerdict::kAuthentic);
  CHECK(check_client_hello(h.data(), h.size(), node, kVectorTime + 60, c2, a) == HelloVerdict::kStranger);
  // Still refused just before the entry expires (2 windows), accepted again only when the window is long past.
  CHECK(check_client_hello(h.data(), h.size(), node, kVectorTime + 119, c2, a) == HelloVerdict::kStranger);
  // A full cache refuses (fail closed) until entries expire.
  TlsReplayCache small(1);
  uint8_t r1[32] = {1}, r2[32] = {2};
  CHECK(small.insert(r1, 1000));
  CHECK(!small.insert(r2, 1001));
  CHECK(small.insert(r2, 1000 + 2 * kTlsHelloWindowS));
  // Every proper prefix: incomplete (never authentic, never a crash); more than the record is not read.
  for (size_t n = 0; n < h.size(); ++n) {
    TlsReplayCache cache;
    CHECK(check_client_hello(h.data(), n, node, kVectorTime, cache, a) == HelloVerdict::kIncomplete);
  }
  std::vector<uint8_t> longer = h;
  longer.insert(longer.end(), 100, 0x17);
  TlsReplayCache c3;
  CHECK(check_client_hello(longer.data(), longer.size(), node, kVectorTime, c3, a) == HelloVerdict::kAuthentic);
  CHECK(a.record_len == h.size());
}

// What a hello asks for is authenticated with it: the tunnel by default, the control plane when asked; a purpose
// the node does not know makes the hello a stranger's.
static void test_purposes() {
  const HelloTemplate t = parsed(kChromeLike);
  const Key32 node_priv = x25519_generate_private();
  const Key32 node_pub = x25519_public_from_private(node_priv);
  X25519Key node(node_priv);
  SystemBytes rnd;
  const int64_t now = 1800000000;
  const struct {
    HelloPurpose purpose;
    HelloVerdict verdict;
  } cases[] = {{HelloPurpose::kTunnel, HelloVerdict::kAuthentic},
               {HelloPurpose::kApi, HelloVerdict::kAuthentic},
               {HelloPurpose(2), HelloVerdict::kStranger},
               {HelloPurpose(0xff), HelloVerdict::kStranger}};
  for (const auto& c : cases) {
    TlsReplayCache cache;
    std::array<uint8_t, 32> cr;
    const std::vector<uint8_t> h = build_client_hello(t, "www.example.com", node_pub, uint32_t(now), rnd, cr, c.purpose);
    AuthenticHello a;
    CHECK(check_client_hello(h.data(), h.size(), node, now, cache, a) == c.verdict);
    if (c.verdict == HelloVerdict::kAuthentic) CHECK(a.purpose == c.purpose);
  }
  std::array<uint8_t, 32> cr;
  TlsReplayCache cache;
  AuthenticHello a;
  const std::vector<uint8_t> plain = build_client_hello(t, "www.example.com", node_pub, uint32_t(now), rnd, cr);
  CHECK(check_client_hello(plain.data(), plain.size(), node, now, cache, a) == HelloVerdict::kAuthentic);
  CHECK(a.purpose == HelloPurpose::kTunnel);
}

static void test_strangers() {
  X25519Key node(seq_key(0x21));
  AuthenticHello a;
  TlsReplayCache cache;
  const std::string http = "GET / HTTP/1.1\r\nHost: cover.example\r\n\r\n";
  CHECK(check_client_hello(reinterpret_cast<const uint8_t*>(http.data()), 1, node, kVectorTime, cache, a) ==
        HelloVerdict::kStranger);
  const uint8_t tls10[3] = {22, 3, 4};
  CHECK(check_client_hello(tls10, 3, node, kVectorTime, cache, a) == HelloVerdict::kStranger);
  const uint8_t oversized[5] = {22, 3, 1, 0x40, 0x01};  // 16385 bytes: more than a record may hold
  CHECK(check_client_hello(oversized, 5, node, kVectorTime, cache, a) == HelloVerdict::kStranger);
  SystemBytes rnd;
  // Random records of a plausible header: strangers, never a crash.
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint8_t> r(5 + 1 + (i % 700));
    rnd.fill(r.data(), r.size());
    r[0] = 22;
    r[1] = 3;
    r[2] = 1;
    r[3] = uint8_t((r.size() - 5) >> 8);
    r[4] = uint8_t(r.size() - 5);
    if (i % 2) r[5] = 1;
    CHECK(check_client_hello(r.data(), r.size(), node, kVectorTime, cache, a) == HelloVerdict::kStranger);
  }
}

static void test_records() {
  size_t lens[16];
  CHECK(tls_split(17, lens, 16) == 1 && lens[0] == 17);
  CHECK(tls_split(kTlsMaxPayload, lens, 16) == 1 && lens[0] == kTlsMaxPayload);
  CHECK(tls_split(kTlsMaxPayload + 5, lens, 16) == 2 && lens[0] == kTlsMaxPayload - 12 && lens[1] == 17);
  CHECK(tls_split(3 * kTlsMaxPayload + 100, lens, 16) == 4 && lens[3] == 100);
  CHECK(tls_split(20 * kTlsMaxPayload, lens, 16) == 0);
  // A stream of records (handshake flight first) cut at every kind of boundary reads back whole.
  SystemBytes rnd;
  std::vector<uint8_t> payload(70000);
  rnd.fill(payload.data(), payload.size());
  std::vector<uint8_t> wire = {22, 3, 3, 0, 3, 2, 0, 0, 20, 3, 3, 0, 1, 1, 23, 3, 3, 0, 20};
  wire.resize(wire.size() + 20, 0xee);
  size_t n = tls_split(payload.size(), lens, 16);
  size_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t hdr[5];
    tls_app_header(lens[i], hdr);
    wire.insert(wire.end(), hdr, hdr + 5);
    wire.insert(wire.end(), payload.begin() + long(off), payload.begin() + long(off + lens[i]));
    off += lens[i];
  }
  for (size_t chunk : {size_t(1), size_t(3), size_t(5), size_t(6), size_t(777), size_t(16406), size_t(65536)}) {
    TlsRecordReader reader({22, 20, 23});
    std::vector<uint8_t> buf(wire.size()), got;
    bool ok = true, done_seen = false;
    for (size_t p = 0; p < wire.size() && ok;) {
      const size_t take = std::min(reader.read_size(chunk), wire.size() - p);
      std::memcpy(buf.data(), wire.data() + p, take);
      size_t kept = 0;
      ok = reader.take(buf.data(), take, kept);
      got.insert(got.end(), buf.begin(), buf.begin() + long(kept));
      p += take;
      done_seen = done_seen || reader.flight_done();
      if (!reader.flight_done()) CHECK(got.empty());
    }
    CHECK(ok && done_seen && got == payload);
  }
  // Anything else ends the connection: wrong type order, a short application record, a bad version.
  for (std::vector<uint8_t> bad : {std::vector<uint8_t>{23, 3, 3, 0, 20}, std::vector<uint8_t>{22, 3, 1, 0, 1, 0},
                                   std::vector<uint8_t>{22, 3, 3, 0, 0}}) {
    TlsRecordReader reader({22, 20, 23});
    size_t kept;
    CHECK(!reader.take(bad.data(), bad.size(), kept));
  }
  TlsRecordReader app({});
  uint8_t shortrec[5 + 16] = {23, 3, 3, 0, 16};
  size_t kept;
  CHECK(!app.take(shortrec, sizeof shortrec, kept));
}

static void test_flights() {
  SystemBytes rnd;
  uint8_t sid[32];
  rnd.fill(sid, 32);
  std::set<size_t> lens;
  for (int i = 0; i < 50; ++i) {
    const std::vector<uint8_t> f = build_server_flight(sid, rnd);
    const size_t sh = size_t(f[3]) << 8 | f[4];
    CHECK(f[0] == 22 && f[1] == 3 && f[2] == 3 && f[5] == 2 && sh == 4 + 2 + 32 + 1 + 32 + 2 + 1 + 2 + 6 + 40);
    CHECK(std::memcmp(f.data() + 5 + 4 + 2 + 32 + 1, sid, 32) == 0);
    const uint8_t* ccs = f.data() + 5 + sh;
    CHECK(ccs[0] == 20 && ccs[5] == 1);
    const uint8_t* app = ccs + 6;
    const size_t len = size_t(app[3]) << 8 | app[4];
    CHECK(app[0] == 23 && len >= kTlsServerFlightMin && len <= kTlsServerFlightMax);
    CHECK(size_t(app + 5 + len - f.data()) == f.size());
    lens.insert(len);
  }
  CHECK(lens.size() > 40);
  const std::vector<uint8_t> fin = build_client_finished(rnd);
  CHECK(fin.size() == 6 + 5 + 53 && fin[6] == 23 && fin[10] == 53);
}

static void print_vectors() {
  for (auto& [k, val] : run_vectors()) std::printf("vector.tls.%s = %s\n", k.c_str(), val.c_str());
}

static void run_all(const char* doc) {
  test_vectors(doc);
  test_template_parser();
  test_round_trip_and_shape();
  test_tamper_time_replay();
  test_purposes();
  test_strangers();
  test_records();
  test_flights();
}

int main(int argc, char** argv) { return unit_main(argc, argv, "tls-test", print_vectors, run_all); }

// C++ unit tests of src/core: docs/protocol.md test vectors, tamper and replay drops, key encoding.
// Usage: core-test <path to docs/protocol.md>   |   core-test --print-vectors
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include <system_error>

#include "../src/core/crypto.h"
#include "../src/core/marked-socket.h"
#include "../src/core/offload.h"
#include "../src/core/protocol.h"
#include "../src/core/replay-window.h"
#include "../src/core/secret.h"
#include "../src/core/tcp-framing.h"
#include "unit-check.h"

using namespace ferry;

// A fixed inner packet: an IPv4 ICMP echo request 10.77.0.2 -> 10.77.0.1 (28 bytes).
static const uint8_t kInnerPacket[28] = {0x45, 0x00, 0x00, 0x1c, 0x00, 0x01, 0x00, 0x00, 0x40, 0x01,
                                         0x64, 0xc9, 0x0a, 0x4d, 0x00, 0x02, 0x0a, 0x4d, 0x00, 0x01,
                                         0x08, 0x00, 0xf7, 0xfe, 0x00, 0x01, 0x00, 0x00};

struct VectorOut {
  std::map<std::string, std::string> kv;
};

// Runs the whole exchange with the fixed inputs of docs/protocol.md and records every output.
static VectorOut run_vector(Cipher cipher) {
  VectorOut v;
  const Key32 client_priv = seq_key(0x01), server_priv = seq_key(0x21);
  const Key32 client_eph = seq_key(0x41), server_eph = seq_key(0x61);
  const Key32 client_pub = x25519_public_from_private(client_priv);
  const Key32 server_pub = x25519_public_from_private(server_priv);
  const Key32 mask_key = derive_handshake_mask_key(server_pub);
  const Key32 mac1_key = derive_mac1_key(server_pub);
  Masker m(mask_key);
  Mac16 mac1(mac1_key);
  X25519Key server(server_priv);
  v.kv["client_public"] = hex(client_pub.data(), 32);
  v.kv["server_public"] = hex(server_pub.data(), 32);
  v.kv["hs_mask_key"] = hex(mask_key.data(), 32);
  v.kv["mac1_key"] = hex(mac1_key.data(), 32);

  InitParams ip{client_eph, 0x11223344u, 1700000000000ull, cipher, 7};
  InitiatorState ist;
  uint8_t init[kInitMaxLen];
  size_t init_len = write_init(client_priv, client_pub, server_pub, m, mac1, ip, ist, init);
  v.kv["init"] = hex(init, init_len);

  uint8_t rx[kInitMaxLen];
  std::memcpy(rx, init, init_len);
  ResponderState rst;
  bool ok = unmask_handshake(m, rx, init_len) == uint8_t(MsgType::kInit) && check_mac1(mac1, rx, init_len) &&
            read_init(server, rx, init_len, rst);
  v.kv["server_reads_init"] = ok ? "yes" : "no";
  v.kv["init_timestamp_ms"] = std::to_string(rst.timestamp_ms);

  ResponseParams rp{server_eph, 0x55667788u, 3};
  SessionKeys skeys;
  uint8_t resp[kResponseMaxLen];
  size_t resp_len = write_response(rst, m, rp, skeys, resp);
  v.kv["response"] = hex(resp, resp_len);

  SessionKeys ckeys;
  uint8_t rx2[kResponseMaxLen];
  std::memcpy(rx2, resp, resp_len);
  ok = unmask_handshake(m, rx2, resp_len) == uint8_t(MsgType::kResponse) &&
       read_response(ist, client_priv, rx2, resp_len, ckeys);
  v.kv["client_reads_response"] = ok ? "yes" : "no";
  v.kv["key_c2s"] = hex(ckeys.send.data(), 32);
  v.kv["key_s2c"] = hex(ckeys.recv.data(), 32);
  v.kv["hdr_c2s"] = hex(ckeys.hdr_send.data(), 32);
  v.kv["hdr_s2c"] = hex(ckeys.hdr_recv.data(), 32);
  v.kv["keys_agree"] = (ckeys.send == skeys.recv && ckeys.recv == skeys.send && ckeys.hdr_send == skeys.hdr_recv &&
                        ckeys.hdr_recv == skeys.hdr_send)
                           ? "yes"
                           : "no";

  // Data packet client -> server, counter 0, the inner packet followed by 4 padding bytes.
  Aead csend(ckeys.cipher, ckeys.send);
  Masker chdr(ckeys.hdr_send);
  uint8_t data[kHeaderLen + 32 + kTagLen] = {0};
  std::memcpy(data + kHeaderLen, kInnerPacket, sizeof kInnerPacket);
  size_t data_len = seal_data(csend, chdr, ckeys.remote_index, 0, data, sizeof kInnerPacket + 4);
  v.kv["data_c2s_0"] = hex(data, data_len);
  // The server reads it with its own keys and with nothing else.
  {
    uint8_t b[sizeof data];
    std::memcpy(b, data, data_len);
    Masker shdr(skeys.hdr_recv);
    Aead srecv(skeys.cipher, skeys.recv);
    const bool not_handshake = unmask_handshake(m, b, data_len) == 0;
    const bool read = unmask_data(shdr, skeys.local_index, b, data_len) && data_counter(b) == 0 &&
                      open_data(srecv, b, data_len) && std::memcmp(b + kHeaderLen, kInnerPacket, 28) == 0;
    v.kv["server_reads_data"] = not_handshake && read ? "yes" : "no";
  }
  // Data packet server -> client, counter 1, a ping carrying 0x0102030405060708 and no padding.
  Aead ssend(skeys.cipher, skeys.send);
  Masker shdr(skeys.hdr_send);
  uint8_t ping[kHeaderLen + 9 + kTagLen] = {0};
  ping[kHeaderLen] = kInnerPing;
  for (int i = 0; i < 8; ++i) ping[kHeaderLen + 1 + i] = uint8_t(i + 1);
  size_t ping_len = seal_data(ssend, shdr, skeys.remote_index, 1, ping, 9);
  v.kv["data_s2c_1"] = hex(ping, ping_len);
  return v;
}

// TCP: the length masks of the first two records in each direction for a fixed preamble.
static std::map<std::string, std::string> run_tcp_vector() {
  std::map<std::string, std::string> kv;
  const Key32 server_pub = x25519_public_from_private(seq_key(0x21));
  // First character n: alphabet index 39, so 24 + 39 = 63 characters.
  const std::string pre = "nFerry" + std::string(18, 'x') + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm";
  kv["preamble"] = pre;
  kv["preamble_valid"] = preamble_valid(reinterpret_cast<const uint8_t*>(pre.data()), pre.size()) ? "yes" : "no";
  put_mask_vectors(kv, server_pub, reinterpret_cast<const uint8_t*>(pre.data()), pre.size());
  return kv;
}

static void print_vectors() {
  for (Cipher c : {Cipher::kAes256Gcm, Cipher::kChaCha20Poly1305}) {
    VectorOut v = run_vector(c);
    for (auto& [k, val] : v.kv) std::printf("vector.%s.%s = %s\n", cipher_name(c), k.c_str(), val.c_str());
  }
  for (auto& [k, val] : run_tcp_vector()) std::printf("vector.tcp.%s = %s\n", k.c_str(), val.c_str());
}

static void test_vectors(const char* doc) {
  auto expected = parse_doc(doc);
  CHECK(expected.size() >= 20);
  for (Cipher c : {Cipher::kAes256Gcm, Cipher::kChaCha20Poly1305}) {
    VectorOut v = run_vector(c);
    for (auto& [k, val] : v.kv) {
      std::string name = std::string(cipher_name(c)) + "." + k;
      auto it = expected.find(name);
      bool match = it != expected.end() && it->second == val;
      if (!match) std::fprintf(stderr, "vector %s differs\n", name.c_str());
      CHECK(match);
    }
  }
  for (auto& [k, val] : run_tcp_vector()) {
    auto it = expected.find("tcp." + k);
    bool match = it != expected.end() && it->second == val;
    if (!match) std::fprintf(stderr, "vector tcp.%s differs\n", k.c_str());
    CHECK(match);
  }
  // Preamble rules: the first character announces the length; anything outside the alphabet fails.
  std::string p = make_preamble();
  CHECK(p.size() >= kPreambleMin && p.size() <= kPreambleMax);
  CHECK(preamble_valid(reinterpret_cast<const uint8_t*>(p.data()), p.size()));
  CHECK(preamble_length('A') == 24 && preamble_length('/') == 87 && preamble_length('=') == 0);
  std::string bad = p;
  bad[bad.size() - 1] = '!';
  CHECK(!preamble_valid(reinterpret_cast<const uint8_t*>(bad.data()), bad.size()));
}

// Every single-bit change anywhere in a handshake initiation or data packet must be rejected.
static void test_tamper() {
  const Key32 client_priv = x25519_generate_private(), server_priv = x25519_generate_private();
  const Key32 client_pub = x25519_public_from_private(client_priv);
  const Key32 server_pub = x25519_public_from_private(server_priv);
  Masker m(derive_handshake_mask_key(server_pub));
  Mac16 mac1(derive_mac1_key(server_pub));
  X25519Key server(server_priv);
  InitParams ip{x25519_generate_private(), 7, 1700000000000ull, Cipher::kChaCha20Poly1305, 20};
  InitiatorState ist;
  uint8_t init[kInitMaxLen];
  size_t len = write_init(client_priv, client_pub, server_pub, m, mac1, ip, ist, init);
  CHECK(len == kInitMinLen + 20);
  int accepted = 0, passed_mac1 = 0;
  for (size_t bit = 0; bit < len * 8; ++bit) {
    uint8_t b[kInitMaxLen];
    std::memcpy(b, init, len);
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    ResponderState rs;
    if (unmask_handshake(m, b, len) == uint8_t(MsgType::kInit) && check_mac1(mac1, b, len)) {
      ++passed_mac1;
      if (read_init(server, b, len, rs)) ++accepted;
    }
  }
  CHECK(accepted == 0);
  CHECK(passed_mac1 == 0);  // mac1 covers every byte: no flipped bit even reaches the public-key work
  // Truncated and extended copies are rejected too.
  for (size_t l = 0; l < len + 8 && l < kInitMaxLen; ++l) {
    if (l == len) continue;
    uint8_t b[kInitMaxLen] = {0};
    std::memcpy(b, init, l < len ? l : len);
    ResponderState rs;
    bool ok = l >= kDataMinLen && unmask_handshake(m, b, l) == uint8_t(MsgType::kInit) && check_mac1(mac1, b, l) &&
              read_init(server, b, l, rs);
    CHECK(!ok);
  }

  for (Cipher c : {Cipher::kAes256Gcm, Cipher::kChaCha20Poly1305}) {
    Key32 k = x25519_generate_private(), hk = x25519_generate_private();
    Aead tx(c, k), rx(c, k);
    Masker htx(hk), hrx(hk), other(x25519_generate_private());
    uint8_t pkt[kHeaderLen + 40 + kTagLen] = {0};
    std::memcpy(pkt + kHeaderLen, kInnerPacket, sizeof kInnerPacket);
    size_t dl = seal_data(tx, htx, 99, 5, pkt, 40);
    {
      uint8_t b[sizeof pkt];
      std::memcpy(b, pkt, dl);
      // Neither another session's mask nor the node's handshake mask reads the header; a wrong index neither.
      CHECK(!unmask_data(other, 99, b, dl));
      CHECK(unmask_handshake(m, b, dl) == 0);
      CHECK(!unmask_data(hrx, 98, b, dl));
      CHECK(std::memcmp(b, pkt, dl) == 0);  // refused attempts leave the message as it was
      CHECK(unmask_data(hrx, 99, b, dl));
      CHECK(data_receiver(b) == 99 && data_counter(b) == 5);
      CHECK(open_data(rx, b, dl));
      CHECK(std::memcmp(b + kHeaderLen, kInnerPacket, sizeof kInnerPacket) == 0);
    }
    int ok_count = 0;
    for (size_t bit = 0; bit < dl * 8; ++bit) {
      uint8_t b[sizeof pkt];
      std::memcpy(b, pkt, dl);
      b[bit / 8] ^= uint8_t(1u << (bit % 8));
      if (unmask_data(hrx, 99, b, dl) && open_data(rx, b, dl)) ++ok_count;
    }
    CHECK(ok_count == 0);
  }
}

static void test_wrong_keys() {
  const Key32 client_priv = x25519_generate_private(), server_priv = x25519_generate_private();
  const Key32 other_priv = x25519_generate_private();
  const Key32 client_pub = x25519_public_from_private(client_priv);
  const Key32 server_pub = x25519_public_from_private(server_priv);
  const Key32 other_pub = x25519_public_from_private(other_priv);
  // An initiation made for another server's key is not readable here (and is not even unmasked).
  Masker m_other(derive_handshake_mask_key(other_pub));
  Mac16 mac1_other(derive_mac1_key(other_pub));
  Masker m(derive_handshake_mask_key(server_pub));
  Mac16 mac1(derive_mac1_key(server_pub));
  X25519Key server(server_priv);
  InitParams ip{x25519_generate_private(), 1, 1, Cipher::kAes256Gcm, 0};
  InitiatorState ist;
  uint8_t init[kInitMaxLen];
  size_t len = write_init(client_priv, client_pub, other_pub, m_other, mac1_other, ip, ist, init);
  ResponderState rs;
  bool ok = unmask_handshake(m, init, len) == uint8_t(MsgType::kInit) && check_mac1(mac1, init, len) &&
            read_init(server, init, len, rs);
  CHECK(!ok);
  // A low-order ephemeral (all zero) is refused rather than producing a predictable key.
  uint8_t bad[kInitMinLen] = {0};
  bad[0] = uint8_t(MsgType::kInit);
  CHECK(!read_init(server, bad, sizeof bad, rs));
}

// Random datagrams of every length never authenticate (probing: nothing for the server to answer).
static void test_random_probes() {
  const Key32 server_priv = x25519_generate_private();
  const Key32 server_pub = x25519_public_from_private(server_priv);
  Masker m(derive_handshake_mask_key(server_pub));
  Mac16 mac1(derive_mac1_key(server_pub));
  X25519Key server(server_priv);
  Masker hdr(x25519_generate_private());
  Aead rx(Cipher::kAes256Gcm, x25519_generate_private());
  int authenticated = 0, passed_mac1 = 0;
  for (size_t len = 0; len < 1500; ++len) {
    for (int rep = 0; rep < 4; ++rep) {
      std::vector<uint8_t> b(len + 1);
      if (len) random_bytes(b.data(), len);
      if (unmask_data(hdr, 7, b.data(), len) && open_data(rx, b.data(), len)) ++authenticated;
      uint8_t t = unmask_handshake(m, b.data(), len);
      ResponderState rs;
      if (t == uint8_t(MsgType::kInit) && check_mac1(mac1, b.data(), len)) {
        ++passed_mac1;
        if (read_init(server, b.data(), len, rs)) ++authenticated;
      }
    }
  }
  CHECK(authenticated == 0);
  CHECK(passed_mac1 == 0);
}

static void test_replay_window() {
  ReplayWindow w;
  CHECK(w.check(0));
  w.commit(0);
  CHECK(!w.check(0));
  CHECK(w.check(5));
  w.commit(5);
  CHECK(w.check(3));  // out of order, inside the window
  w.commit(3);
  CHECK(!w.check(3));
  CHECK(!w.check(5));
  w.commit(5000);
  CHECK(!w.check(5000 - ReplayWindow::kSize));  // too old
  CHECK(w.check(5000 - ReplayWindow::kSize + 1));
  CHECK(!w.check(5));
  // A jump larger than the window clears it, and bits reused after wrap-around are fresh.
  for (uint64_t c = 5001; c < 5001 + 3 * ReplayWindow::kSize; ++c) {
    if (!w.check(c)) {
      CHECK(false);
      break;
    }
    w.commit(c);
  }
  uint64_t top = 5000 + 3 * ReplayWindow::kSize;
  int replays_accepted = 0;
  for (uint64_t c = top - ReplayWindow::kSize - 10; c <= top; ++c)
    if (w.check(c)) ++replays_accepted;
  CHECK(replays_accepted == 0);
  CHECK(w.check(top + 1));
}

static void test_base64() {
  Key32 k = x25519_generate_private();
  std::string s = base64_encode(k.data(), 32);
  Key32 back;
  CHECK(s.size() == 44);
  CHECK(base64_decode_key(s, back) && back == k);
  CHECK(base64_decode_key(s + "\n", back));
  CHECK(!base64_decode_key(s.substr(0, 43), back));
  CHECK(!base64_decode_key("not a key", back));
  std::string bad = s;
  bad[10] = '*';
  CHECK(!base64_decode_key(bad, back));
}

static void test_ip_length() {
  CHECK(ip_packet_length(kInnerPacket, sizeof kInnerPacket) == 28);
  uint8_t padded[40] = {0};
  std::memcpy(padded, kInnerPacket, 28);
  CHECK(ip_packet_length(padded, sizeof padded) == 28);
  CHECK(ip_packet_length(kInnerPacket, 27) == 0);
  uint8_t junk[40] = {0x10};
  CHECK(ip_packet_length(junk, sizeof junk) == 0);
}

// A TSO super-packet split in user space must give valid, consecutive TCP segments.
static void test_segmentation() {
  for (bool v6 : {false, true}) {
    const size_t ip_hlen = v6 ? 40 : 20, tcp_hlen = 32, payload = 3000, mss = 1000;
    std::vector<uint8_t> pkt(ip_hlen + tcp_hlen + payload, 0);
    if (!v6) {
      pkt[0] = 0x45;
      pkt[2] = uint8_t(pkt.size() >> 8);
      pkt[3] = uint8_t(pkt.size());
      pkt[4] = 0x12;
      pkt[5] = 0x34;
      pkt[8] = 64;
      pkt[9] = 6;
      const uint8_t addrs[8] = {10, 99, 0, 2, 10, 99, 0, 1};
      std::memcpy(&pkt[12], addrs, 8);
    } else {
      pkt[0] = 0x60;
      pkt[6] = 6;
      pkt[7] = 64;
      pkt[23] = 2;
      pkt[39] = 1;
    }
    uint8_t* tcp = &pkt[ip_hlen];
    tcp[0] = 0x9c;
    tcp[3] = 0x50;
    tcp[4] = 0xff;  // sequence number close to wrapping
    tcp[5] = 0xff;
    tcp[6] = 0xfc;
    tcp[7] = 0x00;
    tcp[12] = uint8_t((tcp_hlen / 4) << 4);
    tcp[13] = 0x18 | 0x01;  // ACK|PSH|FIN
    for (size_t i = 0; i < payload; ++i) pkt[ip_hlen + tcp_hlen + i] = uint8_t(i * 7);
    VnetHdr h{kVnetFlagNeedsCsum, v6 ? kGsoTcpV6 : kGsoTcpV4, uint16_t(ip_hlen + tcp_hlen),
              uint16_t(mss),      uint16_t(ip_hlen),          16};
    std::vector<uint8_t> scratch(4096);
    std::vector<std::vector<uint8_t>> segs;
    int n = segment_tcp(h, pkt.data(), pkt.size(), scratch.data(), scratch.size(),
                        [&](const uint8_t* s, size_t l) { segs.emplace_back(s, s + l); });
    CHECK(n == 3);
    CHECK(segs.size() == 3);
    for (size_t i = 0; i < segs.size(); ++i) {
      const auto& s = segs[i];
      CHECK(s.size() == ip_hlen + tcp_hlen + mss);
      const uint8_t* t = &s[ip_hlen];
      uint64_t pseudo;
      if (!v6) {
        CHECK(((s[2] << 8) | s[3]) == int(s.size()));
        CHECK(((s[4] << 8) | s[5]) == 0x1234 + int(i));
        CHECK(checksum_fold(checksum_add(s.data(), ip_hlen, 0)) == 0xffff);
        pseudo = checksum_add(&s[12], 8, 0) + 6 + (s.size() - ip_hlen);
      } else {
        CHECK(((s[4] << 8) | s[5]) == int(s.size() - 40));
        pseudo = checksum_add(&s[8], 32, 0) + 6 + (s.size() - ip_hlen);
      }
      CHECK(checksum_fold(checksum_add(t, s.size() - ip_hlen, pseudo)) == 0xffff);
      uint32_t seq = (uint32_t(t[4]) << 24) | (uint32_t(t[5]) << 16) | (uint32_t(t[6]) << 8) | t[7];
      CHECK(seq == uint32_t(0xfffffc00u + i * mss));
      const bool last = i + 1 == segs.size();
      CHECK((t[13] & 0x09) == (last ? 0x09 : 0));
      CHECK(std::memcmp(&s[ip_hlen + tcp_hlen], &pkt[ip_hlen + tcp_hlen + i * mss], mss) == 0);
    }
    // Malformed: gso_size zero, or headers longer than the packet.
    VnetHdr bad = h;
    bad.gso_size = 0;
    CHECK(segment_tcp(bad, pkt.data(), pkt.size(), scratch.data(), scratch.size(), [](const uint8_t*, size_t) {}) ==
          -1);
    CHECK(segment_tcp(h, pkt.data(), ip_hlen + 10, scratch.data(), scratch.size(), [](const uint8_t*, size_t) {}) ==
          -1);
  }
  // Coalescing the segments again gives one GSO write carrying the whole payload in order.
  {
    const size_t ip_hlen = 20, tcp_hlen = 32, payload = 3000, mss = 1000;
    std::vector<uint8_t> pkt(ip_hlen + tcp_hlen + payload, 0);
    pkt[0] = 0x45;
    pkt[2] = uint8_t(pkt.size() >> 8);
    pkt[3] = uint8_t(pkt.size());
    pkt[8] = 64;
    pkt[9] = 6;
    pkt[12] = 10, pkt[15] = 2, pkt[16] = 10, pkt[19] = 1;
    pkt[ip_hlen + 12] = uint8_t((tcp_hlen / 4) << 4);
    pkt[ip_hlen + 13] = 0x18;
    for (size_t i = 0; i < payload; ++i) pkt[ip_hlen + tcp_hlen + i] = uint8_t(i * 13);
    VnetHdr h{kVnetFlagNeedsCsum, kGsoTcpV4, 0, uint16_t(mss), uint16_t(ip_hlen), 16};
    std::vector<uint8_t> scratch(4096);
    std::vector<std::vector<uint8_t>> segs;
    segment_tcp(h, pkt.data(), pkt.size(), scratch.data(), scratch.size(),
                [&](const uint8_t* s, size_t l) { segs.emplace_back(s, s + l); });
    auto gro = std::make_unique<TcpCoalescer>();
    struct Write {
      bool gso;
      VnetHdr h;
      std::vector<uint8_t> data;
    };
    std::vector<Write> writes;
    auto w = [&](const VnetHdr* vh, const uint8_t* d, size_t l) {
      writes.push_back({vh != nullptr, vh ? *vh : VnetHdr{}, std::vector<uint8_t>(d, d + l)});
    };
    for (auto& s : segs) gro->deliver(s.data(), s.size(), w);
    gro->flush(w);
    CHECK(writes.size() == 1);
    if (writes.size() == 1) {
      const Write& out = writes[0];
      CHECK(out.gso && out.h.gso_type == kGsoTcpV4 && out.h.gso_size == mss && out.h.csum_start == 20);
      CHECK(out.data.size() == pkt.size());
      CHECK(std::memcmp(out.data.data() + ip_hlen + tcp_hlen, pkt.data() + ip_hlen + tcp_hlen, payload) == 0);
      CHECK(checksum_fold(checksum_add(out.data.data(), 20, 0)) == 0xffff);
    }
    // A gap in the sequence numbers is never merged over.
    writes.clear();
    gro->deliver(segs[0].data(), segs[0].size(), w);
    gro->deliver(segs[2].data(), segs[2].size(), w);
    gro->flush(w);
    CHECK(writes.size() == 2 && !writes[0].gso && writes[0].data == segs[0]);
  }
  // Checksum completion: a UDP datagram whose field holds the pseudo-header sum.
  uint8_t udp[28 + 5] = {0x45, 0, 0, 33,   0,    0,    0,    0, 64, 17, 0, 0,   10,  99,  0,   2,  10,
                         99,   0, 1, 0x30, 0x39, 0x00, 0x35, 0, 13, 0,  0, 'h', 'e', 'l', 'l', 'o'};
  uint16_t ps = checksum_fold(checksum_add(udp + 12, 8, 0) + 17 + 13);
  udp[26] = uint8_t(ps >> 8);
  udp[27] = uint8_t(ps);
  VnetHdr ch{kVnetFlagNeedsCsum, kGsoNone, 0, 0, 20, 6};
  CHECK(complete_checksum(ch, udp, sizeof udp));
  CHECK(checksum_fold(checksum_add(udp + 20, 13, checksum_add(udp + 12, 8, 0) + 17 + 13)) == 0xffff);
}

// Key material lives in pages that a core dump leaves out (VmFlags "dd" in /proc/self/smaps), and a
// released slot is erased.
static void test_secret_memory() {
  Secret<Key32> k;
  for (int i = 0; i < 32; ++i) (*k)[i] = uint8_t(0xa0 + i);
  const uintptr_t at = reinterpret_cast<uintptr_t>(k.get());
  std::ifstream maps("/proc/self/smaps");
  std::string line;
  bool inside = false, found = false, dontdump = false;
  while (std::getline(maps, line)) {
    unsigned long lo = 0, hi = 0;
    // Mapping lines start "lo-hi perms ..."; attribute lines start with a name and a colon.
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = at >= lo && at < hi;
      found = found || inside;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) dontdump = line.find(" dd") != std::string::npos;
  }
  CHECK(found);
  CHECK(dontdump);
  Key32* raw = k.get();
  {
    Secret<Key32> moved(std::move(k));
    CHECK(moved.get() == raw && k.get() == nullptr);
  }
  // The slot went back to the arena erased (it is still mapped: the arena never unmaps).
  uint8_t acc = 0;
  for (uint8_t b : *raw) acc |= b;
  CHECK(acc == 0);
}

// The engine's own sockets carry their mark from the start (the kill switch lets them out by it). Setting a
// mark needs CAP_NET_ADMIN: without it the call fails with EPERM rather than give an unmarked socket.
static void test_marked_socket() {
  const bool privileged = geteuid() == 0;
  for (int family : {4, 6}) {
    for (SocketKind kind : {SocketKind::kTcp, SocketKind::kUdp}) {
      try {
        const int fd = open_marked_socket(family, kind, 0x6667);
        CHECK(privileged);
        uint32_t mark = 0;
        socklen_t len = sizeof mark;
        CHECK(getsockopt(fd, SOL_SOCKET, SO_MARK, &mark, &len) == 0 && mark == 0x6667);
        int type = 0;
        len = sizeof type;
        CHECK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0);
        CHECK(type == (kind == SocketKind::kTcp ? SOCK_STREAM : SOCK_DGRAM));
        sockaddr_storage addr{};
        len = sizeof addr;
        CHECK(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        CHECK(addr.ss_family == (family == 4 ? AF_INET : AF_INET6));
        ::close(fd);
      } catch (const std::system_error& e) {
        CHECK(!privileged && e.code().value() == EPERM);
      }
    }
  }
  bool refused = false;
  try {
    open_marked_socket(5, SocketKind::kUdp, 1);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  CHECK(refused);
}

static void run_all(const char* doc) {
  test_vectors(doc);
  test_tamper();
  test_wrong_keys();
  test_random_probes();
  test_replay_window();
  test_base64();
  test_ip_length();
  test_segmentation();
  test_secret_memory();
  test_marked_socket();
}

int main(int argc, char** argv) { return unit_main(argc, argv, "core-test", print_vectors, run_all); }

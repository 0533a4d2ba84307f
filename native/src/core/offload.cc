// Checksums and per-segment header fixes for TCP segmentation offload done in user space.
#include "offload.h"

#include <cstring>

namespace ferry {

uint64_t checksum_add(const uint8_t* p, size_t len, uint64_t sum) {
  // 32-bit big-endian words into a 64-bit accumulator: no overflow for any IP packet size.
  while (len >= 4) {
    sum += (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    p += 4;
    len -= 4;
  }
  if (len >= 2) {
    sum += (uint32_t(p[0]) << 8) | p[1];
    p += 2;
    len -= 2;
  }
  if (len) sum += uint32_t(p[0]) << 8;
  return sum;
}

uint16_t checksum_fold(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(sum);
}

bool complete_checksum(const VnetHdr& h, uint8_t* pkt, size_t len) {
  if (!(h.flags & kVnetFlagNeedsCsum)) return true;
  const size_t start = h.csum_start, field = size_t(h.csum_start) + h.csum_offset;
  if (start >= len || field + 2 > len) return false;
  // The field holds the pseudo-header sum already; the sum over [start, end) completes it.
  uint16_t c = uint16_t(~checksum_fold(checksum_add(pkt + start, len - start, 0)));
  pkt[field] = uint8_t(c >> 8);
  pkt[field + 1] = uint8_t(c);
  return true;
}

namespace detail {

static void put16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
static uint16_t get16(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }

void fix_segment(uint8_t* out, size_t ip_hlen, size_t hdr_len, bool v6, size_t seg_payload, uint32_t index,
                 uint32_t gso_size, bool last) {
  const size_t tcp_len = hdr_len - ip_hlen + seg_payload;
  uint8_t* tcp = out + ip_hlen;
  uint64_t pseudo = 0;
  if (!v6) {
    put16(out + 2, uint16_t(ip_hlen + tcp_len));
    put16(out + 4, uint16_t(get16(out + 4) + index));  // consecutive IP IDs, as the kernel's GSO does
    put16(out + 10, 0);
    put16(out + 10, uint16_t(~checksum_fold(checksum_add(out, ip_hlen, 0))));
    pseudo = checksum_add(out + 12, 8, 0) + 6 + tcp_len;
  } else {
    put16(out + 4, uint16_t(tcp_len));
    pseudo = checksum_add(out + 8, 32, 0) + 6 + tcp_len;
  }
  uint32_t seq = (uint32_t(tcp[4]) << 24) | (uint32_t(tcp[5]) << 16) | (uint32_t(tcp[6]) << 8) | tcp[7];
  seq += index * gso_size;
  tcp[4] = uint8_t(seq >> 24);
  tcp[5] = uint8_t(seq >> 16);
  tcp[6] = uint8_t(seq >> 8);
  tcp[7] = uint8_t(seq);
  if (!last) tcp[13] &= uint8_t(~0x09);      // FIN and PSH only on the last segment
  if (index > 0) tcp[13] &= uint8_t(~0x80);  // CWR only on the first
  put16(tcp + 16, 0);
  put16(tcp + 16, uint16_t(~checksum_fold(checksum_add(tcp, tcp_len, pseudo))));
}

}  // namespace detail
}  // namespace ferry

namespace ferry {

namespace {
uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
uint16_t be16(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
constexpr uint8_t kAck = 0x10, kPsh = 0x08;
}  // namespace

// IPv4 without options or fragmentation, TCP with payload and only ACK (maybe PSH) set.
bool TcpCoalescer::eligible(const uint8_t* p, size_t len) const {
  if (len < 40 || p[0] != 0x45 || p[9] != 6 || be16(p + 2) != len) return false;
  if ((be16(p + 6) & 0x3fff) != 0) return false;  // MF or a fragment offset
  const uint8_t* t = p + 20;
  const size_t thl = size_t(t[12] >> 4) * 4;
  if (thl < 20 || 20 + thl >= len) return false;  // no payload: pure ACKs go straight through
  const uint8_t flags = t[13];
  return (flags & ~kPsh) == kAck;
}

bool TcpCoalescer::can_append(const uint8_t* p, size_t len) const {
  if (closed_ || !eligible(p, len)) return false;
  const uint8_t* t = p + 20;
  const size_t thl = size_t(t[12] >> 4) * 4;
  if (20 + thl != hdr_len_) return false;
  const size_t payload = len - hdr_len_;
  if (payload > mss_ || len_ + payload > kMax) return false;
  const uint8_t* h = buf_;
  // Same flow and same header fields the receiver's GRO would insist on: addresses, TOS, TTL,
  // ports, ack, window, options (timestamps); and the next sequence number.
  if (std::memcmp(p + 12, h + 12, 8) != 0 || p[1] != h[1] || p[8] != h[8]) return false;
  if (std::memcmp(t, h + 20, 4) != 0 || std::memcmp(t + 8, h + 28, 4) != 0 || std::memcmp(t + 14, h + 34, 2) != 0)
    return false;
  if (thl > 20 && std::memcmp(t + 20, h + 40, thl - 20) != 0) return false;
  return be32(t + 4) == next_seq_;
}

void TcpCoalescer::start(const uint8_t* p, size_t len) {
  std::memcpy(buf_, p, len);
  len_ = len;
  count_ = 1;
  ip_hlen_ = 20;
  hdr_len_ = 20 + size_t(p[32] >> 4) * 4;
  mss_ = len - hdr_len_;
  next_seq_ = be32(p + 24) + uint32_t(mss_);
  closed_ = (p[33] & kPsh) != 0;
}

void TcpCoalescer::append(const uint8_t* p, size_t len) {
  const size_t payload = len - hdr_len_;
  std::memcpy(buf_ + len_, p + hdr_len_, payload);
  len_ += payload;
  ++count_;
  next_seq_ += uint32_t(payload);
  if (p[33] & kPsh) buf_[33] |= kPsh;  // the merged packet carries the last segment's PSH
  closed_ = payload < mss_ || (p[33] & kPsh) != 0;
}

void TcpCoalescer::finish(VnetHdr& h) {
  uint8_t* ip = buf_;
  ip[2] = uint8_t(len_ >> 8);
  ip[3] = uint8_t(len_);
  ip[10] = ip[11] = 0;
  const uint16_t ipc = uint16_t(~checksum_fold(checksum_add(ip, 20, 0)));
  ip[10] = uint8_t(ipc >> 8);
  ip[11] = uint8_t(ipc);
  // CHECKSUM_PARTIAL: the TCP field holds the pseudo-header sum; the kernel treats it as verified
  // (the payload was authenticated by the AEAD, which is a far stronger check).
  const size_t tcp_len = len_ - ip_hlen_;
  const uint16_t pseudo = checksum_fold(checksum_add(ip + 12, 8, 0) + 6 + tcp_len);
  ip[20 + 16] = uint8_t(pseudo >> 8);
  ip[20 + 17] = uint8_t(pseudo);
  h.flags = kVnetFlagNeedsCsum;
  h.gso_type = kGsoTcpV4;
  h.hdr_len = uint16_t(hdr_len_);
  h.gso_size = uint16_t(mss_);
  h.csum_start = uint16_t(ip_hlen_);
  h.csum_offset = 16;
}

}  // namespace ferry

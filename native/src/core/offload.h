// TUN offload helpers: virtio-net headers, checksum completion and TCP segmentation of TSO super-packets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ferry {

// struct virtio_net_hdr as the Linux TUN driver reads and writes it with IFF_VNET_HDR (native endian).
struct VnetHdr {
  uint8_t flags;
  uint8_t gso_type;
  uint16_t hdr_len;
  uint16_t gso_size;
  uint16_t csum_start;
  uint16_t csum_offset;
};
static_assert(sizeof(VnetHdr) == 10, "virtio_net_hdr is 10 bytes");

constexpr size_t kVnetHdrLen = sizeof(VnetHdr);
constexpr uint8_t kVnetFlagNeedsCsum = 1;
constexpr uint8_t kGsoNone = 0, kGsoTcpV4 = 1, kGsoUdp = 3, kGsoTcpV6 = 4, kGsoEcn = 0x80;

// Ones-complement sum (not folded, not inverted) of len bytes, continuing from sum.
uint64_t checksum_add(const uint8_t* p, size_t len, uint64_t sum);
uint16_t checksum_fold(uint64_t sum);

// Completes a CHECKSUM_PARTIAL packet in place; false if the offsets are out of bounds.
bool complete_checksum(const VnetHdr& h, uint8_t* pkt, size_t len);

// Splits a TCP TSO super-packet (IPv4 or IPv6) into MSS-sized packets with correct headers and
// checksums. emit(segment, length) is called for each, with a segment that is valid only during the
// call; scratch must hold at least the largest segment (headers + gso_size). Returns the number of
// segments, or -1 if the packet is malformed (the caller drops it).
template <typename Emit>
int segment_tcp(const VnetHdr& h, const uint8_t* pkt, size_t len, uint8_t* scratch, size_t scratch_len, Emit emit);

// Implementation details shared with the template.
namespace detail {
// Writes the headers of segment i (payload bytes seg_payload) into out and fixes lengths, IDs,
// sequence numbers, flags and checksums; payload must already follow the headers in out.
void fix_segment(uint8_t* out, size_t ip_hlen, size_t hdr_len, bool v6, size_t seg_payload, uint32_t index,
                 uint32_t gso_size, bool last);
}  // namespace detail

template <typename Emit>
int segment_tcp(const VnetHdr& h, const uint8_t* pkt, size_t len, uint8_t* scratch, size_t scratch_len, Emit emit) {
  const uint8_t gso = h.gso_type & ~kGsoEcn;
  if (gso != kGsoTcpV4 && gso != kGsoTcpV6) return -1;
  const bool v6 = gso == kGsoTcpV6;
  const size_t ip_hlen = h.csum_start;
  if (len < ip_hlen + 20 || (v6 && ip_hlen != 40) || (!v6 && (ip_hlen < 20 || (pkt[0] >> 4) != 4)) ||
      (v6 && (pkt[0] >> 4) != 6))
    return -1;
  const size_t tcp_hlen = size_t(pkt[ip_hlen + 12] >> 4) * 4;
  const size_t hdr_len = ip_hlen + tcp_hlen;
  const size_t mss = h.gso_size;
  if (tcp_hlen < 20 || hdr_len > len || mss == 0 || hdr_len + mss > scratch_len) return -1;
  const size_t payload = len - hdr_len;
  int count = 0;
  for (size_t off = 0; off < payload || (payload == 0 && count == 0); off += mss) {
    const size_t seg = payload - off < mss ? payload - off : mss;
    const bool last = off + seg >= payload;
    for (size_t i = 0; i < hdr_len; ++i) scratch[i] = pkt[i];
    for (size_t i = 0; i < seg; ++i) scratch[hdr_len + i] = pkt[hdr_len + off + i];
    detail::fix_segment(scratch, ip_hlen, hdr_len, v6, seg, uint32_t(count), uint32_t(mss), last);
    emit(static_cast<const uint8_t*>(scratch), hdr_len + seg);
    ++count;
    if (payload == 0) break;
  }
  return count;
}

}  // namespace ferry

namespace ferry {

// Merges consecutive in-order IPv4 TCP segments of one flow into a single super-packet written to
// the TUN device with a virtio GSO header (user-space GRO): one write and one trip through the
// receiver's TCP stack instead of ~45. Anything that does not fit is written as it is.
// Not thread-safe: owned by the thread that writes to the TUN device.
class TcpCoalescer {
 public:
  static constexpr size_t kMax = 65535;

  // Offers a decrypted IP packet: it joins the pending super-packet, or the pending one is written
  // and this one starts a new one or is written as it is. write(vnet_hdr or nullptr, data, len).
  template <typename Write>
  void deliver(const uint8_t* pkt, size_t len, Write write) {
    if (count_ && can_append(pkt, len)) {
      append(pkt, len);
      if (closed_) flush(write);
      return;
    }
    flush(write);
    if (eligible(pkt, len)) {
      start(pkt, len);
      if (closed_) flush(write);
    } else {
      write(nullptr, pkt, len);
    }
  }

  // Writes whatever is pending (call at the end of every receive burst, so nothing waits).
  template <typename Write>
  void flush(Write write) {
    if (!count_) return;
    if (count_ == 1) {
      write(nullptr, buf_, len_);
    } else {
      VnetHdr h{};
      finish(h);
      write(&h, buf_, len_);
    }
    count_ = 0;
    len_ = 0;
    closed_ = false;
  }

 private:
  bool eligible(const uint8_t* p, size_t len) const;
  bool can_append(const uint8_t* p, size_t len) const;
  void start(const uint8_t* p, size_t len);
  void append(const uint8_t* p, size_t len);
  void finish(VnetHdr& h);

  uint8_t buf_[kMax];
  size_t len_ = 0, count_ = 0;
  size_t ip_hlen_ = 0, hdr_len_ = 0, mss_ = 0;
  uint32_t next_seq_ = 0;
  bool closed_ = false;  // the last segment was short or carried PSH: nothing may follow it
};

}  // namespace ferry

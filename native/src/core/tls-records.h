// TLS 1.3 application-data records around the Ferry TCP stream (no I/O): how a send is cut into records, and
// the reader that strips record headers in place, skipping the peer's handshake flight first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ferry {

constexpr size_t kTlsHeaderLen = 5;
constexpr size_t kTlsMinPayload = 17;             // a TLS 1.3 AEAD record: content type and tag at least
constexpr size_t kTlsMaxPayload = 16384 + 17;     // what the writer puts in a full record (as browsers and servers)
constexpr size_t kTlsMaxPayloadIn = 16384 + 256;  // what the reader accepts (RFC 8446, 5.2)

// Record payload lengths for len bytes (len >= kTlsMinPayload): full records, and a last one of at least
// kTlsMinPayload (taken from the one before it when the rest is shorter). Returns how many, at most max.
size_t tls_split(size_t len, size_t* lens, size_t max);
// The header of an application-data record of len payload bytes.
void tls_app_header(size_t len, uint8_t out[kTlsHeaderLen]);

// Strips record headers from a stream as it arrives. The first records, of the content types in `skip`, are
// the peer's handshake flight and are dropped whole; then only application-data records are accepted.
class TlsRecordReader {
 public:
  explicit TlsRecordReader(std::vector<uint8_t> skip) : skip_(std::move(skip)) {}
  // How many bytes to read next, given room for `space`: up to the end of the next record's header, so that
  // in a steady stream each read ends on a header and the payload never moves.
  size_t read_size(size_t space) const;
  // p[0..n) just arrived. Removes headers and skipped records in place; kept receives the payload bytes now at
  // p[0..kept). False on anything but the expected records (the connection must end).
  bool take(uint8_t* p, size_t n, size_t& kept);
  // The peer's handshake flight has been read whole.
  bool flight_done() const { return skip_pos_ == skip_.size() && !(skipping_ && left_ > 0); }

 private:
  std::vector<uint8_t> skip_;
  size_t skip_pos_ = 0;
  size_t left_ = 0;  // payload bytes of the current record still to come
  bool skipping_ = false;
  uint8_t hdr_[kTlsHeaderLen] = {};
  size_t have_ = 0;  // header bytes of the next record already read
};

}  // namespace ferry

// Cutting sends into TLS application-data records and reading them back.
#include "tls-records.h"

#include <algorithm>
#include <cstring>

namespace ferry {

size_t tls_split(size_t len, size_t* lens, size_t max) {
  size_t n = 0;
  while (len > 0 && n < max) {
    size_t take = std::min(len, kTlsMaxPayload);
    const size_t rest = len - take;
    if (rest > 0 && rest < kTlsMinPayload) take -= kTlsMinPayload - rest;
    lens[n++] = take;
    len -= take;
  }
  return len == 0 ? n : 0;
}

void tls_app_header(size_t len, uint8_t out[kTlsHeaderLen]) {
  out[0] = 23;
  out[1] = 3;
  out[2] = 3;
  out[3] = uint8_t(len >> 8);
  out[4] = uint8_t(len);
}

size_t TlsRecordReader::read_size(size_t space) const {
  const size_t want = left_ > 0 ? left_ + kTlsHeaderLen : kTlsHeaderLen - have_;
  return std::min(space, want);
}

bool TlsRecordReader::take(uint8_t* p, size_t n, size_t& kept) {
  size_t r = 0, w = 0;
  while (r < n) {
    if (left_ == 0) {
      const size_t h = std::min(kTlsHeaderLen - have_, n - r);
      std::memcpy(hdr_ + have_, p + r, h);
      have_ += h;
      r += h;
      if (have_ < kTlsHeaderLen) break;
      have_ = 0;
      const uint8_t type = hdr_[0];
      const size_t len = size_t(hdr_[3]) << 8 | hdr_[4];
      if (hdr_[1] != 3 || hdr_[2] != 3 || len == 0 || len > kTlsMaxPayloadIn) return false;
      if (skip_pos_ < skip_.size()) {
        if (type != skip_[skip_pos_++]) return false;
        skipping_ = true;
      } else {
        if (type != 23 || len < kTlsMinPayload) return false;
        skipping_ = false;
      }
      left_ = len;
      continue;
    }
    const size_t take = std::min(left_, n - r);
    if (!skipping_) {
      if (w != r) std::memmove(p + w, p + r, take);
      w += take;
    }
    r += take;
    left_ -= take;
  }
  kept = w;
  return true;
}

}  // namespace ferry

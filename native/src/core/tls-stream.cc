// Reading the first flight on the node, and starting the Ferry stream inside TLS records on both ends.
#include "tls-stream.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <memory>

namespace ferry {

HelloVerdict TlsHelloReader::read(int fd, const X25519Key& node, int64_t now_s, TlsReplayCache& replay,
                                  AuthenticHello& out) {
  for (;;) {
    // The header first; then exactly the rest of the record it announces. Nothing past the record is read.
    size_t want = kTlsRecordHeader - std::min(head_.size(), kTlsRecordHeader);
    if (want == 0) want = kTlsRecordHeader + (size_t(head_[3]) << 8 | head_[4]) - head_.size();
    const size_t at = head_.size();
    head_.resize(at + want);
    const ssize_t n = recv(fd, head_.data() + at, want, MSG_DONTWAIT);
    head_.resize(at + (n > 0 ? size_t(n) : 0));
    if (n == 0) return HelloVerdict::kStranger;
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? HelloVerdict::kIncomplete : HelloVerdict::kStranger;
    }
    const HelloVerdict v = check_client_hello(head_.data(), head_.size(), node, now_s, replay, out);
    if (v != HelloVerdict::kIncomplete) return v;
  }
}

bool begin_server_stream(TcpConn& c, const Key32& node_pub, const AuthenticHello& hello, ByteSource& rnd) {
  c.set_masks(std::make_unique<RecordMasks>(node_pub, hello.client_random.data(), hello.client_random.size()));
  c.preamble_done = true;
  c.set_tls({20, 23});
  const std::vector<uint8_t> flight = build_server_flight(hello.session_id.data(), rnd);
  return c.send_records(nullptr, 0, flight.data(), flight.size());
}

bool begin_client_stream(TcpConn& c, const HelloTemplate& t, const std::string& server_name, const Key32& node_pub,
                         uint32_t unix_time, ByteSource& rnd) {
  std::array<uint8_t, 32> random;
  const std::vector<uint8_t> hello = build_client_hello(t, server_name, node_pub, unix_time, rnd, random);
  c.set_masks(std::make_unique<RecordMasks>(node_pub, random.data(), random.size()));
  c.set_tls({22, 20, 23});
  return c.send_records(nullptr, 0, hello.data(), hello.size());
}

}  // namespace ferry

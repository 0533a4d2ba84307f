// The TLS transport on a TCP connection: the node reading a first flight (bounded, never past the hello
// record) and both ends switching a TcpConn to the Ferry stream inside TLS records after the flights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tcp-conn.h"
#include "tls-hello.h"

namespace ferry {

// The node's reader of one connection's first bytes. Owned by the network thread.
class TlsHelloReader {
 public:
  // Reads what the socket has, a header first and then exactly the rest of its record, and decides. The other
  // side closing or failing before a verdict makes it a stranger's (the cover site gets what was sent, and
  // sees the close).
  HelloVerdict read(int fd, const X25519Key& node, int64_t now_s, TlsReplayCache& replay, AuthenticHello& out);
  // Every byte read so far (a stranger's are handed over with its connection).
  const std::vector<uint8_t>& head() const { return head_; }

 private:
  std::vector<uint8_t> head_;
};

// Node, after an authentic hello: the stream's length masks keyed by the client random, records from now on
// (the client's change_cipher_spec and Finished skipped), and the server's flight sent. False if it broke.
bool begin_server_stream(TcpConn& c, const Key32& node_pub, const AuthenticHello& hello, ByteSource& rnd);

// Client, on a connected socket: masks keyed by the hello's random, records expected after the node's flight,
// and the hello sent. False if it broke.
bool begin_client_stream(TcpConn& c, const HelloTemplate& t, const std::string& server_name, const Key32& node_pub,
                         uint32_t unix_time, ByteSource& rnd);

}  // namespace ferry

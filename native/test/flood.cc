// ferry-flood: sends Ferry initiations that pass every cheap check (valid header and mac1, random content),
// as fast as one core can, from one or more local addresses; what an attacker who read the node's public
// key can do at line rate. For benchmarks only.
// Usage: ferry-flood HOST PORT SERVER_PUBLIC_KEY_BASE64 SECONDS [SOURCE_ADDRESS...]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../src/core/crypto.h"
#include "../src/core/protocol.h"

using namespace ferry;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: ferry-flood HOST PORT SERVER_PUBLIC_KEY SECONDS [SOURCE...]\n");
    return 2;
  }
  Key32 server_pub;
  if (!base64_decode_key(argv[3], server_pub)) {
    std::fprintf(stderr, "ferry-flood: not a base64 32-byte key\n");
    return 2;
  }
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(uint16_t(std::atoi(argv[2])));
  if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
    std::fprintf(stderr, "ferry-flood: HOST must be an IPv4 address\n");
    return 2;
  }
  const double seconds = std::atof(argv[4]);
  std::vector<std::string> sources;
  for (int i = 5; i < argc; ++i) sources.push_back(argv[i]);
  if (sources.empty()) sources.push_back("0.0.0.0");
  std::vector<int> fds;
  for (const auto& src : sources) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    if (inet_pton(AF_INET, src.c_str(), &from.sin_addr) != 1 ||
        bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) < 0 ||
        connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) < 0) {
      std::perror(("ferry-flood: " + src).c_str());
      return 1;
    }
    fds.push_back(fd);
  }
  // A pool of distinct messages (each one's mac1 computed, as the attacker must), sent round-robin.
  Masker mask(derive_handshake_mask_key(server_pub));
  Mac16 mac1(derive_mac1_key(server_pub));
  constexpr size_t kPool = 4096, kLen = kInitMinLen + 32;
  std::vector<uint8_t> pool(kPool * kLen);
  for (size_t i = 0; i < kPool; ++i) {
    uint8_t* m = &pool[i * kLen];
    random_bytes(m, kLen);
    m[0] = uint8_t(MsgType::kInit);
    m[1] = m[2] = m[3] = 0;
    std::memset(m + 8, 0, 8);
    mac1.compute(m, kLen - kMac1Len, m + kLen - kMac1Len);
    uint8_t iv[16];
    std::memcpy(iv, m + kLen - 16, 16);
    mask.apply(iv, m, kMaskedHandshakePrefix);
  }
  constexpr size_t kBatch = 64;
  mmsghdr msgs[kBatch];
  iovec iovs[kBatch];
  uint64_t sent = 0;
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  for (size_t round = 0; std::chrono::steady_clock::now() < end; ++round) {
    for (size_t i = 0; i < kBatch; ++i) {
      iovs[i] = {&pool[((round * kBatch + i) % kPool) * kLen], kLen};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_iov = &iovs[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    int n = sendmmsg(fds[round % fds.size()], msgs, kBatch, 0);
    if (n > 0) sent += uint64_t(n);
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%.0f %.1f\n", double(sent) / took, double(sent) * kLen * 8 / took / 1e6);  // packets/s, Mbit/s
  return 0;
}

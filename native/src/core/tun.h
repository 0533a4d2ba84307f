// The OS TUN device seam: open a layer-3 interface and hand back a non-blocking file descriptor.
#pragma once

#include <stdexcept>
#include <string>

namespace ferry {

class TunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The OS side of a tunnel as the engines see it: a non-blocking descriptor that reads and writes one IP
// packet per call (with a virtio-net header first when vnet_hdr()). The real one is the TUN device; tests
// put one end of a SOCK_SEQPACKET socketpair in its place (PacketPipe), in the manner of wireguard-go's
// tuntest, so that the real engines run in a plain process.
class PacketIo {
 public:
  virtual ~PacketIo() = default;
  virtual int fd() const = 0;
  virtual const std::string& name() const = 0;
  virtual bool vnet_hdr() const = 0;
  // Releases the descriptor (for TUN: removes the interface). Idempotent.
  virtual void close() = 0;
};

// Owns the descriptor; closing it removes the (non-persistent) interface.
class TunDevice final : public PacketIo {
 public:
  // Creates interface `name` (IFF_TUN, no packet information header). With offload, also asks for
  // virtio-net headers and checksum/TSO offloads; vnet_hdr() tells whether every read and write then
  // carries a 10-byte virtio_net_hdr. Throws TunError.
  static TunDevice open(const std::string& name, bool offload);
  TunDevice(TunDevice&& o) noexcept : fd_(o.fd_), name_(std::move(o.name_)), vnet_hdr_(o.vnet_hdr_) { o.fd_ = -1; }
  TunDevice& operator=(TunDevice&&) = delete;
  TunDevice(const TunDevice&) = delete;
  ~TunDevice() override;
  int fd() const override { return fd_; }
  const std::string& name() const override { return name_; }
  bool vnet_hdr() const override { return vnet_hdr_; }
  void close() override;

 private:
  TunDevice(int fd, std::string name, bool vnet) : fd_(fd), name_(std::move(name)), vnet_hdr_(vnet) {}
  int fd_;
  std::string name_;
  bool vnet_hdr_ = false;
};

// A PacketIo over one end of a socketpair; the test holds the other end (peer_fd) and reads and writes IP
// packets on it as if it were the host's network stack. No virtio headers.
class PacketPipe final : public PacketIo {
 public:
  explicit PacketPipe(std::string name);
  ~PacketPipe() override;
  int fd() const override { return fd_; }
  int peer_fd() const { return peer_fd_; }
  // Hands the test's end over to the caller (who closes it; closing it is how a test removes the "device").
  int release_peer() {
    int fd = peer_fd_;
    peer_fd_ = -1;
    return fd;
  }
  const std::string& name() const override { return name_; }
  bool vnet_hdr() const override { return false; }
  void close() override;

 private:
  int fd_ = -1, peer_fd_ = -1;
  std::string name_;
};

// Assigns an address (CIDR) and MTU and brings the interface up; throws TunError with the tool's status.
void configure_interface(const std::string& name, const std::string& cidr, int mtu);

}  // namespace ferry

// The OS TUN device seam: open a layer-3 interface and hand back a non-blocking file descriptor.
#pragma once

#include <stdexcept>
#include <string>

namespace ferry {

class TunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Owns the descriptor; closing it removes the (non-persistent) interface.
class TunDevice {
 public:
  // Creates interface `name` (IFF_TUN, no packet information header). With offload, also asks for
  // virtio-net headers and checksum/TSO offloads; vnet_hdr() tells whether every read and write then
  // carries a 10-byte virtio_net_hdr. Throws TunError.
  static TunDevice open(const std::string& name, bool offload);
  TunDevice(TunDevice&& o) noexcept : fd_(o.fd_), name_(std::move(o.name_)), vnet_hdr_(o.vnet_hdr_) { o.fd_ = -1; }
  TunDevice& operator=(TunDevice&&) = delete;
  TunDevice(const TunDevice&) = delete;
  ~TunDevice();
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  bool vnet_hdr() const { return vnet_hdr_; }
  void close();

 private:
  TunDevice(int fd, std::string name, bool vnet) : fd_(fd), name_(std::move(name)), vnet_hdr_(vnet) {}
  int fd_;
  std::string name_;
  bool vnet_hdr_ = false;
};

// Assigns an address (CIDR) and MTU and brings the interface up; throws TunError with the tool's status.
void configure_interface(const std::string& name, const std::string& cidr, int mtu);

}  // namespace ferry

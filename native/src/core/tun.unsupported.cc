// TUN stand-in for macOS and Windows: utun and Wintun are not implemented yet, so opening fails clearly.
#include "tun.h"

namespace ferry {

TunDevice TunDevice::open(const std::string&, bool) {
#if defined(__APPLE__)
  throw TunError("Ferry's TUN device is not implemented on macOS yet (utun support is planned)");
#elif defined(_WIN32)
  throw TunError("Ferry's TUN device is not implemented on Windows yet (Wintun support is planned)");
#else
  throw TunError("Ferry's TUN device is only implemented on Linux");
#endif
}

TunDevice::~TunDevice() { close(); }
void TunDevice::close() { fd_ = -1; }

void configure_interface(const std::string&, const std::string&, int) {
  throw TunError("interface configuration is only implemented on Linux");
}

}  // namespace ferry

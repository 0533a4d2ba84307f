// Linux TUN device via /dev/net/tun, configured with the `ip` tool run by argv (no shell involved).
#include "tun.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

extern char** environ;

namespace ferry {

TunDevice TunDevice::open(const std::string& name, bool offload) {
  if (name.empty() || name.size() >= IFNAMSIZ) throw TunError("interface name must be 1-15 characters");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
      throw TunError("interface name may only contain letters, digits, '-', '_' and '.'");
  int fd = ::open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw TunError(std::string("cannot open /dev/net/tun: ") + std::strerror(errno));
  struct ifreq ifr;
  std::memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0);
  std::strncpy(ifr.ifr_name, name.c_str(), IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int e = errno;
    ::close(fd);
    throw TunError("cannot create TUN interface " + name + ": " + std::strerror(e) +
                   (e == EPERM   ? " (needs CAP_NET_ADMIN)"
                    : e == EBUSY ? " (name in use)"
                                 : ""));
  }
  if (offload) {
    // TSO lets the kernel hand us 64 KB TCP super-packets: one read instead of ~45. Without it we
    // still get (and must handle) the virtio header, so a refusal here is not fatal.
    if (ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) < 0) ioctl(fd, TUNSETOFFLOAD, 0);
  }
  return TunDevice(fd, ifr.ifr_name, offload);
}

TunDevice::~TunDevice() { close(); }

void TunDevice::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

static int run_ip(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("ip"));
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "ip", nullptr, nullptr, argv.data(), environ);
  if (rc != 0) throw TunError(std::string("cannot run ip: ") + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw TunError("waitpid failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

void configure_interface(const std::string& name, const std::string& cidr, int mtu) {
  if (run_ip({"address", "add", cidr, "dev", name}) != 0) throw TunError("ip address add failed for " + name);
  if (run_ip({"link", "set", "dev", name, "mtu", std::to_string(mtu), "up"}) != 0)
    throw TunError("ip link set up failed for " + name);
}

}  // namespace ferry

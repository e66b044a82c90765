// Linux TAP devices for the live harnesses (ws_tap_vtep, ws_tap_gre; sim/README.md "Live on
// TAP devices"): create one, optionally inside a named network namespace, nonblocking, up.
#pragma once

#include "util.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <net/if.h>  // before linux/if_tun.h: glibc and kernel both define struct ifreq
#include <linux/if_tun.h>
#include <sched.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ws {

constexpr int EXIT_TAP = 6;  // a TAP device could not be set up (not root, no /dev/net/tun, name taken)

// Runs `f` inside the network namespace `netns` ("" = the current one): a name from
// `ip netns add` (/var/run/netns/NAME) or a path. The harness is single-threaded, so setns()
// switches the whole process, and it switches back before returning.
template <class F>
void in_netns(const std::string& netns, F&& f) {
    if (netns.empty()) return f();
    const std::string path = netns.find('/') == std::string::npos ? "/var/run/netns/" + netns : netns;
    const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (target < 0)
        die(EXIT_TAP, "network namespace '%s': cannot open %s: %s (create it with `ip netns add %s`)",
            netns.c_str(), path.c_str(), strerror(errno), netns.c_str());
    const int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home < 0) die(EXIT_TAP, "cannot open /proc/self/ns/net: %s", strerror(errno));
    if (setns(target, CLONE_NEWNET) != 0)
        die(EXIT_TAP, "cannot enter network namespace '%s': %s", netns.c_str(), strerror(errno));
    close(target);
    f();
    if (setns(home, CLONE_NEWNET) != 0) die(EXIT_TAP, "cannot return to the original network namespace: %s", strerror(errno));
    close(home);
}

class TapDevice {
public:
    TapDevice() = default;
    TapDevice(const TapDevice&) = delete;
    TapDevice& operator=(const TapDevice&) = delete;
    ~TapDevice() {
        if (fd_ >= 0) close(fd_);  // a non-persistent TAP disappears with its last descriptor
    }

    // Creates TAP `name` (no packet-information header: the fd carries bare Ethernet frames) in
    // `netns`, nonblocking, and brings it up. `role` names the port in messages.
    void open_tap(const std::string& name, const std::string& netns, const char* role) {
        name_ = name;
        netns_ = netns;
        if (name.empty() || name.size() >= IFNAMSIZ)
            die(EXIT_INPUT, "%s TAP name '%s': must be 1 to %d characters", role, name.c_str(), IFNAMSIZ - 1);
        if (geteuid() != 0)
            die(EXIT_TAP, "creating TAP devices needs root (CAP_NET_ADMIN): run as root, e.g. "
                          "`sudo .venv/bin/wirespeed tap ...`");
        struct stat st;
        if (stat("/dev/net/tun", &st) != 0)
            die(EXIT_TAP, "/dev/net/tun is missing (%s): load the tun module (`modprobe tun`) or, in "
                          "a container, pass the device in (e.g. docker --device /dev/net/tun)",
                strerror(errno));
        in_netns(netns, [&] { create(role); });
    }

    int fd() const { return fd_; }
    const std::string& name() const { return name_; }
    const std::string& netns() const { return netns_; }
    // "wsnet" or "wsnet (netns cloud)"
    std::string where() const { return netns_.empty() ? name_ : name_ + " (netns " + netns_ + ")"; }

private:
    void create(const char* role) {
        const char* ns = netns_.empty() ? "this network namespace" : netns_.c_str();
        if (if_nametoindex(name_.c_str()) != 0)
            die(EXIT_TAP, "%s TAP: a network device named '%s' already exists in %s (another "
                          "wirespeed tap running? `ip link del %s` if it is stale, or choose another name)",
                role, name_.c_str(), ns, name_.c_str());
        fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd_ < 0)
            die(EXIT_TAP, "cannot open /dev/net/tun: %s%s", strerror(errno),
                errno == EACCES || errno == EPERM ? " (needs root)" : "");
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
        strncpy(ifr.ifr_name, name_.c_str(), IFNAMSIZ - 1);
        if (ioctl(fd_, TUNSETIFF, &ifr) != 0) {
            if (errno == EBUSY || errno == EEXIST)
                die(EXIT_TAP, "%s TAP: the name '%s' is taken in %s", role, name_.c_str(), ns);
            if (errno == EPERM)
                die(EXIT_TAP, "%s TAP '%s': permission denied (needs root / CAP_NET_ADMIN)", role, name_.c_str());
            die(EXIT_TAP, "%s TAP '%s': TUNSETIFF failed: %s", role, name_.c_str(), strerror(errno));
        }
        // Up, so that the kernel transmits into it at once (addresses are the caller's business).
        const int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (s < 0) die(EXIT_TAP, "socket(): %s", strerror(errno));
        if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0 || (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) != 0))
            die(EXIT_TAP, "%s TAP '%s': cannot bring it up: %s", role, name_.c_str(), strerror(errno));
        close(s);
    }

    int fd_ = -1;
    std::string name_, netns_;
};

}  // namespace ws

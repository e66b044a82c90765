"""A two-namespace Linux VXLAN lab for interop tests (tb/linux/).

    namespace A                                       namespace B
    vx0 192.168.42.1/24 (VNI 42)                       vx0 192.168.42.2/24 (VNI 42)
     |  kernel VXLAN, dstport 4789                      |
    ula 10.200.0.1/24  <======= veth underlay =======> ulb 10.200.0.2/24

Variants: "v4" (the default), "nocsum" (outer UDP checksum 0), "vlan" (underlay on 802.1Q
sub-interfaces, VLAN 100: the outer frames carry a tag), "v6" (IPv6 underlay fd00:200::1/2).

Every address lives only inside the two namespaces created here; `close()` (or the context
manager) deletes them, which removes every interface in them. Offloads (checksum, TSO/GSO/GRO,
scatter-gather) are switched off on every interface, so the captures hold real wire frames: no
GSO super-frames, no partial checksums.
"""

from __future__ import annotations

import array
import fcntl
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

MAC = {
    "ula": "02:00:0a:c8:00:01",
    "ulb": "02:00:0a:c8:00:02",
    "vxa": "02:00:c0:a8:2a:01",
    "vxb": "02:00:c0:a8:2a:02",
    "ghost": "02:00:c0:a8:2a:03",  # a host behind our own VTEP (test b)
}
UNDERLAY4 = ("10.200.0.1", "10.200.0.2")
UNDERLAY6 = ("fd00:200::1", "fd00:200::2")
INNER = ("192.168.42.1", "192.168.42.2")
GHOST_IP = "192.168.42.3"
VNI = 42
VLAN = 100


class LabUnavailable(Exception):
    """The machine cannot run the lab (not root, no iproute2, no netns/veth/vxlan support, no
    capture tool). The message says what is missing."""


def _run(cmd: list[str], check: bool = True, timeout: float = 30, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip() or r.stdout.strip()}")
    return r


def capture_tool() -> list[str] | None:
    """argv prefix of a capture tool that writes pcap with -i IF -w FILE, flushing per packet."""
    if shutil.which("dumpcap"):
        return ["dumpcap", "-q", "-P"]  # pcap (not pcapng); dumpcap writes each packet at once
    if shutil.which("tcpdump"):
        return ["tcpdump", "-U", "-n", "-s", "0"]
    if shutil.which("tshark"):
        return ["tshark", "-q", "-F", "pcap"]
    return None


def check_available() -> None:
    """Raise LabUnavailable with a clear reason when the lab cannot run here."""
    if sys.platform != "linux":
        raise LabUnavailable("Linux only")
    if os.geteuid() != 0:
        raise LabUnavailable("needs root (ip netns, veth, vxlan devices)")
    if not shutil.which("ip"):
        raise LabUnavailable("iproute2 `ip` not installed (apt-get install iproute2)")
    if capture_tool() is None:
        raise LabUnavailable("no capture tool: install tshark (dumpcap) or tcpdump")
    probe = f"wsprobe{os.getpid()}"
    try:
        r = _run(["ip", "netns", "add", probe], check=False)
        if r.returncode != 0:
            raise LabUnavailable(f"cannot create a network namespace: {r.stderr.strip()}")
        r = _run(["ip", "-n", probe, "link", "add", "p0", "type", "veth", "peer", "name", "p1"], check=False)
        if r.returncode != 0:
            raise LabUnavailable(f"cannot create a veth pair: {r.stderr.strip()}")
        r = _run(["ip", "-n", probe, "link", "add", "vx0", "type", "vxlan", "id", "1", "dstport", "4789",
                  "dev", "p0", "remote", "10.0.0.1"], check=False)
        if r.returncode != 0:
            raise LabUnavailable(f"cannot create a VXLAN device: {r.stderr.strip()}")
    finally:
        _run(["ip", "netns", "del", probe], check=False)


# ----------------------------------------------------------------------------------------------
# Offloads off, without the ethtool binary: the legacy SIOCETHTOOL set commands.
# Run inside a namespace as `python vxlan_lab.py offloads-off IFNAME...`.
# ----------------------------------------------------------------------------------------------

SIOCETHTOOL = 0x8946
ETHTOOL_SET = {"tx": 0x17, "sg": 0x19, "tso": 0x1F, "gso": 0x24, "gro": 0x2C, "rx": 0x15}


def _offloads_off(ifname: str) -> list[str]:
    """Switch the offloads off on `ifname` in the current namespace; returns what failed."""
    failed = []
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for name in ("gro", "gso", "tso", "sg", "tx"):
            buf = array.array("B", struct.pack("II", ETHTOOL_SET[name], 0))
            addr, _ = buf.buffer_info()
            ifr = struct.pack("16sP", ifname.encode(), addr) + bytes(16)
            try:
                fcntl.ioctl(s.fileno(), SIOCETHTOOL, ifr)
            except OSError as e:
                failed.append(f"{ifname} {name}: {e.strerror}")
    finally:
        s.close()
    return failed


# ----------------------------------------------------------------------------------------------
# The lab
# ----------------------------------------------------------------------------------------------


@dataclass
class Capture:
    proc: subprocess.Popen
    path: Path


class VxlanLab:
    def __init__(self, workdir: Path, variant: str = "v4", tag: str | None = None):
        if variant not in ("v4", "nocsum", "vlan", "v6"):
            raise ValueError(variant)
        self.variant = variant
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        tag = tag or f"{os.getpid() % 100000}"
        self.ns = (f"wsvx{tag}a", f"wsvx{tag}b")
        self.v6 = variant == "v6"
        self.underlay = UNDERLAY6 if self.v6 else UNDERLAY4
        # the interface the underlay addresses are on, and the one frames are captured on
        self.ul = ("ula", "ulb")
        self.ul_ip = ("ula.100", "ulb.100") if variant == "vlan" else self.ul
        self._captures: list[Capture] = []
        self._procs: list[subprocess.Popen] = []
        self.up = False

    # -- helpers ---------------------------------------------------------------------------------
    def ip(self, side: int, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        return _run(["ip", "-n", self.ns[side], *args], check=check)

    def exec(self, side: int, *cmd: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess:
        return _run(["ip", "netns", "exec", self.ns[side], *cmd], check=check, timeout=timeout)

    def popen(self, side: int, *cmd: str, **kw) -> subprocess.Popen:
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[side], *cmd], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)
        self._procs.append(p)
        return p

    def py(self, side: int, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run this file's command-line helpers inside a namespace."""
        return self.exec(side, sys.executable, str(Path(__file__).resolve()), *args, timeout=timeout)

    # -- set-up / tear-down ------------------------------------------------------------------------
    def __enter__(self) -> "VxlanLab":
        try:
            self.setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def setup(self) -> None:
        A, B = self.ns
        for ns in self.ns:
            _run(["ip", "netns", "del", ns], check=False)
            _run(["ip", "netns", "add", ns])
        self.up = True
        self.ip(0, "link", "add", "ula", "type", "veth", "peer", "name", "ulb", "netns", B)
        for side in (0, 1):
            ex = self.exec
            ex(side, "sysctl", "-qw", "net.ipv4.tcp_ecn=1")  # ECT(0) inner traffic, copied to the outer header
            if not self.v6:
                ex(side, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
                ex(side, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
            else:
                ex(side, "sysctl", "-qw", "net.ipv6.conf.all.accept_dad=0")
                ex(side, "sysctl", "-qw", "net.ipv6.conf.default.accept_dad=0")
                ex(side, "sysctl", "-qw", "net.ipv6.conf.default.router_solicitations=0")
                ex(side, "sysctl", "-qw", "net.ipv6.conf.all.router_solicitations=0")
            self.ip(side, "link", "set", "lo", "up")
            ul = self.ul[side]
            self.ip(side, "link", "set", ul, "address", MAC[ul])
            if self.variant == "vlan":
                r = self.ip(side, "link", "add", "link", ul, "name", self.ul_ip[side], "type", "vlan", "id", str(VLAN),
                            check=False)
                if r.returncode != 0:
                    raise LabUnavailable(f"no 802.1Q VLAN devices in this kernel: {r.stderr.strip()}")
            pfx = "/64" if self.v6 else "/24"
            self.ip(side, "addr", "add", self.underlay[side] + pfx, "dev", self.ul_ip[side], *(["nodad"] if self.v6 else []))
            me, peer = self.underlay[side], self.underlay[1 - side]
            extra = ["noudpcsum"] if self.variant == "nocsum" else []
            if self.v6:
                extra = ["udp6zerocsumtx", "udp6zerocsumrx"] if self.variant == "nocsum" else []
            self.ip(side, "link", "add", "vx0", "type", "vxlan", "id", str(VNI), "remote", peer, "local", me,
                    "dstport", "4789", "dev", self.ul_ip[side], *extra)
            if self.v6:
                ex(side, "sysctl", "-qw", "net.ipv6.conf.vx0.disable_ipv6=1")
            vx = "vxa" if side == 0 else "vxb"
            self.ip(side, "link", "set", "vx0", "address", MAC[vx])
            self.ip(side, "addr", "add", INNER[side] + "/24", "dev", "vx0")
            devs = [ul, "vx0"] + ([self.ul_ip[side]] if self.variant == "vlan" else [])
            r = self.py(side, "offloads-off", *devs)
            if r.stdout.strip():
                raise LabUnavailable(f"cannot switch offloads off: {r.stdout.strip()}")
            for d in [ul] + ([self.ul_ip[side]] if self.variant == "vlan" else []) + ["vx0"]:
                self.ip(side, "link", "set", d, "up")
        # static neighbours on the underlay: no ARP/ND noise on the captures' inner side
        for side in (0, 1):
            peer_mac = MAC[self.ul[1 - side]]
            self.ip(side, "neigh", "replace", self.underlay[1 - side], "lladdr", peer_mac, "dev", self.ul_ip[side])

    def close(self) -> None:
        for c in self._captures:
            self._stop(c.proc)
        self._captures.clear()
        for p in self._procs:
            self._stop(p)
        self._procs.clear()
        if self.up:
            for ns in self.ns:
                _run(["ip", "netns", "del", ns], check=False)
            self.up = False

    @staticmethod
    def _stop(p: subprocess.Popen, sig=signal.SIGINT) -> None:
        if p.poll() is None:
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                return
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=5)

    # -- captures ------------------------------------------------------------------------------------
    def start_capture(self, side: int, ifname: str, name: str) -> Capture:
        path = self.workdir / name
        if path.exists():
            path.unlink()
        tool = capture_tool()
        assert tool is not None
        p = self.popen(side, *tool, "-i", ifname, "-w", str(path))
        c = Capture(p, path)
        self._captures.append(c)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 10:  # the file appears once the capture runs
            if path.exists() and path.stat().st_size >= 24:
                break
            if p.poll() is not None:
                raise RuntimeError(f"capture on {ifname} exited: {p.stderr.read()}")
            time.sleep(0.05)
        else:
            raise RuntimeError(f"capture on {ifname} did not start")
        time.sleep(0.5)
        return c

    def stop_capture(self, c: Capture, settle: float = 1.0) -> Path:
        time.sleep(settle)  # let the last frames through and flushed
        self._stop(c.proc)
        if c in self._captures:
            self._captures.remove(c)
        return c.path

    # -- traffic --------------------------------------------------------------------------------------
    def ping(self, side: int, dst: str, count: int = 5) -> None:
        if shutil.which("ping"):
            self.exec(side, "ping", "-c", str(count), "-i", "0.2", "-W", "2", dst, timeout=30)
        else:
            self.py(side, "ping", dst, str(count), timeout=30)

    def tcp_transfer(self, nbytes: int = 256 * 1024) -> str:
        """A TCP transfer from A to B over the tunnel: iperf (v2) when installed, else Python
        sockets. Returns the tool used."""
        if shutil.which("iperf"):
            srv = self.popen(1, "iperf", "-s", "-B", INNER[1], "-p", "5001")
            try:
                time.sleep(0.5)
                self.exec(0, "iperf", "-c", INNER[1], "-p", "5001", "-n", str(nbytes), timeout=60)
            finally:
                self._stop(srv)
            return "iperf"
        srv = self.popen(1, sys.executable, str(Path(__file__).resolve()), "tcp-server", INNER[1], "5001")
        try:
            time.sleep(0.5)
            self.py(0, "tcp-client", INNER[1], "5001", str(nbytes))
            srv.wait(timeout=30)
        finally:
            self._stop(srv)
        return "python"

    def inject(self, side: int, ifname: str, frames: list[bytes]) -> None:
        """Send raw frames out of `ifname` in namespace `side` (AF_PACKET)."""
        path = self.workdir / f"inject_{int(time.monotonic() * 1000)}.hex"
        path.write_text("\n".join(f.hex() for f in frames) + "\n")
        self.py(side, "inject", ifname, str(path))

    def rx_packets(self, side: int, ifname: str = "vx0") -> int:
        r = self.exec(side, "cat", f"/sys/class/net/{ifname}/statistics/rx_packets")
        return int(r.stdout.strip())

    def add_ghost_neighbour(self) -> None:
        """B reaches the ghost host 192.168.42.3 (behind our VTEP) without ARP."""
        self.ip(1, "neigh", "replace", GHOST_IP, "lladdr", MAC["ghost"], "dev", "vx0")


# ----------------------------------------------------------------------------------------------
# Command-line helpers, run inside a namespace by the lab
# ----------------------------------------------------------------------------------------------


def _cli(argv: list[str]) -> int:
    cmd = argv[0]
    if cmd == "offloads-off":
        failed = []
        for d in argv[1:]:
            failed += [f for f in _offloads_off(d) if "Operation not supported" not in f]
        print("; ".join(failed))
        return 0
    if cmd == "inject":
        ifname, path = argv[1], argv[2]
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((ifname, 0))
        for line in Path(path).read_text().split():
            s.send(bytes.fromhex(line))
            time.sleep(0.02)
        s.close()
        return 0
    if cmd == "tcp-server":
        host, port = argv[1], int(argv[2])
        ls = socket.socket()
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((host, port))
        ls.listen(1)
        ls.settimeout(20)
        c, _ = ls.accept()
        n = 0
        while True:
            d = c.recv(65536)
            if not d:
                break
            n += len(d)
        c.sendall(str(n).encode())
        c.close()
        return 0
    if cmd == "tcp-client":
        host, port, nbytes = argv[1], int(argv[2]), int(argv[3])
        s = socket.create_connection((host, port), timeout=20)
        data = bytes(i & 0xFF for i in range(nbytes))
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        got = s.recv(64)
        s.close()
        return 0 if int(got or b"0") == nbytes else 1
    if cmd == "ping":
        dst, count = argv[1], int(argv[2])
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        s.settimeout(2)
        ok = 0
        for seq in range(count):
            body = struct.pack("!BBHHH", 8, 0, 0, 0x5753, seq) + b"wirespeed-ping" * 4
            csum = _icmp_csum(body)
            body = body[:2] + struct.pack("!H", csum) + body[4:]
            s.sendto(body, (dst, 0))
            try:
                while True:
                    d, _ = s.recvfrom(2048)
                    ihl = (d[0] & 0xF) * 4
                    if d[ihl] == 0 and struct.unpack("!HH", d[ihl + 4 : ihl + 8]) == (0x5753, seq):
                        ok += 1
                        break
            except socket.timeout:
                pass
            time.sleep(0.2)
        return 0 if ok == count else 1
    raise SystemExit(f"unknown command {cmd}")


def _icmp_csum(b: bytes) -> int:
    if len(b) & 1:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


if __name__ == "__main__":
    raise SystemExit(_cli(sys.argv[1:]))

"""The simulated NIC on a real network (docs/tap.md): Linux network namespaces on both sides of
``wirespeed tap``, for ``make demo`` and the tests in tb/tap/.

VXLAN, as in the Ethernity seed's topology::

    netns "cloud"                                     netns "onprem"
    vx0 192.168.42.1/24 (kernel VXLAN, VNI 42)         wshost 192.168.42.2/24 (plain Ethernet)
     |                                                   |
    wsnet 10.200.0.1/24 ==TAP== [ vtep_top: network port | host port ] ==TAP==
                                  underlay 10.200.0.2

The cloud's kernel encapsulates towards 10.200.0.2 (the NIC); the RTL decapsulates and hands
the inner frame to onprem; onprem's replies are encapsulated by the RTL (its tunnel table, set
over AXI4-Lite from a ``vtep:`` config: inner 192.168.42.1 -> outer 10.200.0.2 -> 10.200.0.1,
VNI 42) and decapsulated by the cloud's kernel. Neighbours are static: the NIC answers no ARP,
and the inner ARP of a real VTEP (proxy/suppression) is not part of the RTL.

GRE (this kernel has no GRE devices): scapy in netns "grenet" writes GRE frames into the
``gre_decap`` input TAP; the decapsulated packets reach a UDP socket in netns "grehost".

``python -m wirespeed.taplab demo`` runs both and tears everything down on exit, failure,
Ctrl-C or SIGTERM. The other subcommands are helpers run inside a namespace.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from wirespeed import paths

UNDER_CLOUD, UNDER_NIC = "10.200.0.1", "10.200.0.2"
INNER_CLOUD, INNER_ONPREM = "192.168.42.1", "192.168.42.2"
VNI = 42
MAC = {"wsnet": "02:00:0a:c8:00:01", "nic": "02:00:0a:c8:00:02", "vx0": "02:00:c0:a8:2a:01",
       "wshost": "02:00:c0:a8:2a:02", "wsgout": "02:00:c0:a8:2b:02", "gre_src": "02:00:0a:c9:00:01"}
# Inner MTU: the underlay's 1500 bytes less VXLAN's 50 (VxlanTapLab(mtu=9000): jumbo frames,
# 9000 on the underlay and 8950 inside).
UNDERLAY_MTU = 1500
VXLAN_OVERHEAD = 50
INNER_MTU = UNDERLAY_MTU - VXLAN_OVERHEAD
GRE_OUTER = ("10.201.0.1", "10.201.0.2")
GRE_INNER = ("192.168.43.1", "192.168.43.2")
GRE_PORT = 5555
IPERF_PORT = 5001
PR_SET_PDEATHSIG = 1


class LabUnavailable(Exception):
    """This machine cannot run the lab; the message says what is missing."""


def _run(cmd: Sequence[str], check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {(r.stderr or r.stdout).strip()}")
    return r


def check_available(need_iperf: bool = True) -> None:
    """Raise LabUnavailable with the reason when namespaces, TUN or the tools are missing."""
    if sys.platform != "linux":
        raise LabUnavailable("Linux only")
    if os.geteuid() != 0:
        raise LabUnavailable("needs root (network namespaces, TAP devices)")
    if not Path("/dev/net/tun").exists():
        raise LabUnavailable("/dev/net/tun is missing (no TUN/TAP support)")
    for tool, pkg in (("ip", "iproute2"), ("ping", "iputils-ping")) + ((("iperf", "iperf"),) if need_iperf else ()):
        if not shutil.which(tool):
            raise LabUnavailable(f"`{tool}` is not installed (apt-get install -y {pkg})")
    probe = f"wsprobe{os.getpid()}"
    try:
        r = _run(["ip", "netns", "add", probe], check=False)
        if r.returncode != 0:
            raise LabUnavailable(f"cannot create a network namespace: {r.stderr.strip()}")
        r = _run(["ip", "-n", probe, "link", "add", "vx0", "type", "vxlan", "id", "1", "dstport", "4789",
                  "remote", "10.0.0.1"], check=False)
        if r.returncode != 0:
            raise LabUnavailable(f"cannot create a kernel VXLAN device: {r.stderr.strip()}")
    finally:
        _run(["ip", "netns", "del", probe], check=False)


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the lab process dies, however it dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _stop(p: subprocess.Popen[Any], sig: int = signal.SIGTERM, wait: float = 10) -> None:
    """Stop a process started in its own session (and its group); SIGKILL if it lingers."""
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, sig)
    except ProcessLookupError:
        return
    try:
        p.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=5)


@dataclass
class PingResult:
    sent: int
    received: int
    rtt_avg_ms: float | None
    rtt_min_ms: float | None = None
    rtt_max_ms: float | None = None


@dataclass
class IperfResult:
    seconds: float
    client_bytes: int
    server_bytes: int
    mbit_s: float  # server side: bytes received / interval


def parse_ping(text: str, sent: int) -> PingResult:
    m = re.search(r"(\d+) (?:packets )?received", text)
    received = int(m.group(1)) if m else 0
    r = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)/", text)
    if not r:
        return PingResult(sent, received, None)
    return PingResult(sent, received, float(r.group(2)), float(r.group(1)), float(r.group(3)))


def parse_iperf_csv(text: str) -> tuple[int, float, float] | None:
    """(bytes, seconds, bits/s) of iperf2's last `-y C` report line."""
    rows = [ln.split(",") for ln in text.strip().splitlines() if ln.count(",") >= 8]
    if not rows:
        return None
    f = rows[-1]
    a, b = f[6].split("-")
    return int(f[7]), float(b) - float(a), float(f[8])


class Namespaces:
    """Network namespaces named after a tag, deleted (with every interface in them) on close."""

    def __init__(self, names: Sequence[str]):
        self.names = list(names)
        self.made: list[str] = []

    def create(self) -> None:
        for ns in self.names:
            _run(["ip", "netns", "del", ns], check=False)
            _run(["ip", "netns", "add", ns])
            self.made.append(ns)
            self.ip(ns, "link", "set", "lo", "up")
            # no IPv6 chatter (router solicitations, MLD) through the NIC
            for k in ("all", "default"):
                self.exec(ns, "sysctl", "-qw", f"net.ipv6.conf.{k}.disable_ipv6=1")

    def ip(self, ns: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return _run(["ip", "-n", ns, *args], check=check)

    def exec(self, ns: str, *cmd: str, check: bool = True, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return _run(["ip", "netns", "exec", ns, *cmd], check=check, timeout=timeout)

    def popen(self, ns: str, *cmd: str, **kw: Any) -> subprocess.Popen[str]:
        return subprocess.Popen(["ip", "netns", "exec", ns, *cmd], text=True, start_new_session=True,
                                preexec_fn=_die_with_parent, **kw)

    def close(self) -> None:
        for ns in self.made:
            # processes still inside (iperf, helpers) first, so that the namespace can go
            r = _run(["ip", "netns", "pids", ns], check=False)
            for pid in r.stdout.split():
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (ProcessLookupError, ValueError):
                    pass
            _run(["ip", "netns", "del", ns], check=False)
        self.made.clear()


class TapSim:
    """``wirespeed tap`` as a child process: JSON lines to a file, ready when it says so."""

    def __init__(self, workdir: Path, name: str, args: Sequence[str]):
        self.out = workdir / f"{name}.jsonl"
        self.err = workdir / f"{name}.log"
        self.args = [str(Path(sys.executable).parent / "wirespeed"), "tap", "--json", *args]
        if not Path(self.args[0]).exists():
            self.args = [sys.executable, "-m", "wirespeed.cli", "tap", "--json", *args]
        self.proc: subprocess.Popen[str] | None = None

    def start(self, timeout: float = 900) -> None:
        with open(self.out, "w") as o, open(self.err, "w") as e:
            self.proc = subprocess.Popen(self.args, stdout=o, stderr=e, text=True, start_new_session=True,
                                         preexec_fn=_die_with_parent, cwd=paths.ROOT)
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:  # the first run builds the harness (minutes)
            log = self.err.read_text(errors="replace")
            if ": ready:" in log:
                return
            if self.proc.poll() is not None:
                raise RuntimeError(f"wirespeed tap exited ({self.proc.returncode}): {log.strip()[-2000:]}")
            time.sleep(0.1)
        raise RuntimeError(f"wirespeed tap not ready after {timeout:.0f} s (see {self.err})")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def lines(self) -> list[dict[str, Any]]:
        out = []
        for ln in self.out.read_text(errors="replace").splitlines():
            try:
                out.append(json.loads(ln))
            except json.JSONDecodeError:
                pass  # a line being written
        return out

    def stop(self, timeout: float = 30) -> dict[str, Any]:
        """SIGINT (drain, counters, balance check); returns the final JSON line."""
        assert self.proc is not None
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                _stop(self.proc, signal.SIGKILL)
                raise RuntimeError("wirespeed tap did not stop within 30 s of SIGINT")
        final = [x for x in self.lines() if x.get("final")]
        if not final:
            raise RuntimeError(f"wirespeed tap left no final counters (exit {self.proc.returncode}): "
                               f"{self.err.read_text(errors='replace')[-2000:]}")
        f = final[-1]
        f["exit_code"] = self.proc.returncode
        return f

    def kill(self) -> None:
        if self.proc is not None:
            _stop(self.proc, signal.SIGKILL)


def lab_config(width: int) -> dict[str, Any]:
    """The NIC's config in the VXLAN lab: one tunnel back to the cloud."""
    return {"data_width": width,
            "vtep": {"tunnels": [{"inner_dst": INNER_CLOUD, "vni": VNI, "outer_dst_mac": MAC["wsnet"],
                                  "outer_src_mac": MAC["nic"], "outer_src": UNDER_NIC,
                                  "outer_dst": UNDER_CLOUD}]}}


@dataclass
class VxlanTapLab:
    """The VXLAN topology of the module docstring. Use as a context manager."""

    workdir: Path
    tag: str = field(default_factory=lambda: str(os.getpid() % 100000))
    width: int = 256
    sim_args: Sequence[str] = ()
    mtu: int = UNDERLAY_MTU  # the underlay's (wsnet); vx0 and wshost get mtu - 50

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.cloud, self.onprem = f"ws{self.tag}cloud", f"ws{self.tag}onprem"
        self.ns = Namespaces([self.cloud, self.onprem])
        self.sim: TapSim | None = None
        self.procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> "VxlanTapLab":
        try:
            self.setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def config(self) -> Path:
        p = self.workdir / "vtep.yaml"
        p.write_text(json.dumps(lab_config(self.width), indent=1) + "\n")  # JSON is YAML
        return p

    def setup(self) -> None:
        self.ns.create()
        self.sim = TapSim(self.workdir, "vtep", ["--block", "vtep", "--config", str(self.config()),
                                                 "--net-netns", self.cloud, "--host-netns", self.onprem,
                                                 *self.sim_args])
        self.sim.start()
        c, o, ip = self.cloud, self.onprem, self.ns.ip
        ip(c, "link", "set", "wsnet", "address", MAC["wsnet"])
        ip(c, "link", "set", "wsnet", "mtu", str(self.mtu))
        ip(c, "addr", "add", UNDER_CLOUD + "/24", "dev", "wsnet")
        ip(c, "neigh", "replace", UNDER_NIC, "lladdr", MAC["nic"], "dev", "wsnet")
        ip(c, "link", "add", "vx0", "type", "vxlan", "id", str(VNI), "remote", UNDER_NIC, "local", UNDER_CLOUD,
           "dstport", "4789", "dev", "wsnet")
        ip(c, "link", "set", "vx0", "address", MAC["vx0"])
        ip(c, "link", "set", "vx0", "mtu", str(self.mtu - VXLAN_OVERHEAD))
        ip(c, "addr", "add", INNER_CLOUD + "/24", "dev", "vx0")
        ip(c, "link", "set", "vx0", "up")
        ip(c, "neigh", "replace", INNER_ONPREM, "lladdr", MAC["wshost"], "dev", "vx0")
        ip(o, "link", "set", "wshost", "address", MAC["wshost"])
        ip(o, "link", "set", "wshost", "mtu", str(self.mtu - VXLAN_OVERHEAD))
        ip(o, "addr", "add", INNER_ONPREM + "/24", "dev", "wshost")
        ip(o, "neigh", "replace", INNER_CLOUD, "lladdr", MAC["vx0"], "dev", "wshost")

    def close(self) -> None:
        for p in self.procs:  # iperf2 lingers on SIGTERM over a dead path: not long
            _stop(p, wait=2)
        self.procs.clear()
        if self.sim is not None:
            self.sim.kill()
        self.ns.close()

    # -- traffic -------------------------------------------------------------------------------
    def ping(self, from_cloud: bool = True, count: int = 5, interval: float = 0.2) -> PingResult:
        ns, dst = (self.cloud, INNER_ONPREM) if from_cloud else (self.onprem, INNER_CLOUD)
        r = self.ns.exec(ns, "ping", "-c", str(count), "-i", str(interval), "-W", "5", "-q", dst, check=False,
                         timeout=count * interval + 30)
        return parse_ping(r.stdout, count)

    def iperf(self, seconds: float = 10, nbytes: int | None = None, reverse: bool = False,
              client_args: Sequence[str] = ()) -> IperfResult:
        """TCP from cloud to onprem (``reverse``: onprem to cloud), iperf2, for `seconds` or
        `nbytes` (``client_args``: more options of the client, e.g. ``-w 4M``). Both ends' byte
        counts are returned."""
        srv_ns, cli_ns, dst = (self.onprem, self.cloud, INNER_ONPREM)
        if reverse:
            srv_ns, cli_ns, dst = (self.cloud, self.onprem, INNER_CLOUD)
        srv = self.ns.popen(srv_ns, "iperf", "-s", "-B", dst, "-p", str(IPERF_PORT), "-y", "C",
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.procs.append(srv)
        try:
            _wait_listening(self.ns, srv_ns, IPERF_PORT)
            how = ["-n", str(nbytes)] if nbytes else ["-t", str(seconds)]
            cli = self.ns.exec(cli_ns, "iperf", "-c", dst, "-p", str(IPERF_PORT), *how, *client_args, "-y", "C",
                               check=False,
                               timeout=(seconds if not nbytes else 60) + 60)
            c = parse_iperf_csv(cli.stdout)
            if c is None:
                raise RuntimeError(f"iperf client failed: {cli.stdout.strip()} {cli.stderr.strip()}")
            time.sleep(0.5)  # the server's report of the finished connection
            os.killpg(srv.pid, signal.SIGINT)
            out, _ = srv.communicate(timeout=10)
            s = parse_iperf_csv(out or "")
            server_bytes, secs, bps = s if s else (0, c[1], 0.0)
            return IperfResult(secs, c[0], server_bytes, bps / 1e6)
        finally:
            _stop(srv)
            if srv in self.procs:
                self.procs.remove(srv)

    def inject(self, frames_hex: Sequence[str], ifname: str = "wsnet") -> None:
        """Frames written by scapy into the cloud's underlay (the NIC's network port)."""
        path = self.workdir / "inject.hex"
        path.write_text("\n".join(frames_hex) + "\n")
        self.ns.exec(self.cloud, sys.executable, "-m", "wirespeed.taplab", "send-hex", ifname, str(path))


def _wait_listening(ns: Namespaces, name: str, port: int, timeout: float = 10) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        r = ns.exec(name, "ss", "-Hltn", f"sport = :{port}", check=False) if shutil.which("ss") else None
        if r is None:
            time.sleep(0.5)
            return
        if r.stdout.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} in {name}")


# ----------------------------------------------------------------------------------------------
# Frames for the fault tests and the GRE demo (scapy)
# ----------------------------------------------------------------------------------------------


def malformed_vxlan_frames() -> dict[str, list[bytes]]:
    """VXLAN frames the decapsulator must drop, by the outcome it must count them under
    (docs/vxlan.md), addressed like the cloud's own underlay frames."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.layers.vxlan import VXLAN
    from scapy.packet import Raw

    def base(flags: int = 0x08) -> Any:
        inner = Ether(dst=MAC["wshost"], src=MAC["vx0"]) / IP(src=INNER_CLOUD, dst=INNER_ONPREM) / UDP(
            sport=1, dport=9) / Raw(b"wirespeed malformed" * 3)
        return (Ether(dst=MAC["nic"], src=MAC["wsnet"]) / IP(src=UNDER_CLOUD, dst=UNDER_NIC) /
                UDP(sport=40000, dport=4789) / VXLAN(flags=flags, vni=VNI) / inner)

    out: dict[str, list[bytes]] = {"DROP_VXLAN_FLAGS": [], "DROP_IP_CHECKSUM": [], "DROP_UDP_CHECKSUM": [],
                                   "DROP_FRAGMENT": []}
    out["DROP_VXLAN_FLAGS"].append(bytes(base(flags=0x00)))
    p = base()
    p[IP].chksum = 0x1234
    out["DROP_IP_CHECKSUM"].append(bytes(p))
    raw = bytearray(bytes(base()))
    raw[40] ^= 0x55  # the UDP checksum's first byte (14 + 20 + 6): nonzero and wrong
    if raw[40] == 0 and raw[41] == 0:
        raw[41] = 1
    out["DROP_UDP_CHECKSUM"].append(bytes(raw))
    p = base()
    p[IP].flags = "MF"
    out["DROP_FRAGMENT"].append(bytes(Ether(bytes(p))))  # checksum recomputed with MF set
    return out


def gre_frames(n: int, dst_mac: str) -> list[bytes]:
    """n IPv4-in-GRE frames carrying UDP datagrams 'wirespeed gre <i>' to GRE_INNER[1]:GRE_PORT."""
    from scapy.layers.inet import GRE, IP, UDP
    from scapy.layers.l2 import Ether
    from scapy.packet import Raw

    out = []
    for i in range(n):
        p = (Ether(dst=dst_mac, src=MAC["gre_src"]) / IP(src=GRE_OUTER[0], dst=GRE_OUTER[1]) / GRE(proto=0x0800) /
             IP(src=GRE_INNER[0], dst=GRE_INNER[1]) / UDP(sport=40000 + i, dport=GRE_PORT) /
             Raw(f"wirespeed gre {i}".encode()))
        out.append(bytes(p))
    return out


@dataclass
class GreTapLab:
    """gre_decap between netns "grenet" (scapy writes GRE frames into its input TAP) and netns
    "grehost" (its output TAP, 192.168.43.2/24, with a UDP socket)."""

    workdir: Path
    tag: str = field(default_factory=lambda: str(os.getpid() % 100000))
    width: int = 256

    def __post_init__(self) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.net, self.host = f"ws{self.tag}grenet", f"ws{self.tag}grehost"
        self.ns = Namespaces([self.net, self.host])
        self.sim: TapSim | None = None

    def __enter__(self) -> "GreTapLab":
        try:
            self.ns.create()
            self.sim = TapSim(self.workdir, "gre", ["--block", "gre", "--width", str(self.width),
                                                    "--in-netns", self.net, "--out-netns", self.host])
            self.sim.start()
            self.ns.ip(self.host, "link", "set", "wsgout", "address", MAC["wsgout"])
            self.ns.ip(self.host, "addr", "add", GRE_INNER[1] + "/24", "dev", "wsgout")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.sim is not None:
            self.sim.kill()
        self.ns.close()

    def send_raw(self, frames: Sequence[bytes]) -> None:
        """Frames written by scapy's side (AF_PACKET) into the input TAP."""
        path = self.workdir / "raw.hex"
        path.write_text("\n".join(f.hex() for f in frames) + "\n")
        self.ns.exec(self.net, sys.executable, "-m", "wirespeed.taplab", "send-hex", "wsgin", str(path))

    def send_and_receive(self, n: int = 20) -> tuple[int, list[str]]:
        """n GRE frames from scapy into the input TAP; returns (datagrams the socket in grehost
        received, their payloads)."""
        path = self.workdir / "gre.hex"
        path.write_text("\n".join(f.hex() for f in gre_frames(n, MAC["wsgout"])) + "\n")
        rx = self.ns.popen(self.host, sys.executable, "-m", "wirespeed.taplab", "udp-sink", GRE_INNER[1],
                           str(GRE_PORT), str(n), "10", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            time.sleep(0.5)
            self.ns.exec(self.net, sys.executable, "-m", "wirespeed.taplab", "send-hex", "wsgin", str(path))
            out, err = rx.communicate(timeout=30)
        finally:
            _stop(rx)
        got = [ln for ln in out.splitlines() if ln.strip()]
        return len(got), got


# ----------------------------------------------------------------------------------------------
# The demo
# ----------------------------------------------------------------------------------------------


def _signals_raise() -> None:
    """SIGTERM/SIGHUP end the demo like Ctrl-C, so that the teardown in `finally` runs."""
    def handler(sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {sig}")

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)


def print_counters(final: dict[str, Any]) -> None:
    for label, d in final.get("counters", {}).items():
        outs = ", ".join(f"{k} {v['packets']}" for k, v in d["outcomes"].items() if v["packets"])
        lat = d.get("latency_cycles", {})
        mean = f", latency {lat['mean']:.1f} cycles mean" if lat.get("mean") is not None else ""
        print(f"    {label}: in {d['frames_in']} = out {d['tx_packets']} + drops {d['drops']}   ({outs}{mean})")
    print(f"    balanced: {'yes' if final.get('balanced') else 'NO'}; {final.get('cycles')} cycles simulated "
          f"({final.get('busy_cycles')} with traffic; idle time is slept through, not clocked)")


def demo(seconds: float, gre: bool, width: int, mtu: int = UNDERLAY_MTU, pgo: bool = False) -> int:
    check_available()
    _signals_raise()
    if pgo:
        os.environ["WS_TAP_PGO"] = "1"  # wirespeed.tap.PGO_ENV: the profile-feedback build
    wd = paths.BUILD / "tap" / "demo"
    print(f"wirespeed demo: vtep_top ({width}-bit{', profile-feedback build' if pgo else ''}) live between two "
          f"network namespaces, underlay MTU {mtu} (docs/tap.md)")
    with VxlanTapLab(wd, width=width, mtu=mtu) as lab:
        print(f"  cloud  {lab.cloud}: vx0 {INNER_CLOUD} (kernel VXLAN VNI {VNI}) over wsnet {UNDER_CLOUD} "
              f"-> NIC network port")
        print(f"  onprem {lab.onprem}: wshost {INNER_ONPREM} (plain Ethernet) <- NIC host port")
        for from_cloud in (True, False):
            p = lab.ping(from_cloud, count=5)
            what = "cloud -> onprem" if from_cloud else "onprem -> cloud"
            rtt = f"rtt avg {p.rtt_avg_ms:.3f} ms (min {p.rtt_min_ms:.3f}, max {p.rtt_max_ms:.3f})" \
                if p.rtt_avg_ms is not None else "no rtt"
            print(f"  ping {what}: {p.received}/{p.sent} replies, {rtt}")
            if p.received == 0:
                raise RuntimeError(f"ping {what} got no reply")
        print(f"  iperf2 TCP cloud -> onprem for {seconds:g} s ...", flush=True)
        r = lab.iperf(seconds)
        print(f"  iperf2: {r.mbit_s:.2f} Mbit/s over {r.seconds:.1f} s; bytes sent {r.client_bytes}, "
              f"received {r.server_bytes}")
        assert lab.sim is not None
        final = lab.sim.stop()
        print("  NIC counters (registers, read at the end):")
        print_counters(final)
        for name, port in final.get("ports", {}).items():
            print(f"    port {name:8s} {port['frames']:>9} frames {port['bytes']:>12} bytes")
    if gre:
        print("wirespeed demo: gre_decap live: scapy writes GRE frames, a UDP socket receives the inner packets")
        with GreTapLab(wd / "gre", width=width) as g:
            n = 20
            got, payloads = g.send_and_receive(n)
            print(f"  {n} GRE frames written into {g.net}/wsgin; {got} UDP datagrams received in "
                  f"{g.host} on {GRE_INNER[1]}:{GRE_PORT} (first: {payloads[0] if payloads else '-'})")
            assert g.sim is not None
            final = g.sim.stop()
            print_counters(final)
            if got != n:
                raise RuntimeError(f"only {got} of {n} GRE payloads arrived")
    print("wirespeed demo: done; namespaces, TAPs and processes removed")
    return 0


# ----------------------------------------------------------------------------------------------
# Helpers run inside a namespace
# ----------------------------------------------------------------------------------------------


def _send_hex(ifname: str, path: str, gap: float = 0.01) -> int:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    for line in Path(path).read_text().split():
        s.send(bytes.fromhex(line))
        time.sleep(gap)
    s.close()
    return 0


def _udp_sink(host: str, port: int, count: int, timeout: float) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((host, port))
    s.settimeout(timeout)
    got = 0
    try:
        while got < count:
            d, _ = s.recvfrom(65536)
            print(d.decode(errors="replace"), flush=True)
            got += 1
    except socket.timeout:
        pass
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.taplab")
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("demo", help="the VXLAN (and GRE) demo: ping, iperf2, counters; tears down")
    d.add_argument("--seconds", type=float, default=10)
    d.add_argument("--width", type=int, default=256)
    d.add_argument("--no-gre", action="store_true")
    d.add_argument("--mtu", type=int, default=UNDERLAY_MTU,
                   help="the underlay's MTU (default 1500; 9000: jumbo frames, 8950 inside)")
    d.add_argument("--pgo", action="store_true",
                   help="the harness built with profile feedback (minutes once per source change; faster)")
    s = sub.add_parser("send-hex")
    s.add_argument("ifname")
    s.add_argument("path")
    u = sub.add_parser("udp-sink")
    u.add_argument("host")
    u.add_argument("port", type=int)
    u.add_argument("count", type=int)
    u.add_argument("timeout", type=float)
    a = ap.parse_args(argv)
    if a.cmd == "send-hex":
        return _send_hex(a.ifname, a.path)
    if a.cmd == "udp-sink":
        return _udp_sink(a.host, a.port, a.count, a.timeout)
    try:
        return demo(a.seconds, not a.no_gre, a.width, a.mtu, a.pgo)
    except LabUnavailable as e:
        print(f"wirespeed demo: cannot run here: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        print(f"wirespeed demo: interrupted ({e or 'Ctrl-C'}); torn down", file=sys.stderr)
        return 130
    except RuntimeError as e:
        print(f"wirespeed demo: failed: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())

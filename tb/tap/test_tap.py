"""The simulated NIC on a real network (docs/tap.md): Linux traffic through the verilated RTL via
TAP devices, live (wirespeed.taplab; needs root, network namespaces, TUN/TAP, kernel VXLAN and
iperf2, skipped with the reason otherwise).

Each test has a lab of its own: ping both ways; iperf2 both ways, counted on both ends; malformed
frames written by scapy into the NIC's network port while iperf2 runs, each counted under its
outcome; after each, the NIC is stopped and its counters must balance. Then: an impaired
underlay (netem where the kernel has it, else the harness's own loss and reordering), the
simulation killed mid-transfer, the demo killed by SIGTERM, GRE from scapy to a UDP socket, and
the harness's errors.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from wirespeed import paths, taplab
from wirespeed.taplab import VxlanTapLab

NBYTES = 3_000_000  # per iperf2 transfer: a second or two through the simulated VTEP


def _ns_exists(name: str) -> bool:
    return name in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for our purposes only once reaped; report it alive until then
    return True


def _lab(workdir: Path, letter: str) -> VxlanTapLab:
    """A lab of its own per test (under a second to set up), so that the tests hold whatever
    way pytest-xdist spreads them over its workers."""
    return VxlanTapLab(workdir / letter, tag=f"{letter}{os.getpid() % 10000}")


def _check_balanced(final: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The NIC stopped cleanly and its counters balance; returns (decap, encap) counters."""
    assert final["exit_code"] == 0, final
    assert final["balanced"] == 1
    for label in ("decap", "encap"):
        d = final["counters"][label]
        assert d["frames_in"] == d["tx_packets"] + d["drops"], (label, d)
        assert sum(o["packets"] for o in d["outcomes"].values()) == d["frames_in"]
        assert d["tap_write_drops"] == 0
    dec, enc = final["counters"]["decap"], final["counters"]["encap"]
    # the ports saw what the counters say
    ports = final["ports"]
    assert ports["net rx"]["frames"] == dec["frames_in"]
    assert ports["host tx"]["frames"] == dec["tx_packets"]
    assert ports["host rx"]["frames"] == enc["frames_in"]
    assert ports["net tx"]["frames"] == enc["tx_packets"]
    return dec, enc


def test_ping_both_ways(vtep_binary: Path, tap_workdir: Path) -> None:
    with _lab(tap_workdir, "p") as lab:
        for from_cloud in (True, False):
            p = lab.ping(from_cloud, count=3, interval=0.2)
            assert p.received == 3, f"ping {'cloud->onprem' if from_cloud else 'onprem->cloud'}: {p}"
            assert p.rtt_avg_ms is not None and p.rtt_avg_ms > 0
        assert lab.sim is not None
        dec, enc = _check_balanced(lab.sim.stop())
    # 3 echo requests and 3 replies each way, through the tunnel
    assert dec["outcomes"]["DECAP"]["packets"] >= 6 and enc["outcomes"]["ENCAP"]["packets"] >= 6


def test_idle_nic_sleeps_and_counts_every_frame(vtep_binary: Path, tap_workdir: Path) -> None:
    """The clock stops while nothing is in flight (the harness sleeps in poll()), and every frame
    is still read, counted and written: the harness's own loop counters against the NIC's."""
    with _lab(tap_workdir, "i") as lab:
        for from_cloud in (True, False):  # pings 0.3 s apart: idle between them
            assert lab.ping(from_cloud, count=3, interval=0.3).received == 3
        assert lab.sim is not None
        pid = lab.sim.pid
        final = lab.sim.stop()
    dec, enc = _check_balanced(final)
    loop = final["loop"]
    frames_in = dec["frames_in"] + enc["frames_in"]
    assert loop["tap_reads"] - loop["tap_empty_reads"] == frames_in
    assert loop["tap_writes"] == dec["tx_packets"] + enc["tx_packets"]
    assert dec["tap_reads"] + enc["tap_reads"] == loop["tap_reads"]
    assert dec["tap_writes"] + enc["tap_writes"] == loop["tap_writes"]
    # it slept, and clocked only a short tail of idle cycles per wake-up: a loop that evaluated
    # the model while idle would clock hundreds of thousands of cycles a second here
    assert loop["polls"] > 0
    assert loop["idle_cycles"] <= 16 * (loop["polls"] + frames_in)
    assert loop["busy_cycles"] <= final["cycles"]
    # nothing left behind
    assert pid is not None and not _alive(pid)
    assert not _ns_exists(lab.cloud) and not _ns_exists(lab.onprem)


def test_iperf_both_ways_counted_on_both_ends_and_counters_balance(iperf_available: bool, vtep_binary: Path,
                                                                   tap_workdir: Path) -> None:
    with _lab(tap_workdir, "t") as lab:
        r = lab.iperf(nbytes=NBYTES)
        assert r.client_bytes >= NBYTES
        assert r.server_bytes == r.client_bytes, r
        assert r.mbit_s > 0
        # the reverse direction: data through the encapsulator, ACKs through the decapsulator
        r = lab.iperf(nbytes=NBYTES // 2, reverse=True)
        assert r.server_bytes == r.client_bytes >= NBYTES // 2, r
        assert lab.sim is not None
        final = lab.sim.stop()
        live = [x for x in lab.sim.lines() if not x.get("final")]
    dec, enc = _check_balanced(final)
    # thousands of frames each way, all through the tunnel, none dropped
    assert dec["outcomes"]["DECAP"]["packets"] > 1000 and enc["outcomes"]["ENCAP"]["packets"] > 1000
    assert dec["drops"] == 0 and enc["drops"] == 0
    # the live view showed the traffic while it ran: rates in some line, totals never falling
    assert any(x["ports"]["net rx"]["frames_per_second"] > 0 and x["ports"]["net rx"]["bits_per_second"] > 0
               and x["outcomes"]["decap DECAP"]["frames_per_second"] > 0 for x in live)
    totals = [x["ports"]["host tx"]["frames"] for x in live]
    assert totals == sorted(totals) and totals[-1] <= dec["tx_packets"]


def test_malformed_frames_during_iperf_are_counted(iperf_available: bool, vtep_binary: Path,
                                                   tap_workdir: Path) -> None:
    frames = taplab.malformed_vxlan_frames()
    rounds = 3
    result: dict[str, Any] = {}
    with _lab(tap_workdir, "m") as lab:

        def transfer() -> None:
            try:
                result["r"] = lab.iperf(nbytes=NBYTES)
            except Exception as e:  # noqa: BLE001 - reported below
                result["e"] = e

        t = threading.Thread(target=transfer)
        t.start()
        time.sleep(0.8)  # the transfer is under way
        lab.inject([f.hex() for _ in range(rounds) for fs in frames.values() for f in fs])
        t.join(timeout=120)
        assert not t.is_alive(), "iperf2 did not finish"
        assert "e" not in result, result.get("e")
        r = result["r"]
        assert r.server_bytes == r.client_bytes >= NBYTES, r
        assert lab.sim is not None
        dec, _ = _check_balanced(lab.sim.stop())
    # every malformed frame was counted under its own outcome, and nothing else was dropped
    for outcome, fs in frames.items():
        assert dec["outcomes"][outcome]["packets"] == rounds * len(fs), (outcome, dec["outcomes"][outcome])
    assert dec["drops"] == rounds * sum(len(fs) for fs in frames.values())
    assert dec["outcomes"]["DECAP"]["packets"] > 1000


def _netem_available(ns: str) -> bool:
    r = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay",
                        "1ms"], capture_output=True, text=True)
    return r.returncode == 0


def test_impaired_underlay_transfer_completes(iperf_available: bool, vtep_binary: Path, tap_workdir: Path) -> None:
    """1 % loss and reordering on the underlay into the NIC: netem on the cloud's wsnet where
    the kernel has it; this machine's kernel has no netem (CONFIG_NET_SCH_NETEM unset), so then
    the harness's own impairment of its network-port input does the same."""
    tag = f"i{os.getpid() % 10000}"
    probe = f"ws{tag}probe"
    subprocess.run(["ip", "netns", "add", probe], check=True)
    try:
        netem = _netem_available(probe)
    finally:
        subprocess.run(["ip", "netns", "del", probe])
    extra = [] if netem else ["--loss", "0.01", "--reorder", "0.02"]
    with VxlanTapLab(tap_workdir / "impaired", tag=tag, sim_args=extra) as lb:
        if netem:
            lb.ns.exec(lb.cloud, "tc", "qdisc", "add", "dev", "wsnet", "root", "netem", "loss", "1%", "delay",
                       "1ms", "reorder", "25%", "50%")
        r = lb.iperf(nbytes=NBYTES)
        assert r.server_bytes == r.client_bytes >= NBYTES, r
        assert lb.sim is not None
        final = lb.sim.stop()
    assert final["balanced"] == 1
    dec = final["counters"]["decap"]
    if not netem:
        assert dec["impaired_lost"] > 0 and dec["impaired_reordered"] > 0, dec
    assert dec["frames_in"] == dec["tx_packets"] + dec["drops"]


def test_killing_the_sim_mid_transfer_leaves_nothing(iperf_available: bool, vtep_binary: Path, tap_workdir: Path) -> None:
    lb = VxlanTapLab(tap_workdir / "kill", tag=f"k{os.getpid() % 10000}")
    lb.__enter__()
    try:
        srv = lb.ns.popen(lb.onprem, "iperf", "-s", "-B", taplab.INNER_ONPREM, "-p", str(taplab.IPERF_PORT),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lb.procs.append(srv)
        time.sleep(0.5)
        cli = lb.ns.popen(lb.cloud, "iperf", "-c", taplab.INNER_ONPREM, "-p", str(taplab.IPERF_PORT), "-t", "30",
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lb.procs.append(cli)
        time.sleep(1.5)  # mid-transfer
        assert lb.sim is not None and lb.sim.pid is not None
        sim_pid = lb.sim.pid
        os.kill(sim_pid, signal.SIGKILL)
        lb.sim.proc.wait(timeout=10)  # type: ignore[union-attr]
        # the TAPs went with the process (non-persistent devices)
        for ns, tap in ((lb.cloud, "wsnet"), (lb.onprem, "wshost")):
            r = subprocess.run(["ip", "-n", ns, "link", "show", tap], capture_output=True, text=True)
            assert r.returncode != 0, f"{tap} still exists in {ns} after the sim was killed"
        pids = [sim_pid, srv.pid, cli.pid]
    finally:
        lb.close()
    for ns in (lb.cloud, lb.onprem):
        assert not _ns_exists(ns), f"namespace {ns} left behind"
    for pid in pids:
        assert not _alive(pid), f"process {pid} left behind"


def test_demo_torn_down_on_sigterm(iperf_available: bool, vtep_binary: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "wirespeed.taplab", "demo", "--seconds", "30", "--no-gre"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=paths.ROOT, env=env)
    tag = str(p.pid % 100000)
    out = []
    try:
        t0 = time.monotonic()
        assert p.stdout is not None
        for line in p.stdout:  # until iperf2 runs
            out.append(line)
            if "iperf2 TCP" in line or time.monotonic() - t0 > 120:
                break
        assert any("iperf2 TCP" in ln for ln in out), "".join(out)
        time.sleep(1.0)
        sim_pids = subprocess.run(["ip", "netns", "pids", f"ws{tag}onprem"], capture_output=True,
                                  text=True).stdout.split()
        p.send_signal(signal.SIGTERM)
        rest, _ = p.communicate(timeout=60)
        out.append(rest)
    finally:
        if p.poll() is None:
            p.kill()
    text = "".join(out)
    assert p.returncode == 130, text
    assert "torn down" in text
    for ns in (f"ws{tag}cloud", f"ws{tag}onprem"):
        assert not _ns_exists(ns), f"namespace {ns} left behind:\n{text}"
    for pid in sim_pids:
        assert not _alive(int(pid)), f"process {pid} (iperf in onprem) left behind"


def test_gre_frames_from_scapy_reach_a_socket(gre_binary: Path, tap_workdir: Path) -> None:
    from scapy.layers.inet import IP
    from scapy.layers.l2 import Ether

    bad = Ether(taplab.gre_frames(1, taplab.MAC["wsgout"])[0])
    bad[IP].chksum = 0x1234  # the outer header's: DROP_IP_CHECKSUM, never reaches the socket
    with taplab.GreTapLab(tap_workdir / "gre", tag=f"g{os.getpid() % 10000}") as g:
        g.send_raw([bytes(bad)] * 3)
        got, payloads = g.send_and_receive(12)
        assert g.sim is not None
        final = g.sim.stop()
    assert got == 12, payloads
    assert sorted(payloads) == sorted(f"wirespeed gre {i}" for i in range(12))
    d = final["counters"]["gre"]
    assert d["outcomes"]["DECAP_L3"]["packets"] == 12
    assert d["outcomes"]["DROP_IP_CHECKSUM"]["packets"] == 3 and d["drops"] == 3
    assert final["balanced"] == 1 and d["frames_in"] == d["tx_packets"] + d["drops"]


def test_harness_errors_name_the_problem(vtep_binary: Path) -> None:
    tag = f"e{os.getpid() % 10000}"
    ns = f"ws{tag}err"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "add", "taken0", "type", "veth", "peer", "name", "taken1"], check=True)
        r = subprocess.run([str(vtep_binary), "--net-tap", "taken0", "--net-netns", ns, "--host-tap", "free0",
                            "--host-netns", ns], capture_output=True, text=True, timeout=30)
        assert r.returncode == 6, r.stderr
        assert "'taken0' already exists" in r.stderr
        r = subprocess.run([str(vtep_binary), "--net-tap", "a0", "--net-netns", f"{ns}-missing", "--host-tap", "b0"],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 6 and "ip netns add" in r.stderr, r.stderr
        r = subprocess.run([str(vtep_binary), "--net-tap", "a0"], capture_output=True, text=True, timeout=30)
        assert r.returncode == 2 and "--host-tap" in r.stderr
    finally:
        subprocess.run(["ip", "netns", "del", ns])

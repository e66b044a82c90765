"""End to end through `wirespeed capture` (issue 29): capture_top's RTL in ws_capture, the
PCIe and host-driver model, one pcap per queue.

Every test checks: tshark reads every output file (frame counts, nanosecond timestamps,
non-decreasing); frames in = captured + counted drops, per queue; and, against the models,
that each captured frame equals its input frame byte for byte and went to the queue the RSS
model gives it (wirespeed.capture_check). The default run builds one harness (512 bits);
WIRESPEED_FULL=1 adds 64, 128 and 256 bits.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether
from scapy.packet import Raw

from capture_util import (capture, check_balance, check_model, config, hash_types_by_queue,
                          tshark_read_all, write)
from common.sweep import full_sweep
from wirespeed import pcap
from wirespeed.model import dma
from wirespeed.paths import CAPTURES

WIDTHS = [64, 128, 256, 512] if full_sweep() else [512]
MAC = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")


def traffic(n: int, seed: int) -> list[bytes]:
    """A mix: IPv4/IPv6 TCP/UDP flows, 0-2 VLAN tags, IPv4 options, fragments, ICMP-like and
    ARP, lengths 42..1514 and a few jumbos."""
    r = random.Random(seed)
    flows = [(f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(1, 255)}",
              f"192.168.{r.randrange(256)}.{r.randrange(1, 255)}",
              r.randrange(1, 65536), r.randrange(1, 65536)) for _ in range(64)]
    out = []
    for i in range(n):
        s, d, sp, dp = r.choice(flows)
        pay = Raw(bytes(r.randrange(256) for _ in range(r.choice((0, 6, 18, 100, 400, 1400,
                                                                  r.randrange(1500))))))
        k = r.randrange(10)
        if k == 0:
            p = Ether(**MAC) / IPv6(src=f"2001:db8::{sp:x}", dst=f"2001:db8:1::{dp:x}") / TCP(sport=sp, dport=dp) / pay
        elif k == 1:
            p = Ether(**MAC) / IPv6(src=f"2001:db8::{sp:x}", dst="2001:db8::1") / UDP(sport=sp, dport=dp) / pay
        elif k == 2:
            p = Ether(**MAC) / Dot1Q(vlan=r.randrange(4096)) / IP(src=s, dst=d) / UDP(sport=sp, dport=dp) / pay
        elif k == 3:
            p = Ether(**MAC) / Dot1AD(vlan=7) / Dot1Q(vlan=9) / IP(src=s, dst=d) / TCP(sport=sp, dport=dp) / pay
        elif k == 4:
            p = Ether(**MAC) / IP(src=s, dst=d, flags="MF", frag=r.choice((0, 185))) / UDP(sport=sp, dport=dp) / pay
        elif k == 5:
            p = Ether(**MAC) / IP(src=s, dst=d, options=b"\x01" * 4 * r.randrange(1, 11)) / TCP(sport=sp, dport=dp) / pay
        elif k == 6:
            p = Ether(**MAC) / IP(src=s, dst=d, proto=47) / pay
        elif k == 7:
            p = Ether(**MAC) / ARP(psrc=s, pdst=d)
        elif k == 8:
            p = Ether(**MAC) / IPv6(src=f"2001:db8::{sp:x}", dst="2001:db8::2") / IPv6ExtHdrFragment() / UDP(sport=sp) / pay
        else:
            p = Ether(**MAC) / IP(src=s, dst=d) / TCP(sport=sp, dport=dp) / pay
        out.append(bytes(p))
    for size in (9000, 9600):
        out.insert(r.randrange(len(out)), bytes(Ether(**MAC) / IP(src="10.1.1.1", dst="10.2.2.2")
                                                / UDP(sport=5, dport=6) / Raw(bytes(size - 42))))
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_shared_captures(tmp_path: Path, width: int) -> None:
    """Every shared capture (tunnels, VLANs, ARP) through `wirespeed capture --check`."""
    files = sorted(CAPTURES.glob("*.pcap"))
    assert files, f"no captures in {CAPTURES} (WIRESPEED_CAPTURES)"
    cfg = config("queues: 4")
    for f in files:
        out = tmp_path / f.stem
        rep = capture(f, out, "--width", str(width), "--queues", "4", "--check")
        check_balance(rep)
        assert rep["dropped"] == 0 and rep["packets_in"] == len(pcap.read_ethernet(f))
        tshark_read_all(out, rep)
        check_model(f, out, rep, cfg)


@pytest.mark.parametrize("width", WIDTHS)
def test_generated_traffic(tmp_path: Path, width: int) -> None:
    """2000 scapy frames over 8 queues, offered below the bus rate (the writer is sized for a
    MAC's input: 60 Gbit/s, at most 60 % of the bus): every frame captured in its RSS queue,
    byte for byte, in order; the hash types per queue as the model says."""
    frames = traffic(2000, seed=width)
    inp = write(tmp_path / "in.pcap", frames)
    rate = min(60.0, 0.6 * width * 322.265625 / 1000)
    text = f"queues: 8\nline_rate_gbps: {rate}\n"
    rep = capture(inp, tmp_path / "out", "--width", str(width), config=text)
    check_balance(rep)
    assert rep["dropped"] == 0
    tshark_read_all(tmp_path / "out", rep)
    cfg = config(text)
    check_model(inp, tmp_path / "out", rep, cfg)
    want = hash_types_by_queue(frames, cfg)
    for qs, q in rep["queue"].items():
        assert q["hash_types"] == want.get(int(qs), {}), qs
    # spread: 64 flows over 8 queues, no queue empty
    assert all(q["frames"] > 0 for q in rep["queue"].values())


def test_symmetric_key_table(tmp_path: Path) -> None:
    """A config with its own key, symmetric mode, a table and a default queue: both directions
    of each flow land in one queue, and everything as the model says."""
    r = random.Random(5)
    frames = []
    for _ in range(300):
        a, b = f"10.0.0.{r.randrange(1, 255)}", f"10.9.0.{r.randrange(1, 255)}"
        sp, dp = r.randrange(1, 65536), r.randrange(1, 65536)
        frames.append(bytes(Ether(**MAC) / IP(src=a, dst=b) / TCP(sport=sp, dport=dp)))
        frames.append(bytes(Ether(**MAC) / IP(src=b, dst=a) / TCP(sport=dp, dport=sp)))
    frames.append(b"\x00" * 20)   # unparsed: the default queue
    inp = write(tmp_path / "in.pcap", frames)
    text = ("queues: 5\nport: 3\nrss:\n  key: " + bytes(range(7, 47)).hex() +
            "\n  symmetric: true\n  default_queue: 4\n  types: [ipv4, tcp_ipv4]\n"
            "  table: [0, 1, 2, 3, 3, 2, 1]\n")
    rep = capture(inp, tmp_path / "out", config=text)
    check_balance(rep)
    tshark_read_all(tmp_path / "out", rep)
    cfg = config(text)
    check_model(inp, tmp_path / "out", rep, cfg)
    assert rep["queue"]["4"]["frames"] == 1
    for i in range(0, 600, 2):
        assert cfg.model().queue_of(frames[i]) == cfg.model().queue_of(frames[i + 1])


def test_full_ring_drops_never_overwrites(tmp_path: Path) -> None:
    """4 KiB rings and the host driver paused until the input ends: the rings fill and every
    later frame that does not fit is dropped and counted (Q_DROP_FULL), exactly the frames the
    DMA model drops; nothing is overwritten (the harness checks every DMA byte against what
    the host holds)."""
    frames = traffic(300, seed=9)
    inp = write(tmp_path / "in.pcap", frames)
    text = "queues: 2\nring_bytes: 4096\nhost: {paused: true}\n"
    rep = capture(inp, tmp_path / "out", config=text)
    check_balance(rep)
    tshark_read_all(tmp_path / "out", rep)
    cfg = config(text)
    check_model(inp, tmp_path / "out", rep, cfg)
    model = cfg.model()
    rings = {q: dma.Ring(size=4096) for q in range(2)}
    kept: dict[int, list[bytes]] = {0: [], 1: []}
    for f in frames:
        q = model.queue_of(f)
        if rings[q].offer(f, dma.Desc(queue=q)):
            kept[q].append(f)
    for q in range(2):
        s = rep["queue"][str(q)]
        assert s["drop_full"] == rings[q].drop_full > 0
        assert s["drop_buf"] == 0
        assert pcap.read_ethernet(tmp_path / "out" / s["file"]) == kept[q]


def test_slow_host_drops_and_counts(tmp_path: Path) -> None:
    """A host core that takes 200 ns per frame with 8 KiB rings, 64-byte frames at 100 Gbit/s
    (37 Mpps a queue against the core's 5): the rings run full while the host consumes; the
    frames that do not fit are dropped and counted, the others captured in order; the wire is
    never stalled."""
    r = random.Random(11)
    frames = [bytes(Ether(**MAC) / IP(src=f"10.0.{r.randrange(256)}.1", dst="10.1.1.1")
                    / UDP(sport=r.randrange(65536), dport=80) / Raw(bytes(18)))
              for _ in range(3000)]
    inp = write(tmp_path / "in.pcap", frames)
    text = "queues: 4\nring_bytes: 8192\nhost: {ns_per_frame: 200, poll_ns: 500}\n"
    rep = capture(inp, tmp_path / "out", config=text)
    check_balance(rep)
    tshark_read_all(tmp_path / "out", rep)
    check_model(inp, tmp_path / "out", rep, config(text))
    assert sum(q["drop_full"] for q in rep["queue"].values()) > 1000
    # more than a ring's worth (8192 / 80-byte records) each: the host consumed while it ran
    assert all(q["frames"] > 8192 // 80 and q["cons_writes"] > 1 for q in rep["queue"].values())


def hostile_frames() -> list[bytes]:
    r = random.Random(3)
    base = bytes(Ether(**MAC) / IP(src="1.2.3.4", dst="5.6.7.8") / TCP(sport=1000, dport=80)
                 / Raw(b"x" * 40))
    out = [base[:n] for n in range(1, 60)]                       # runts, cut headers
    for n in (9601, 12000, 16000, 16385, 30000, 65535):           # giants
        out.append(bytes(Ether(**MAC) / IP(src="1.2.3.4", dst="5.6.7.8") / UDP()
                         / Raw(bytes(n - 42))))
    for off, val in ((14, b"\x44"), (14, b"\x55"), (16, (2000).to_bytes(2, "big")),
                     (16, (10).to_bytes(2, "big")), (12, b"\x81\x00")):
        b = bytearray(base)
        b[off:off + len(val)] = val
        out.append(bytes(b))                                      # broken IPv4 headers
    v6 = bytearray(bytes(Ether(**MAC) / IPv6() / UDP() / Raw(b"abc")))
    v6[18:20] = (500).to_bytes(2, "big")
    out.append(bytes(v6))                                         # IPv6 length past the end
    out.append(bytes(Ether(**MAC) / IP(src="1.2.3.4", dst="5.6.7.8", proto=6, len=30)
                     / Raw(b"y" * 10)))                           # TCP shorter than its header
    out.append(bytes(12) + b"\x81\x00\x00\x05\x88\xa8\x00\x06\x81\x00" + b"z" * 60)  # 3 tags
    out += [bytes(r.randrange(256) for _ in range(r.randrange(1, 300))) for _ in range(300)]
    r.shuffle(out)
    return out


def test_hostile_input(tmp_path: Path) -> None:
    """Runts, giants, broken headers and random bytes, back to back (line rate 0): each goes to
    the default queue (type NONE) or, larger than the writer's 16 KiB buffer, is dropped and
    counted (Q_DROP_BUF); the run ends (no stall), everything balances."""
    frames = hostile_frames()
    inp = write(tmp_path / "in.pcap", frames)
    text = "queues: 4\nline_rate_gbps: 0\nrss: {default_queue: 2}\n"
    rep = capture(inp, tmp_path / "out", config=text)
    check_balance(rep)
    tshark_read_all(tmp_path / "out", rep)
    check_model(inp, tmp_path / "out", rep, config(text))
    c = rep["counters"]
    assert c["runts"] == sum(1 for f in frames if len(f) < 60)
    assert c["giants"] == sum(1 for f in frames if len(f) > 9600)
    big = sum(1 for f in frames if len(f) > 16384)
    q2 = rep["queue"]["2"]
    # Back to back at the bus rate the records (header, padding) outrun the input, so the
    # buffer also drops some frames that would fit; the frames above 16 KiB never fit
    assert q2["drop_buf"] >= big and q2["drop_full"] == 0
    got = pcap.read_ethernet(tmp_path / "out" / q2["file"])
    assert max(len(f) for f in got) <= 16384 and len(got) == q2["frames"]
    assert c["rss_default"] == len(frames) == q2["frames_in"]
    assert q2["hash_types"] == {"NONE": q2["frames"]}


def test_min_frames_at_line_rate(tmp_path: Path) -> None:
    """64- and 65-byte frames (60 and 61 on the bus) at 100 Gbit/s over 16 queues: 80-byte
    records packed at 8 bytes and gathered per queue into 256-byte TLPs fit a Gen3 x16 link
    (docs/host.md, "Gathering": ~89 bytes a frame on the link against 106 available): every
    frame captured, the link below 90 % busy, fewer than 0.45 TLPs a frame; 1514-byte frames
    fit too."""
    r = random.Random(2)

    def udp(n: int, k: int) -> list[bytes]:
        return [bytes(Ether(**MAC) / IP(src=f"10.{r.randrange(256)}.{r.randrange(256)}.1",
                                        dst="10.9.9.9") / UDP(sport=r.randrange(65536), dport=9)
                      / Raw(bytes(n - 42))) for _ in range(k)]

    for name, frames in (("small", udp(60, 6000)), ("odd", udp(61, 3000)),
                         ("big", udp(1514, 1000))):
        inp = write(tmp_path / f"{name}.pcap", frames)
        rep = capture(inp, tmp_path / name)
        check_balance(rep)
        check_model(inp, tmp_path / name, rep, config(None))
        p = rep["pcie"]
        assert rep["dropped"] == 0, (name, rep["dropped"])
        assert rep["offered_gbps"] > 0.97 * 100 * (len(frames[0]) / (len(frames[0]) + 24))
        if name != "big":
            assert p["tlps"] / rep["captured"] < 0.45 and p["utilisation"] < 0.9, p
        else:
            assert 0.8 < p["utilisation"] < 0.95


def test_single_flow_line_rate(tmp_path: Path) -> None:
    """One flow, so one queue, of 64-byte frames at 100 Gbit/s with host cores at 2 ns a
    record: the writer gathers a single queue's records at line rate, nothing dropped (the
    default 20 ns a record is one core's 50 Mpps: its ring would fill, the host's limit)."""
    f = bytes(Ether(**MAC) / IP(src="10.1.2.3", dst="10.9.9.9") / UDP(sport=7, dport=9)
              / Raw(bytes(18)))
    inp = write(tmp_path / "one.pcap", [f] * 6000)
    rep = capture(inp, tmp_path / "out", config="host: {ns_per_frame: 2}\n")
    check_balance(rep)
    busy = [q for q in rep["queue"].values() if q["frames_in"]]
    assert len(busy) == 1 and busy[0]["frames"] == 6000 and rep["dropped"] == 0
    assert rep["pcie"]["tlps"] / rep["captured"] < 0.4


def test_two_ports(tmp_path: Path) -> None:
    """Two inputs: two ports, each its own capture_top and Gen3 x16 link, the 16 queues split
    8 + 8 (port 1's files queue-08..15); minimum frames at 100G on both: nothing lost, every
    frame in its port's RSS queue (--check per port), the report's totals = the ports' sums."""
    r = random.Random(4)

    def udp(k: int) -> list[bytes]:
        return [bytes(Ether(**MAC) / IP(src=f"10.{r.randrange(256)}.{r.randrange(256)}.1",
                                        dst="10.9.9.9") / UDP(sport=r.randrange(65536), dport=9)
                      / Raw(bytes(18))) for _ in range(k)]

    a, b = udp(3000), traffic(600, seed=12)
    ina, inb = write(tmp_path / "a.pcap", a), write(tmp_path / "b.pcap", b)
    out = tmp_path / "out"
    rep = capture([ina, inb], out, "--check")
    assert rep["port_count"] == 2 and rep["queues"] == 16
    check_balance(rep)
    tshark_read_all(out, rep)
    assert sorted(int(q) for q in rep["queue"]) == list(range(16))
    assert {q["port"] for qs, q in rep["queue"].items() if int(qs) < 8} == {0}
    assert {q["port"] for qs, q in rep["queue"].items() if int(qs) >= 8} == {1}
    assert rep["queue"]["8"]["file"] == "queue-08.pcap"
    p0, p1 = rep["ports"]
    assert p0["packets_in"] == len(a) and p1["packets_in"] == len(b)
    assert p0["queues"] == p1["queues"] == 8 and p1["queue_base"] == 8
    assert rep["packets_in"] == len(a) + len(b) and rep["dropped"] == 0
    # port 1's queues hold exactly its frames (by the port's own RSS model: 8 queues)
    model = config("queues: 8\n").model()
    for q in range(8):
        want = [f for f in b if model.queue_of(f) == q]
        assert pcap.read_ethernet(out / f"queue-{q + 8:02d}.pcap") == want
    rep = capture([ina, inb, ina], tmp_path / "o3", expect_rc=2)
    assert "one or two" in rep["stderr"]
    rep = capture([ina, inb], tmp_path / "o4", "--queues", "5", expect_rc=2)
    assert "even" in rep["stderr"]


def test_capture_seed_scenario(tmp_path: Path) -> None:
    """`wirespeed run --scenario capture-seed` (small): both ports at 100G per length and IMIX,
    the table printed, the JSON report: nothing lost, every port balanced."""
    import json
    import subprocess
    import sys

    from wirespeed.paths import ROOT

    rep_path = tmp_path / "seed.json"
    proc = subprocess.run([sys.executable, "-m", "wirespeed.cli", "run", "--scenario",
                           "capture-seed", "--frames", "600", "--quiet", "--report",
                           str(rep_path)], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "capture-seed" in proc.stdout and "no loss at any length" in proc.stdout
    res = json.loads(rep_path.read_text())
    assert [row["length"] for row in res["rows"]] == [64, 65, 128, 256, 512, 1024, 1518, "imix"]
    for row in res["rows"]:
        assert row["total"]["loss"] == 0 and row["total"]["balanced"] == 1
        assert len(row["ports"]) == 2
        for p in row["ports"]:
            assert p["frames"] == 600 and 99.0 < p["offered_gbps"] < 101.0
            assert p["pcie_utilisation"] < 0.95
    # the host's side, measured on this machine: a cost and the cores it implies per length
    cpu = res["host_cpu"]
    assert [r["length"] for r in cpu["rows"]] == [64, 65, 128, 256, 512, 1024, 1518, "imix"]
    assert "host CPU, measured here" in proc.stdout


def test_capture_cpu_cost() -> None:
    """wirespeed.capture_cpu: ws_capture_cpu consumes rings of packed records at each length;
    every frame in the ring is consumed in each pass, the costs are positive and the cores are
    the line rate's frames per ns times the cost."""
    from wirespeed import capture_cpu

    res = capture_cpu.measure([64, 1518], ring_bytes=1 << 20, repeat=1, min_ms=5.0)
    rows = {r["length"]: r for r in res["rows"]}
    assert list(rows) == [64, 1518, "imix"]
    assert abs(rows[64]["mpps_line_rate"] - 2 * 148.809) < 0.01
    assert abs(rows[1518]["mpps_line_rate"] - 2 * 8.127) < 0.01
    for r in rows.values():
        for mode in ("parse", "copy"):
            assert r[f"{mode}_ns_per_frame"] > 0
            assert abs(r[f"{mode}_cores"] - r["mpps_line_rate"] * r[f"{mode}_ns_per_frame"] / 1e3) < 1e-9
    assert rows["imix"]["mean_wire_bytes"] == (64 * 7 + 594 * 4 + 1518) / 12
    assert "cores for 2 x 100 Gbit/s" in capture_cpu.table(res)


def test_errors(tmp_path: Path) -> None:
    """Errors a user can act on: exit 2 and one line naming the problem."""
    good = write(tmp_path / "in.pcap", [bytes(Ether() / IP() / UDP())])
    rep = capture(tmp_path / "missing.pcap", tmp_path / "o1", expect_rc=2)
    assert "no such file" in rep["stderr"]
    rep = capture(good, tmp_path / "o2", "--queues", "17", expect_rc=2)
    assert "queues 17" in rep["stderr"]
    rep = capture(good, tmp_path / "o3", config="rss: {symetric: true}\n", expect_rc=2)
    assert "symetric" in rep["stderr"]
    rep = capture(good, tmp_path / "o4", "--ring-bytes", "5000", expect_rc=2)
    assert "ring_bytes 5000" in rep["stderr"]

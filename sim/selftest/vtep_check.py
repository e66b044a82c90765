#!/usr/bin/env python3
"""Self-test inputs and checks for ws_vtep (sim/selftest/vtep_run.sh). Needs scapy (.venv).

usage:
  vtep_check.py make DIR
      DIR/net.pcap     VXLAN frames built with scapy.layers.vxlan (plus a few non-VXLAN and
                       broken ones) for the network port
      DIR/host.pcap    host frames for the host port
      DIR/tunnel.txt   --regs: one tunnel in the tunnel table (wirespeed.table.HashTable)
      DIR/vnitable.txt --regs: VNI table enabled, one VNI with a VLAN push
  vtep_check.py seed DIR [--count N] [--size 804]
      the seed's traffic (wirespeed.model.vxlan_frames.seed_vxlan_frames): DIR/seed-net.pcap,
      DIR/seed-host.pcap (N frames each) and DIR/seed-regs.txt (VNI table on with 4K VNIs,
      4K tunnels), so that every frame is decapsulated / encapsulated; for speed runs
  vtep_check.py check DIR RUN [--decap empty|vnitable] [--encap empty|tunnel] [--width W]
                             [--no-net] [--no-host] [--pacing GBPS MHZ]
      checks RUN.json, RUN-host_out.pcap, RUN-net_out.pcap, RUN-vni.csv, RUN-dlat.csv,
      RUN-elat.csv (those that exist) against what the inputs must give.

Expected outputs come from the frames' construction (scapy: the inner frame of a VXLAN packet,
the encapsulation rebuilt field by field); when wirespeed.model.vxlan is importable, every
output is also compared with the golden model's.
Exits 1 with a list of what differs.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from scapy.layers.inet import IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, Dot1Q, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Raw  # noqa: E402

from wirespeed.table import (HashTable, crc32c, pack_tunnel, pack_vni, tunnel_key)  # noqa: E402

try:
    from wirespeed.model import vxlan as model  # the golden model, when a colleague has it there
except ImportError:  # pragma: no cover
    model = None

DECAP_NAMES = ["PASS", "DECAP", "DROP_TRUNCATED", "DROP_IP_HEADER", "DROP_IP_CHECKSUM",
               "DROP_FRAGMENT", "DROP_VXLAN_FLAGS", "DROP_VXLAN_RESERVED", "DROP_UNKNOWN_VNI",
               "DROP_ECN", "DROP_UDP_CHECKSUM", "DROP_RX_ERROR", "DROP_POLICY"]
ENCAP_NAMES = ["ENCAP", "PASS_MISS", "PASS_NOT_IPV4", "DROP_MISS", "DROP_RX_ERROR", "DROP_OVERSIZE"]
DIR_KEYS = ["packets_in", "bytes_in", "packets_out", "bytes_out", "aborted", "cycles",
            "first_in_cycle", "last_in_cycle", "first_out_cycle", "last_out_cycle",
            "in_stall_cycles", "out_stall_cycles", "ready_low_cycles", "latency_cycles",
            "outcomes", "stat_outcomes", "tx_packets", "tx_bytes"]
TOP_KEYS = ["data_width", "clock_mhz", "line_rate_gbps", "cycles", "wall_seconds",
            "sim_packets_per_second", "idle_skipped_cycles", "decap", "encap"]

# The one tunnel of tunnel.txt: host frames tagged VLAN 100 to 10.9.8.7 are encapsulated.
TUN_VID, TUN_DST = 100, "10.9.8.7"
TUN = dict(vni=0x123456, dst_mac="02:00:00:00:aa:01", src_mac="02:00:00:00:bb:02",
           src_ip="192.0.2.1", dst_ip="198.51.100.7", udp_port=4789, ttl=31, dscp=10)
# The one VNI of vnitable.txt: decapsulated with an 802.1Q tag (VLAN 42) pushed; others dropped.
VNI_HIT, VNI_VLAN = 0x00ABCD, 42

SIZES = [64, 70, 100, 128, 200, 333, 512, 804, 1000, 1514, 2000, 9000]


# ------------------------------------------------------------------------------------------------
# pcap (standard library)

def write_pcap(path: str, frames: list[bytes]) -> None:
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, f in enumerate(frames):
            fh.write(struct.pack("<IIII", i, 0, len(f), len(f)))
            fh.write(f)


def read_pcap(path: str) -> list[bytes]:
    data = open(path, "rb").read()
    e = "<" if struct.unpack("<I", data[:4])[0] in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    out, off = [], 24
    while off < len(data):
        incl = struct.unpack(e + "I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


# ------------------------------------------------------------------------------------------------
# Frames

def _pad(pkt, size: int) -> bytes:
    """pkt with a Raw payload making it `size` bytes (at least its headers)."""
    n = len(bytes(pkt))
    return bytes(pkt / Raw(bytes((i * 7 + 3) & 0xFF for i in range(max(0, size - n)))))


def inner_frame(rng: random.Random, kind: str, size: int, tos: int = 0) -> bytes:
    l2 = Ether(dst="02:11:22:33:44:%02x" % rng.randrange(256), src="02:aa:bb:cc:dd:%02x" % rng.randrange(256))
    if kind == "ipv4udp":
        p = l2 / IP(src="172.16.0.%d" % rng.randrange(1, 255), dst="172.17.0.9", tos=tos, id=rng.randrange(65536)) / UDP(sport=rng.randrange(1024, 65535), dport=53)
    elif kind == "ipv4tcp":
        p = l2 / IP(src="172.16.1.%d" % rng.randrange(1, 255), dst="172.17.1.9", tos=tos) / TCP(sport=rng.randrange(1024, 65535), dport=443, flags="A")
    elif kind == "ipv6udp":
        p = l2 / IPv6(src="2001:db8::1", dst="2001:db8::%x" % rng.randrange(1, 65535)) / UDP(sport=1000, dport=2000)
    elif kind == "arp":
        return bytes(l2 / ARP(psrc="172.16.0.1", pdst="172.16.0.2"))[:max(42, min(size, 60))]
    elif kind == "vlan":
        p = l2 / Dot1Q(vlan=rng.randrange(1, 4095)) / IP(src="172.16.2.1", dst="172.17.2.2") / UDP(sport=7, dport=9)
    else:
        raise ValueError(kind)
    return _pad(p, size)


def vxlan_frame(inner: bytes, vni: int, *, v6: bool = False, outer_tag: bool = False,
                zero_csum: bool = False, flags: int | None = 0x08, outer_tos: int = 0,
                sport: int = 49152, bad_udp_csum: bool = False, bad_ip_csum: bool = False) -> bytes:
    """Ether[/Dot1Q]/IP or IPv6/UDP(4789)/VXLAN(vni)/inner, built by scapy."""
    l2 = Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")
    if outer_tag:
        l2 = l2 / Dot1Q(vlan=7)
    if v6:
        l3 = IPv6(src="2001:db8:1::1", dst="2001:db8:2::2", tc=outer_tos)
    else:
        l3 = IP(src="10.0.0.1", dst="10.0.0.2", tos=outer_tos, id=vni & 0xFFFF)
    vx = VXLAN(vni=vni) if flags is None else VXLAN(flags=flags, vni=vni)
    pkt = l2 / l3 / UDP(sport=sport, dport=4789, chksum=0 if zero_csum else None) / vx / Raw(inner)
    raw = bytearray(bytes(pkt))
    if bad_udp_csum or bad_ip_csum:
        L2 = 18 if outer_tag else 14
        if bad_ip_csum:
            raw[L2 + 10] ^= 0x5A
        else:
            U = L2 + (40 if v6 else 20)
            c = (raw[U + 6] << 8 | raw[U + 7]) ^ 0x0F0F
            raw[U + 6], raw[U + 7] = c >> 8, c & 0xFF
    return bytes(raw)


def with_ce(inner: bytes) -> bytes:
    """The inner IPv4 frame with ECN set to CE and its header checksum recomputed (RFC 6040)."""
    p = Ether(inner)
    p[IP].tos |= 3
    del p[IP].chksum
    return bytes(p)


def push_tag(inner: bytes, vid: int) -> bytes:
    return inner[:12] + bytes((0x81, 0x00, vid >> 8, vid & 0xFF)) + inner[12:]


def make_net(rng: random.Random) -> list[dict]:
    """Network-port frames with what each must give (tables empty: VNI table disabled)."""
    out = []

    def add(frame, outcome, inner=None, vni=None):
        out.append({"frame": frame, "outcome": outcome, "inner": inner, "vni": vni})

    kinds = ["ipv4udp", "ipv4tcp", "ipv6udp", "arp", "vlan"]
    for i in range(72):
        kind = kinds[i % len(kinds)]
        size = SIZES[i % len(SIZES)] - 50 if i % 9 else rng.randint(60, 1500)
        inner = inner_frame(rng, kind, max(size, 60))
        vni = [0, 0xFFFFFF, VNI_HIT][i] if i < 3 else (VNI_HIT if i % 11 == 0 else rng.randrange(1 << 24))
        v6 = i % 7 == 3
        f = vxlan_frame(inner, vni, v6=v6, outer_tag=i % 3 == 1, zero_csum=(i % 4 == 2 and not v6),
                        flags=None if i % 13 == 5 else 0x08, sport=0xC000 | rng.randrange(0x4000))
        add(f, "DECAP", inner, vni)
    # not VXLAN: forwarded unchanged
    for i in range(8):
        p = [Ether() / IP(dst="10.1.1.1") / TCP(dport=80),
             Ether() / IP(dst="10.1.1.1") / UDP(dport=4790),
             Ether() / ARP(),
             Ether() / IPv6() / UDP(dport=53)][i % 4]
        f = _pad(p, [60, 200, 60, 1400][i % 4])
        add(f, "PASS", None, None)
    # broken VXLAN
    for i in range(4):
        inner = inner_frame(rng, "ipv4udp", 150)
        add(vxlan_frame(inner, 1000 + i, flags=0x00), "DROP_VXLAN_FLAGS")
        add(vxlan_frame(inner, 2000 + i, bad_udp_csum=True, v6=i % 2 == 1), "DROP_UDP_CHECKSUM", None, 2000 + i)
        add(vxlan_frame(inner, 3000 + i, bad_ip_csum=True), "DROP_IP_CHECKSUM")
    # ECN: outer CE onto inner Not-ECT (drop) and ECT(0) (becomes CE)
    for i in range(3):
        inner = inner_frame(rng, "ipv4udp", 300, tos=0)
        add(vxlan_frame(inner, 4000 + i, outer_tos=3), "DROP_ECN")
        inner = inner_frame(rng, "ipv4tcp", 300, tos=2)
        add(vxlan_frame(inner, 5000 + i, outer_tos=3), "DECAP", with_ce(inner), 5000 + i)
    rng.shuffle(out)
    return out


def make_host(rng: random.Random) -> list[dict]:
    """Host-port frames; `hit`: matches the tunnel of tunnel.txt; `ipv4`: looked up at all."""
    out = []

    def add(pkt_or_bytes, size, hit, ipv4):
        f = pkt_or_bytes if isinstance(pkt_or_bytes, bytes) else _pad(pkt_or_bytes, size)
        out.append({"frame": f, "hit": hit, "ipv4": ipv4})

    l2 = lambda: Ether(dst="02:00:00:00:cc:01", src="02:00:00:00:cc:02")  # noqa: E731
    for i in range(24):  # hits
        size = SIZES[i % len(SIZES)]
        l4 = UDP(sport=1000 + i, dport=2000) if i % 2 else TCP(sport=3000 + i, dport=80)
        ip = IP(src="172.20.0.%d" % (i + 1), dst=TUN_DST, tos=(i % 4) | (i << 2 & 0xFC), id=i,
                flags="MF" if i % 8 == 7 else 0)
        add(l2() / Dot1Q(vlan=TUN_VID, prio=i % 8) / ip / l4, size, True, True)
    for i in range(24):  # misses and non-IPv4
        size = SIZES[(i * 5) % len(SIZES)]
        p = [l2() / Dot1Q(vlan=TUN_VID) / IP(dst="10.9.8.8") / UDP(),          # other dst
             l2() / IP(dst=TUN_DST) / UDP(),                                   # untagged
             l2() / Dot1Q(vlan=TUN_VID + 1) / IP(dst=TUN_DST) / TCP(),         # other VLAN
             l2() / IPv6(dst="2001:db8::5") / UDP(),                           # not IPv4
             l2() / ARP(pdst=TUN_DST),                                         # not IPv4
             l2() / Dot1Q(vlan=TUN_VID) / IPv6() / TCP()][i % 6]              # not IPv4
        add(p, size, False, i % 6 < 3)
    rng.shuffle(out)
    return out


def tunnel_writes() -> list[tuple[int, int]]:
    t = HashTable(45, 214, 32768)
    return [(0x3000 + off, v) for off, v in t.insert(tunnel_key(TUN_DST, TUN_VID), pack_tunnel(**TUN))]


def vnitable_writes() -> list[tuple[int, int]]:
    t = HashTable(24, 13, 8192)
    return [(0x0008, 1)] + [(0x2000 + off, v) for off, v in t.insert(VNI_HIT, pack_vni(VNI_VLAN, True))]


def write_regs(path: str, ops: list[tuple[int, int]], what: str) -> None:
    with open(path, "w") as fh:
        fh.write(f"# {what}\n")
        for a, v in ops:
            fh.write(f"0x{a:04x} 0x{v:08x}\n")


def cmd_make(d: str) -> None:
    os.makedirs(d, exist_ok=True)
    rng = random.Random(4789)
    net, host = make_net(rng), make_host(rng)
    write_pcap(os.path.join(d, "net.pcap"), [x["frame"] for x in net])
    write_pcap(os.path.join(d, "host.pcap"), [x["frame"] for x in host])
    write_regs(os.path.join(d, "tunnel.txt"), tunnel_writes(),
               f"tunnel (vid {TUN_VID}, {TUN_DST}) -> {TUN}")
    write_regs(os.path.join(d, "vnitable.txt"), vnitable_writes(),
               f"CONTROL.VNI_TABLE_EN; VNI 0x{VNI_HIT:06x} -> push VLAN {VNI_VLAN}")
    print(f"{len(net)} network frames, {len(host)} host frames")


# ------------------------------------------------------------------------------------------------
# Expectations

def expect_decap(frames: list[bytes], cfg: str) -> list[dict]:
    """Per input frame: outcome, output bytes (None: not written), aborted, vni (DECAP only)."""
    rng = random.Random(4789)
    meta = make_net(rng)  # the same construction, same order
    assert [m["frame"] for m in meta] == frames, "net.pcap is not what `make` writes"
    res = []
    for m in meta:
        o, inner, vni = m["outcome"], m["inner"], m["vni"]
        if cfg == "vnitable" and o not in ("PASS", "DROP_IP_CHECKSUM", "DROP_VXLAN_FLAGS"):
            if vni != VNI_HIT:
                o, inner = "DROP_UNKNOWN_VNI", None
            elif inner is not None:
                inner = push_tag(inner, VNI_VLAN)
        if o == "DECAP":
            res.append({"outcome": o, "out": inner, "aborted": False, "vni": vni})
        elif o == "PASS":
            res.append({"outcome": o, "out": m["frame"], "aborted": False, "vni": None})
        else:
            res.append({"outcome": o, "out": None, "aborted": o == "DROP_UDP_CHECKSUM", "vni": None})
    return res


def scapy_encap(frame: bytes) -> bytes:
    """The tunnel's encapsulation of a hit frame, rebuilt with scapy (docs/vxlan.md, encap 3-4)."""
    inner = frame[:12] + frame[16:]  # the 802.1Q tag selected the tunnel: removed
    ip = Ether(frame)[IP]
    ports = b"\0\0\0\0"
    if ip.proto in (6, 17) and ip.frag == 0 and not (ip.flags & 1):
        ports = bytes(ip.payload)[:4]
    tup = bytes(ip)[12:20] + bytes((ip.proto,)) + ports
    sport = 0xC000 | (crc32c(tup) & 0x3FFF)
    outer = (Ether(dst=TUN["dst_mac"], src=TUN["src_mac"]) /
             IP(tos=(TUN["dscp"] << 2) | (ip.tos & 3), id=0, flags=0, frag=0, ttl=TUN["ttl"],
                proto=17, src=TUN["src_ip"], dst=TUN["dst_ip"]) /
             UDP(sport=sport, dport=TUN["udp_port"], chksum=0) /
             VXLAN(flags=0x08, vni=TUN["vni"]) / Raw(inner))
    return bytes(outer)


def expect_encap(frames: list[bytes], cfg: str) -> list[dict]:
    rng = random.Random(4789)
    make_net(rng)
    meta = make_host(rng)
    assert [m["frame"] for m in meta] == frames, "host.pcap is not what `make` writes"
    res = []
    for m in meta:
        if cfg == "tunnel" and m["hit"]:
            res.append({"outcome": "ENCAP", "out": scapy_encap(m["frame"])})
        else:
            res.append({"outcome": "PASS_MISS" if m["ipv4"] else "PASS_NOT_IPV4", "out": m["frame"]})
    return res


def model_decap(frames, cfg, width):
    c = model.DecapConfig(vni_table={VNI_HIT: (VNI_VLAN, True)} if cfg == "vnitable" else None)
    return [model.decap(f, c, keep_w=width // 8) for f in frames]


def model_encap(frames, cfg):
    tunnels = {}
    if cfg == "tunnel":
        tunnels[(TUN_VID, TUN_DST)] = model.Tunnel(
            vni=TUN["vni"], dst_mac=TUN["dst_mac"], src_mac=TUN["src_mac"], src_ip=TUN["src_ip"],
            dst_ip=TUN["dst_ip"], udp_port=TUN["udp_port"], ttl=TUN["ttl"], dscp=TUN["dscp"])
    c = model.EncapConfig(tunnels=tunnels)
    return [model.encap(f, c) for f in frames]


# ------------------------------------------------------------------------------------------------
# Checks

def check_dir(errs, name, rep, names, frames_in, exp, got_out, lat_csv, vni_rows=None):
    def want(cond, msg):
        if not cond:
            errs.append(f"{name}: {msg}")

    want(list(rep.keys()) == DIR_KEYS, f"keys {list(rep.keys())}")
    written = [e["out"] for e in exp if e["out"] is not None]
    aborted = sum(1 for e in exp if e.get("aborted"))
    want(rep["packets_in"] == len(frames_in), f"packets_in {rep['packets_in']} != {len(frames_in)}")
    want(rep["bytes_in"] == sum(map(len, frames_in)), f"bytes_in {rep['bytes_in']}")
    want(len(got_out) == len(written), f"output has {len(got_out)} frames, expected {len(written)}")
    for i, (g, w) in enumerate(zip(got_out, written)):
        if g != w:
            want(False, f"output frame {i} differs (len {len(g)} vs {len(w)}): got {g[:64].hex()}... "
                        f"expected {w[:64].hex()}...")
            break
    want(rep["packets_out"] == len(written) and rep["bytes_out"] == sum(map(len, written)),
         f"packets_out/bytes_out {rep['packets_out']}/{rep['bytes_out']}")
    want(rep["aborted"] == aborted, f"aborted {rep['aborted']} != {aborted}")
    want(rep["tx_packets"] == len(written) and rep["tx_bytes"] == sum(map(len, written)),
         f"tx {rep['tx_packets']}/{rep['tx_bytes']}")
    cnt = {n: [0, 0] for n in names}
    for f, e in zip(frames_in, exp):
        cnt[e["outcome"]][0] += 1
        cnt[e["outcome"]][1] += len(f)
    for key in ("outcomes", "stat_outcomes"):
        want(list(rep[key].keys()) == names, f"{key} names {list(rep[key].keys())}")
        for n in names:
            got = [rep[key].get(n, {}).get("packets"), rep[key].get(n, {}).get("bytes")]
            want(got == cnt[n], f"{key}.{n} = {got}, expected {cnt[n]}")
    lat = rep["latency_cycles"]
    want(lat["count"] == len(written) + aborted, f"latency count {lat['count']}")
    if lat_csv is not None:
        want(len(lat_csv) == lat["count"], f"latency CSV rows {len(lat_csv)} != {lat['count']}")
        emitted = [i for i, e in enumerate(exp) if e["out"] is not None or e.get("aborted")]
        want([int(r["index_in"]) for r in lat_csv] == emitted, "latency CSV index_in sequence")
    if vni_rows is not None:
        exp_rows, k = [], 0
        for e in exp:
            if e["out"] is None:
                continue
            if e.get("vni") is not None:
                exp_rows.append((k, e["vni"]))
            k += 1
        want(vni_rows == exp_rows, f"VNI CSV: {len(vni_rows)} rows, expected {len(exp_rows)}; "
                                   f"first difference at {next((i for i, (a, b) in enumerate(zip(vni_rows, exp_rows)) if a != b), min(len(vni_rows), len(exp_rows)))}")


def check_model(errs, name, res, exp, got_out, rep, names, frames):
    """The golden model's per-frame results against the expectations, the harness output and
    the block's counters."""
    tally = {n: [0, 0] for n in names}
    for r, f in zip(res, frames):
        tally[r.outcome.name][0] += 1
        tally[r.outcome.name][1] += len(f)
    for n in names:
        got = [rep["outcomes"][n]["packets"], rep["outcomes"][n]["bytes"]]
        if got != tally[n]:
            errs.append(f"{name}: RTL counts {got} {n} (packets, bytes), the golden model {tally[n]}")
    mo = [r.output for r in res]
    m_written = [o for o in mo if o is not None]
    if m_written != got_out:
        i = next((i for i, (a, b) in enumerate(zip(m_written, got_out)) if a != b), None)
        errs.append(f"{name}: output differs from the golden model's ({len(got_out)} vs "
                    f"{len(m_written)} frames, first difference at {i})")
    for i, (r, e) in enumerate(zip(res, exp)):
        if r.outcome.name != e["outcome"] or r.output != e["out"]:
            errs.append(f"{name}: frame {i}: model says {r.outcome.name}, the construction says "
                        f"{e['outcome']} (outputs {'equal' if r.output == e['out'] else 'differ'})")
            break


def check_pacing(errs, rows_by_dir, frames_by_dir, gbps, mhz):
    """Both inputs follow their own schedule from the same T0 (no backpressure expected)."""
    cpb = mhz / (gbps * 1000.0)
    t0s = []
    for name, rows in rows_by_dir.items():
        frames = frames_by_dir[name]
        if not rows or int(rows[0]["index_in"]) != 0:
            continue
        t0 = int(rows[0]["first_in_cycle"])
        t0s.append(t0)
        starts, bits = [], 0
        for f in frames:
            starts.append(t0 + math.ceil(bits * cpb - 1e-6))
            bits += (len(f) + 24) * 8
        for r in rows:
            i = int(r["index_in"])
            if int(r["first_in_cycle"]) != starts[i]:
                errs.append(f"{name}: frame {i} started at {r['first_in_cycle']}, pacing says {starts[i]}")
                break
    if len(t0s) == 2 and t0s[0] != t0s[1]:
        errs.append(f"the two inputs started at different cycles {t0s}")


def cmd_check(a) -> int:
    errs: list[str] = []
    d, run = a.dir, a.run
    r = json.load(open(run + ".json"))
    if list(r.keys()) != TOP_KEYS:
        errs.append(f"report keys {list(r.keys())}")
    if a.width and r["data_width"] != a.width:
        errs.append(f"data_width {r['data_width']} != {a.width}")
    net = [] if a.no_net else read_pcap(os.path.join(d, "net.pcap"))
    host = [] if a.no_host else read_pcap(os.path.join(d, "host.pcap"))

    def rows(path):
        return list(csv.DictReader(open(path))) if os.path.exists(path) else None

    dlat, elat = rows(run + "-dlat.csv"), rows(run + "-elat.csv")
    vni = rows(run + "-vni.csv")
    vni_rows = None if vni is None else [(int(x["index"]), int(x["vni"])) for x in vni]

    # decap
    exp_d = expect_decap(net, a.decap) if net else []
    got_h = read_pcap(run + "-host_out.pcap") if os.path.exists(run + "-host_out.pcap") else []
    check_dir(errs, "decap", r["decap"], DECAP_NAMES, net, exp_d, got_h, dlat, vni_rows)
    # encap
    exp_e = expect_encap(host, a.encap) if host else []
    got_n = read_pcap(run + "-net_out.pcap") if os.path.exists(run + "-net_out.pcap") else []
    check_dir(errs, "encap", r["encap"], ENCAP_NAMES, host, exp_e, got_n, elat)

    if model is not None:
        check_model(errs, "decap", model_decap(net, a.decap, r["data_width"]), exp_d, got_h,
                    r["decap"], DECAP_NAMES, net)
        check_model(errs, "encap", model_encap(host, a.encap), exp_e, got_n, r["encap"],
                    ENCAP_NAMES, host)
    if a.pacing:
        gbps, mhz = a.pacing
        check_pacing(errs, {"decap": dlat or [], "encap": elat or []}, {"decap": net, "encap": host},
                     gbps, mhz)
    tops = [r[k] for k in ("decap", "encap")]
    spans = [(t["first_in_cycle"], max(t["last_in_cycle"], t["last_out_cycle"])) for t in tops if t["packets_in"]]
    if spans and r["cycles"] < max(s[1] for s in spans) - min(s[0] for s in spans) + 1:
        errs.append(f"cycles {r['cycles']} shorter than the traffic span {spans}")
    for e in errs:
        print(f"vtep_check: {e}", file=sys.stderr)
    if not errs:
        print(f"ok ({'scapy + golden model' if model else 'scapy only: wirespeed.model.vxlan missing'})")
    return 1 if errs else 0


def cmd_seed(d: str, count: int, size: int) -> None:
    from wirespeed.model.vxlan_frames import seed_vxlan_frames
    os.makedirs(d, exist_ok=True)
    st = seed_vxlan_frames(count, size)
    write_pcap(os.path.join(d, "seed-net.pcap"), st.net)
    write_pcap(os.path.join(d, "seed-host.pcap"), st.host)
    ops = [(0x0008, 1)]
    vt = HashTable(24, 13, 8192)
    for vni, (vid, push) in st.decap_cfg.vni_table.items():
        ops += [(0x2000 + o, v) for o, v in vt.insert(vni, pack_vni(vid, push))]
    tt = HashTable(45, 214, 32768)
    for (vid, dst), t in st.encap_cfg.tunnels.items():
        ops += [(0x3000 + o, v) for o, v in tt.insert(
            tunnel_key(dst, vid), pack_tunnel(t.vni, t.dst_mac, t.src_mac, t.src_ip, t.dst_ip,
                                              t.udp_port, t.ttl, t.dscp))]
    write_regs(os.path.join(d, "seed-regs.txt"), ops,
               f"{len(vt)} VNIs (table on), {len(tt)} tunnels")
    print(f"{count} frames per direction, {len(ops)} register writes")


def main() -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    sd = sub.add_parser("seed")
    sd.add_argument("dir")
    sd.add_argument("--count", type=int, default=20000)
    sd.add_argument("--size", type=int, default=804)
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("run")
    c.add_argument("--decap", choices=["empty", "vnitable"], default="empty")
    c.add_argument("--encap", choices=["empty", "tunnel"], default="empty")
    c.add_argument("--width", type=int)
    c.add_argument("--no-net", action="store_true")
    c.add_argument("--no-host", action="store_true")
    c.add_argument("--pacing", nargs=2, type=float)
    a = ap.parse_args()
    if a.cmd == "make":
        cmd_make(a.dir)
        return 0
    if a.cmd == "seed":
        cmd_seed(a.dir, a.count, a.size)
        return 0
    return cmd_check(a)


if __name__ == "__main__":
    sys.exit(main())

"""The fuzzing campaign (``wirespeed fuzz``, ``make fuzz``; docs/fuzzing.md).

A campaign feeds frames through the Verilator harnesses (``ws_sim``: ``gre_decap``;
``ws_vtep``: ``vtep_top``, its VXLAN decap and encap directions at once; ``ws_geneve``:
``geneve_decap``) in *chunks*, and checks every chunk against the golden models
(:mod:`wirespeed.model.gre`, :mod:`wirespeed.model.vxlan`, :mod:`wirespeed.model.geneve`):

* every output frame equals the model's, byte for byte, in input order;
* the block's per-outcome counters equal the model's per-outcome counts, and its aborted frames
  the model's;
* balance: frames in = frames out + counted drops (the checks of ``wirespeed run``);
* order: the frames the block put on its output bus (``--latency-csv``'s ``index_in``, aborted
  ones included) are the model's, in the same order;
* progress: the harness watchdog (``--max-idle-cycles``) ends a run in which frames are pending
  but nothing moves; that is a *stall* failure.

Frames come from a deterministic generator (:func:`generate`): random bytes (runts of 1..59
bytes, 60..1518, jumbo up to 9600, rare giants beyond the encapsulator's 32 KiB FIFO), a pool of
valid frames built once with scapy (GRE with every C/K/S combination, IPv4/IPv6 outer, no tag,
802.1Q, QinQ, L3/TEB/punt protocols, every outer ECN; VXLAN with the same outer variety, inner
IPv4/IPv6/ARP/other/tagged frames, zero and computed UDP checksums, both UDP ports, reserved
bits; Geneve with options of every length, O and C bits, L3/TEB/punted protocol types, the
same outer variety; host-port frames hitting and missing a tunnel table; plain frames), the
contract-case generators of :mod:`wirespeed.model.frames` / :mod:`wirespeed.model.vxlan_frames`
/ :mod:`wirespeed.model.geneve_frames`, and every
frame of the real captures (:data:`wirespeed.paths.CAPTURES`); then mutations of all of them with
plain byte operations (:func:`mutate`): bit flips, byte flips in one header region, truncation at
each header boundary, length-field lies (IPv4 total length and IHL, IPv6 payload length, UDP
length, GRE C/K/S bits, Geneve Opt Len), checksum corruption, trailing padding. Each frame carries a class label
``family/mutation`` that the summary counts.

Each chunk has its own seed (from the campaign seed and the chunk's index), which fixes its
frames, its block configuration (allow-list, policy bits, strict reserved bits, second UDP port,
VNI table with VLAN pushes, tunnel table, miss policy; Geneve's VNI table, CRITICAL_PUNT,
DROP_PASS, DROP_PUNT) and its traffic (random input idle and
output backpressure, mostly back-to-back). A failing chunk's input is written to a pcap in
``--out-dir`` with the first failing frame alone, the config, and the commands that replay it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, TextIO

from wirespeed import pcap, paths
from wirespeed.check import Expected, expected, first_difference
from wirespeed.config import Config, TunnelSpec, VtepConfig
from wirespeed.model.common import ET_IPV4, ET_IPV6, ipv4_checksum, l2_header
from wirespeed.regmap import GENEVE_PORT
from wirespeed.sim import SimOptions

BLOCKS = ("gre", "vxlan-decap", "vxlan-encap", "geneve-decap")
BLOCK_CHOICES = (*BLOCKS, "all")
WIDTHS = (64, 128, 256, 512)
# block -> direction (the harness's data direction; gre's and geneve's one port each)
DIRECTION_OF = {"vxlan-decap": "decap", "vxlan-encap": "encap", "geneve-decap": "geneve"}
BLOCK_OF = {"decap": "vxlan-decap", "encap": "vxlan-encap", "gre": "gre", "geneve": "geneve-decap"}

MAX_LEN = 9600              # the largest ordinary frame (jumbo)
GIANT_RANGE = (32769, 36000)  # beyond vxlan_encap's 32 KiB store-and-forward FIFO
DEFAULT_COUNT = 1_000_000
DEFAULT_CHUNK = 5000
DEFAULT_MAX_IDLE_CYCLES = 10000
VXLAN_PORTS = (4789, 8472)
POOL_TUNNELS = 24           # tunnels of the pool (half untagged, half tagged keys)
GENEVE_POOL = 384           # Geneve frames of the pool

# What a chunk's harness exit code means (sim/README.md).
_EXIT_WATCHDOG, _EXIT_CHECK = 3, 4


class FuzzError(Exception):
    """A campaign that cannot run (bad arguments, no harness); ``code`` is the CLI exit code."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


# ================================================================================ layout

@dataclass(frozen=True)
class Layout:
    """Where a frame's headers are, as far as they can be read (offsets from byte 0).

    ``kind``: ``runt`` (no complete Ethernet header), ``l2`` (not IPv4/IPv6), ``ip`` (IP,
    neither GRE nor UDP), ``udp`` (UDP to another port), ``gre``, ``vxlan`` or ``geneve``.
    ``l3``: the outer IP header; ``hl`` its length; ``l4``: GRE or UDP header; ``k``: the
    tunnel payload (the first byte after the GRE, VXLAN or Geneve header and options); ``ip_end``: where the IP
    packet ends by its length field; ``inner_ip``: the inner IP header of a tunnel payload."""

    kind: str
    l2: int = 0
    l3: int | None = None
    v6: bool = False
    hl: int = 0
    l4: int | None = None
    k: int | None = None
    ip_end: int | None = None
    inner_ip: int | None = None
    inner_v6: bool = False


def locate(f: bytes) -> Layout:
    """The :class:`Layout` of ``f`` (for mutations: a best effort read, never an error)."""
    n = len(f)
    l2 = l2_header(f)
    if l2 is None:
        return Layout("runt", l2=min(n, 14))
    L2, et = l2
    if et == ET_IPV4 and n >= L2 + 20 and f[L2] >> 4 == 4:
        hl = max(20, (f[L2] & 0xF) * 4)
        proto, v6 = f[L2 + 9], False
        ip_end = L2 + (f[L2 + 2] << 8 | f[L2 + 3])
    elif et == ET_IPV6 and n >= L2 + 40:
        hl, proto, v6 = 40, f[L2 + 6], True
        ip_end = L2 + 40 + (f[L2 + 4] << 8 | f[L2 + 5])
    else:
        return Layout("l2", l2=L2)
    l4 = L2 + hl
    base = dict(l2=L2, l3=L2, v6=v6, hl=hl, l4=l4, ip_end=ip_end)
    if proto == 47 and n >= l4 + 4:
        flags = f[l4] << 8 | f[l4 + 1]
        k = l4 + 4 + 4 * ((flags >> 15 & 1) + (flags >> 13 & 1) + (flags >> 12 & 1))
        gproto = f[l4 + 2] << 8 | f[l4 + 3]
        inner = {ET_IPV4: (k, False), ET_IPV6: (k, True)}.get(gproto)
        if gproto == 0x6558 and n >= k + 14:
            iet = f[k + 12] << 8 | f[k + 13]
            inner = {ET_IPV4: (k + 14, False), ET_IPV6: (k + 14, True)}.get(iet)
        return Layout("gre", k=k, inner_ip=inner[0] if inner else None,
                      inner_v6=bool(inner and inner[1]), **base)
    if proto == 17 and n >= l4 + 4:
        dport = f[l4 + 2] << 8 | f[l4 + 3]
        if dport in VXLAN_PORTS or dport == GENEVE_PORT:
            k = l4 + 16
            if dport == GENEVE_PORT and n > l4 + 8:
                k += 4 * (f[l4 + 8] & 0x3F)  # Opt Len
            inner = None
            if n >= k + 14:
                iet = f[k + 12] << 8 | f[k + 13]
                inner = {ET_IPV4: (k + 14, False), ET_IPV6: (k + 14, True)}.get(iet)
            if dport == GENEVE_PORT and n >= l4 + 12 and f[l4 + 10:l4 + 12] != b"\x65\x58":
                pt = f[l4 + 10] << 8 | f[l4 + 11]  # protocol type: an L3 payload at K
                inner = {ET_IPV4: (k, False), ET_IPV6: (k, True)}.get(pt)
            return Layout("vxlan" if dport != GENEVE_PORT else "geneve", k=k,
                          inner_ip=inner[0] if inner else None,
                          inner_v6=bool(inner and inner[1]), **base)
        return Layout("udp", **base)
    return Layout("ip", **base)


# ================================================================================ the pool

@dataclass(frozen=True)
class Base:
    """A frame of the pool: its bytes, its family (the class label's first part), its layout
    and, for frames of the contract-case generators, their case name."""

    frame: bytes
    family: str
    layout: Layout
    case: str = ""


@dataclass
class Pool:
    """The base frames of a campaign, built once per seed, and the tables they were built for:
    the tunnels that host frames hit, the VNIs VXLAN frames mostly carry, the outer IPv4
    address pairs GRE frames mostly use (the allow-list's candidates)."""

    families: dict[str, list[Base]]
    tunnels: tuple[TunnelSpec, ...]
    vnis: tuple[int, ...]
    allow_pairs: tuple[tuple[str, str], ...]
    captures: tuple[str, ...] = ()
    skipped_captures: tuple[str, ...] = ()

    def size(self) -> int:
        """Number of base frames."""
        return sum(len(v) for v in self.families.values())


def _size(rng: random.Random) -> int:
    """A pool frame's target length: mostly short, some up to 1518, a few jumbo."""
    r = rng.random()
    if r < 0.75:
        return rng.randint(60, 300)
    if r < 0.96:
        return rng.randint(301, 1518)
    return rng.randint(1519, MAX_LEN)


def _ipv4_str(v: int) -> str:
    return ".".join(str(v >> s & 255) for s in (24, 16, 8, 0))


def _mac_str(v: int) -> str:
    return ":".join(f"{v >> s & 255:02x}" for s in range(40, -8, -8))


_TAG_VARIANTS: tuple[tuple[tuple[str, int], ...], ...] = (
    (), (("q", 100),), (("ad", 200), ("q", 300)), (("q", 10), ("q", 20)))


def _load_captures() -> tuple[dict[str, list[bytes]], list[str]]:
    """Every frame of every pcap in :data:`wirespeed.paths.CAPTURES` (name -> frames), and
    the files that could not be used (with the reason)."""
    found: dict[str, list[bytes]] = {}
    skipped: list[str] = []
    if not paths.CAPTURES.is_dir():
        return found, [f"{paths.CAPTURES}: not a directory (set WIRESPEED_CAPTURES)"]
    for p in sorted(paths.CAPTURES.glob("*.pcap")):
        try:
            frames = [f[:MAX_LEN] for f in pcap.read_ethernet(p)]
        except pcap.PcapError as exc:
            skipped.append(str(exc))
            continue
        if frames:
            found[p.stem] = frames
    return found, skipped


def build_pool(seed: int, show_progress: bool = False) -> Pool:
    """The campaign's base frames, built with scapy from ``seed`` (deterministic)."""
    from wirespeed.model.frames import gre_frame, plain_frame, random_gre_case
    from wirespeed.model.vxlan_frames import (inner_frame, random_host_frame,
                                              random_vxlan_case, vxlan_frame)
    from wirespeed.progress import Progress

    rng = random.Random(f"wirespeed-fuzz-pool:{seed}")
    fam: dict[str, list[Base]] = {k: [] for k in (
        "gre", "gre-case", "vxlan", "vxlan-case", "host", "host-case", "plain", "geneve",
        "geneve-case")}

    def add(family: str, frame: bytes, case: str = "") -> None:
        frame = bytes(frame)[:MAX_LEN]
        if frame:
            fam[family].append(Base(frame, family, locate(frame), case))

    allow_pairs = tuple((f"10.{i}.0.1", f"10.{i}.0.2") for i in range(8))
    vnis = tuple(sorted({rng.getrandbits(24) for _ in range(16)} | {0, 0xFFFFFF}))
    tunnels: list[TunnelSpec] = []
    keys: set[tuple[int | None, str]] = set()
    while len(tunnels) < POOL_TUNNELS:
        vlan = None if len(tunnels) % 2 == 0 else rng.randint(0, 4095)
        dst = _ipv4_str((rng.randint(1, 223) << 24) | rng.getrandbits(24))
        if (vlan, dst) in keys:
            continue
        keys.add((vlan, dst))
        tunnels.append(TunnelSpec(
            inner_dst=dst, vlan=vlan, vni=rng.getrandbits(24),
            outer_dst_mac=_mac_str(rng.getrandbits(48) & ~(1 << 40)),
            outer_src_mac=_mac_str(rng.getrandbits(48) & ~(1 << 40)),
            outer_src=_ipv4_str(rng.getrandbits(32)), outer_dst=_ipv4_str(rng.getrandbits(32)),
            udp_port=rng.choice((4789, 4789, 8472, rng.getrandbits(16))),
            ttl=rng.randint(1, 255), dscp=rng.getrandbits(6)))
    total = 1024 + 512 + 400 + 400 + POOL_TUNNELS * 8 + 300 + 200 + GENEVE_POOL
    prog = Progress("fuzz: building the frame pool (scapy)", total, enabled=show_progress)
    done = 0

    # GRE: every C/K/S combination x IPv4/IPv6 outer x tags x protocol x outer ECN.
    for c in (0, 1):
        for k in (0, 1):
            for s in (0, 1):
                for v6 in (False, True):
                    for tags in _TAG_VARIANTS:
                        for proto in (0x0800, 0x86DD, 0x6558, -1):
                            for oecn in range(4):
                                add("gre", _gre_base(rng, gre_frame, inner_frame, c, k, s, v6,
                                                     tags, proto, oecn, allow_pairs))
                                done += 1
                prog.update(done)
    # VXLAN: outer IPv4/IPv6 x tags x inner kind x outer ECN x UDP checksum.
    for v6 in (False, True):
        for tags in _TAG_VARIANTS:
            for ikind in ("tcp4", "udp4", "icmp4", "tcp6", "udp6", "arp", "other", "tagged"):
                for oecn in range(4):
                    for csum in ("auto", "zero"):
                        add("vxlan", _vxlan_base(rng, vxlan_frame, inner_frame, v6, tags, ikind,
                                                 oecn, csum, vnis))
                        done += 1
        prog.update(done)
    for _ in range(400):
        case = random_gre_case(rng, max_len=MAX_LEN, big=0.03, bad_prob=0.0)
        add("gre-case", case.frame, case.kind)
        case = random_vxlan_case(rng, max_len=MAX_LEN, big=0.03, bad_prob=0.0, vnis=list(vnis))
        add("vxlan-case", case.frame, case.kind)
        done += 2
        if done % 100 == 0:
            prog.update(done)
    # Host-port frames: hits of every tunnel (protocols, ECN, fragments, options), misses.
    from wirespeed.model.vxlan_frames import host_frame

    for t in tunnels:
        for j in range(8):
            frag = (0, 0) if j < 6 else ((1, 0) if j == 6 else (0, rng.randint(1, 0x1FFF)))
            add("host", host_frame(rng, t.inner_dst, t.vlan, _size(rng) - 54,
                                   ("tcp", "udp", "icmp", "sctp")[j % 4], j % 4, frag,
                                   5 if j % 3 else rng.randint(5, 15)))
            done += 1
    model_tunnels = {(t.vlan, int.from_bytes(bytes(map(int, t.inner_dst.split("."))), "big")):
                     None for t in tunnels}
    for _ in range(300):
        case = random_host_frame(rng, model_tunnels, max_len=MAX_LEN, big=0.03, bad_prob=0.0)
        add("host-case", case.frame, case.kind)
        done += 1
    for _ in range(200):
        add("plain", plain_frame(rng, _size(rng), _TAG_VARIANTS[rng.randrange(4)]))
        done += 1
    prog.update(done)
    # Geneve (its own random stream: the other families stay as they were before it came).
    grng = random.Random(f"wirespeed-fuzz-pool-geneve:{seed}")
    for _ in range(GENEVE_POOL):
        add("geneve", _geneve_base(grng, inner_frame, vnis))
    from wirespeed.model.geneve_frames import contract_cases

    for c in contract_cases(seed=seed):
        if not c.bad:
            add("geneve-case", c.frame, c.kind)
    prog.update(total)
    caps, skipped = _load_captures()
    for name, frames in caps.items():
        fam[f"capture:{name}"] = [Base(f, f"capture:{name}", locate(f)) for f in frames]
    prog.done(f"({sum(len(v) for v in fam.values())} base frames, {len(caps)} captures)")
    return Pool({k: v for k, v in fam.items() if v}, tuple(tunnels), vnis, allow_pairs,
                tuple(caps), tuple(skipped))


def _gre_base(rng: random.Random, gre_frame: Callable[..., Any],
              inner_frame: Callable[..., bytes], c: int, k: int, s: int, v6: bool,
              tags: tuple[tuple[str, int], ...], proto: int, oecn: int,
              allow_pairs: Sequence[tuple[str, str]]) -> bytes:
    """One valid GRE frame (proto -1: a punted protocol)."""
    from wirespeed.model.frames import PUNT_PROTOS

    total = _size(rng)
    room = max(40, total - 14 - 4 * len(tags) - (40 if v6 else 20) - 16)
    iecn = rng.getrandbits(2)
    if proto == 0x0800:
        inner = inner_frame(rng, room + 14, rng.choice(("tcp4", "udp4", "icmp4")), ecn=iecn)[14:]
    elif proto == 0x86DD:
        inner = inner_frame(rng, room + 14, rng.choice(("tcp6", "udp6")), ecn=iecn)[14:]
    elif proto == 0x6558:
        inner = inner_frame(rng, room, rng.choice(("tcp4", "udp4", "tcp6", "arp", "other")),
                            vlan=rng.randint(0, 4095) if rng.random() < 0.2 else None, ecn=iecn)
    else:
        proto = rng.choice(PUNT_PROTOS)
        inner = rng.randbytes(room)
    src, dst = (rng.choice(allow_pairs) if rng.random() < 0.7 else
                (_ipv4_str(rng.getrandbits(32)), _ipv4_str(rng.getrandbits(32))))
    if v6:
        src, dst = (f"2001:db8::{rng.getrandbits(16):x}", f"2001:db8:1::{rng.getrandbits(16):x}")
    ihl = 5 if v6 or rng.random() < 0.8 else rng.randint(6, 15)
    gf = gre_frame(inner, proto=proto, tags=tags, v6=v6, ihl=ihl, outer_ecn=oecn,
                   outer_tos=rng.getrandbits(8), src=src, dst=dst, c=bool(c), k=bool(k),
                   s=bool(s), key=rng.getrandbits(32), seq=rng.getrandbits(32),
                   ip_flags=rng.choice((0, 2)),
                   pad=rng.randbytes(rng.randint(1, 32)) if rng.random() < 0.1 else b"")
    return gf.frame


def _vxlan_base(rng: random.Random, vxlan_frame: Callable[..., Any],
                inner_frame: Callable[..., bytes], v6: bool,
                tags: tuple[tuple[str, int], ...], ikind: str, oecn: int, csum: str,
                vnis: Sequence[int]) -> bytes:
    """One VXLAN frame (valid, or with reserved bits set in one frame of ten)."""
    total = _size(rng)
    room = max(14, total - 14 - 4 * len(tags) - (40 if v6 else 20) - 16)
    vlan = rng.randint(0, 4095) if ikind == "tagged" else None
    inner = inner_frame(rng, room, "tcp4" if ikind == "tagged" else ikind, vlan=vlan,
                        ecn=rng.getrandbits(2))
    vni = rng.choice(vnis) if rng.random() < 0.85 else rng.getrandbits(24)
    kw: dict[str, Any] = {}
    if rng.random() < 0.1:
        x = rng.randrange(3)
        if x == 0:
            kw["flags"] = 0x08 | (1 << rng.choice((0, 1, 2, 4, 5, 6, 7)))
        elif x == 1:
            kw["rsv1"] = 1 << rng.randrange(24)
        else:
            kw["rsv2"] = 1 << rng.randrange(8)
    src, dst = (_ipv4_str(rng.getrandbits(32)), _ipv4_str(rng.getrandbits(32)))
    if v6:
        src, dst = (f"2001:db8::{rng.getrandbits(16):x}", f"2001:db8:1::{rng.getrandbits(16):x}")
    vf = vxlan_frame(vni, inner, src, dst, tags=tags, v6=v6,
                     ihl=5 if v6 or rng.random() < 0.8 else rng.randint(6, 15),
                     outer_ecn=oecn, outer_tos=rng.getrandbits(8), ttl=rng.randint(1, 255),
                     ip_id=rng.getrandbits(16), ip_flags=rng.choice((0, 2)),
                     sport=rng.randint(49152, 65535), dport=4789 if rng.random() < 0.9 else 8472,
                     udp_csum=csum,
                     pad=rng.randbytes(rng.randint(1, 32)) if rng.random() < 0.1 else b"", **kw)
    return vf.frame


def _geneve_base(rng: random.Random, inner_frame: Callable[..., bytes], vnis: Sequence[int]) -> bytes:
    """One Geneve frame: outer IPv4/IPv6, tags, options of any length (mostly short), the
    protocol type (TEB, IPv4, IPv6 or a punted one), O / C bits now and then, any outer ECN,
    computed or zero UDP checksum, mostly a pool VNI."""
    from wirespeed.model.geneve_frames import geneve_frame, option_tlvs

    total = _size(rng)
    v6 = rng.random() < 0.3
    tags = _TAG_VARIANTS[rng.randrange(4)]
    r = rng.random()
    opt = (0 if r < 0.35 else 4 * rng.randint(1, 8) if r < 0.75 else 4 * rng.randint(9, 63))
    room = max(14, total - 14 - 4 * len(tags) - (40 if v6 else 20) - 16 - opt)
    r = rng.random()
    if r < 0.55:
        proto, inner = 0x6558, inner_frame(rng, room, rng.choice(("tcp4", "udp4", "icmp4", "tcp6", "udp6", "arp",
                                                                    "other")),
                                           vlan=rng.randint(0, 4095) if rng.random() < 0.15 else None,
                                           ecn=rng.getrandbits(2))
    elif r < 0.75:
        proto, inner = 0x0800, inner_frame(rng, room + 14, rng.choice(("tcp4", "udp4", "icmp4")),
                                           ecn=rng.getrandbits(2))[14:]
    elif r < 0.9:
        proto, inner = 0x86DD, inner_frame(rng, room + 14, rng.choice(("tcp6", "udp6")), ecn=rng.getrandbits(2))[14:]
    else:
        proto, inner = rng.choice((0x8847, 0x894F, 0x0806, 0x0000)), rng.randbytes(room)
    oam = rng.random() < 0.06
    crit = rng.random() < 0.08
    vni = rng.choice(vnis) if rng.random() < 0.85 else rng.getrandbits(24)
    gf = geneve_frame(inner, vni=vni, proto=proto, options=option_tlvs(opt, rng, critical=crit), oam=oam,
                      critical=crit, tags=tuple(("ad" if k == "ad" else "q", v) for k, v in tags), v6=v6,
                      ecn=rng.getrandbits(2), dscp=rng.getrandbits(6),
                      udp_csum="zero" if rng.random() < 0.3 else "auto", sport=rng.randint(49152, 65535),
                      ip_kw=({} if v6 else {"flags": rng.choice((0, 2))}),
                      pad=rng.randbytes(rng.randint(1, 32)) if rng.random() < 0.1 else b"")
    return gf.frame


# ================================================================================ mutations

MUTATIONS = ("bitflip", "byte", "trunc", "lie", "csum", "pad", "multi")
_MUTATION_WEIGHTS = (0.20, 0.18, 0.22, 0.17, 0.10, 0.05, 0.08)


def _fix_ipv4(b: bytearray, l3: int) -> None:
    """Make the IPv4 header checksum at ``l3`` valid for the header its IHL names (20 bytes
    when the IHL is below 5), as far as the frame holds it."""
    hl = max(20, (b[l3] & 0xF) * 4)
    if len(b) >= l3 + hl:
        c = ipv4_checksum(bytes(b[l3:l3 + hl]))
        b[l3 + 10], b[l3 + 11] = c >> 8, c & 0xFF


def regions(lay: Layout, n: int) -> dict[str, tuple[int, int]]:
    """The header regions of a frame of length ``n`` (name -> [start, end)), non-empty only."""
    r: dict[str, tuple[int, int]] = {"eth": (0, min(n, lay.l2 or 14))}
    if lay.l3 is not None:
        r["ip"] = (lay.l3, min(n, lay.l3 + lay.hl))
    if lay.l4 is not None:
        if lay.kind == "gre":
            r["gre"] = (lay.l4, min(n, lay.k or lay.l4 + 4))
        elif lay.kind in ("udp", "vxlan", "geneve"):
            r["udp"] = (lay.l4, min(n, lay.l4 + 8))
            if lay.kind == "vxlan":
                r["vxlan"] = (lay.l4 + 8, min(n, lay.l4 + 16))
            if lay.kind == "geneve":
                r["geneve"] = (lay.l4 + 8, min(n, lay.l4 + 16))
                if lay.k is not None and lay.k > lay.l4 + 16:
                    r["options"] = (lay.l4 + 16, min(n, lay.k))
        else:
            r["l4"] = (lay.l4, min(n, lay.l4 + 20))
    if lay.k is not None:
        r["inner"] = (lay.k, min(n, lay.k + 54))
    return {k: v for k, v in r.items() if v[0] < v[1]}


def boundaries(lay: Layout) -> dict[str, int]:
    """Header boundaries to cut a frame at (name -> offset)."""
    b = {"ethertype": 12, "l2": lay.l2 or 14}
    if lay.l3 is not None:
        l3 = lay.l3
        b["ip_proto"] = l3 + (6 if lay.v6 else 9)
        b["ip_fixed"] = l3 + (40 if lay.v6 else 20)
        b["ip_hdr"] = l3 + lay.hl
    if lay.l4 is not None:
        b["l4_4"] = lay.l4 + 4
        if lay.kind in ("udp", "vxlan", "geneve"):
            b["udp_hdr"] = lay.l4 + 8
        if lay.kind == "geneve":
            b["geneve_fixed"] = lay.l4 + 16
            if lay.k is not None and lay.k > lay.l4 + 16:
                b["geneve_option"] = lay.l4 + 16 + 4 * ((lay.k - lay.l4 - 16) // 8)
        if lay.kind == "ip":
            b["ports"] = lay.l4 + 4
    if lay.k is not None:
        b["tunnel_hdr"] = lay.k
        b["inner_14"] = lay.k + 14
    if lay.inner_ip is not None:
        b["inner_ecn"] = lay.inner_ip + 2
        b["inner_ip_hdr"] = lay.inner_ip + (40 if lay.inner_v6 else 20)
    if lay.ip_end is not None:
        b["ip_end"] = lay.ip_end
    return b


def _bitflip(rng: random.Random, b: bytearray, lay: Layout) -> str:
    n = len(b)
    hdr_end = min(n, (lay.k + 34) if lay.k is not None else
                  (lay.l4 + 16) if lay.l4 is not None else
                  (lay.l3 + lay.hl) if lay.l3 is not None else 22)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
        i = rng.randrange(hdr_end) if rng.random() < 0.8 and hdr_end > 0 else rng.randrange(n)
        b[i] ^= 1 << rng.randrange(8)
    return "bitflip"


def _byte(rng: random.Random, b: bytearray, lay: Layout) -> str:
    reg = regions(lay, len(b))
    name = rng.choice(sorted(reg))
    lo, hi = reg[name]
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(lo, hi)
        b[i] = rng.choice((0x00, 0xFF, rng.getrandbits(8), b[i] ^ 0xFF))
    return f"byte:{name}"


def _trunc(rng: random.Random, b: bytearray, lay: Layout) -> str | None:
    n = len(b)
    r = rng.random()
    if r < 0.15:  # at (or next to) a bus-beat boundary of one of the four widths
        beat = rng.choice((8, 16, 32, 64))
        cut = beat * rng.randint(1, max(1, min(n, 256) // beat)) + rng.choice((-1, 0, 1))
        if 1 <= cut < n:
            del b[cut:]
            return "trunc:beat"
    elif r < 0.30:  # anywhere in the headers
        hdr_end = min(n - 1, (lay.k + 40) if lay.k is not None else 96)
        if hdr_end >= 1:
            del b[rng.randint(1, hdr_end):]
            return "trunc:random"
    cands = [(name, off) for name, off in sorted(boundaries(lay).items())]
    rng.shuffle(cands)
    for name, off in cands:
        cut = off + rng.choice((-1, 0, 0, 1))
        if 1 <= cut < n:
            del b[cut:]
            return f"trunc:{name}"
    return None


def _lie(rng: random.Random, b: bytearray, lay: Layout) -> str | None:
    n = len(b)
    opts = []
    if lay.l3 is not None and not lay.v6:
        opts += ["ipv4_tlen", "ipv4_ihl"]
    if lay.l3 is not None and lay.v6:
        opts.append("ipv6_plen")
    if lay.kind in ("udp", "vxlan", "geneve") and lay.l4 is not None and n >= lay.l4 + 6:
        opts.append("udp_len")
    if lay.kind == "gre" and lay.l4 is not None and n >= lay.l4 + 2:
        opts.append("gre_flags")
    if lay.kind == "geneve" and lay.l4 is not None and n >= lay.l4 + 10:
        opts += ["geneve_optlen", "geneve_bits"]
    if not opts:
        return None
    what = rng.choice(opts)
    l3 = lay.l3 or 0
    if what in ("ipv4_tlen", "ipv6_plen", "udp_len"):
        at = {"ipv4_tlen": l3 + 2, "ipv6_plen": l3 + 4, "udp_len": (lay.l4 or 0) + 4}[what]
        true = b[at] << 8 | b[at + 1]
        v = rng.choice((0, rng.randint(0, 64), true - 1, true + 1, true - rng.randint(1, 64),
                        true + rng.randint(1, 2000), rng.getrandbits(16))) & 0xFFFF
        if v == true:
            v = (v + 1) & 0xFFFF
        b[at], b[at + 1] = v >> 8, v & 0xFF
        if what == "ipv4_tlen" and rng.random() < 0.8:
            _fix_ipv4(b, l3)
    elif what == "geneve_optlen":  # Opt Len that does not match the options there
        g = (lay.l4 or 0) + 8
        old = b[g] & 0x3F
        b[g] = (b[g] & 0xC0) | rng.choice([x for x in (0, 1, 2, old + 1, max(0, old - 1), 62, 63) if x != old]
                                          or [old ^ 1])
    elif what == "geneve_bits":  # version, O, C and reserved bits
        g = (lay.l4 or 0) + 8
        which = rng.randrange(3)
        if which == 0:
            b[g] ^= rng.choice((0x40, 0x80, 0xC0))       # version
        elif which == 1:
            b[g + 1] ^= rng.choice((0x80, 0x40, 0xC0))   # O, C
        else:
            b[g + 1] ^= 1 << rng.randrange(6)            # reserved
    elif what == "ipv4_ihl":
        ihl = b[l3] & 0xF
        b[l3] = (b[l3] & 0xF0) | rng.choice([x for x in range(16) if x != ihl])
        if rng.random() < 0.7:
            _fix_ipv4(b, l3)
    else:  # gre_flags: C/K/S bits that do not match the header's real length
        g = lay.l4 or 0
        b[g] ^= rng.choice((0x80, 0x20, 0x10, 0xA0, 0x30, 0xB0))
    return f"lie:{what}"


def _csum(rng: random.Random, b: bytearray, lay: Layout) -> str | None:
    n = len(b)
    opts = []
    if lay.l3 is not None and not lay.v6 and n >= lay.l3 + 12:
        opts.append("ip")
    if lay.kind in ("udp", "vxlan", "geneve") and lay.l4 is not None and n >= lay.l4 + 8:
        opts.append("udp")
    if lay.kind == "gre" and lay.l4 is not None and n >= lay.l4 + 6 and b[lay.l4] & 0x80:
        opts.append("gre")
    if lay.inner_ip is not None and not lay.inner_v6 and n >= lay.inner_ip + 12:
        opts.append("inner_ip")
    if not opts:
        return None
    what = rng.choice(opts)
    at = {"ip": (lay.l3 or 0) + 10, "udp": (lay.l4 or 0) + 6, "gre": (lay.l4 or 0) + 4,
          "inner_ip": (lay.inner_ip or 0) + 10}[what]
    v = b[at] << 8 | b[at + 1]
    v ^= rng.randint(1, 0xFFFF) if what != "ip" else 1 << rng.randrange(16)
    b[at], b[at + 1] = v >> 8, v & 0xFF
    return f"csum:{what}"


def _pad(rng: random.Random, b: bytearray, lay: Layout) -> str:
    b += rng.randbytes(rng.randint(1, 64))
    return "pad"


_OPS: dict[str, Callable[[random.Random, bytearray, Layout], str | None]] = {
    "bitflip": _bitflip, "byte": _byte, "trunc": _trunc, "lie": _lie, "csum": _csum,
    "pad": _pad}


def mutate(rng: random.Random, base: Base) -> tuple[bytes, str]:
    """A mutation of ``base`` with plain byte operations; returns (frame, mutation label).

    Labels: ``bitflip``, ``byte:REGION``, ``trunc:BOUNDARY``, ``lie:FIELD``, ``csum:FIELD``,
    ``pad``, ``multi`` (two or three of the others, any truncation last). An operation that
    does not apply to the frame (no UDP header to lie about, say) falls back to a bit flip."""
    b = bytearray(base.frame)
    lay = base.layout
    op = rng.choices(MUTATIONS, _MUTATION_WEIGHTS)[0]
    if op == "multi":
        ops = rng.sample(("bitflip", "byte", "lie", "csum", "pad", "trunc"), rng.randint(2, 3))
        ops.sort(key=lambda o: o == "trunc")
        for o in ops:
            _OPS[o](rng, b, lay)
        label = "multi"
    else:
        label = _OPS[op](rng, b, lay) or _bitflip(rng, b, lay)
    if not b:
        b = bytearray(base.frame[:1])
    return bytes(b[:MAX_LEN]), label


# ================================================================================ generator

@dataclass(frozen=True)
class Frame:
    """A generated frame and its class label ``family/mutation``."""

    data: bytes
    label: str


# Share of each source per block: (family pattern, weight, probability of a mutation).
# "random" = random bytes, "capture" = any capture (each file equally likely).
_MIX: dict[str, tuple[tuple[str, float, float], ...]] = {
    "gre": (("random", 0.10, 0.0), ("gre", 0.30, 0.65), ("gre-case", 0.15, 0.4),
            ("vxlan", 0.05, 0.5), ("vxlan-case", 0.03, 0.4), ("host", 0.03, 0.5),
            ("plain", 0.12, 0.3), ("capture", 0.22, 0.6)),
    "decap": (("random", 0.10, 0.0), ("vxlan", 0.30, 0.65), ("vxlan-case", 0.15, 0.4),
              ("gre", 0.05, 0.5), ("gre-case", 0.03, 0.4), ("host", 0.03, 0.5),
              ("plain", 0.12, 0.3), ("capture", 0.22, 0.6)),
    "encap": (("random", 0.10, 0.0), ("host", 0.30, 0.55), ("host-case", 0.18, 0.4),
              ("vxlan", 0.04, 0.5), ("gre", 0.04, 0.5), ("plain", 0.12, 0.3),
              ("capture", 0.22, 0.6)),
    "geneve": (("random", 0.10, 0.0), ("geneve", 0.32, 0.65), ("geneve-case", 0.12, 0.4),
               ("vxlan", 0.05, 0.5), ("gre", 0.03, 0.5), ("host", 0.02, 0.5),
               ("plain", 0.12, 0.3), ("capture", 0.24, 0.6)),
}


def random_frame(rng: random.Random, giant_prob: float = 0.0) -> Frame:
    """Random bytes: a runt (1..59), 60..1518, jumbo (1519..9600) or, with ``giant_prob``, a
    giant beyond the encapsulator's FIFO. One in three gets a plausible start (an IPv4/IPv6
    or tagged EtherType, protocol 47 or 17, a VXLAN port) so that the bytes reach deeper."""
    r = rng.random()
    if r < giant_prob:
        n, size = rng.randint(*GIANT_RANGE), "giant"
    elif r < 0.2:
        n, size = rng.randint(1, 59), "runt"
    elif r < 0.97:
        n, size = rng.randint(60, 1518), "std"
    else:
        n, size = rng.randint(1519, MAX_LEN), "jumbo"
    b = bytearray(rng.randbytes(n))
    typed = rng.random() < 1 / 3 and n >= 14
    if typed:
        et = rng.choice((0x0800, 0x0800, 0x86DD, 0x8100, 0x88A8))
        b[12], b[13] = et >> 8, et & 0xFF
        if et == 0x0800 and n >= 24:
            b[14] = 0x40 | rng.randint(5, 15)
            b[23] = rng.choice((47, 17))
            if b[23] == 17 and n >= 38:
                port = rng.choice((*VXLAN_PORTS, GENEVE_PORT))
                l4 = 14 + (b[14] & 0xF) * 4
                if n >= l4 + 4:
                    b[l4 + 2], b[l4 + 3] = port >> 8, port & 0xFF
            if rng.random() < 0.5:
                _fix_ipv4(b, 14)
        elif et == 0x86DD and n >= 21:
            b[14] = 0x60 | (b[14] & 0xF)
            b[20] = rng.choice((47, 17))
    return Frame(bytes(b), f"random/bytes:{size}{'-typed' if typed else ''}")


def generate(pool: Pool, rng: random.Random, direction: str, n: int) -> list[Frame]:
    """``n`` frames for one block direction (``gre``, ``decap``, ``encap`` or ``geneve``),
    from ``rng``."""
    mix = _MIX[direction]
    caps = [k for k in pool.families if k.startswith("capture:")]
    avail = [(fam, w, p) for fam, w, p in mix
             if fam == "random" or (fam == "capture" and caps) or fam in pool.families]
    fams = [m[0] for m in avail]
    weights = [m[1] for m in avail]
    mut_p = {m[0]: m[2] for m in avail}
    giant = 0.002 if direction == "encap" else 0.0005
    out: list[Frame] = []
    for fam in rng.choices(fams, weights, k=n):
        if fam == "random":
            out.append(random_frame(rng, giant))
            continue
        group = pool.families[rng.choice(caps)] if fam == "capture" else pool.families[fam]
        base = group[rng.randrange(len(group))]
        if rng.random() < mut_p[fam]:
            data, mut = mutate(rng, base)
        else:
            data, mut = base.frame, (f"case:{base.case}" if base.case else "none")
        out.append(Frame(data, f"{base.family}/{mut}"))
    return out


# ================================================================================ chunks

@dataclass(frozen=True)
class ChunkPlan:
    """Everything a chunk is: which harness, width, config, traffic options and how many
    frames per direction; all of it follows from the campaign seed and the chunk's index."""

    index: int
    seed: int
    kind: str                      # "gre" (ws_sim), "vtep" (ws_vtep) or "geneve" (ws_geneve)
    width: int
    sizes: dict[str, int]          # direction ("gre", "decap", "encap", "geneve") -> frames
    cfg: Any                       # Config (gre, vtep); model.geneve.GeneveConfig (geneve)
    opts: SimOptions

    @property
    def frames(self) -> int:
        """Frames fed in this chunk, every direction."""
        return sum(self.sizes.values())

    def describe(self) -> str:
        """One line: harness, width, traffic and config variant."""
        o = self.opts
        rate = "b2b" if not o.line_rate_gbps else f"{o.line_rate_gbps:g}G"
        if self.kind == "gre":
            c = self.cfg
            cfg = (f"allow={'on' if c.allow_enabled else 'off'}/{len(c.allow_entries)} "
                   f"pass={c.policy_pass} punt={c.policy_punt} malformed={c.policy_malformed}")
        elif self.kind == "geneve":
            g = self.cfg
            cfg = (f"port={g.port} vni_table={'on' if g.vni_table is not None else 'off'}/"
                   f"{len(g.vni_table or {})} critical_punt={g.critical_punt} "
                   f"drop_pass={g.drop_pass} drop_punt={g.drop_punt}")
        else:
            v = self.cfg.vtep
            cfg = (f"port={v.port} port2={v.port2} strict={v.strict} drop_pass={v.drop_pass} "
                   f"vni_table={'on' if v.vni_enabled else 'off'}/{len(v.vni_entries)} "
                   f"tunnels={len(v.tunnels)} miss={v.miss}")
        dirs = "+".join(f"{d}:{n}" for d, n in self.sizes.items())
        return (f"chunk {self.index} seed {self.seed} {dirs} w{self.width} {rate} "
                f"idle={o.idle_prob:g} stall={o.stall_prob:g} {cfg}")


def chunk_seed(seed: int, index: int) -> int:
    """The seed of chunk ``index`` of the campaign ``seed`` (31 bits, for every harness)."""
    h = hashlib.sha256(f"wirespeed-fuzz:{seed}:{index}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


def schedule(blocks: Sequence[str], widths: Sequence[int], count: int, chunk: int
             ) -> list[tuple[str, int, dict[str, int]]]:
    """(harness kind, width, frames per direction) of every chunk of a campaign: the kinds
    alternate (ws_sim, ws_vtep, ws_geneve) and each round moves to the next width, so the first
    3 x len(widths) chunks cover every block at every width; a ws_vtep chunk feeds ``chunk``
    frames into each of its directions at once. The last chunk is cut to ``count``."""
    kinds: list[tuple[str, tuple[str, ...]]] = []
    if "gre" in blocks:
        kinds.append(("gre", ("gre",)))
    vdirs = tuple(DIRECTION_OF[b] for b in BLOCKS if b in blocks and b.startswith("vxlan-"))
    if vdirs:
        kinds.append(("vtep", vdirs))
    if "geneve-decap" in blocks:
        kinds.append(("geneve", ("geneve",)))
    if not kinds or not widths or chunk < 1:
        raise FuzzError("nothing to fuzz: give --block, --widths and a --chunk of at least 1")
    plans: list[tuple[str, int, dict[str, int]]] = []
    done = i = 0
    while done < count:
        kind, dirs = kinds[i % len(kinds)]
        width = widths[(i // len(kinds)) % len(widths)]
        left = count - done
        per = min(chunk, -(-left // len(dirs)))
        sizes = {}
        for d in dirs:
            sizes[d] = min(per, left)
            left -= sizes[d]
        sizes = {d: s for d, s in sizes.items() if s > 0}
        plans.append((kind, width, sizes))
        done += sum(sizes.values())
        i += 1
    return plans


# Config features forced on in turn (the n-th chunk of a harness gets entry n % 4) on top of
# the random draw, so that every few chunks exercise each of them whatever the seed.
_FORCED = {"gre": ((), ("allow",), ("drop_pass", "forward_malformed"), ("drop_punt",)),
           "vtep": ((), ("vni_table", "strict"), ("drop_pass", "port2", "miss_drop"),
                    ("no_tunnels",)),
           "geneve": ((), ("vni_table",), ("critical_punt", "drop_pass"), ("drop_punt", "vni_table"))}


def plan_chunk(pool: Pool, seed: int, index: int, kind: str, width: int,
               sizes: dict[str, int], max_idle_cycles: int, turn: int = 0
               ) -> tuple[ChunkPlan, random.Random]:
    """Draw chunk ``index``'s config and traffic options from its seed (``turn``: how many
    chunks of the same harness came before it, which picks the config features forced on);
    returns the plan and the random stream that goes on to generate its frames."""
    cs = chunk_seed(seed, index)
    force = set(_FORCED[kind][turn % len(_FORCED[kind])])
    rng = random.Random(cs)
    rate = 0.0 if rng.random() < 0.85 else float(rng.choice((10, 25, 100)))
    idle = rng.choice((0.0, 0.0, 0.05, 0.2, 0.5, 0.8, 0.95))
    stall = rng.choice((0.0, 0.0, 0.05, 0.2, 0.5, 0.8, 0.95))
    opts = SimOptions(clock_mhz=250.0, line_rate_gbps=rate, idle_prob=idle, stall_prob=stall,
                      seed=cs, max_idle_cycles=max_idle_cycles)
    if kind == "geneve":
        from wirespeed.model.geneve import GeneveConfig

        table = None
        if rng.random() < 0.4 or "vni_table" in force:
            vs = rng.sample(pool.vnis, rng.randint(0, len(pool.vnis)))
            table = {v: (rng.randint(0, 4095), rng.random() < 0.3) for v in vs}
            if 0x7B not in table and rng.random() < 0.5:  # the capture's VNI
                table[0x7B] = (rng.randint(0, 4095), rng.random() < 0.3)
        cfg = GeneveConfig(port=GENEVE_PORT if rng.random() < 0.95 else 4789, vni_table=table,
                           critical_punt=rng.random() < 0.3 or "critical_punt" in force,
                           drop_punt=rng.random() < 0.15 or "drop_punt" in force,
                           drop_pass=rng.random() < 0.15 or "drop_pass" in force)
        return ChunkPlan(index, cs, kind, width, dict(sizes), cfg, opts), rng
    if kind == "gre":
        allow = rng.random() < 0.25 or "allow" in force
        entries = tuple(rng.sample(pool.allow_pairs, rng.randint(0, len(pool.allow_pairs))))
        cfg = Config(data_width=width, line_rate_gbps=rate, allow_enabled=allow,
                     allow_entries=entries if allow or rng.random() < 0.5 else (),
                     policy_pass="drop" if rng.random() < 0.15 or "drop_pass" in force
                     else "forward",
                     policy_punt="drop" if rng.random() < 0.15 or "drop_punt" in force
                     else "forward",
                     policy_malformed="forward" if rng.random() < 0.3 or
                     "forward_malformed" in force else "drop",
                     source=f"<fuzz chunk {index}>")
    else:
        vni_on = rng.random() < 0.4 or "vni_table" in force
        vnis = rng.sample(pool.vnis, rng.randint(0, len(pool.vnis)))
        vni_entries = tuple((v, rng.randint(0, 4095) if rng.random() < 0.3 else None)
                            for v in vnis)
        r = rng.random()
        tunnels = (pool.tunnels if r < 0.5 else
                   tuple(rng.sample(pool.tunnels, rng.randint(1, len(pool.tunnels))))
                   if r < 0.8 else ())
        if "no_tunnels" in force:
            tunnels = ()
        swap = rng.random() < 0.1  # 8472 as PORT, 4789 as PORT2 (or off)
        port2 = 8472 if rng.random() < 0.3 or "port2" in force else None
        vt = VtepConfig(port=8472 if swap else 4789,
                        port2=(4789 if port2 else None) if swap else port2,
                        strict=rng.random() < 0.3 or "strict" in force, vni_enabled=vni_on,
                        vni_entries=vni_entries if vni_on or rng.random() < 0.5 else (),
                        tunnels=tunnels,
                        miss="drop" if rng.random() < 0.25 or "miss_drop" in force
                        else "forward",
                        drop_pass=rng.random() < 0.15 or "drop_pass" in force,
                        source=f"<fuzz chunk {index}>")
        cfg = Config(data_width=width, line_rate_gbps=rate, source=f"<fuzz chunk {index}>",
                     vtep=vt)
    return ChunkPlan(index, cs, kind, width, dict(sizes), cfg, opts), rng


# ================================================================================ checking

@dataclass
class Failure:
    """One failed chunk direction: what went wrong and where its evidence is."""

    chunk: int
    chunk_seed: int
    block: str
    width: int
    kind: str                       # "mismatch", "stall", "harness"
    messages: list[str]
    culprit: int | None = None      # input index of the first failing frame, when located
    culprit_label: str | None = None
    culprit_alone_fails: bool | None = None
    files: dict[str, str] = field(default_factory=dict)
    replay: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The failure as JSON-ready data."""
        return dataclasses.asdict(self)


@dataclass
class RunOutcome:
    """What one harness run of a chunk (or part of one) showed."""

    returncode: int
    stderr: str
    command: list[str]
    harness: dict[str, Any] | None
    errors: dict[str, list[str]]          # direction -> failed checks
    culprit: dict[str, int | None]        # direction -> first failing input index, if known
    outcomes: dict[str, Counter[str]]     # direction -> the block's outcome counts
    seconds: float
    latency_max: dict[str, int] = field(default_factory=dict)  # direction -> cycles


Tamper = Callable[[str, Expected], None]


def _outcome_names(direction: str) -> tuple[str, ...]:
    from wirespeed import report, vtep

    if direction == "geneve":
        from wirespeed.model.geneve import Outcome

        return tuple(Outcome.__members__)
    return report.OUTCOMES if direction == "gre" else vtep.OUTCOMES[direction]


def _read_emitted(path: Path) -> list[int] | None:
    """``index_in`` of every emitted frame, in output order (the harness's latency CSV)."""
    if not path.is_file():
        return None
    with open(path) as f:
        next(f, None)
        return [int(line.split(",", 1)[0]) for line in f if line.strip()]


def _expected(direction: str, frames: Sequence[bytes], cfg: Config, width: int) -> Expected:
    from wirespeed import vtep

    if direction == "gre":
        return expected(frames, cfg.gre_config(), keep_w=width // 8)
    if direction == "geneve":
        from wirespeed.model.geneve import decap

        exp = Expected()
        for i, f in enumerate(frames):
            r = decap(f, cfg, keep_w=width // 8)
            exp.add(i, r)
            if r.output is not None and r.tvni_valid:
                exp.vnis.append(r.vni)
        return exp
    return vtep.expected_direction(direction, frames, cfg, keep_w=width // 8)


def geneve_balance_errors(hd: Mapping[str, Any], frames: Sequence[bytes], got: Sequence[bytes]) -> list[str]:
    """ws_geneve's run balances: frames (bytes) in = the harness's count = Σ outcome counters;
    frames out whole = the TX counter = the forwarding outcomes = the output pcap."""
    from wirespeed.model.geneve import FORWARD_OUTCOMES

    errs = []
    oc = hd.get("outcomes", {})
    pk = sum(int(v.get("packets", 0)) for v in oc.values())
    by = sum(int(v.get("bytes", 0)) for v in oc.values())
    n_in, b_in = len(frames), sum(map(len, frames))
    if int(hd.get("packets_in", -1)) != n_in or pk != n_in:
        errs.append(f"BALANCE: {n_in} frames in, the harness fed {hd.get('packets_in')}, the counters "
                    f"count {pk}")
    if by != b_in:
        errs.append(f"BALANCE: {b_in} bytes in, the byte counters count {by}")
    fwd = sum(int(oc.get(o.name, {}).get("packets", 0)) for o in FORWARD_OUTCOMES)
    tx_p = int(hd.get("tx_packets", -1))
    outs = int(hd.get("packets_out", -1))
    if not (outs == len(got) == fwd == tx_p):
        errs.append(f"BALANCE: frames out: pcap {len(got)}, harness {outs}, TX counter {tx_p}, forwarding "
                    f"outcomes {fwd}")
    drops = n_in - fwd
    if n_in != len(got) + drops:
        errs.append(f"BALANCE: {n_in} in != {len(got)} out + {drops} counted drops")
    return errs


def run_harness(plan: ChunkPlan, binary: Path, frames: Mapping[str, Sequence[bytes]],
                work: Path, tamper: Tamper | None = None) -> RunOutcome:
    """Run ``frames`` (direction -> input frames) through ``binary`` as ``plan`` says and apply
    every check; nothing is raised for a failing DUT (see :class:`RunOutcome`)."""
    from wirespeed import report, sim, vtep

    work.mkdir(parents=True, exist_ok=True)
    cfg = plan.cfg
    regs = work / "regs.txt"
    jpath = work / "harness.json"
    ins = {d: work / f"{d}_in.pcap" for d in frames}
    outs = {d: work / f"{d}_out.pcap" for d in frames}
    lats = {d: work / f"{d}_latency.csv" for d in frames}
    for d, fr in frames.items():
        pcap.write(ins[d], fr)
    for p in (jpath, *outs.values(), *lats.values()):
        p.unlink(missing_ok=True)
    vni_csv = work / "host_vni.csv"
    if plan.kind == "gre":
        regs.write_text(cfg.register_file_text())
        cmd = sim.command(binary, ins["gre"], outs["gre"], jpath, regs, plan.opts, lats["gre"])
    elif plan.kind == "geneve":
        regs.write_text(geneve_register_file_text(cfg))
        vni_csv = work / "vni.csv"
        vni_csv.unlink(missing_ok=True)
        cmd = sim.command(binary, ins["geneve"], outs["geneve"], jpath, regs, plan.opts,
                          lats["geneve"]) + ["--vni-csv", str(vni_csv)]
    else:
        regs.write_text(cfg.vtep_register_file_text())
        kw: dict[str, Any] = {}
        if "decap" in frames:
            kw.update(net_in=ins["decap"], host_out=outs["decap"], host_vni_csv=vni_csv,
                      decap_latency_csv=lats["decap"])
        if "encap" in frames:
            kw.update(host_in=ins["encap"], net_out=outs["encap"],
                      encap_latency_csv=lats["encap"])
        cmd = sim.vtep_command(binary, jpath, regs=regs, opts=plan.opts, **kw)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    secs = time.monotonic() - t0
    errors: dict[str, list[str]] = {d: [] for d in frames}
    culprit: dict[str, int | None] = {d: None for d in frames}
    counts: dict[str, Counter[str]] = {d: Counter() for d in frames}
    h: dict[str, Any] | None = None
    lat: dict[str, int] = {}
    rc = proc.returncode
    if rc not in (0, _EXIT_CHECK) or not jpath.is_file():
        what = ("stall: the watchdog fired (frames pending, nothing moved for "
                f"{plan.opts.max_idle_cycles} cycles)" if rc == _EXIT_WATCHDOG else
                f"the harness failed with exit {rc}")
        for d in frames:
            errors[d].append(f"{what}: {proc.stderr.strip()}")
        return RunOutcome(rc, proc.stderr, cmd, None, errors, culprit, counts, secs)
    h = json.loads(jpath.read_text())
    if rc == _EXIT_CHECK:
        # ws_vtep names the direction of a failed check ("error: decap: BALANCE: ...").
        named = [d for d in frames if f"error: {d}:" in proc.stderr]
        for d in named or list(frames):
            errors[d].append(f"the harness's own checks failed (exit 4): {proc.stderr.strip()}")
    for d, fr in frames.items():
        hd = h if plan.kind in ("gre", "geneve") else h.get(d, {})
        try:
            got = pcap.read_ethernet(outs[d]) if outs[d].is_file() else []
        except pcap.PcapError as exc:
            errors[d].append(f"the harness's output is unusable: {exc}")
            continue
        exp = _expected(d, fr, cfg, plan.width)
        if tamper is not None:
            tamper(d, exp)
        errs = errors[d]
        names = _outcome_names(d)
        counts[d] = Counter({n: int(hd.get("outcomes", {}).get(n, {}).get("packets", 0))
                             for n in names})
        lat_max = (hd.get("latency_cycles") or {}).get("max")
        if lat_max is not None:
            lat[d] = int(lat_max)
        # Balance (frames in = out + counted drops, harness vs pcaps, counters vs statuses).
        if plan.kind == "gre":
            rep = report.build(hd, cfg, [len(f) for f in fr], [len(f) for f in got])
            errs += report.balance_errors(rep)
        elif plan.kind == "geneve":
            errs += geneve_balance_errors(hd, fr, got)
        else:
            r = vtep.direction_report(d, hd, [len(f) for f in fr], [len(f) for f in got],
                                      plan.opts.clock_mhz, plan.opts.line_rate_gbps)
            errs += vtep.balance_errors(d, r, hd, sum(len(f) for f in fr))
        # Per-outcome counts and aborted frames against the model.
        for n in names:
            if counts[d][n] != exp.outcomes.get(n, 0):
                errs.append(f"{n}: the block counted {counts[d][n]} frames, the model "
                            f"expects {exp.outcomes.get(n, 0)}")
        if int(hd.get("aborted", 0)) != exp.aborted:
            errs.append(f"aborted frames: the block {hd.get('aborted')}, the model "
                        f"{exp.aborted}")
        # Order: the frames put on the output bus, aborted ones included.
        emitted = _read_emitted(lats[d])
        where: int | None = None
        if emitted is not None and emitted != exp.emitted:
            p = next((j for j, (x, y) in enumerate(zip(emitted, exp.emitted)) if x != y),
                     min(len(emitted), len(exp.emitted)))
            a = emitted[p] if p < len(emitted) else None
            b = exp.emitted[p] if p < len(exp.emitted) else None
            where = min(x for x in (a, b) if x is not None)
            errs.append(f"order: emitted frame {p} is input frame {a}, the model emits input "
                        f"frame {b} there")
        # Outputs, byte for byte and in order.
        i = first_difference(got, exp.outputs)
        if i is not None:
            src = exp.sources[i] if i < len(exp.sources) else (len(fr) - 1)
            where = src if where is None else min(where, src)
            g = got[i] if i < len(got) else None
            w = exp.outputs[i] if i < len(exp.outputs) else None
            if g is None or w is None:
                detail = "missing" if g is None else "extra"
            else:
                at = next((k for k in range(min(len(g), len(w))) if g[k] != w[k]),
                          min(len(g), len(w)))
                detail = (f"{len(g)} bytes vs the model's {len(w)}, first difference at "
                          f"byte {at}")
            errs.append(f"output frame {i} (model: from input frame {src}) differs: {detail}; "
                        f"{len(got)} output frames, the model expects {len(exp.outputs)}")
        if d in ("decap", "geneve") and vni_csv.is_file():
            errs += [m.replace("decap: m_host_axis_tvni", "m_axis_tvni") if d == "geneve" else m
                     for m in vtep.vni_differences(vtep.read_vni_csv(vni_csv), exp.vnis)]
        culprit[d] = where
    return RunOutcome(rc, proc.stderr, cmd, h, errors, culprit, counts, secs, lat)


def _fails(out: RunOutcome, direction: str) -> bool:
    return bool(out.errors.get(direction))


def locate_culprit(plan: ChunkPlan, binary: Path, direction: str, frames: Sequence[bytes],
                   work: Path, max_runs: int = 16) -> int | None:
    """The first failing frame of one direction by bisection over prefixes (each prefix run
    alone in the harness with the chunk's options); None when the whole direction alone does
    not fail, or the run budget ends first."""
    lo, hi = 0, len(frames)   # the prefix of hi frames fails; of lo frames it passes
    runs = 0
    full = run_harness(plan, binary, {direction: frames}, work)
    runs += 1
    if not _fails(full, direction):
        return None
    while hi - lo > 1 and runs < max_runs:
        mid = (lo + hi) // 2
        out = run_harness(plan, binary, {direction: frames[:mid]}, work)
        runs += 1
        if _fails(out, direction):
            hi = mid
        else:
            lo = mid
    return hi - 1 if hi - lo == 1 else None


# ================================================================================ replay

def geneve_register_file_text(cfg: Any) -> str:
    """The ``--regs`` file of ws_geneve for a :class:`wirespeed.model.geneve.GeneveConfig`."""
    from wirespeed.robustness import geneve_writes

    return "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in geneve_writes(cfg))


def config_mapping(cfg: Any, kind: str) -> dict[str, Any]:
    """``cfg`` as a YAML mapping that :func:`wirespeed.config.load` reads back (the keys a
    fuzz chunk sets); for ``geneve`` (no config-file section yet) the model configuration's
    fields, for the record (its register writes are the failure's regs.txt)."""
    if kind == "geneve":
        return {"geneve": {"port": cfg.port, "critical_punt": cfg.critical_punt, "drop_punt": cfg.drop_punt,
                           "drop_pass": cfg.drop_pass,
                           "vni_table": None if cfg.vni_table is None else
                           [{"vni": v, "vlan": vid, "push": push} for v, (vid, push) in cfg.vni_table.items()]}}
    m: dict[str, Any] = {"data_width": cfg.data_width, "clock_mhz": cfg.clock_mhz,
                         "line_rate_gbps": cfg.line_rate_gbps}
    if kind == "gre":
        m["allow_list"] = {"enabled": cfg.allow_enabled,
                           "entries": [{"src": s, "dst": d} for s, d in cfg.allow_entries]}
        m["policy"] = {"pass": cfg.policy_pass, "punt": cfg.policy_punt,
                       "malformed": cfg.policy_malformed}
        return m
    v = cfg.vtep
    entries = []
    for vni, vlan in v.vni_entries:
        entries.append({"vni": vni} if vlan is None else {"vni": vni, "vlan": vlan})
    tunnels = []
    for t in v.tunnels:
        d = {"inner_dst": t.inner_dst, "vni": t.vni, "outer_dst_mac": t.outer_dst_mac,
             "outer_src_mac": t.outer_src_mac, "outer_src": t.outer_src,
             "outer_dst": t.outer_dst, "udp_port": t.udp_port, "ttl": t.ttl, "dscp": t.dscp}
        if t.vlan is not None:
            d["vlan"] = t.vlan
        tunnels.append(d)
    m["vtep"] = {"port": v.port, "port2": v.port2, "strict": v.strict, "drop_pass": v.drop_pass,
                 "miss": v.miss, "vni_table": {"enabled": v.vni_enabled, "entries": entries},
                 "tunnels": tunnels, "tunnel_slots": v.tunnel_slots}
    return m


def _run_command(plan: ChunkPlan, direction: str, in_pcap: Path, cfg_path: Path,
                 out_dir: Path) -> str:
    """The ``wirespeed run ... --check`` command that replays one direction of a chunk (for
    Geneve, which ``wirespeed run`` does not drive yet: the ws_geneve command on the failure's
    regs.txt, with the harness's own balance checks)."""
    o = plan.opts
    if direction == "geneve":
        from wirespeed.build import harness_path

        return (f"{harness_path(plan.width, 'geneve')} --in {in_pcap} --out {out_dir / 'replay_out.pcap'} "
                f"--json {out_dir / 'replay_report.json'} --regs {out_dir / 'regs.txt'} "
                f"--vni-csv {out_dir / 'replay_vni.csv'} --line-rate-gbps {o.line_rate_gbps:g} "
                f"--idle-prob {o.idle_prob:g} --stall-prob {o.stall_prob:g} --seed {o.seed}")
    common = (f"--config {cfg_path} --width {plan.width} --line-rate-gbps "
              f"{o.line_rate_gbps:g} --idle-prob {o.idle_prob:g} --stall-prob {o.stall_prob:g} "
              f"--seed {o.seed} --check")
    if direction == "gre":
        return (f"wirespeed run --in {in_pcap} --out {out_dir / 'replay_out.pcap'} "
                f"--report {out_dir / 'replay_report.json'} {common}")
    io = (f"--net-in {in_pcap} --host-out {out_dir / 'replay_out.pcap'}" if direction == "decap"
          else f"--host-in {in_pcap} --net-out {out_dir / 'replay_out.pcap'}")
    return f"wirespeed run --block vtep {io} --report {out_dir / 'replay_report.json'} {common}"


def _shell(cmd: Sequence[str]) -> str:
    import shlex

    return " ".join(shlex.quote(c) for c in cmd)


# ================================================================================ campaign

@dataclass
class Campaign:
    """A campaign's parameters (see ``wirespeed fuzz --help``)."""

    seed: int = 1
    count: int = DEFAULT_COUNT
    blocks: tuple[str, ...] = BLOCKS
    widths: tuple[int, ...] = WIDTHS
    out_dir: Path = field(default_factory=lambda: paths.BUILD / "fuzz")
    chunk: int = DEFAULT_CHUNK
    max_idle_cycles: int = DEFAULT_MAX_IDLE_CYCLES
    only_chunk: int | None = None
    quiet: bool = False

    def fuzz_command(self, only_chunk: int | None = None) -> str:
        """The ``wirespeed fuzz`` command of this campaign (of one chunk of it)."""
        block = "all" if set(self.blocks) == set(BLOCKS) else self.blocks[0]
        cmd = (f"wirespeed fuzz --seed {self.seed} --count {self.count} --block {block} "
               f"--widths {' '.join(map(str, self.widths))} --chunk {self.chunk} "
               f"--max-idle-cycles {self.max_idle_cycles} --out-dir {self.out_dir}")
        if only_chunk is not None:
            cmd += f" --only-chunk {only_chunk}"
        return cmd


def blocks_of(choice: str) -> tuple[str, ...]:
    """The blocks of a ``--block`` choice."""
    if choice == "all":
        return BLOCKS
    if choice not in BLOCKS:
        raise FuzzError(f"--block {choice!r} is not one of {', '.join(BLOCK_CHOICES)}")
    return (choice,)


def _snapshot_harnesses(camp: Campaign, kinds: Iterable[tuple[str, int]],
                        ensure: Callable[..., Path] | None) -> dict[tuple[str, int], Path]:
    """Build (or reuse) every harness the campaign needs and copy each into
    ``out_dir/bin/``: a long campaign keeps testing the RTL it started with, even when the
    sources change meanwhile (and never rebuilds in the middle)."""
    from wirespeed.build import BuildError, ensure_harness

    ensure = ensure or ensure_harness
    bins: dict[tuple[str, int], Path] = {}
    bindir = camp.out_dir / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    for kind, width in sorted(set(kinds)):
        try:
            src = ensure(width, verbose=not camp.quiet, block=kind)
        except BuildError as exc:
            raise FuzzError(str(exc), 3) from exc
        dst = bindir / f"{src.name}_w{width}"
        tmp = dst.with_suffix(".tmp")
        shutil.copy2(src, tmp)
        tmp.replace(dst)
        bins[(kind, width)] = dst
    return bins


def _write_failure(camp: Campaign, plan: ChunkPlan, direction: str, frames: Sequence[Frame],
                   outcome: RunOutcome, binary: Path, work: Path, bisect: bool) -> Failure:
    """Write a failing chunk direction's evidence to ``out_dir`` and say how to replay it."""
    import yaml

    block = BLOCK_OF[direction]
    d = camp.out_dir / f"fail-c{plan.index}-{block}-w{plan.width}"
    d.mkdir(parents=True, exist_ok=True)
    data = [f.data for f in frames]
    kind = ("stall" if outcome.returncode == _EXIT_WATCHDOG else
            "harness" if outcome.returncode not in (0, _EXIT_CHECK) else "mismatch")
    fail = Failure(plan.index, plan.seed, block, plan.width, kind, outcome.errors[direction])
    chunk_pcap = d / "chunk.pcap"
    pcap.write(chunk_pcap, data)
    cfg_path = d / "config.yaml"
    cfg_path.write_text(yaml.safe_dump(config_mapping(plan.cfg, plan.kind), sort_keys=False))
    (d / "labels.txt").write_text("".join(f"{i}\t{f.label}\n" for i, f in enumerate(frames)))
    shutil.copy2(work / "regs.txt", d / "regs.txt")
    fail.files = {"chunk": str(chunk_pcap), "config": str(cfg_path),
                  "labels": str(d / "labels.txt"), "regs": str(d / "regs.txt")}
    culprit = outcome.culprit.get(direction)
    if culprit is None and bisect:
        note = f"fuzz: locating the first failing frame of chunk {plan.index} by bisection ..."
        if not camp.quiet:
            print(note, file=sys.stderr)
        culprit = locate_culprit(plan, binary, direction, data, work / "bisect")
    if culprit is not None:
        fail.culprit = culprit
        fail.culprit_label = frames[culprit].label
        first = d / "first.pcap"
        pcap.write(first, [data[culprit]])
        fail.files["first"] = str(first)
        alone = run_harness(plan, binary, {direction: [data[culprit]]}, work / "alone")
        fail.culprit_alone_fails = _fails(alone, direction)
    # The harness command, on the files kept here.
    raw = list(outcome.command)
    in_flag = {"gre": "--in", "decap": "--net-in", "encap": "--host-in", "geneve": "--in"}[direction]
    raw_cmd = [raw[0]]
    skip = False
    drop_flags = {"--net-in", "--host-in", "--in", "--net-out", "--host-out", "--out", "--json",
                  "--regs", "--latency-csv", "--decap-latency-csv", "--encap-latency-csv",
                  "--host-vni-csv", "--vni-csv"}
    for a in raw[1:]:
        if skip:
            skip = False
            continue
        if a in drop_flags:
            skip = True
            continue
        raw_cmd.append(a)
    out_flag = {"gre": "--out", "decap": "--host-out", "encap": "--net-out", "geneve": "--out"}[direction]
    raw_cmd += [in_flag, str(chunk_pcap), out_flag, str(d / "harness_out.pcap"), "--json",
                str(d / "harness.json"), "--regs", str(d / "regs.txt")]
    fail.replay = [
        camp.fuzz_command(plan.index),
        _run_command(plan, direction, chunk_pcap, cfg_path, d),
        _shell(raw_cmd),
    ]
    if "first" in fail.files:
        fail.replay.append(_run_command(plan, direction, Path(fail.files["first"]), cfg_path, d))
    (d / "failure.json").write_text(json.dumps(
        {**fail.as_dict(), "plan": plan.describe(), "harness_stderr": outcome.stderr},
        indent=2) + "\n")
    (d / "replay.txt").write_text("\n".join(fail.replay) + "\n")
    return fail


@dataclass
class ChunkResult:
    """One chunk's frames, outcome counts and failures."""

    plan: ChunkPlan
    labels: dict[str, Counter[str]]
    outcomes: dict[str, Counter[str]]
    failures: list[Failure]
    sim_seconds: float
    cycles: int
    latency_max: dict[str, int] = field(default_factory=dict)


def run_chunk(camp: Campaign, plan: ChunkPlan, frames: Mapping[str, Sequence[Frame]],
              binary: Path, tamper: Tamper | None = None, bisect: bool = True) -> ChunkResult:
    """Simulate and check one chunk; on failure write its evidence (:func:`_write_failure`;
    ``bisect``: locate the first failing frame by bisection when the checks do not name it)."""
    with tempfile.TemporaryDirectory(prefix=f"wirespeed-fuzz-c{plan.index}-") as tmp:
        work = Path(tmp)
        data = {d: [f.data for f in fr] for d, fr in frames.items()}
        out = run_harness(plan, binary, data, work, tamper)
        failures = [_write_failure(camp, plan, d, frames[d], out, binary, work, bisect)
                    for d in frames if out.errors[d]]
    labels = {d: Counter(f.label for f in fr) for d, fr in frames.items()}
    cycles = int((out.harness or {}).get("cycles", 0))
    return ChunkResult(plan, labels, out.outcomes, failures, out.seconds, cycles,
                       out.latency_max)


class _Tally:
    """The campaign's running totals (the summary is made from them)."""

    def __init__(self) -> None:
        self.frames: dict[str, Counter[int]] = {b: Counter() for b in BLOCKS}
        self.labels: dict[str, Counter[str]] = {b: Counter() for b in BLOCKS}
        self.outcomes: dict[str, Counter[str]] = {b: Counter() for b in BLOCKS}
        self.latency_max: dict[str, dict[int, int]] = {b: {} for b in BLOCKS}
        self.variants: Counter[str] = Counter()
        self.failures: list[Failure] = []
        self.chunks: list[dict[str, Any]] = []
        self.sim_seconds = 0.0
        self.cycles = 0

    def add(self, r: ChunkResult) -> None:
        p = r.plan
        for d, n in p.sizes.items():
            b = BLOCK_OF[d]
            self.frames[b][p.width] += n
            self.labels[b].update(r.labels[d])
            self.outcomes[b].update(r.outcomes.get(d, Counter()))
            if d in r.latency_max:
                self.latency_max[b][p.width] = max(self.latency_max[b].get(p.width, 0),
                                                   r.latency_max[d])
        o = p.opts
        self.variants[f"{p.kind}: idle {o.idle_prob:g}"] += 1
        self.variants[f"{p.kind}: stall {o.stall_prob:g}"] += 1
        self.variants[f"{p.kind}: line rate {o.line_rate_gbps:g} Gb/s"] += 1
        if p.kind == "gre":
            c = p.cfg
            self.variants[f"gre: allow-list {'on' if c.allow_enabled else 'off'}"] += 1
            for k, v in (("pass", c.policy_pass), ("punt", c.policy_punt),
                         ("malformed", c.policy_malformed)):
                self.variants[f"gre: policy.{k} {v}"] += 1
        elif p.kind == "geneve":
            g = p.cfg
            self.variants[f"geneve: VNI table {'on' if g.vni_table is not None else 'off'}"] += 1
            self.variants[f"geneve: port {g.port}"] += 1
            self.variants[f"geneve: critical_punt {g.critical_punt}"] += 1
            self.variants[f"geneve: drop_pass {g.drop_pass}"] += 1
            self.variants[f"geneve: drop_punt {g.drop_punt}"] += 1
        else:
            v = p.cfg.vtep
            self.variants[f"vtep: strict {v.strict}"] += 1
            self.variants[f"vtep: port {v.port} port2 {v.port2 or 'off'}"] += 1
            self.variants[f"vtep: drop_pass {v.drop_pass}"] += 1
            self.variants[f"vtep: VNI table {'on' if v.vni_enabled else 'off'}"] += 1
            table = ("none" if not v.tunnels else
                     "all" if len(v.tunnels) == POOL_TUNNELS else "some")
            self.variants[f"vtep: tunnels {table}"] += 1
            self.variants[f"vtep: miss {v.miss}"] += 1
        self.failures += r.failures
        self.sim_seconds += r.sim_seconds
        self.cycles += r.cycles
        self.chunks.append({"index": p.index, "seed": p.seed, "plan": p.describe(),
                            "sim_seconds": round(r.sim_seconds, 3), "cycles": r.cycles,
                            "failed": bool(r.failures)})


def run_campaign(camp: Campaign, stream: TextIO | None = None,
                 ensure: Callable[..., Path] | None = None,
                 tamper: Tamper | None = None) -> dict[str, Any]:
    """Run the campaign; return its summary (also written to ``out_dir/summary.json`` and
    ``out_dir/summary.md``; with ``only_chunk`` K to ``summary-chunkK.*``, so that a replay
    keeps the campaign's summary). Progress goes to ``stream`` (stderr) unless
    ``camp.quiet``."""
    stream = stream or sys.stderr
    for w in camp.widths:
        if w not in WIDTHS:
            raise FuzzError(f"--widths: {w} is not one of {', '.join(map(str, WIDTHS))}")
    if camp.count < 1:
        raise FuzzError("--count must be at least 1")
    if camp.max_idle_cycles < 1:
        raise FuzzError("--max-idle-cycles must be at least 1")
    plans = schedule(camp.blocks, camp.widths, camp.count, camp.chunk)
    if camp.only_chunk is not None and not 0 <= camp.only_chunk < len(plans):
        raise FuzzError(f"--only-chunk {camp.only_chunk}: this campaign has chunks 0.."
                        f"{len(plans) - 1}")
    indices = [camp.only_chunk] if camp.only_chunk is not None else list(range(len(plans)))
    camp.out_dir.mkdir(parents=True, exist_ok=True)
    for i in indices:  # evidence of an earlier run of these chunks is stale
        for old in camp.out_dir.glob(f"fail-c{i}-*"):
            shutil.rmtree(old, ignore_errors=True)
    t0 = time.monotonic()
    pool = build_pool(camp.seed, show_progress=not camp.quiet)
    bins = _snapshot_harnesses(camp, [(plans[i][0], plans[i][1]) for i in indices], ensure)
    sources = _sources()
    tally = _Tally()
    total = sum(sum(plans[i][2].values()) for i in indices)
    done = 0
    t_run = time.monotonic()
    for i in indices:
        kind, width, sizes = plans[i]
        turn = sum(1 for k, _, _ in plans[:i] if k == kind)
        plan, rng = plan_chunk(pool, camp.seed, i, kind, width, sizes, camp.max_idle_cycles,
                               turn)
        frames = {d: generate(pool, rng, d, n) for d, n in plan.sizes.items()}
        r = run_chunk(camp, plan, frames, bins[(kind, width)], tamper)
        tally.add(r)
        done += plan.frames
        if not camp.quiet:
            el = time.monotonic() - t_run
            rate = done / el if el else 0.0
            status = "FAILED" if r.failures else "ok"
            stream.write(f"fuzz: {done}/{total} frames ({100 * done // max(total, 1)}%), "
                         f"{rate:.0f} frames/s, {len(tally.failures)} failures | "
                         f"{plan.describe()}: {status}\n")
            for f in r.failures:
                stream.write(_failure_text(f))
            stream.flush()
    wall = time.monotonic() - t0
    summary = _summary(camp, pool, tally, done, wall, time.monotonic() - t_run)
    summary["sources"] = sources
    stem = "summary" if camp.only_chunk is None else f"summary-chunk{camp.only_chunk}"
    summary["files"] = [str(camp.out_dir / f"{stem}.json"), str(camp.out_dir / f"{stem}.md")]
    Path(summary["files"][0]).write_text(json.dumps(summary, indent=2) + "\n")
    Path(summary["files"][1]).write_text(summary_markdown(summary))
    return summary


def _sources() -> dict[str, Any]:
    """Which RTL the campaign tested: the git commit, whether rtl/ or sim/ had uncommitted
    changes, and the harness build's source hash (wirespeed.build.source_hash)."""
    from wirespeed.build import source_hash

    info: dict[str, Any] = {"source_hash": source_hash()}
    try:
        git = ["git", "-C", str(paths.ROOT)]
        info["commit"] = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True,
                                        text=True, check=True).stdout.strip()
        dirty = subprocess.run(git + ["status", "--porcelain", "--", "rtl", "sim"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        info["uncommitted"] = sorted(line[3:] for line in dirty if line.strip())
    except (OSError, subprocess.CalledProcessError):
        info["commit"] = None
    return info


def _failure_text(f: Failure) -> str:
    lines = [f"  FAILURE ({f.kind}) in chunk {f.chunk} (chunk seed {f.chunk_seed}), {f.block} "
             f"at {f.width} bits:"]
    lines += [f"    {m}" for m in f.messages[:8]]
    if f.culprit is not None:
        lines.append(f"    first failing frame: input {f.culprit} ({f.culprit_label}); alone it "
                     f"{'fails too' if f.culprit_alone_fails else 'passes'}")
    lines += [f"    {k}: {v}" for k, v in f.files.items()]
    lines.append("    replay:")
    lines += [f"      {c}" for c in f.replay]
    return "\n".join(lines) + "\n"


def _family(label: str) -> str:
    return label.split("/", 1)[0]


def _mutation(label: str) -> str:
    m = label.split("/", 1)[1]
    return m.split(":", 1)[0] if not m.startswith("case:") else "case"


def _summary(camp: Campaign, pool: Pool, t: _Tally, frames: int, wall: float,
             run_wall: float) -> dict[str, Any]:
    blocks = [b for b in BLOCKS if sum(t.frames[b].values())]
    outcome_cov: dict[str, Any] = {}
    for b in blocks:
        names = _outcome_names(DIRECTION_OF.get(b, "gre"))
        outcome_cov[b] = {"counts": {n: t.outcomes[b].get(n, 0) for n in names},
                          "never": [n for n in names if not t.outcomes[b].get(n)]}
    return {
        "seed": camp.seed,
        "count": camp.count,
        "blocks": list(camp.blocks),
        "widths": list(camp.widths),
        "chunk": camp.chunk,
        "only_chunk": camp.only_chunk,
        "max_idle_cycles": camp.max_idle_cycles,
        "command": camp.fuzz_command(camp.only_chunk),
        "out_dir": str(camp.out_dir),
        "frames": frames,
        "wall_seconds": round(wall, 1),
        # frames / wall_seconds: the figure agrees with the totals printed beside it. The
        # setup (frame pool, harness builds and copies) is stated apart, with the rate after it.
        "frames_per_second": round(frames / wall, 1) if wall else None,
        "setup_seconds": round(wall - run_wall, 1),
        "run_seconds": round(run_wall, 1),
        "run_frames_per_second": round(frames / run_wall, 1) if run_wall else None,
        "harness_seconds": round(t.sim_seconds, 1),
        "harness_frames_per_second": round(frames / t.sim_seconds, 1) if t.sim_seconds else None,
        "cycles": t.cycles,
        "pool": {"base_frames": pool.size(),
                 "families": {k: len(v) for k, v in pool.families.items()},
                 "captures": list(pool.captures), "skipped_captures": list(pool.skipped_captures)},
        "frames_by_block_width": {b: {str(w): t.frames[b][w] for w in camp.widths}
                                  for b in blocks},
        "families": {b: dict(sorted(Counter(_family(k) for k in t.labels[b].elements()).items()))
                     for b in blocks},
        "mutations": {b: dict(sorted(Counter(_mutation(k) for k in t.labels[b].elements()).items()))
                      for b in blocks},
        "classes": {b: dict(sorted(t.labels[b].items())) for b in blocks},
        "outcomes": outcome_cov,
        "latency_max_cycles": {b: {str(w): t.latency_max[b].get(w) for w in camp.widths}
                               for b in blocks},
        "variants": dict(sorted(t.variants.items())),
        "failures": [f.as_dict() for f in t.failures],
        "chunks": t.chunks,
    }


def summary_markdown(s: Mapping[str, Any]) -> str:
    """The summary's tables as Markdown (the figures docs/fuzzing.md quotes)."""
    out = [f"# Fuzz campaign: seed {s['seed']}, {s['frames']} frames\n",
           f"`{s['command']}`\n",
           f"- wall time {s['wall_seconds']} s, **{s['frames_per_second']} frames/s** overall "
           f"(setup {s['setup_seconds']} s: frame pool, harness builds; then "
           f"{s['run_frames_per_second']} frames/s of generation, simulation, model); the "
           f"harnesses alone "
           f"{s['harness_frames_per_second']} frames/s over {s['harness_seconds']} s, "
           f"{s['cycles']} simulated cycles",
           f"- pool: {s['pool']['base_frames']} base frames "
           f"({', '.join(f'{k} {v}' for k, v in s['pool']['families'].items())})",
           f"- failures: {len(s['failures'])}\n"]
    widths = s["widths"]
    out.append("| block | " + " | ".join(f"{w} bit" for w in widths) + " | total |")
    out.append("|---|" + "---|" * (len(widths) + 1))
    for b, per in s["frames_by_block_width"].items():
        out.append(f"| {b} | " + " | ".join(str(per[str(w)]) for w in widths)
                   + f" | {sum(per.values())} |")
    out.append("\nLongest first-input-beat to first-output-beat latency of any frame, cycles "
               "(backpressure and queueing included):\n")
    out.append("| block | " + " | ".join(f"{w} bit" for w in widths) + " |")
    out.append("|---|" + "---|" * len(widths))
    for b, per in s.get("latency_max_cycles", {}).items():
        out.append(f"| {b} | " + " | ".join(str(per.get(str(w))) for w in widths) + " |")
    out.append("")
    for title, key in (("Frame families", "families"), ("Mutations", "mutations")):
        names = sorted({k for b in s[key].values() for k in b})
        blocks = list(s[key])
        out.append(f"\n{title}:\n")
        out.append("| | " + " | ".join(blocks) + " |")
        out.append("|---|" + "---|" * len(blocks))
        for n in names:
            out.append(f"| {n} | " + " | ".join(str(s[key][b].get(n, 0)) for b in blocks) + " |")
    out.append("\nOutcomes (the block's counters):\n")
    for b, oc in s["outcomes"].items():
        out.append(f"- **{b}**: " + ", ".join(f"{n} {c}" for n, c in oc["counts"].items())
                   + (f"; never: {', '.join(oc['never'])}" if oc["never"] else ""))
    nclass = {b: len(c) for b, c in s["classes"].items()}
    out.append("\nDistinct class labels (family/mutation): "
               + ", ".join(f"{b} {n}" for b, n in nclass.items()))
    out.append("\nChunk variants: " + ", ".join(f"{k} x{v}" for k, v in s["variants"].items()))
    return "\n".join(out) + "\n"


def print_summary(s: Mapping[str, Any], stream: TextIO | None = None) -> None:
    """The end-of-campaign lines: frames, frames per second, coverage, failures."""
    stream = stream or sys.stdout
    per = ", ".join(f"{b} {sum(v.values())}" for b, v in s["frames_by_block_width"].items())
    stream.write(f"fuzz: {s['frames']} frames ({per}) in {s['wall_seconds']} s: "
                 f"{s['frames_per_second']} frames/s ({s['setup_seconds']} s of setup, then "
                 f"{s['run_frames_per_second']} frames/s over {s['run_seconds']} s; harnesses "
                 f"alone {s['harness_frames_per_second']} frames/s)\n")
    for b, oc in s["outcomes"].items():
        hit = sum(1 for c in oc["counts"].values() if c)
        stream.write(f"fuzz: {b}: {len(s['classes'][b])} frame classes, {hit}/"
                     f"{len(oc['counts'])} outcomes"
                     + (f" (never: {', '.join(oc['never'])})" if oc["never"] else "") + "\n")
    if s["failures"]:
        stream.write(f"fuzz: {len(s['failures'])} FAILURES; evidence and replay commands in "
                     f"the fail-* folders of {s['out_dir']}\n")
    else:
        stream.write("fuzz: no failures\n")

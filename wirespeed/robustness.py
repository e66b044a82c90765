"""The robustness contract (issue #5): every class of bad or unusual input, for every block, and
what the block does with it. One table, machine-readable; ``docs/robustness.md`` is generated
from it (``python -m wirespeed.robustness --write``) and tb/robustness checks it row by row
against the golden models and the RTL.

A row names a block (``gre_decap``, ``vxlan_decap``, ``vxlan_encap``, ``geneve_decap``), an input class, a builder
(scapy) that makes one or more concrete frames of that class, the configuration the row assumes,
the outcome every one of those frames must get (the counter index, named as in gre_pkg.sv and
docs/vxlan.md), the action (decap / encap / pass / punt / drop / abort, or ``drop/abort`` when
it depends on the bus width, see below) and the counter it increments.

Two kinds of rows:

- ``bus="pcap"``: whole frames, which a pcap can carry; tb/robustness runs all of them through
  the Verilator harnesses (one run per block, configuration and bus width) and compares every
  frame's status, the counters and the output bytes with the model.
- ``bus="axis"``: frames that only exist on the bus: a MAC RX error (``tuser`` = 1 on the last
  beat) and tkeep holes. Their builders return beats for a given bus width (:class:`Beat`);
  :func:`bus_frame` says what frame and "bad" flag the block sees (docs/robustness.md, "tkeep
  holes"), and a cocotb bench drives them.

``drop/abort``: a drop known only at the frame's end (DROP_TRUNCATED by the IP length, a MAC RX
error) is an early drop (nothing leaves) when the whole frame was in by the beat the block
decided on, and an abort (the output started, its last beat carries ``tuser`` = 1) otherwise;
which one depends on the bus width. The document lists the widths for each such row.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

from wirespeed.model import geneve as GN
from wirespeed.model import gre as G
from wirespeed.model import vxlan as V
from wirespeed.regmap import GENEVE_MAP, GRE_MAP, VTEP_MAP, VTEP_TUNNEL_TABLE

__all__ = [
    "BLOCKS",
    "WIDTHS",
    "Beat",
    "Row",
    "ROWS",
    "CONFIGS",
    "rows",
    "config",
    "regs_writes",
    "bus_frame",
    "model",
    "model_result",
    "row_actions",
    "counter_address",
    "render",
    "DOC_PATH",
]

BLOCKS = ("gre_decap", "vxlan_decap", "vxlan_encap", "geneve_decap")
WIDTHS = (64, 128, 256, 512)
ACTIONS = ("decap", "encap", "pass", "punt", "drop", "abort", "drop/abort")
DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "robustness.md"

OUTCOMES = {
    "gre_decap": G.Outcome,
    "vxlan_decap": V.DecapOutcome,
    "vxlan_encap": V.EncapOutcome,
    "geneve_decap": GN.Outcome,
}
# geneve_decap's own AXI4-Lite space (ws_geneve).
GENEVE_VNI_TABLE = GENEVE_MAP.window("vni_table").base
# Counter window of each block: gre_decap's and geneve_decap's own maps (ws_sim, ws_geneve),
# vtep_top's decap and encap windows.
COUNTER_BASE = {"gre_decap": GRE_MAP.address("gre", "CNT_PKTS_LO"),
                "vxlan_decap": VTEP_MAP.address("decap", "CNT_PKTS_LO"),
                "vxlan_encap": VTEP_MAP.address("encap", "CNT_PKTS_LO"),
                "geneve_decap": GENEVE_MAP.address("geneve", "CNT_PKTS_LO")}
TOP = {"gre_decap": "gre_decap", "vxlan_decap": "vtep_top", "vxlan_encap": "vtep_top",
       "geneve_decap": "geneve_decap"}


def counter_address(block: str, outcome: str) -> int:
    """Byte address of the `CNT_PKTS_LO` register of `outcome` (its `CNT_BYTES_LO` is +8)."""
    return COUNTER_BASE[block] + 16 * int(OUTCOMES[block][outcome])


# ------------------------------------------------------------------------------------------------
# Bus beats (rows with bus="axis")
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Beat:
    """One AXI4-Stream beat: `data` (up to KEEP_W bytes, byte 0 in tdata[7:0], zero-filled),
    `keep` (the tkeep bits), `last`, `user` (tuser)."""

    data: bytes
    keep: int
    last: bool
    user: bool = False


def split_beats(frame: bytes, keep_w: int) -> list[Beat]:
    """A frame as the harnesses put it on the bus: full beats, the last one contiguous."""
    out = []
    for i in range(0, len(frame), keep_w):
        chunk = frame[i : i + keep_w]
        out.append(Beat(chunk, (1 << len(chunk)) - 1, i + keep_w >= len(frame)))
    return out


def bus_frame(beats: Sequence[Beat], keep_w: int) -> tuple[bytes, bool]:
    """The frame and its "bad" flag as a block behind `axis_keep_check` sees `beats` (one
    frame, tlast on the last): the bytes of every beat but the last, and of the last beat the
    bytes up to its highest set tkeep bit (at least one); bad = tuser on the last beat, or a
    tkeep hole (a beat before the last whose tkeep is not all ones, or a last beat whose tkeep
    is not 0...01...1 with at least one byte)."""
    full = (1 << keep_w) - 1
    data = bytearray()
    hole = False
    for b in beats[:-1]:
        hole |= b.keep != full
        data += bytes(b.data).ljust(keep_w, b"\0")
    last = beats[-1]
    k = last.keep
    n = k.bit_length()
    hole |= k == 0 or k != (1 << n) - 1
    data += bytes(last.data).ljust(keep_w, b"\0")[: max(n, 1)]
    return bytes(data), bool(last.user or hole)


# ------------------------------------------------------------------------------------------------
# Rows
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    id: str
    block: str
    group: str
    case: str
    build: Callable[..., list]  # () -> [bytes], or for bus="axis" (keep_w) -> [[Beat]]
    outcome: str
    action: str
    config: str = "default"
    bus: str = "pcap"
    note: str = ""

    @property
    def counter(self) -> str:
        return f"{self.outcome} (CNT_PKTS_LO 0x{counter_address(self.block, self.outcome):04X})"

    def frames(self) -> list[bytes]:
        assert self.bus == "pcap", self.id
        return _frames(self.id)

    def beats(self, keep_w: int) -> list[list[Beat]]:
        assert self.bus == "axis", self.id
        return self.build(keep_w)


@lru_cache(maxsize=None)
def _frames(row_id: str) -> list[bytes]:
    r = _BY_ID[row_id]
    out = [bytes(f) for f in r.build()]
    if not out or any(not f for f in out):
        raise ValueError(f"{row_id}: a row needs frames of at least one byte")
    return out


# ------------------------------------------------------------------------------------------------
# Configurations
# ------------------------------------------------------------------------------------------------

TUN_DST = "10.2.0.2"  # inner destination with a tunnel (untagged and VLAN 100)
GN_VNI, GN_VNI_PUSH, GN_VNI_OTHER = 42, 43, 0x123456  # Geneve: the rows' VNI, a VNI with a VLAN push, an unknown one
TUN_MISS = "10.9.9.9"
TUNNELS = {
    (None, TUN_DST): V.Tunnel(vni=42, dst_mac="02:00:00:00:0b:01", src_mac="02:00:00:00:0a:01",
                              src_ip="192.0.2.1", dst_ip="192.0.2.2"),
    (100, TUN_DST): V.Tunnel(vni=43, dst_mac="02:00:00:00:0b:02", src_mac="02:00:00:00:0a:01",
                             src_ip="192.0.2.1", dst_ip="192.0.2.3", ttl=32, dscp=10),
}

CONFIGS = {
    ("gre_decap", "default"): ("reset state: CONTROL = 0 (allow-list off, default policy)",
                               lambda: G.GreConfig()),
    ("vxlan_decap", "default"): ("reset state: PORT 4789, PORT2 off, VNI table off, reserved "
                                 "bits ignored", lambda: V.DecapConfig()),
    ("vxlan_decap", "strict"): ("CONTROL bit 1 (strict reserved bits) = 1",
                                lambda: V.DecapConfig(strict=True)),
    ("vxlan_encap", "default"): ("two tunnels to inner 10.2.0.2 (untagged; VLAN 100), "
                                 "CONTROL = 0 (miss: pass)",
                                 lambda: V.EncapConfig(tunnels=dict(TUNNELS))),
    ("geneve_decap", "default"): ("reset state: PORT 6081, VNI table off, C = 1 dropped "
                                  "(CRITICAL_PUNT = 0), PASS and PUNT forwarded",
                                  lambda: GN.GeneveConfig()),
    ("geneve_decap", "vni"): (f"VNI table on with VNI {GN_VNI} (no tag) and VNI {GN_VNI_PUSH} "
                              "(push 802.1Q VLAN 100), CRITICAL_PUNT = 1",
                              lambda: GN.GeneveConfig(vni_table={GN_VNI: (0, False), GN_VNI_PUSH: (100, True)},
                                                      critical_punt=True)),
    ("geneve_decap", "policy"): ("DROP_PASS = 1 and DROP_PUNT = 1 (PASS, PUNT and PUNT_OAM frames "
                                 "dropped as DROP_POLICY), VNI table off",
                                 lambda: GN.GeneveConfig(drop_pass=True, drop_punt=True)),
}


def config(block: str, name: str):
    """The model configuration of a row."""
    return CONFIGS[(block, name)][1]()


def regs_writes(block: str, name: str) -> list[tuple[int, int]]:
    """The AXI4-Lite writes (address, value) that put the RTL into configuration `name`
    (addresses of ws_sim for gre_decap, of vtep_top for the VXLAN blocks)."""
    cfg = config(block, name)
    if block == "gre_decap":
        return [(GRE_MAP.address("gre", "CONTROL"), cfg.control)]
    if block == "vxlan_decap":
        return [(VTEP_MAP.address("decap", "CONTROL"), cfg.control),
                (VTEP_MAP.address("decap", "PORT"), cfg.port)]
    if block == "geneve_decap":
        return geneve_writes(cfg)
    from wirespeed.table import HashTable, pack_tunnel, tunnel_key

    tbl = HashTable(45, 214, 32768)
    writes = [(VTEP_MAP.address("encap", "CONTROL"), cfg.control)]
    for (vid, dst), t in cfg.tunnels.items():
        value = pack_tunnel(t.vni, t.dst_mac, t.src_mac, t.src_ip, t.dst_ip, t.udp_port, t.ttl, t.dscp)
        writes += [(VTEP_TUNNEL_TABLE + a, v) for a, v in tbl.insert(tunnel_key(dst, vid), value)]
    return writes


def geneve_writes(cfg: "GN.GeneveConfig", vni_slots: int = 8192) -> list[tuple[int, int]]:
    """The AXI4-Lite writes of ws_geneve (geneve_decap's own space) for a model configuration:
    the VNI table's entries (wirespeed.table's placement for a `vni_slots`-slot table, the RTL's
    default VNI_SLOTS), then PORT and CONTROL."""
    from wirespeed.table import VNI_KEY_W, VNI_VALUE_W, HashTable, pack_vni

    writes = []
    if cfg.vni_table:
        tbl = HashTable(VNI_KEY_W, VNI_VALUE_W, vni_slots)
        for vni, (vid, push) in cfg.vni_table.items():
            writes += [(GENEVE_VNI_TABLE + a, v) for a, v in tbl.insert(vni, pack_vni(vid, push))]
    return writes + [(GENEVE_MAP.address("geneve", "PORT"), cfg.port),
                     (GENEVE_MAP.address("geneve", "CONTROL"), cfg.control)]


def model(block: str, cfg_name: str, frame: bytes, bad: bool = False, keep_w: int | None = None):
    """The golden model's result for `frame` in `block` under configuration `cfg_name`."""
    cfg = config(block, cfg_name)
    if block == "gre_decap":
        return G.gre_decap(frame, cfg, bad, keep_w)
    if block == "geneve_decap":
        return GN.decap(frame, cfg, bad, keep_w)
    if block == "vxlan_decap":
        return V.decap(frame, cfg, bad, keep_w)
    return V.encap(frame, cfg, bad)


def model_result(row: Row, frame: bytes, bad: bool = False, keep_w: int | None = None):
    """The golden model's result for one frame of `row`."""
    return model(row.block, row.config, frame, bad, keep_w)


def _action_of(block: str, res) -> str:
    if res.output is not None:
        o = res.outcome.name
        if o.startswith("DECAP"):
            return "decap"
        if o == "ENCAP":
            return "encap"
        if o.startswith("PUNT"):  # PUNT, and Geneve's PUNT_OAM
            return "punt"
        return "pass"
    return "abort" if res.aborted else "drop"


def row_actions(row: Row) -> dict[int, set[str]]:
    """The model's action for the row's frames at each bus width: {width: {action, ...}}."""
    out: dict[int, set[str]] = {}
    for w in WIDTHS:
        acts = set()
        if row.bus == "pcap":
            for f in row.frames():
                acts.add(_action_of(row.block, model_result(row, f, False, w // 8)))
        else:
            for beats in row.beats(w // 8):
                f, bad = bus_frame(beats, w // 8)
                acts.add(_action_of(row.block, model_result(row, f, bad, w // 8)))
        out[w] = acts
    return out


# ------------------------------------------------------------------------------------------------
# Frame builders (scapy)
# ------------------------------------------------------------------------------------------------

MAC_D, MAC_S = "02:00:00:00:00:02", "02:00:00:00:00:01"
O4_SRC, O4_DST = "192.0.2.1", "192.0.2.2"
O6_SRC, O6_DST = "2001:db8::1", "2001:db8::2"
I4_SRC, I4_DST = "10.1.0.1", TUN_DST
I6_SRC, I6_DST = "2001:db8:1::1", "2001:db8:2::2"


def _scapy():
    # Imported lazily: scapy takes a second to load and the table's text needs none of it.
    from scapy.all import conf

    conf.verb = 0
    from scapy.layers import inet, inet6, l2, vxlan  # noqa: F401

    return inet, inet6, l2, vxlan


def payload(n: int, salt: int = 0) -> bytes:
    return bytes((i * 7 + 3 + salt) & 0xFF for i in range(n))


def _l2(tags=()):
    _, _, l2, _ = _scapy()
    p = l2.Ether(dst=MAC_D, src=MAC_S)
    for tpid, vid in tags:
        p = p / (l2.Dot1AD(vlan=vid) if tpid == 0x88A8 else l2.Dot1Q(vlan=vid))
    return p


def inner_ip4(n: int = 32, **ip):
    inet, _, _, _ = _scapy()
    return inet.IP(src=I4_SRC, dst=I4_DST, **ip) / inet.TCP(sport=1234, dport=80) / payload(n)


def inner_ip6(n: int = 32):
    inet, inet6, _, _ = _scapy()
    return inet6.IPv6(src=I6_SRC, dst=I6_DST) / inet.TCP(sport=1234, dport=80) / payload(n)


def inner_eth(n: int = 32):
    _, _, l2, _ = _scapy()
    return l2.Ether(dst="02:00:00:00:01:02", src="02:00:00:00:01:01") / inner_ip4(n)


def gre(*, tags=(), v6=False, ip=None, g=None, inner=None, pad: bytes = b"", ext=None) -> bytes:
    """Ethernet (+ tags) / outer IPv4 or IPv6 (+ extension headers) / GRE / inner (default
    IPv4/TCP, 32 payload bytes) (+ trailing bytes after the IP packet)."""
    inet, inet6, l2, _ = _scapy()
    ip = dict(ip or {})
    if v6:
        outer = inet6.IPv6(src=O6_SRC, dst=O6_DST, **ip)
    else:
        outer = inet.IP(src=O4_SRC, dst=O4_DST, **ip)
    for e in ext or ():
        outer = outer / e
    gre_hdr = g if isinstance(g, (bytes, bytearray)) else l2.GRE(**(g or {}))
    if isinstance(gre_hdr, (bytes, bytearray)):
        # a hand-made GRE header (flags that scapy would not lay out as the row needs)
        if not v6 and not ext and "proto" not in ip:
            outer.proto = 47
        if v6 and not ext and "nh" not in ip:
            outer.nh = 47
    p = _l2(tags) / outer / gre_hdr / (inner_ip4() if inner is None else inner)
    return bytes(p) + pad


def plain(*, tags=(), n: int = 32, pad: bytes = b"") -> bytes:
    """A non-tunnel frame: Ethernet (+ tags) / IPv4 / TCP."""
    inet, _, _, _ = _scapy()
    return bytes(_l2(tags) / inet.IP(src=O4_SRC, dst=O4_DST) / inet.TCP(sport=5, dport=6) / payload(n)) + pad


def vx(*, tags=(), v6=False, ip=None, udp=None, hdr=None, inner=None, pad: bytes = b"", ext=None) -> bytes:
    """Ethernet (+ tags) / outer IPv4 or IPv6 / UDP 4789 / VXLAN (I flag, VNI 42) / inner frame
    (default Ethernet/IPv4/TCP) (+ trailing bytes after the IP packet)."""
    inet, inet6, _, vxl = _scapy()
    ip = dict(ip or {})
    udp = {"sport": 49152, "dport": 4789, **(udp or {})}
    hdr = {"flags": 0x08, "vni": 42, **(hdr or {})}
    if hdr["flags"] & 0x04:
        hdr.setdefault("NextProtocol", 0)  # scapy would fill in 3 (Ethernet) for the next-protocol bit
    outer = inet6.IPv6(src=O6_SRC, dst=O6_DST, **ip) if v6 else inet.IP(src=O4_SRC, dst=O4_DST, **ip)
    for e in ext or ():
        outer = outer / e
    p = _l2(tags) / outer / inet.UDP(**udp) / vxl.VXLAN(**hdr) / (inner_eth() if inner is None else inner)
    return bytes(p) + pad


def host(*, dst: str = TUN_DST, tags=(), n: int = 32, ip=None, l4=True, v6=False, pad: bytes = b"") -> bytes:
    """A host-port frame: Ethernet (+ tags) / IPv4 (or IPv6) / TCP to `dst`."""
    inet, inet6, _, _ = _scapy()
    if v6:
        l3 = inet6.IPv6(src=I6_SRC, dst=I6_DST)
    else:
        l3 = inet.IP(src=I4_SRC, dst=dst, **(ip or {}))
    p = _l2(tags) / l3
    if l4:
        p = p / inet.TCP(sport=1234, dport=80) / payload(n)
    else:
        p = p / payload(n)
    return bytes(p) + pad


def cut(frame: bytes, *lengths: int) -> list[bytes]:
    """Prefixes of `frame` (frames that end mid-header)."""
    return [frame[:n] for n in lengths]


def set_bytes(frame: bytes, at: int, data: bytes) -> bytes:
    b = bytearray(frame)
    b[at : at + len(data)] = data
    return bytes(b)


def _ip6_ext():
    _, inet6, _, _ = _scapy()
    return {
        "hop-by-hop options (0)": [inet6.IPv6ExtHdrHopByHop()],
        "routing (43)": [inet6.IPv6ExtHdrRouting()],
        "fragment (44), offset 0": [inet6.IPv6ExtHdrFragment(offset=0, m=0, id=7)],
        "destination options (60)": [inet6.IPv6ExtHdrDestOpt()],
        "hop-by-hop + destination options": [inet6.IPv6ExtHdrHopByHop(), inet6.IPv6ExtHdrDestOpt()],
    }


def _ip_options(ihl: int):
    inet, _, _, _ = _scapy()
    return [inet.IPOption_NOP()] * ((ihl - 5) * 4 - 1) + [inet.IPOption_EOL()]


# Standard frames and their header offsets (no tags): L2 = 14, IPv4 G = 34, GRE K = 38.
def _gre_ok() -> bytes:
    return gre()


def _one_beat_lengths() -> list[int]:
    return [w // 8 for w in WIDTHS]


# ------------------------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------------------------

_ROWS: list[Row] = []


def _row(block, group, rid, case, build, outcome, action, **kw):
    _ROWS.append(Row(f"{_PREFIX[block]}.{rid}", block, group, case, build, outcome, action, **kw))


_PREFIX = {"gre_decap": "gre", "vxlan_decap": "vxd", "vxlan_encap": "vxe", "geneve_decap": "gnv"}

GROUPS = (
    "Reference frames",
    "Truncated at a header boundary",
    "Bad length fields",
    "IPv4 header: version, IHL, options",
    "Fragments",
    "Checksums",
    "GRE flags and version",
    "VXLAN flags and reserved bits",
    "Geneve version, flags and options",
    "VNI table, ECN and policy",
    "IPv6 extension headers",
    "VLAN / QinQ stacks",
    "Runt and jumbo frames",
    "One-beat frames (tlast on the first beat)",
    "MAC RX error and tkeep holes",
)


def _gre_rows() -> None:
    B = "gre_decap"
    R = lambda grp, rid, case, build, oc, act, **kw: _row(B, grp, rid, case, build, oc, act, **kw)  # noqa: E731

    g = "Reference frames"
    R(g, "ok.v4_l3", "Ethernet / IPv4 / GRE / IPv4 (the seed's frame shape)", lambda: [gre()], "DECAP_L3", "decap")
    R(g, "ok.v4_l3_ipv6", "Ethernet / IPv4 / GRE / IPv6", lambda: [gre(inner=inner_ip6())], "DECAP_L3", "decap")
    R(g, "ok.v4_teb", "Ethernet / IPv4 / GRE 0x6558 / Ethernet (TEB, NVGRE)",
      lambda: [gre(g={"proto": 0x6558}, inner=inner_eth())], "DECAP_TEB", "decap")
    R(g, "ok.v6_l3", "Ethernet / IPv6 / GRE / IPv4", lambda: [gre(v6=True)], "DECAP_L3", "decap")
    R(g, "punt.protos", "GRE with a protocol not decapsulated: keepalive 0x0000, ERSPAN 0x88BE and "
      "0x22EB, MPLS 0x8847, PPP 0x880B",
      lambda: [gre(g={"proto": p}, inner=payload(40)) for p in (0x0000, 0x88BE, 0x22EB, 0x8847, 0x880B)],
      "PUNT", "punt")
    R(g, "pass.other", "not GRE: IPv4/TCP, IPv4/UDP, IPv6/TCP, ARP",
      lambda: _gre_non_tunnel(), "PASS", "pass")

    g = "Truncated at a header boundary"
    full = lambda: gre()  # noqa: E731  14 + 20 + 4 + 20 + 20 + 32 = 110 bytes
    R(g, "trunc.eth", "ends inside the Ethernet header (1, 6, 12, 13 bytes)",
      lambda: cut(full(), 1, 6, 12, 13), "PASS", "pass")
    R(g, "trunc.vlan", "ends inside an 802.1Q tag (15, 17 bytes)",
      lambda: cut(gre(tags=[(0x8100, 5)]), 15, 17), "PASS", "pass")
    R(g, "trunc.vlan2", "ends inside the second tag of a QinQ stack (19, 21 bytes)",
      lambda: cut(gre(tags=[(0x88A8, 5), (0x8100, 6)]), 19, 21), "PASS", "pass")
    R(g, "trunc.ipv4_pre_proto", "ends inside the IPv4 header before its protocol byte (L2+1 .. L2+9)",
      lambda: cut(full(), *range(15, 24)), "PASS", "pass")
    R(g, "trunc.ipv4_post_proto", "ends inside the IPv4 header after its protocol byte (L2+10 .. L2+19)",
      lambda: cut(full(), *range(24, 34)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.ipv4_options", "ends inside IPv4 options (IHL 8: L2+20 .. L2+31)",
      lambda: cut(gre(ip={"options": _ip_options(8)}), *range(34, 46)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.ipv6_pre_nh", "ends inside the IPv6 header before its next-header byte (L2+1 .. L2+6)",
      lambda: cut(gre(v6=True), *range(15, 21)), "PASS", "pass")
    R(g, "trunc.ipv6_post_nh", "ends inside the IPv6 header after its next-header byte (L2+7 .. L2+39)",
      lambda: cut(gre(v6=True), *range(21, 54)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.gre_base", "ends inside the GRE flags / protocol word (G+1 .. G+3)",
      lambda: cut(full(), 35, 36, 37), "DROP_TRUNCATED", "drop")
    R(g, "trunc.gre_csum", "ends inside the GRE checksum field, C = 1 (G+4 .. G+7)",
      lambda: cut(gre(g={"chksum_present": 1}), 38, 39, 40, 41), "DROP_TRUNCATED", "drop")
    R(g, "trunc.gre_key", "ends inside the GRE key field, K = 1 (G+4 .. G+7)",
      lambda: cut(gre(g={"key_present": 1, "key": 0x01020304}), 38, 39, 40, 41), "DROP_TRUNCATED", "drop")
    R(g, "trunc.gre_seq", "ends inside the GRE sequence number field, S = 1 (G+4 .. G+7)",
      lambda: cut(gre(g={"seqnum_present": 1, "sequence_number": 9}), 38, 39, 40, 41),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.gre_ckS_last", "ends inside the last optional field of C + K + S (G+12 .. G+15)",
      lambda: cut(gre(g={"chksum_present": 1, "key_present": 1, "key": 7, "seqnum_present": 1,
                         "sequence_number": 9}), 46, 47, 48, 49), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_ipv4", "ends inside the inner IPv4 header (K+1 .. K+19); its IP length says more",
      lambda: cut(full(), *range(39, 58)), "DROP_TRUNCATED", "drop/abort")
    R(g, "trunc.inner_ipv4_ecn", "ends inside the inner IPv4 header while the outer ECN is CE "
      "(its TOS/checksum must be read: K+1 .. K+11)",
      lambda: cut(gre(ip={"tos": 3}, inner=inner_ip4(tos=2)), *range(39, 50)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_eth", "ends inside the inner Ethernet header of a TEB payload (K+1 .. K+13)",
      lambda: cut(gre(g={"proto": 0x6558}, inner=inner_eth()), *range(39, 52)), "DROP_TRUNCATED", "drop/abort")
    R(g, "trunc.payload", "ends inside the payload (1 and 20 bytes short of the IP length)",
      lambda: cut(full(), 109, 90), "DROP_TRUNCATED", "drop/abort")

    g = "Bad length fields"
    R(g, "len.ipv4_lt_ihl", "IPv4 total length < IHL*4 (0, 10, 19)",
      lambda: [gre(ip={"len": n}) for n in (0, 10, 19)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_no_gre", "IPv4 total length covers less than the GRE base header (20 .. 23)",
      lambda: [gre(ip={"len": n}) for n in (20, 21, 22, 23)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_lt_gre_opts", "IPv4 total length shorter than the GRE header its C/K/S flags "
      "announce (K = 1, S = 1: 24 .. 31)",
      lambda: [gre(ip={"len": n}, g={"key_present": 1, "key": 5, "seqnum_present": 1, "sequence_number": 1})
               for n in (24, 27, 28, 31)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_gt_frame", "IPv4 total length larger than the frame (+1, +100, 65535)",
      lambda: [gre(ip={"len": n}) for n in (97, 196, 65535)], "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv4_lt_frame", "IPv4 total length smaller than the frame (Ethernet padding, 1 and 40 "
      "trailing bytes): output stops at the IP end",
      lambda: [gre(pad=b"\x00"), gre(pad=payload(40, 9))], "DECAP_L3", "decap")
    R(g, "len.ecn_inner_cut", "outer ECN CE, IPv4 total length ends inside the inner IPv4 header",
      lambda: [gre(ip={"tos": 3, "len": 20 + 4 + 8}, inner=inner_ip4(tos=2))], "DROP_TRUNCATED", "drop")
    R(g, "len.teb_short", "TEB payload shorter than an Ethernet header by the IP length (10 bytes)",
      lambda: [gre(ip={"len": 20 + 4 + 10}, g={"proto": 0x6558}, inner=inner_eth())], "DROP_TRUNCATED", "drop")
    R(g, "len.ipv6_lt_gre", "IPv6 payload length < 4 (0 .. 3)",
      lambda: [gre(v6=True, ip={"plen": n}) for n in (0, 1, 2, 3)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv6_gt_frame", "IPv6 payload length larger than the frame (+1, 65535)",
      lambda: [gre(v6=True, ip={"plen": n}) for n in (77, 65535)], "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv6_lt_frame", "IPv6 payload length smaller than the frame (padding): output stops at the IP end",
      lambda: [gre(v6=True, pad=payload(7))], "DECAP_L3", "decap")
    R(g, "len.gre_ks_lie", "GRE K and S flags set but the fields absent: the payload is taken from "
      "8 bytes further (undetectable; decapsulated as the header says)",
      lambda: [gre(g=bytes.fromhex("30000800"))], "DECAP_L3", "decap")
    R(g, "len.gre_c_lie", "GRE C flag set but no checksum field: the checksum check fails late",
      lambda: [gre(g=bytes.fromhex("80000800"))], "DROP_GRE_CHECKSUM", "abort")

    g = "IPv4 header: version, IHL, options"
    R(g, "ihl.lt5", "IHL 0 .. 4", lambda: [gre(ip={"ihl": n}) for n in range(5)], "DROP_IP_HEADER", "drop")
    R(g, "ver.not4", "EtherType 0x0800, protocol 47, version 0, 5, 6, 15",
      lambda: [gre(ip={"version": v}) for v in (0, 5, 6, 15)], "DROP_IP_HEADER", "drop")
    R(g, "ihl.options", "IPv4 options, IHL 6 .. 15 (NOPs + EOL): decapsulated, options removed",
      lambda: [gre(ip={"options": _ip_options(n)}) for n in range(6, 16)], "DECAP_L3", "decap")

    g = "Fragments"
    R(g, "frag.mf", "MF = 1, offset 0 (first fragment)", lambda: [gre(ip={"flags": "MF"})],
      "DROP_FRAGMENT", "drop")
    R(g, "frag.offset", "offset 1, 185, 8191 (MF = 0 and 1)",
      lambda: [gre(ip={"frag": o, "flags": f}) for o in (1, 185, 8191) for f in (0, "MF")],
      "DROP_FRAGMENT", "drop")
    R(g, "frag.df", "DF = 1 (not a fragment)", lambda: [gre(ip={"flags": "DF"})], "DECAP_L3", "decap")

    g = "Checksums"
    R(g, "csum.ipv4_bad", "outer IPv4 header checksum wrong (0x0000, 0xFFFF, off by one)",
      lambda: _bad_ipv4_csum(gre()), "DROP_IP_CHECKSUM", "drop")
    R(g, "csum.gre_ok", "GRE checksum present and right (C = 1; with K, S)",
      lambda: [gre(g={"chksum_present": 1}),
               gre(g={"chksum_present": 1, "key_present": 1, "key": 3, "seqnum_present": 1, "sequence_number": 4})],
      "DECAP_L3", "decap")
    R(g, "csum.gre_bad", "GRE checksum wrong (C = 1): known at the frame's end",
      lambda: [gre(g={"chksum_present": 1, "chksum": 0x1234}), gre(g={"chksum_present": 1, "chksum": 0})],
      "DROP_GRE_CHECKSUM", "abort")
    R(g, "csum.inner_bad", "inner IPv4 header and TCP checksums wrong: not checked, forwarded as they are",
      lambda: [gre(inner=_bad_inner())], "DECAP_L3", "decap")

    g = "GRE flags and version"
    for bits in range(16):
        c, r, k, s = bits >> 3 & 1, bits >> 2 & 1, bits >> 1 & 1, bits & 1
        name = "".join(n for n, v in zip("CRKS", (c, r, k, s)) if v) or "none"
        R(g, f"flags.{name}", f"version 0, flags C={c} R={r} K={k} S={s}",
          (lambda c=c, r=r, k=k, s=s: [_gre_flags(c, r, k, s, 0)]),
          "DROP_GRE_HEADER" if r else "DECAP_L3", "drop" if r else "decap")
    for ver in range(1, 8):
        R(g, f"version.{ver}", f"version {ver}, each of the 16 C/R/K/S combinations",
          (lambda ver=ver: [_gre_flags(b >> 3 & 1, b >> 2 & 1, b >> 1 & 1, b & 1, ver) for b in range(16)]),
          "DROP_GRE_HEADER", "drop")
    R(g, "flags.reserved", "version 0, one reserved flag bit set (bit 11 = s, 10 .. 8 = recursion, 7 .. 3)",
      lambda: [_gre_reserved_bit(b) for b in range(3, 12)], "DROP_GRE_HEADER", "drop")
    R(g, "flags.pptp", "enhanced GRE (PPTP: version 1, K = 1, protocol 0x880B)",
      lambda: [gre(g={"version": 1, "key_present": 1, "key": 0x00400001, "proto": 0x880B}, inner=payload(30))],
      "DROP_GRE_HEADER", "drop")

    g = "IPv6 extension headers"
    for i, (name, ext) in enumerate(_ip6_ext().items()):
        R(g, f"ip6ext.{i}", f"outer IPv6, {name} before GRE: not parsed", (lambda name=name: [
            gre(v6=True, ext=_ip6_ext()[name])]), "PASS", "pass")
    R(g, "ip6.version", "EtherType 0x86DD, next header 47, version 4 and 0",
      lambda: [set_bytes(gre(v6=True), 14, bytes([v << 4])) for v in (4, 0)], "DROP_IP_HEADER", "drop")

    g = "VLAN / QinQ stacks"
    R(g, "vlan.one", "one tag (0x8100, 0x88A8): kept, EtherType replaced",
      lambda: [gre(tags=[(0x8100, 10)]), gre(tags=[(0x88A8, 10)])], "DECAP_L3", "decap")
    R(g, "vlan.two", "two tags (0x88A8 + 0x8100, 0x8100 + 0x8100), outer IPv4 and IPv6",
      lambda: [gre(tags=[(0x88A8, 10), (0x8100, 20)]), gre(tags=[(0x8100, 10), (0x8100, 20)]),
               gre(tags=[(0x88A8, 10), (0x8100, 20)], v6=True)], "DECAP_L3", "decap")
    R(g, "vlan.three", "three tags: not parsed",
      lambda: [gre(tags=[(0x88A8, 1), (0x8100, 2), (0x8100, 3)])], "PASS", "pass")
    R(g, "vlan.non_ip", "tagged ARP and tagged IPv4/TCP", lambda: _tagged_non_gre(), "PASS", "pass")

    g = "Runt and jumbo frames"
    R(g, "runt.plain", "runt non-tunnel frames of 1 .. 59 bytes (prefixes of Ethernet/IPv4/TCP)",
      lambda: cut(plain(n=40), *range(1, 60)), "PASS", "pass")
    R(g, "runt.gre", "runt GRE frames: 58 bytes (inner IPv4 header only), 42 bytes (protocol 0x0800, "
      "4-byte payload)", lambda: [gre(inner=_bare_ip4()), gre(g={"proto": 0x0800}, inner=payload(4))],
      "DECAP_L3", "decap")
    R(g, "runt.gre_padded", "a 42-byte GRE frame padded to 60 bytes",
      lambda: [gre(g={"proto": 0x0800}, inner=payload(4), pad=bytes(18))], "DECAP_L3", "decap")
    R(g, "jumbo.gre", "9600-byte and 16 000-byte GRE frames (IPv4 payload)",
      lambda: [_gre_sized(9600), _gre_sized(16000)], "DECAP_L3", "decap")
    R(g, "jumbo.gre_teb", "9600-byte GRE frame (Ethernet payload)", lambda: [_gre_sized(9600, teb=True)],
      "DECAP_TEB", "decap")
    R(g, "jumbo.plain", "9600-byte non-tunnel frame", lambda: [plain(n=9600 - 54)], "PASS", "pass")

    g = "One-beat frames (tlast on the first beat)"
    R(g, "beat1.plain", "non-tunnel frames of exactly one beat at each width (8, 16, 32, 64 bytes)",
      lambda: cut(plain(n=40), *_one_beat_lengths()), "PASS", "pass")
    R(g, "beat1.gre", "a whole GRE frame in one 512-bit beat (64 bytes)", lambda: [gre(inner=_bare_ip4(6))],
      "DECAP_L3", "decap")
    R(g, "beat1.gre_cut", "the first 64 bytes of a 110-byte GRE frame (one 512-bit beat)",
      lambda: cut(gre(), 64), "DROP_TRUNCATED", "drop/abort")

    _rx_rows(B, lambda: gre(), lambda: plain(), "DECAP_L3")


def _vxd_rows() -> None:
    B = "vxlan_decap"
    R = lambda grp, rid, case, build, oc, act, **kw: _row(B, grp, rid, case, build, oc, act, **kw)  # noqa: E731

    g = "Reference frames"
    R(g, "ok.v4", "Ethernet / IPv4 / UDP 4789 / VXLAN / Ethernet / IPv4 (UDP checksum right)",
      lambda: [vx()], "DECAP", "decap")
    R(g, "ok.v6", "outer IPv6 (UDP checksum right)", lambda: [vx(v6=True)], "DECAP", "decap")
    R(g, "ok.inner", "inner IPv6, inner ARP-sized frame", lambda: [vx(inner=_eth_over(inner_ip6())), vx(inner=_arp())],
      "DECAP", "decap")
    R(g, "pass.other", "not VXLAN: IPv4/TCP, UDP to port 53, to 8472 (PORT2 off), IPv6/TCP, ARP",
      lambda: _vx_non_tunnel(), "PASS", "pass")

    g = "Truncated at a header boundary"
    full = lambda: vx()  # noqa: E731  14+20+8+8+14+20+20+32 = 136 bytes; U = 34, K = 50
    R(g, "trunc.eth", "ends inside the Ethernet header (1, 6, 12, 13 bytes)", lambda: cut(full(), 1, 6, 12, 13),
      "PASS", "pass")
    R(g, "trunc.vlan", "ends inside an 802.1Q tag / the second tag of QinQ (15, 17; 19, 21 bytes)",
      lambda: cut(vx(tags=[(0x8100, 5)]), 15, 17) + cut(vx(tags=[(0x88A8, 5), (0x8100, 6)]), 19, 21),
      "PASS", "pass")
    R(g, "trunc.ipv4", "ends inside the outer IPv4 header (L2+1 .. L2+19)", lambda: cut(full(), *range(15, 34)),
      "PASS", "pass")
    R(g, "trunc.ipv4_options", "ends inside IPv4 options (IHL 8: L2+20 .. L2+31)",
      lambda: cut(vx(ip={"options": _ip_options(8)}), *range(34, 46)), "PASS", "pass")
    R(g, "trunc.ipv6", "ends inside the outer IPv6 header (L2+1 .. L2+39)", lambda: cut(vx(v6=True), *range(15, 54)),
      "PASS", "pass")
    R(g, "trunc.udp_ports", "ends inside the UDP ports (U+1 .. U+3)", lambda: cut(full(), 35, 36, 37), "PASS", "pass")
    R(g, "trunc.udp_len", "ends inside the UDP length / checksum (U+4 .. U+7)", lambda: cut(full(), 38, 39, 40, 41),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.vxlan", "ends inside the VXLAN header (U+8 .. U+15)", lambda: cut(full(), *range(42, 50)),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_eth", "ends inside the inner Ethernet header (K+1 .. K+13)", lambda: cut(full(), *range(51, 64)),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_ipv4_ecn", "ends inside the inner IPv4 header while the outer ECN is CE (K+15 .. K+25)",
      lambda: cut(vx(ip={"tos": 3}, inner=_eth_over(inner_ip4(tos=2))), *range(65, 76)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner", "ends inside the inner IPv4 header or payload (outer ECN not set)",
      lambda: cut(full(), 70, 100, 135), "DROP_TRUNCATED", "drop/abort")

    g = "Bad length fields"
    R(g, "len.ipv4_small", "IPv4 total length < IHL*4 + 16 (0, 20, 35)",
      lambda: [vx(ip={"len": n}) for n in (0, 20, 35)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_big_udp_ok", "IPv4 total length and UDP length both larger than the frame (+1, +200)",
      lambda: [vx(ip={"len": 122 + d}, udp={"len": 102 + d, "chksum": 0}) for d in (1, 200)],
      "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv4_big", "IPv4 total length larger than the frame, UDP length right", lambda: [vx(ip={"len": 200})],
      "DROP_IP_HEADER", "drop")
    R(g, "len.udp", "UDP length ≠ IP end − UDP start (0, 8, −1, +1, 65535)",
      lambda: [vx(udp={"len": n}) for n in (0, 8, 101, 103, 65535)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_lt_frame", "IP end before the frame's end (Ethernet padding, 1 and 40 bytes): output stops there",
      lambda: [vx(pad=b"\x00"), vx(pad=payload(40, 5))], "DECAP", "decap")
    R(g, "len.inner_short", "IP end leaves fewer than 14 bytes of inner frame (10 bytes)",
      lambda: [vx(inner=payload(10))], "DROP_TRUNCATED", "drop")
    R(g, "len.ipv6_small", "IPv6 payload length < 16 (0, 8, 15)", lambda: [vx(v6=True, ip={"plen": n}) for n in (0, 8, 15)],
      "DROP_IP_HEADER", "drop")
    R(g, "len.ipv6_big", "IPv6 payload length and UDP length larger than the frame (+1)",
      lambda: [vx(v6=True, ip={"plen": 103}, udp={"len": 103, "chksum": 0})], "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv6_udp", "IPv6 payload length ≠ UDP length", lambda: [vx(v6=True, ip={"plen": 101})],
      "DROP_IP_HEADER", "drop")

    g = "IPv4 header: version, IHL, options"
    R(g, "ihl.lt5", "IHL 0 .. 4: not VXLAN", lambda: [vx(ip={"ihl": n}) for n in range(5)], "PASS", "pass")
    R(g, "ver.not4", "EtherType 0x0800, version 0, 5, 6, 15: not VXLAN",
      lambda: [vx(ip={"version": v}) for v in (0, 5, 6, 15)], "PASS", "pass")
    R(g, "ihl.options", "IPv4 options, IHL 6 .. 15 (NOPs + EOL)",
      lambda: [vx(ip={"options": _ip_options(n)}) for n in range(6, 16)], "DECAP", "decap")

    g = "Fragments"
    R(g, "frag.mf", "MF = 1, offset 0 (first fragment)", lambda: [vx(ip={"flags": "MF"})], "DROP_FRAGMENT", "drop")
    R(g, "frag.offset", "offset ≠ 0 (1, 185, 8191; MF = 0 and 1): not the first fragment, no UDP header: not VXLAN",
      lambda: [vx(ip={"frag": o, "flags": f}) for o in (1, 185, 8191) for f in (0, "MF")], "PASS", "pass")
    R(g, "frag.df", "DF = 1", lambda: [vx(ip={"flags": "DF"})], "DECAP", "decap")

    g = "Checksums"
    R(g, "csum.ipv4_bad", "outer IPv4 header checksum wrong (0x0000, 0xFFFF, off by one)",
      lambda: _bad_ipv4_csum(vx()), "DROP_IP_CHECKSUM", "drop")
    R(g, "csum.udp_zero", "UDP checksum 0 (not computed), outer IPv4 and IPv6",
      lambda: [vx(udp={"chksum": 0}), vx(v6=True, udp={"chksum": 0})], "DECAP", "decap")
    R(g, "csum.udp_bad", "UDP checksum wrong, outer IPv4 and IPv6: known at the frame's end",
      lambda: [vx(udp={"chksum": 0x1234}), vx(v6=True, udp={"chksum": 0xFFFF})], "DROP_UDP_CHECKSUM", "abort")
    R(g, "csum.inner_bad", "inner IPv4 header and TCP checksums wrong: not checked",
      lambda: [vx(inner=_eth_over(_bad_inner()))], "DECAP", "decap")

    g = "VXLAN flags and reserved bits"
    R(g, "flags.no_i", "I flag clear (flags 0x00, 0xF7)",
      lambda: [vx(hdr={"flags": 0x00}), vx(hdr={"flags": 0xF7})], "DROP_VXLAN_FLAGS", "drop")
    R(g, "flags.no_i_strict", "I flag clear (flags 0x00), strict mode",
      lambda: [vx(hdr={"flags": 0x00})], "DROP_VXLAN_FLAGS", "drop", config="strict")
    R(g, "flags.i_only_strict", "flags 0x08, reserved fields zero, strict mode", lambda: [vx()], "DECAP", "decap",
      config="strict")
    for cfg, oc, act in (("default", "DECAP", "decap"), ("strict", "DROP_VXLAN_RESERVED", "drop")):
        sfx = "" if cfg == "default" else "_strict"
        mode = "ignored (RFC 7348)" if cfg == "default" else "strict mode"
        R(g, f"rsvd.flags{sfx}", f"I flag and one other flag bit (0x01 .. 0x80), {mode}",
          lambda: [vx(hdr={"flags": 0x08 | 1 << b}) for b in range(8) if b != 3], oc, act, config=cfg)
        R(g, f"rsvd.bytes123{sfx}", f"one bit of the reserved bytes 1 .. 3 set (24 frames), {mode}",
          lambda: [vx(hdr={"reserved1": 1 << b}) for b in range(24)], oc, act, config=cfg)
        R(g, f"rsvd.byte7{sfx}", f"one bit of the reserved byte 7 set (8 frames), {mode}",
          lambda: [vx(hdr={"reserved2": 1 << b}) for b in range(8)], oc, act, config=cfg)
        R(g, f"rsvd.all{sfx}", f"every reserved bit set with I (ff ffffff .. ff), {mode}",
          lambda: [vx(hdr={"flags": 0xFF, "reserved0": 0xFFFF, "NextProtocol": 0xFF, "reserved2": 0xFF})],
          oc, act, config=cfg)

    g = "IPv6 extension headers"
    for i, (name, ext) in enumerate(_ip6_ext().items()):
        R(g, f"ip6ext.{i}", f"outer IPv6, {name} before UDP: not parsed, not VXLAN",
          (lambda name=name: [vx(v6=True, ext=_ip6_ext()[name])]), "PASS", "pass")

    g = "VLAN / QinQ stacks"
    R(g, "vlan.one", "one tag (0x8100, 0x88A8)", lambda: [vx(tags=[(0x8100, 10)]), vx(tags=[(0x88A8, 10)])],
      "DECAP", "decap")
    R(g, "vlan.two", "two tags (0x88A8 + 0x8100, 0x8100 + 0x8100), outer IPv4 and IPv6",
      lambda: [vx(tags=[(0x88A8, 10), (0x8100, 20)]), vx(tags=[(0x8100, 10), (0x8100, 20)]),
               vx(tags=[(0x88A8, 10), (0x8100, 20)], v6=True)], "DECAP", "decap")
    R(g, "vlan.three", "three tags: not parsed", lambda: [vx(tags=[(0x88A8, 1), (0x8100, 2), (0x8100, 3)])],
      "PASS", "pass")
    R(g, "vlan.inner", "inner frame with an 802.1Q tag, and with QinQ: forwarded as they are",
      lambda: [vx(inner=_eth_over(inner_ip4(), tags=[(0x8100, 7)])),
               vx(inner=_eth_over(inner_ip4(), tags=[(0x88A8, 7), (0x8100, 8)]))], "DECAP", "decap")

    g = "Runt and jumbo frames"
    R(g, "runt.plain", "runt non-tunnel frames of 1 .. 59 bytes", lambda: cut(plain(n=40), *range(1, 60)), "PASS", "pass")
    R(g, "runt.inner", "inner frame of 14 bytes (an Ethernet header only): a 14-byte output",
      lambda: [vx(inner=_bare_eth())], "DECAP", "decap")
    R(g, "jumbo.vxlan", "9600-byte VXLAN frame (outer IPv4, IPv6)", lambda: [_vx_sized(9600), _vx_sized(9600, v6=True)],
      "DECAP", "decap")
    R(g, "jumbo.plain", "9600-byte non-tunnel frame", lambda: [plain(n=9600 - 54)], "PASS", "pass")

    g = "One-beat frames (tlast on the first beat)"
    R(g, "beat1.plain", "non-tunnel frames of exactly one beat at each width (8, 16, 32, 64 bytes)",
      lambda: cut(plain(n=40), *_one_beat_lengths()), "PASS", "pass")
    R(g, "beat1.vxlan", "a whole VXLAN frame in one 512-bit beat (64 bytes: 14-byte inner frame)",
      lambda: [vx(inner=_bare_eth())], "DECAP", "decap")
    R(g, "beat1.vxlan_cut", "the first 64 bytes of a 136-byte VXLAN frame (one 512-bit beat)",
      lambda: cut(vx(), 64), "DROP_TRUNCATED", "drop/abort")

    _rx_rows(B, lambda: vx(), lambda: plain(), "DECAP")


def _vxe_rows() -> None:
    B = "vxlan_encap"
    R = lambda grp, rid, case, build, oc, act, **kw: _row(B, grp, rid, case, build, oc, act, **kw)  # noqa: E731

    g = "Reference frames"
    R(g, "ok.hit", "IPv4/TCP to a tunnelled destination (untagged; VLAN 100, tag removed)",
      lambda: [host(), host(tags=[(0x8100, 100)])], "ENCAP", "encap")
    R(g, "miss", "IPv4 to a destination without a tunnel; VLAN 7 to the tunnelled address",
      lambda: [host(dst=TUN_MISS), host(tags=[(0x8100, 7)])], "PASS_MISS", "pass")
    R(g, "not_ipv4", "IPv6, ARP", lambda: [host(v6=True), _arp()], "PASS_NOT_IPV4", "pass")

    g = "Truncated at a header boundary"
    R(g, "trunc.eth", "ends inside the Ethernet header (1, 6, 12, 13 bytes)", lambda: cut(host(), 1, 6, 12, 13),
      "PASS_NOT_IPV4", "pass")
    R(g, "trunc.vlan", "ends inside the 802.1Q tag (14 .. 17 bytes)", lambda: cut(host(tags=[(0x8100, 100)]), 14, 15, 16, 17),
      "PASS_NOT_IPV4", "pass")
    R(g, "trunc.ipv4", "ends inside the IPv4 header (15 .. 33 bytes)", lambda: cut(host(), *range(15, 34)),
      "PASS_NOT_IPV4", "pass")
    R(g, "trunc.l4", "ends after the IPv4 header, inside or before the TCP ports (34 .. 37 bytes): "
      "encapsulated, flow hash ports 0", lambda: cut(host(), 34, 35, 36, 37), "ENCAP", "encap")
    R(g, "trunc.payload", "ends inside the TCP header or payload (its IP length says more)",
      lambda: cut(host(), 40, 60, 85), "ENCAP", "encap")

    g = "Bad length fields"
    R(g, "len.ipv4", "inner IPv4 total length 0, too small, too large: not checked, the outer lengths "
      "come from the frame", lambda: [host(ip={"len": n}) for n in (0, 19, 200, 65535)], "ENCAP", "encap")
    R(g, "len.padded", "frame longer than its IP packet (Ethernet padding)", lambda: [host(pad=bytes(20))],
      "ENCAP", "encap")

    g = "IPv4 header: version, IHL, options"
    R(g, "ihl.lt5", "IHL 0 .. 4", lambda: [host(ip={"ihl": n}) for n in range(5)], "PASS_NOT_IPV4", "pass")
    R(g, "ver.not4", "EtherType 0x0800, version 0, 5, 6, 15", lambda: [host(ip={"version": v}) for v in (0, 5, 6, 15)],
      "PASS_NOT_IPV4", "pass")
    R(g, "ihl.options", "IPv4 options, IHL 6 .. 15: the flow hash reads the ports after the options",
      lambda: [host(ip={"options": _ip_options(n)}) for n in range(6, 16)], "ENCAP", "encap")

    g = "Fragments"
    R(g, "frag", "MF = 1, offset ≠ 0: encapsulated, flow hash ports 0",
      lambda: [host(ip={"flags": "MF"}), host(ip={"frag": 185}), host(ip={"frag": 185, "flags": "MF"})],
      "ENCAP", "encap")

    g = "Checksums"
    R(g, "csum.inner_bad", "inner IPv4 header and TCP checksums wrong: not checked, encapsulated as they are",
      lambda: [_eth_over(_bad_inner(), raw=True)], "ENCAP", "encap")

    g = "IPv6 extension headers"
    R(g, "ip6ext", "IPv6 with hop-by-hop / routing / fragment / destination options headers",
      lambda: _host_ip6_ext(), "PASS_NOT_IPV4", "pass")

    g = "VLAN / QinQ stacks"
    R(g, "vlan.hit", "802.1Q VLAN 100, priority bits set: the key is the VLAN ID, the tag is removed",
      lambda: [_host_tci(100 | 5 << 13)], "ENCAP", "encap")
    R(g, "vlan.prio0", "priority tag (VLAN 0): a tagged key that has no tunnel", lambda: [host(tags=[(0x8100, 0)])],
      "PASS_MISS", "pass")
    R(g, "vlan.other", "0x88A8 outer tag, QinQ (0x8100 + 0x8100), three tags: not looked up",
      lambda: [host(tags=[(0x88A8, 100)]), host(tags=[(0x8100, 100), (0x8100, 5)]),
               host(tags=[(0x88A8, 1), (0x8100, 2), (0x8100, 3)])], "PASS_NOT_IPV4", "pass")

    g = "Runt and jumbo frames"
    R(g, "runt.short", "runt frames of 1 .. 33 bytes (prefixes of an IPv4 frame to a tunnel)",
      lambda: cut(host(n=40), *range(1, 34)), "PASS_NOT_IPV4", "pass")
    R(g, "runt.hit", "runt IPv4 frames of 34 .. 59 bytes to a tunnel", lambda: cut(host(n=40), *range(34, 60)),
      "ENCAP", "encap")
    R(g, "jumbo.hit", "9600-byte frame to a tunnel (9650 bytes out)", lambda: [host(n=9600 - 54)], "ENCAP", "encap")
    R(g, "jumbo.miss", "9600-byte frame without a tunnel", lambda: [host(dst=TUN_MISS, n=9600 - 54)],
      "PASS_MISS", "pass")
    R(g, "jumbo.fifo", "33 000-byte frame: longer than the 32 KiB store-and-forward FIFO",
      lambda: [host(n=33000 - 54)], "DROP_OVERSIZE", "drop")

    g = "One-beat frames (tlast on the first beat)"
    R(g, "beat1.plain", "frames of exactly one beat at each width (8, 16, 32 bytes: no IPv4 header)",
      lambda: cut(host(), 8, 16, 32), "PASS_NOT_IPV4", "pass")
    R(g, "beat1.hit", "a 64-byte IPv4 frame to a tunnel (one 512-bit beat)", lambda: cut(host(n=40), 64),
      "ENCAP", "encap")

    _rx_rows(B, lambda: host(), lambda: host(dst=TUN_MISS), "ENCAP")


# ---- bus-only rows: MAC RX error and tkeep holes ---------------------------------------------------


def _with(beats: list[Beat], i: int, **kw) -> list[Beat]:
    b = beats[i]
    out = list(beats)
    out[i] = Beat(kw.get("data", b.data), kw.get("keep", b.keep), kw.get("last", b.last), kw.get("user", b.user))
    return out


def _hole_nonlast(frame: bytes, kw: int) -> list[list[Beat]]:
    """A hole in a beat before the last: byte 2 of beat 0; the top byte of the next-to-last beat;
    a beat with no byte at all."""
    bs = split_beats(frame, kw)
    full = (1 << kw) - 1
    out = [_with(bs, 0, keep=full & ~(1 << min(2, kw - 1)))]
    if len(bs) > 2:
        out.append(_with(bs, len(bs) - 2, keep=full >> 1))
        out.append(_with(bs, 1, keep=0))
    return out


def _hole_last(frame: bytes, kw: int) -> list[list[Beat]]:
    """The last beat's tkeep not 0..01..1: the frame cut so that its last beat holds
    min(4, KEEP_W) bytes, with its byte 2 off (0b1011 on 4 bytes), or with only the beat's top
    tkeep bit set."""
    n = min(4, kw)
    rest = len(frame) % kw or kw
    f = frame[: len(frame) - rest + n] if rest >= n else frame[: len(frame) - rest - kw + n]
    bs = split_beats(f, kw)
    k = bs[-1].keep
    out = [_with(bs, len(bs) - 1, keep=1 << (kw - 1))] if kw > 1 else []
    if n >= 3:
        out.insert(0, _with(bs, len(bs) - 1, keep=k & ~0b100))
    return out


def _keep0_last(frame: bytes, kw: int) -> list[list[Beat]]:
    """An extra last beat with tkeep = 0 after the frame's bytes."""
    full = (1 << kw) - 1
    pad = frame + bytes(-len(frame) % kw)
    bs = [Beat(b.data, full, False) for b in split_beats(pad, kw)]
    return [bs + [Beat(bytes(kw), 0, True)]]


def _keep0_single(kw: int) -> list[list[Beat]]:
    """tlast on the first beat and no byte (tkeep = 0)."""
    return [[Beat(payload(kw), 0, True)]]


def _rx_error(frame: bytes, kw: int) -> list[list[Beat]]:
    bs = split_beats(frame, kw)
    return [_with(bs, len(bs) - 1, user=True)]


def _rx_rows(B: str, tunnel: Callable[[], bytes], other: Callable[[], bytes], good: str) -> None:
    g = "MAC RX error and tkeep holes"
    hole_note = "tkeep hole: treated exactly as tuser = 1 on the last beat"
    _row(B, g, "rx.tuser", "tuser = 1 on the last beat of a frame the block would forward",
         lambda kw: _rx_error(tunnel(), kw) + _rx_error(other(), kw), "DROP_RX_ERROR",
         "drop" if B == "vxlan_encap" else "drop/abort", bus="axis")
    _row(B, g, "rx.tuser_one_beat", "tuser = 1 on a one-beat frame (tlast on the first beat)",
         lambda kw: _rx_error(other()[: min(kw, 8)], kw), "DROP_RX_ERROR", "drop", bus="axis")
    _row(B, g, "keep.nonlast", "a beat before the last with tkeep not all ones (one byte off; "
         "the top byte off; no byte)", lambda kw: _hole_nonlast(tunnel(), kw) + _hole_nonlast(other(), kw),
         "DROP_RX_ERROR", "drop" if B == "vxlan_encap" else "drop/abort", bus="axis", note=hole_note)
    _row(B, g, "keep.last_gap", "the last beat's tkeep not contiguous from bit 0 (e.g. 0b1011; only the top bit)",
         lambda kw: _hole_last(tunnel(), kw) + _hole_last(other(), kw), "DROP_RX_ERROR",
         "drop" if B == "vxlan_encap" else "drop/abort", bus="axis", note=hole_note)
    _row(B, g, "keep.last_zero", "an extra last beat with tkeep = 0", lambda kw: _keep0_last(tunnel(), kw),
         "DROP_RX_ERROR", "drop" if B == "vxlan_encap" else "drop/abort", bus="axis", note=hole_note)
    _row(B, g, "keep.single_zero", "tlast on the first beat with tkeep = 0 (a frame of no byte): "
         "counted as a 1-byte frame", lambda kw: _keep0_single(kw), "DROP_RX_ERROR", "drop", bus="axis",
         note=hole_note)


# ---- helpers of the builders ------------------------------------------------------------------------


def _gre_flags(c: int, r: int, k: int, s: int, ver: int) -> bytes:
    gkw = {"chksum_present": c, "routing_present": r, "key_present": k, "seqnum_present": s, "version": ver}
    if k:
        gkw["key"] = 0x0A0B0C0D
    if s:
        gkw["sequence_number"] = 17
    return gre(g=gkw)


def _gre_reserved_bit(bit: int) -> bytes:
    b = 1 << bit
    return gre(g={"strict_route_source": b >> 11 & 1, "recursion_control": b >> 8 & 7, "flags": b >> 3 & 0x1F})


def _bad_ipv4_csum(frame: bytes, L2: int = 14) -> list[bytes]:
    good = frame[L2 + 10] << 8 | frame[L2 + 11]
    out = []
    for v in (0x0000, 0xFFFF, (good + 1) & 0xFFFF):
        if v != good:
            out.append(set_bytes(frame, L2 + 10, v.to_bytes(2, "big")))
    return out


def _bad_inner():
    inet, _, _, _ = _scapy()
    return inet.IP(src=I4_SRC, dst=I4_DST, chksum=0xBAD0) / inet.TCP(sport=1, dport=2, chksum=0x1111) / payload(20)


def _bare_ip4(n: int = 0):
    inet, _, _, _ = _scapy()
    return inet.IP(src=I4_SRC, dst=I4_DST, proto=253) / payload(n)


def _bare_eth():
    _, _, l2, _ = _scapy()
    return l2.Ether(dst="02:00:00:00:01:02", src="02:00:00:00:01:01", type=0x88B5)


def _arp():
    _, _, l2, _ = _scapy()
    return bytes(l2.Ether(dst="ff:ff:ff:ff:ff:ff", src=MAC_S) / l2.ARP(psrc=I4_SRC, pdst=I4_DST))


def _eth_over(l3, tags=(), raw: bool = False):
    """Ethernet (+ tags) over `l3` (an inner frame; bytes when `raw`)."""
    p = _l2(tags) / l3
    return bytes(p) if raw else p


def _gre_non_tunnel() -> list[bytes]:
    inet, inet6, _, _ = _scapy()
    return [plain(), bytes(_l2() / inet.IP(src=O4_SRC, dst=O4_DST) / inet.UDP(sport=1, dport=53) / payload(20)),
            bytes(_l2() / inet6.IPv6(src=O6_SRC, dst=O6_DST) / inet.TCP() / payload(10)), _arp()]


def _vx_non_tunnel() -> list[bytes]:
    inet, inet6, _, _ = _scapy()
    return [plain(), vx(udp={"dport": 53}), vx(udp={"dport": 8472}),
            bytes(_l2() / inet6.IPv6(src=O6_SRC, dst=O6_DST) / inet.TCP() / payload(10)), _arp()]


def _tagged_non_gre() -> list[bytes]:
    _, _, l2, _ = _scapy()
    return [bytes(_l2([(0x8100, 3)]) / l2.ARP(psrc=I4_SRC, pdst=I4_DST)), plain(tags=[(0x8100, 3)])]


def _gre_sized(total: int, teb: bool = False) -> bytes:
    if teb:
        return gre(g={"proto": 0x6558}, inner=inner_eth(total - 14 - 20 - 4 - 14 - 40))
    return gre(inner=inner_ip4(total - 14 - 20 - 4 - 40))


def _vx_sized(total: int, v6: bool = False) -> bytes:
    return vx(v6=v6, inner=inner_eth(total - 14 - (40 if v6 else 20) - 16 - 14 - 40))


def _host_ip6_ext() -> list[bytes]:
    inet, inet6, _, _ = _scapy()
    return [bytes(_l2() / inet6.IPv6(src=I6_SRC, dst=I6_DST) / e[0] / inet.TCP() / payload(8))
            for e in _ip6_ext().values()]


def _host_tci(tci: int) -> bytes:
    inet, _, l2, _ = _scapy()
    return bytes(_l2() / l2.Dot1Q(prio=tci >> 13, vlan=tci & 0xFFF) / inet.IP(src=I4_SRC, dst=TUN_DST) /
                 inet.TCP(sport=1234, dport=80) / payload(20))


def gn(payload=None, *, tags=(), v6: bool = False, ip=None, udp=None, pad: bytes = b"", ext=None,
       vni: int = GN_VNI, **kw) -> bytes:
    """Ethernet (+ tags) / outer IPv4 or IPv6 (+ extension headers) / UDP 6081 / Geneve (VNI 42,
    no options) / inner frame (default Ethernet/IPv4/TCP, protocol type 0x6558) (+ trailing bytes
    after the IP packet). `kw`: the Geneve knobs of `wirespeed.model.geneve_frames.geneve_frame`
    (proto, options, optlen, oam, critical, version, rsvd, rsvd2, udp_csum, dport, ecn)."""
    from wirespeed.model.geneve_frames import geneve_frame

    t = tuple(("ad" if tpid == 0x88A8 else "q", vid) for tpid, vid in tags)
    if ext:
        # IPv6 extension headers before UDP: built here (geneve_frame has none)
        inet, inet6, _, _ = _scapy()
        from scapy.contrib.geneve import GENEVE

        outer = inet6.IPv6(src=O6_SRC, dst=O6_DST)
        for e in ext:
            outer = outer / e
        p = (_l2(tags) / outer / inet.UDP(sport=49152, dport=6081) / GENEVE(vni=vni, proto=0x6558) /
             (inner_eth() if payload is None else payload))
        return bytes(p) + pad
    return geneve_frame(inner_eth() if payload is None else payload, vni=vni, tags=t, v6=v6, ip_kw=ip,
                        udp_kw=udp, pad=pad, **kw).frame


def _gn_sized(total: int, v6: bool = False, options: int = 0) -> bytes:
    return gn(inner_eth(total - 14 - (40 if v6 else 20) - 16 - options - 14 - 40), v6=v6,
              options=options)


def _gn_non_tunnel() -> list[bytes]:
    inet, inet6, _, _ = _scapy()
    return [plain(), bytes(_l2() / inet.IP(src=O4_SRC, dst=O4_DST) / inet.UDP(sport=1, dport=53) / payload(20)),
            vx(), bytes(_l2() / inet.IP(src=O4_SRC, dst=O4_DST) / inet.TCP(sport=1, dport=6081) / payload(20)),
            gn(dport=6082), bytes(_l2() / inet6.IPv6(src=O6_SRC, dst=O6_DST) / inet.TCP() / payload(10)), _arp()]


def _gn_opts(n: int, critical: bool = False) -> list:
    """`n` bytes of Geneve option TLVs (deterministic; `critical`: the first type's critical bit)."""
    import random

    from wirespeed.model.geneve_frames import option_tlvs

    return option_tlvs(n, random.Random(n * 7 + 1), critical=critical)


def _gnv_rows() -> None:
    B = "geneve_decap"
    R = lambda grp, rid, case, build, oc, act, **kw: _row(B, grp, rid, case, build, oc, act, **kw)  # noqa: E731

    g = "Reference frames"
    R(g, "ok.teb", "Ethernet / IPv4 / UDP 6081 / Geneve 0x6558 / Ethernet / IPv4 (UDP checksum right)",
      lambda: [gn()], "DECAP_TEB", "decap")
    R(g, "ok.v6", "outer IPv6 (UDP checksum right)", lambda: [gn(v6=True)], "DECAP_TEB", "decap")
    R(g, "ok.inner", "inner IPv6, inner ARP-sized frame", lambda: [gn(_eth_over(inner_ip6())), gn(_arp())],
      "DECAP_TEB", "decap")
    R(g, "ok.l3", "protocol type 0x0800 (inner IPv4) and 0x86DD (inner IPv6), outer IPv4 and IPv6",
      lambda: [gn(inner_ip4()), gn(inner_ip6()), gn(inner_ip4(), v6=True)], "DECAP_L3", "decap")
    R(g, "punt.proto", "a protocol type not decapsulated: 0x0000, ARP 0x0806, MPLS 0x8847, NSH 0x894F, 0xFFFF",
      lambda: [gn(payload(40), proto=p) for p in (0x0000, 0x0806, 0x8847, 0x894F, 0xFFFF)], "PUNT", "punt")
    R(g, "pass.other", "not Geneve: IPv4/TCP, UDP to port 53, VXLAN (4789), TCP to 6081, Geneve to UDP 6082, "
      "IPv6/TCP, ARP", lambda: _gn_non_tunnel(), "PASS", "pass")

    g = "Truncated at a header boundary"
    full = lambda: gn()  # noqa: E731  14+20+8+8+14+20+20+32 = 136 bytes; U = 34, K = 50
    R(g, "trunc.eth", "ends inside the Ethernet header (1, 6, 12, 13 bytes)", lambda: cut(full(), 1, 6, 12, 13),
      "PASS", "pass")
    R(g, "trunc.vlan", "ends inside an 802.1Q tag / the second tag of QinQ (15, 17; 19, 21 bytes)",
      lambda: cut(gn(tags=[(0x8100, 5)]), 15, 17) + cut(gn(tags=[(0x88A8, 5), (0x8100, 6)]), 19, 21),
      "PASS", "pass")
    R(g, "trunc.ipv4", "ends inside the outer IPv4 header (L2+1 .. L2+19)", lambda: cut(full(), *range(15, 34)),
      "PASS", "pass")
    R(g, "trunc.ipv4_options", "ends inside IPv4 options (IHL 8: L2+20 .. L2+31)",
      lambda: cut(gn(ip={"options": _ip_options(8)}), *range(34, 46)), "PASS", "pass")
    R(g, "trunc.ipv6", "ends inside the outer IPv6 header (L2+1 .. L2+39)", lambda: cut(gn(v6=True), *range(15, 54)),
      "PASS", "pass")
    R(g, "trunc.udp_ports", "ends inside the UDP ports (U+1 .. U+3)", lambda: cut(full(), 35, 36, 37), "PASS", "pass")
    R(g, "trunc.udp_len", "ends inside the UDP length / checksum (U+4 .. U+7)", lambda: cut(full(), 38, 39, 40, 41),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.geneve", "ends inside the fixed Geneve header (U+8 .. U+15)", lambda: cut(full(), *range(42, 50)),
      "DROP_TRUNCATED", "drop")
    R(g, "trunc.options", "ends inside the options (8 bytes: U+16 .. U+23; 252 bytes: every 4th byte "
      "U+16 .. U+267)", lambda: cut(gn(options=_gn_opts(8)), *range(50, 58)) +
      cut(gn(options=_gn_opts(252)), *range(50, 302, 4)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_eth", "ends inside the inner Ethernet header (K+1 .. K+13; K = 50, and K = 302 "
      "after 252 bytes of options)", lambda: cut(full(), *range(51, 64)) +
      cut(gn(options=_gn_opts(252)), 303, 310, 315), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner_ipv4_ecn", "ends inside the inner IPv4 header while the outer ECN is CE (K+15 .. K+25)",
      lambda: cut(gn(ecn=3, payload=_eth_over(inner_ip4(tos=2))), *range(65, 76)), "DROP_TRUNCATED", "drop")
    R(g, "trunc.inner", "ends inside the inner IPv4 header or payload (outer ECN not set; also after "
      "40 bytes of options)", lambda: cut(full(), 70, 100, 135) + cut(gn(options=_gn_opts(40)), 130, 175),
      "DROP_TRUNCATED", "drop/abort")

    g = "Bad length fields"
    R(g, "len.ipv4_small", "IPv4 total length < IHL*4 + 16 (0, 20, 35)",
      lambda: [gn(ip={"len": n}) for n in (0, 20, 35)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_big_udp_ok", "IPv4 total length and UDP length both larger than the frame (+1, +200)",
      lambda: [gn(ip={"len": 122 + d}, udp={"len": 102 + d}, udp_csum="zero") for d in (1, 200)],
      "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv4_big", "IPv4 total length larger than the frame, UDP length right", lambda: [gn(ip={"len": 200})],
      "DROP_IP_HEADER", "drop")
    R(g, "len.udp", "UDP length ≠ IP end − UDP start (0, 8, −1, +1, 65535)",
      lambda: [gn(udp={"len": n}) for n in (0, 8, 101, 103, 65535)], "DROP_IP_HEADER", "drop")
    R(g, "len.ipv4_lt_frame", "IP end before the frame's end (Ethernet padding, 1 and 40 bytes): output stops there",
      lambda: [gn(pad=b"\\x00"), gn(pad=payload(40, 5))], "DECAP_TEB", "decap")
    R(g, "len.inner_short", "IP end leaves fewer than 14 bytes of inner frame (10 bytes)",
      lambda: [gn(payload(10), proto=0x6558)], "DROP_TRUNCATED", "drop")
    R(g, "len.opt_past", "Opt Len runs past the datagram (Opt Len 40 words over 20 bytes; 63 words over "
      "an 86-byte inner frame)", lambda: [gn(payload(20), optlen=40, udp_csum="zero"), gn(optlen=63, udp_csum="zero")],
      "DROP_IP_HEADER", "drop")
    R(g, "len.ipv6_small", "IPv6 payload length < 16 (0, 8, 15)", lambda: [gn(v6=True, ip={"plen": n}) for n in (0, 8, 15)],
      "DROP_IP_HEADER", "drop")
    R(g, "len.ipv6_big", "IPv6 payload length and UDP length larger than the frame (+1)",
      lambda: [gn(v6=True, ip={"plen": 103}, udp={"len": 103}, udp_csum="zero")], "DROP_TRUNCATED", "drop/abort")
    R(g, "len.ipv6_udp", "IPv6 payload length ≠ UDP length", lambda: [gn(v6=True, ip={"plen": 101})],
      "DROP_IP_HEADER", "drop")

    g = "IPv4 header: version, IHL, options"
    R(g, "ihl.lt5", "IHL 0 .. 4: not Geneve", lambda: [gn(ip={"ihl": n}) for n in range(5)], "PASS", "pass")
    R(g, "ver.not4", "EtherType 0x0800, version 0, 5, 6, 15: not Geneve",
      lambda: [gn(ip={"version": v}) for v in (0, 5, 6, 15)], "PASS", "pass")
    R(g, "ihl.options", "IPv4 options, IHL 6 .. 15 (NOPs + EOL)",
      lambda: [gn(ip={"options": _ip_options(n)}) for n in range(6, 16)], "DECAP_TEB", "decap")

    g = "Fragments"
    R(g, "frag.mf", "MF = 1, offset 0 (first fragment)", lambda: [gn(ip={"flags": "MF"})], "DROP_FRAGMENT", "drop")
    R(g, "frag.offset", "offset ≠ 0 (1, 185, 8191; MF = 0 and 1): not the first fragment, no UDP header: not Geneve",
      lambda: [gn(ip={"frag": o, "flags": f}) for o in (1, 185, 8191) for f in (0, "MF")], "PASS", "pass")
    R(g, "frag.df", "DF = 1", lambda: [gn(ip={"flags": "DF"})], "DECAP_TEB", "decap")

    g = "Checksums"
    R(g, "csum.ipv4_bad", "outer IPv4 header checksum wrong (0x0000, 0xFFFF, off by one)",
      lambda: _bad_ipv4_csum(gn()), "DROP_IP_CHECKSUM", "drop")
    R(g, "csum.udp_zero", "UDP checksum 0 (not computed), outer IPv4 and IPv6",
      lambda: [gn(udp_csum="zero"), gn(v6=True, udp_csum="zero")], "DECAP_TEB", "decap")
    R(g, "csum.udp_bad", "UDP checksum wrong, outer IPv4 and IPv6, with and without options: known at the "
      "frame's end", lambda: [gn(udp_csum="bad"), gn(v6=True, udp_csum=0xFFFF), gn(options=_gn_opts(64), udp_csum="bad")],
      "DROP_UDP_CHECKSUM", "abort")
    R(g, "csum.inner_bad", "inner IPv4 header and TCP checksums wrong: not checked",
      lambda: [gn(_eth_over(_bad_inner()))], "DECAP_TEB", "decap")
    R(g, "csum.inner_bad_l3", "the same as an L3 payload (protocol type 0x0800)",
      lambda: [gn(_bad_inner())], "DECAP_L3", "decap")

    g = "Geneve version, flags and options"
    R(g, "version", "version 1, 2, 3 (with O, C, options)",
      lambda: [gn(version=1), gn(version=2, oam=True), gn(version=3, critical=True, options=_gn_opts(8))],
      "DROP_VERSION", "drop")
    R(g, "flags.o", "O = 1 (OAM), with and without options: forwarded unchanged",
      lambda: [gn(oam=True), gn(oam=True, options=_gn_opts(16))], "PUNT_OAM", "punt")
    R(g, "flags.oc", "O = 1 and C = 1: OAM first", lambda: [gn(oam=True, critical=True)], "PUNT_OAM", "punt")
    R(g, "flags.c", "C = 1 (critical options present), CRITICAL_PUNT = 0",
      lambda: [gn(critical=True, options=_gn_opts(8)), gn(critical=True)], "DROP_CRITICAL", "drop")
    R(g, "flags.c_punt", "C = 1, CRITICAL_PUNT = 1: forwarded unchanged",
      lambda: [gn(critical=True, options=_gn_opts(8), vni=GN_VNI)], "PUNT", "punt", config="vni")
    R(g, "flags.c_proto", "C = 1 with a protocol type not decapsulated: the C bit first",
      lambda: [gn(payload(40), critical=True, proto=0x8847)], "DROP_CRITICAL", "drop")
    R(g, "rsvd", "reserved bits set (the 6 bits after O/C, the byte after the VNI): ignored",
      lambda: [gn(rsvd=r) for r in (1, 0x20, 0x3F)] + [gn(rsvd2=0xFF)], "DECAP_TEB", "decap")
    R(g, "opts.every_len", "options of every length 4 .. 252 bytes (Opt Len 1 .. 63; K = 54 .. 302, "
      "past the 128-byte header window from 80 bytes)", lambda: [gn(options=_gn_opts(n)) for n in range(4, 253, 4)],
      "DECAP_TEB", "decap")
    R(g, "opts.l3", "options before an L3 payload (8, 124, 252 bytes; IPv4 and IPv6)",
      lambda: [gn(inner_ip4(), options=_gn_opts(n)) for n in (8, 124, 252)] + [gn(inner_ip6(), options=_gn_opts(60))],
      "DECAP_L3", "decap")
    R(g, "opts.outer6_vlan", "252 bytes of options after outer IPv6 and two tags (K = 354)",
      lambda: [gn(v6=True, tags=[(0x88A8, 1), (0x8100, 2)], options=_gn_opts(252))], "DECAP_TEB", "decap")
    R(g, "opts.critical_type", "an option type with its critical bit, C = 0: options are not read",
      lambda: [gn(options=_gn_opts(12, critical=True)), gn(options=_gn_opts(128, critical=True))],
      "DECAP_TEB", "decap")
    R(g, "opts.raw", "raw option bytes (all zero, all 0xFF; 252 bytes)",
      lambda: [gn(options=bytes(252)), gn(options=b"\\xff" * 252)], "DECAP_TEB", "decap")

    g = "VNI table, ECN and policy"
    R(g, "vni.known", "VNI in the table (no tag): decapsulated, the VNI on m_axis_tvni",
      lambda: [gn(), gn(options=_gn_opts(100))], "DECAP_TEB", "decap", config="vni")
    R(g, "vni.known_l3", "VNI in the table, an L3 payload", lambda: [gn(inner_ip4()), gn(inner_ip6())],
      "DECAP_L3", "decap", config="vni")
    R(g, "vni.push", "VNI in the table with a VLAN push: an 802.1Q tag (VLAN 100) after the inner MACs",
      lambda: [gn(vni=GN_VNI_PUSH), gn(vni=GN_VNI_PUSH, tags=[(0x8100, 9)])], "DECAP_TEB", "decap", config="vni")
    R(g, "vni.push_l3", "VNI with a VLAN push, an L3 payload: the tag after the outer MACs",
      lambda: [gn(inner_ip4(), vni=GN_VNI_PUSH)], "DECAP_L3", "decap", config="vni")
    R(g, "vni.unknown", "VNI not in the table (0, 0x123456, 0xFFFFFF; with O = 1, C = 1, a punted protocol: the "
      "table first)", lambda: [gn(vni=v) for v in (0, GN_VNI_OTHER, 0xFFFFFF)] +
      [gn(vni=GN_VNI_OTHER, oam=True), gn(vni=GN_VNI_OTHER, critical=True), gn(payload(40), vni=GN_VNI_OTHER, proto=0x8847)],
      "DROP_UNKNOWN_VNI", "drop", config="vni")
    R(g, "vni.off", "any VNI with the table off (0, 0x123456, 0xFFFFFF)",
      lambda: [gn(vni=v) for v in (0, GN_VNI_OTHER, 0xFFFFFF)], "DECAP_TEB", "decap")
    R(g, "ecn.ce", "outer CE over an inner ECT(0) / ECT(1) / CE packet: inner set to CE",
      lambda: [gn(_eth_over(inner_ip4(tos=t)), ecn=3) for t in (1, 2, 3)], "DECAP_TEB", "decap")
    R(g, "ecn.ce_l3", "outer CE over an inner ECT(0) / ECT(1) IPv4 L3 payload: inner set to CE",
      lambda: [gn(inner_ip4(tos=2), ecn=3), gn(inner_ip4(tos=1), ecn=3)], "DECAP_L3", "decap")
    R(g, "ecn.drop", "outer CE over an inner Not-ECT packet (RFC 6040), also after 200 bytes of options",
      lambda: [gn(_eth_over(inner_ip4(tos=0)), ecn=3), gn(inner_ip4(tos=0), ecn=3),
               gn(_eth_over(inner_ip4(tos=0)), ecn=3, options=_gn_opts(200))], "DROP_ECN", "drop")
    R(g, "policy.pass", "not Geneve, DROP_PASS = 1", lambda: _gn_non_tunnel(), "DROP_POLICY", "drop", config="policy")
    R(g, "policy.punt", "O = 1, and a punted protocol type, DROP_PUNT = 1",
      lambda: [gn(oam=True), gn(payload(40), proto=0x8847)], "DROP_POLICY", "drop", config="policy")
    R(g, "policy.decap", "a Geneve frame, DROP_PASS = DROP_PUNT = 1: decapsulated", lambda: [gn()], "DECAP_TEB",
      "decap", config="policy")

    g = "IPv6 extension headers"
    for i, (name, ext) in enumerate(_ip6_ext().items()):
        R(g, f"ip6ext.{i}", f"outer IPv6, {name} before UDP: not parsed, not Geneve",
          (lambda name=name: [gn(ext=_ip6_ext()[name])]), "PASS", "pass")

    g = "VLAN / QinQ stacks"
    R(g, "vlan.one", "one tag (0x8100, 0x88A8)", lambda: [gn(tags=[(0x8100, 10)]), gn(tags=[(0x88A8, 10)])],
      "DECAP_TEB", "decap")
    R(g, "vlan.two", "two tags (0x88A8 + 0x8100, 0x8100 + 0x8100), outer IPv4 and IPv6",
      lambda: [gn(tags=[(0x88A8, 10), (0x8100, 20)]), gn(tags=[(0x8100, 10), (0x8100, 20)]),
               gn(tags=[(0x88A8, 10), (0x8100, 20)], v6=True)], "DECAP_TEB", "decap")
    R(g, "vlan.two_l3", "two tags, an L3 payload: the outer header keeps its tags",
      lambda: [gn(inner_ip4(), tags=[(0x8100, 10), (0x8100, 20)])], "DECAP_L3", "decap")
    R(g, "vlan.three", "three tags: not parsed", lambda: [gn(tags=[(0x88A8, 1), (0x8100, 2), (0x8100, 3)])],
      "PASS", "pass")
    R(g, "vlan.inner", "inner frame with an 802.1Q tag, and with QinQ: forwarded as they are",
      lambda: [gn(_eth_over(inner_ip4(), tags=[(0x8100, 7)])),
               gn(_eth_over(inner_ip4(), tags=[(0x88A8, 7), (0x8100, 8)]))], "DECAP_TEB", "decap")

    g = "Runt and jumbo frames"
    R(g, "runt.plain", "runt non-tunnel frames of 1 .. 59 bytes", lambda: cut(plain(n=40), *range(1, 60)), "PASS", "pass")
    R(g, "runt.inner", "inner frame of 14 bytes (an Ethernet header only): a 14-byte output",
      lambda: [gn(_bare_eth())], "DECAP_TEB", "decap")
    R(g, "jumbo.geneve", "9600-byte Geneve frames (outer IPv4, IPv6; 252 bytes of options)",
      lambda: [_gn_sized(9600), _gn_sized(9600, v6=True), _gn_sized(9600, options=252)], "DECAP_TEB", "decap")
    R(g, "jumbo.plain", "9600-byte non-tunnel frame", lambda: [plain(n=9600 - 54)], "PASS", "pass")

    g = "One-beat frames (tlast on the first beat)"
    R(g, "beat1.plain", "non-tunnel frames of exactly one beat at each width (8, 16, 32, 64 bytes)",
      lambda: cut(plain(n=40), *_one_beat_lengths()), "PASS", "pass")
    R(g, "beat1.geneve", "a whole Geneve frame in one 512-bit beat (64 bytes: 14-byte inner frame)",
      lambda: [gn(_bare_eth())], "DECAP_TEB", "decap")
    R(g, "beat1.geneve_cut", "the first 64 bytes of a 136-byte Geneve frame (one 512-bit beat)",
      lambda: cut(gn(), 64), "DROP_TRUNCATED", "drop/abort")

    _rx_rows(B, lambda: gn(), lambda: plain(), "DECAP_TEB")


_gre_rows()
_vxd_rows()
_vxe_rows()
_gnv_rows()
ROWS: tuple[Row, ...] = tuple(_ROWS)
_BY_ID = {r.id: r for r in ROWS}
if len(_BY_ID) != len(ROWS):  # pragma: no cover - a typo in the table
    raise RuntimeError("robustness: duplicate row ids")


def rows(block: str | None = None, bus: str | None = None, cfg: str | None = None) -> list[Row]:
    return [r for r in ROWS if (block is None or r.block == block) and (bus is None or r.bus == bus)
            and (cfg is None or r.config == cfg)]


def outcomes_of(row: Row) -> tuple[str, ...]:
    """The outcome names a row allows (a few rows name two, e.g. DECAP_L3|DECAP_TEB)."""
    return tuple(row.outcome.split("|"))


# ------------------------------------------------------------------------------------------------
# docs/robustness.md
# ------------------------------------------------------------------------------------------------

_INTRO = """\
# Robustness: every kind of bad input, and what each block does with it

Generated from `wirespeed/robustness.py` by `python -m wirespeed.robustness --write`; do not edit
by hand (`tb/robustness/test_robustness_table.py` fails when this file and the table differ).
Issue #5, section 1.

**The rule.** Every input frame gets a defined outcome: it is decapsulated (or encapsulated),
passed unchanged, punted, or dropped — never a hang, never a change to the frames before or
after it. Every frame is counted exactly once, under one outcome, when its last beat has
arrived, so every run balances:

- frames in = Σ outcome packet counters, and bytes in = Σ outcome byte counters;
- frames out whole (the TX counter) = the frames of forwarding outcomes (PASS, PUNT, PUNT_OAM,
  DECAP_*, ENCAP, PASS_*; plus malformed frames forwarded by the GRE policy bit, not used here).

**Drop and abort.** A frame dropped before its output started leaves nothing. The blocks are
cut-through (the encapsulator is store-and-forward, so it never aborts), and a few facts are
only known at a frame's end: its length against the IP length (DROP_TRUNCATED), the GRE or UDP
checksum (DROP_GRE_CHECKSUM, DROP_UDP_CHECKSUM) and a MAC RX error (DROP_RX_ERROR). A frame
whose output has already started when such a drop is decided is **aborted**: its last output
beat carries `tuser` = 1 (which any MAC or FIFO downstream discards), it is counted under its
drop reason and never as transmitted. "drop/abort" below means: a drop when the whole frame was
in by the beat the block decided on, an abort otherwise; the widths of each are listed.

**Counters.** Each block has one packet and one byte counter per outcome, 64 bits wide
(`rtl/control/block_csr.sv`: they do not wrap in practice), read over AXI4-Lite as LO/HI
pairs (reading LO latches HI): packets at `0x100 + 16·code` (+0 LO, +4 HI), bytes at +8/+C.
Addresses below are `CNT_PKTS_LO` in `gre_decap`'s map, in `vtep_top`'s (decap window
0x0000, encap window 0x1000) and in `geneve_decap`'s (block_csr at 0x0000, its VNI table at
0x1000). Byte counters count input bytes.

**tkeep holes.** On wirespeed's streams `tkeep` is all ones on every beat but the last, and on
the last beat contiguous from bit 0 with at least one byte (0…01…1). A frame that breaks this
— a beat before the last with a tkeep bit clear, a last beat with a gap (e.g. 0b1011) or with
tkeep = 0 — is treated exactly as a frame with `tuser` = 1 on its last beat: it is counted as
DROP_RX_ERROR and never forwarded whole. `rtl/stream/axis_keep_check.sv` does this at the input
of `gre_decap`, `vxlan_decap` and `geneve_decap` (zero latency below 512 bits; at 512 one
register that loads every cycle, `REG_OUT` with `CREDIT`) and of `vxlan_encap` (one register
slice, `REG_OUT`); the block behind it sees the frame ending
after the highest set tkeep bit of its last beat (at least one byte), which is the length the
byte counter gets. A frame with no byte at all (tlast on the first beat, tkeep = 0) is counted
as a 1-byte frame. (Before the guard, `gre_decap` took a byte under a hole as data and forwarded
a one-beat frame of no byte; the AXI4-Stream monitors flag that on its output.)

**Configuration.** Rows use the reset configuration unless the config column names another:
"""


def _fmt_widths(ws: list[int]) -> str:
    return ", ".join(str(w) for w in ws)


def _action_cell(row: Row, acts: dict[int, set[str]]) -> str:
    if row.action != "drop/abort":
        return row.action
    groups: dict[str, list[int]] = {}
    for w in WIDTHS:
        groups.setdefault(" or ".join(sorted(acts[w])), []).append(w)
    if len(groups) == 1:
        return f"{next(iter(groups))} (all widths)"
    return "; ".join(f"{a} ({_fmt_widths(ws)})" for a, ws in groups.items())


def _n_frames(row: Row) -> str:
    if row.bus == "pcap":
        return str(len(row.frames()))
    return str(len(row.beats(8)))


def render() -> str:
    """The text of docs/robustness.md."""
    out = [_INTRO]
    for (blk, name), (text, _) in CONFIGS.items():
        out.append(f"- `{blk}` / `{name}`: {text}")
    out.append("")
    out.append("Columns: *frames* = concrete frames the row's builder makes with scapy (for `axis` "
               "rows, at 64 bits); *bus* = `pcap`: whole frames, run through the Verilator harnesses "
               "(`tb/robustness/test_robustness_rtl.py`), `axis`: RX errors and tkeep holes, which no "
               "pcap can carry, driven beat by beat by a cocotb bench "
               "(`tb/robustness/cocotb_bus_rows.py`); both at 64, 128, 256 and 512 bits. "
               "*counter*: the outcome's `CNT_PKTS_LO` address. `geneve_decap`'s pcap rows run "
               "through `ws_geneve` (`sim/build.sh W geneve`: sim/harness.cpp on geneve_decap), "
               "which also checks each decapsulated frame's `m_axis_tvni` against the model. "
               "Row ids are the test ids "
               "(`test_row_model[id]`, `test_row_rtl[id-width]`); the bus rows run together per "
               "top and width, and every difference names its row.")
    out.append("")
    counts = []
    for blk in BLOCKS:
        rs = rows(blk)
        counts.append(f"`{blk}`: {len(rs)} rows, {sum(int(_n_frames(r)) for r in rs)} frames (at 64 bits)")
    out.append("Rows: " + "; ".join(counts) + ".")
    out.append("")
    for blk in BLOCKS:
        out.append(f"## `{blk}`")
        out.append("")
        for grp in GROUPS:
            rs = [r for r in ROWS if r.block == blk and r.group == grp]
            if not rs:
                continue
            out.append(f"### {grp}")
            out.append("")
            out.append("| id | input | frames | bus | config | outcome | action | counter |")
            out.append("|---|---|---|---|---|---|---|---|")
            for r in rs:
                acts = row_actions(r)
                counter = " / ".join(f"{o} `0x{counter_address(blk, o):04X}`" for o in outcomes_of(r))
                out.append(f"| `{r.id}` | {r.case} | {_n_frames(r)} | {r.bus} | {r.config} | "
                           f"{' or '.join(outcomes_of(r))} | {_action_cell(r, acts)} | {counter} |")
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.robustness",
                                 description="Print or write docs/robustness.md from the table.")
    ap.add_argument("--write", action="store_true", help=f"write {DOC_PATH}")
    ap.add_argument("--check", action="store_true", help="exit 1 when the committed file differs")
    a = ap.parse_args(argv)
    text = render()
    if a.check:
        ok = DOC_PATH.is_file() and DOC_PATH.read_text() == text
        print(f"{DOC_PATH}: {'up to date' if ok else 'differs from the table'}")
        return 0 if ok else 1
    if a.write:
        DOC_PATH.write_text(text)
        print(f"wrote {DOC_PATH}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Golden model of the VXLAN VTEP (`vxlan_decap`, `vxlan_encap`, `vtep_top`), written step by
step from docs/vxlan.md.

Pure Python on bytes/ints (no scapy): it runs on millions of frames. The step numbers in the
comments are the contract's.

Decap (network -> host): `decap(frame, cfg, bad=False, keep_w=None)` -> `DecapResult`

- `outcome`: the counter index (exactly one per input frame).
- `output`:  the bytes transmitted whole, or None (dropped or aborted).
- `emit`:    the block puts the frame on `m_axis` at all, aborted frames included.
- `aborted`: emitted with `tuser`=1 on the last beat (late drop).
- `vni`:     the VNI of a frame that reached step 5 (None before); `m_axis_tvni` of DECAP frames.
- `need`:    bytes the decision needed ("have >= need"), or the frame length when it ended first.

Early or late, as in docs/gre_decap.md: the block decides on the frame's first HDR_WINDOW (128)
bytes (the decap shell's header front end), at the input beat holding byte 127 (or the last
beat when the frame ends first); every `need` is at most 124. DROP_TRUNCATED from step 8 and
DROP_RX_ERROR are early (nothing emitted) when the frame's last beat is at or before that beat
(the frame fits in the window), else late (emitted, aborted). DROP_UDP_CHECKSUM is always late.
`keep_w` (bytes per beat) is accepted for the signature; 128 is a multiple of every bus width,
so `emit`/`aborted` do not depend on it. `outcome`, `output` and `vni` never do.

Encap (host -> network): `encap(frame, cfg, bad=False)` -> `EncapResult`. The block stores the
frame whole first, so nothing is ever aborted: an RX-error frame, or one longer than the FIFO
(DROP_OVERSIZE), is dropped without output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .common import (  # noqa: F401  (constants stay importable from here)
    CE,
    ECN_DROP,
    ECN_TRUNCATED,
    ECT0,
    ECT1,
    ET_IPV4,
    ET_IPV6,
    IPPROTO_UDP,
    KEEP_CHECK_CYCLES,
    NOT_ECT,
    TPIDS,
    ecn_step,
    frame_bytes,
    inner_ethernet_step,
    ip_ecn,
    ipv4_checksum,
    ipv4_int,
    known_end,
    l2_header,
    ones_sum,
    set_ecn,
    tally_counts,
    tunnel_output,
    udp_checksum_ok,
    udp_pseudo_header,
    udp_tunnel_outer,
    vni_entry,
)
from .edit import EDIT_LATENCY

__all__ = [
    "DecapOutcome",
    "EncapOutcome",
    "DecapConfig",
    "DecapResult",
    "Tunnel",
    "EncapConfig",
    "EncapResult",
    "decap",
    "encap",
    "encap_key",
    "flow_hash",
    "flow_tuple",
    "udp_checksum_ok",
    "crc32c",
    "tally_decap",
    "tally_encap",
    "VXLAN_PORT",
    "LINUX_VXLAN_PORT",
    "ENCAP_OVERHEAD",
]

VXLAN_PORT = 4789
LINUX_VXLAN_PORT = 8472
ENCAP_OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8


from .gre import HDR_WINDOW  # noqa: E402  (the front end's header window, ip_front HDR_BYTES)

# The outcome codes (= counter indices) come from the one source, wirespeed/regmap.py.
from wirespeed.regmap import VXLAN_DECAP as _DECAP_REGMAP  # noqa: E402
from wirespeed.regmap import VXLAN_ENCAP as _ENCAP_REGMAP  # noqa: E402

DecapOutcome: type[IntEnum] = _DECAP_REGMAP.outcome_enum("DecapOutcome", __name__)
EncapOutcome: type[IntEnum] = _ENCAP_REGMAP.outcome_enum("EncapOutcome", __name__)


NUM_DECAP_OUTCOMES = len(DecapOutcome)
NUM_ENCAP_OUTCOMES = len(EncapOutcome)

ET_VLAN = 0x8100
IPPROTO_TCP = 6


# ----------------------------------------------------------------------------------------------
# CRC-32C (flow_hash, and h0 of the hash table). wirespeed/table.py owns the table's CRCs; use its
# crc32c when it is there, so both sides agree by construction, else our own.
# ----------------------------------------------------------------------------------------------


def _make_crc_table(poly_reflected: int) -> tuple[int, ...]:
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (poly_reflected if c & 1 else 0)
        t.append(c)
    return tuple(t)


_CRC32C_TABLE = _make_crc_table(0x82F63B78)  # Castagnoli, reflected


def _crc32c(data: bytes, crc: int = 0) -> int:
    """CRC-32C (iSCSI): reflected, init 0xFFFFFFFF, final xor 0xFFFFFFFF. `crc32c(b"123456789")`
    is 0xE3069283."""
    c = crc ^ 0xFFFFFFFF
    t = _CRC32C_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


try:  # pragma: no cover - depends on the table engineer's progress
    from wirespeed.table import crc32c as _table_crc32c  # type: ignore

    if _table_crc32c(b"123456789") != 0xE3069283:  # not the contract's CRC: do not trust it
        raise ImportError
    crc32c = _table_crc32c
except Exception:  # ImportError, or a partially written module
    crc32c = _crc32c


# ----------------------------------------------------------------------------------------------
# Addresses
# ----------------------------------------------------------------------------------------------


def _mac(m) -> bytes:
    if isinstance(m, (bytes, bytearray)):
        if len(m) != 6:
            raise ValueError(f"MAC address of {len(m)} bytes")
        return bytes(m)
    if isinstance(m, int):
        return m.to_bytes(6, "big")
    return bytes(int(x, 16) for x in str(m).split(":"))


# ----------------------------------------------------------------------------------------------
# Decap
# ----------------------------------------------------------------------------------------------


@dataclass
class DecapConfig:
    """Decap control state: CONTROL (0x0008), PORT (0x0010), PORT2 (0x0014), the VNI table."""

    port: int = VXLAN_PORT
    port2: int | None = None  # None: PORT2 disabled (CONTROL bit 2 = 0)
    strict: bool = False  # CONTROL bit 1: reserved bits -> DROP_VXLAN_RESERVED
    vni_table: dict[int, tuple[int, bool]] | None = None  # None: table disabled; VNI -> (vlan_id, push)
    drop_pass: bool = False  # CONTROL bit 3

    @property
    def control(self) -> int:
        """The decap CONTROL register value."""
        return (
            int(self.vni_table is not None)
            | int(bool(self.strict)) << 1
            | int(self.port2 is not None) << 2
            | int(bool(self.drop_pass)) << 3
        )


_DEFAULT_DECAP = DecapConfig()


@dataclass
class DecapResult:
    outcome: DecapOutcome
    output: bytes | None
    emit: bool = False
    aborted: bool = False
    vni: int | None = None
    need: int = 0
    in_len: int = 0

    @property
    def out_len(self) -> int:
        return 0 if self.output is None else len(self.output)

    @property
    def tvni_valid(self) -> bool:
        """`m_axis_tvni_valid` on the emitted frame: 1 for frames on the decapsulation path (a
        late-aborted one included), 0 for PASS frames."""
        return self.emit and self.decapsulated

    decapsulated: bool = False  # steps 1..7 said DECAP (the output is the inner frame)


class _D:
    """What steps 1..7 decided, and what steps 8/9 need."""

    __slots__ = ("outcome", "need", "vni", "v6", "L2", "U", "K", "ip_end", "ecn_new", "ecn_v6", "push")

    def __init__(self, outcome, need, vni=None):
        self.outcome = outcome
        self.need = need
        self.vni = vni
        self.ecn_new = None
        self.ecn_v6 = False
        self.push = None


def _classify(f: bytes, cfg: DecapConfig) -> _D:
    n = len(f)
    O = DecapOutcome

    # 1.-4. L2, outer IP, UDP port, outer checks (shared with Geneve: common.udp_tunnel_outer) ----
    o = udp_tunnel_outer(f, cfg.port, cfg.port2)
    if o.verdict is not None:
        return _D(O[o.verdict], o.need)
    L2, v6, U, ip_end, oecn = o.L2, o.v6, o.U, o.ip_end, o.oecn
    # From here on the frame is VXLAN: ending before a step's bytes is DROP_TRUNCATED.

    # 5. VXLAN header -------------------------------------------------------------------------------
    if n < U + 16:
        return _D(O.DROP_TRUNCATED, n)
    need = U + 16
    flags = f[U + 8]
    if not flags & 0x08:
        return _D(O.DROP_VXLAN_FLAGS, need)
    vni = f[U + 12] << 16 | f[U + 13] << 8 | f[U + 14]
    if cfg.strict and (flags & ~0x08 & 0xFF or f[U + 9] or f[U + 10] or f[U + 11] or f[U + 15]):
        return _D(O.DROP_VXLAN_RESERVED, need, vni)
    K = U + 16

    # 6. VNI table ----------------------------------------------------------------------------------
    known, push = vni_entry(cfg.vni_table, vni)
    if not known:
        return _D(O.DROP_UNKNOWN_VNI, need, vni)

    # 7. Inner frame (and RFC 6040) ---------------------------------------------------------------
    verdict, need, ecn_new, ecn_v6 = inner_ethernet_step(f, K, oecn, ip_end, need)
    if verdict == ECN_TRUNCATED:
        return _D(O.DROP_TRUNCATED, need, vni)
    if verdict == ECN_DROP:
        return _D(O.DROP_ECN, need, vni)

    d = _D(O.DECAP, need, vni)
    d.v6, d.L2, d.U, d.K, d.ip_end = v6, L2, U, K, ip_end
    d.ecn_new, d.ecn_v6, d.push = ecn_new, ecn_v6, push
    return d


def _decap_output(f: bytes, d: _D) -> bytes:
    """Step 9 (the frame is whole: len(f) >= ip_end)."""
    return tunnel_output(f, d.K, d.ip_end, ecn_at=14, ecn_new=d.ecn_new, ecn_v6=d.ecn_v6, push=d.push)


def decap(frame: bytes, cfg: DecapConfig | None = None, bad: bool = False, keep_w: int | None = None) -> DecapResult:
    """Run one frame through `vxlan_decap`. `bad` = tuser=1 on the input's last beat."""
    f = frame_bytes(frame)
    n = len(f)
    cfg = _DEFAULT_DECAP if cfg is None else cfg
    d = _classify(f, cfg)
    O = DecapOutcome
    need = d.need
    whole = known_end(n, max(need, HDR_WINDOW), keep_w)  # the whole frame is in at decision time
    decapsulating = d.outcome == O.DECAP

    def res(outcome, output, emit, aborted=False):
        return DecapResult(O(outcome), output, emit, aborted, d.vni, need, n, decapsulating)

    oc = d.outcome
    if oc == O.PASS:
        if cfg.drop_pass:
            return res(O.DROP_RX_ERROR if bad else O.DROP_POLICY, None, False)
        if bad:
            return res(O.DROP_RX_ERROR, None, not whole, not whole)
        return res(O.PASS, f, True)
    if oc == O.DECAP:
        if bad:
            return res(O.DROP_RX_ERROR, None, not whole, not whole)
        if n < d.ip_end:  # 8. early when known at decision time, else late
            return res(O.DROP_TRUNCATED, None, not whole, not whole)
        if not udp_checksum_ok(f, d.L2, d.U, d.ip_end, d.v6):  # always late
            return res(O.DROP_UDP_CHECKSUM, None, True, True)
        return res(O.DECAP, _decap_output(f, d), True)
    # early drops
    return res(O.DROP_RX_ERROR if bad else oc, None, False)


# The decap's cycles (docs/vxlan.md, "Structure and latency"): from the input beat that completes
# the 128-byte window to the descriptor at the edit engine (the capture's two registers,
# ip_front's three stages, vxlan_decap_classify's six), and the engine's own first-beat latency.
DECIDE_CYCLES = 11


def decap_skip(frame: bytes, cfg: DecapConfig | None = None) -> int:
    """D, the input bytes the decap's output skips: K (K - 4 with a pushed tag) for a frame
    decapsulated, 0 for one forwarded unchanged."""
    f = frame_bytes(frame)
    d = _classify(f, _DEFAULT_DECAP if cfg is None else cfg)
    if d.outcome != DecapOutcome.DECAP:
        return 0
    return d.K - (4 if d.push is not None else 0)


def latency_cycles(frame: bytes, keep_w: int, cfg: DecapConfig | None = None) -> int:
    """First input handshake to first output handshake of an emitted decap frame, idle pipeline,
    `keep_w` bytes per beat: the beat completing the window + DECIDE_CYCLES + the engine's
    latency + the slot of input beat floor(D / keep_w) (a one-beat output: the frame's last)."""
    f = frame_bytes(frame)
    n = len(f)
    r = decap(f, cfg, keep_w=keep_w)
    out_len = len(r.output) if r.output is not None else n
    skip = decap_skip(f, cfg)
    trig = (min(n, HDR_WINDOW) - 1) // keep_w
    slot = skip // keep_w
    if -(-out_len // keep_w) == 1:
        slot = max(slot, (n - 1) // keep_w)
    return trig + DECIDE_CYCLES + KEEP_CHECK_CYCLES[8 * keep_w] + EDIT_LATENCY[8 * keep_w] + slot


def tally_decap(results) -> tuple[list[int], list[int], int, int]:
    """(pkts[13], bytes[13] (input bytes), tx_pkts, tx_bytes) the decap counters should show."""
    return tally_counts(results, NUM_DECAP_OUTCOMES)


# ----------------------------------------------------------------------------------------------
# Encap
# ----------------------------------------------------------------------------------------------


@dataclass
class Tunnel:
    vni: int
    dst_mac: bytes
    src_mac: bytes
    src_ip: int
    dst_ip: int
    udp_port: int = VXLAN_PORT
    ttl: int = 64
    dscp: int = 0

    def __post_init__(self):
        self.dst_mac = _mac(self.dst_mac)
        self.src_mac = _mac(self.src_mac)
        self.src_ip = ipv4_int(self.src_ip)
        self.dst_ip = ipv4_int(self.dst_ip)


@dataclass
class EncapConfig:
    """Tunnel table keyed by (vid or None, inner destination IPv4 as int); CONTROL bit 0;
    `fifo_bytes`: the store-and-forward FIFO (vxlan_encap FIFO_BYTES): longer frames are
    DROP_OVERSIZE."""

    tunnels: dict[tuple[int | None, int], Tunnel] = field(default_factory=dict)
    drop_miss: bool = False
    fifo_bytes: int = 32768

    def __post_init__(self):
        self.tunnels = {(k[0], ipv4_int(k[1])): t for k, t in self.tunnels.items()}

    @property
    def control(self) -> int:
        return int(bool(self.drop_miss))


@dataclass
class EncapResult:
    outcome: EncapOutcome
    output: bytes | None
    emit: bool = False
    aborted: bool = False
    in_len: int = 0
    tunnel: Tunnel | None = None

    @property
    def out_len(self) -> int:
        return 0 if self.output is None else len(self.output)


def _inner_l3(f: bytes) -> tuple[int, bool, int] | None:
    """Step 1: (E = offset of the IPv4 header, vlan_valid, vid), or None when not looked up."""
    n = len(f)
    if n < 14:
        return None
    et = f[12] << 8 | f[13]
    vlan = False
    vid = 0
    E = 14
    if et == ET_VLAN:
        if n < 18:
            return None
        vlan = True
        vid = (f[14] << 8 | f[15]) & 0xFFF
        et = f[16] << 8 | f[17]
        E = 18
    if et != ET_IPV4 or n < E + 20:
        return None
    if f[E] >> 4 != 4 or f[E] & 0xF < 5:
        return None
    return E, vlan, vid


def encap_key(frame: bytes) -> tuple[int | None, int] | None:
    """The tunnel-table key of a host frame as (vid or None, inner dst IPv4), None = not looked up.
    The hardware key is `{vlan_valid, vid, dst}` (45 bits)."""
    x = _inner_l3(bytes(frame))
    if x is None:
        return None
    E, vlan, vid = x
    return (vid if vlan else None), int.from_bytes(frame[E + 16 : E + 20], "big")


def flow_tuple(frame: bytes) -> bytes:
    """The 13 bytes src(4) dst(4) proto(1) sport(2) dport(2) that flow_hash covers."""
    f = bytes(frame)
    x = _inner_l3(f)
    if x is None:
        raise ValueError("flow_hash: not an IPv4 frame with a complete header")
    E = x[0]
    proto = f[E + 9]
    ports = b"\x00\x00\x00\x00"
    ihl = (f[E] & 0xF) * 4
    frag = (f[E + 6] << 8 | f[E + 7]) & 0x3FFF  # MF and fragment offset
    if proto in (IPPROTO_TCP, IPPROTO_UDP) and frag == 0 and len(f) >= E + ihl + 4:
        ports = f[E + ihl : E + ihl + 4]
    return f[E + 12 : E + 20] + bytes((proto,)) + ports


def flow_hash(frame: bytes) -> int:
    """Encap step 4: CRC-32C of the inner 5-tuple (ports 0 unless TCP/UDP, unfragmented, present)."""
    return crc32c(flow_tuple(frame))


def encap(frame: bytes, cfg: EncapConfig, bad: bool = False) -> EncapResult:
    """Run one host frame through `vxlan_encap` (store-and-forward)."""
    f = frame_bytes(frame)
    n = len(f)
    O = EncapOutcome
    if n > cfg.fifo_bytes:  # cut where the FIFO is full and dropped (before the RX error check)
        return EncapResult(O.DROP_OVERSIZE, None, False, False, n)
    if bad:
        return EncapResult(O.DROP_RX_ERROR, None, False, False, n)
    # 1. key
    x = _inner_l3(f)
    if x is None:
        return EncapResult(O.PASS_NOT_IPV4, f, True, False, n)
    E, vlan, vid = x
    dst = int.from_bytes(f[E + 16 : E + 20], "big")
    # 2. lookup
    t = cfg.tunnels.get(((vid if vlan else None), dst))
    if t is None:
        if cfg.drop_miss:
            return EncapResult(O.DROP_MISS, None, False, False, n)
        return EncapResult(O.PASS_MISS, f, True, False, n)
    # 3. output
    inner = f[:12] + f[16:] if vlan else f
    ilen = len(inner)
    ecn = f[E + 1] & 3
    iph = bytearray(20)
    iph[0] = 0x45
    iph[1] = ((t.dscp & 0x3F) << 2) | ecn
    iph[2:4] = (36 + ilen).to_bytes(2, "big")
    iph[8] = t.ttl & 0xFF
    iph[9] = IPPROTO_UDP
    iph[12:16] = t.src_ip.to_bytes(4, "big")
    iph[16:20] = t.dst_ip.to_bytes(4, "big")
    iph[10:12] = ipv4_checksum(bytes(iph)).to_bytes(2, "big")
    sport = 0xC000 | (flow_hash(f) & 0x3FFF)
    udp = sport.to_bytes(2, "big") + (t.udp_port & 0xFFFF).to_bytes(2, "big") + (16 + ilen).to_bytes(2, "big") + b"\x00\x00"
    vx = b"\x08\x00\x00\x00" + (t.vni & 0xFFFFFF).to_bytes(3, "big") + b"\x00"
    out = t.dst_mac + t.src_mac + b"\x08\x00" + bytes(iph) + udp + vx + inner
    return EncapResult(O.ENCAP, out, True, False, n, t)


# The encap's cycles (docs/vxlan.md, "Encap", "Structure and latency"): the input registers' and
# the frame FIFO's (from the frame's last input beat to its first beat at the engine: the keep
# check's register slice, the input slice, commit, RAM read, output register),
# the classifier's window (the destination port's last byte after a tag and a 60-byte IPv4
# header, rounded up to a beat), and from the beat completing it to the descriptor at the edit
# engine (the capture's two registers, vxlan_encap_classify's E1..E7 and F1..F3).
ENCAP_FIFO_CYCLES = 5
ENCAP_NEED = 18 + 60 + 4
ENCAP_DECIDE_CYCLES = 12


def encap_window(keep_w: int) -> int:
    """The bytes vxlan_encap_classify captures: ENCAP_NEED rounded up to a beat."""
    return -(-ENCAP_NEED // keep_w) * keep_w


def encap_latency_cycles(frame: bytes, keep_w: int) -> int:
    """First input handshake to first output handshake of an emitted encap frame (encapsulated
    or forwarded), idle pipeline, `keep_w` bytes per beat: the frame's input beats (it is
    stored whole), the input registers' and the FIFO's cycles, the beat completing the window,
    ENCAP_DECIDE_CYCLES and the engine's latency (its first beat waits for the descriptor:
    D <= 0, output beat 0 is the engine's first slot)."""
    n = len(frame_bytes(frame))
    beats = -(-n // keep_w)
    trig = (min(n, encap_window(keep_w)) - 1) // keep_w
    return (beats - 1) + ENCAP_FIFO_CYCLES + trig + ENCAP_DECIDE_CYCLES + EDIT_LATENCY[8 * keep_w]


def encap_output_cycles(frame: bytes, keep_w: int, cfg: EncapConfig) -> int:
    """Cycles from an emitted encap frame's first output beat to its last, output never stalled:
    its output beats (the edit engine ends a frame in the slot of its last output beat,
    axis_edit FOLD_LAST)."""
    f = frame_bytes(frame)
    r = encap(f, cfg)
    if r.output is None:
        raise ValueError("encap_output_cycles: the frame is not emitted")
    return -(-len(r.output) // keep_w)


def encap_frame_cycles(frame: bytes, keep_w: int, cfg: EncapConfig) -> int:
    """Cycles an encap frame takes back to back behind another encapsulated one (m_axis never
    stalled): its output beats, or its input beats when more (a forwarded frame); at 512 bits
    an encapsulated frame also waits a cycle after a frame whose last slot was also its last
    output beat's (its first slot reads its beat 0): its input beats + 1."""
    f = frame_bytes(frame)
    r = encap(f, cfg)
    in_beats = -(-len(f) // keep_w)
    if r.output is None:
        return in_beats
    out_beats = -(-len(r.output) // keep_w)
    room = len(r.output) - len(f)       # -D: 50, 46 with the tag removed, 0 forwarded
    if room and -(-room // keep_w) == 1:
        return in_beats + 1
    return max(in_beats, out_beats)


def tally_encap(results) -> tuple[list[int], list[int], int, int]:
    """(pkts[6], bytes[6] (input bytes), tx_pkts, tx_bytes) the encap counters should show."""
    return tally_counts(results, NUM_ENCAP_OUTCOMES)

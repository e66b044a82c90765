"""Golden model of the `gre_decap` block, written step by step from docs/gre_decap.md.

Pure Python on bytes/ints (no scapy): it runs on millions of frames. Every step below quotes
the contract's step number so that a reader can check one against the other.

`gre_decap(frame, cfg, bad, keep_w)` returns a `Result`:

- `outcome`: the counter index the frame is counted under (exactly one per input frame).
- `output`:  the bytes transmitted whole, or None when nothing valid comes out (dropped or
  aborted).
- `emit`:    True when the block puts the frame on `m_axis` at all, including aborted frames.
- `aborted`: True when the frame is emitted but its last beat carries `tuser`=1 (late drop).
- `need`:    the number of bytes the decision procedure needed ("have >= need"): the maximum of
  every "Needs N" it reached, or the frame length when the frame ended first.

Early or late? The block decides on the frame's first HDR_WINDOW (128) bytes, or on the whole
frame when it is shorter: such a frame is "whole" at decision time, whatever the bus width.
- DROP_TRUNCATED (step 8): a whole frame that ends before ip_end is an early drop: nothing is
  emitted. Otherwise the decapsulated output has begun and is aborted.
- MAC RX error: "no output is started for frames already known to drop": a whole frame is not
  emitted; a longer one that would be forwarded is emitted and aborted. Early drops are never
  emitted.
- DROP_GRE_CHECKSUM is always a late drop (listed only there): the frame is emitted and aborted.
`keep_w` (bytes per beat) is accepted for the VXLAN model's signature and changes nothing here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

# ones_sum, ones_add, ipv4_checksum, rfc6040_decap and the constants stay importable from here.
from .common import (  # noqa: F401
    CE,
    ECN_DROP,
    ECN_TRUNCATED,
    ECT0,
    ECT1,
    ET_IPV4,
    ET_IPV6,
    KEEP_CHECK_CYCLES,
    NOT_ECT,
    TPIDS,
    ecn_step,
    frame_bytes,
    ip_ecn,
    ipv4_checksum,
    ipv4_int,
    l2_header,
    ones_add,
    ones_sum,
    rfc6040_decap,
    set_ecn,
    tally_counts,
)
from .edit import EDIT_LATENCY

__all__ = [
    "Outcome",
    "GreConfig",
    "Result",
    "gre_decap",
    "ones_sum",
    "ipv4_checksum",
    "ones_add",
    "rfc6040_decap",
    "DROP_OUTCOMES",
    "FORWARD_OUTCOMES",
    "MALFORMED_OUTCOMES",
    "NUM_OUTCOMES",
    "tally",
    "latency_cycles",
]


# The outcome codes (= counter indices) come from the one source, wirespeed/regmap.py.
from wirespeed.regmap import GRE as _GRE_REGMAP  # noqa: E402

Outcome: type[IntEnum] = _GRE_REGMAP.outcome_enum("Outcome", __name__)


NUM_OUTCOMES = len(Outcome)
FORWARD_OUTCOMES = frozenset({Outcome.PASS, Outcome.PUNT, Outcome.DECAP_L3, Outcome.DECAP_TEB})
DROP_OUTCOMES = frozenset(o for o in Outcome if o not in FORWARD_OUTCOMES)
# Early drop reasons that POLICY_FORWARD_MALFORMED forwards unchanged instead of dropping.
MALFORMED_OUTCOMES = frozenset(
    {Outcome.DROP_IP_HEADER, Outcome.DROP_IP_CHECKSUM, Outcome.DROP_FRAGMENT, Outcome.DROP_GRE_HEADER}
)

# EtherTypes and numbers the contract names (ET_IPV4, ET_IPV6, TPIDS and the ECN code points
# NOT_ECT, ECT1, ECT0, CE come from common.py).
ET_TEB = 0x6558
IPPROTO_GRE = 47
DECAP_PROTOS = (ET_IPV4, ET_IPV6, ET_TEB)
GRE_ALLOWED_FLAGS = 0xB000  # C (bit 15), K (bit 13), S (bit 12); everything else must be 0
# The block decides on this many leading bytes of a frame (rtl/parse/ip_front.sv HDR_BYTES).
HDR_WINDOW = 128


@dataclass
class GreConfig:
    """The block's control state (CONTROL register + allow-list)."""

    allow_enable: bool = False
    allow: frozenset = frozenset()  # of (src, dst) outer IPv4 addresses as ints (str/bytes accepted)
    drop_pass: bool = False
    drop_punt: bool = False
    forward_malformed: bool = False

    def __post_init__(self):
        self.allow = frozenset((ipv4_int(s), ipv4_int(d)) for s, d in self.allow)

    @property
    def control(self) -> int:
        """Value of the CONTROL register (0x0008) for this configuration."""
        return (
            int(bool(self.allow_enable))
            | int(bool(self.drop_pass)) << 1
            | int(bool(self.drop_punt)) << 2
            | int(bool(self.forward_malformed)) << 3
        )


_DEFAULT_CFG = GreConfig()


@dataclass
class Result:
    outcome: Outcome
    output: bytes | None  # None: nothing transmitted whole
    emit: bool = False  # the frame appears on m_axis (possibly aborted)
    aborted: bool = False  # emitted with tuser=1 on its last beat
    need: int = 0  # bytes the decision needed (see module doc)
    in_len: int = 0  # input frame length (bus bytes)
    # Where output bytes come from: output byte j is input byte j when j < kept, else input byte
    # skip_to + (j - kept). Decapsulation: kept = L2 (L3) or 0 (TEB), skip_to = K. Unchanged
    # frames: kept = skip_to = in_len. Set for every frame that would be emitted.
    kept: int = 0
    skip_to: int = 0

    @property
    def out_len(self) -> int:
        return 0 if self.output is None else len(self.output)

    def src_byte(self, j: int) -> int:
        """Input byte index that output byte `j` is taken from."""
        return j if j < self.kept else self.skip_to + (j - self.kept)


# ----------------------------------------------------------------------------------------------
# The decision procedure
# ----------------------------------------------------------------------------------------------


class _Decision:
    """What the early procedure decided (step 1..7) and what step 9 needs to build the output."""

    __slots__ = ("outcome", "need", "L2", "K", "G", "ip_end", "proto", "csum", "ecn_new", "ecn_v6")

    def __init__(self, outcome, need):
        self.outcome = outcome
        self.need = need
        self.ecn_new = None


def _classify(f: bytes, cfg: GreConfig) -> _Decision:
    n = len(f)
    O = Outcome

    # 1. L2 (a third TPID falls through to "any other et: PASS") -----------------------------
    l2 = l2_header(f)
    if l2 is None:
        return _Decision(O.PASS, n)
    L2, et = l2
    need = L2

    # 2. Tunnel candidate ---------------------------------------------------------------------
    if et == ET_IPV4:
        if n < L2 + 10:
            return _Decision(O.PASS, n)
        need = L2 + 10
        if f[L2 + 9] != IPPROTO_GRE:
            return _Decision(O.PASS, need)
        v6 = False
    elif et == ET_IPV6:
        if n < L2 + 7:
            return _Decision(O.PASS, n)
        need = L2 + 7
        if f[L2 + 6] != IPPROTO_GRE:
            return _Decision(O.PASS, need)
        v6 = True
    else:
        return _Decision(O.PASS, need)
    # From here on the frame is GRE; ending before a step's bytes is DROP_TRUNCATED.

    # 3. Outer IP -----------------------------------------------------------------------------
    if not v6:
        if n < L2 + 20:
            return _Decision(O.DROP_TRUNCATED, n)
        need = L2 + 20
        ver, ihl = f[L2] >> 4, f[L2] & 0xF
        if ver != 4 or ihl < 5:
            return _Decision(O.DROP_IP_HEADER, need)
        hl = ihl * 4
        if n < L2 + hl:
            return _Decision(O.DROP_TRUNCATED, n)
        need = L2 + hl
        if ones_sum(f[L2 : L2 + hl]) != 0xFFFF:
            return _Decision(O.DROP_IP_CHECKSUM, need)
        flags_off = f[L2 + 6] << 8 | f[L2 + 7]
        if flags_off & 0x2000 or flags_off & 0x1FFF:
            return _Decision(O.DROP_FRAGMENT, need)
        tlen = f[L2 + 2] << 8 | f[L2 + 3]
        if tlen < hl + 4:
            return _Decision(O.DROP_IP_HEADER, need)
        G = L2 + hl
        ip_end = L2 + tlen
    else:
        if n < L2 + 40:
            return _Decision(O.DROP_TRUNCATED, n)
        need = L2 + 40
        if f[L2] >> 4 != 6:
            return _Decision(O.DROP_IP_HEADER, need)
        plen = f[L2 + 4] << 8 | f[L2 + 5]
        if plen < 4:
            return _Decision(O.DROP_IP_HEADER, need)
        G = L2 + 40
        ip_end = G + plen
    oecn = ip_ecn(f, L2, v6)

    # 4. GRE ----------------------------------------------------------------------------------
    if n < G + 4:
        return _Decision(O.DROP_TRUNCATED, n)
    need = G + 4
    gflags = f[G] << 8 | f[G + 1]
    if gflags & ~GRE_ALLOWED_FLAGS & 0xFFFF:
        return _Decision(O.DROP_GRE_HEADER, need)
    c = gflags >> 15 & 1
    gre_len = 4 + 4 * (c + (gflags >> 13 & 1) + (gflags >> 12 & 1))
    if ip_end < G + gre_len:
        return _Decision(O.DROP_IP_HEADER, need)
    if n < G + gre_len:
        return _Decision(O.DROP_TRUNCATED, n)
    need = G + gre_len
    K = G + gre_len
    proto = f[G + 2] << 8 | f[G + 3]

    # 5. Allow-list ---------------------------------------------------------------------------
    if cfg.allow_enable:
        if v6:
            return _Decision(O.DROP_NOT_ALLOWED, need)
        src = int.from_bytes(f[L2 + 12 : L2 + 16], "big")
        dst = int.from_bytes(f[L2 + 16 : L2 + 20], "big")
        if (src, dst) not in cfg.allow:
            return _Decision(O.DROP_NOT_ALLOWED, need)

    # 6. Protocol -----------------------------------------------------------------------------
    if proto not in DECAP_PROTOS:
        return _Decision(O.PUNT, need)

    # 7. ECN (RFC 6040), L3 payloads only -------------------------------------------------------
    ecn_new = None
    ecn_v6 = proto == ET_IPV6
    if proto != ET_TEB and oecn in (ECT1, CE):
        verdict, need, ecn_new = ecn_step(f, K, ecn_v6, oecn, ip_end, need)
        if verdict == ECN_TRUNCATED:
            return _Decision(O.DROP_TRUNCATED, need)
        if verdict == ECN_DROP:
            return _Decision(O.DROP_ECN, need)

    # 7b. An Ethernet payload must hold at least an Ethernet header -------------------------
    if proto == ET_TEB and ip_end < K + 14:
        return _Decision(O.DROP_TRUNCATED, need)

    # 8./9. Length and decapsulation: decided, output built by the caller --------------------
    d = _Decision(O.DECAP_L3 if proto != ET_TEB else O.DECAP_TEB, need)
    d.L2, d.G, d.K, d.ip_end, d.proto, d.csum = L2, G, K, ip_end, proto, bool(c)
    d.ecn_new, d.ecn_v6 = ecn_new, ecn_v6
    return d


def _decap_output(f: bytes, d: _Decision) -> bytes:
    """Step 9 (the frame is whole: len(f) >= ip_end)."""
    K = d.K
    inner = f[K : d.ip_end]
    if d.ecn_new is not None:
        b = bytearray(inner)
        set_ecn(b, 0, d.ecn_new, d.ecn_v6)  # RFC 1624 checksum update for IPv4
        inner = bytes(b)
    if d.outcome == Outcome.DECAP_TEB:
        return inner
    return f[: d.L2 - 2] + bytes((d.proto >> 8, d.proto & 0xFF)) + inner


def gre_decap(frame: bytes, cfg: GreConfig | None = None, bad: bool = False, keep_w: int | None = None) -> Result:
    """Run one frame through the block. `bad` = the input's last beat had tuser=1 (MAC RX error).

    `keep_w` changes nothing (see the module doc).
    """
    f = frame_bytes(frame)
    n = len(f)
    cfg = _DEFAULT_CFG if cfg is None else cfg
    d = _classify(f, cfg)
    O = Outcome
    need = d.need
    whole = n <= HDR_WINDOW  # the whole frame is in at decision time

    if d.outcome in (O.DECAP_L3, O.DECAP_TEB):
        kept, skip_to = (d.L2 if d.outcome == O.DECAP_L3 else 0), d.K
    else:
        kept = skip_to = n

    def res(outcome, output, emit, aborted=False):
        return Result(O(outcome), output, emit, aborted, need, n, kept, skip_to)

    def forward(outcome, data):
        # A frame that would go out: MAC RX error turns it into an abort (or no output when the
        # whole frame was already in at decision time).
        if bad:
            return res(O.DROP_RX_ERROR, None, not whole, not whole)
        return res(outcome, data, True)

    oc = d.outcome
    if oc in (O.PASS, O.PUNT):
        if (oc == O.PASS and cfg.drop_pass) or (oc == O.PUNT and cfg.drop_punt):
            return res(O.DROP_RX_ERROR if bad else O.DROP_POLICY, None, False)
        return forward(oc, f)
    if oc in (O.DECAP_L3, O.DECAP_TEB):
        if bad:
            return forward(oc, None)
        if n < d.ip_end:  # 8. (early when known at decision time, else late)
            return res(O.DROP_TRUNCATED, None, not whole, not whole)
        if d.csum and ones_sum(f[d.G : d.ip_end]) != 0xFFFF:  # always late
            return res(O.DROP_GRE_CHECKSUM, None, True, True)
        return res(oc, _decap_output(f, d), True)
    # early drops
    if oc in MALFORMED_OUTCOMES and cfg.forward_malformed:
        if bad:
            return forward(oc, None)
        return res(oc, f, True)
    return res(O.DROP_RX_ERROR if bad else oc, None, False)


# The RTL's latency contract (docs/gre_decap.md, "Performance contract"): cycles from the beat
# that completes the header window to the descriptor at the edit engine, and the engine's
# first-beat latency per bus width (rtl/stream/axis_edit.sv).
DECIDE_CYCLES = 10


def latency_cycles(r: Result, keep_w: int) -> int:
    """First input handshake to first output handshake of a frame `r` that leaves whole, on an
    idle pipeline with `keep_w` bytes per beat: the beat that completes the window, the
    decision, the engine, and the engine's slot (one per input beat: output beat 0 comes from
    the slot of input beat floor(D / keep_w), a one-beat output from the slot of the frame's
    last input beat)."""
    if r.output is None:
        raise ValueError("latency_cycles: the frame does not leave whole")
    trig = (min(r.in_len, HDR_WINDOW) - 1) // keep_w
    slot = (r.skip_to - r.kept) // keep_w
    if -(-len(r.output) // keep_w) == 1:
        slot = max(slot, (r.in_len - 1) // keep_w)
    return trig + DECIDE_CYCLES + KEEP_CHECK_CYCLES[8 * keep_w] + EDIT_LATENCY[8 * keep_w] + slot


def tally(results, n_outcomes: int = NUM_OUTCOMES):
    """Counters the block should show after `results`: (pkts[14], bytes[14], tx_pkts, tx_bytes)."""
    return tally_counts(results, n_outcomes)

"""Golden model of the Geneve decapsulation block (`geneve_decap`, RFC 8926), written step by step
from docs/geneve.md.

Pure Python on bytes/ints (no scapy): it runs on millions of frames. The step numbers in the
comments are the contract's. Steps 1-4 (the outer headers up to the UDP header), the VNI table,
the inner Ethernet frame with its RFC 6040 step, the output with its VLAN push and the late UDP
checksum are the VXLAN decapsulator's (docs/vxlan.md), shared through `common.py`.

`decap(frame, cfg, bad=False, keep_w=None)` -> `DecapResult`, with the fields of
`vxlan.DecapResult`:

- `outcome`: the counter index (exactly one per input frame).
- `output`:  the bytes transmitted whole, or None (dropped or aborted).
- `emit`:    the block puts the frame on `m_axis` at all, aborted frames included.
- `aborted`: emitted with `tuser`=1 on the last beat (late drop).
- `vni`:     the VNI of a frame that reached step 6 (None before); `m_axis_tvni` of DECAP_* frames.
- `need`:    bytes the decision needed ("have >= need"), or the frame length when it ended first.

Early or late: the block decides at the input beat holding byte `max(need, HDR_WINDOW) - 1`
(the front end's 128-byte header window, or further when the Geneve options push the inner
header past it), or at the frame's last beat when it ends first. A frame that reaches step 9
also waits for byte `K + INNER_READ - 1` (the RTL reads the inner window [K, K+26) for every
protocol type), or for its last byte when it ends first; `need` stays the bytes the steps read. DROP_TRUNCATED from step 10 and
DROP_RX_ERROR are early (nothing emitted) when the frame's last beat is at or before that beat,
else late (emitted, aborted). DROP_UDP_CHECKSUM is always late. `keep_w` (bytes per beat) gives
the RTL's exact `emit`/`aborted`; the default (None) means 1 byte per beat. `outcome`, `output`
and `vni` never depend on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from .common import (
    CE,
    ECN_DROP,
    ECN_OK,
    ECN_TRUNCATED,
    ECT1,
    ET_IPV4,
    ET_IPV6,
    KEEP_CHECK_CYCLES,
    ecn_step,
    frame_bytes,
    inner_ethernet_step,
    known_end,
    tally_counts,
    tunnel_output,
    udp_checksum_ok,
    udp_tunnel_outer,
    vni_entry,
)
from .edit import EDIT_LATENCY
from .gre import HDR_WINDOW  # the front end's header window (rtl/parse/ip_front.sv HDR_BYTES)

__all__ = [
    "Outcome",
    "GeneveConfig",
    "DecapResult",
    "decap",
    "tally",
    "GENEVE_PORT",
    "ET_TEB",
    "HDR_WINDOW",
    "MAX_OPT_BYTES",
    "INNER_READ",
    "NUM_OUTCOMES",
    "FORWARD_OUTCOMES",
    "DECAP_OUTCOMES",
]

# The outcome codes (= counter indices) and the port come from the one source, wirespeed/regmap.py.
from wirespeed.regmap import GENEVE_DECAP as _REGMAP  # noqa: E402
from wirespeed.regmap import GENEVE_PORT  # noqa: E402

Outcome: type[IntEnum] = _REGMAP.outcome_enum("Outcome", __name__)

NUM_OUTCOMES = len(Outcome)
DECAP_OUTCOMES = frozenset({Outcome.DECAP_L3, Outcome.DECAP_TEB})
PUNT_OUTCOMES = frozenset({Outcome.PUNT, Outcome.PUNT_OAM})
FORWARD_OUTCOMES = frozenset({Outcome.PASS, *PUNT_OUTCOMES, *DECAP_OUTCOMES})

ET_TEB = 0x6558  # Transparent Ethernet Bridging: the payload is an Ethernet frame
MAX_OPT_BYTES = 63 * 4  # Opt Len is 6 bits of 4-byte words (RFC 8926: header 8..260 bytes)
INNER_READ = 26  # bytes the block reads from K (inner Ethernet + an inner IPv4 header to its checksum)
_O_BIT, _C_BIT = 0x80, 0x40  # in byte U+9


@dataclass
class GeneveConfig:
    """Control state: CONTROL (0x0008), PORT (0x0010) and the VNI table (the VXLAN decapsulator's
    table and entry format: VNI -> (vlan_id, push))."""

    port: int = GENEVE_PORT
    vni_table: dict[int, tuple[int, bool]] | None = None  # None: table disabled (CONTROL bit 0 = 0)
    critical_punt: bool = False  # CONTROL bit 1: C = 1 -> PUNT instead of DROP_CRITICAL
    drop_punt: bool = False  # CONTROL bit 2: PUNT and PUNT_OAM -> DROP_POLICY
    drop_pass: bool = False  # CONTROL bit 3: PASS -> DROP_POLICY

    @property
    def control(self) -> int:
        """The CONTROL register value."""
        return (
            int(self.vni_table is not None)
            | int(bool(self.critical_punt)) << 1
            | int(bool(self.drop_punt)) << 2
            | int(bool(self.drop_pass)) << 3
        )


_DEFAULT = GeneveConfig()


@dataclass
class DecapResult:
    outcome: Outcome
    output: bytes | None
    emit: bool = False
    aborted: bool = False
    vni: int | None = None
    need: int = 0
    in_len: int = 0
    decapsulated: bool = False  # steps 1..9 said DECAP_L3/DECAP_TEB (the output is decapsulated)

    @property
    def out_len(self) -> int:
        return 0 if self.output is None else len(self.output)

    @property
    def tvni_valid(self) -> bool:
        """`m_axis_tvni_valid` on the emitted frame: 1 for frames on the decapsulation path (a
        late-aborted one included), 0 for PASS and PUNT frames."""
        return self.emit and self.decapsulated


class _D:
    """What steps 1..9 decided, and what steps 10/11 need."""

    __slots__ = ("outcome", "need", "wait", "vni", "v6", "L2", "U", "K", "ip_end", "proto", "ecn_new", "ecn_v6",
                 "push")

    def __init__(self, outcome, need, vni=None, wait=0):
        self.outcome = outcome
        self.need = need
        self.wait = wait  # step 9 reached: the decision also waits for min(K + INNER_READ, n)
        self.vni = vni


def _classify(f: bytes, cfg: GeneveConfig) -> _D:
    n = len(f)
    O = Outcome

    # 1.-4. L2, outer IP, UDP port, outer checks (as VXLAN: common.udp_tunnel_outer) --------------
    o = udp_tunnel_outer(f, cfg.port)
    if o.verdict is not None:
        return _D(O[o.verdict], o.need)
    L2, U, ip_end, oecn = o.L2, o.U, o.ip_end, o.oecn
    # From here on the frame is Geneve: ending before a step's bytes is DROP_TRUNCATED.

    # 5. Geneve header ------------------------------------------------------------------------------
    if n < U + 16:
        return _D(O.DROP_TRUNCATED, n)
    need = U + 16
    b0, b1 = f[U + 8], f[U + 9]
    if b0 >> 6:
        return _D(O.DROP_VERSION, need)
    K = U + 16 + (b0 & 0x3F) * 4
    if ip_end < K:  # the options run past the datagram
        return _D(O.DROP_IP_HEADER, need)
    proto = f[U + 10] << 8 | f[U + 11]
    vni = f[U + 12] << 16 | f[U + 13] << 8 | f[U + 14]

    # 6. VNI table ----------------------------------------------------------------------------------
    known, push = vni_entry(cfg.vni_table, vni)
    if not known:
        return _D(O.DROP_UNKNOWN_VNI, need, vni)

    # 7. O and C bits -------------------------------------------------------------------------------
    if b1 & _O_BIT:
        return _D(O.PUNT_OAM, need, vni)
    if b1 & _C_BIT:
        return _D(O.PUNT if cfg.critical_punt else O.DROP_CRITICAL, need, vni)

    # 8. Protocol type ------------------------------------------------------------------------------
    if proto != ET_TEB and proto != ET_IPV4 and proto != ET_IPV6:
        return _D(O.PUNT, need, vni)

    # 9. Options skipped, the inner header (and RFC 6040) -----------------------------------------
    # The block reads the inner window [K, K + INNER_READ) whatever the protocol type: from here
    # the decision waits for it, or for the frame's end (docs/geneve.md, "When the block decides").
    wait = min(K + INNER_READ, n)
    if n < K:
        return _D(O.DROP_TRUNCATED, n, vni, wait)
    need = K
    if proto == ET_TEB:
        verdict, need, ecn_new, ecn_v6 = inner_ethernet_step(f, K, oecn, ip_end, need)
    else:  # the inner IP header at K, as GRE's L3 payloads (docs/gre_decap.md step 7)
        ecn_v6 = proto == ET_IPV6
        verdict, ecn_new = ECN_OK, None
        if oecn == ECT1 or oecn == CE:
            verdict, need, ecn_new = ecn_step(f, K, ecn_v6, oecn, ip_end, need)
    if verdict == ECN_TRUNCATED:
        return _D(O.DROP_TRUNCATED, need, vni, wait)
    if verdict == ECN_DROP:
        return _D(O.DROP_ECN, need, vni, wait)

    d = _D(O.DECAP_TEB if proto == ET_TEB else O.DECAP_L3, need, vni, wait)
    d.v6, d.L2, d.U, d.K, d.ip_end, d.proto = o.v6, L2, U, K, ip_end, proto
    d.ecn_new, d.ecn_v6, d.push = ecn_new, ecn_v6, push
    return d


def _decap_output(f: bytes, d: _D) -> bytes:
    """Step 11 (the frame is whole: len(f) >= ip_end)."""
    if d.outcome == Outcome.DECAP_TEB:
        return tunnel_output(f, d.K, d.ip_end, ecn_at=14, ecn_new=d.ecn_new, ecn_v6=d.ecn_v6, push=d.push)
    # DECAP_L3: the outer Ethernet header (tags included) with the protocol type as its EtherType,
    # as GRE's DECAP_L3 (docs/gre_decap.md step 9)
    head = f[: d.L2 - 2] + bytes((d.proto >> 8, d.proto & 0xFF))
    return tunnel_output(f, d.K, d.ip_end, head, ecn_at=0, ecn_new=d.ecn_new, ecn_v6=d.ecn_v6, push=d.push)


def decap(frame: bytes, cfg: GeneveConfig | None = None, bad: bool = False, keep_w: int | None = None) -> DecapResult:
    """Run one frame through `geneve_decap`. `bad` = tuser=1 on the input's last beat (or a tkeep
    hole: `axis_keep_check` makes it the same)."""
    f = frame_bytes(frame)
    n = len(f)
    cfg = _DEFAULT if cfg is None else cfg
    d = _classify(f, cfg)
    O = Outcome
    need = d.need
    # the whole frame is in at decision time
    whole = known_end(n, max(need, d.wait, HDR_WINDOW), keep_w)
    oc = d.outcome
    decapsulating = oc in DECAP_OUTCOMES

    def res(outcome, output, emit, aborted=False):
        return DecapResult(O(outcome), output, emit, aborted, d.vni, need, n, decapsulating)

    if oc == O.PASS or oc in PUNT_OUTCOMES:
        if cfg.drop_pass if oc == O.PASS else cfg.drop_punt:
            return res(O.DROP_RX_ERROR if bad else O.DROP_POLICY, None, False)
        if bad:
            return res(O.DROP_RX_ERROR, None, not whole, not whole)
        return res(oc, f, True)
    if decapsulating:
        if bad:
            return res(O.DROP_RX_ERROR, None, not whole, not whole)
        if n < d.ip_end:  # 10. early when known at decision time, else late
            return res(O.DROP_TRUNCATED, None, not whole, not whole)
        if not udp_checksum_ok(f, d.L2, d.U, d.ip_end, d.v6):  # always late
            return res(O.DROP_UDP_CHECKSUM, None, True, True)
        return res(oc, _decap_output(f, d), True)
    # early drops
    return res(O.DROP_RX_ERROR if bad else oc, None, False)


def tally(results) -> tuple[list[int], list[int], int, int]:
    """(pkts[16], bytes[16] (input bytes), tx_pkts, tx_bytes) the counters should show."""
    return tally_counts(results, NUM_OUTCOMES)


# The RTL's timing (rtl/tunnel/geneve_decap.sv, docs/geneve.md "Structure and latency").
DECIDE_CYCLES = 17  # the beat completing the 128-byte window -> the descriptor
INNER_CYCLES = 11  # the beat holding byte K + 25 (or the last) -> the descriptor (step 9 frames)


def decap_skip(frame: bytes, cfg: GeneveConfig | None = None) -> int:
    """D, the input bytes the edit engine skips before output byte 0 (0 unless decapsulated)."""
    f = frame_bytes(frame)
    cfg = _DEFAULT if cfg is None else cfg
    d = _classify(f, cfg)
    if d.outcome not in DECAP_OUTCOMES:
        return 0
    skip = d.K if d.outcome == Outcome.DECAP_TEB else d.K - d.L2
    return skip - (4 if d.push is not None else 0)


def latency_cycles(frame: bytes, keep_w: int, cfg: GeneveConfig | None = None) -> int:
    """First input handshake to first output handshake of an emitted frame, idle pipeline,
    `keep_w` bytes per beat: max(t128 + DECIDE_CYCLES, tK + INNER_CYCLES) + the engine's latency
    + the slot of input beat floor(D / keep_w) (a one-beat output: the frame's last). t128 is
    the beat holding byte min(n, 128) - 1; tK the beat holding byte min(n, K + 26) - 1, for a
    frame that reaches step 9 only."""
    f = frame_bytes(frame)
    n = len(f)
    cfg = _DEFAULT if cfg is None else cfg
    d = _classify(f, cfg)
    r = decap(f, cfg, keep_w=keep_w)
    out_len = len(r.output) if r.output is not None else n
    t = (min(n, HDR_WINDOW) - 1) // keep_w + DECIDE_CYCLES
    if d.wait:
        t = max(t, (d.wait - 1) // keep_w + INNER_CYCLES)
    slot = decap_skip(f, cfg) // keep_w
    if -(-out_len // keep_w) == 1:
        slot = max(slot, (n - 1) // keep_w)
    return t + KEEP_CHECK_CYCLES[8 * keep_w] + EDIT_LATENCY[8 * keep_w] + slot

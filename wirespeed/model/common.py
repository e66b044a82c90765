"""Helpers shared by the golden models (`gre.py`, `vxlan.py`, `geneve.py`): EtherTypes and ECN
code points, one's-complement arithmetic, the L2 header walk, RFC 6040 decapsulation with its
RFC 1624 checksum update, the UDP pseudo-header, the counter tally, and the steps the two UDP
tunnel decap contracts (docs/vxlan.md, docs/geneve.md) share: the outer headers up to the UDP
header (`udp_tunnel_outer`), the VNI table (`vni_entry`), the inner Ethernet frame with its ECN
(`inner_ethernet_step`), the output with its VLAN push (`tunnel_output`) and the late UDP
checksum (`udp_checksum_ok`).

Pure Python on bytes/ints (no scapy), like the models. The public names that were defined in
`gre.py` before (`ones_sum`, `ones_add`, `ipv4_checksum`, `rfc6040_decap`) are still importable
from there.
"""

from __future__ import annotations

import ipaddress

__all__ = [
    "KEEP_CHECK_CYCLES",
    "ET_IPV4",
    "ET_IPV6",
    "TPIDS",
    "NOT_ECT",
    "ECT1",
    "ECT0",
    "CE",
    "ECN_OK",
    "ECN_TRUNCATED",
    "ECN_DROP",
    "ones_sum",
    "ones_add",
    "ipv4_checksum",
    "ipv4_int",
    "rfc6040_decap",
    "l2_header",
    "ip_ecn",
    "ecn_step",
    "set_ecn",
    "udp_pseudo_header",
    "udp_checksum_ok",
    "IPPROTO_UDP",
    "UdpOuter",
    "udp_tunnel_outer",
    "vni_entry",
    "inner_ethernet_step",
    "tunnel_output",
    "frame_bytes",
    "beats",
    "known_end",
    "tally_counts",
]

# The decap shell's tkeep guard (rtl/tunnel/decap_shell.sv, axis_keep_check): cycles it adds
# per bus width (registered at 512 bits only).
KEEP_CHECK_CYCLES = {64: 0, 128: 0, 256: 0, 512: 1}

ET_IPV4 = 0x0800
ET_IPV6 = 0x86DD
IPPROTO_UDP = 17
TPIDS = (0x8100, 0x88A8)  # VLAN tags the L2 walk skips (at most two)

# ECN code points
NOT_ECT, ECT1, ECT0, CE = 0b00, 0b01, 0b10, 0b11

# ecn_step verdicts
ECN_OK, ECN_TRUNCATED, ECN_DROP = 0, 1, 2


# ----------------------------------------------------------------------------------------------
# One's-complement arithmetic
# ----------------------------------------------------------------------------------------------


def ones_sum(data: bytes) -> int:
    """16-bit one's-complement (end-around carry) sum of big-endian words; odd length is padded
    with a zero byte. Returns 0 only for all-zero data, 0xFFFF for a valid checksummed block.

    Uses the identity 2**16 == 1 (mod 0xFFFF): the folded sum is the number mod 0xFFFF, with
    0 represented as 0xFFFF unless every word is zero.
    """
    if len(data) & 1:
        data = bytes(data) + b"\x00"
    v = int.from_bytes(data, "big")
    if v == 0:
        return 0
    r = v % 0xFFFF
    return r if r else 0xFFFF


def ones_add(*words: int) -> int:
    """End-around-carry addition of 16-bit words, exactly as an adder chain with carry wrap."""
    s = 0
    for w in words:
        s += w & 0xFFFF
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ipv4_checksum(header: bytes) -> int:
    """The header checksum field value for an IPv4 header (its bytes 10-11 are ignored)."""
    h = bytes(header[:10]) + b"\x00\x00" + bytes(header[12:])
    return ~ones_sum(h) & 0xFFFF


def udp_pseudo_header(f: bytes, L2: int, ulen: int, v6: bool) -> bytes:
    """The UDP checksum pseudo-header of the IP header at `L2` for a datagram of `ulen` bytes."""
    if v6:
        return bytes(f[L2 + 8 : L2 + 40]) + ulen.to_bytes(4, "big") + b"\x00\x00\x00\x11"
    return bytes(f[L2 + 12 : L2 + 20]) + b"\x00\x11" + ulen.to_bytes(2, "big")


# ----------------------------------------------------------------------------------------------
# Addresses and headers
# ----------------------------------------------------------------------------------------------


def ipv4_int(a) -> int:
    """An IPv4 address given as int, 4 bytes or dotted string, as an int."""
    if isinstance(a, int):
        return a & 0xFFFFFFFF
    if isinstance(a, (bytes, bytearray)):
        return int.from_bytes(a, "big")
    return int(ipaddress.IPv4Address(a))


def l2_header(f: bytes) -> tuple[int, int] | None:
    """Step 1 of both decap contracts: `(L2, et)`, the L2 header length after at most two VLAN
    tags (TPIDS) and the EtherType there, or None when the frame ends inside it. (A third TPID is
    returned as `et`: "any other EtherType".)"""
    n = len(f)
    if n < 14:
        return None
    et = f[12] << 8 | f[13]
    L2 = 14
    tags = 0
    while et in TPIDS and tags < 2:
        tags += 1
        L2 += 4
        if n < L2:
            return None
        et = f[L2 - 2] << 8 | f[L2 - 1]
    return L2, et


def ip_ecn(f: bytes, ip: int, v6: bool) -> int:
    """The ECN field of the IPv4 (TOS) or IPv6 (traffic class) header at `ip`."""
    return (f[ip + 1] >> 4) & 3 if v6 else f[ip + 1] & 3


# ----------------------------------------------------------------------------------------------
# ECN (RFC 6040 decapsulation, RFC 1624 checksum update)
# ----------------------------------------------------------------------------------------------


def rfc6040_decap(outer: int, inner: int) -> int | None:
    """RFC 6040 decapsulation as the contracts restrict it: new inner ECN, or None = drop."""
    if outer == CE:
        return None if inner == NOT_ECT else CE
    if outer == ECT1 and inner == ECT0:
        return ECT1
    return inner


def ecn_step(f: bytes, ip: int, v6: bool, oecn: int, ip_end: int, need: int) -> tuple[int, int, int | None]:
    """The ECN step of both decap contracts, for an inner IP header at `ip` (inside [.., ip_end))
    and outer ECN `oecn`. Returns `(verdict, need, ecn_new)`:

    - ECN_TRUNCATED: the inner header's ECN byte (and, for IPv4, its checksum) is past ip_end
      (`need` unchanged) or past the frame's end (`need` = the frame length);
    - ECN_DROP: RFC 6040 says drop (`need` = the bytes read);
    - ECN_OK: `ecn_new` is the inner ECN to write, or None when it stays.
    """
    req = ip + (2 if v6 else 12)
    if ip_end < req:
        return ECN_TRUNCATED, need, None
    if len(f) < req:
        return ECN_TRUNCATED, len(f), None
    iecn = ip_ecn(f, ip, v6)
    new = rfc6040_decap(oecn, iecn)
    if new is None:
        return ECN_DROP, req, None
    return ECN_OK, req, (new if new != iecn else None)


def set_ecn(b: bytearray, ip: int, ecn: int, v6: bool) -> None:
    """Write `ecn` into the IP header at `b[ip:]`; for IPv4 update its header checksum
    incrementally (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'))."""
    if v6:
        b[ip + 1] = (b[ip + 1] & 0xCF) | (ecn << 4)
        return
    m = b[ip] << 8 | b[ip + 1]
    b[ip + 1] = (b[ip + 1] & 0xFC) | ecn
    m2 = b[ip] << 8 | b[ip + 1]
    hc = b[ip + 10] << 8 | b[ip + 11]
    hc2 = ~ones_add(~hc & 0xFFFF, ~m & 0xFFFF, m2) & 0xFFFF
    b[ip + 10], b[ip + 11] = hc2 >> 8, hc2 & 0xFF


# ----------------------------------------------------------------------------------------------
# UDP tunnels (VXLAN, Geneve): the steps both decap contracts share
# ----------------------------------------------------------------------------------------------


class UdpOuter:
    """What steps 1-4 of a UDP tunnel decap contract found (docs/vxlan.md, docs/geneve.md).

    `verdict`: None when the frame is a tunnel frame whose outer IP and UDP headers passed every
    check, else the name of the outcome it gets ("PASS", "DROP_TRUNCATED", "DROP_IP_HEADER",
    "DROP_IP_CHECKSUM", "DROP_FRAGMENT": every UDP tunnel block has these). `need`: the bytes
    read so far, or the frame length when it ended first. The offsets are set when `verdict`
    is None: `L2`, `v6`, `U` (UDP header), `ip_end`, `oecn` (outer ECN)."""

    __slots__ = ("verdict", "need", "L2", "v6", "U", "ip_end", "oecn")

    def __init__(self, verdict: str | None, need: int):
        self.verdict = verdict
        self.need = need


def udp_tunnel_outer(f: bytes, port: int, port2: int | None = None, min_udp: int = 16) -> UdpOuter:
    """Steps 1-4 of the UDP tunnel decap contracts: L2 (up to two tags); the outer IPv4/IPv6
    header only far enough to find the UDP destination port (anything else: PASS); the port
    (`port`, or `port2` when not None; else PASS); then the outer checks of a tunnel frame:
    IPv4 header checksum, MF, total length >= IHL*4 + `min_udp` (IPv6: payload length >=
    `min_udp`), and the UDP length = ip_end - U. `min_udp` is the UDP header and the tunnel's
    fixed header (8 + 8 for VXLAN and Geneve)."""
    n = len(f)

    # 1. L2 (a third TPID is "other et": PASS below)
    l2 = l2_header(f)
    if l2 is None:
        return UdpOuter("PASS", n)
    L2, et = l2
    need = L2

    # 2. Outer IP, only far enough to find the UDP port
    if et == ET_IPV4:
        if n < L2 + 20:
            return UdpOuter("PASS", n)
        need = L2 + 20
        ver, ihl = f[L2] >> 4, f[L2] & 0xF
        frag_off = (f[L2 + 6] << 8 | f[L2 + 7]) & 0x1FFF
        if ver != 4 or ihl < 5 or f[L2 + 9] != IPPROTO_UDP or frag_off != 0:
            return UdpOuter("PASS", need)
        v6 = False
        U = L2 + ihl * 4
    elif et == ET_IPV6:
        if n < L2 + 40:
            return UdpOuter("PASS", n)
        need = L2 + 40
        if f[L2] >> 4 != 6 or f[L2 + 6] != IPPROTO_UDP:
            return UdpOuter("PASS", need)
        v6 = True
        ihl = 0
        U = L2 + 40
    else:
        return UdpOuter("PASS", need)

    # 3. UDP port
    if n < U + 4:
        return UdpOuter("PASS", n)
    need = U + 4
    dport = f[U + 2] << 8 | f[U + 3]
    if dport != port and (port2 is None or dport != port2):
        return UdpOuter("PASS", need)
    # From here on the frame is a tunnel frame: ending before a step's bytes is DROP_TRUNCATED.

    # 4. Outer checks
    if not v6:
        hl = ihl * 4
        if ones_sum(f[L2 : L2 + hl]) != 0xFFFF:
            return UdpOuter("DROP_IP_CHECKSUM", need)
        if f[L2 + 6] & 0x20:  # MF
            return UdpOuter("DROP_FRAGMENT", need)
        tlen = f[L2 + 2] << 8 | f[L2 + 3]
        if tlen < hl + min_udp:
            return UdpOuter("DROP_IP_HEADER", need)
        ip_end = L2 + tlen
    else:
        plen = f[L2 + 4] << 8 | f[L2 + 5]
        if plen < min_udp:
            return UdpOuter("DROP_IP_HEADER", need)
        ip_end = L2 + 40 + plen
    if n < U + 8:
        return UdpOuter("DROP_TRUNCATED", n)
    need = U + 8
    ulen = f[U + 4] << 8 | f[U + 5]
    if ulen != ip_end - U:
        return UdpOuter("DROP_IP_HEADER", need)

    o = UdpOuter(None, need)
    o.L2, o.v6, o.U, o.ip_end, o.oecn = L2, v6, U, ip_end, ip_ecn(f, L2, v6)
    return o


def vni_entry(table: dict[int, tuple[int, bool]] | None, vni: int) -> tuple[bool, int | None]:
    """The VNI table step: `(known, push)`. `table` None = disabled (every VNI known, no push);
    an entry is `(vlan_id, push)`; `push` is the 12-bit VLAN ID to push, or None."""
    if table is None:
        return True, None
    entry = table.get(vni)
    if entry is None:
        return False, None
    vlan_id, do_push = entry
    return True, (vlan_id & 0xFFF if do_push else None)


def inner_ethernet_step(f: bytes, K: int, oecn: int, ip_end: int, need: int) -> tuple[int, int, int | None, bool]:
    """The inner Ethernet frame at `K` (VXLAN step 7, Geneve's protocol 0x6558): it needs
    K+14 bytes inside [.., ip_end) and the frame; then RFC 6040 on the inner IP header at K+14
    when the inner EtherType (K+12..13) is IPv4/IPv6 and the outer ECN `oecn` is ECT(1) or CE.
    Returns `(verdict, need, ecn_new, ecn_v6)` with the verdicts of :func:`ecn_step`
    (ECN_TRUNCATED also for a short inner Ethernet header)."""
    if ip_end < K + 14:
        return ECN_TRUNCATED, need, None, False
    if len(f) < K + 14:
        return ECN_TRUNCATED, len(f), None, False
    need = K + 14
    iet = f[K + 12] << 8 | f[K + 13]
    ecn_v6 = iet == ET_IPV6
    if iet in (ET_IPV4, ET_IPV6) and oecn in (ECT1, CE):
        verdict, need, ecn_new = ecn_step(f, K + 14, ecn_v6, oecn, ip_end, need)
        return verdict, need, ecn_new, ecn_v6
    return ECN_OK, need, None, ecn_v6


def tunnel_output(f: bytes, K: int, ip_end: int, head: bytes = b"", ecn_at: int = 0,
                  ecn_new: int | None = None, ecn_v6: bool = False, push: int | None = None) -> bytes:
    """A decapsulated frame (the frame is whole: len(f) >= ip_end): `head` ++ f[K, ip_end), the
    inner IP header at `ecn_at` in f[K, ..) given ECN `ecn_new` (when not None; RFC 1624 for
    IPv4), and, when `push` is not None, an 802.1Q tag 81 00 (PCP 0, DEI 0, VID `push`)
    inserted at output byte 12."""
    inner = f[K:ip_end]
    if ecn_new is not None:
        b = bytearray(inner)
        set_ecn(b, ecn_at, ecn_new, ecn_v6)
        inner = bytes(b)
    out = head + inner if head else inner
    if push is not None:
        out = out[:12] + bytes((0x81, 0x00, push >> 8, push & 0xFF)) + out[12:]
    return out


def udp_checksum_ok(f: bytes, L2: int, U: int, ip_end: int, v6: bool) -> bool:
    """Late check: UDP checksum 0 (not computed), or pseudo-header + [U, ip_end) sums to 0xFFFF."""
    if f[U + 6] == 0 and f[U + 7] == 0:
        return True
    return ones_sum(udp_pseudo_header(f, L2, ip_end - U, v6) + f[U:ip_end]) == 0xFFFF


# ----------------------------------------------------------------------------------------------
# Frames and counters
# ----------------------------------------------------------------------------------------------


def frame_bytes(frame) -> bytes:
    """`frame` as bytes; ValueError when it is empty (an AXI4-Stream frame has a byte at least)."""
    f = bytes(frame)
    if not f:
        raise ValueError("an AXI4-Stream frame has at least one byte")
    return f


def beats(n_bytes: int, keep_w: int) -> int:
    """Beats of an `n_bytes` frame on a bus of `keep_w` bytes per beat."""
    return -(-n_bytes // keep_w)


def known_end(n: int, need: int, keep_w: int | None) -> bool:
    """Early or late (both decap contracts): the whole `n`-byte frame is in by the input beat
    that holds byte `need-1`, the beat the block decides at, with `keep_w` bytes per beat
    (None: 1)."""
    w = keep_w or 1
    return (n - 1) // w <= (need - 1) // w


def tally_counts(results, n_outcomes: int) -> tuple[list[int], list[int], int, int]:
    """(pkts[n_outcomes], bytes[n_outcomes] (input bytes), tx_pkts, tx_bytes) that a block's
    counters should show after `results` (anything with `outcome`, `in_len`, `output`)."""
    pkts = [0] * n_outcomes
    byts = [0] * n_outcomes
    tx_pkts = tx_bytes = 0
    for r in results:
        pkts[r.outcome] += 1
        byts[r.outcome] += r.in_len
        if r.output is not None:
            tx_pkts += 1
            tx_bytes += len(r.output)
    return pkts, byts, tx_pkts, tx_bytes

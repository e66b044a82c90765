"""Golden model of receive-side scaling (RSS): the Toeplitz hash of Microsoft's RSS
specification, the hash input per hash type, the symmetric mode, the indirection table, and the
frame parser that turns a raw Ethernet frame into the tuple (docs/rss.md).

Pure Python on bytes/ints (no scapy), like the other models. The RTL block rtl/host/rss_hash.sv
takes the parsed tuple (:class:`FlowTuple`) and is checked against :func:`rss` by tb/rss.

Hash types (the ``HashType`` codes are wirespeed's own; the NDIS flag each one stands for is in
``NDIS_FLAG``):

    NONE      0  no hash: unknown or malformed frame, or its type is not enabled
    IPV4      1  src, dst                       (8 bytes)
    TCP_IPV4  2  src, dst, sport, dport         (12 bytes)
    UDP_IPV4  3  src, dst, sport, dport         (12 bytes)
    IPV6      4  src, dst                       (32 bytes)
    TCP_IPV6  5  src, dst, sport, dport         (36 bytes)
    UDP_IPV6  6  src, dst, sport, dport         (36 bytes)

Enables: bit (type - 1) of ``RssConfig.enables`` enables a type. As the specification orders
it: a TCP (UDP) packet is hashed as TCP_IPVx (UDP_IPVx) when that type is enabled, else as IPVx
when that is enabled, else not at all; any other IP packet as IPVx when enabled. A frame that is
not hashed goes to ``default_queue`` (hash 0, type NONE).

Symmetric mode: before hashing, the (address, port) pairs are put in order, the smaller
(address, port) first, compared as one unsigned number (address high, port low; for the 2-tuple
types the port is left out). Both directions of a flow then give the same hash input, hence
the same hash and queue, with the configured key unchanged and no information of the tuple
lost (only its direction). The other common method, the key 0x6d5a repeated, makes every
16-bit word of the input weigh alike: the hash becomes a function of the XOR of the input's
16-bit words, so flows that differ by the same value in a source and a destination word
collide, and the user's key is not used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

__all__ = [
    "MS_KEY",
    "HashType",
    "NDIS_FLAG",
    "ALL_TYPES",
    "FlowTuple",
    "RssConfig",
    "RssResult",
    "toeplitz",
    "toeplitz_tables",
    "toeplitz_by_tables",
    "hash_type",
    "hash_input",
    "rss",
    "parse_frame",
    "rss_frame",
    "reverse",
    "GRE_PROTO",
    "VXLAN_PORT",
]

# The key of Microsoft's verification examples (and the default of the RTL after reset).
MS_KEY = bytes.fromhex(
    "6d5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa")
KEY_BYTES = 40
MAX_INPUT = 36          # IPv6 addresses and two ports

L3_NONE, L3_IPV4, L3_IPV6 = 0, 4, 6
L4_OTHER, L4_TCP, L4_UDP = 0, 6, 17

ET_IPV4 = 0x0800
ET_IPV6 = 0x86DD
ET_TEB = 0x6558         # GRE's transparent Ethernet bridging: an Ethernet frame follows
TPIDS = (0x8100, 0x88A8)
GRE_PROTO = 47
VXLAN_PORT = 4789


class HashType(IntEnum):
    NONE = 0
    IPV4 = 1
    TCP_IPV4 = 2
    UDP_IPV4 = 3
    IPV6 = 4
    TCP_IPV6 = 5
    UDP_IPV6 = 6


NDIS_FLAG = {HashType.IPV4: 0x100, HashType.TCP_IPV4: 0x200, HashType.UDP_IPV4: 0x4000,
             HashType.IPV6: 0x400, HashType.TCP_IPV6: 0x1000, HashType.UDP_IPV6: 0x8000}
ALL_TYPES = 0x3F        # every type enabled (the reset value of CTRL's enables)

PORTS = {HashType.TCP_IPV4, HashType.UDP_IPV4, HashType.TCP_IPV6, HashType.UDP_IPV6}


@dataclass(frozen=True)
class FlowTuple:
    """What the parser extracts: l3 4/6 (0: unknown or malformed), l4 6 TCP / 17 UDP / 0 other,
    addresses as unsigned ints (IPv4 32 bits, IPv6 128 bits), ports (0 when l4 is other);
    ``inner``: the tuple is a GRE/VXLAN packet's inner one (the option of :func:`parse_frame`),
    which the capture records say in their flags (docs/rss.md, "Inner headers")."""

    l3: int = L3_NONE
    l4: int = L4_OTHER
    src: int = 0
    dst: int = 0
    sport: int = 0
    dport: int = 0
    inner: bool = False


def reverse(t: FlowTuple) -> FlowTuple:
    """The other direction of the same flow."""
    return FlowTuple(t.l3, t.l4, t.dst, t.src, t.dport, t.sport, t.inner)


@dataclass
class RssConfig:
    key: bytes = MS_KEY
    enables: int = ALL_TYPES
    symmetric: bool = False
    table: list[int] = field(default_factory=lambda: [0] * 128)
    default_queue: int = 0


@dataclass(frozen=True)
class RssResult:
    hash: int
    htype: HashType
    queue: int


# --------------------------------------------------------------------------- Toeplitz


def toeplitz(key: bytes, data: bytes) -> int:
    """Microsoft's ComputeHash: for each input bit from the left (MSB of byte 0 first), a set
    bit XORs the left-most 32 bits of K into the result; K shifts left one bit per input bit."""
    if len(data) * 8 + 32 > len(key) * 8 + 8:
        raise ValueError(f"input of {len(data)} bytes needs a longer key than {len(key)} bytes")
    k = int.from_bytes(key, "big")
    kbits = len(key) * 8
    result = 0
    for i in range(len(data) * 8):
        if data[i >> 3] >> (7 - (i & 7)) & 1:
            # bits i .. i+31 of K (K[0] = the key's MSB); beyond the key's end: zeros
            sh = kbits - 32 - i
            window = (k >> sh) if sh >= 0 else (k << -sh)
            result ^= window & 0xFFFFFFFF
    return result


def toeplitz_tables(key: bytes, positions: int = MAX_INPUT) -> list[list[int]]:
    """The per-byte-position contribution tables the RTL builds when a key is loaded:
    table[p][v] = the hash of byte value v alone at input byte p."""
    out = []
    for p in range(positions):
        pad = bytes(p)
        out.append([toeplitz(key, pad + bytes([v])) for v in range(256)])
    return out


def toeplitz_by_tables(tables: list[list[int]], data: bytes) -> int:
    """The hash as the RTL forms it: XOR of every byte's contribution."""
    h = 0
    for p, v in enumerate(data):
        h ^= tables[p][v]
    return h


# --------------------------------------------------------------------------- RSS


def hash_type(t: FlowTuple, enables: int) -> HashType:
    """The type a tuple is hashed as under ``enables`` (see the module doc)."""
    def on(ht: HashType) -> bool:
        return bool(enables >> (ht - 1) & 1)

    if t.l3 == L3_IPV4:
        two, tcp, udp = HashType.IPV4, HashType.TCP_IPV4, HashType.UDP_IPV4
    elif t.l3 == L3_IPV6:
        two, tcp, udp = HashType.IPV6, HashType.TCP_IPV6, HashType.UDP_IPV6
    else:
        return HashType.NONE
    if t.l4 == L4_TCP and on(tcp):
        return tcp
    if t.l4 == L4_UDP and on(udp):
        return udp
    return two if on(two) else HashType.NONE


def hash_input(t: FlowTuple, ht: HashType, symmetric: bool = False) -> bytes:
    """The byte string hashed for ``t`` as type ``ht``: src, dst[, sport, dport] in network
    order; in symmetric mode the smaller (address, port) pair first."""
    if ht == HashType.NONE:
        return b""
    alen = 4 if ht <= HashType.UDP_IPV4 else 16
    ports = ht in PORTS
    a = (t.src, t.sport if ports else 0)
    b = (t.dst, t.dport if ports else 0)
    if symmetric and a > b:
        a, b = b, a
    out = a[0].to_bytes(alen, "big") + b[0].to_bytes(alen, "big")
    if ports:
        out += a[1].to_bytes(2, "big") + b[1].to_bytes(2, "big")
    return out


def rss(t: FlowTuple, cfg: RssConfig) -> RssResult:
    """Hash, type and queue of a tuple: the table entry the hash's low bits select (the table's
    size is a power of two), or the default queue when the tuple is not hashed."""
    ht = hash_type(t, cfg.enables)
    if ht == HashType.NONE:
        return RssResult(0, ht, cfg.default_queue)
    h = toeplitz(cfg.key, hash_input(t, ht, cfg.symmetric))
    n = len(cfg.table)
    assert n & (n - 1) == 0, "the indirection table's size is a power of two"
    return RssResult(h, ht, cfg.table[h & (n - 1)])


# --------------------------------------------------------------------------- frames


def _parse_ip(f: bytes, ip: int, end: int, v6: bool
              ) -> tuple[FlowTuple, int, int, int] | None:
    """The IP packet at ``ip`` whose bytes must end by ``end`` (the frame's length, or the outer
    IP packet's end for an inner packet): (tuple, protocol, L4 offset, IP payload length), or
    None when malformed. A fragment gives protocol -1 (its payload is not parsed)."""
    n = end - ip
    if not v6:
        if n < 20 or f[ip] >> 4 != 4:
            return None
        ihl = (f[ip] & 0xF) * 4
        tot = int.from_bytes(f[ip + 2:ip + 4], "big")
        if ihl < 20 or n < ihl or tot < ihl or n < tot:
            return None
        src = int.from_bytes(f[ip + 12:ip + 16], "big")
        dst = int.from_bytes(f[ip + 16:ip + 20], "big")
        frag = int.from_bytes(f[ip + 6:ip + 8], "big") & 0x3FFF   # MF and the offset
        if frag:
            return FlowTuple(L3_IPV4, L4_OTHER, src, dst), -1, ip + ihl, tot - ihl
        proto, l4, pay, l3 = f[ip + 9], ip + ihl, tot - ihl, L3_IPV4
    else:
        if n < 40 or f[ip] >> 4 != 6:
            return None
        pay = int.from_bytes(f[ip + 4:ip + 6], "big")
        if n < 40 + pay:
            return None
        proto = f[ip + 6]
        src = int.from_bytes(f[ip + 8:ip + 24], "big")
        dst = int.from_bytes(f[ip + 24:ip + 40], "big")
        l4, l3 = ip + 40, L3_IPV6
    if proto in (L4_TCP, L4_UDP):
        if pay < (20 if proto == L4_TCP else 8):
            return None
        return (FlowTuple(l3, proto, src, dst, int.from_bytes(f[l4:l4 + 2], "big"),
                          int.from_bytes(f[l4 + 2:l4 + 4], "big")), proto, l4, pay)
    return FlowTuple(l3, L4_OTHER, src, dst), proto, l4, pay


def _inner(f: bytes, proto: int, l4: int, pay: int, dport: int) -> FlowTuple | None:
    """The inner tuple of a GRE or VXLAN packet whose outer IP payload (``pay`` bytes) starts
    at ``l4``, or None (not a tunnel, or the tunnel or inner headers malformed): the outer
    tuple is then used (docs/rss.md, "Inner headers")."""
    end = l4 + pay                       # the outer IP packet's end: the inner packet's bound
    if proto == GRE_PROTO:
        if pay < 4 or f[l4] & 0x4F or f[l4 + 1]:
            return None                  # version != 0, or a reserved bit (RFC 2784) set
        hlen = 4 + 4 * (f[l4] >> 7 & 1) + 4 * (f[l4] >> 5 & 1) + 4 * (f[l4] >> 4 & 1)  # C, K, S
        et = int.from_bytes(f[l4 + 2:l4 + 4], "big")
        ip = l4 + hlen
        if et == ET_TEB:
            if end < ip + 14:
                return None
            et = int.from_bytes(f[ip + 12:ip + 14], "big")
            ip += 14
    elif proto == L4_UDP and dport == VXLAN_PORT:
        # UDP header (8), VXLAN header (8, the I flag set), inner Ethernet header (14)
        if pay < 30 or not f[l4 + 8] & 0x08:
            return None
        et = int.from_bytes(f[l4 + 28:l4 + 30], "big")
        ip = l4 + 30
    else:
        return None
    if et not in (ET_IPV4, ET_IPV6):     # inner VLAN tags included: not parsed
        return None
    r = _parse_ip(f, ip, end, et == ET_IPV6)
    if r is None:
        return None
    t = r[0]
    return FlowTuple(t.l3, t.l4, t.src, t.dst, t.sport, t.dport, True)


def parse_frame(f: bytes, inner: bool = False) -> FlowTuple:
    """The tuple of a raw Ethernet frame (no FCS): 0-2 VLAN tags (0x8100 / 0x88A8), then IPv4
    or IPv6 and TCP or UDP. Unknown or malformed frames give l3 = 0 (the default queue):

    * shorter than its headers, an EtherType other than IPv4/IPv6 (after at most two tags);
    * IPv4: version != 4, IHL < 5, the header or the total length beyond the frame, a total
      length below the header; IPv6: version != 6, the payload length beyond the frame;
    * a TCP (UDP) packet whose IP payload is shorter than a TCP (UDP) header (20, 8 bytes).

    An IPv4 fragment (MF set or a fragment offset) is hashed by its addresses only (l4 other),
    the first fragment included, as the specification requires; so is an IPv6 packet whose next
    header is not TCP or UDP (extension headers are not walked). IPv4 options are skipped. The
    IPv4 header checksum is not checked. Bytes after the IP packet (Ethernet padding) are
    ignored.

    ``inner`` (the capture's RSS_INNER bit): a well-formed outer packet, not a fragment, that
    is GRE (protocol 47: version 0, reserved bits 0, the C/K/S fields skipped; protocol type
    IPv4, IPv6, or 0x6558 then an untagged Ethernet header with EtherType IPv4/IPv6) or UDP to
    port 4789 (VXLAN: the I flag set, then an untagged Ethernet header with EtherType
    IPv4/IPv6) gives the inner packet's tuple (``inner`` set), parsed with the same rules, its
    lengths checked against the outer IP packet's end. Anything else of such a packet
    (another protocol type, inner tags, a malformed or truncated inner header) gives the outer
    tuple (docs/rss.md, "Inner headers")."""
    n = len(f)
    if n < 14:
        return FlowTuple()
    off = 12
    et = int.from_bytes(f[12:14], "big")
    for _ in range(2):
        if et not in TPIDS:
            break
        off += 4
        if n < off + 2:
            return FlowTuple()
        et = int.from_bytes(f[off:off + 2], "big")
    if et not in (ET_IPV4, ET_IPV6):
        return FlowTuple()
    r = _parse_ip(f, off + 2, n, et == ET_IPV6)
    if r is None:
        return FlowTuple()
    t, proto, l4, pay = r
    if inner and proto >= 0:
        it = _inner(f, proto, l4, pay, t.dport)
        if it is not None:
            return it
    return t


def rss_frame(f: bytes, cfg: RssConfig, inner: bool = False) -> RssResult:
    """RSS of a raw frame: :func:`parse_frame` (``inner``: the inner-header option), then
    :func:`rss`."""
    return rss(parse_frame(f, inner), cfg)

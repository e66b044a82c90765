"""Frame generators for the GRE decapsulation tests and scenarios (built with scapy).

- `seed_gre_frame(i)` / `seed_tcp_frame(i)`: the seed's frames, 88 bytes on the bus (92 with FCS).
- `gre_frame(...)`: one GRE frame with every knob the contract looks at, plus its offsets.
- `random_gre_case(rng)`: a `Case` drawn across every case in docs/gre_decap.md.
- `contract_cases()`: a deterministic list of named `Case`s, at least one per contract rule.

A `Case` is `(frame, bad, kind)`; `bytes(case)` is the frame, `bad` means "tuser=1 on the last
input beat" (MAC RX error).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, GRE, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

from .common import ipv4_checksum  # noqa: E402

__all__ = [
    "Case",
    "GreFrame",
    "seed_gre_frame",
    "seed_tcp_frame",
    "gre_frame",
    "plain_frame",
    "random_gre_case",
    "contract_cases",
    "fix_ipv4_checksum",
    "PUNT_PROTOS",
]

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"
PUNT_PROTOS = (0x0000, 0x88BE, 0x22EB, 0x8847, 0x880B, 0x0806, 0x8100, 0x1234, 0xFFFF)


@dataclass
class Case:
    frame: bytes
    bad: bool = False
    kind: str = ""

    def __bytes__(self) -> bytes:
        return self.frame

    def __len__(self) -> int:
        return len(self.frame)


@dataclass
class GreFrame:
    """A built GRE frame and where its headers are (the contract's L2, G, K, ip_end)."""

    frame: bytes
    L2: int
    G: int
    K: int
    ip_end: int
    v6: bool

    def __bytes__(self) -> bytes:
        return self.frame


# ----------------------------------------------------------------------------------------------
# The seed's frames
# ----------------------------------------------------------------------------------------------


def _seed_inner(i: int, payload_len: int):
    return (
        IP(src=f"192.168.{(i >> 8) & 255}.{i & 255}", dst="192.168.100.1", id=i & 0xFFFF, ttl=64)
        / TCP(sport=1024 + i % 60000, dport=80, seq=i & 0xFFFFFFFF, flags="A")
        / Raw(bytes((i + j) & 0xFF for j in range(payload_len)))
    )


def seed_gre_frame(i: int = 0) -> bytes:
    """Ether/IPv4/GRE(0x0800)/IPv4/TCP, 88 bytes on the bus (92 with FCS). Decapsulation removes
    24 bytes (outer IPv4 + GRE), leaving a 64-byte frame (68 with FCS)."""
    f = (
        Ether(dst=MAC_B, src=MAC_A)
        / IP(src="10.0.0.1", dst="10.0.0.2", id=i & 0xFFFF, ttl=64)
        / GRE(proto=0x0800)
        / _seed_inner(i, 10)
    )
    b = bytes(f)
    assert len(b) == 88, len(b)
    return b


def seed_tcp_frame(i: int = 0) -> bytes:
    """Plain Ether/IPv4/TCP of 88 bytes on the bus (the seed's 1:1 TCP traffic)."""
    b = bytes(Ether(dst=MAC_B, src=MAC_A) / _seed_inner(i, 34))
    assert len(b) == 88, len(b)
    return b


# ----------------------------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------------------------


def fix_ipv4_checksum(frame: bytes | bytearray, off: int) -> bytes:
    """Rewrite the IPv4 header checksum of the header at `off` (uses its IHL)."""
    b = bytearray(frame)
    hl = (b[off] & 0xF) * 4
    c = ipv4_checksum(bytes(b[off : off + hl]))
    b[off + 10], b[off + 11] = c >> 8, c & 0xFF
    return bytes(b)


def _mac(rng: random.Random) -> str:
    v = rng.getrandbits(48) & ~(1 << 40)  # unicast
    return ":".join(f"{(v >> (8 * k)) & 0xFF:02x}" for k in range(5, -1, -1))


def _ip4(rng: random.Random) -> str:
    return f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"


def _ip6(rng: random.Random) -> str:
    return "2001:db8:" + ":".join(f"{rng.getrandbits(16):x}" for _ in range(6))


def _rbytes(rng: random.Random, n: int) -> bytes:
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n > 0 else b""


def _l2(tags=(), dst=MAC_B, src=MAC_A):
    """Ether with up to two (or more) tags: tags = sequence of ("q"|"ad", vid)."""
    p = Ether(dst=dst, src=src)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return p


def _outer_ip(src: str, dst: str, *, v6: bool, tos: int, proto: int, ihl: int = 5, ttl: int = 64,
              ip_id: int = 0x1234, ip_flags: int = 0, frag: int = 0, tlen: int | None = None):
    """The outer IPv4 (with NOP options up to `ihl`) or IPv6 header of a tunnel frame; for an IPv6
    outer, addresses without a ':' become 2001:db8::1 / ::2. `tlen` overrides the IPv4 total
    length (IPv6 payload length)."""
    if v6:
        ip = IPv6(src=src if ":" in src else "2001:db8::1", dst=dst if ":" in dst else "2001:db8::2",
                  tc=tos, nh=proto, hlim=ttl)
        if tlen is not None:
            ip.plen = tlen
    else:
        ip = IP(src=src, dst=dst, tos=tos, ttl=ttl, id=ip_id, flags=ip_flags, frag=frag, proto=proto,
                options=[IPOption_NOP()] * (4 * (ihl - 5)) if ihl > 5 else [])
        if tlen is not None:
            ip.len = tlen
    return ip


def _outer_ip_end(b: bytearray, L2: int, v6: bool, ip_csum: int | None) -> int:
    """Set the outer IPv4 header checksum of the built frame `b` (valid for the final header, or
    `ip_csum` as given; IPv6 has none) and return ip_end, where the outer IP packet ends."""
    if v6:
        return L2 + 40 + (b[L2 + 4] << 8 | b[L2 + 5])
    if ip_csum is None:
        b[:] = fix_ipv4_checksum(b, L2)
    else:
        b[L2 + 10], b[L2 + 11] = ip_csum >> 8, ip_csum & 0xFF
    return L2 + (b[L2 + 2] << 8 | b[L2 + 3])


def _padded(b: bytearray, pad: bytes, pad_to_min: bool) -> bytes:
    """`b` + `pad`, then zero padding up to the 60-byte minimum when `pad_to_min`."""
    b += pad
    if pad_to_min and len(b) < 60:
        b += bytes(60 - len(b))
    return bytes(b)


def _inner_ipv4(rng, paylen: int, ecn: int = 0, l4: str | None = None):
    l4 = l4 or rng.choice(("tcp", "udp", "icmp"))
    ip = IP(src=_ip4(rng), dst=_ip4(rng), tos=(rng.getrandbits(6) << 2) | ecn, id=rng.getrandbits(16),
            ttl=rng.randint(1, 255), flags=rng.choice((0, 2)))
    if l4 == "tcp":
        p = ip / TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), seq=rng.getrandbits(32), flags="PA")
    elif l4 == "udp":
        p = ip / UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16))
    else:
        p = ip / ICMP(id=rng.getrandbits(16), seq=rng.getrandbits(16))
    return p / Raw(_rbytes(rng, max(0, paylen)))


def _inner_ipv6(rng, paylen: int, ecn: int = 0, l4: str | None = None):
    l4 = l4 or rng.choice(("tcp", "udp"))
    ip = IPv6(src=_ip6(rng), dst=_ip6(rng), tc=(rng.getrandbits(6) << 2) | ecn, fl=rng.getrandbits(20),
              hlim=rng.randint(1, 255))
    if l4 == "tcp":
        p = ip / TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), flags="S")
    else:
        p = ip / UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16))
    return p / Raw(_rbytes(rng, max(0, paylen)))


def gre_frame(
    inner: bytes,
    *,
    proto: int = 0x0800,
    tags=(),
    v6: bool = False,
    ihl: int = 5,
    outer_ecn: int = 0,
    outer_tos: int | None = None,
    src: str = "10.0.0.1",
    dst: str = "10.0.0.2",
    c: bool = False,
    k: bool = False,
    s: bool = False,
    key: int = 0x12345678,
    seq: int = 1,
    gre_chksum: int | None = None,
    gre_extra_flags: int = 0,
    ip_flags: int = 0,
    frag: int = 0,
    tlen: int | None = None,
    ip_csum: int | None = None,
    pad: bytes = b"",
    pad_to_min: bool = True,
    dst_mac: str = MAC_B,
    src_mac: str = MAC_A,
) -> GreFrame:
    """Ether[/tags]/IPv4-or-IPv6/GRE/`inner`, then `pad` (and zero padding up to 60 bytes).

    `tlen` overrides the IPv4 total length (or IPv6 payload length); the outer IPv4 checksum is
    computed over the final header unless `ip_csum` forces a value. `gre_extra_flags` is OR-ed
    into the GRE flags word (reserved bits, version) after scapy built it.
    """
    tos = (outer_tos if outer_tos is not None else 0) & 0xFC | outer_ecn
    ip = _outer_ip(src, dst, v6=v6, tos=tos, proto=47, ihl=ihl, ip_flags=ip_flags, frag=frag, tlen=tlen)
    g = GRE(chksum_present=int(c), key_present=int(k), seqnum_present=int(s), proto=proto)
    if k:
        g.key = key
    if s:
        g.sequence_number = seq
    if c and gre_chksum is not None:
        g.chksum = gre_chksum
    pkt = _l2(tags, dst_mac, src_mac) / ip / g / Raw(inner)
    b = bytearray(bytes(pkt))
    L2 = 14 + 4 * len(tags)
    G = L2 + (40 if v6 else ihl * 4)
    if gre_extra_flags:
        b[G] |= gre_extra_flags >> 8
        b[G + 1] |= gre_extra_flags & 0xFF
    ip_end = _outer_ip_end(b, L2, v6, ip_csum)
    gre_len = 4 + 4 * (int(c) + int(k) + int(s))
    return GreFrame(_padded(b, pad, pad_to_min), L2, G, G + gre_len, ip_end, v6)


def plain_frame(rng: random.Random, length: int, tags=(), kind: str | None = None) -> bytes:
    """A non-GRE frame of about `length` bytes: IPv4 TCP/UDP/ICMP, IPv6 TCP/UDP, ARP or other L2."""
    kind = kind or rng.choice(("tcp4", "tcp4", "udp4", "icmp4", "tcp6", "udp6", "arp", "other"))
    l2 = _l2(tags, _mac(rng), _mac(rng))
    hdr = 14 + 4 * len(tags)
    if kind in ("tcp4", "udp4", "icmp4"):
        p = l2 / _inner_ipv4(rng, 0, rng.getrandbits(2), kind[:-1])
        p = l2 / _inner_ipv4(rng, length - len(p), rng.getrandbits(2), kind[:-1])
    elif kind in ("tcp6", "udp6"):
        p = l2 / _inner_ipv6(rng, 0, 0, kind[:-1])
        p = l2 / _inner_ipv6(rng, length - len(p), rng.getrandbits(2), kind[:-1])
    elif kind == "arp":
        p = l2 / ARP(psrc=_ip4(rng), pdst=_ip4(rng), hwsrc=_mac(rng))
    else:
        et = rng.choice((0x88CC, 0x8847, 0x88E5, 0x9000, 0x0842, 0x8035, 0x0600, rng.getrandbits(16)))
        b = bytes(l2)
        b = b[: hdr - 2] + et.to_bytes(2, "big") + _rbytes(rng, max(0, length - hdr))
        return b + bytes(max(0, 60 - len(b)))
    b = bytes(p)
    return b + bytes(max(0, 60 - len(b)))


# ----------------------------------------------------------------------------------------------
# Random cases across the contract
# ----------------------------------------------------------------------------------------------


def _rand_len(rng: random.Random, max_len: int, big: float) -> int:
    r = rng.random()
    if r < big:
        n = rng.randint(1600, 9600)
    elif r < big + 0.15:
        n = rng.randint(200, 1600)
    else:
        n = rng.randint(60, 200)
    return max(1, min(n, max_len))


def _rand_tags(rng: random.Random):
    r = rng.random()
    if r < 0.6:
        return ()
    if r < 0.8:
        return (("q", rng.randint(1, 4094)),)
    if r < 0.9:
        return (("ad", rng.randint(1, 4094)), ("q", rng.randint(1, 4094)))
    return (("q", rng.randint(1, 4094)), ("q", rng.randint(1, 4094)))


GRE_MUTATIONS = (
    "ip_csum", "ip_version", "ihl_small", "frag_mf", "frag_off", "tlen_small", "tlen_gre", "tlen_big",
    "v6_version", "v6_plen_small", "gre_version", "gre_reserved", "gre_routing", "gre_csum", "ecn_short",
    "ecn_drop", "multi",
)


def _random_gre(rng: random.Random, total: int, mutation: str | None = None) -> GreFrame:
    """A random GRE frame of about `total` bytes, optionally with one contract violation."""
    m = mutation
    v6 = rng.random() < 0.2
    if m in ("ip_csum", "ip_version", "ihl_small", "frag_mf", "frag_off", "tlen_small", "tlen_gre"):
        v6 = False
    if m in ("v6_version", "v6_plen_small"):
        v6 = True
    tags = _rand_tags(rng)
    ihl = 5 if (v6 or rng.random() < 0.7) else rng.randint(6, 15)
    c, k, s = (rng.random() < 0.35 for _ in range(3))
    if m == "gre_csum":
        c = True
    if m == "tlen_gre" and not (c or k or s):
        k = True
    r = rng.random()
    if r < 0.45:
        proto = 0x0800
    elif r < 0.65:
        proto = 0x86DD
    elif r < 0.85:
        proto = 0x6558
    else:
        proto = rng.choice(PUNT_PROTOS)
    if m in ("ecn_short", "ecn_drop"):
        proto = rng.choice((0x0800, 0x86DD))
    outer_ecn = rng.getrandbits(2)
    inner_ecn = rng.getrandbits(2)
    if m == "ecn_drop":
        outer_ecn, inner_ecn = 3, 0
    if m == "ecn_short":
        outer_ecn = rng.choice((1, 3))
    L2 = 14 + 4 * len(tags)
    overhead = L2 + (40 if v6 else 4 * ihl) + 4 + 4 * (c + k + s)
    room = max(0, total - overhead)
    if m == "ecn_short":
        inner = _rbytes(rng, rng.randint(0, 11 if proto == 0x0800 else 1))
        if inner:
            inner = bytes([0x45 if proto == 0x0800 else 0x60]) + inner[1:]
    elif proto == 0x0800:
        inner = bytes(_inner_ipv4(rng, room - 40, inner_ecn))
    elif proto == 0x86DD:
        inner = bytes(_inner_ipv6(rng, room - 60, inner_ecn))
    elif proto == 0x6558:
        itags = () if rng.random() < 0.8 else (("q", rng.randint(1, 4094)),)
        ipay = _inner_ipv4(rng, room - 54 - 4 * len(itags), inner_ecn) if rng.random() < 0.7 else \
            _inner_ipv6(rng, room - 74 - 4 * len(itags), inner_ecn)
        inner = bytes(_l2(itags, _mac(rng), _mac(rng)) / ipay)
    else:
        inner = _rbytes(rng, room if rng.random() < 0.9 else 0)
    kw = dict(proto=proto, tags=tags, v6=v6, ihl=ihl, outer_ecn=outer_ecn, outer_tos=rng.getrandbits(8),
              c=c, k=k, s=s, key=rng.getrandbits(32), seq=rng.getrandbits(32),
              src=_ip4(rng) if rng.random() < 0.5 else "10.0.0.1", dst=_ip4(rng) if rng.random() < 0.5 else "10.0.0.2",
              ip_flags=rng.choice((0, 2)), dst_mac=_mac(rng), src_mac=_mac(rng))
    if v6:
        kw["src"], kw["dst"] = _ip6(rng), _ip6(rng)
    if rng.random() < 0.1:
        kw["pad"] = _rbytes(rng, rng.randint(1, 64))  # Ethernet padding / trailer beyond ip_end
    pay_len = len(inner)
    gre_len = 4 + 4 * (c + k + s)
    hl = 40 if v6 else 4 * ihl

    muts = [m]
    if m == "multi":
        muts = rng.sample([x for x in GRE_MUTATIONS if x != "multi" and not x.startswith("v6")], rng.randint(2, 3))
        if v6:
            muts = rng.sample(["gre_version", "gre_reserved", "gre_csum", "tlen_big", "v6_plen_small", "v6_version"], 2)
    if "gre_csum" in muts:
        kw["c"] = c = True
        gre_len = 4 + 4 * (c + k + s)
        kw["gre_chksum"] = rng.getrandbits(16)  # wrong with overwhelming probability
    if "frag_mf" in muts:
        kw["ip_flags"] = 1 | rng.choice((0, 2))
    if "frag_off" in muts:
        kw["frag"] = rng.randint(1, 0x1FFF)
    if "tlen_small" in muts:
        kw["tlen"] = rng.randint(0, hl + 3)
    if "tlen_gre" in muts and gre_len > 4:
        kw["tlen"] = rng.randint(hl + 4, hl + gre_len - 1)
    if "tlen_big" in muts:
        kw["tlen"] = (hl if not v6 else 0) + gre_len + pay_len + rng.randint(1, 2000)
    if "v6_plen_small" in muts:
        kw["tlen"] = rng.randint(0, 3)
    if "gre_version" in muts:
        kw["gre_extra_flags"] = kw.get("gre_extra_flags", 0) | rng.randint(1, 7)
    if "gre_reserved" in muts:
        kw["gre_extra_flags"] = kw.get("gre_extra_flags", 0) | (1 << rng.choice((14, 11, 10, 9, 8, 7, 6, 5, 4, 3)))
    if "gre_routing" in muts:
        kw["gre_extra_flags"] = kw.get("gre_extra_flags", 0) | 0x4000
    if proto == 0x6558 and kw.get("tlen") is not None and kw["tlen"] == hl * (not v6) + gre_len:
        kw["tlen"] += 1  # keep TEB payloads non-empty (an empty output frame is undefined)
    gf = gre_frame(inner, **kw)
    b = bytearray(gf.frame)
    L2 = gf.L2
    fix = False
    if "ip_version" in muts and not v6:
        b[L2] = (rng.choice([x for x in range(16) if x != 4]) << 4) | (b[L2] & 0xF)
        fix = True
    if "ihl_small" in muts and not v6:
        b[L2] = 0x40 | rng.randint(0, 4)
        fix = rng.random() < 0.5
    if "v6_version" in muts and v6:
        b[L2] = (rng.choice([x for x in range(16) if x != 6]) << 4) | (b[L2] & 0xF)
    if fix:
        # a checksum over a 20-byte header, so only the version decides
        cs = ipv4_checksum(bytes(b[L2 : L2 + 20]))
        b[L2 + 10], b[L2 + 11] = cs >> 8, cs & 0xFF
    if "ip_csum" in muts and not v6:
        b[L2 + 10] ^= 1 << rng.randint(0, 7)
    return GreFrame(bytes(b), gf.L2, gf.G, gf.K, gf.ip_end, v6)


def random_gre_case(rng: random.Random, max_len: int = 9600, big: float = 0.05, bad_prob: float = 0.03) -> Case:
    """One frame drawn across every case of the contract (see module doc). `big` is the share of
    1600..9600-byte frames; `max_len` caps every frame; `bad_prob` the share of RX-error frames."""
    r = rng.random()
    total = _rand_len(rng, max_len, big)
    bad = rng.random() < bad_prob
    if r < 0.30:
        gf = _random_gre(rng, total)
        kind, frame = "gre", gf.frame
    elif r < 0.55:
        m = rng.choice(GRE_MUTATIONS)
        gf = _random_gre(rng, total, m)
        kind, frame = f"gre_{m}", gf.frame
    elif r < 0.65:
        # truncation at (or right around) a header boundary
        gf = _random_gre(rng, total, None if rng.random() < 0.8 else rng.choice(GRE_MUTATIONS))
        L2, G, K, e = gf.L2, gf.G, gf.K, gf.ip_end
        cuts = [12, 13, 14, L2 - 2, L2, L2 + 7, L2 + 10, L2 + 20, G, G + 2, G + 4, G + 8, G + 12, K, K + 1,
                K + 2, K + 12, K + 20, e - 1, e]
        cut = rng.choice(cuts) + rng.choice((-1, 0, 0, 1))
        cut = max(1, min(cut, len(gf.frame)))
        kind, frame = "gre_cut", gf.frame[:cut]
    elif r < 0.88:
        frame = plain_frame(rng, total, _rand_tags(rng))
        kind = "plain"
    elif r < 0.93:
        # three tags (PASS), non-IP, ARP
        if rng.random() < 0.5:
            tags = (("ad", 1), ("q", 2), ("q", 3))
            gf = _random_gre(rng, total)
            body = gf.frame[gf.L2 - 2:]
            frame = bytes(_l2(tags)) [:-2] + body
            kind = "three_tags"
        else:
            frame = plain_frame(rng, total, _rand_tags(rng), kind=rng.choice(("arp", "other")))
            kind = "non_ip"
    elif r < 0.97:
        # runts and frames cut anywhere before the GRE header
        src = _random_gre(rng, 100).frame if rng.random() < 0.7 else plain_frame(rng, 100)
        frame = src[: rng.randint(1, 40)]
        kind = "runt"
    else:
        # a GRE-marked frame whose "headers" are random bytes
        gf = _random_gre(rng, total)
        b = bytearray(gf.frame)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(gf.L2, min(len(b), gf.K + 20))
            b[i] = rng.getrandbits(8)
        kind, frame = "gre_fuzz", bytes(b)
    frame = frame[:max_len]
    return Case(frame, bad, kind)


# ----------------------------------------------------------------------------------------------
# Directed cases (one or more per contract rule)
# ----------------------------------------------------------------------------------------------


def contract_cases(seed: int = 1) -> list[Case]:
    """Named frames covering every rule of docs/gre_decap.md with the default configuration
    (allow-list and policy are exercised separately). Deterministic for a given seed."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(kind, frame, bad=False):
        cs.append(Case(bytes(frame), bad, kind))

    def ip4(pay=20, ecn=0, l4="tcp"):
        return bytes(_inner_ipv4(rng, pay, ecn, l4))

    def ip6(pay=20, ecn=0):
        return bytes(_inner_ipv6(rng, pay, ecn, "udp"))

    def teb(pay=30):
        return bytes(_l2((), _mac(rng), _mac(rng)) / _inner_ipv4(rng, pay, 0, "udp"))

    # seed traffic
    for i in range(3):
        add("seed_gre", seed_gre_frame(i))
        add("seed_tcp", seed_tcp_frame(i))
    # 1. L2
    for n in (1, 2, 7, 12, 13):
        add(f"short_{n}", seed_gre_frame(0)[:n])
    add("et_14", bytes(Ether(dst=MAC_B, src=MAC_A, type=0x0800)))
    add("vlan_cut_16", bytes(_l2((("q", 5),)))[:16])
    add("vlan_cut_17", bytes(_l2((("q", 5),)) / IP(proto=47))[:17])
    add("qinq_cut_21", bytes(_l2((("ad", 5), ("q", 6))) / IP(proto=47))[:21])
    add("three_tags", bytes(_l2((("q", 1), ("q", 2), ("q", 3))) / IP(proto=47) / GRE() / Raw(ip4())))
    add("arp", plain_frame(rng, 60, kind="arp"))
    add("other_et", plain_frame(rng, 100, kind="other"))
    # 2. candidates
    add("ipv4_cut_23", bytes(_l2() / IP(proto=47) / GRE())[:23])
    add("ipv4_cut_24", bytes(_l2() / IP(proto=47) / GRE())[:24])
    add("ipv6_cut_20", bytes(_l2() / IPv6(nh=47) / GRE())[:20])
    add("ipv6_cut_21", bytes(_l2() / IPv6(nh=47) / GRE())[:21])
    for kind in ("tcp4", "udp4", "icmp4", "tcp6", "udp6"):
        add(f"plain_{kind}", plain_frame(rng, 120, kind=kind))
        add(f"plain_{kind}_vlan", plain_frame(rng, 120, (("q", 10),), kind=kind))
    add("plain_tcp4_qinq", plain_frame(rng, 200, (("ad", 10), ("q", 20)), kind="tcp4"))
    # 3./4. outer headers and GRE, well formed
    for tags in ((), (("q", 7),), (("ad", 7), ("q", 8)), (("q", 7), ("q", 8))):
        for v6 in (False, True):
            for proto, inner in ((0x0800, ip4()), (0x86DD, ip6()), (0x6558, teb())):
                tname = "".join(t for t, _ in tags) or "untagged"
                add(f"ok_{tname}_{'v6' if v6 else 'v4'}_{proto:04x}",
                    gre_frame(inner, proto=proto, tags=tags, v6=v6).frame)
    for ihl in (6, 7, 10, 15):
        add(f"ok_ihl{ihl}", gre_frame(ip4(), ihl=ihl).frame)
    for c in (0, 1):
        for k in (0, 1):
            for s in (0, 1):
                for proto, inner in ((0x0800, ip4()), (0x6558, teb()), (0x86DD, ip6())):
                    add(f"ok_c{c}k{k}s{s}_{proto:04x}", gre_frame(inner, proto=proto, c=c, k=k, s=s).frame)
                    add(f"ok_c{c}k{k}s{s}_{proto:04x}_v6", gre_frame(inner, proto=proto, c=c, k=k, s=s, v6=True).frame)
    add("ok_df", gre_frame(ip4(), ip_flags=2).frame)
    add("ok_evil_bit", gre_frame(ip4(), ip_flags=4).frame)
    add("ok_pad", gre_frame(ip4(), pad=bytes(range(30))).frame)
    add("ok_pad_csum", gre_frame(ip4(), pad=b"\xff" * 7, c=True).frame)
    add("ok_min_inner", gre_frame(b"", proto=0x0800).frame)  # L3 with empty payload: L2 header only
    add("ok_teb_1byte", gre_frame(b"\xaa", proto=0x6558).frame)
    add("ok_big", gre_frame(ip4(9000), c=True, k=True).frame)
    # punts
    for p in PUNT_PROTOS:
        add(f"punt_{p:04x}", gre_frame(_rbytes(rng, 40), proto=p).frame)
    add("punt_keepalive_empty", gre_frame(b"", proto=0x0000).frame)
    add("punt_bad_gre_csum", gre_frame(_rbytes(rng, 40), proto=0x88BE, c=True, gre_chksum=0x1234).frame)
    add("punt_truncated", gre_frame(_rbytes(rng, 40), proto=0x88BE, tlen=500).frame)
    # malformed outer IPv4
    f = bytearray(gre_frame(ip4()).frame)
    f[14] = 0x65
    add("ip_version_6_in_v4", fix_ipv4_checksum(f, 14))
    for ihl in (0, 1, 4):
        f = bytearray(gre_frame(ip4()).frame)
        f[14] = 0x40 | ihl
        add(f"ihl_{ihl}", f)
    add("ip_csum_bad", gre_frame(ip4(), ip_csum=0x0000).frame)
    add("ip_csum_bad_ihl6", gre_frame(ip4(), ihl=6, ip_csum=0xFFFF).frame)
    add("frag_mf", gre_frame(ip4(), ip_flags=1).frame)
    add("frag_off", gre_frame(ip4(), frag=1).frame)
    add("frag_off_max", gre_frame(ip4(), frag=0x1FFF).frame)
    add("frag_and_csum", gre_frame(ip4(), frag=5, ip_csum=0x1111).frame)
    add("frag_and_tlen", gre_frame(ip4(), frag=5, tlen=10).frame)
    for tl in (0, 19, 20, 23):
        add(f"tlen_{tl}", gre_frame(ip4(), tlen=tl).frame)
    add("tlen_24_punt", gre_frame(b"", proto=0x0000, tlen=24).frame)
    add("tlen_short_for_key", gre_frame(ip4(), k=True, tlen=27).frame)
    add("tlen_short_for_cks", gre_frame(ip4(), c=True, k=True, s=True, tlen=35).frame)
    add("tlen_exact_cks", gre_frame(b"", proto=0x0800, c=True, k=True, s=True).frame)
    # outer IPv6
    f = bytearray(gre_frame(ip6(), proto=0x86DD, v6=True).frame)
    f[14] = 0x40 | (f[14] & 0xF)
    add("v6_version_4", f)
    for pl in (0, 3):
        add(f"v6_plen_{pl}", gre_frame(ip4(), v6=True, tlen=pl).frame)
    add("v6_plen_big", gre_frame(ip4(), v6=True, tlen=400).frame)
    # GRE header
    for v in (1, 7):
        add(f"gre_version_{v}", gre_frame(ip4(), gre_extra_flags=v).frame)
    for bit in (14, 11, 10, 9, 8, 7, 6, 5, 4, 3):
        add(f"gre_bit_{bit}", gre_frame(ip4(), gre_extra_flags=1 << bit).frame)
    add("gre_bad_csum_l3", gre_frame(ip4(), c=True, gre_chksum=0xBEEF).frame)
    add("gre_bad_csum_teb", gre_frame(teb(), proto=0x6558, c=True, k=True, gre_chksum=0x0001).frame)
    add("gre_bad_csum_big", gre_frame(ip4(3000), c=True, gre_chksum=0x0001).frame)
    add("gre_bad_csum_v6", gre_frame(ip6(), proto=0x86DD, v6=True, c=True, gre_chksum=0x0001).frame)
    # ECN: full 4x4 for IPv4 and IPv6 inner
    for o in range(4):
        for i in range(4):
            add(f"ecn_v4_o{o}_i{i}", gre_frame(ip4(30, i), outer_ecn=o).frame)
            add(f"ecn_v6_o{o}_i{i}", gre_frame(ip6(30, i), proto=0x86DD, outer_ecn=o, v6=bool(i & 1)).frame)
            add(f"ecn_teb_o{o}_i{i}", gre_frame(bytes(_l2() / _inner_ipv4(rng, 10, i)), proto=0x6558, outer_ecn=o).frame)
    for o in (1, 3):
        add(f"ecn_short_v4_o{o}", gre_frame(ip4(0)[:11], outer_ecn=o).frame)
        add(f"ecn_short_v6_o{o}", gre_frame(ip6(0)[:1], proto=0x86DD, outer_ecn=o).frame)
        add(f"ecn_exact_v4_o{o}", gre_frame(ip4(0)[:12], outer_ecn=o).frame)
        add(f"ecn_exact_v6_o{o}", gre_frame(bytes([0x60, 0x00]), proto=0x86DD, outer_ecn=o).frame)
        add(f"ecn_frame_cut_v4_o{o}", gre_frame(ip4(40, 2), outer_ecn=o, pad_to_min=False).frame[:14 + 24 + 11])
    add("ecn_csum_edge", gre_frame(fix_ipv4_checksum(bytes.fromhex("45fe0020ffffffff40060000ffffffffffffffff") + bytes(12), 0),
                                   outer_ecn=3).frame)
    add("ecn_csum_ffff", gre_frame(bytes.fromhex("4502002000000000000600000000000000000000") + bytes(12), outer_ecn=3).frame)
    # 8. truncation (early and late)
    base = gre_frame(ip4(200), pad_to_min=False).frame
    for cut in (15, 33, 34, 36, 37, 38, 39, 50, 60, 64, 65, 100, 128, 129, len(base) - 1):
        add(f"cut_{cut}", base[:cut])
    base = gre_frame(ip4(200), c=True, k=True, s=True, pad_to_min=False).frame
    for cut in (38, 42, 49, 50, 51, 100, len(base) - 1):
        add(f"cut_cks_{cut}", base[:cut])
    add("tlen_big_late", gre_frame(ip4(300), tlen=2000).frame)
    add("tlen_big_teb", gre_frame(teb(300), proto=0x6558, tlen=2000).frame)
    # RX errors on every class
    for kind, frame in (
        ("rx_err_pass", seed_tcp_frame(7)),
        ("rx_err_decap", seed_gre_frame(7)),
        ("rx_err_decap_big", gre_frame(ip4(1000)).frame),
        ("rx_err_punt", gre_frame(_rbytes(rng, 200), proto=0x88BE).frame),
        ("rx_err_drop", gre_frame(ip4(), ip_csum=0).frame),
        ("rx_err_cut", base[:100]),
        ("rx_err_short", b"\x01\x02\x03"),
        ("rx_err_big_pass", plain_frame(rng, 3000, kind="udp4")),
    ):
        add(kind, frame, bad=True)
    # sizes
    for n in (60, 61, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1514, 1518, 4000, 9600):
        add(f"plain_len_{n}", plain_frame(rng, n, kind="udp4"))
        g = gre_frame(ip4(max(0, n - 78)), pad_to_min=False).frame
        add(f"gre_len_{len(g)}", g)
    return cs

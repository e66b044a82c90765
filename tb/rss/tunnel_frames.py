"""GRE and VXLAN frames for the inner-header RSS option (docs/rss.md, "Inner headers"): scapy
builds the IP packets (lengths and checksums), the L2, GRE and VXLAN headers are written here
byte by byte so that every flag and reserved bit can be set as a test needs.

Used by the model tests (test_rss_inner_model.py), the RTL bench (rss_parse_tb.py) and the
end-to-end capture test (test_rss_inner_capture.py)."""

from __future__ import annotations

import random
import struct

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

MAC_A = bytes.fromhex("020000000001")
MAC_B = bytes.fromhex("020000000002")


def l2(et: int, tags: int = 0, rng: random.Random | None = None) -> bytes:
    """An Ethernet header with ``tags`` VLAN tags (the outer one 0x88A8 when two)."""
    out = MAC_B + MAC_A
    tpids = [0x88A8, 0x8100][-tags:] if tags else []
    for t in tpids:
        out += struct.pack("!HH", t, (rng.getrandbits(12) if rng else 5))
    return out + struct.pack("!H", et)


def gre_hdr(ptype: int, c: bool = False, k: bool = False, s: bool = False, ver: int = 0,
            rsvd: int = 0, key: int = 0x1234, seq: int = 7) -> bytes:
    """RFC 2784/2890 header: C K S, reserved bits (``rsvd``: bits 1 and 4..12 of the first
    16, as a mask over them) and version, protocol type, then checksum+reserved1, key, seq
    (the checksum left 0: the parser does not check it)."""
    flags = (c << 15) | (k << 13) | (s << 12) | (rsvd & 0x4FF8) | (ver & 7)
    out = struct.pack("!HH", flags, ptype)
    if c:
        out += bytes(4)
    if k:
        out += struct.pack("!I", key)
    if s:
        out += struct.pack("!I", seq)
    return out


def vxlan_hdr(vni: int = 42, flags: int = 0x08) -> bytes:
    return bytes([flags, 0, 0, 0]) + struct.pack("!I", vni << 8)


def rand_v4(rng: random.Random) -> str:
    return ".".join(str(rng.randint(1, 254)) for _ in range(4))


def rand_v6(rng: random.Random) -> str:
    return ":".join(f"{rng.getrandbits(16):x}" for _ in range(8))


def inner_packet(rng: random.Random, v6: bool | None = None, l4: str | None = None,
                 src: str | None = None, dst: str | None = None, sport: int | None = None,
                 dport: int | None = None, frag: bool = True) -> bytes:
    """An inner IP packet: IPv4 (options sometimes, fragments sometimes unless ``frag`` is
    False) or IPv6, carrying TCP, UDP, ICMP or an unknown protocol."""
    v6 = rng.random() < 0.4 if v6 is None else v6
    l4 = l4 or rng.choice(["tcp", "udp", "tcp", "udp", "icmp", "other"])
    sport = rng.randint(1, 65535) if sport is None else sport
    dport = rng.randint(1, 65535) if dport is None else dport
    pay = Raw(bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 7, 30]))))
    if l4 == "tcp":
        up = TCP(sport=sport, dport=dport) / pay
    elif l4 == "udp":
        up = UDP(sport=sport, dport=dport) / pay
    elif l4 == "icmp":
        up = ICMP() / pay
    else:
        up = pay
    if v6:
        ip = IPv6(src=src or rand_v6(rng), dst=dst or rand_v6(rng))
        if l4 == "other":
            ip.nh = 59
        return bytes(ip / up)
    ip = IP(src=src or rand_v4(rng), dst=dst or rand_v4(rng))
    if l4 == "other":
        ip.proto = 253
    r = rng.random()
    if not frag and r >= 0.15:
        r = 0.5
    if r < 0.15:
        ip.options = [Raw(b"\x01" * (4 * rng.randint(1, 10)))]    # NOPs: IHL 6..15
    elif r < 0.22:
        ip.flags = "MF"
    elif r < 0.26:
        ip.frag = rng.randint(1, 100)
    return bytes(ip / up)


def outer(rng: random.Random, proto_payload: bytes, proto: int, v6: bool | None = None,
          tags: int | None = None, opts: bool | None = None) -> bytes:
    """``proto_payload`` (a GRE packet, or UDP's payload for VXLAN) in an outer IPv4/IPv6
    packet, in an Ethernet frame with 0-2 tags."""
    v6 = rng.random() < 0.35 if v6 is None else v6
    tags = rng.choice([0, 0, 0, 1, 2]) if tags is None else tags
    opts = rng.random() < 0.15 if opts is None else opts
    if proto == 17:
        body = UDP(sport=rng.randint(1024, 65535), dport=4789) / Raw(proto_payload)
    else:
        body = Raw(proto_payload)
    if v6:
        ip = IPv6(src="2001:db8::1", dst="2001:db8::2", nh=proto if proto != 17 else 17)
        return l2(0x86DD, tags, rng) + bytes(ip / body)
    ip = IP(src="192.0.2.1", dst="192.0.2.2", proto=proto)
    if opts:
        ip.options = [Raw(b"\x01" * (4 * rng.randint(1, 10)))]
    return l2(0x0800, tags, rng) + bytes(ip / body)


def gre_frame(rng: random.Random, inner: bytes, teb: bool = False, inner_v6: bool = False,
              c: bool | None = None, k: bool | None = None, s: bool | None = None,
              **kw) -> bytes:
    c = rng.random() < 0.3 if c is None else c
    k = rng.random() < 0.5 if k is None else k
    s = rng.random() < 0.3 if s is None else s
    et = 0x86DD if inner_v6 else 0x0800
    if teb:
        return outer(rng, gre_hdr(0x6558, c, k, s) + l2(et) + inner, 47, **kw)
    return outer(rng, gre_hdr(et, c, k, s) + inner, 47, **kw)


def vxlan_frame(rng: random.Random, inner: bytes, inner_v6: bool = False, flags: int = 0x08,
                **kw) -> bytes:
    et = 0x86DD if inner_v6 else 0x0800
    return outer(rng, vxlan_hdr(rng.getrandbits(24), flags) + l2(et) + inner, 17, **kw)


def is_v6(inner: bytes) -> bool:
    return inner[0] >> 4 == 6


def good_tunnel(rng: random.Random) -> bytes:
    """A well-formed GRE (L3 or TEB) or VXLAN frame."""
    inn = inner_packet(rng)
    kind = rng.choice(["gre", "teb", "vxlan"])
    if kind == "vxlan":
        return vxlan_frame(rng, inn, is_v6(inn))
    return gre_frame(rng, inn, teb=kind == "teb", inner_v6=is_v6(inn))


def bad_tunnel(rng: random.Random) -> bytes:
    """A tunnel frame with one thing wrong: the parse falls back to the outer tuple (or the
    frame is malformed altogether)."""
    inn = inner_packet(rng)
    v6 = is_v6(inn)
    et = 0x86DD if v6 else 0x0800
    what = rng.randrange(11)
    if what == 0:    # GRE version 1
        return outer(rng, gre_hdr(et, ver=rng.randint(1, 7)) + inn, 47)
    if what == 1:    # a reserved GRE bit
        return outer(rng, gre_hdr(et, rsvd=1 << rng.choice([14, 3, 4, 5, 6, 7, 8, 9, 10, 11])) + inn,
                     47)
    if what == 2:    # another protocol type
        return outer(rng, gre_hdr(rng.choice([0x88BE, 0x8847, 0x0806, 0x6559])) + inn, 47)
    if what == 3:    # an inner VLAN tag
        body = l2(0x8100)[:12] + struct.pack("!HHH", 0x8100, 9, et) + inn
        if rng.random() < 0.5:
            return outer(rng, gre_hdr(0x6558) + body, 47)
        return outer(rng, vxlan_hdr() + body, 17)
    if what == 4:    # VXLAN without the I flag
        return vxlan_frame(rng, inn, v6, flags=rng.choice([0x00, 0x80, 0x01]))
    if what == 5:    # the inner packet cut short (the outer lengths agree with the cut)
        cut = inn[:rng.randint(0, min(len(inn) - 1, 44))]
        if rng.random() < 0.5:
            return outer(rng, gre_hdr(et, k=True) + cut, 47)
        return outer(rng, vxlan_hdr() + l2(et) + cut, 17)
    if what == 6:    # the tunnel header itself cut short
        if rng.random() < 0.5:
            return outer(rng, gre_hdr(0x6558, c=True, k=True, s=True)[:rng.randint(0, 15)], 47)
        return outer(rng, (vxlan_hdr() + l2(et))[:rng.randint(0, 21)], 17)
    if what == 7:    # the inner length says more than there is
        b = bytearray(inn)
        if v6:
            b[4:6] = struct.pack("!H", len(inn) - 40 + rng.randint(1, 40))
        else:
            b[2:4] = struct.pack("!H", len(inn) + rng.randint(1, 40))
        return gre_frame(rng, bytes(b), teb=rng.random() < 0.5, inner_v6=v6)
    if what == 8:    # inner version wrong for its type
        return gre_frame(rng, inn, inner_v6=not v6)
    if what == 9:    # the outer packet a fragment
        f = bytearray(good_tunnel(rng))
        ip = 12
        while f[ip:ip + 2] in (b"\x81\x00", b"\x88\xa8"):
            ip += 4
        ip += 2
        if f[ip] >> 4 == 4:
            f[ip + 6] |= 0x20   # MF (the checksum is not checked)
        return bytes(f)
    # random bytes flipped in the headers of a good one
    f = bytearray(good_tunnel(rng))
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(14, min(len(f), 180))
        f[i] ^= 1 << rng.randrange(8)
    return bytes(f)


def deepest(rng: random.Random) -> bytes:
    """The deepest inner header the rules admit: 2 tags, a 60-byte outer IPv4 header, GRE with
    C, K and S, TEB, a 60-byte inner IPv4 header and TCP (inner ports at bytes 172..175)."""
    ip = IP(src="10.9.8.7", dst="10.1.2.3", options=[Raw(b"\x01" * 40)])
    inn = bytes(ip / TCP(sport=4321, dport=1234) / Raw(b"x" * 5))
    f = l2(0x0800, 2, rng) + bytes(IP(src="192.0.2.1", dst="192.0.2.2", proto=47,
                                      options=[Raw(b"\x01" * 40)])
                                   / Raw(gre_hdr(0x6558, True, True, True) + l2(0x0800) + inn))
    assert f[172:176] == struct.pack("!HH", 4321, 1234)
    return f


def flow_pair(rng: random.Random, kind: str, v6: bool, l4: str) -> tuple[bytes, bytes]:
    """Both directions of one inner flow in one tunnel whose outer tuple is constant (the
    same outer addresses and, for VXLAN, the same UDP source port)."""
    src, dst = (rand_v6(rng), rand_v6(rng)) if v6 else (rand_v4(rng), rand_v4(rng))
    sp, dp = rng.randint(1, 65535), rng.randint(1, 65535)
    a = inner_packet(rng, v6, l4, src, dst, sp, dp, frag=False)
    b = inner_packet(rng, v6, l4, dst, src, dp, sp, frag=False)
    out = []
    for inn in (a, b):
        r = random.Random(7)     # the same outer headers for both
        if kind == "vxlan":
            out.append(vxlan_frame(r, inn, v6, v6=False, tags=0, opts=False))
        else:
            out.append(gre_frame(r, inn, teb=kind == "teb", inner_v6=v6, c=False, k=True,
                                 s=False, v6=False, tags=0, opts=False))
    return out[0], out[1]


def plain(rng: random.Random) -> bytes:
    """A frame that is no tunnel: plain TCP/UDP/ICMP, or random bytes."""
    if rng.random() < 0.2:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 200)))
    inn = inner_packet(rng)
    return l2(0x86DD if is_v6(inn) else 0x0800, rng.choice([0, 1, 2]), rng) + inn


def mixed(rng: random.Random, n: int) -> list[bytes]:
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.45:
            f = good_tunnel(rng)
        elif r < 0.8:
            f = bad_tunnel(rng)
        elif r < 0.95:
            f = plain(rng)
        else:
            f = deepest(rng)
        if rng.random() < 0.1:
            f += bytes(rng.randint(1, 20))        # Ethernet padding
        out.append(f)
    return out

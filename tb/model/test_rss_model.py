"""Unit tests of the RSS golden model wirespeed/model/rss.py against docs/rss.md: Microsoft's
verification examples (standard key, IPv4 and IPv6, with and without ports), the per-byte
tables the RTL builds, hash types and enables, the symmetric mode, the indirection table, and
the frame parser on frames built with scapy."""

from __future__ import annotations

import ipaddress
import logging
import random

import pytest

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP  # noqa: E402
from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop  # noqa: E402
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

from wirespeed.model.rss import (  # noqa: E402
    ALL_TYPES,
    MS_KEY,
    FlowTuple,
    HashType,
    RssConfig,
    hash_input,
    hash_type,
    parse_frame,
    reverse,
    rss,
    rss_frame,
    toeplitz,
    toeplitz_by_tables,
    toeplitz_tables,
)

H = HashType


def ip(a: str) -> int:
    return int(ipaddress.ip_address(a))


# Microsoft, "Verifying the RSS Hash Calculation": destination, source, the hash of the
# addresses alone, the hash with the TCP ports. The input is source first.
MS_IPV4 = [
    ("161.142.100.80", 1766, "66.9.149.187", 2794, 0x323E8FC2, 0x51CCC178),
    ("65.69.140.83", 4739, "199.92.111.2", 14230, 0xD718262A, 0xC626B0EA),
    ("12.22.207.184", 38024, "24.19.198.95", 12898, 0xD2D0A5DE, 0x5C2B394A),
    ("209.142.163.6", 2217, "38.27.205.30", 48228, 0x82989176, 0xAFC7327F),
    ("202.188.127.2", 1303, "153.39.163.191", 44251, 0x5D1809C5, 0x10E828A2),
]
MS_IPV6 = [
    ("3ffe:2501:200:3::1", 1766, "3ffe:2501:200:1fff::7", 2794, 0x2CC18CD5, 0x40207D3D),
    ("ff02::1", 4739, "3ffe:501:8::260:97ff:fe40:efab", 14230, 0x0F0C461C, 0xDDE51BBF),
    ("fe80::200:f8ff:fe21:67cf", 38024, "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 44251,
     0x4B61E985, 0x02D1FEEF),
]


def ms_cases():
    """(tuple, hash type, expected hash) for every example of the verification table."""
    out = []
    for l3, rows, two, four in ((4, MS_IPV4, H.IPV4, H.TCP_IPV4), (6, MS_IPV6, H.IPV6, H.TCP_IPV6)):
        for d, dp, s, sp, h2, h4 in rows:
            t = FlowTuple(l3, 6, ip(s), ip(d), sp, dp)
            out += [(t, two, h2), (t, four, h4)]
    return out


MS_CASES = ms_cases()


@pytest.mark.parametrize("t, ht, want", MS_CASES, ids=[f"{c[1].name}-{i // 2}" for i, c in enumerate(MS_CASES)])
def test_microsoft_verification_table(t, ht, want):
    assert toeplitz(MS_KEY, hash_input(t, ht)) == want
    # through rss() with only the one type enabled (TCP tuple: the 2-tuple by fallback)
    en = 1 << (ht - 1)
    r = rss(t, RssConfig(enables=en, table=list(range(128))))
    assert (r.hash, r.htype, r.queue) == (want, ht, want & 127)


def test_tables_equal_bitwise_hash():
    rng = random.Random(3)
    for key in (MS_KEY, bytes(rng.getrandbits(8) for _ in range(40))):
        tabs = toeplitz_tables(key)
        assert all(tabs[p][0] == 0 for p in range(36))
        for n in (8, 12, 32, 36, 36, 36):
            data = bytes(rng.getrandbits(8) for _ in range(n))
            assert toeplitz_by_tables(tabs, data) == toeplitz(key, data)


def bitwise_reference(key: bytes, data: bytes) -> int:
    """A second Toeplitz, written as the specification's pseudocode with a 320-bit K."""
    k = int.from_bytes(key, "big")
    res = 0
    for byte in data:
        for b in range(7, -1, -1):
            if byte >> b & 1:
                res ^= k >> (320 - 32)
            k = (k << 1) & ((1 << 320) - 1)
    return res


def test_random_keys_against_pseudocode():
    rng = random.Random(11)
    for _ in range(200):
        key = bytes(rng.getrandbits(8) for _ in range(40))
        data = bytes(rng.getrandbits(8) for _ in range(rng.choice([8, 12, 32, 36])))
        assert toeplitz(key, data) == bitwise_reference(key, data)


def test_hash_types_and_enables():
    v4tcp = FlowTuple(4, 6, 1, 2, 3, 4)
    v4udp = FlowTuple(4, 17, 1, 2, 3, 4)
    v4oth = FlowTuple(4, 0, 1, 2)
    v6tcp = FlowTuple(6, 6, 1, 2, 3, 4)
    v6udp = FlowTuple(6, 17, 1, 2, 3, 4)
    v6oth = FlowTuple(6, 0, 1, 2)
    assert [hash_type(t, ALL_TYPES) for t in (v4tcp, v4udp, v4oth, v6tcp, v6udp, v6oth)] == \
        [H.TCP_IPV4, H.UDP_IPV4, H.IPV4, H.TCP_IPV6, H.UDP_IPV6, H.IPV6]
    assert hash_type(v4tcp, 0b000001) == H.IPV4          # TCP off: the 2-tuple
    assert hash_type(v4tcp, 0b000100) == H.NONE          # UDP only: no hash for TCP
    assert hash_type(v4udp, 0b000100) == H.UDP_IPV4
    assert hash_type(v4oth, 0b000110) == H.NONE
    assert hash_type(v6udp, 0b001000) == H.IPV6
    assert hash_type(v6tcp, 0b000111) == H.NONE
    assert hash_type(FlowTuple(), ALL_TYPES) == H.NONE
    cfg = RssConfig(table=list(range(128)), default_queue=77, enables=0)
    r = rss(v4tcp, cfg)
    assert (r.hash, r.htype, r.queue) == (0, H.NONE, 77)
    assert rss(FlowTuple(), RssConfig(default_queue=5)).queue == 5
    # the 2-tuple input leaves the ports out
    assert hash_input(v4tcp, H.IPV4) == bytes([0, 0, 0, 1, 0, 0, 0, 2])
    assert len(hash_input(v6tcp, H.TCP_IPV6)) == 36 and len(hash_input(v6tcp, H.IPV6)) == 32


def test_symmetric_mode_gives_both_directions_one_queue():
    rng = random.Random(5)
    table = [rng.randrange(16) for _ in range(128)]
    sym = RssConfig(symmetric=True, table=table)
    plain = RssConfig(table=table)
    differ = 0
    for i in range(500):
        l3 = rng.choice([4, 6])
        bits = 32 if l3 == 4 else 128
        t = FlowTuple(l3, rng.choice([0, 6, 17]), rng.getrandbits(bits), rng.getrandbits(bits),
                      rng.getrandbits(16), rng.getrandbits(16))
        if i % 10 == 0:     # same address both ways: the ports decide
            t = FlowTuple(t.l3, 6, t.src, t.src, t.sport, t.dport)
        a, b = rss(t, sym), rss(reverse(t), sym)
        assert a == b
        assert a.hash in (rss(t, plain).hash, rss(reverse(t), plain).hash)
        differ += rss(t, plain).hash != rss(reverse(t), plain).hash
    assert differ > 400     # the plain mode does tell the directions apart


def test_indirection_table_low_bits():
    t = FlowTuple(4, 6, ip("66.9.149.187"), ip("161.142.100.80"), 2794, 1766)
    for n in (1, 2, 128, 512):
        table = [(i * 7 + 3) % 256 for i in range(n)]
        assert rss(t, RssConfig(table=table)).queue == table[0x51CCC178 & (n - 1)]


# --------------------------------------------------------------------------- frames

MAC = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def eth(*tags):
    p = Ether(**MAC)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return p


TAGS = [(), (("q", 7),), (("ad", 7), ("q", 8))]


@pytest.mark.parametrize("tags", TAGS, ids=["untagged", "vlan", "qinq"])
def test_parse_tcp_udp_ipv4_ipv6(tags):
    s4, d4 = "10.1.2.3", "192.168.9.8"
    s6, d6 = "2001:db8::1", "2001:db8:1::2"
    cases = [
        (IP(src=s4, dst=d4) / TCP(sport=1234, dport=80), FlowTuple(4, 6, ip(s4), ip(d4), 1234, 80)),
        (IP(src=s4, dst=d4) / UDP(sport=53, dport=5353) / Raw(b"x" * 20),
         FlowTuple(4, 17, ip(s4), ip(d4), 53, 5353)),
        (IP(src=s4, dst=d4) / ICMP(), FlowTuple(4, 0, ip(s4), ip(d4))),
        (IP(src=s4, dst=d4, options=[IPOption_NOP()] * 4) / TCP(sport=9, dport=10),
         FlowTuple(4, 6, ip(s4), ip(d4), 9, 10)),
        (IP(src=s4, dst=d4, flags="MF") / TCP(sport=9, dport=10), FlowTuple(4, 0, ip(s4), ip(d4))),
        (IP(src=s4, dst=d4, frag=100, proto=6) / Raw(b"y" * 24), FlowTuple(4, 0, ip(s4), ip(d4))),
        (IPv6(src=s6, dst=d6) / TCP(sport=443, dport=50000),
         FlowTuple(6, 6, ip(s6), ip(d6), 443, 50000)),
        (IPv6(src=s6, dst=d6) / UDP(sport=4789, dport=7),
         FlowTuple(6, 17, ip(s6), ip(d6), 4789, 7)),
        (IPv6(src=s6, dst=d6) / IPv6ExtHdrHopByHop() / TCP(sport=1, dport=2),
         FlowTuple(6, 0, ip(s6), ip(d6))),
    ]
    for pkt, want in cases:
        f = bytes(eth(*tags) / pkt)
        assert parse_frame(f) == want, pkt.summary()
        # Ethernet padding after the IP packet changes nothing
        assert parse_frame(f + bytes(30)) == want


def test_parse_unknown_and_malformed():
    good = bytes(eth() / IP(src="1.2.3.4", dst="5.6.7.8") / TCP(sport=1, dport=2))
    assert parse_frame(good).l3 == 4
    bad = [
        b"",
        good[:13],
        bytes(eth() / ARP()),
        bytes(eth(("q", 1), ("q", 2), ("q", 3)) / IP() / TCP()),     # three tags
        good[:14 + 19],                                                # IPv4 header cut
        good[:14 + 20 + 19],                                           # TCP header cut
        bytes(eth() / IP(ihl=4) / TCP()),                              # IHL < 5
        bytes(eth() / IP(ihl=15) / TCP()),                             # header beyond frame
        bytes(eth() / IP(len=200) / TCP()),                            # total length beyond
        bytes(eth() / IP(len=10) / TCP()),                             # total length < IHL
        bytes(eth() / IP(version=5) / TCP()),
        bytes(eth() / IPv6(plen=100) / TCP()),                         # payload beyond frame
        bytes(eth() / IPv6(version=4) / TCP()),
        bytes(eth() / IPv6() / TCP())[:14 + 39],
        bytes(eth() / IP() / UDP())[:14 + 20 + 7],
    ]
    cfg = RssConfig(default_queue=9, table=[1] * 128)
    for f in bad:
        assert parse_frame(f) == FlowTuple(), f.hex()
        r = rss_frame(f, cfg)
        assert (r.hash, r.htype, r.queue) == (0, H.NONE, 9)


def test_frame_to_queue_matches_tuple():
    rng = random.Random(8)
    table = [rng.randrange(64) for _ in range(256)]
    cfg = RssConfig(table=table, key=bytes(rng.getrandbits(8) for _ in range(40)))
    for _ in range(100):
        s, d = rng.getrandbits(32), rng.getrandbits(32)
        sp, dp = rng.getrandbits(16), rng.getrandbits(16)
        f = bytes(eth() / IP(src=str(ipaddress.IPv4Address(s)), dst=str(ipaddress.IPv4Address(d)))
                  / UDP(sport=sp, dport=dp))
        r = rss_frame(f, cfg)
        h = toeplitz(cfg.key, s.to_bytes(4, "big") + d.to_bytes(4, "big")
                     + sp.to_bytes(2, "big") + dp.to_bytes(2, "big"))
        assert (r.hash, r.htype, r.queue) == (h, H.UDP_IPV4, table[h & 255])

"""Unit tests of the golden model wirespeed/model/gre.py against docs/gre_decap.md.

Inputs and expected outputs are built with scapy, independently of the model's byte arithmetic.
"""

from __future__ import annotations

import logging
import random

import pytest

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, GRE, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import checksum as scapy_checksum  # noqa: E402

from wirespeed.model import frames as F  # noqa: E402
from wirespeed.model.gre import (  # noqa: E402
    HDR_WINDOW,
    MALFORMED_OUTCOMES,
    GreConfig,
    Outcome,
    gre_decap,
    ipv4_checksum,
    ones_add,
    ones_sum,
    tally,
)

O = Outcome
DST, SRC = "02:00:00:00:00:02", "02:00:00:00:00:01"


def eth(tags=()):
    p = Ether(dst=DST, src=SRC)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return p


def inner4(tos=0, pay=b"hello world, this is the inner payload"):
    return IP(src="192.168.1.1", dst="192.168.2.2", tos=tos, id=77, ttl=33) / TCP(sport=1234, dport=80, flags="PA") / Raw(pay)


def inner6(tc=0, pay=b"inner v6 payload ......"):
    return IPv6(src="2001:db8::a", dst="2001:db8::b", tc=tc, fl=0x12345) / UDP(sport=5, dport=6) / Raw(pay)


def outer4(**kw):
    kw.setdefault("src", "10.0.0.1")
    kw.setdefault("dst", "10.0.0.2")
    return IP(**kw)


def outer6(**kw):
    return IPv6(src="2001:db8::1", dst="2001:db8::2", nh=47, **kw)


def run(frame, cfg=None, bad=False, keep_w=None):
    return gre_decap(bytes(frame), cfg, bad, keep_w)


# ---------------------------------------------------------------------------------------------
# checksum helpers
# ---------------------------------------------------------------------------------------------


def test_ones_sum_matches_scapy():
    rng = random.Random(5)
    for n in list(range(1, 70)) + [1500, 9600]:
        d = bytes(rng.getrandbits(8) for _ in range(n))
        if not any(d):
            continue
        assert ones_sum(d) == (~scapy_checksum(d)) & 0xFFFF
    assert ones_sum(b"") == 0
    assert ones_sum(b"\x00\x00\x00") == 0
    assert ones_sum(b"\xff\xff") == 0xFFFF
    assert ones_sum(b"\xff\xff\x00\x01") == 0x0001  # end-around carry
    assert ones_sum(b"\x80\x00\x80\x00") == 0x0001


def test_ones_add_and_ipv4_checksum():
    assert ones_add(0xFFFF, 0x0001) == 0x0001
    assert ones_add(0x8000, 0x8000) == 0x0001
    assert ones_add(0, 0) == 0
    for i in range(50):
        h = bytes(IP(src=f"1.2.3.{i}", dst="9.8.7.6", id=i, tos=i, options=[IPOption_NOP()] * (4 * (i % 3))))
        assert ipv4_checksum(h) == IP(h).chksum
        assert ones_sum(h) == 0xFFFF


# ---------------------------------------------------------------------------------------------
# the seed
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("i", [0, 1, 255, 4097])
def test_seed_frames(i):
    g = F.seed_gre_frame(i)
    assert len(g) == 88
    r = run(g)
    assert r.outcome == O.DECAP_L3
    assert len(r.output) == 88 - 24 == 64
    p = Ether(g)
    expected = Ether(dst=p.dst, src=p.src, type=0x0800) / p[GRE].payload
    assert r.output == bytes(expected)
    assert r.need == 38 and r.emit and not r.aborted
    t = F.seed_tcp_frame(i)
    assert len(t) == 88
    r = run(t)
    assert r.outcome == O.PASS and r.output == t and r.need == 24


# ---------------------------------------------------------------------------------------------
# 1./2. L2 and candidates
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 14))
def test_short_frames_pass(n):
    f = bytes(eth() / outer4(proto=47) / GRE())[:n]
    r = run(f)
    assert (r.outcome, r.output, r.need) == (O.PASS, f, n)


@pytest.mark.parametrize(
    "tags,cut,outcome",
    [
        ((("q", 1),), 15, O.PASS), ((("q", 1),), 17, O.PASS), ((("q", 1),), 18 + 9, O.PASS),
        ((("ad", 1), ("q", 2)), 21, O.PASS), ((("ad", 1), ("q", 2)), 22 + 9, O.PASS),
        ((("q", 1),), 18 + 10, O.DROP_TRUNCATED), ((("ad", 1), ("q", 2)), 22 + 10, O.DROP_TRUNCATED),
        ((), 23, O.PASS), ((), 24, O.DROP_TRUNCATED), ((), 33, O.DROP_TRUNCATED),
    ],
)
def test_l2_cuts(tags, cut, outcome):
    f = bytes(eth(tags) / outer4(proto=47) / GRE() / inner4())[:cut]
    r = run(f)
    assert r.outcome == outcome
    assert r.need == cut
    assert r.output == (f if outcome == O.PASS else None)


def test_three_tags_pass():
    f = bytes(eth((("ad", 1), ("q", 2), ("q", 3))) / outer4(proto=47) / GRE() / inner4())
    r = run(f)
    assert (r.outcome, r.output, r.need) == (O.PASS, f, 22)


@pytest.mark.parametrize(
    "pkt,need",
    [
        (eth() / ARP(), 14),
        (eth() / IP() / TCP() / Raw(b"x" * 40), 24),
        (eth() / IP(proto=4) / IP() / Raw(b"x" * 40), 24),  # IP-in-IP is not GRE
        (eth((("q", 3),)) / IP() / UDP() / Raw(b"x" * 40), 28),
        (eth((("ad", 3), ("q", 4))) / IP() / ICMP() / Raw(b"x" * 40), 32),
        (eth() / IPv6() / TCP() / Raw(b"x" * 40), 21),
        (eth((("q", 3),)) / IPv6() / UDP(), 25),
        (Ether(dst=DST, src=SRC, type=0x88CC) / Raw(b"lldp" * 20), 14),
        (Ether(dst=DST, src=SRC, type=0x8847) / Raw(b"mpls" * 20), 14),
    ],
)
def test_non_gre_pass(pkt, need):
    f = bytes(pkt)
    r = run(f)
    assert (r.outcome, r.output, r.need, r.emit, r.aborted) == (O.PASS, f, need, True, False)


def test_ipv6_extension_header_before_gre_is_pass():
    # only next header == 47 directly after the fixed header is a tunnel candidate
    f = bytes(eth() / IPv6(nh=0) / Raw(bytes([47, 0]) + bytes(6)) / GRE() / inner4())
    assert run(f).outcome == O.PASS


# ---------------------------------------------------------------------------------------------
# decapsulation: every outer shape x GRE flags x protocol, against scapy-built expectations
# ---------------------------------------------------------------------------------------------


TAGS = [(), (("q", 100),), (("ad", 10), ("q", 20)), (("q", 10), ("q", 20))]
CKS = [(c, k, s) for c in (0, 1) for k in (0, 1) for s in (0, 1)]


def inner_for(proto):
    if proto == 0x0800:
        return inner4()
    if proto == 0x86DD:
        return inner6()
    return Ether(dst="0a:00:00:00:00:01", src="0a:00:00:00:00:02") / Dot1Q(vlan=9) / inner4()


@pytest.mark.parametrize("tags", TAGS, ids=["untagged", "q", "adq", "qq"])
@pytest.mark.parametrize("v6,ihl", [(False, 5), (False, 8), (True, 5)], ids=["ip4", "ip4opt", "ip6"])
@pytest.mark.parametrize("cks", CKS, ids=[f"c{c}k{k}s{s}" for c, k, s in CKS])
@pytest.mark.parametrize("proto", [0x0800, 0x86DD, 0x6558], ids=["ipv4", "ipv6", "teb"])
def test_decap(tags, v6, ihl, cks, proto):
    c, k, s = cks
    g = GRE(chksum_present=c, key_present=k, seqnum_present=s, proto=proto)
    if k:
        g.key = 0xDEADBEEF
    if s:
        g.sequence_number = 42
    outer = outer6() if v6 else outer4(options=[IPOption_NOP()] * (4 * (ihl - 5)))
    inner = inner_for(proto)
    f = bytes(eth(tags) / outer / g / inner)
    r = run(f)
    if proto == 0x6558:
        assert r.outcome == O.DECAP_TEB
        expected = bytes(inner)
    else:
        assert r.outcome == O.DECAP_L3
        l2 = eth(tags)
        l2.lastlayer().type = proto
        expected = bytes(l2) + bytes(inner)
    assert r.output == expected
    L2 = 14 + 4 * len(tags)
    assert r.need == L2 + (40 if v6 else 4 * ihl) + 4 + 4 * (c + k + s)
    assert len(f) - len(r.output) == (r.need - L2 if proto != 0x6558 else r.need)
    assert r.emit and not r.aborted


def test_padding_trimmed_and_punt_keeps_it():
    pad = bytes(range(1, 41))
    f = bytes(eth() / outer4() / GRE(proto=0x0800) / inner4()) + pad
    r = run(f)
    assert r.outcome == O.DECAP_L3
    assert r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800) / inner4())
    # minimum-size frame padding (a real MAC pads to 60 bytes)
    f = bytes(eth() / outer4() / GRE(proto=0x0800) / IP(src="1.1.1.1", dst="2.2.2.2"))
    assert len(f) == 58
    r = run(f + b"\0\0")
    assert r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800) / IP(src="1.1.1.1", dst="2.2.2.2"))
    # TEB trims the outer padding but keeps whatever the inner frame carries
    innerf = bytes(Ether() / IP() / UDP()) + b"\0" * 18
    f = bytes(eth() / outer6() / GRE(proto=0x6558) / Raw(innerf)) + b"\xee" * 9
    assert run(f).output == innerf
    # PUNT and PASS are unchanged, padding included
    f = bytes(eth() / outer4() / GRE(proto=0x88BE) / Raw(b"erspan" * 5)) + pad
    r = run(f)
    assert (r.outcome, r.output) == (O.PUNT, f)


@pytest.mark.parametrize("proto", [0x0000, 0x88BE, 0x22EB, 0x8847, 0x880B, 0x0806, 0x6559, 0x0801, 0x86DC])
def test_punt(proto):
    f = bytes(eth((("q", 5),)) / outer4() / GRE(proto=proto, key_present=1, key=5) / Raw(b"payload" * 6))
    r = run(f)
    assert (r.outcome, r.output, r.need) == (O.PUNT, f, 18 + 20 + 8)


def test_punt_not_checked_for_gre_checksum_or_length():
    f = bytes(eth() / outer4() / GRE(proto=0x88BE, chksum_present=1, chksum=0x1234) / Raw(b"x" * 50))
    assert run(f).outcome == O.PUNT
    f = bytes(eth() / outer4(len=1000) / GRE(proto=0x88BE) / Raw(b"x" * 50))
    assert run(f).outcome == O.PUNT


def test_empty_l3_payload_outputs_l2_header():
    f = bytes(eth((("q", 3),)) / outer4() / GRE(proto=0x86DD)) + bytes(20)
    r = run(f)
    assert r.outcome == O.DECAP_L3
    l2 = eth((("q", 3),))
    l2.lastlayer().type = 0x86DD
    assert r.output == bytes(l2)


# ---------------------------------------------------------------------------------------------
# 3. outer IP errors and their priorities
# ---------------------------------------------------------------------------------------------


def mutate(frame, off, val, fix_csum_at=None):
    b = bytearray(frame)
    b[off] = val
    if fix_csum_at is not None:
        b = bytearray(F.fix_ipv4_checksum(b, fix_csum_at))
    return bytes(b)


BASE4 = bytes(eth() / outer4() / GRE(proto=0x0800) / inner4())


@pytest.mark.parametrize("ver", [0, 1, 5, 6, 15])
def test_ipv4_version(ver):
    f = mutate(BASE4, 14, (ver << 4) | 5, 14)
    r = run(f)
    assert r.outcome == O.DROP_IP_HEADER and r.need == 34 and r.output is None and not r.emit


@pytest.mark.parametrize("ihl", [0, 1, 4])
def test_ipv4_ihl_small(ihl):
    r = run(mutate(BASE4, 14, 0x40 | ihl))
    assert r.outcome == O.DROP_IP_HEADER and r.need == 34


def test_version_beats_truncation_only_when_20_bytes_present():
    f = mutate(BASE4, 14, 0x65)
    assert run(f[:34]).outcome == O.DROP_IP_HEADER
    assert run(f[:33]).outcome == O.DROP_TRUNCATED
    # IHL > 5 and the frame ends inside the options
    f = bytes(eth() / outer4(options=[IPOption_NOP()] * 8) / GRE() / inner4())
    assert run(f[:41]).outcome == O.DROP_TRUNCATED
    assert run(f[:41]).need == 41


def test_ip_checksum():
    f = bytes(eth() / outer4(chksum=0x1234) / GRE(proto=0x0800) / inner4())
    r = run(f)
    assert r.outcome == O.DROP_IP_CHECKSUM and r.need == 34
    f = bytes(eth() / outer4(chksum=0x1234, options=[IPOption_NOP()] * 12) / GRE(proto=0x0800) / inner4())
    assert run(f).outcome == O.DROP_IP_CHECKSUM and run(f).need == 14 + 32
    # option bytes are covered by the checksum
    f = bytearray(bytes(eth() / outer4(options=[IPOption_NOP()] * 4) / GRE(proto=0x0800) / inner4()))
    f[35] ^= 0x10
    assert run(f).outcome == O.DROP_IP_CHECKSUM


@pytest.mark.parametrize("flags,frag", [(1, 0), (3, 0), (0, 1), (2, 100), (0, 0x1FFF), (1, 7)])
def test_fragments(flags, frag):
    f = bytes(eth() / outer4(flags=flags, frag=frag) / GRE(proto=0x0800) / inner4())
    assert run(f).outcome == O.DROP_FRAGMENT


@pytest.mark.parametrize("flags", [2, 4, 6])
def test_df_and_reserved_flag_ok(flags):
    f = bytes(eth() / outer4(flags=flags) / GRE(proto=0x0800) / inner4())
    assert run(f).outcome == O.DECAP_L3


def test_ip_priorities():
    # checksum beats fragment; fragment beats total length; version beats checksum
    f = bytes(eth() / outer4(flags=1, chksum=1) / GRE() / inner4())
    assert run(f).outcome == O.DROP_IP_CHECKSUM
    f = bytes(eth() / outer4(frag=3, len=10) / GRE() / inner4())
    assert run(f).outcome == O.DROP_FRAGMENT
    f = bytes(eth() / outer4(version=6, flags=1, chksum=1) / GRE() / inner4())
    assert run(f).outcome == O.DROP_IP_HEADER


@pytest.mark.parametrize("tlen,outcome", [(0, O.DROP_IP_HEADER), (20, O.DROP_IP_HEADER), (23, O.DROP_IP_HEADER),
                                          (24, O.DECAP_L3), (30, O.DECAP_L3)])
def test_total_length(tlen, outcome):
    f = bytes(eth() / outer4(len=tlen) / GRE(proto=0x0800) / Raw(bytes(range(60))))
    r = run(f)
    assert r.outcome == outcome
    if outcome == O.DECAP_L3:
        assert r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800)) + bytes(range(60))[: tlen - 24]


def test_total_length_vs_gre_len():
    for k, s, tlen, outcome in ((1, 0, 27, O.DROP_IP_HEADER), (1, 0, 28, O.DECAP_L3), (1, 1, 31, O.DROP_IP_HEADER),
                                (1, 1, 32, O.DECAP_L3)):
        f = bytes(eth() / outer4(len=tlen) / GRE(proto=0x0800, key_present=k, seqnum_present=s)) + bytes(40)
        r = run(f)
        assert r.outcome == outcome, (k, s, tlen)
        if outcome == O.DROP_IP_HEADER:
            assert r.need == 38  # decided from the first GRE word


def test_ipv6_outer_errors():
    f = bytearray(bytes(eth() / outer6() / GRE(proto=0x0800) / inner4()))
    f[14] = 0x40
    assert run(f).outcome == O.DROP_IP_HEADER and run(f).need == 54
    for plen, outcome in ((0, O.DROP_IP_HEADER), (3, O.DROP_IP_HEADER), (4, O.DECAP_L3)):
        f = bytes(eth() / outer6(plen=plen) / GRE(proto=0x0800)) + bytes(30)
        assert run(f).outcome == outcome
    f = bytes(eth() / outer6() / GRE(proto=0x0800) / inner4())
    assert run(f[:53]).outcome == O.DROP_TRUNCATED
    assert run(f[:57]).outcome == O.DROP_TRUNCATED


# ---------------------------------------------------------------------------------------------
# 4. GRE header
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bit", [14, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
def test_gre_reserved_and_version(bit):
    f = bytearray(BASE4)
    f[34 + (0 if bit >= 8 else 1)] |= 1 << (bit % 8)
    r = run(f)
    assert r.outcome == O.DROP_GRE_HEADER and r.need == 38


def test_gre_header_priority_over_length():
    f = bytearray(bytes(eth() / outer4(len=24) / GRE(proto=0x0800)) + bytes(30))
    f[35] |= 1  # version 1 (PPTP)
    assert run(f).outcome == O.DROP_GRE_HEADER


def test_gre_truncated():
    f = bytes(eth() / outer4() / GRE(proto=0x0800, chksum_present=1, key_present=1, seqnum_present=1) / inner4())
    for cut in (34, 35, 37, 38, 41, 45, 49):
        r = run(f[:cut])
        assert r.outcome == O.DROP_TRUNCATED and r.need == cut


def test_gre_checksum_good_and_bad():
    f = bytes(eth() / outer4() / GRE(proto=0x0800, chksum_present=1) / inner4())
    r = run(f)
    assert r.outcome == O.DECAP_L3
    assert r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800) / inner4())
    f = bytes(eth() / outer4() / GRE(proto=0x0800, chksum_present=1, chksum=0xBAD0) / inner4())
    r = run(f)
    assert r.outcome == O.DROP_GRE_CHECKSUM and r.output is None and r.emit and r.aborted and r.need == 42
    # a checksum over [G, ip_end): padding is excluded, odd length padded with zero
    g = GRE(proto=0x6558, chksum_present=1, key_present=1, key=3) / Raw(bytes(Ether() / IP() / UDP()) + b"\x07")
    f = bytes(eth() / outer4() / g) + b"\xff\x13\x00"
    assert run(f).outcome == O.DECAP_TEB
    # IPv6 outer
    f = bytes(eth() / outer6() / GRE(proto=0x86DD, chksum_present=1) / inner6())
    assert run(f).outcome == O.DECAP_L3
    f = bytearray(f)
    f[-1] ^= 1
    assert run(f).outcome == O.DROP_GRE_CHECKSUM


def test_gre_checksum_whole_frame_known_at_decision():
    f = bytes(eth() / outer4() / GRE(proto=0x0800, chksum_present=1, chksum=0xBAD0) / inner4())
    assert len(f) == 42 + 78
    # 64-byte beats: decision in beat 0 (byte 41), frame ends in beat 1 -> late, aborted
    r = run(f, keep_w=64)
    assert (r.outcome, r.emit, r.aborted) == (O.DROP_GRE_CHECKSUM, True, True)
    # 128-byte beats: the whole frame is in the decision beat; still a late drop (the contract
    # lists DROP_GRE_CHECKSUM only under late drops): emitted and aborted
    r = run(f, keep_w=128)
    assert (r.outcome, r.emit, r.aborted) == (O.DROP_GRE_CHECKSUM, True, True)


# ---------------------------------------------------------------------------------------------
# 5. allow-list
# ---------------------------------------------------------------------------------------------


def test_allow_list():
    cfg = GreConfig(allow_enable=True, allow=frozenset({("10.0.0.1", "10.0.0.2"), (0x0A000003, 0x0A000004)}))
    assert (0x0A000001, 0x0A000002) in cfg.allow
    ok = bytes(eth() / outer4() / GRE(proto=0x0800) / inner4())
    assert run(ok, cfg).outcome == O.DECAP_L3
    ok2 = bytes(eth() / outer4(src="10.0.0.3", dst="10.0.0.4") / GRE(proto=0x6558) / Ether() / inner4())
    assert run(ok2, cfg).outcome == O.DECAP_TEB
    swapped = bytes(eth() / outer4(src="10.0.0.2", dst="10.0.0.1") / GRE(proto=0x0800) / inner4())
    r = run(swapped, cfg)
    assert (r.outcome, r.output, r.emit, r.need) == (O.DROP_NOT_ALLOWED, None, False, 38)
    mixed = bytes(eth() / outer4(src="10.0.0.1", dst="10.0.0.4") / GRE(proto=0x0800) / inner4())
    assert run(mixed, cfg).outcome == O.DROP_NOT_ALLOWED
    v6 = bytes(eth() / outer6() / GRE(proto=0x0800) / inner4())
    assert run(v6, cfg).outcome == O.DROP_NOT_ALLOWED
    assert run(v6).outcome == O.DECAP_L3
    punt = bytes(eth() / outer4(src="9.9.9.9") / GRE(proto=0x88BE) / Raw(b"x" * 40))
    assert run(punt, cfg).outcome == O.DROP_NOT_ALLOWED
    plain = bytes(eth() / IP(src="9.9.9.9") / TCP())
    assert run(plain, cfg).outcome == O.PASS
    # disabled: table ignored
    assert run(swapped, GreConfig(allow=cfg.allow)).outcome == O.DECAP_L3
    # the allow-list comes after the GRE header checks
    bad = bytes(eth() / outer4(src="9.9.9.9", flags=1) / GRE(proto=0x0800) / inner4())
    assert run(bad, cfg).outcome == O.DROP_FRAGMENT
    # ... and before the protocol/ECN steps
    ecn = bytes(eth() / outer4(src="9.9.9.9", tos=3) / GRE(proto=0x0800) / inner4(tos=0))
    assert run(ecn, cfg).outcome == O.DROP_NOT_ALLOWED
    assert run(ecn).outcome == O.DROP_ECN


# ---------------------------------------------------------------------------------------------
# 7. ECN, RFC 6040
# ---------------------------------------------------------------------------------------------

# RFC 6040 section 4.2, Figure 4 (rows: inner; columns: outer). None = drop.
RFC6040 = {
    0b00: {0b00: 0b00, 0b10: 0b00, 0b01: 0b00, 0b11: None},
    0b10: {0b00: 0b10, 0b10: 0b10, 0b01: 0b01, 0b11: 0b11},
    0b01: {0b00: 0b01, 0b10: 0b01, 0b01: 0b01, 0b11: 0b11},
    0b11: {0b00: 0b11, 0b10: 0b11, 0b01: 0b11, 0b11: 0b11},
}


@pytest.mark.parametrize("outer_ecn", range(4))
@pytest.mark.parametrize("inner_ecn", range(4))
@pytest.mark.parametrize("dscp", [0, 46])
@pytest.mark.parametrize("outer_v6", [False, True])
def test_rfc6040_ipv4_inner(outer_ecn, inner_ecn, dscp, outer_v6):
    tos_o = (10 << 2) | outer_ecn
    outer = outer6(tc=tos_o) if outer_v6 else outer4(tos=tos_o)
    inner = inner4(tos=(dscp << 2) | inner_ecn)
    f = bytes(eth() / outer / GRE(proto=0x0800, key_present=1, key=1) / inner)
    r = run(f)
    want = RFC6040[inner_ecn][outer_ecn]
    G = 14 + (40 if outer_v6 else 20)
    K = G + 8
    assert r.need == (K + 12 if outer_ecn in (1, 3) else K)
    if want is None:
        assert (r.outcome, r.output, r.emit) == (O.DROP_ECN, None, False)
        return
    assert r.outcome == O.DECAP_L3
    exp = inner.copy()
    exp.tos = (dscp << 2) | want
    del exp.chksum  # scapy recomputes the full checksum
    assert r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800) / exp)
    hdr = r.output[14:34]
    assert ones_sum(hdr) == 0xFFFF


@pytest.mark.parametrize("outer_ecn", range(4))
@pytest.mark.parametrize("inner_ecn", range(4))
def test_rfc6040_ipv6_inner(outer_ecn, inner_ecn):
    inner = inner6(tc=(7 << 2) | inner_ecn)
    f = bytes(eth((("q", 2),)) / outer4(tos=outer_ecn) / GRE(proto=0x86DD) / inner)
    r = run(f)
    want = RFC6040[inner_ecn][outer_ecn]
    assert r.need == (42 + 2 if outer_ecn in (1, 3) else 42)
    if want is None:
        assert r.outcome == O.DROP_ECN
        return
    exp = inner.copy()
    exp.tc = (7 << 2) | want
    l2 = eth((("q", 2),))
    l2.lastlayer().type = 0x86DD
    assert r.output == bytes(l2 / exp)
    assert IPv6(r.output[18:]).fl == 0x12345


@pytest.mark.parametrize("outer_ecn", range(4))
def test_teb_ecn_untouched(outer_ecn):
    inner = Ether() / inner4(tos=0)  # Not-ECT inner would be dropped if this were L3
    f = bytes(eth() / outer4(tos=outer_ecn) / GRE(proto=0x6558) / inner)
    r = run(f)
    assert (r.outcome, r.output, r.need) == (O.DECAP_TEB, bytes(inner), 38)


def test_incremental_checksum_matches_full_recompute():
    rng = random.Random(11)
    for _ in range(800):
        ih = IP(src=f"{rng.randint(0, 255)}.1.2.{rng.randint(0, 255)}", dst="5.6.7.8", tos=rng.getrandbits(8),
                id=rng.getrandbits(16), ttl=rng.getrandbits(8), proto=rng.getrandbits(8), flags=rng.getrandbits(3),
                frag=rng.getrandbits(13), len=rng.randint(20, 60))
        h = bytes(ih)
        f = bytes(eth() / outer4(tos=rng.choice((1, 3))) / GRE(proto=0x0800) / Raw(h + bytes(40)))
        r = run(f)
        if r.outcome == O.DROP_ECN:
            continue
        out_h = r.output[14:34]
        assert ones_sum(out_h) == 0xFFFF
        assert out_h[10:12] == ipv4_checksum(out_h).to_bytes(2, "big")


def test_incremental_checksum_is_rfc1624_eqn3_exactly():
    # inner header with a wrong checksum 0x0000: eqn. 3 keeps the error, it does not recompute
    ih = bytes.fromhex("4502002000000000000600000000000000000000") + bytes(12)
    f = bytes(eth() / outer4(tos=3) / GRE(proto=0x0800) / Raw(ih))
    r = run(f)
    # m = 0x4502, m' = 0x4503, HC = 0: ~(0xFFFF + 0xBAFD + 0x4503) = ~0x0001 = 0xFFFE
    assert r.output[14:16] == b"\x45\x03"
    assert r.output[24:26] == b"\xff\xfe"


def test_ecn_truncation():
    for o in (1, 3):
        # ip_end before K+12
        f = bytes(eth() / outer4(tos=o) / GRE(proto=0x0800) / Raw(bytes(inner4())[:11])) + bytes(30)
        assert run(f).outcome == O.DROP_TRUNCATED
        f = bytes(eth() / outer4(tos=o) / GRE(proto=0x86DD) / Raw(b"\x60")) + bytes(30)
        assert run(f).outcome == O.DROP_TRUNCATED
        # the frame ends before K+12 (no padding)
        f = bytes(eth() / outer4(tos=o) / GRE(proto=0x0800) / inner4())
        r = run(f[:49])
        assert (r.outcome, r.need, r.emit) == (O.DROP_TRUNCATED, 49, False)
        # exactly enough
        f = bytes(eth() / outer4(tos=o) / GRE(proto=0x0800) / Raw(bytes(inner4(tos=2))[:12])) + bytes(30)
        r = run(f)
        assert r.outcome == O.DECAP_L3 and len(r.output) == 26
    # not ECT(1)/CE outer: the inner header is not looked at
    for o in (0, 2):
        f = bytes(eth() / outer4(tos=o) / GRE(proto=0x0800) / Raw(b"\x45")) + bytes(30)
        r = run(f)
        assert r.outcome == O.DECAP_L3 and r.output == bytes(Ether(dst=DST, src=SRC, type=0x0800)) + b"\x45"


# ---------------------------------------------------------------------------------------------
# 8. length / late truncation
# ---------------------------------------------------------------------------------------------


def test_truncated_decap():
    f = bytes(eth() / outer4() / GRE(proto=0x0800) / inner4(pay=bytes(200)))
    n = len(f)
    # A frame that fits in the 128-byte window is whole at the decision (an early drop, at
    # every bus width); a longer one has begun to leave and is aborted.
    for cut in (38, 39, 63, 64, 65, 100, HDR_WINDOW, HDR_WINDOW + 1, n - 1):
        for keep_w in (None, 8, 64):
            r = run(f[:cut], keep_w=keep_w)
            assert r.outcome == O.DROP_TRUNCATED and r.output is None
            late = cut > HDR_WINDOW
            assert (r.emit, r.aborted) == (late, late), cut
    assert run(f).outcome == O.DECAP_L3
    # total length larger than the frame
    f = bytes(eth() / outer4(len=500) / GRE(proto=0x6558) / Ether() / inner4(pay=b"x"))
    assert len(f) <= HDR_WINDOW
    r = run(f, keep_w=8)
    assert (r.outcome, r.emit, r.aborted) == (O.DROP_TRUNCATED, False, False)
    r = run(f + bytes(HDR_WINDOW), keep_w=8)
    assert (r.outcome, r.emit, r.aborted) == (O.DROP_TRUNCATED, True, True)
    # truncation beats a bad GRE checksum (it cannot be computed)
    f = bytes(eth() / outer4(len=500) / GRE(proto=0x0800, chksum_present=1, chksum=1) / inner4())
    assert run(f).outcome == O.DROP_TRUNCATED


# ---------------------------------------------------------------------------------------------
# RX error and policy
# ---------------------------------------------------------------------------------------------


def test_rx_error_any_class():
    long = bytes(HDR_WINDOW)  # padding that takes a frame past the header window
    cases = [
        (F.seed_tcp_frame(1) + long, True),  # PASS, forwarded -> aborted
        (bytes(eth() / outer4() / GRE(proto=0x0800) / inner4(pay=long)), True),  # DECAP
        (bytes(eth() / outer4() / GRE(proto=0x88BE) / Raw(b"x" * 200)), True),  # PUNT
        (bytes(eth() / outer4(chksum=1) / GRE() / inner4(pay=long)), False),  # early drop
        (bytes(eth() / outer4(tos=3) / GRE(proto=0x0800) / inner4(tos=0, pay=long)), False),  # ECN
    ]
    for f, emitted in cases:
        r = run(f, bad=True, keep_w=8)
        assert r.outcome == O.DROP_RX_ERROR and r.output is None
        assert (r.emit, r.aborted) == (emitted, emitted)
    # the whole frame is in when the decision is made (it fits in the window): nothing is
    # started, at every bus width
    for keep_w in (8, 128):
        r = run(F.seed_tcp_frame(1), bad=True, keep_w=keep_w)
        assert (r.outcome, r.emit, r.aborted) == (O.DROP_RX_ERROR, False, False)
    r = run(b"\x01\x02\x03", bad=True)
    assert (r.outcome, r.emit) == (O.DROP_RX_ERROR, False)


def test_policy_bits():
    plain = F.seed_tcp_frame(3)
    punt = bytes(eth() / outer4() / GRE(proto=0x8847) / Raw(b"m" * 60))
    dec = F.seed_gre_frame(3)
    cfg = GreConfig(drop_pass=True)
    assert (run(plain, cfg).outcome, run(plain, cfg).emit) == (O.DROP_POLICY, False)
    assert run(punt, cfg).outcome == O.PUNT
    assert run(dec, cfg).outcome == O.DECAP_L3
    cfg = GreConfig(drop_punt=True)
    assert run(plain, cfg).outcome == O.PASS
    assert run(punt, cfg).outcome == O.DROP_POLICY and run(punt, cfg).output is None
    assert run(punt, cfg, bad=True).outcome == O.DROP_RX_ERROR
    assert run(punt, cfg, bad=True, keep_w=8).emit is False
    assert run(dec, cfg).outcome == O.DECAP_L3
    assert GreConfig(True, frozenset(), True, True, True).control == 0xF


def test_forward_malformed():
    cfg = GreConfig(forward_malformed=True)
    malformed = {
        O.DROP_IP_HEADER: bytes(eth() / outer4(len=10) / GRE() / inner4()),
        O.DROP_IP_CHECKSUM: bytes(eth() / outer4(chksum=7) / GRE() / inner4()),
        O.DROP_FRAGMENT: bytes(eth() / outer4(flags=1) / GRE() / inner4()),
        O.DROP_GRE_HEADER: bytes(eth() / outer4() / GRE(version=1) / inner4()),
    }
    for oc, f in malformed.items():
        r = run(f, cfg)
        assert (r.outcome, r.output, r.emit, r.aborted) == (oc, f, True, False)
        assert run(f).output is None
        r = run(f, cfg, bad=True, keep_w=8)
        assert (r.outcome, r.emit, r.aborted) == (O.DROP_RX_ERROR, False, False)  # whole
        r = run(f + bytes(HDR_WINDOW), cfg, bad=True, keep_w=8)
        assert (r.outcome, r.emit, r.aborted) == (O.DROP_RX_ERROR, True, True)
    not_forwarded = [
        bytes(eth() / outer4() / GRE(proto=0x0800) / inner4())[:40],  # truncated
        bytes(eth() / outer4() / GRE(proto=0x0800, chksum_present=1, chksum=3) / inner4()),  # GRE checksum
        bytes(eth() / outer4(tos=3) / GRE(proto=0x0800) / inner4()),  # ECN
    ]
    for f in not_forwarded:
        assert run(f, cfg).output is None
    cfg = GreConfig(forward_malformed=True, allow_enable=True)
    r = run(bytes(eth() / outer4() / GRE(proto=0x0800) / inner4()), cfg)
    assert (r.outcome, r.output) == (O.DROP_NOT_ALLOWED, None)


def test_every_outcome_reachable():
    seen = set()
    for c in F.contract_cases():
        seen.add(run(c.frame, bad=c.bad).outcome)
    seen.add(run(F.seed_gre_frame(0), GreConfig(allow_enable=True)).outcome)
    seen.add(run(F.seed_tcp_frame(0), GreConfig(drop_pass=True)).outcome)
    assert seen == set(Outcome)


# ---------------------------------------------------------------------------------------------
# properties over random cases
# ---------------------------------------------------------------------------------------------


def _early(oc):
    # the decision the block makes at `need` (late drops are decided as a decapsulation)
    return O.DECAP_L3 if oc in (O.DROP_GRE_CHECKSUM,) else oc


def test_random_cases_invariants():
    rng = random.Random(2024)
    results = []
    kinds = set()
    for i in range(1500):
        c = F.random_gre_case(rng)
        kinds.add(c.kind)
        assert 1 <= len(c.frame) <= 9600
        cfg = GreConfig(forward_malformed=bool(i & 1))
        r = run(c.frame, cfg, c.bad, keep_w=rng.choice((8, 16, 32, 64)))
        results.append(r)
        assert 1 <= r.need <= len(c.frame)
        assert (r.output is not None) <= r.emit
        assert r.aborted == (r.emit and r.output is None)
        if r.output is not None:
            assert r.outcome in (O.PASS, O.PUNT, O.DECAP_L3, O.DECAP_TEB) or r.outcome in MALFORMED_OUTCOMES
            assert 1 <= len(r.output) <= len(c.frame)
        if r.outcome in (O.PASS, O.PUNT) or r.outcome in MALFORMED_OUTCOMES and r.output is not None:
            assert r.output == c.frame
        if c.bad:
            assert r.outcome == O.DROP_RX_ERROR
    assert {r.outcome for r in results} >= set(Outcome) - {O.DROP_NOT_ALLOWED, O.DROP_POLICY}
    pkts, byts, tx_p, tx_b = tally(results)
    assert sum(pkts) == len(results)
    assert tx_p == sum(pkts[o] for o in (0, 1, 2, 3)) + sum(
        1 for r in results if r.outcome in MALFORMED_OUTCOMES and r.output is not None)


def test_need_is_sufficient():
    """Bytes at and after `need` never change the early decision."""
    rng = random.Random(7)
    checked = 0
    for _ in range(700):
        c = F.random_gre_case(rng, max_len=600)
        f = c.frame
        r = run(f)
        if r.need >= len(f):
            continue
        for _ in range(4):
            p = rng.randrange(r.need, len(f))
            g = bytearray(f)
            g[p] ^= 1 << rng.randint(0, 7)
            r2 = run(g)
            a, b = _early(r.outcome), _early(r2.outcome)
            # a late truncation/checksum outcome may differ, the early class may not
            if {a, b} <= {O.DECAP_L3, O.DECAP_TEB, O.DROP_TRUNCATED}:
                continue
            assert a == b, (f.hex(), p)
            assert r2.need == r.need
            checked += 1
    assert checked > 500


def test_need_is_minimal_for_forwarded():
    """One byte less and the decision could not have been made: the frame cut at need-1 bytes
    decides differently (or ends first) for the classes the latency test looks at."""
    for f, need in ((F.seed_gre_frame(0), 38), (F.seed_tcp_frame(0), 24)):
        assert run(f).need == need
        assert run(f[: need - 1]).need == need - 1

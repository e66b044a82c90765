"""Unit tests of the golden model wirespeed/model/geneve.py against docs/geneve.md.

Inputs are built with scapy (scapy.contrib.geneve); every expected output is built in the test
from scapy layers (the inner packet, the outer Ethernet header and tags), independently of the
model's byte arithmetic and of wirespeed.model.common.
"""

from __future__ import annotations

import logging
import random

import pytest

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.contrib.geneve import GENEVE  # noqa: E402
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Raw  # noqa: E402

from wirespeed import paths, pcap  # noqa: E402
from wirespeed.model import geneve_frames as GF  # noqa: E402
from wirespeed.model.geneve import (  # noqa: E402
    DECAP_OUTCOMES,
    FORWARD_OUTCOMES,
    HDR_WINDOW,
    GeneveConfig,
    Outcome,
    decap,
    tally,
)

O = Outcome
CAPTURES = paths.CAPTURES  # outside the repository (WIRESPEED_CAPTURES overrides it)
OUTER_DST, OUTER_SRC = GF.MAC_B, GF.MAC_A
TAGS = [(), (("q", 7),), (("ad", 7), ("q", 8)), (("q", 7), ("q", 8))]
TAG_IDS = ["untagged", "vlan", "qinq", "qq"]
NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3


def inner_eth(tos=0, pay=b"hello geneve, this is the inner payload", tag=None):
    p = Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02")
    if tag is not None:
        p = p / Dot1Q(vlan=tag)
    return p / IP(src="192.168.1.1", dst="192.168.2.2", tos=tos, id=77, ttl=33) / TCP(sport=1234, dport=80, flags="PA") / Raw(pay)


def inner_eth6(tc=0):
    return (Ether(dst="aa:bb:cc:dd:ee:03", src="aa:bb:cc:dd:ee:04") / IPv6(src="2001:db8::a", dst="2001:db8::b", tc=tc)
            / UDP(sport=5, dport=6) / Raw(b"inner v6 payload ......"))


def inner_ip4(tos=0, pay=b"an inner IPv4 packet"):
    return IP(src="172.16.0.1", dst="172.16.0.2", tos=tos, id=9, ttl=20) / ICMP(id=3, seq=4) / Raw(pay)


def inner_ip6(tc=0):
    return IPv6(src="2001:db8:1::1", dst="2001:db8:1::2", tc=tc, hlim=9) / UDP(sport=7, dport=8) / Raw(b"v6 inner")


def outer_l2(tags=()):
    """The outer Ethernet header and tags as scapy layers (their last type follows the payload)."""
    p = Ether(dst=OUTER_DST, src=OUTER_SRC)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return p


def gen(payload, **kw):
    return GF.geneve_frame(payload, **kw)


def run(frame, cfg=None, bad=False, keep_w=None):
    return decap(bytes(frame), cfg, bad, keep_w)


def expect_l3(inner_ip, tags=(), push=None):
    """DECAP_L3's output built from scapy layers: outer Ethernet (+ a pushed 802.1Q tag first)
    (+ the outer tags) / the inner IP packet (scapy sets each type from its payload)."""
    p = Ether(dst=OUTER_DST, src=OUTER_SRC)
    if push is not None:
        p = p / Dot1Q(vlan=push)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return bytes(p / inner_ip)


def expect_teb(inner, push=None):
    if push is None:
        return bytes(inner)
    return bytes(Ether(dst=inner.dst, src=inner.src) / Dot1Q(vlan=push, type=inner.type) / inner.payload)


# ---------------------------------------------------------------------------------------------
# The real capture (suricata-verify geneve-decoder): 10 frames, Geneve v0 over IPv4, no options,
# protocol 0x6558, VNI 123, UDP checksum 0: two ARP and eight ICMP echo frames inside.
# ---------------------------------------------------------------------------------------------


@pytest.mark.skipif(not (CAPTURES / "geneve.pcap").is_file(), reason=f"{CAPTURES}/geneve.pcap not present")
def test_real_capture():
    frames = pcap.read_ethernet(CAPTURES / "geneve.pcap")
    assert len(frames) == 10
    results = []
    for i, f in enumerate(frames):
        p = Ether(f)
        g = p[GENEVE]
        assert p[UDP].dport == 6081 and p[UDP].chksum == 0 and g.optionlen == 0 and g.proto == 0x6558
        r = run(f)
        results.append(r)
        assert r.outcome == O.DECAP_TEB and r.vni == 123 and r.emit and not r.aborted and r.tvni_valid
        assert r.output == bytes(g.payload)
        inner = Ether(r.output)
        assert inner.haslayer(ARP) if i < 2 else inner.haslayer(ICMP)
        assert r.need == 14 + 20 + 16 + 14
        for kw in (8, 16, 32, 64):
            assert run(f, keep_w=kw).output == r.output
        assert run(f, GeneveConfig(vni_table={123: (0, False)})).outcome == O.DECAP_TEB
        assert run(f, GeneveConfig(vni_table={124: (0, False)})).outcome == O.DROP_UNKNOWN_VNI
        assert run(f, GeneveConfig(port=6082)).outcome == O.PASS
        r = run(f, GeneveConfig(vni_table={123: (300, True)}))
        assert r.output == expect_teb(Ether(bytes(g.payload)), push=300)
    pk, by, txp, txb = tally(results)
    assert pk[O.DECAP_TEB] == 10 and sum(pk) == 10 and by[O.DECAP_TEB] == sum(map(len, frames))
    assert txp == 10 and txb == sum(len(f) - 50 for f in frames)


# ---------------------------------------------------------------------------------------------
# Well-formed frames: every outer L2/L3 form, every payload kind, the three UDP checksum cases
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tags", TAGS, ids=TAG_IDS)
@pytest.mark.parametrize("v6", [False, True], ids=["outer4", "outer6"])
@pytest.mark.parametrize("kind", ["teb", "ip4", "ip6"])
@pytest.mark.parametrize("csum", ["valid", "zero", "bad"])
def test_forms(tags, v6, kind, csum):
    payload = {"teb": inner_eth(), "ip4": inner_ip4(), "ip6": inner_ip6()}[kind]
    gf = gen(payload, vni=0xABCDEF, tags=tags, v6=v6, udp_csum={"valid": "auto", "zero": "zero", "bad": "bad"}[csum])
    f = gf.frame
    p = Ether(f)
    L2 = 14 + 4 * len(tags)
    U = L2 + (40 if v6 else 20)
    assert (gf.L2, gf.U, gf.K, gf.ip_end) == (L2, U, U + 16, len(f))
    if csum == "valid":  # scapy's own verdict: rebuilding with chksum=None gives the same bytes
        q = Ether(f)
        del q[UDP].chksum
        assert bytes(q) == f and p[UDP].chksum != 0
    r = run(f)
    assert r.vni == 0xABCDEF and r.in_len == len(f)
    if csum == "bad":
        assert r.outcome == O.DROP_UDP_CHECKSUM and r.emit and r.aborted and r.output is None
        assert r.decapsulated and r.tvni_valid
        return
    if kind == "teb":
        assert r.outcome == O.DECAP_TEB and r.output == bytes(payload)
        assert r.need == U + 16 + 14
    else:
        assert r.outcome == O.DECAP_L3 and r.output == expect_l3(payload, tags)
        assert r.need == U + 16
        assert Ether(r.output).lastlayer().load == payload.lastlayer().load
    assert r.emit and not r.aborted and r.tvni_valid


def test_ihl_options_move_the_udp_header():
    for ihl in (6, 10, 15):
        gf = gen(inner_eth(), ip_kw=dict(options=[IPOption_NOP()] * (4 * (ihl - 5))))
        assert gf.frame[14] & 0xF == ihl
        r = run(gf.frame)
        assert r.outcome == O.DECAP_TEB and r.output == bytes(inner_eth())
        assert r.need == 14 + 4 * ihl + 16 + 14


def test_padding_is_never_output_but_punts_keep_it():
    gf = gen(inner_ip4(pay=b"x"), udp_csum="auto", pad=b"\xff" * 17)
    r = run(gf.frame)
    assert r.outcome == O.DECAP_L3 and r.output == expect_l3(inner_ip4(pay=b"x"))
    small = Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02") / ARP()
    r = run(gen(small, pad=bytes(20)).frame)
    assert r.outcome == O.DECAP_TEB and r.output == bytes(small)
    f = gen(Raw(bytes(30)), proto=0x8847, pad=b"\xee" * 9).frame
    r = run(f)
    assert r.outcome == O.PUNT and r.output == f


# ---------------------------------------------------------------------------------------------
# Options: 0, 4, ... 252 bytes, skipped by Opt Len, never read
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["teb", "ip4", "ip6"])
def test_every_option_length(kind):
    rng = random.Random(5)
    payload = {"teb": inner_eth(), "ip4": inner_ip4(), "ip6": inner_ip6()}[kind]
    for words in range(64):
        opts = GF.option_tlvs(4 * words, rng, critical=bool(words & 1))  # critical types, C = 0
        gf = gen(payload, options=opts, tags=(("q", 5),) if words % 3 == 0 else (), v6=words % 4 == 1)
        f = gf.frame
        g = Ether(f)[GENEVE]
        assert g.optionlen == words and len(bytes(g)) - len(bytes(g.payload)) == 8 + 4 * words
        r = run(f)
        if kind == "teb":
            assert r.outcome == O.DECAP_TEB and r.output == bytes(payload), words
            assert r.need == gf.K + 14
        else:
            tags = (("q", 5),) if words % 3 == 0 else ()
            assert r.outcome == O.DECAP_L3 and r.output == expect_l3(payload, tags), words
            assert r.need == gf.K
        assert gf.K == gf.U + 16 + 4 * words


def test_option_bytes_are_not_read():
    """Raw option bytes whose TLV lengths disagree with Opt Len: skipped by Opt Len alone."""
    for optbytes in (b"\xff" * 4, bytes(range(8)), b"\x01\x02\x03\x1f" + bytes(4), b"\xaa" * 252):
        gf = gen(inner_eth(), options=optbytes)
        assert Ether(gf.frame)[GENEVE].optionlen == len(optbytes) // 4
        r = run(gf.frame)
        assert r.outcome == O.DECAP_TEB and r.output == bytes(inner_eth())


def test_options_past_the_datagram():
    # Opt Len 40 words, 20 bytes after the fixed header: the options run past ip_end
    gf = gen(Raw(bytes(20)), optlen=40)
    assert gf.K > gf.ip_end
    r = run(gf.frame)
    assert r.outcome == O.DROP_IP_HEADER and not r.emit and r.need == gf.U + 16
    # the options end exactly at ip_end: an inner Ethernet frame is missing (TEB) ...
    gf = gen(Raw(bytes(20)), optlen=5, proto=0x6558, udp_csum="zero")
    assert gf.K == gf.ip_end
    assert run(gf.frame).outcome == O.DROP_TRUNCATED
    # ... an empty inner IP packet is decapsulated as GRE does (the outer Ethernet header alone)
    gf = gen(Raw(bytes(20)), optlen=5, proto=0x0800, udp_csum="zero")
    r = run(gf.frame)
    assert r.outcome == O.DECAP_L3 and r.output == bytes(Ether(dst=OUTER_DST, src=OUTER_SRC, type=0x0800))
    # checked before the O bit and the VNI table
    gf = gen(Raw(bytes(20)), optlen=40, oam=True)
    assert run(gf.frame, GeneveConfig(vni_table={})).outcome == O.DROP_IP_HEADER


# ---------------------------------------------------------------------------------------------
# Version, O and C bits, protocol type
# ---------------------------------------------------------------------------------------------


def test_version():
    for ver in (1, 2, 3):
        for kw in (dict(), dict(oam=True), dict(critical=True), dict(options=252)):
            f = gen(inner_eth(), version=ver, **kw).frame
            assert Ether(f)[GENEVE].version == ver
            r = run(f)
            assert r.outcome == O.DROP_VERSION and not r.emit and r.output is None, (ver, kw)
            assert r.vni is None
            assert run(f, bad=True).outcome == O.DROP_RX_ERROR
            assert not run(f, bad=True).emit
            assert run(f, GeneveConfig(vni_table={})).outcome == O.DROP_VERSION


def test_oam_is_punted_unchanged():
    cases = [gen(inner_eth(), oam=True), gen(inner_ip4(), oam=True, options=12),
             gen(Raw(b"oam payload"), proto=0x8902, oam=True), gen(inner_eth(), oam=True, critical=True),
             gen(inner_eth(), oam=True, udp_csum="bad"), gen(Raw(bytes(3)), proto=0x6558, oam=True, udp_csum="zero")]
    for gf in cases:
        f = gf.frame
        assert Ether(f)[GENEVE].oam == 1
        r = run(f)
        assert r.outcome == O.PUNT_OAM and r.output == f and r.emit and not r.aborted, Ether(f).summary()
        assert not r.tvni_valid and r.vni == GF.CONTRACT_VNI and r.need == gf.U + 16
        r = run(f, GeneveConfig(drop_punt=True))
        assert r.outcome == O.DROP_POLICY and not r.emit
        assert run(f, GeneveConfig(drop_punt=True), bad=True).outcome == O.DROP_RX_ERROR
        assert run(f, GeneveConfig(drop_pass=True)).outcome == O.PUNT_OAM
        r = run(f, bad=True)
        assert r.outcome == O.DROP_RX_ERROR and r.emit == r.aborted == (len(f) > HDR_WINDOW)  # late past the window
    # a truncated OAM frame (it ends inside its options) is punted as it is
    f = gen(inner_eth(), oam=True, options=64).frame[:80]
    assert run(f).outcome == O.PUNT_OAM and run(f).output == f
    # the VNI table comes first
    f = gen(inner_eth(), oam=True).frame
    assert run(f, GeneveConfig(vni_table={1: (0, False)})).outcome == O.DROP_UNKNOWN_VNI
    assert run(f, GeneveConfig(vni_table={GF.CONTRACT_VNI: (0, False)})).outcome == O.PUNT_OAM


def test_critical_bit():
    for kw in (dict(options=GF.option_tlvs(8, critical=True)), dict(), dict(options=252)):
        for payload in (inner_eth(), inner_ip4(), Raw(bytes(30))):
            f = gen(payload, critical=True, **kw).frame
            assert Ether(f)[GENEVE].critical == 1
            r = run(f)
            assert r.outcome == O.DROP_CRITICAL and not r.emit and r.output is None
            assert r.vni == GF.CONTRACT_VNI
            r = run(f, GeneveConfig(critical_punt=True))
            assert r.outcome == O.PUNT and r.output == f and r.emit and not r.tvni_valid
            assert run(f, GeneveConfig(critical_punt=True, drop_punt=True)).outcome == O.DROP_POLICY
            assert run(f, GeneveConfig(drop_punt=True)).outcome == O.DROP_CRITICAL
            assert run(f, bad=True).outcome == O.DROP_RX_ERROR and not run(f, bad=True).emit
    # a critical option type with C = 0 is not looked at; the table comes before C
    f = gen(inner_eth(), options=GF.option_tlvs(8, critical=True)).frame
    assert run(f).outcome == O.DECAP_TEB
    f = gen(inner_eth(), critical=True).frame
    assert run(f, GeneveConfig(vni_table={})).outcome == O.DROP_UNKNOWN_VNI
    assert GeneveConfig(critical_punt=True).control == 0b0010


@pytest.mark.parametrize("proto", [0x0000, 0x8847, 0x894F, 0x88BE, 0x0806, 0x8100, 0x6559, 0xFFFF])
def test_other_protocols_are_punted(proto):
    f = gen(Raw(bytes(range(40))), proto=proto, options=8).frame
    assert Ether(f)[GENEVE].proto == proto
    r = run(f)
    assert r.outcome == O.PUNT and r.output == f and r.emit and not r.tvni_valid
    assert run(f, GeneveConfig(drop_punt=True)).outcome == O.DROP_POLICY
    assert run(f, GeneveConfig(vni_table={})).outcome == O.DROP_UNKNOWN_VNI
    # no UDP checksum check and no truncation check on a punted frame
    assert run(gen(Raw(bytes(40)), proto=proto, udp_csum="bad").frame).outcome == O.PUNT
    assert run(gen(Raw(bytes(40)), proto=proto).frame[:-5]).outcome == O.PUNT


def test_reserved_fields_are_ignored():
    for kw in (dict(rsvd=0x3F), dict(rsvd2=0xFF), dict(rsvd=1, rsvd2=1)):
        f = gen(inner_eth(), **kw).frame
        r = run(f)
        assert r.outcome == O.DECAP_TEB and r.output == bytes(inner_eth()), kw


# ---------------------------------------------------------------------------------------------
# Not Geneve (PASS), the port, the outer checks
# ---------------------------------------------------------------------------------------------


def test_pass_frames():
    cases = [
        Ether() / IP() / UDP(dport=53) / Raw(b"q" * 40),
        Ether() / IP() / TCP(dport=6081),
        Ether() / IPv6() / TCP(dport=6081),
        Ether() / ARP(),
        Ether(type=0x88CC) / Raw(b"lldp" * 20),
        Ether() / IP() / UDP(sport=6081, dport=6082) / Raw(bytes(16)),
        Ether() / IP() / UDP(dport=4789) / VXLAN(vni=5) / inner_eth(),
        gen(inner_eth(), tags=(("ad", 1), ("q", 2), ("q", 3))).frame,
        gen(inner_eth(), dport=6082).frame,
        gen(inner_eth(), dport=4789).frame,
        gen(inner_eth(), ip_kw=dict(frag=1)).frame,  # not a first fragment: no UDP header
        gen(inner_eth(), ip_kw=dict(proto=6)).frame,
        gen(inner_eth(), v6=True, ip_kw=dict(nh=44)).frame,  # IPv6 fragment header: not looked into
    ]
    for p in cases:
        f = bytes(p)
        r = run(f)
        assert r.outcome == O.PASS, Ether(f).summary()
        assert r.output == f and r.emit and not r.aborted and not r.tvni_valid and r.vni is None
        r = run(f, GeneveConfig(drop_pass=True))
        assert r.outcome == O.DROP_POLICY and r.output is None and not r.emit
        assert run(f, GeneveConfig(drop_pass=True), bad=True).outcome == O.DROP_RX_ERROR
        assert run(f, GeneveConfig(drop_punt=True)).outcome == O.PASS
    for b0 in (0x55, 0x65, 0x44, 0x40):  # outer IPv4 version/IHL not 4/>=5: PASS
        g = bytearray(gen(inner_eth()).frame)
        g[14] = b0
        assert run(g).outcome == O.PASS


def test_port_register():
    f6081 = gen(inner_eth()).frame
    f7000 = gen(inner_eth(), dport=7000).frame
    assert run(f7000).outcome == O.PASS
    assert run(f6081, GeneveConfig(port=7000)).outcome == O.PASS
    r = run(f7000, GeneveConfig(port=7000))
    assert r.outcome == O.DECAP_TEB and r.output == bytes(inner_eth())


def test_outer_checks():
    good = gen(inner_eth())
    b = bytearray(good.frame)
    b[24] ^= 0x40  # outer IPv4 checksum
    assert run(b).outcome == O.DROP_IP_CHECKSUM
    assert run(gen(inner_eth(), ip_kw=dict(chksum=0x1234)).frame).outcome == O.DROP_IP_CHECKSUM
    for fl in ("MF", "MF+DF"):
        r = run(gen(inner_eth(), ip_kw=dict(flags=fl)).frame)
        assert r.outcome == O.DROP_FRAGMENT and not r.emit
    assert run(gen(inner_eth(), ip_kw=dict(flags="DF")).frame).outcome == O.DECAP_TEB
    # total length < IHL*4 + 16; UDP length != ip_end - U; IPv6 payload length < 16
    for tl in (20, 28, 35):
        assert run(gen(inner_eth(), ip_kw=dict(len=tl)).frame).outcome == O.DROP_IP_HEADER, tl
    for ul in (0, 8, 16, 50, 2000):
        assert run(gen(inner_eth(), udp_kw=dict(len=ul), udp_csum="zero").frame).outcome == O.DROP_IP_HEADER, ul
    for pl in (0, 8, 15):
        assert run(gen(inner_eth(), v6=True, ip_kw=dict(plen=pl)).frame).outcome == O.DROP_IP_HEADER, pl
    r = run(b, bad=True)
    assert r.outcome == O.DROP_RX_ERROR and not r.emit


# ---------------------------------------------------------------------------------------------
# The VNI table (the VXLAN decapsulator's: VNI -> (VLAN ID, push))
# ---------------------------------------------------------------------------------------------


def test_vni_table():
    table = {100: (10, True), 200: (0, False), 300: (4095, True), 400: (0, True)}
    cfg = GeneveConfig(vni_table=table)
    assert cfg.control == 0b0001
    r = run(gen(inner_eth(), vni=100).frame, cfg)
    assert r.outcome == O.DECAP_TEB and r.output == expect_teb(inner_eth(), push=10)
    assert run(gen(inner_eth(), vni=200).frame, cfg).output == bytes(inner_eth())
    r = run(gen(inner_eth(), vni=300).frame, cfg)
    assert Ether(r.output)[Dot1Q].vlan == 4095 and Ether(r.output)[Dot1Q].prio == 0
    assert run(gen(inner_eth(), vni=400).frame, cfg).output[12:16] == b"\x81\x00\x00\x00"
    # DECAP_L3: the tag goes at output byte 12, before the outer tags
    for tags in TAGS:
        r = run(gen(inner_ip4(), vni=100, tags=tags).frame, cfg)
        assert r.outcome == O.DECAP_L3 and r.output == expect_l3(inner_ip4(), tags, push=10), tags
        r = run(gen(inner_ip6(), vni=200, tags=tags).frame, cfg)
        assert r.output == expect_l3(inner_ip6(), tags)
    # a push onto an inner frame that is already tagged: the new tag is outermost
    tagged = inner_eth(tag=33)
    r = run(gen(tagged, vni=100).frame, cfg)
    assert r.output == bytes(Ether(dst=tagged.dst, src=tagged.src) / Dot1Q(vlan=10, type=0x8100) / tagged[Dot1Q])
    for vni in (0, 101, 0xFFFFFF):
        r = run(gen(inner_eth(), vni=vni).frame, cfg)
        assert r.outcome == O.DROP_UNKNOWN_VNI and not r.emit and r.vni == vni
    for vni in (0, 1, 0x123456, 0xFFFFFF):
        r = run(gen(inner_eth(), vni=vni).frame)
        assert r.outcome == O.DECAP_TEB and r.vni == vni
    # the table comes before the protocol and the inner frame; PASS frames are unaffected
    assert run(gen(Raw(b"abc"), proto=0x6558, vni=7).frame, cfg).outcome == O.DROP_UNKNOWN_VNI
    assert run(bytes(Ether() / IP() / UDP(dport=53)), GeneveConfig(vni_table={})).outcome == O.PASS


# ---------------------------------------------------------------------------------------------
# ECN (RFC 6040) and the inner header
# ---------------------------------------------------------------------------------------------


def rfc6040(o, i):
    """RFC 6040 section 4.2, the contracts' subset (ECT(1) wins over ECT(0)); None = drop."""
    table = {
        (NOT_ECT, NOT_ECT): NOT_ECT, (NOT_ECT, ECT0): NOT_ECT, (NOT_ECT, ECT1): NOT_ECT, (NOT_ECT, CE): None,
        (ECT0, NOT_ECT): ECT0, (ECT0, ECT0): ECT0, (ECT0, ECT1): ECT1, (ECT0, CE): CE,
        (ECT1, NOT_ECT): ECT1, (ECT1, ECT0): ECT1, (ECT1, ECT1): ECT1, (ECT1, CE): CE,
        (CE, NOT_ECT): CE, (CE, ECT0): CE, (CE, ECT1): CE, (CE, CE): CE,
    }
    return table[(i, o)]


@pytest.mark.parametrize("outer_v6", [False, True], ids=["outer4", "outer6"])
@pytest.mark.parametrize("kind", ["teb4", "teb6", "l3v4", "l3v6"])
@pytest.mark.parametrize("o", range(4))
@pytest.mark.parametrize("i", range(4))
def test_rfc6040(o, i, kind, outer_v6):
    tos = 0xB8 | i
    payload = {"teb4": inner_eth(tos=tos), "teb6": inner_eth6(tc=tos), "l3v4": inner_ip4(tos=tos),
               "l3v6": inner_ip6(tc=tos)}[kind]
    gf = gen(payload, v6=outer_v6, ecn=o, dscp=8, options=8)
    r = run(gf.frame)
    new = rfc6040(o, i)
    if new is None:
        assert r.outcome == O.DROP_ECN and not r.emit and r.output is None
        return
    exp = payload.copy()
    if IPv6 in exp:
        exp[IPv6].tc = (tos & 0xFC) | new
    else:
        exp[IP].tos = (tos & 0xFC) | new
        exp[IP].chksum = None  # scapy recomputes the whole header checksum
    if kind.startswith("teb"):
        assert r.outcome == O.DECAP_TEB and r.output == bytes(exp), (o, i)
    else:
        assert r.outcome == O.DECAP_L3 and r.output == expect_l3(exp), (o, i)
    read = o in (ECT1, CE)
    if kind.startswith("teb"):
        assert r.need == gf.K + 14 + ((12 if kind == "teb4" else 2) if read else 0)
    else:
        assert r.need == gf.K + ((12 if kind == "l3v4" else 2) if read else 0)


def test_ecn_not_on_tagged_or_other_inner():
    tagged = inner_eth(tag=5)
    assert run(gen(tagged, ecn=CE).frame).output == bytes(tagged)
    arp = Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02") / ARP()
    assert run(gen(arp, ecn=CE).frame).output == bytes(arp)


def test_ecn_truncated_inner():
    ip4 = bytes(IP(tos=2, dst="1.2.3.4") / UDP())
    ip6 = bytes(IPv6(tc=2) / UDP())
    hdr = bytes(Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02"))[:12]
    for o in (ECT1, CE):
        # L3: 12 bytes of inner IPv4 / 2 of IPv6 inside ip_end are needed
        assert run(gen(Raw(ip4[:11]), proto=0x0800, ecn=o, udp_csum="zero").frame).outcome == O.DROP_TRUNCATED
        r = run(gen(Raw(ip4[:12]), proto=0x0800, ecn=o, udp_csum="zero").frame)
        assert r.outcome == O.DECAP_L3 and r.output[15] & 3 == (CE if o == CE else ECT1)
        assert run(gen(Raw(ip6[:1]), proto=0x86DD, ecn=o, udp_csum="zero").frame).outcome == O.DROP_TRUNCATED
        r = run(gen(Raw(ip6[:2]), proto=0x86DD, ecn=o, udp_csum="zero").frame)
        assert r.outcome == O.DECAP_L3 and r.output[14:16] == bytes((0x60, 0x30 if o == CE else 0x10))
        # TEB: the same after the inner Ethernet header
        assert run(gen(Raw(hdr + b"\x08\x00" + ip4[:11]), proto=0x6558, ecn=o, udp_csum="zero").frame).outcome \
            == O.DROP_TRUNCATED
        r = run(gen(Raw(hdr + b"\x08\x00" + ip4[:12]), proto=0x6558, ecn=o, udp_csum="zero").frame)
        assert r.outcome == O.DECAP_TEB and r.output[:15] == hdr + b"\x08\x00\x45"
    for o in (NOT_ECT, ECT0):  # the inner header is not read: a short one is fine
        r = run(gen(Raw(ip4[:3]), proto=0x0800, ecn=o, udp_csum="zero").frame)
        assert r.outcome == O.DECAP_L3 and r.output[14:] == ip4[:3]


def test_inner_ethernet_short():
    for n in (0, 1, 13):
        r = run(gen(Raw(bytes(inner_eth())[:n]), proto=0x6558, udp_csum="zero").frame)
        assert r.outcome == O.DROP_TRUNCATED and not r.emit
    r = run(gen(Raw(bytes(inner_eth())[:14]), proto=0x6558).frame)
    assert r.outcome == O.DECAP_TEB and r.output == bytes(inner_eth())[:14]


# ---------------------------------------------------------------------------------------------
# Truncation at every byte, early and late; RX errors; the UDP checksum
# ---------------------------------------------------------------------------------------------


def _decision_byte(need_full: int, K: int) -> int:
    """The contract's decision point for a frame that holds every byte it needs (step 9 reached:
    the inner window [K, K+26) is read whatever the protocol type)."""
    return max(need_full, K + 26, HDR_WINDOW)


@pytest.mark.parametrize("kind,opt", [("teb", 0), ("teb", 8), ("teb", 252), ("ip4", 0), ("ip6", 124)])
def test_truncation_at_every_byte(kind, opt):
    payload = {"teb": inner_eth(tos=ECT0, pay=bytes(200)), "ip4": inner_ip4(tos=ECT0, pay=bytes(200)),
               "ip6": inner_ip6(tc=ECT0)}[kind]
    gf = gen(payload, options=opt, ecn=CE)  # CE over ECT(0): the inner IP header is read and rewritten
    f = gf.frame
    full = run(f)
    assert full.outcome == (O.DECAP_TEB if kind == "teb" else O.DECAP_L3)
    need_full = gf.K + {"teb": 14 + 12, "ip4": 12, "ip6": 2}[kind]
    assert full.need == need_full
    seen = set()
    for cut in range(1, len(f)):
        g = f[:cut]
        r = run(g)
        if cut < gf.U + 4:  # before the UDP destination port: not known to be Geneve
            assert r.outcome == O.PASS and r.output == g, cut
            continue
        assert r.outcome == O.DROP_TRUNCATED and r.output is None, cut
        assert r.need == (cut if cut < need_full else need_full), cut
        for keep_w in (None, 8, 64):
            w = keep_w or 1
            emitted = cut >= need_full and (cut - 1) // w > (_decision_byte(need_full, gf.K) - 1) // w
            r = run(g, keep_w=keep_w)
            assert r.emit == emitted and r.aborted == emitted, (cut, keep_w)
            seen.add(emitted)
    assert seen == {False, True}  # early and late drops both occur


@pytest.mark.parametrize("keep_w", [8, 16, 32, 64])
def test_ip_end_past_the_frame(keep_w):
    """ip_end beyond the frame (a length field too big): the frame's end decides early or late."""
    for total in (80, 200, 600):
        gf = gen(inner_eth(pay=bytes(total)), options=100, udp_csum="zero")
        f = gf.frame
        # shrink the frame by 40 bytes: the IP and UDP lengths still cover them
        g = f[:-40]
        r = run(g, keep_w=keep_w)
        assert r.outcome == O.DROP_TRUNCATED
        late = (len(g) - 1) // keep_w > (max(gf.K + 14, HDR_WINDOW) - 1) // keep_w
        assert r.emit == late and r.aborted == late


def test_rx_error():
    short = gen(inner_eth(pay=b"short")).frame  # fits in the 128-byte window
    assert len(short) <= HDR_WINDOW
    for f in (short, gen(inner_ip4()).frame):
        for kw in (None, 8, 64):
            r = run(f, bad=True, keep_w=kw)
            assert r.outcome == O.DROP_RX_ERROR and not r.emit and r.output is None
    long = gen(inner_eth(pay=bytes(300))).frame
    r = run(long, bad=True)
    assert r.outcome == O.DROP_RX_ERROR and r.emit and r.aborted and r.output is None and r.tvni_valid
    assert not run(long, bad=True, keep_w=512).emit  # the whole frame is in the decision beat
    # long options: the decision waits for the inner header, past the window
    big = gen(inner_eth(pay=bytes(40)), options=252)
    assert len(big.frame) == big.K + 14 + 20 + 20 + 40 and big.K + 14 > HDR_WINDOW
    r = run(big.frame, bad=True, keep_w=64)
    assert r.emit == ((len(big.frame) - 1) // 64 > (big.K + 14 - 1) // 64)
    r = run(big.frame, bad=True, keep_w=8)
    assert r.outcome == O.DROP_RX_ERROR and r.emit and r.aborted
    # pass frames, early drops, checksum drops
    p = bytes(Ether() / IP() / UDP(dport=53) / Raw(bytes(300)))
    r = run(p, bad=True)
    assert r.outcome == O.DROP_RX_ERROR and r.emit and r.aborted
    assert run(gen(inner_eth(), udp_csum="bad").frame, bad=True).outcome == O.DROP_RX_ERROR
    assert not run(gen(inner_eth(pay=bytes(300)), version=1).frame, bad=True).emit
    assert not run(b"\x01\x02\x03", bad=True).emit


@pytest.mark.parametrize("v6", [False, True], ids=["outer4", "outer6"])
def test_udp_checksum(v6):
    for opt in (0, 4, 252):
        for payload in (inner_eth(), inner_ip4(), inner_ip6()):
            good = gen(payload, options=opt, v6=v6).frame
            assert run(good).outcome in DECAP_OUTCOMES
            assert run(gen(payload, options=opt, v6=v6, udp_csum="zero").frame).outcome in DECAP_OUTCOMES
            bad = gen(payload, options=opt, v6=v6, udp_csum="bad").frame
            for kw in (None, 8, 64):  # always late, whatever the length
                r = run(bad, keep_w=kw)
                assert r.outcome == O.DROP_UDP_CHECKSUM and r.emit and r.aborted and r.output is None
    # the checksum covers the options: one flipped option bit is caught, a frame with checksum 0 is not
    gf = gen(inner_eth(), options=16)
    b = bytearray(gf.frame)
    b[gf.U + 20] ^= 0x10
    assert run(b).outcome == O.DROP_UDP_CHECKSUM
    gf = gen(inner_eth(), options=16, udp_csum="zero")
    b = bytearray(gf.frame)
    b[gf.U + 20] ^= 0x10
    assert run(b).outcome == O.DECAP_TEB
    # padding after ip_end is not summed
    f = gen(inner_eth(), pad=b"\x5a" * 11).frame
    assert run(f).outcome == O.DECAP_TEB


# ---------------------------------------------------------------------------------------------
# Random frames: invariants; the contract cases and their pcap
# ---------------------------------------------------------------------------------------------


def _random_frame(rng: random.Random) -> tuple[bytes, bool]:
    payload = rng.choice([inner_eth(tos=rng.randrange(256), pay=bytes(rng.randrange(400))), inner_eth6(tc=rng.randrange(256)),
                          inner_ip4(tos=rng.randrange(256)), inner_ip6(tc=rng.randrange(256)), Raw(bytes(rng.randrange(60)))])
    kw = dict(vni=rng.choice((1, 2, 3)), options=4 * rng.randrange(64), tags=rng.choice(TAGS), v6=rng.random() < 0.3,
              ecn=rng.randrange(4), oam=rng.random() < 0.05, critical=rng.random() < 0.05,
              version=0 if rng.random() < 0.95 else rng.randrange(1, 4),
              udp_csum=rng.choice(("auto", "auto", "zero", "bad")), dport=6081 if rng.random() < 0.95 else 4789)
    if isinstance(payload, Raw):
        kw["proto"] = rng.choice((0x6558, 0x0800, 0x86DD, 0x8847))
    f = bytearray(gen(payload, **kw).frame)
    if rng.random() < 0.2:
        del f[rng.randrange(1, len(f)):]
    if rng.random() < 0.1:
        f[rng.randrange(len(f))] ^= 1 << rng.randrange(8)
    return bytes(f), rng.random() < 0.05


def test_random_invariants():
    rng = random.Random(31)
    cfg = GeneveConfig(vni_table={1: (5, True), 2: (0, False)})
    results = []
    for _ in range(400):
        f, bad = _random_frame(rng)
        r = run(f, cfg, bad)
        results.append(r)
        assert r.in_len == len(f)
        assert (r.output is not None) == (r.outcome in FORWARD_OUTCOMES)
        if r.output is not None:
            assert r.emit and not r.aborted
        if r.aborted:
            assert r.emit and r.outcome in (O.DROP_TRUNCATED, O.DROP_UDP_CHECKSUM, O.DROP_RX_ERROR)
        if r.outcome in (O.PASS, O.PUNT, O.PUNT_OAM):
            assert r.output == f and not r.tvni_valid
        if r.outcome in DECAP_OUTCOMES:
            assert r.vni in (1, 2) and r.tvni_valid
            if r.outcome == O.DECAP_TEB:
                assert len(r.output) >= 14 + (4 if r.vni == 1 else 0)
        if bad:
            assert r.outcome == O.DROP_RX_ERROR
        for kw in (8, 64):  # the bus width changes emit/aborted only
            q = run(f, cfg, bad, kw)
            assert (q.outcome, q.output, q.vni, q.need) == (r.outcome, r.output, r.vni, r.need)
    pk, by, txp, txb = tally(results)
    assert sum(pk) == len(results) and sum(by) == sum(r.in_len for r in results)
    assert txp == sum(1 for r in results if r.output is not None) and txb == sum(r.out_len for r in results)
    assert len({r.outcome for r in results}) >= 10


def test_contract_cases_cover_every_outcome_and_make_a_pcap(tmp_path):
    cases = GF.contract_cases()
    by_kind = {c.kind: c for c in cases}
    assert len(by_kind) == len(cases)
    want = {  # under the reset configuration
        "teb": O.DECAP_TEB, "teb_options_252": O.DECAP_TEB, "l3_ipv4": O.DECAP_L3, "l3_ipv6_vlan": O.DECAP_L3,
        "pass_vxlan": O.PASS, "pass_three_tags": O.PASS, "punt_proto_mpls": O.PUNT, "punt_oam": O.PUNT_OAM,
        "critical": O.DROP_CRITICAL, "trunc_header": O.DROP_TRUNCATED, "trunc_late": O.DROP_TRUNCATED,
        "ip_header_options_past": O.DROP_IP_HEADER, "ip_checksum": O.DROP_IP_CHECKSUM,
        "fragment": O.DROP_FRAGMENT, "version_1": O.DROP_VERSION, "ecn_drop": O.DROP_ECN,
        "udp_checksum_bad": O.DROP_UDP_CHECKSUM, "rx_error": O.DROP_RX_ERROR,
    }
    for kind, o in want.items():
        c = by_kind[kind]
        assert run(c.frame, bad=c.bad).outcome == o, kind
    l3 = Ether(by_kind["l3_ipv4"].frame)
    assert run(by_kind["l3_ipv4"].frame).output == expect_l3(l3[GENEVE].payload)
    cfgs = [GeneveConfig(), GeneveConfig(vni_table={GF.CONTRACT_VNI: (9, True)}, critical_punt=True),
            GeneveConfig(drop_pass=True, drop_punt=True)]
    seen = {run(c.frame, cfg, c.bad).outcome for c in cases for cfg in cfgs}
    assert seen == set(O)
    # the pcap for end-to-end runs, generated here (not committed): every case but the RX error
    path = tmp_path / "geneve_contract.pcap"
    written = GF.write_pcap(path)
    assert [c.kind for c in written] == [c.kind for c in cases if not c.bad]
    back = pcap.read_ethernet(path)
    assert back == [c.frame for c in written]
    assert [run(f).outcome for f in back] == [run(c.frame).outcome for c in written]

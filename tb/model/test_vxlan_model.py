"""Unit tests of the golden model wirespeed/model/vxlan.py against docs/vxlan.md.

Inputs and expected outputs are built (and outputs parsed back) with scapy, independently of the
model's byte arithmetic.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import ICMP, IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.layers.sctp import crc32c as scapy_crc32c_le  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Padding, Raw  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402

from wirespeed.model import vxlan_frames as VF  # noqa: E402
from wirespeed.model.vxlan import (  # noqa: E402
    DecapConfig,
    DecapOutcome,
    EncapConfig,
    EncapOutcome,
    Tunnel,
    crc32c,
    decap,
    encap,
    encap_key,
    flow_hash,
    tally_decap,
    tally_encap,
    udp_checksum_ok,
)

D = DecapOutcome
E = EncapOutcome
CAPTURES = Path(__file__).resolve().parents[3] / "shared" / "captures"
OUTER = dict(dst="02:00:00:00:00:02", src="02:00:00:00:00:01")


def scapy_crc32c(data: bytes) -> int:
    """scapy's SCTP CRC-32C, which returns the value byte-swapped (SCTP's wire order)."""
    return int.from_bytes(scapy_crc32c_le(data).to_bytes(4, "big"), "little")


def inner4(tos=0, dst="192.168.2.2", pay=b"hello world, this is the inner payload", tag=None):
    p = Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02")
    if tag is not None:
        p = p / Dot1Q(vlan=tag)
    return p / IP(src="192.168.1.1", dst=dst, tos=tos, id=77, ttl=33) / TCP(sport=1234, dport=80, flags="PA") / Raw(pay)


def inner6(tc=0):
    return (Ether(dst="aa:bb:cc:dd:ee:03", src="aa:bb:cc:dd:ee:04") / IPv6(src="2001:db8::a", dst="2001:db8::b", tc=tc)
            / UDP(sport=5, dport=6) / Raw(b"inner v6 payload ......"))


def outer(inner, vni=42, *, tags=(), v6=False, ecn=0, udp_chksum=None, dport=4789, vx=None, ip_kw=None):
    """Ether[/tags]/IP|IPv6/UDP/VXLAN/inner, entirely by scapy (checksums computed by scapy)."""
    p = Ether(**OUTER)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    if v6:
        p = p / IPv6(src="2001:db8::1", dst="2001:db8::2", tc=ecn, **(ip_kw or {}))
    else:
        p = p / IP(src="10.0.0.1", dst="10.0.0.2", tos=ecn, **(ip_kw or {}))
    u = UDP(sport=50000, dport=dport)
    if udp_chksum is not None:
        u.chksum = udp_chksum
    return p / u / (vx if vx is not None else VXLAN(flags=0x08, vni=vni)) / inner


def run(frame, cfg=None, bad=False, keep_w=None):
    return decap(bytes(frame), cfg, bad, keep_w)


# ---------------------------------------------------------------------------------------------
# CRC-32C
# ---------------------------------------------------------------------------------------------


def test_crc32c():
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(b"") == 0
    rng = random.Random(1)
    for n in range(0, 40):
        d = bytes(rng.getrandbits(8) for _ in range(n))
        assert crc32c(d) == scapy_crc32c(d)


# ---------------------------------------------------------------------------------------------
# The seed's traffic
# ---------------------------------------------------------------------------------------------


def test_seed_frames():
    st = VF.seed_vxlan_frames(8192)
    assert len(st.net) == len(st.host) == 8192
    assert {len(f) for f in st.net} == {804}
    assert len({Ether(f)[VXLAN].vni for f in st.net}) == 4096
    assert len(st.decap_cfg.vni_table) == 4096 and len(st.encap_cfg.tunnels) == 4096
    for i in (0, 1, 4095, 4096, 8191):
        f = st.net[i]
        p = Ether(f)
        assert p[UDP].dport == 4789 and p[UDP].chksum != 0
        # scapy's own verdict on the checksums: rebuild with chksum=None
        q = Ether(f)
        del q[IP].chksum, q[UDP].chksum
        assert bytes(q) == f
        r = run(f, st.decap_cfg)
        assert r.outcome == D.DECAP and r.vni == p[VXLAN].vni and r.need == 64
        vid, push = st.decap_cfg.vni_table[r.vni]
        assert push
        inn = p[VXLAN].payload
        exp = Ether(dst=inn.dst, src=inn.src) / Dot1Q(vlan=vid, type=inn.type) / inn.payload
        assert r.output == bytes(exp)
        h = st.host[i]
        er = encap(h, st.encap_cfg)
        assert er.outcome == E.ENCAP and len(er.output) == 804
    # every stream decapsulates / encapsulates
    assert all(run(f, st.decap_cfg).outcome == D.DECAP for f in st.net[:4096])
    assert all(len(encap(h, st.encap_cfg).output) == 804 for h in st.host[:4096])


def test_seed_fast_path_equals_scapy():
    st = VF.seed_vxlan_frames(4096)
    for i in (0, 1, 2, 255, 256, 1000, 4093, 4094, 4095):
        assert st.net[i] == VF._seed_net_scapy(i)
        assert st.host[i] == VF._seed_host_scapy(i)


# ---------------------------------------------------------------------------------------------
# Decap: well-formed frames, every outer L2/L3 form
# ---------------------------------------------------------------------------------------------

TAGS = [(), (("q", 7),), (("ad", 7), ("q", 8)), (("q", 7), ("q", 8))]


@pytest.mark.parametrize("tags", TAGS, ids=["untagged", "vlan", "qinq", "qq"])
@pytest.mark.parametrize("v6", [False, True], ids=["v4", "v6"])
@pytest.mark.parametrize("csum", ["valid", "zero", "wrong"])
def test_decap_forms(tags, v6, csum):
    inner = inner4()
    p = outer(inner, vni=0xABCDEF, tags=tags, v6=v6, udp_chksum={"valid": None, "zero": 0, "wrong": 0x1234}[csum])
    f = bytes(p)
    if csum == "wrong":
        assert Ether(f)[UDP].chksum == 0x1234
    L2 = 14 + 4 * len(tags)
    U = L2 + (40 if v6 else 20)
    r = run(f)
    assert r.vni == 0xABCDEF
    if csum == "wrong":
        # scapy's own checksum of the same datagram is not 0x1234
        q = Ether(f)
        del q[UDP].chksum
        assert Ether(bytes(q))[UDP].chksum != 0x1234
        assert r.outcome == D.DROP_UDP_CHECKSUM and r.emit and r.aborted and r.output is None
        assert r.decapsulated and r.tvni_valid
    else:
        assert r.outcome == D.DECAP and r.emit and not r.aborted
        assert r.output == bytes(inner)
        assert r.need == U + 16 + 14
        assert r.tvni_valid


def test_udp_checksum_helper_agrees_with_scapy():
    rng = random.Random(4)
    for i in range(200):
        v6 = bool(i & 1)
        inner = bytes(inner4(pay=bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300)))))
        f = bytes(outer(Raw(inner), v6=v6))
        L2, U = 14, 14 + (40 if v6 else 20)
        assert udp_checksum_ok(f, L2, U, len(f), v6)
        b = bytearray(f)
        b[-1] ^= 1 << rng.randrange(8)
        assert not udp_checksum_ok(bytes(b), L2, U, len(f), v6)


def test_decap_ihl_options():
    from scapy.layers.inet import IPOption_NOP

    inner = inner4()
    for ihl in (6, 10, 15):
        p = outer(inner, ip_kw=dict(options=[IPOption_NOP()] * (4 * (ihl - 5))))
        f = bytes(p)
        assert f[14] & 0xF == ihl
        r = run(f)
        assert r.outcome == D.DECAP and r.output == bytes(inner)
        assert r.need == 14 + 4 * ihl + 16 + 14


def test_decap_padding_not_output():
    inner = Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02", type=0x88B5) / Raw(b"x")
    f = bytes(outer(inner, udp_chksum=0))
    assert len(f) == 50 + 15
    r = run(f + b"\x00" * 20)
    assert r.outcome == D.DECAP and r.output == bytes(inner)
    # padding on a frame with a valid UDP checksum: the checksum covers [U, ip_end) only
    f = bytes(outer(inner4()))
    r = run(f + b"\xff" * 13)
    assert r.outcome == D.DECAP and r.output == bytes(inner4())


def test_decap_pass_frames():
    cases = [
        Ether() / IP() / UDP(dport=53) / Raw(b"q" * 40),
        Ether() / IP() / TCP(dport=4789),
        Ether() / IPv6() / TCP(dport=4789),
        Ether() / ARP(),
        Ether(type=0x88CC) / Raw(b"lldp" * 20),
        Ether() / Dot1Q(vlan=1) / Dot1Q(vlan=2) / Dot1Q(vlan=3) / IP() / UDP(dport=4789) / VXLAN(flags=8) / inner4(),
        Ether() / IP() / UDP(sport=4789, dport=4790) / Raw(bytes(16)),
        outer(inner4(), dport=8472),
        outer(inner4(), dport=4788),
        outer(inner4(), ip_kw=dict(frag=1)),  # not a first fragment: no UDP header
        outer(inner4(), ip_kw=dict(proto=6)),
        outer(inner4(), v6=True, ip_kw=dict(nh=44)),  # IPv6 fragment header: not looked into
    ]
    for p in cases:
        f = bytes(p)
        r = run(f)
        assert r.outcome == D.PASS, p.summary()
        assert r.output == f and r.emit and not r.aborted and not r.tvni_valid and r.vni is None
        r = run(f, DecapConfig(drop_pass=True))
        assert r.outcome == D.DROP_POLICY and r.output is None and not r.emit
        r = run(f, DecapConfig(drop_pass=True), bad=True)
        assert r.outcome == D.DROP_RX_ERROR and not r.emit


def test_decap_version_ihl_pass():
    f = bytearray(bytes(outer(inner4())))
    for b0 in (0x55, 0x65, 0x44, 0x40, 0x35):
        g = bytearray(f)
        g[14] = b0
        assert run(g).outcome == D.PASS
    g = bytearray(bytes(outer(inner4(), v6=True)))
    g[14] = 0x40 | (g[14] & 0xF)
    assert run(g).outcome == D.PASS


def test_decap_ports():
    f8472 = bytes(outer(inner4(), dport=8472))
    f4789 = bytes(outer(inner4()))
    f9999 = bytes(outer(inner4(), dport=9999))
    assert run(f8472).outcome == D.PASS
    assert run(f8472, DecapConfig(port2=8472)).outcome == D.DECAP
    assert run(f4789, DecapConfig(port2=8472)).outcome == D.DECAP
    assert run(f4789, DecapConfig(port=9999)).outcome == D.PASS
    assert run(f9999, DecapConfig(port=9999)).outcome == D.DECAP
    assert run(f9999, DecapConfig(port=9999)).output == bytes(inner4())
    assert run(f8472, DecapConfig(port=9999, port2=8472)).outcome == D.DECAP
    assert DecapConfig(port2=8472).control == 0b0100
    assert DecapConfig(vni_table={}, strict=True, drop_pass=True).control == 0b1011


# ---------------------------------------------------------------------------------------------
# Decap: outer checks (step 4)
# ---------------------------------------------------------------------------------------------


def test_decap_ip_checksum_fragment_lengths():
    good = bytes(outer(inner4()))
    b = bytearray(good)
    b[24] ^= 0x40
    assert run(b).outcome == D.DROP_IP_CHECKSUM
    r = run(bytes(outer(inner4(), ip_kw=dict(flags="MF"))))
    assert r.outcome == D.DROP_FRAGMENT and not r.emit and r.output is None
    r = run(bytes(outer(inner4(), ip_kw=dict(flags="MF+DF"))))
    assert r.outcome == D.DROP_FRAGMENT
    assert run(bytes(outer(inner4(), ip_kw=dict(flags="DF")))).outcome == D.DECAP
    # checksum is checked before MF
    b = bytearray(bytes(outer(inner4(), ip_kw=dict(flags="MF"))))
    b[24] ^= 1
    assert run(b).outcome == D.DROP_IP_CHECKSUM
    # total length < IHL*4 + 16
    for tl in (0, 20, 35):
        r = run(VF.vxlan_frame(1, bytes(inner4()), tlen=tl).frame)
        assert r.outcome == D.DROP_IP_HEADER, tl
    # exactly IHL*4+16 with an empty inner frame: reaches step 7 (ip_end < K+14)
    f = VF.vxlan_frame(1, b"", udp_csum=0).frame
    assert Ether(f)[IP].len == 36
    assert run(f).outcome == D.DROP_TRUNCATED
    # UDP length != ip_end - U
    for ul in (0, 8, 16, 50, 2000):
        r = run(VF.vxlan_frame(1, bytes(inner4()), ulen=ul, udp_csum=0).frame)
        assert r.outcome == D.DROP_IP_HEADER, ul
    # IPv6 payload length < 16, UDP length mismatch
    for pl in (0, 8, 15):
        assert run(VF.vxlan_frame(1, bytes(inner4()), v6=True, tlen=pl).frame).outcome == D.DROP_IP_HEADER
    assert run(VF.vxlan_frame(1, bytes(inner4()), v6=True, ulen=30).frame).outcome == D.DROP_IP_HEADER
    # early drops never emit; with rx error they count as DROP_RX_ERROR
    r = run(b, bad=True)
    assert r.outcome == D.DROP_RX_ERROR and not r.emit


# ---------------------------------------------------------------------------------------------
# Decap: VXLAN header (step 5)
# ---------------------------------------------------------------------------------------------


def test_decap_flags_and_reserved():
    inner = inner4()
    for fl in (0x00, 0x80, 0x04, 0xF7):
        f = VF.vxlan_frame(5, bytes(inner), flags=fl).frame
        assert Ether(f)[UDP].chksum != 0
        r = run(f)
        assert r.outcome == D.DROP_VXLAN_FLAGS and not r.emit
        assert run(f, DecapConfig(strict=True)).outcome == D.DROP_VXLAN_FLAGS
    variants = [dict(flags=0x0C), dict(flags=0x88), dict(flags=0x09), dict(flags=0xFF), dict(rsv1=1),
                dict(rsv1=0x800000), dict(rsv1=0x010000), dict(rsv2=1), dict(rsv2=0x80)]
    for kw in variants:
        f = VF.vxlan_frame(5, bytes(inner), **kw).frame
        r = run(f)
        assert r.outcome == D.DECAP and r.output == bytes(inner) and r.vni == 5, kw
        r = run(f, DecapConfig(strict=True))
        assert r.outcome == D.DROP_VXLAN_RESERVED and not r.emit, kw
    # the same frame with only the I flag passes strict mode
    assert run(VF.vxlan_frame(5, bytes(inner)).frame, DecapConfig(strict=True)).outcome == D.DECAP


def test_decap_vni_values():
    for vni in (0, 1, 0x123456, 0xFFFFFF):
        r = run(outer(inner4(), vni=vni))
        assert r.outcome == D.DECAP and r.vni == vni


# ---------------------------------------------------------------------------------------------
# Decap: VNI table (step 6)
# ---------------------------------------------------------------------------------------------


def test_decap_vni_table():
    table = {100: (10, True), 200: (0, False), 300: (4095, True), 400: (0, True)}
    cfg = DecapConfig(vni_table=table)
    inner = inner4()
    r = run(outer(inner, vni=100), cfg)
    assert r.outcome == D.DECAP
    exp = Ether(dst=inner.dst, src=inner.src) / Dot1Q(vlan=10, prio=0, dei=0, type=0x0800) / inner[IP]
    assert r.output == bytes(exp)
    assert len(r.output) == len(inner) + 4
    assert run(outer(inner, vni=200), cfg).output == bytes(inner)
    r = run(outer(inner, vni=300), cfg)
    assert Ether(r.output)[Dot1Q].vlan == 4095 and Ether(r.output)[Dot1Q].prio == 0
    r = run(outer(inner, vni=400), cfg)
    assert r.output[12:16] == b"\x81\x00\x00\x00"
    for vni in (0, 101, 0xFFFFFF):
        r = run(outer(inner, vni=vni), cfg)
        assert r.outcome == D.DROP_UNKNOWN_VNI and not r.emit and r.vni == vni
    # an empty but enabled table drops every VXLAN frame; PASS frames are unaffected
    assert run(outer(inner, vni=100), DecapConfig(vni_table={})).outcome == D.DROP_UNKNOWN_VNI
    plain = bytes(Ether() / IP() / UDP(dport=53))
    assert run(plain, DecapConfig(vni_table={})).outcome == D.PASS
    # a push onto an inner frame that is already tagged: the new tag is outermost
    tagged = inner4(tag=33)
    r = run(outer(tagged, vni=100), cfg)
    exp = Ether(dst=tagged.dst, src=tagged.src) / Dot1Q(vlan=10, type=0x8100) / tagged[Dot1Q]
    assert r.output == bytes(exp)
    # table checked before the inner frame: a bad-VNI frame with a truncated inner frame
    assert run(VF.vxlan_frame(7, b"abc").frame, cfg).outcome == D.DROP_UNKNOWN_VNI


# ---------------------------------------------------------------------------------------------
# Decap: ECN (RFC 6040) and the inner frame (step 7)
# ---------------------------------------------------------------------------------------------

NOT_ECT, ECT1, ECT0, CE = 0, 1, 2, 3


def rfc6040(o, i):
    """RFC 6040 section 4.2 table, the contract's subset (ECT(1) wins over ECT(0))."""
    # (inner, outer) -> new inner; None = drop
    table = {
        (NOT_ECT, NOT_ECT): NOT_ECT, (NOT_ECT, ECT0): NOT_ECT, (NOT_ECT, ECT1): NOT_ECT, (NOT_ECT, CE): None,
        (ECT0, NOT_ECT): ECT0, (ECT0, ECT0): ECT0, (ECT0, ECT1): ECT1, (ECT0, CE): CE,
        (ECT1, NOT_ECT): ECT1, (ECT1, ECT0): ECT1, (ECT1, ECT1): ECT1, (ECT1, CE): CE,
        (CE, NOT_ECT): CE, (CE, ECT0): CE, (CE, ECT1): CE, (CE, CE): CE,
    }
    return table[(i, o)]


@pytest.mark.parametrize("outer_v6", [False, True], ids=["outer4", "outer6"])
@pytest.mark.parametrize("o", range(4))
@pytest.mark.parametrize("i", range(4))
def test_decap_rfc6040(o, i, outer_v6):
    tos = 0xB8 | i
    for inner, v6 in ((inner4(tos=tos), False), (inner6(tc=tos), True)):
        f = bytes(outer(inner, v6=outer_v6, ecn=0x20 | o))
        r = run(f)
        new = rfc6040(o, i)
        if new is None:
            assert r.outcome == D.DROP_ECN and not r.emit
            continue
        assert r.outcome == D.DECAP
        exp = inner.copy()
        if v6:
            exp[IPv6].tc = (tos & 0xFC) | new
        else:
            exp[IP].tos = (tos & 0xFC) | new
            exp[IP].chksum = None  # scapy recomputes the whole header checksum
        assert r.output == bytes(exp), (o, i, v6)
        if not v6:
            q = Ether(r.output)
            del q[IP].chksum
            assert Ether(bytes(q))[IP].chksum == Ether(r.output)[IP].chksum
        need_ecn = o in (ECT1, CE)
        base = 14 + (40 if outer_v6 else 20) + 16
        assert r.need == base + 14 + ((2 if v6 else 12) if need_ecn else 0)


def test_decap_ecn_not_on_tagged_or_other_inner():
    # the inner EtherType must be 0x0800/0x86DD at K+12: a tagged inner frame is not touched
    tagged = inner4(tos=0, tag=5)
    r = run(outer(tagged, ecn=CE))
    assert r.outcome == D.DECAP and r.output == bytes(tagged)
    arp = Ether() / ARP()
    assert run(outer(arp, ecn=CE)).output == bytes(arp)


def test_decap_ecn_truncated_inner():
    hdr = bytes(Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02"))[:12]
    ip4 = bytes(IP(tos=2, dst="1.2.3.4") / UDP())
    for o in (ECT1, CE):
        r = run(VF.vxlan_frame(1, hdr + b"\x08\x00" + ip4[:11], outer_ecn=o).frame)
        assert r.outcome == D.DROP_TRUNCATED and not r.emit
        r = run(VF.vxlan_frame(1, hdr + b"\x08\x00" + ip4[:12], outer_ecn=o).frame)
        assert r.outcome == D.DECAP and r.output[15] & 3 == (CE if o == CE else ECT1)
        assert r.output[:15] == hdr + b"\x08\x00\x45" and r.output[16:] == ip4[2:10] + r.output[24:26]
        assert run(VF.vxlan_frame(1, hdr + b"\x86\xdd\x60", outer_ecn=o).frame).outcome == D.DROP_TRUNCATED
        r = run(VF.vxlan_frame(1, hdr + b"\x86\xdd\x60\x20", outer_ecn=o).frame)
        assert r.outcome == D.DECAP
        assert r.output == hdr + b"\x86\xdd\x60" + bytes([0x10 if o == ECT1 else 0x30])  # ECT(0) -> ECT(1) or CE
    # with Not-ECT / ECT(0) outer the short inner IPv4 header is fine
    for o in (NOT_ECT, ECT0):
        r = run(VF.vxlan_frame(1, hdr + b"\x08\x00" + ip4[:3], outer_ecn=o).frame)
        assert r.outcome == D.DECAP and r.output == hdr + b"\x08\x00" + ip4[:3]


def test_decap_inner_short():
    for n in (0, 1, 13):
        r = run(VF.vxlan_frame(1, bytes(inner4())[:n], udp_csum=0).frame)
        assert r.outcome == D.DROP_TRUNCATED and not r.emit
    r = run(VF.vxlan_frame(1, bytes(inner4())[:14]).frame)
    assert r.outcome == D.DECAP and r.output == bytes(inner4())[:14]


# ---------------------------------------------------------------------------------------------
# Decap: truncation (steps 3..8), early and late, RX errors
# ---------------------------------------------------------------------------------------------


def test_decap_truncation_points():
    f = bytes(outer(inner4(pay=bytes(200))))
    n = len(f)
    for cut in range(1, n):
        r = run(f[:cut])
        if cut < 14 + 20 + 4:  # before the UDP destination port: not known to be VXLAN
            assert r.outcome == D.PASS and r.output == f[:cut], cut
        else:
            assert r.outcome == D.DROP_TRUNCATED and r.output is None, cut
            # the block decides on the 128-byte window: the frame's end is known then only
            # when the frame fits in it (at every width: 128 is a multiple of every beat)
            assert r.emit == (cut > 128), cut
    assert run(f).outcome == D.DECAP


@pytest.mark.parametrize("keep_w", [8, 16, 32, 64])
def test_decap_truncation_early_or_late(keep_w):
    f = bytes(outer(inner4(pay=bytes(300))))
    ip_end = len(f)
    for cut in range(64, ip_end):
        r = run(f[:cut], keep_w=keep_w)
        assert r.outcome == D.DROP_TRUNCATED and r.output is None
        known = (cut - 1) // keep_w <= (128 - 1) // keep_w     # the window's last beat
        assert r.emit == (not known) and r.aborted == (not known), cut
    # ip_end beyond the frame (IP total length too big): the same rule
    g = VF.vxlan_frame(1, bytes(inner4()), tlen=1500, ulen=1480).frame
    r = run(g, keep_w=keep_w)
    assert r.outcome == D.DROP_TRUNCATED
    assert r.emit == ((len(g) - 1) // keep_w > (128 - 1) // keep_w)


def test_decap_rx_error():
    f = bytes(outer(inner4(pay=bytes(300))))
    r = run(f, bad=True)
    assert r.outcome == D.DROP_RX_ERROR and r.emit and r.aborted and r.output is None
    r = run(f, bad=True, keep_w=512)
    assert r.outcome == D.DROP_RX_ERROR and not r.emit  # the whole frame is in the decision beat
    r = run(bytes(outer(inner4(), udp_chksum=0x1111)), bad=True)
    assert r.outcome == D.DROP_RX_ERROR
    r = run(b"\x01\x02\x03", bad=True)
    assert r.outcome == D.DROP_RX_ERROR and not r.emit
    p = bytes(Ether() / IP() / UDP(dport=53) / Raw(bytes(300)))
    r = run(p, bad=True)
    assert r.outcome == D.DROP_RX_ERROR and r.emit and r.aborted


def test_decap_udp_checksum_is_late():
    for keep_w in (8, 64):
        r = run(bytes(outer(inner4(), udp_chksum=0x4321)), keep_w=keep_w)
        assert r.outcome == D.DROP_UDP_CHECKSUM and r.emit and r.aborted
    # 0xFFFF is a valid encoding of a zero sum; 0 means "no checksum"
    f = bytes(outer(inner4()))
    assert run(f).outcome == D.DECAP


# ---------------------------------------------------------------------------------------------
# Decap: real captures (suricata-verify) and the contract case list
# ---------------------------------------------------------------------------------------------


def _captures():
    return sorted(CAPTURES.glob("vxlan-*.pcap"))


@pytest.mark.skipif(not CAPTURES.is_dir(), reason=f"{CAPTURES} not present")
def test_decap_real_captures():
    files = _captures()
    assert files
    n_decap = 0
    for path in files:
        for p in rdpcap(str(path)):
            f = bytes(p)
            r = run(f, DecapConfig(port2=8472))
            if p.haslayer(UDP) and p[UDP].dport in (4789, 8472) and p.haslayer(VXLAN):
                assert r.outcome == D.DECAP, path.name
                # scapy's own dissection: UDP payload limited by the UDP length, minus VXLAN's 8
                u = p[UDP]
                inner = bytes(u.payload)
                if u.payload.haslayer(Padding):
                    inner = inner[: len(inner) - len(u.payload[Padding].load)]
                inner = inner[8:]
                assert r.output == inner, path.name
                assert r.vni == int.from_bytes(bytes(u.payload)[4:7], "big")  # scapy's VXLAN layer reads reserved bits as GPE/GBP fields
                n_decap += 1
                strict = run(f, DecapConfig(port2=8472, strict=True)).outcome
                assert strict == (D.DROP_VXLAN_RESERVED if "reserved" in path.name else D.DECAP)
            else:
                assert r.outcome == D.PASS
    assert n_decap >= 100


def test_decap_contract_cases_cover_every_outcome():
    cases = VF.decap_contract_cases()
    seen = {run(c.frame, DecapConfig(), c.bad).outcome for c in cases}
    seen |= {run(c.frame, DecapConfig(strict=True, vni_table={42: (1, True)}), c.bad).outcome for c in cases}
    seen |= {run(c.frame, DecapConfig(drop_pass=True), c.bad).outcome for c in cases}
    assert seen == set(D)


# ---------------------------------------------------------------------------------------------
# Decap: random frames vs offsets known from construction
# ---------------------------------------------------------------------------------------------


def test_decap_random_against_construction():
    rng = random.Random(11)
    for _ in range(600):
        vf = VF._random_vxlan(rng, rng.randint(60, 400), None)
        f = vf.frame
        p = Ether(f)
        r = run(f)
        oecn = (f[vf.L2 + 1] >> 4 & 3) if vf.v6 else f[vf.L2 + 1] & 3
        iet = f[vf.K + 12] << 8 | f[vf.K + 13]
        udp_bad = False
        if r.outcome == D.DECAP:
            assert p.haslayer(VXLAN) and p[VXLAN].vni == r.vni
            exp = f[vf.K : vf.ip_end]
            if oecn in (ECT1, CE) and iet in (0x0800, 0x86DD):
                # compare everything but the ECN bits / inner IPv4 checksum
                assert len(r.output) == len(exp)
                skip = {15, 24, 25} if iet == 0x0800 else {15}
                assert all(r.output[j] == exp[j] for j in range(len(exp)) if j not in skip)
            else:
                assert r.output == exp
        else:
            assert r.outcome in (D.DROP_ECN, D.DROP_UDP_CHECKSUM, D.DROP_TRUNCATED), r
            udp_bad = r.outcome == D.DROP_UDP_CHECKSUM
        assert not udp_bad


def test_decap_random_cases_invariants():
    rng = random.Random(12)
    cfg = DecapConfig(vni_table={1: (5, True), 2: (0, False)}, port2=8472)
    results = []
    for _ in range(1500):
        c = VF.random_vxlan_case(rng, max_len=3000, vnis=[1, 2, 3])
        r = run(c.frame, cfg, c.bad)
        results.append(r)
        assert r.in_len == len(c.frame)
        assert (r.output is not None) == (r.outcome in (D.PASS, D.DECAP))
        if r.output is not None:
            assert r.emit and not r.aborted
        if r.aborted:
            assert r.emit
        if r.outcome == D.PASS:
            assert r.output == c.frame
        if r.outcome == D.DECAP:
            assert r.vni in (1, 2)
            assert len(r.output) >= 14 + (4 if r.vni == 1 else 0)
        if c.bad:
            assert r.outcome == D.DROP_RX_ERROR
    pk, by, txp, txb = tally_decap(results)
    assert sum(pk) == len(results) and txp == sum(1 for r in results if r.output is not None)


# ---------------------------------------------------------------------------------------------
# Encap
# ---------------------------------------------------------------------------------------------

T_UNTAG = Tunnel(vni=0x0A0B0C, dst_mac=bytes.fromhex("020000000a0a"), src_mac=bytes.fromhex("020000000b0b"),
                 src_ip=0x0A000001, dst_ip=0x0A000002, udp_port=4789, ttl=64, dscp=0)
T_TAG = Tunnel(vni=7, dst_mac="02:00:00:00:0c:0c", src_mac="02:00:00:00:0d:0d", src_ip="172.16.0.1",
               dst_ip="172.16.0.2", udp_port=8472, ttl=5, dscp=46)
ECFG = EncapConfig(tunnels={(None, "192.168.2.2"): T_UNTAG, (100, "192.168.2.2"): T_TAG,
                            (0, "192.168.9.9"): T_UNTAG})


def check_encap(host: bytes, out: bytes, t: Tunnel, tagged: bool):
    """Parse `out` with scapy and check every header field against `t` and the host frame."""
    p = Ether(out)
    assert p.dst == ":".join(f"{b:02x}" for b in t.dst_mac) and p.src == ":".join(f"{b:02x}" for b in t.src_mac)
    assert p.type == 0x0800
    ip = p[IP]
    hp = Ether(host)
    inner_ip = hp[IP]
    if tagged:
        exp_inner = bytes(Ether(dst=hp.dst, src=hp.src, type=hp[Dot1Q].type) / hp[Dot1Q].payload)
    else:
        exp_inner = host
    assert len(exp_inner) == len(host) - (4 if tagged else 0)
    assert ip.version == 4 and ip.ihl == 5 and ip.len == 36 + len(exp_inner) and ip.id == 0
    assert ip.flags == 0 and ip.frag == 0 and ip.ttl == t.ttl and ip.proto == 17
    assert ip.tos == (t.dscp << 2) | (inner_ip.tos & 3)
    assert ip.src == ".".join(str(t.src_ip >> s & 255) for s in (24, 16, 8, 0))
    assert ip.dst == ".".join(str(t.dst_ip >> s & 255) for s in (24, 16, 8, 0))
    q = Ether(out)
    del q[IP].chksum
    assert Ether(bytes(q))[IP].chksum == ip.chksum  # header checksum valid
    u = p[UDP]
    assert u.dport == t.udp_port and u.len == 16 + len(exp_inner) and u.chksum == 0
    assert 49152 <= u.sport <= 65535
    # VXLAN header bytes, whatever scapy's VXLAN layer makes of the port
    vx = out[42:50]
    assert vx == b"\x08\x00\x00\x00" + t.vni.to_bytes(3, "big") + b"\x00"
    assert out[50:] == exp_inner
    assert len(out) == len(exp_inner) + 50
    # source port from the inner 5-tuple, computed from scapy's fields
    proto = inner_ip.proto
    ports = (0, 0)
    if proto in (6, 17) and inner_ip.frag == 0 and not (inner_ip.flags & 1):
        l4 = inner_ip.payload
        if len(bytes(l4)) >= 4 and hasattr(l4, "sport"):
            ports = (l4.sport, l4.dport)
    tup = (bytes(int(x) for x in inner_ip.src.split(".")) + bytes(int(x) for x in inner_ip.dst.split("."))
           + bytes([proto]) + ports[0].to_bytes(2, "big") + ports[1].to_bytes(2, "big"))
    assert u.sport == 0xC000 | (scapy_crc32c(tup) & 0x3FFF)
    return p


@pytest.mark.parametrize("l4", ["tcp", "udp", "icmp"])
@pytest.mark.parametrize("ecn", range(4))
def test_encap_untagged(l4, ecn):
    seg = {"tcp": TCP(sport=1111, dport=2222, flags="S"), "udp": UDP(sport=3333, dport=4444),
           "icmp": ICMP(id=5, seq=6)}[l4]
    host = bytes(Ether(dst="aa:aa:aa:aa:aa:01", src="aa:aa:aa:aa:aa:02") / IP(src="192.168.1.1", dst="192.168.2.2",
                                                                             tos=0xA0 | ecn) / seg / Raw(b"z" * 40))
    r = encap(host, ECFG)
    assert r.outcome == E.ENCAP and r.emit and not r.aborted and r.tunnel is T_UNTAG
    check_encap(host, r.output, T_UNTAG, False)
    assert encap_key(host) == (None, 0xC0A80202)


def test_encap_tagged_removes_tag():
    for vid, t in ((100, T_TAG),):
        host = bytes(Ether(dst="aa:aa:aa:aa:aa:01", src="aa:aa:aa:aa:aa:02") / Dot1Q(vlan=vid, prio=5)
                     / IP(src="192.168.1.1", dst="192.168.2.2", tos=3) / UDP(sport=9, dport=10) / Raw(b"y" * 100))
        r = encap(host, ECFG)
        assert r.outcome == E.ENCAP and r.tunnel is t
        p = check_encap(host, r.output, t, True)
        assert p[IP].tos == (46 << 2) | 3 and p[IP].ttl == 5 and p[UDP].dport == 8472
        assert len(r.output) == len(host) - 4 + 50
    # VID 0 (priority tag) is a key of its own, distinct from untagged
    host0 = bytes(Ether() / Dot1Q(vlan=0) / IP(dst="192.168.9.9") / TCP())
    r = encap(host0, ECFG)
    assert r.outcome == E.ENCAP
    check_encap(host0, r.output, T_UNTAG, True)
    assert encap(bytes(Ether() / IP(dst="192.168.9.9") / TCP()), ECFG).outcome == E.PASS_MISS
    # the PCP/DEI bits of the tag do not take part in the key
    hostp = bytes(Ether() / Dot1Q(vlan=100, prio=7, dei=1) / IP(dst="192.168.2.2") / TCP())
    assert encap(hostp, ECFG).tunnel is T_TAG


def test_encap_miss_and_policy():
    misses = [
        Ether() / IP(dst="192.168.2.3") / TCP(),
        Ether() / Dot1Q(vlan=101) / IP(dst="192.168.2.2") / TCP(),
        Ether() / Dot1Q(vlan=0) / IP(dst="192.168.2.2") / TCP(),
    ]
    for p in misses:
        f = bytes(p)
        r = encap(f, ECFG)
        assert r.outcome == E.PASS_MISS and r.output == f and r.emit
        r = encap(f, EncapConfig(ECFG.tunnels, drop_miss=True))
        assert r.outcome == E.DROP_MISS and r.output is None and not r.emit
        assert encap(f, EncapConfig(ECFG.tunnels, drop_miss=True), bad=True).outcome == E.DROP_RX_ERROR
    assert EncapConfig(drop_miss=True).control == 1


def test_encap_not_ipv4():
    base = Ether() / IP(dst="192.168.2.2") / TCP()
    cases = [
        Ether() / IPv6() / TCP(),
        Ether() / ARP(pdst="192.168.2.2"),
        Ether(type=0x88CC) / Raw(bytes(50)),
        Ether() / Dot1AD(vlan=100) / IP(dst="192.168.2.2") / TCP(),
        Ether() / Dot1Q(vlan=100) / Dot1Q(vlan=5) / IP(dst="192.168.2.2") / TCP(),
        Ether() / Dot1Q(vlan=100) / IPv6() / TCP(),
    ]
    frames = [bytes(p) for p in cases]
    for b0 in (0x65, 0x44, 0x40, 0x00):
        f = bytearray(bytes(base))
        f[14] = b0
        frames.append(bytes(f))
    full = bytes(base)
    frames += [full[:n] for n in (1, 13, 14, 20, 33)]
    tagged = bytes(Ether() / Dot1Q(vlan=100) / IP(dst="192.168.2.2") / TCP())
    frames += [tagged[:n] for n in (14, 17, 18, 37)]
    for f in frames:
        r = encap(f, EncapConfig(ECFG.tunnels, drop_miss=True))
        assert r.outcome == E.PASS_NOT_IPV4 and r.output == f and r.emit, f.hex()
    # exactly a complete 20-byte header is enough
    r = encap(full[:34], ECFG)
    assert r.outcome == E.ENCAP and r.output[50:] == full[:34]
    r = encap(tagged[:38], ECFG)
    assert r.outcome == E.ENCAP and r.output[50:] == tagged[:12] + tagged[16:38]


def test_encap_rx_error():
    host = bytes(Ether() / IP(dst="192.168.2.2") / TCP())
    for f in (host, bytes(Ether() / IPv6()), b"\x01"):
        r = encap(f, ECFG, bad=True)
        assert r.outcome == E.DROP_RX_ERROR and r.output is None and not r.emit and not r.aborted


def test_encap_oversize():
    host = bytes(Ether() / IP(dst="192.168.2.2") / UDP(sport=1, dport=2))
    for n, want in ((32768, E.ENCAP), (32769, E.DROP_OVERSIZE), (40000, E.DROP_OVERSIZE)):
        f = host + bytes(n - len(host))
        r = encap(f, ECFG)
        assert r.outcome == want and r.in_len == n
        if want == E.ENCAP:
            assert len(r.output) == n + 50 and Ether(r.output)[IP].len == 36 + n
        else:
            assert r.output is None and not r.emit
        # oversize wins over an RX error (the FIFO cut the frame before its last beat came)
        assert encap(f, ECFG, bad=True).outcome == (E.DROP_OVERSIZE if n > 32768 else E.DROP_RX_ERROR)
    small = EncapConfig(ECFG.tunnels, fifo_bytes=2048)
    assert encap(host + bytes(2048 - len(host)), small).outcome == E.ENCAP
    assert encap(host + bytes(2049 - len(host)), small).outcome == E.DROP_OVERSIZE
    pk, by, txp, txb = tally_encap([encap(host + bytes(40000), ECFG)])
    assert pk[E.DROP_OVERSIZE] == 1 and by[E.DROP_OVERSIZE] == 40000 + len(host) and txp == 0


def test_flow_hash_ports():
    def frame(l4, **ipkw):
        return bytes(Ether() / IP(src="1.2.3.4", dst="5.6.7.8", **ipkw) / l4)

    def expect(proto, sp, dp):
        return scapy_crc32c(bytes([1, 2, 3, 4, 5, 6, 7, 8, proto]) + sp.to_bytes(2, "big") + dp.to_bytes(2, "big"))

    assert flow_hash(frame(TCP(sport=1, dport=2))) == expect(6, 1, 2)
    assert flow_hash(frame(UDP(sport=300, dport=4000))) == expect(17, 300, 4000)
    assert flow_hash(frame(ICMP(id=7, seq=8))) == expect(1, 0, 0)
    assert flow_hash(frame(TCP(sport=1, dport=2), flags="MF")) == expect(6, 0, 0)
    assert flow_hash(frame(TCP(sport=1, dport=2), frag=10)) == expect(6, 0, 0)
    assert flow_hash(frame(TCP(sport=1, dport=2), flags="DF")) == expect(6, 1, 2)
    f = frame(UDP(sport=300, dport=4000))
    assert flow_hash(f[:37]) == expect(17, 0, 0)  # the port bytes are not all in the frame
    assert flow_hash(f[:38]) == expect(17, 300, 4000)
    from scapy.layers.inet import IPOption_NOP

    g = bytes(Ether() / Dot1Q(vlan=3) / IP(src="1.2.3.4", dst="5.6.7.8", options=[IPOption_NOP()] * 8)
              / TCP(sport=77, dport=88))
    assert flow_hash(g) == expect(6, 77, 88)
    with pytest.raises(ValueError):
        flow_hash(bytes(Ether() / IPv6()))


def test_encap_decap_round_trip():
    """encap then decap (VNI table pushing the VID back) returns the host frame exactly."""
    rng = random.Random(21)
    tunnels = VF.random_tunnels(rng, 40)
    cfg = EncapConfig(tunnels=tunnels)
    n = 0
    for _ in range(600):
        c = VF.random_host_frame(rng, tunnels, max_len=2000)
        r = encap(c.frame, cfg, c.bad)
        if r.outcome != E.ENCAP:
            continue
        t = r.tunnel
        key = encap_key(c.frame)
        assert tunnels[key] is t
        vid = key[0]
        check_encap(c.frame, r.output, t, vid is not None)
        table = {t.vni: ((vid or 0), vid is not None)}
        d = decap(r.output, DecapConfig(port=t.udp_port, vni_table=table))
        assert d.outcome == D.DECAP and d.vni == t.vni
        if vid is None or c.frame[14] >> 5 == 0:  # PCP/DEI 0 (host_frame tags carry PCP 0)
            assert d.output == c.frame
        n += 1
    assert n > 150


def test_random_host_frames_invariants():
    rng = random.Random(22)
    tunnels = VF.random_tunnels(rng, 20)
    results = []
    kinds = set()
    for _ in range(2000):
        c = VF.random_host_frame(rng, tunnels)
        r = encap(c.frame, EncapConfig(tunnels=tunnels), c.bad)
        results.append(r)
        kinds.add((c.kind, r.outcome))
        if c.bad:
            assert r.outcome == E.DROP_RX_ERROR
        elif c.kind.startswith("hit"):
            assert r.outcome == E.ENCAP
        elif c.kind == "miss":
            assert r.outcome == E.PASS_MISS
        elif c.kind in ("not_ipv4", "short"):
            assert r.outcome == E.PASS_NOT_IPV4
    outcomes = {o for _, o in kinds}
    assert outcomes == {E.ENCAP, E.PASS_MISS, E.PASS_NOT_IPV4, E.DROP_RX_ERROR}  # no frame > 9600 bytes
    pk, by, txp, txb = tally_encap(results)
    assert sum(pk) == 2000 and txb == sum(r.out_len for r in results)


def test_encap_contract_cases():
    rng = random.Random(23)
    tunnels = VF.random_tunnels(rng, 16)
    cases = VF.encap_contract_cases(tunnels)
    seen = set()
    for c in cases:
        r = encap(c.frame, EncapConfig(tunnels=tunnels), c.bad)
        seen.add(r.outcome)
        if c.kind.startswith("hit") and not c.bad:
            assert r.outcome == E.ENCAP, c.kind
        if c.kind.startswith("miss") and not c.bad:
            assert r.outcome == E.PASS_MISS, c.kind
        if r.outcome == E.ENCAP and not c.kind.endswith(("_short", "cut20", "cut21", "cut22", "cut23")):
            check_encap(c.frame, r.output, r.tunnel, encap_key(c.frame)[0] is not None)
        r2 = encap(c.frame, EncapConfig(tunnels=tunnels, drop_miss=True), c.bad)
        seen.add(r2.outcome)
    assert seen == set(E) - {E.DROP_OVERSIZE}  # oversize: test_encap_oversize

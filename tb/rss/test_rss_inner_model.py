"""The golden model's inner-header option (docs/rss.md, "Inner headers"): GRE and VXLAN frames
built by scapy, the inner tuple checked against scapy's own dissection, every malformed case
falling back to the outer tuple, the option off unchanged, symmetric mode over both directions
of an inner flow, and one tunnel's inner flows spread over queues."""

from __future__ import annotations

import ipaddress
import random
import struct

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import GRE, Ether
from scapy.layers.vxlan import VXLAN

from tb.rss import tunnel_frames as tf
from wirespeed.model.rss import FlowTuple, HashType, RssConfig, parse_frame, reverse, rss


def _addr(a: str) -> int:
    return int(ipaddress.ip_address(a))


def scapy_inner(f: bytes) -> FlowTuple | None:
    """The inner tuple as scapy dissects the frame (an independent reading)."""
    p = Ether(f)
    layer = p.getlayer(GRE) or p.getlayer(VXLAN)
    if layer is None:
        return None
    inner = layer.payload
    if isinstance(inner, Ether):
        inner = inner.payload
    if isinstance(inner, IP):
        l3 = 4
        if inner.flags.MF or inner.frag:
            return FlowTuple(4, 0, _addr(inner.src), _addr(inner.dst), inner=True)
    elif isinstance(inner, IPv6):
        l3 = 6
    else:
        return None
    up = inner.payload
    if isinstance(up, (TCP, UDP)):
        return FlowTuple(l3, 6 if isinstance(up, TCP) else 17, _addr(inner.src), _addr(inner.dst),
                         up.sport, up.dport, True)
    return FlowTuple(l3, 0, _addr(inner.src), _addr(inner.dst), inner=True)


@pytest.mark.parametrize("kind", ["gre", "teb", "vxlan"])
@pytest.mark.parametrize("outer_v6", [False, True])
@pytest.mark.parametrize("inner_v6", [False, True])
@pytest.mark.parametrize("l4", ["tcp", "udp", "icmp", "other"])
def test_inner_tuple_is_scapys(kind: str, outer_v6: bool, inner_v6: bool, l4: str) -> None:
    rng = random.Random(hash((kind, outer_v6, inner_v6, l4)) & 0xFFFF)
    for c in (False, True):
        for k in (False, True):
            for s in (False, True):
                inn = tf.inner_packet(rng, inner_v6, l4)
                if kind == "vxlan":
                    f = tf.vxlan_frame(rng, inn, inner_v6, v6=outer_v6)
                else:
                    f = tf.gre_frame(rng, inn, teb=kind == "teb", inner_v6=inner_v6, c=c, k=k,
                                     s=s, v6=outer_v6)
                got = parse_frame(f, inner=True)
                assert got.inner and got == scapy_inner(f), (f.hex(), got, scapy_inner(f))
                assert not parse_frame(f).inner


def test_option_off_is_unchanged() -> None:
    """Off, every frame (tunnels, malformed, plain) parses as the outer parse always did."""
    rng = random.Random(5)
    for f in tf.mixed(rng, 800):
        t = parse_frame(f)
        assert not t.inner and parse_frame(f, False) == t


def test_fallbacks_are_the_outer_tuple() -> None:
    """Every bad tunnel gives its outer tuple (or NONE when the outer headers are bad too)."""
    rng = random.Random(11)
    n_outer = 0
    for _ in range(1500):
        f = tf.bad_tunnel(rng)
        t = parse_frame(f, True)
        if not t.inner:
            assert t == parse_frame(f)
            n_outer += 1
        else:   # a flipped bit that left the headers well formed: scapy agrees
            assert t == scapy_inner(f)
    assert n_outer > 1000


def _tuple_v4(src: str, dst: str, sp: int, dp: int, l4: int = 6) -> FlowTuple:
    return FlowTuple(4, l4, _addr(src), _addr(dst), sp, dp, True)


def test_named_cases() -> None:
    rng = random.Random(1)
    inn = bytes(IP(src="10.0.0.1", dst="10.0.0.2") / TCP(sport=1111, dport=2222))
    want = _tuple_v4("10.0.0.1", "10.0.0.2", 1111, 2222)
    outer_gre = FlowTuple(4, 0, _addr("192.0.2.1"), _addr("192.0.2.2"))
    kw = dict(v6=False, tags=0, opts=False)
    ok = tf.outer(rng, tf.gre_hdr(0x0800, k=True) + inn, 47, **kw)
    assert parse_frame(ok, True) == want
    assert parse_frame(ok) == outer_gre
    for bad in (tf.gre_hdr(0x0800, ver=1), tf.gre_hdr(0x0800, rsvd=0x4000),
                tf.gre_hdr(0x0800, rsvd=0x0008), tf.gre_hdr(0x0800, rsvd=0x0800),
                tf.gre_hdr(0x8847)):
        assert parse_frame(tf.outer(rng, bad + inn, 47, **kw), True) == outer_gre
    # TEB: untagged inner Ethernet parsed; a tagged one is not
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x6558) + tf.l2(0x0800) + inn, 47, **kw),
                       True) == want
    tagged = tf.l2(0x8100)[:12] + struct.pack("!HHH", 0x8100, 3, 0x0800) + inn
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x6558) + tagged, 47, **kw), True) == outer_gre
    # GRE cut short (its key missing), the inner header cut short, inner length too long
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800, k=True)[:6], 47, **kw), True) == outer_gre
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800) + inn[:19], 47, **kw), True) == outer_gre
    long_ = bytearray(inn)
    long_[2:4] = struct.pack("!H", len(inn) + 1)
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800) + bytes(long_), 47, **kw),
                       True) == outer_gre
    # Inner padding (inner total length below what the outer payload holds) is fine
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800) + inn + bytes(9), 47, **kw),
                       True) == want
    # VXLAN: I flag needed; port 4789 only
    vx = tf.outer(rng, tf.vxlan_hdr() + tf.l2(0x0800) + inn, 17, **kw)
    assert parse_frame(vx, True) == want
    no_i = tf.outer(rng, tf.vxlan_hdr(flags=0x80) + tf.l2(0x0800) + inn, 17, **kw)
    assert parse_frame(no_i, True) == parse_frame(no_i) and parse_frame(no_i).l4 == 17
    reserved = tf.outer(rng, bytes([0x08, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0xFF]) + tf.l2(0x0800)
                        + inn, 17, **kw)
    assert parse_frame(reserved, True) == want       # reserved bits ignored (RFC 7348)
    other_port = bytearray(vx)
    other_port[36:38] = struct.pack("!H", 4790)
    assert not parse_frame(bytes(other_port), True).inner
    # An inner fragment: the inner 2-tuple; an outer fragment: not looked into
    frag = bytes(IP(src="10.0.0.1", dst="10.0.0.2", flags="MF") / TCP(sport=1, dport=2))
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800) + frag, 47, **kw), True) == \
        FlowTuple(4, 0, _addr("10.0.0.1"), _addr("10.0.0.2"), inner=True)
    of = bytearray(ok)
    of[14 + 6] |= 0x20
    assert parse_frame(bytes(of), True) == outer_gre
    # A TCP inner packet too short for its header: malformed inner, the outer tuple
    short_tcp = bytes(IP(src="10.0.0.1", dst="10.0.0.2", proto=6) / (b"x" * 19))
    assert parse_frame(tf.outer(rng, tf.gre_hdr(0x0800) + short_tcp, 47, **kw),
                       True) == outer_gre


def test_deepest_header_is_inner() -> None:
    f = tf.deepest(random.Random(3))
    assert parse_frame(f, True) == _tuple_v4("10.9.8.7", "10.1.2.3", 4321, 1234)


@pytest.mark.parametrize("kind", ["gre", "teb", "vxlan"])
@pytest.mark.parametrize("v6", [False, True])
def test_symmetric_inner_flows_share_a_queue(kind: str, v6: bool) -> None:
    """Symmetric mode, the option on: both directions of each inner flow in one queue, their
    outer tuple constant; without symmetric mode the directions do differ."""
    rng = random.Random(17)
    sym = RssConfig(symmetric=True, table=[i % 16 for i in range(128)])
    asym = RssConfig(table=[i % 16 for i in range(128)])
    outers = set()
    differ = 0
    for l4 in ("tcp", "udp", "icmp") * 10:
        a, b = tf.flow_pair(rng, kind, v6, l4)
        ta, tb = parse_frame(a, True), parse_frame(b, True)
        assert ta.inner and tb == reverse(ta)
        outers.add(parse_frame(a))
        outers.add(parse_frame(b))
        ra, rb = rss(ta, sym), rss(tb, sym)
        assert (ra.hash, ra.queue, ra.htype) == (rb.hash, rb.queue, rb.htype)
        differ += rss(ta, asym).hash != rss(tb, asym).hash
    assert len(outers) == 1 and differ > 20


@pytest.mark.parametrize("kind", ["gre", "vxlan"])
def test_one_tunnel_spreads_with_the_option(kind: str) -> None:
    rng = random.Random(23)
    cfg = RssConfig(table=[i % 8 for i in range(128)])
    frames = []
    for _ in range(64):
        inn = tf.inner_packet(rng, False, "tcp", frag=False)
        r = random.Random(5)
        frames.append(tf.vxlan_frame(r, inn, v6=False, tags=0, opts=False) if kind == "vxlan"
                      else tf.gre_frame(r, inn, c=False, k=True, s=False, v6=False, tags=0,
                                        opts=False))
    assert len({parse_frame(f) for f in frames}) == 1
    assert len({rss(parse_frame(f), cfg).queue for f in frames}) == 1
    on = {rss(parse_frame(f, True), cfg).queue for f in frames}
    assert len(on) >= 6
    assert {rss(parse_frame(f, True), cfg).htype for f in frames} == {HashType.TCP_IPV4}

"""Frame builders for the VXLAN VTEP tests and scenarios (built with scapy).

- `vxlan_frame(vni, inner, outer_src, outer_dst, ...)`: one VXLAN frame with every knob the decap
  contract looks at (docs/vxlan.md), plus its offsets (`VxlanFrame`).
- `inner_frame(rng, ...)`: a random inner Ethernet frame (IPv4/IPv6/ARP/other, optional tag).
- `seed_vxlan_frames(n, size=804)`: the seed's traffic (Lanner/Ethernity ACE-NIC test): 804-byte
  VXLAN frames, 4K VNIs per direction, with the matching VNI and tunnel tables.
- `random_vxlan_case(rng)`: a decap `Case` drawn across every case of the decap contract.
- `decap_contract_cases()`: named decap cases, at least one per rule.
- `random_tunnels(rng, n)`: a random tunnel table (EncapConfig.tunnels).
- `random_host_frame(rng, tunnels)`: an encap `Case` (hits, misses, VLAN-tagged, non-IPv4, short).
- `encap_contract_cases(tunnels)`: named encap cases.

A `Case` (wirespeed.model.frames.Case) is `(frame, bad, kind)`; `bad` = tuser=1 on the last beat.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Raw  # noqa: E402

from .common import ipv4_checksum, ones_sum, udp_pseudo_header  # noqa: E402
from .frames import (  # noqa: E402  (builders shared with the GRE frames)
    MAC_A,
    MAC_B,
    Case,
    _ip4,
    _ip6,
    _l2,
    _mac,
    _outer_ip,
    _outer_ip_end,
    _padded,
    _rand_len,
    _rand_tags,
    _rbytes,
)
from .vxlan import LINUX_VXLAN_PORT, VXLAN_PORT, DecapConfig, EncapConfig, Tunnel  # noqa: E402

__all__ = [
    "Case",
    "VxlanFrame",
    "SeedTraffic",
    "vxlan_frame",
    "inner_frame",
    "seed_vxlan_frames",
    "random_vxlan_case",
    "decap_contract_cases",
    "random_tunnels",
    "random_host_frame",
    "host_frame",
    "encap_contract_cases",
    "udp_checksum",
    "DECAP_MUTATIONS",
]

@dataclass
class VxlanFrame:
    """A built VXLAN frame and where its headers are (the contract's L2, U, K, ip_end)."""

    frame: bytes
    L2: int
    U: int
    K: int
    ip_end: int
    v6: bool

    def __bytes__(self) -> bytes:
        return self.frame

    def __len__(self) -> int:
        return len(self.frame)


# ----------------------------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------------------------


def udp_checksum(frame: bytes, L2: int, U: int, v6: bool, ulen: int | None = None) -> int:
    """The correct UDP checksum field for the datagram at U (length from its header or `ulen`)."""
    f = bytearray(frame)
    ulen = (f[U + 4] << 8 | f[U + 5]) if ulen is None else ulen
    f[U + 6] = f[U + 7] = 0
    c = ~ones_sum(udp_pseudo_header(f, L2, ulen, v6) + bytes(f[U : U + ulen])) & 0xFFFF
    return c or 0xFFFF


def inner_frame(rng: random.Random, length: int = 100, kind: str | None = None, vlan: int | None = None,
                ecn: int | None = None, dst_ip: str | None = None) -> bytes:
    """A random inner Ethernet frame of about `length` bytes (no minimum-size padding: an inner
    frame is what the tunnel carries). kind: tcp4 udp4 icmp4 tcp6 udp6 arp other."""
    kind = kind or rng.choice(("tcp4", "tcp4", "udp4", "icmp4", "tcp6", "udp6", "arp", "other"))
    l2 = _l2(((("q", vlan),) if vlan is not None else ()), _mac(rng), _mac(rng))
    hdr = 14 + (4 if vlan is not None else 0)
    e = rng.getrandbits(2) if ecn is None else ecn
    if kind.endswith("4") and kind != "other":
        ip = IP(src=_ip4(rng), dst=dst_ip or _ip4(rng), tos=(rng.getrandbits(6) << 2) | e, id=rng.getrandbits(16),
                ttl=rng.randint(1, 255), flags=rng.choice((0, 2)))
        l4 = {"tcp4": TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), seq=rng.getrandbits(32), flags="PA"),
              "udp4": UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16)),
              "icmp4": ICMP(id=rng.getrandbits(16), seq=rng.getrandbits(16))}[kind]
        p = l2 / ip / l4
    elif kind in ("tcp6", "udp6"):
        ip = IPv6(src=_ip6(rng), dst=_ip6(rng), tc=(rng.getrandbits(6) << 2) | e, fl=rng.getrandbits(20),
                  hlim=rng.randint(1, 255))
        p = l2 / ip / (TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), flags="S") if kind == "tcp6"
                       else UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16)))
    elif kind == "arp":
        return bytes(l2 / ARP(psrc=_ip4(rng), pdst=_ip4(rng), hwsrc=_mac(rng)))
    else:
        et = rng.choice((0x88CC, 0x8847, 0x88E5, 0x9000, 0x0842, rng.getrandbits(16) | 0x0600))
        b = bytes(l2)
        return b[: hdr - 2] + et.to_bytes(2, "big") + _rbytes(rng, max(0, length - hdr))
    return bytes(p / Raw(_rbytes(rng, max(0, length - len(p)))))


def vxlan_frame(
    vni: int,
    inner: bytes,
    outer_src: str = "10.0.0.1",
    outer_dst: str = "10.0.0.2",
    *,
    tags=(),
    v6: bool = False,
    ihl: int = 5,
    outer_ecn: int = 0,
    outer_tos: int | None = None,
    ttl: int = 64,
    ip_id: int = 0x1234,
    ip_flags: int = 0,
    frag: int = 0,
    proto: int = 17,
    sport: int = 49152,
    dport: int = VXLAN_PORT,
    flags: int = 0x08,
    rsv1: int = 0,
    rsv2: int = 0,
    udp_csum: int | str | None = "auto",
    tlen: int | None = None,
    ulen: int | None = None,
    ip_csum: int | None = None,
    pad: bytes = b"",
    pad_to_min: bool = True,
    dst_mac: str = MAC_B,
    src_mac: str = MAC_A,
) -> VxlanFrame:
    """Ether[/tags]/IPv4-or-IPv6/UDP/VXLAN/`inner`, then `pad` (and zero padding up to 60 bytes).

    `flags`: the VXLAN flags byte (0x08 = I); `rsv1` (24 bits, bytes 1..3) and `rsv2` (byte 7) are
    the reserved fields. `udp_csum`: "auto" (scapy computes it: valid), "zero" or 0 (not
    computed), "bad" (valid with a wrong value), or an int written as is. `tlen` overrides the IPv4
    total length (IPv6 payload length), `ulen` the UDP length; the outer IPv4 checksum is valid
    for the final header unless `ip_csum` forces a value. For IPv6 outer pass IPv6 addresses (or
    keep the IPv4 defaults: 2001:db8::1/2 are used).
    """
    tos = ((outer_tos if outer_tos is not None else 0) & 0xFC) | (outer_ecn & 3)
    ip = _outer_ip(outer_src, outer_dst, v6=v6, tos=tos, proto=proto, ihl=ihl, ttl=ttl, ip_id=ip_id,
                   ip_flags=ip_flags, frag=frag, tlen=tlen)
    u = UDP(sport=sport, dport=dport)
    if ulen is not None:
        u.len = ulen
    if udp_csum in (0, "zero"):
        u.chksum = 0
    elif isinstance(udp_csum, int):
        u.chksum = udp_csum
    if flags == 0x08 and rsv1 == 0 and rsv2 == 0:
        vx = VXLAN(flags=0x08, vni=vni)
    else:
        vx = Raw(bytes((flags & 0xFF,)) + (rsv1 & 0xFFFFFF).to_bytes(3, "big") + (vni & 0xFFFFFF).to_bytes(3, "big")
                 + bytes((rsv2 & 0xFF,)))
    pkt = _l2(tags, dst_mac, src_mac) / ip / u / vx / Raw(inner)
    b = bytearray(bytes(pkt))
    L2 = 14 + 4 * len(tags)
    U = L2 + (40 if v6 else ihl * 4)
    ip_end = _outer_ip_end(b, L2, v6, ip_csum)
    if udp_csum == "bad":
        good = udp_checksum(bytes(b), L2, U, v6, len(b) - U)
        wrong = good ^ 0x00FF
        if wrong == 0:
            wrong = good ^ 0x0F0F
        b[U + 6], b[U + 7] = wrong >> 8, wrong & 0xFF
    return VxlanFrame(_padded(b, pad, pad_to_min), L2, U, U + 16, ip_end, v6)


# ----------------------------------------------------------------------------------------------
# The seed's traffic
# ----------------------------------------------------------------------------------------------


@dataclass
class SeedTraffic:
    """The seed's test: VXLAN frames of `size` bytes on the network port (4K VNIs), VLAN-tagged
    host frames that the tunnel table encapsulates into `size`-byte VXLAN frames (4K tunnels),
    and the tables that make every frame hit."""

    net: list[bytes]
    host: list[bytes]
    decap_cfg: DecapConfig
    encap_cfg: EncapConfig
    size: int


def _seed_udp(i: int, src: str, dst: str, payload_len: int, vlan: int | None = None):
    l2 = Ether(dst="00:00:00:01:00:00", src="00:00:00:02:00:00")
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    return l2 / IP(src=src, dst=dst, id=i & 0xFFFF, ttl=64) / UDP(sport=1025, dport=12) / Raw(
        bytes((i + j) & 0xFF for j in range(payload_len)))


def _seed_net_scapy(i: int, size: int = 804, vni_base: int = 0x1000) -> bytes:
    """Stream i's network-port frame, built by scapy field by field (reference for the fast path)."""
    inner = bytes(_seed_udp(i, f"16.0.{(i >> 8) & 255}.{i & 255}", "48.0.0.1", size - 50 - 42))
    return vxlan_frame(vni_base + i, inner, "10.1.0.1", f"10.0.{(i >> 8) & 255}.{i & 255}",
                       sport=0xC000 | (i & 0x3FFF), ip_id=i & 0xFFFF, dst_mac="00:00:00:05:00:00",
                       src_mac="00:00:00:06:00:00").frame


def _seed_host_scapy(i: int, size: int = 804) -> bytes:
    """Stream i's host-port frame, built by scapy (reference for the fast path)."""
    vid = 1 + i % 4094 if i < 4094 else None
    dst = f"172.16.{((i + 1) >> 8) & 255}.{(i + 1) & 255}"
    return bytes(_seed_udp(i, "48.0.0.1", dst, size - 92 if vid is not None else size - 50 - 42, vid))


def _csum_at(b: bytearray, at: int, data: bytes) -> None:
    c = ~ones_sum(data) & 0xFFFF
    b[at], b[at + 1] = c >> 8, c & 0xFF


def _seed_net_fast(tmpl: bytes, i: int, vni_base: int) -> bytes:
    """Patch stream 0's frame into stream i's (the same bytes scapy would build)."""
    b = bytearray(tmpl)
    K = 50
    pay = b[K + 42 :]
    n = len(pay)
    b[K + 42 :] = bytes((i + j) & 0xFF for j in range(n))
    # inner IPv4: id, src 16.0.x.y, checksum; inner UDP checksum
    b[K + 18 : K + 20] = (i & 0xFFFF).to_bytes(2, "big")
    b[K + 28 : K + 30] = bytes(((i >> 8) & 255, i & 255))
    b[K + 24 : K + 26] = b"\0\0"
    _csum_at(b, K + 24, bytes(b[K + 14 : K + 34]))
    c = udp_checksum(bytes(b), K + 14, K + 34, False)
    b[K + 40], b[K + 41] = c >> 8, c & 0xFF
    # outer: IPv4 id, dst 10.0.x.y, checksum; UDP sport, checksum; VNI
    b[18:20] = (i & 0xFFFF).to_bytes(2, "big")
    b[32:34] = bytes(((i >> 8) & 255, i & 255))
    b[24:26] = b"\0\0"
    _csum_at(b, 24, bytes(b[14:34]))
    b[34:36] = (0xC000 | (i & 0x3FFF)).to_bytes(2, "big")
    b[46:49] = ((vni_base + i) & 0xFFFFFF).to_bytes(3, "big")
    b[40:42] = b"\0\0"
    c = udp_checksum(bytes(b), 14, 34, False)
    b[40], b[41] = c >> 8, c & 0xFF
    return bytes(b)


def seed_vxlan_frames(n: int, size: int = 804, vnis: int = 4096, vni_base: int = 0x1000) -> SeedTraffic:
    """The seed's traffic (TRex, stateless uniform UDP): `n` frames per direction.

    - network -> host: Ether/IPv4/UDP(4789, valid checksum)/VXLAN(VNI vni_base + i)/inner
      Ether/IPv4/UDP, `size` bytes on the bus (no FCS). The VNI table maps each VNI to a VLAN
      pushed on the inner frame (the seed's OVS loop-back of tagged VLAN traffic).
    - host -> network: Ether/802.1Q(vid)/IPv4(dst 172.16.x.y)/UDP of `size - 46` bytes; the
      tunnel table holds `vnis` tunnels keyed by (vid, inner dst), VNIs vni_base + vnis + i, so
      each encapsulated frame is `size` bytes (streams beyond VLAN 4094 go untagged, same size).
    Frame k belongs to stream i = k % vnis; one frame per stream is built, then reused.
    """
    if size < 50 + 14 + 20 + 8:
        raise ValueError(f"size {size} too small for a VXLAN frame with an inner IPv4/UDP packet")
    m = min(n, vnis)
    vni_table: dict[int, tuple[int, bool]] = {}
    tunnels: dict[tuple[int | None, int], Tunnel] = {}
    for i in range(vnis):
        vid = 1 + i % 4094
        vni_table[vni_base + i] = (vid, True)
        dst = 0xAC100000 | (i + 1)  # 172.16.x.y
        tunnels[(vid if i < 4094 else None, dst)] = Tunnel(
            vni=vni_base + vnis + i, dst_mac=bytes.fromhex("0000000300") + bytes((i & 0xFF,)),
            src_mac=bytes.fromhex("000000040000"), src_ip=0x0A000001, dst_ip=0x0A010000 | (i & 0xFFFF),
            udp_port=VXLAN_PORT, ttl=64, dscp=0)
    net_t, host_t = [], []
    if m:
        t0 = _seed_net_scapy(0, size, vni_base)
        net_t = [t0] + [_seed_net_fast(t0, i, vni_base) for i in range(1, m)]
        h0, h0u = _seed_host_scapy(0, size), (_seed_host_scapy(4094, size) if m > 4094 else b"")
        for i in range(m):
            tagged = i < 4094
            b = bytearray(h0 if tagged else h0u)
            e = 18 if tagged else 14
            if tagged:
                b[14:16] = (1 + i % 4094).to_bytes(2, "big")
            b[e + 4 : e + 6] = (i & 0xFFFF).to_bytes(2, "big")
            b[e + 18], b[e + 19] = ((i + 1) >> 8) & 255, (i + 1) & 255
            b[e + 10 : e + 12] = b"\0\0"
            _csum_at(b, e + 10, bytes(b[e : e + 20]))
            b[e + 28 :] = bytes((i + j) & 0xFF for j in range(len(b) - e - 28))
            b[e + 26 : e + 28] = b"\0\0"
            c = udp_checksum(bytes(b), e, e + 20, False)
            b[e + 26], b[e + 27] = c >> 8, c & 0xFF
            host_t.append(bytes(b))
    net = [net_t[k % m] for k in range(n)] if m else []
    host = [host_t[k % m] for k in range(n)] if m else []
    return SeedTraffic(net, host, DecapConfig(vni_table=vni_table), EncapConfig(tunnels=tunnels), size)


# ----------------------------------------------------------------------------------------------
# Random decap cases across the contract
# ----------------------------------------------------------------------------------------------


DECAP_MUTATIONS = (
    "ip_csum", "ip_version", "ihl_small", "not_udp", "frag_mf", "frag_off", "tlen_small", "tlen_big",
    "ulen_small", "ulen_big", "v6_version", "v6_nh", "v6_plen_small", "other_port", "port_8472",
    "no_i_flag", "reserved", "udp_csum_bad", "udp_csum_zero", "ecn_drop", "ecn_short", "inner_short",
    "multi",
)


def _random_vxlan(rng: random.Random, total: int, mutation: str | None = None, vnis=None) -> VxlanFrame:
    """A random VXLAN frame of about `total` bytes, optionally with one contract violation."""
    m = mutation
    v6 = rng.random() < 0.2
    if m in ("ip_csum", "ip_version", "ihl_small", "not_udp", "frag_mf", "frag_off", "tlen_small"):
        v6 = False
    if m in ("v6_version", "v6_nh", "v6_plen_small"):
        v6 = True
    tags = _rand_tags(rng)
    ihl = 5 if (v6 or rng.random() < 0.75) else rng.randint(6, 15)
    hl = 40 if v6 else 4 * ihl
    L2 = 14 + 4 * len(tags)
    room = max(14, total - (L2 + hl + 16))
    outer_ecn = rng.getrandbits(2)
    ikind = rng.choice(("tcp4", "tcp4", "udp4", "icmp4", "tcp6", "udp6", "arp", "other"))
    ivlan = rng.randint(0, 4095) if rng.random() < 0.1 else None
    iecn = None
    if m == "ecn_drop":
        outer_ecn, iecn, ivlan = 3, 0, None
        ikind = rng.choice(("tcp4", "udp4", "tcp6"))
    if m == "ecn_short":
        outer_ecn, ivlan = rng.choice((1, 3)), None
    inner = inner_frame(rng, room, ikind, ivlan, iecn)
    if m == "ecn_short":
        v4 = rng.random() < 0.5
        inner = bytes(_l2((), _mac(rng), _mac(rng)))[:12] + (b"\x08\x00" if v4 else b"\x86\xdd") + \
            _rbytes(rng, rng.randint(0, 11 if v4 else 1))
    if m == "inner_short":
        inner = inner[: rng.randint(0, 13)]
    if vnis:
        vni = rng.choice(vnis) if rng.random() < 0.85 else rng.getrandbits(24)
    else:
        vni = rng.getrandbits(24)
    kw = dict(tags=tags, v6=v6, ihl=ihl, outer_ecn=outer_ecn, outer_tos=rng.getrandbits(8), ttl=rng.randint(1, 255),
              ip_id=rng.getrandbits(16), ip_flags=rng.choice((0, 2)), sport=rng.randint(49152, 65535),
              dst_mac=_mac(rng), src_mac=_mac(rng),
              udp_csum="auto" if rng.random() < 0.6 else "zero")
    src, dst = (_ip6(rng), _ip6(rng)) if v6 else (_ip4(rng), _ip4(rng))
    if rng.random() < 0.1:
        kw["pad"] = _rbytes(rng, rng.randint(1, 64))  # Ethernet padding / trailer beyond ip_end
    muts = [m]
    if m == "multi":
        pool = ["ip_csum", "frag_mf", "tlen_small", "ulen_small", "no_i_flag", "reserved", "udp_csum_bad",
                "tlen_big", "other_port"] if not v6 else ["v6_plen_small", "ulen_big", "no_i_flag", "reserved",
                                                          "udp_csum_bad", "v6_nh", "tlen_big"]
        muts = rng.sample(pool, rng.randint(2, 3))
    ilen = len(inner)
    if "frag_mf" in muts:
        kw["ip_flags"] = 1 | rng.choice((0, 2))
    if "frag_off" in muts:
        kw["frag"] = rng.randint(1, 0x1FFF)
    if "not_udp" in muts:
        kw["proto"] = rng.choice((6, 47, 1, 132, 0))
    if "v6_nh" in muts:
        kw["proto"] = rng.choice((6, 47, 0, 43, 44, 60))
    if "tlen_small" in muts:
        kw["tlen"] = rng.randint(0, hl + 15)
    if "v6_plen_small" in muts:
        kw["tlen"] = rng.randint(0, 15)
    if "tlen_big" in muts:
        kw["tlen"] = (0 if v6 else hl) + 16 + ilen + rng.randint(1, 2000)
        kw["ulen"] = 16 + ilen + (kw["tlen"] - ((0 if v6 else hl) + 16 + ilen))  # consistent UDP length
    if "ulen_small" in muts:
        kw["ulen"] = rng.randint(0, 16 + ilen - 1)
    if "ulen_big" in muts:
        kw["ulen"] = 16 + ilen + rng.randint(1, 100)
    if "other_port" in muts:
        kw["dport"] = rng.choice((4790, 6081, 53, 8472 + 1, rng.getrandbits(16) | 1))
    if "port_8472" in muts:
        kw["dport"] = LINUX_VXLAN_PORT
    if "no_i_flag" in muts:
        kw["flags"] = rng.getrandbits(8) & ~0x08
    if "reserved" in muts:
        which = rng.randrange(3)
        if which == 0:
            kw["flags"] = 0x08 | (1 << rng.choice((0, 1, 2, 4, 5, 6, 7)))
        elif which == 1:
            kw["rsv1"] = 1 << rng.randrange(24)
        else:
            kw["rsv2"] = 1 << rng.randrange(8)
    if "udp_csum_bad" in muts:
        kw["udp_csum"] = "bad"
    if "udp_csum_zero" in muts:
        kw["udp_csum"] = "zero"
    vf = vxlan_frame(vni, inner, src, dst, **kw)
    b = bytearray(vf.frame)
    if "ip_version" in muts:
        b[L2] = (rng.choice([x for x in range(16) if x != 4]) << 4) | (b[L2] & 0xF)
    if "ihl_small" in muts:
        b[L2] = 0x40 | rng.randint(0, 4)
    if "v6_version" in muts:
        b[L2] = (rng.choice([x for x in range(16) if x != 6]) << 4) | (b[L2] & 0xF)
    if "ip_csum" in muts:
        b[L2 + 10] ^= 1 << rng.randint(0, 7)
    elif not v6 and ("ip_version" in muts or "ihl_small" in muts):
        c = ipv4_checksum(bytes(b[L2 : L2 + 20]))  # over a 20-byte header
        b[L2 + 10], b[L2 + 11] = c >> 8, c & 0xFF
    return VxlanFrame(bytes(b), vf.L2, vf.U, vf.K, vf.ip_end, v6)


def random_vxlan_case(rng: random.Random, max_len: int = 9600, big: float = 0.05, bad_prob: float = 0.03,
                      vnis=None) -> Case:
    """One network-port frame drawn across every case of the decap contract. `vnis`: VNIs to
    draw from most of the time (so that a VNI table hits); `big` the share of 1600..9600-byte
    frames; `bad_prob` the share of RX-error frames."""
    r = rng.random()
    total = _rand_len(rng, max_len, big)
    bad = rng.random() < bad_prob
    if r < 0.35:
        vf = _random_vxlan(rng, total, None, vnis)
        kind, frame = "vxlan", vf.frame
    elif r < 0.62:
        m = rng.choice(DECAP_MUTATIONS)
        vf = _random_vxlan(rng, total, m, vnis)
        kind, frame = f"vxlan_{m}", vf.frame
    elif r < 0.72:
        vf = _random_vxlan(rng, total, None if rng.random() < 0.8 else rng.choice(DECAP_MUTATIONS), vnis)
        L2, U, K, e = vf.L2, vf.U, vf.K, vf.ip_end
        cuts = [12, 14, L2, L2 + 10, L2 + 20, L2 + 40, U, U + 2, U + 4, U + 8, U + 12, U + 16, K + 12, K + 14,
                K + 16, K + 26, K + 28, e - 1, e]
        cut = rng.choice(cuts) + rng.choice((-1, 0, 0, 1))
        kind, frame = "vxlan_cut", vf.frame[: max(1, min(cut, len(vf.frame)))]
    elif r < 0.90:
        tags = _rand_tags(rng)
        l2 = bytes(_l2(tags, _mac(rng), _mac(rng)))
        frame = l2[: len(l2) - 2] + inner_frame(rng, total - len(l2) + 14)[12:]
        frame += bytes(max(0, 60 - len(frame)))
        kind = "plain"
    elif r < 0.94:
        # plain UDP to other ports, three tags, or a VXLAN frame behind three tags (PASS)
        if rng.random() < 0.5:
            vf = _random_vxlan(rng, total, None, vnis)
            body = vf.frame[vf.L2 - 2 :]
            frame = bytes(_l2((("ad", 1), ("q", 2), ("q", 3))))[:-2] + body
            kind = "three_tags"
        else:
            frame = bytes(Ether(dst=_mac(rng), src=_mac(rng)) / IP(src=_ip4(rng), dst=_ip4(rng))
                          / UDP(sport=VXLAN_PORT, dport=rng.choice((53, 123, 4790, 6081))) / Raw(_rbytes(rng, 40)))
            kind = "udp_other"
    elif r < 0.97:
        src = _random_vxlan(rng, 120, None, vnis).frame
        frame = src[: rng.randint(1, 60)]
        kind = "runt"
    else:
        vf = _random_vxlan(rng, total, None, vnis)
        b = bytearray(vf.frame)
        for _ in range(rng.randint(1, 6)):
            i = rng.randrange(vf.L2, min(len(b), vf.K + 30))
            b[i] = rng.getrandbits(8)
        kind, frame = "vxlan_fuzz", bytes(b)
    return Case(frame[:max_len], bad, kind)


def decap_contract_cases(seed: int = 1, vnis=(42, 0x123456)) -> list[Case]:
    """Named frames covering every rule of the decap contract (docs/vxlan.md). `vnis[0]` is used
    for well-formed frames (put it in a VNI table to see them decapsulated); deterministic."""
    rng = random.Random(seed)
    cs: list[Case] = []
    V = vnis[0]

    def add(kind, frame, bad=False):
        cs.append(Case(bytes(frame), bad, kind))

    def inner(length=80, kind="tcp4", **kw):
        return inner_frame(rng, length, kind, **kw)

    def vx(inr=None, vni=V, **kw):
        return vxlan_frame(vni, inner() if inr is None else inr, **kw).frame

    # seed traffic
    st = seed_vxlan_frames(3)
    for f in st.net:
        add("seed", f)
    # 1. L2
    base = vx(inner(200), pad_to_min=False)
    for n in (1, 7, 12, 13):
        add(f"short_{n}", base[:n])
    add("three_tags", bytes(_l2((("q", 1), ("q", 2), ("q", 3))))[:-2] + base[12:])
    add("arp", bytes(Ether(dst=MAC_B, src=MAC_A) / ARP()))
    # 2. outer IP to the UDP port
    for tags in ((), (("q", 7),), (("ad", 7), ("q", 8)), (("q", 7), ("q", 8))):
        for v6 in (False, True):
            t = "".join(k for k, _ in tags) or "untagged"
            add(f"ok_{t}_{'v6' if v6 else 'v4'}", vx(tags=tags, v6=v6))
            add(f"ok_{t}_{'v6' if v6 else 'v4'}_csum0", vx(tags=tags, v6=v6, udp_csum=0))
    for ihl in (6, 7, 15):
        add(f"ok_ihl{ihl}", vx(ihl=ihl))
    for n in (20, 33, 34, 37, 38, 41, 42, 49, 50, 57, 58):
        add(f"cut_{n}", base[:n])
    for n in (53, 54, 57, 58, 61, 62, 69, 70):
        add(f"cut_v6_{n}", vx(inner(200), v6=True, pad_to_min=False)[:n])
    f = bytearray(vx())
    f[14] = 0x55
    add("ip_version_5", f)
    f = bytearray(vx())
    f[14] = 0x44
    add("ihl_4", f)
    add("ip_proto_tcp", vx(proto=6))
    add("ip_proto_gre", vx(proto=47))
    add("frag_off", vx(frag=1))
    add("frag_off_mf", vx(frag=100, ip_flags=1))
    f = bytearray(vx(v6=True))
    f[14] = 0x40 | (f[14] & 0xF)
    add("v6_version_4", f)
    add("v6_nh_tcp", vx(v6=True, proto=6))
    add("v6_nh_frag", vx(v6=True, proto=44))
    # 3. ports
    for p in (4790, 6081, 8472, 0, 0xFFFF, 4788):
        add(f"port_{p}", vx(dport=p))
    add("sport_4789_only", vx(sport=4789, dport=53))
    # 4. outer checks
    add("ip_csum_bad", vx(ip_csum=0x0000))
    add("ip_csum_bad_ihl6", vx(ihl=6, ip_csum=0xFFFF))
    add("frag_mf", vx(ip_flags=1))
    add("frag_mf_csum_bad", vx(ip_flags=1, ip_csum=0x1111))
    for tl in (0, 20, 35, 36):
        add(f"tlen_{tl}", vx(tlen=tl))
    add("tlen_36_exact", vx(inner(80), tlen=36, ulen=16, udp_csum=0))
    add("tlen_36_ihl6_short", vx(ihl=6, tlen=39))
    for pl in (0, 15):
        add(f"v6_plen_{pl}", vx(v6=True, tlen=pl))
    add("ulen_small", vx(inner(80), ulen=50))
    add("ulen_big", vx(inner(80), ulen=200))
    add("ulen_zero", vx(ulen=0))
    add("ulen_v6_small", vx(inner(80), v6=True, ulen=40))
    add("tlen_big_late", vx(inner(300), tlen=2000, ulen=2000 - 20))
    add("tlen_big_v6", vx(inner(300), v6=True, tlen=1000, ulen=1000))
    # 5. VXLAN header
    for fl in (0x00, 0x80, 0x04, 0x0C & ~0x08, 0xF7):
        add(f"flags_{fl:02x}", vx(flags=fl))
    for fl in (0x0C, 0x88, 0x09, 0xFF):
        add(f"reserved_flags_{fl:02x}", vx(flags=fl))
    add("reserved_rsv1", vx(rsv1=0x000001))
    add("reserved_rsv1_hi", vx(rsv1=0x800000))
    add("reserved_rsv2", vx(rsv2=0x01))
    for vni in (0, 1, 0xFFFFFF, vnis[1]):
        add(f"vni_{vni:06x}", vx(vni=vni))
    # a VNI absent from any table, with a fault of a later step: the table (step 6) decides first
    U = 0x654321
    add("vni_unknown_inner_short", vx(inner()[:10], vni=U, udp_csum=0))
    add("vni_unknown_ecn_drop", vx(inner(80, "tcp4", ecn=0), vni=U, outer_ecn=3))
    add("vni_unknown_ecn_short", vx(bytes(Ether())[:12] + b"\x08\x00\x45", vni=U, outer_ecn=1))
    add("vni_unknown_truncated", vx(inner(200), vni=U, pad_to_min=False)[:100])
    add("vni_unknown_udp_csum", vx(inner(80), vni=U, udp_csum="bad"))
    # 7. inner frame
    for il in (0, 1, 13):
        add(f"inner_len_{il}", vx(inner()[:il]))
    add("inner_len_14", vx(inner()[:14]))
    add("inner_vlan", vx(inner(100, "tcp4", vlan=100)))
    add("inner_ipv6", vx(inner(100, "udp6")))
    add("inner_arp", vx(inner(60, "arp")))
    add("inner_other", vx(inner(60, "other")))
    for o in range(4):
        for i in range(4):
            add(f"ecn_v4_o{o}_i{i}", vx(inner(80, "tcp4", ecn=i), outer_ecn=o))
            add(f"ecn_v6in_o{o}_i{i}", vx(inner(80, "udp6", ecn=i), outer_ecn=o, v6=bool(i & 1)))
            add(f"ecn_vlan_o{o}_i{i}", vx(inner(80, "tcp4", ecn=i, vlan=5), outer_ecn=o))
    hdr = bytes(Ether(dst=MAC_B, src=MAC_A))[:12]
    for o in (1, 3):
        add(f"ecn_short_v4_o{o}", vx(hdr + b"\x08\x00" + inner(80, "tcp4", ecn=2)[14:25], outer_ecn=o))
        add(f"ecn_exact_v4_o{o}", vx(hdr + b"\x08\x00" + inner(80, "tcp4", ecn=2)[14:26], outer_ecn=o))
        add(f"ecn_short_v6_o{o}", vx(hdr + b"\x86\xdd\x60", outer_ecn=o))
        add(f"ecn_exact_v6_o{o}", vx(hdr + b"\x86\xdd\x60\x20", outer_ecn=o))
        add(f"ecn_cut_v4_o{o}", vx(inner(80, "tcp4", ecn=2), outer_ecn=o, pad_to_min=False)[: 50 + 14 + 11])
    # 8. truncation, padding
    for cut in (63, 64, 65, 77, 78, 100, 128, 129, len(base) - 1):
        add(f"trunc_{cut}", base[:cut])
    add("pad", vx(inner(60), pad=bytes(range(40))))
    add("pad_csum", vx(inner(60), pad=b"\xff" * 7))
    add("min_inner_padded", vx(inner()[:14], udp_csum=0))
    # late: UDP checksum
    add("udp_csum_bad", vx(udp_csum="bad"))
    add("udp_csum_bad_v6", vx(v6=True, udp_csum="bad"))
    add("udp_csum_bad_big", vx(inner(3000), udp_csum="bad"))
    add("udp_csum_bad_pad", vx(inner(20), udp_csum="bad", pad=b"\x00" * 30))
    add("udp_csum_ffff", vx(inner(80), udp_csum="auto"))
    # RX errors on every class
    for kind, frame in (("rx_err_pass", bytes(Ether() / IP() / UDP(dport=53) / Raw(b"x" * 60))),
                        ("rx_err_decap", vx()), ("rx_err_decap_big", vx(inner(2000))),
                        ("rx_err_drop", vx(ip_csum=0)), ("rx_err_cut", base[:90]), ("rx_err_short", b"\x01\x02\x03"),
                        ("rx_err_udp_csum", vx(udp_csum="bad"))):
        add(kind, frame, bad=True)
    # sizes
    for n in (60, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1514, 1518, 4000, 9600):
        add(f"vxlan_len_{n}", vx(inner(max(14, n - 50), "udp4"), pad_to_min=False)[:n] if n >= 114 else
            vx(inner(max(14, n - 50), "udp4")))
    return cs


# ----------------------------------------------------------------------------------------------
# Encap: tunnel tables and host frames
# ----------------------------------------------------------------------------------------------


def random_tunnels(rng: random.Random, n: int = 64, tagged: float = 0.5) -> dict[tuple[int | None, int], Tunnel]:
    """`n` random tunnels keyed by (vid or None, inner dst IPv4 as int)."""
    t: dict[tuple[int | None, int], Tunnel] = {}
    while len(t) < n:
        vid = rng.randint(0, 4095) if rng.random() < tagged else None
        dst = (rng.randint(1, 223) << 24) | rng.getrandbits(24)
        t[(vid, dst)] = Tunnel(
            vni=rng.getrandbits(24), dst_mac=rng.getrandbits(48).to_bytes(6, "big"),
            src_mac=rng.getrandbits(48).to_bytes(6, "big"), src_ip=rng.getrandbits(32), dst_ip=rng.getrandbits(32),
            udp_port=rng.choice((VXLAN_PORT, VXLAN_PORT, LINUX_VXLAN_PORT, rng.getrandbits(16))),
            ttl=rng.randint(1, 255), dscp=rng.getrandbits(6))
    return t


def _ip_str(v: int) -> str:
    return ".".join(str((v >> s) & 255) for s in (24, 16, 8, 0))


def host_frame(rng: random.Random, dst: str | int, vlan: int | None = None, length: int = 100,
               l4: str | None = None, ecn: int | None = None, frag: tuple[int, int] = (0, 0),
               ihl: int = 5) -> bytes:
    """A host-port IPv4 frame to `dst` (optionally 802.1Q-tagged) of about `length` bytes.
    `frag` = (MF, offset)."""
    if isinstance(dst, int):
        dst = _ip_str(dst)
    l4 = l4 or rng.choice(("tcp", "udp", "icmp", "sctp"))
    e = rng.getrandbits(2) if ecn is None else ecn
    l2 = _l2(((("q", vlan),) if vlan is not None else ()), _mac(rng), _mac(rng))
    ip = IP(src=_ip4(rng), dst=dst, tos=(rng.getrandbits(6) << 2) | e, id=rng.getrandbits(16), ttl=rng.randint(1, 255),
            flags=(frag[0] | rng.choice((0, 2))), frag=frag[1],
            options=[IPOption_NOP()] * (4 * (ihl - 5)) if ihl > 5 else [])
    if l4 == "tcp":
        p = l2 / ip / TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), seq=rng.getrandbits(32), flags="PA")
    elif l4 == "udp":
        p = l2 / ip / UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16))
    elif l4 == "icmp":
        p = l2 / ip / ICMP(id=rng.getrandbits(16), seq=rng.getrandbits(16))
    else:
        ip.proto = 132
        p = l2 / ip / Raw(_rbytes(rng, 12))
    b = bytes(p / Raw(_rbytes(rng, max(0, length - len(p)))))
    return b + bytes(max(0, 60 - len(b)))


def random_host_frame(rng: random.Random, tunnels: dict, max_len: int = 9600, big: float = 0.03,
                      bad_prob: float = 0.03) -> Case:
    """One host-port frame: a tunnel hit (tagged or not, as the key says), a miss (unknown dst,
    wrong/missing/extra tag), a non-IPv4 frame (IPv6, ARP, 802.1ad, bad version/IHL, another
    EtherType), or a short frame (no complete IPv4 header)."""
    total = _rand_len(rng, max_len - 54, big)
    bad = rng.random() < bad_prob
    keys = list(tunnels)
    r = rng.random()
    if r < 0.5 and keys:
        vid, dst = rng.choice(keys)
        frag = (0, 0)
        if rng.random() < 0.1:
            frag = rng.choice(((1, 0), (0, rng.randint(1, 0x1FFF)), (1, rng.randint(1, 0x1FFF))))
        f = host_frame(rng, dst, vid, total, frag=frag, ihl=5 if rng.random() < 0.9 else rng.randint(6, 15))
        if rng.random() < 0.05:  # cut inside the L4 ports (flow_hash uses zero ports)
            e = 14 + (4 if vid is not None else 0)
            f = f[: e + (f[e] & 0xF) * 4 + rng.randint(0, 3)]
        return Case(f, bad, "hit" + ("_tagged" if vid is not None else ""))
    if r < 0.7:
        vid, dst = rng.choice(keys) if keys else (None, 0x01020304)
        x = rng.randrange(4)
        if x == 0:
            dst = (rng.randint(1, 223) << 24) | rng.getrandbits(24)
        elif x == 1:
            vid = None if vid is not None else rng.randint(0, 4095)
        elif x == 2 and vid is not None:
            vid = (vid + rng.randint(1, 4095)) & 0xFFF
        else:
            dst ^= 1 << rng.randrange(32)
        kind = "miss"
        if (vid, dst) in tunnels:
            kind = "hit_by_chance"
        return Case(host_frame(rng, dst, vid, total), bad, kind)
    if r < 0.9:
        x = rng.randrange(7)
        vlan = rng.randint(0, 4095) if rng.random() < 0.4 else None
        if x == 0:
            f = inner_frame(rng, total, rng.choice(("tcp6", "udp6")), vlan)
        elif x == 1:
            f = inner_frame(rng, 60, "arp", vlan)
        elif x == 2:
            f = inner_frame(rng, total, "other", vlan)
        elif x == 3:  # 802.1ad tag: not looked up
            dst = rng.choice(keys)[1] if keys else 0x01020304
            f = bytes(Ether(dst=_mac(rng), src=_mac(rng)) / Dot1AD(vlan=rng.randint(0, 4095))
                      / IP(dst=_ip_str(dst)) / UDP() / Raw(_rbytes(rng, 40)))
        elif x == 4:  # two 802.1Q tags: the second tag is the EtherType
            f = bytes(Ether(dst=_mac(rng), src=_mac(rng)) / Dot1Q(vlan=1) / Dot1Q(vlan=2) / IP() / UDP() / Raw(b"q" * 30))
        else:  # IPv4 EtherType with a bad version or IHL < 5
            key = rng.choice(keys) if keys else (None, 0x01020304)
            b = bytearray(host_frame(rng, key[1], key[0], total))
            e = 14 + (4 if key[0] is not None else 0)
            if x == 5:
                b[e] = (rng.choice([v for v in range(16) if v != 4]) << 4) | (b[e] & 0xF)
            else:
                b[e] = 0x40 | rng.randint(0, 4)
            f = bytes(b)
        return Case(f + bytes(max(0, 60 - len(f))), bad, "not_ipv4")
    # short frames: no complete 20-byte IPv4 header (possibly a tunnel's destination)
    key = rng.choice(keys) if keys else (None, 0x01020304)
    f = host_frame(rng, key[1], key[0], 80)
    e = 14 + (4 if key[0] is not None else 0)
    cut = rng.choice((1, 6, 12, 13, 14, 15, 17, e + 1, e + 10, e + 19, e + 20, e + 20))
    kind = "short" if cut < e + 20 else "hit_min"
    return Case(f[:cut], bad, kind)


def encap_contract_cases(tunnels: dict, seed: int = 2) -> list[Case]:
    """Named host frames covering every rule of the encap contract for the table `tunnels`
    (which should hold at least one untagged and one tagged entry)."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(kind, frame, bad=False):
        cs.append(Case(bytes(frame), bad, kind))

    untagged = [k for k in tunnels if k[0] is None]
    tagged = [k for k in tunnels if k[0] is not None]
    for i, (vid, dst) in enumerate(untagged[:3] + tagged[:3]):
        t = "tag" if vid is not None else "untag"
        for l4 in ("tcp", "udp", "icmp", "sctp"):
            add(f"hit_{t}{i}_{l4}", host_frame(rng, dst, vid, 100, l4))
        for ecn in range(4):
            add(f"hit_{t}{i}_ecn{ecn}", host_frame(rng, dst, vid, 100, "tcp", ecn))
        add(f"hit_{t}{i}_mf", host_frame(rng, dst, vid, 100, "udp", frag=(1, 0)))
        add(f"hit_{t}{i}_off", host_frame(rng, dst, vid, 100, "tcp", frag=(0, 3)))
        add(f"hit_{t}{i}_ihl7", host_frame(rng, dst, vid, 100, "tcp", ihl=7))
        add(f"hit_{t}{i}_ihl15_short", host_frame(rng, dst, vid, 100, "udp", ihl=15)[: 14 + (vid is not None) * 4 + 62])
        f = host_frame(rng, dst, vid, 100, "tcp")
        e = 14 + (4 if vid is not None else 0)
        for k in (20, 21, 22, 23):
            add(f"hit_{t}{i}_cut{k}", f[: e + k])
        add(f"hit_{t}{i}_big", host_frame(rng, dst, vid, 9000, "udp"))
        add(f"hit_{t}{i}_rxerr", host_frame(rng, dst, vid, 200, "udp"), bad=True)
        # the same destination with the other tagging: a miss (unless also in the table)
        other = None if vid is not None else 7
        add(f"{'hit' if (other, dst) in tunnels else 'miss'}_{t}{i}_retag", host_frame(rng, dst, other, 100))
    add("miss_unknown", host_frame(rng, "203.0.113.99", None, 100))
    add("miss_unknown_tag", host_frame(rng, "203.0.113.99", 99, 100))
    add("ipv6", inner_frame(rng, 100, "udp6"))
    add("ipv6_tag", inner_frame(rng, 100, "tcp6", vlan=5))
    add("arp", inner_frame(rng, 60, "arp"))
    add("other", inner_frame(rng, 100, "other"))
    add("dot1ad", bytes(Ether() / Dot1AD(vlan=3) / IP(dst="1.2.3.4") / UDP() / Raw(b"a" * 30)))
    add("qinq_q", bytes(Ether() / Dot1Q(vlan=3) / Dot1Q(vlan=4) / IP(dst="1.2.3.4") / UDP() / Raw(b"a" * 30)))
    k = (untagged or tagged)[0]
    f = bytearray(host_frame(rng, k[1], k[0], 100))
    e = 14 + (4 if k[0] is not None else 0)
    f[e] = 0x65
    add("ip_version_6", f)
    f[e] = 0x44
    add("ihl_4", f)
    for n in (1, 13, 14, 17, 18, 33, 34):
        add(f"short_{n}", host_frame(rng, k[1], k[0], 100)[:n])
    add("miss_rxerr", host_frame(rng, "203.0.113.99", None, 100), bad=True)
    add("ipv6_rxerr", inner_frame(rng, 100, "udp6"), bad=True)
    return cs

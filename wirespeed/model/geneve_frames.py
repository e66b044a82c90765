"""Frame builders for the Geneve decapsulation tests and later end-to-end runs (built with scapy).

- `geneve_frame(payload, ...)`: one Geneve frame with every knob the contract looks at
  (docs/geneve.md), plus its offsets (`GeneveFrame`).
- `option_tlvs(n_bytes, rng)`: a list of scapy `GeneveOptions` of `n_bytes` in all (0..252, a
  multiple of 4), random classes, types and data.
- `contract_cases()`: named frames, at least one per rule of the contract; `write_pcap(path)`
  writes the ones a pcap can carry (no RX errors) for end-to-end runs, generated when needed
  rather than committed.

A `Case` (wirespeed.model.frames.Case) is `(frame, bad, kind)`; `bad` = tuser=1 on the last beat.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from pathlib import Path

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.contrib.geneve import GENEVE, GeneveOptions  # noqa: E402
from scapy.layers.inet import ICMP, IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import ARP, Dot1AD, Dot1Q, Ether  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402
from scapy.packet import Packet, Raw  # noqa: E402

from wirespeed import pcap  # noqa: E402

from .frames import MAC_A, MAC_B, Case  # noqa: E402
from .geneve import ET_TEB, GENEVE_PORT  # noqa: E402

__all__ = ["Case", "GeneveFrame", "geneve_frame", "option_tlvs", "contract_cases", "write_pcap",
           "CONTRACT_VNI"]

CONTRACT_VNI = 0x00A0B1  # the VNI of the well-formed contract cases


@dataclass
class GeneveFrame:
    """A built Geneve frame and where its parts are (the contract's L2, U, K, ip_end)."""

    frame: bytes
    L2: int
    U: int
    K: int
    ip_end: int
    v6: bool


def option_tlvs(n_bytes: int, rng: random.Random | None = None, critical: bool = False) -> list[GeneveOptions]:
    """Option TLVs of `n_bytes` in all (a multiple of 4, at most 252): each at most 128 bytes
    (4-byte header + up to 31 words of data). `critical`: the first option's type has its
    critical bit (0x80) set."""
    if n_bytes % 4 or not 0 <= n_bytes <= 252:
        raise ValueError(f"options of {n_bytes} bytes: a multiple of 4 in 0..252")
    rng = rng or random.Random(n_bytes)
    out = []
    left = n_bytes
    while left:
        size = min(left, rng.choice((4, 8, 12, 20, 128)))
        typ = rng.randrange(0x80) | (0x80 if critical and not out else 0)
        data = bytes(rng.getrandbits(8) for _ in range(size - 4))
        out.append(GeneveOptions(classid=rng.choice((0x0100, 0x0101, 0x0102, 0xFFFF)), type=typ, data=data))
        left -= size
    return out


def _l2(tags, dst: str, src: str) -> Packet:
    p = Ether(dst=dst, src=src)
    for kind, vid in tags:
        p = p / (Dot1AD(vlan=vid) if kind == "ad" else Dot1Q(vlan=vid))
    return p


def geneve_frame(
    payload,
    *,
    vni: int = CONTRACT_VNI,
    proto: int | None = None,
    options: list | bytes | int = (),
    optlen: int | None = None,
    oam: bool = False,
    critical: bool = False,
    version: int = 0,
    rsvd: int = 0,
    rsvd2: int = 0,
    tags=(),
    v6: bool = False,
    ecn: int = 0,
    dscp: int = 0,
    udp_csum: int | str = "auto",
    dport: int = GENEVE_PORT,
    sport: int = 49152,
    ip_kw: dict | None = None,
    udp_kw: dict | None = None,
    pad: bytes = b"",
    dst_mac: str = MAC_B,
    src_mac: str = MAC_A,
) -> GeneveFrame:
    """Ether[/tags]/IPv4-or-IPv6/UDP/GENEVE[/options]/`payload`, then `pad` (Ethernet padding).

    `proto`: the protocol type (default: from the payload's class: Ether 0x6558, IP 0x0800,
    IPv6 0x86DD, else 0x6558). `options`: scapy `GeneveOptions` (Opt Len computed by scapy), raw
    option bytes, or an int = that many bytes of random TLVs; `optlen` forces the Opt Len field.
    `udp_csum`: "auto" (scapy computes it: valid), "zero" (not computed), "bad" (valid with a
    wrong value), or an int written as is. `ip_kw`/`udp_kw`: more fields of the outer IP/UDP
    layers (e.g. `flags="MF"`, `len=...`); the outer IPv4 checksum is computed by scapy.
    """
    if proto is None:
        proto = {Ether: ET_TEB, IP: 0x0800, IPv6: 0x86DD}.get(type(payload), ET_TEB)
    if isinstance(options, int):
        options = option_tlvs(options)
    tos = (dscp << 2) | (ecn & 3)
    ip = (IPv6(src="2001:db8::1", dst="2001:db8::2", tc=tos, **(ip_kw or {})) if v6
          else IP(src="10.0.0.1", dst="10.0.0.2", tos=tos, id=0x1234, **(ip_kw or {})))
    u = UDP(sport=sport, dport=dport, **(udp_kw or {}))
    if udp_csum == "zero":
        u.chksum = 0
    elif isinstance(udp_csum, int):
        u.chksum = udp_csum
    raw_opts = b""
    if isinstance(options, (bytes, bytearray)):
        raw_opts = bytes(options)
        if optlen is None:
            optlen = len(raw_opts) // 4
        options = []
    g = GENEVE(version=version, optionlen=optlen, oam=int(oam), critical=int(critical), reserved=rsvd,
               proto=proto, vni=vni, reserved2=rsvd2, options=list(options))
    body = (Raw(raw_opts) / Raw(bytes(payload))) if raw_opts else Raw(bytes(payload))
    b = bytearray(bytes(_l2(tags, dst_mac, src_mac) / ip / u / g / body))
    L2 = 14 + 4 * len(tags)
    U = L2 + (40 if v6 else (b[L2] & 0xF) * 4)
    if udp_csum == "bad":
        good = b[U + 6] << 8 | b[U + 7]
        wrong = good ^ 0x00FF or good ^ 0x0F0F
        b[U + 6], b[U + 7] = wrong >> 8, wrong & 0xFF
    ip_end = L2 + 40 + (b[L2 + 4] << 8 | b[L2 + 5]) if v6 else L2 + (b[L2 + 2] << 8 | b[L2 + 3])
    K = U + 16 + 4 * (b[U + 8] & 0x3F)
    return GeneveFrame(bytes(b) + pad, L2, U, K, ip_end, v6)


def _inner_eth(tos: int = 0) -> Packet:
    return (Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02")
            / IP(src="192.168.1.1", dst="192.168.2.2", tos=tos, ttl=33) / TCP(sport=1234, dport=80, flags="PA")
            / Raw(b"geneve inner payload"))


def contract_cases(seed: int = 1) -> list[Case]:
    """Named frames covering every rule of docs/geneve.md (deterministic). Well-formed ones carry
    `CONTRACT_VNI` (put it in a VNI table to see them decapsulated); `vni_other` carries another
    VNI. Under the reset configuration every outcome but DROP_UNKNOWN_VNI and DROP_POLICY appears
    (C = 1 is DROP_CRITICAL); a VNI table, CRITICAL_PUNT, DROP_PASS and DROP_PUNT give the rest."""
    rng = random.Random(seed)
    cs: list[Case] = []

    def add(kind: str, frame, bad: bool = False) -> None:
        cs.append(Case(bytes(frame), bad, kind))

    def gf(payload=None, **kw) -> bytes:
        return geneve_frame(_inner_eth() if payload is None else payload, **kw).frame

    ip4 = IP(src="192.168.1.1", dst="192.168.2.2", tos=2) / ICMP(id=7, seq=1) / Raw(b"ping" * 8)
    ip6 = IPv6(src="2001:db8::a", dst="2001:db8::b", tc=2) / UDP(sport=5, dport=6) / Raw(b"v6 payload")
    add("teb", gf())
    add("teb_options_8", gf(options=option_tlvs(8, rng)))
    add("teb_options_252", gf(options=option_tlvs(252, rng)))
    add("teb_critical_type_c0", gf(options=option_tlvs(12, rng, critical=True)))  # C = 0: not read
    add("teb_qinq_outer6", gf(tags=(("ad", 7), ("q", 8)), v6=True))
    add("teb_udp_zero", gf(udp_csum="zero"))
    add("teb_padded", gf(Ether(dst="aa:bb:cc:dd:ee:01", src="aa:bb:cc:dd:ee:02") / ARP(), pad=bytes(10)))
    add("l3_ipv4", gf(ip4))
    add("l3_ipv6_vlan", gf(ip6, tags=(("q", 100),)))
    add("l3_ipv4_ecn_ce", gf(ip4, ecn=3, options=16))
    add("pass_udp53", Ether(dst=MAC_B, src=MAC_A) / IP() / UDP(dport=53) / Raw(b"q" * 30))
    add("pass_tcp6081", Ether(dst=MAC_B, src=MAC_A) / IP() / TCP(dport=GENEVE_PORT))
    add("pass_arp", Ether(dst="ff:ff:ff:ff:ff:ff", src=MAC_A) / ARP())
    add("pass_vxlan", Ether(dst=MAC_B, src=MAC_A) / IP() / UDP(dport=4789) / VXLAN(vni=5) / _inner_eth())
    add("pass_three_tags", gf(tags=(("ad", 1), ("q", 2), ("q", 3))))
    add("punt_proto_mpls", gf(Raw(bytes(40)), proto=0x8847))
    add("punt_oam", gf(oam=True, options=8))
    add("critical", gf(critical=True, options=option_tlvs(8, rng, critical=True)))
    add("trunc_header", gf()[:14 + 20 + 8 + 5])
    add("trunc_options", gf(options=64)[:14 + 20 + 16 + 30])
    add("trunc_inner_short", gf(Raw(bytes(10)), proto=ET_TEB, udp_csum="zero"))
    add("trunc_late", gf(_inner_eth() / Raw(bytes(300)))[:250])
    add("ip_header_udp_len", gf(udp_kw=dict(len=30), udp_csum="zero"))
    add("ip_header_options_past", gf(Raw(bytes(20)), optlen=40, udp_csum="zero"))
    add("ip_checksum", gf(ip_kw=dict(chksum=0x1234)))
    add("fragment", gf(ip_kw=dict(flags="MF")))
    add("version_1", gf(version=1))
    add("vni_other", gf(vni=0x123456))
    add("ecn_drop", gf(_inner_eth(tos=0), ecn=3))
    add("udp_checksum_bad", gf(udp_csum="bad"))
    add("rx_error", gf(), bad=True)
    return cs


def write_pcap(path: str | Path, cases: list[Case] | None = None) -> list[Case]:
    """Write the contract cases a pcap can carry (no RX errors) to `path`; return them."""
    cs = [c for c in (contract_cases() if cases is None else cases) if not c.bad]
    pcap.write(path, [c.frame for c in cs])
    return cs

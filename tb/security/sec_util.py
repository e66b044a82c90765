"""Helpers shared by the security benches (tb/security): scapy frame builders, an output-beat
checker for the isolation property, bounded AXI4-Lite accesses, and the protocol monitors'
counters (rtl/sim/axis_monitor.sv, bound into every build)."""

from __future__ import annotations

import ipaddress
import random

import cocotb
from cocotb.triggers import RisingEdge
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import GRE, Dot1Q, Ether
from scapy.packet import Raw

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"


def ip4(v: int) -> str:
    return str(ipaddress.IPv4Address(v & 0xFFFFFFFF))


def payload(rng: random.Random, n: int) -> bytes:
    # High-entropy bytes with no zero byte: a stale byte in a lane that should be 0 shows.
    return bytes(rng.randrange(1, 256) for _ in range(max(0, n)))


def inner_ipv4(rng: random.Random, n: int) -> bytes:
    """An inner IPv4/UDP-or-TCP packet of `n` bytes (n >= 40)."""
    ip = IP(src=ip4(rng.getrandbits(32)), dst=ip4(rng.getrandbits(32)), id=rng.getrandbits(16),
            tos=rng.getrandbits(8) & 0xFC)
    if rng.random() < 0.5:
        l4, hl = UDP(sport=rng.getrandbits(16), dport=rng.getrandbits(16)), 28
    else:
        l4, hl = TCP(sport=rng.getrandbits(16), dport=rng.getrandbits(16), seq=rng.getrandbits(32), flags="A"), 40
    return bytes(ip / l4 / Raw(payload(rng, n - hl)))


def inner_ether(rng: random.Random, n: int) -> bytes:
    """An inner Ethernet/IPv4 frame of `n` bytes (n >= 54)."""
    return bytes(Ether(dst="02:11:22:33:44:55", src="02:66:77:88:99:aa") / Raw(inner_ipv4(rng, n - 14)))


def pad60(b: bytes) -> bytes:
    return b + bytes(max(0, 60 - len(b)))


def gre_pkt(rng: random.Random, src, dst, inner_len: int = 64, *, teb: bool = False, v6: bool = False,
            key: bool = False, vlan: int | None = None) -> bytes:
    """Ether[/802.1Q]/(IPv4|IPv6 outer src->dst)/GRE/(IPv4 | Ethernet for TEB), scapy-built."""
    inner = inner_ether(rng, inner_len) if teb else inner_ipv4(rng, inner_len)
    proto = 0x6558 if teb else 0x0800
    if v6:
        outer = IPv6(src=src, dst=dst, nh=47, hlim=64)
    else:
        outer = IP(src=src if isinstance(src, str) else ip4(src),
                   dst=dst if isinstance(dst, str) else ip4(dst), proto=47, ttl=64, id=rng.getrandbits(16))
    g = GRE(proto=proto, key_present=1, key=rng.getrandbits(32)) if key else GRE(proto=proto)
    l2 = Ether(dst=MAC_B, src=MAC_A)
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    return pad60(bytes(l2 / outer / g / Raw(inner)))


def set_outer_v4(frame: bytes, src: int, dst: int) -> bytes:
    """`frame` (Ether[/802.1Q...]/IPv4/...) with its outer IPv4 source and destination replaced
    and the header checksum recomputed: a scapy-built frame re-addressed without rebuilding."""
    b = bytearray(frame)
    off = 12
    while b[off:off + 2] in (b"\x81\x00", b"\x88\xa8"):
        off += 4
    assert b[off:off + 2] == b"\x08\x00", "not an IPv4 outer"
    ip = off + 2
    ihl = (b[ip] & 0xF) * 4
    b[ip + 12:ip + 16] = (src & 0xFFFFFFFF).to_bytes(4, "big")
    b[ip + 16:ip + 20] = (dst & 0xFFFFFFFF).to_bytes(4, "big")
    b[ip + 10:ip + 12] = b"\x00\x00"
    acc = sum(int.from_bytes(b[ip + i:ip + i + 2], "big") for i in range(0, ihl, 2))
    while acc >> 16:
        acc = (acc & 0xFFFF) + (acc >> 16)
    b[ip + 10:ip + 12] = (~acc & 0xFFFF).to_bytes(2, "big")
    return bytes(b)


def plain_pkt(rng: random.Random, n: int) -> bytes:
    """A non-tunnel Ethernet/IPv4 frame of exactly max(n, 60) bytes (PASS through either block)."""
    return pad60(bytes(Ether(dst=MAC_B, src=MAC_A) / Raw(inner_ipv4(rng, max(40, n - 14)))))[:max(n, 60)]


class KeepZeroChecker:
    """Watches an output stream: on every handshake, every byte lane with tkeep = 0 must hold
    0x00 (nothing of an earlier frame, nor of this one, in a lane that carries no byte)."""

    def __init__(self, dut, prefix: str):
        self.dut = dut
        self.tdata = getattr(dut, f"{prefix}_tdata")
        self.tkeep = getattr(dut, f"{prefix}_tkeep")
        self.tvalid = getattr(dut, f"{prefix}_tvalid")
        self.tready = getattr(dut, f"{prefix}_tready")
        self.tlast = getattr(dut, f"{prefix}_tlast")
        self.keep_w = len(self.tkeep)
        self.prefix = prefix
        self.beats = 0
        self.partial_beats = 0
        self.errors: list[str] = []
        self._masks: dict[int, int] = {}
        cocotb.start_soon(self._run())

    def _mask(self, keep: int) -> int:
        m = self._masks.get(keep)
        if m is None:
            m = 0
            for b in range(self.keep_w):
                if not (keep >> b) & 1:
                    m |= 0xFF << (8 * b)
            self._masks[keep] = m
        return m

    async def _run(self) -> None:
        full = (1 << self.keep_w) - 1
        while True:
            await RisingEdge(self.dut.clk)
            if int(self.tvalid.value) and int(self.tready.value):
                self.beats += 1
                keep = int(self.tkeep.value)
                if keep != full:
                    self.partial_beats += 1
                    stale = int(self.tdata.value) & self._mask(keep)
                    if stale and len(self.errors) < 20:
                        self.errors.append(
                            f"{self.prefix} beat {self.beats} (tlast={int(self.tlast.value)}): tkeep "
                            f"{keep:0{self.keep_w // 4}x} but tdata has non-zero bytes in empty lanes: "
                            f"{int(self.tdata.value):0{self.keep_w * 2}x}")


async def timed(h, coro, limit: int):
    """Await `coro` (an AXI4-Lite access); return (result, cycles it took). Fails when it takes
    more than `limit` cycles (a hang)."""
    from cocotb.triggers import with_timeout

    c0 = h.cycle
    r = await with_timeout(coro, 4 * limit * 4, "ns")  # 4 ns clock
    took = h.cycle - c0
    assert took <= limit, f"AXI4-Lite access took {took} cycles (limit {limit})"
    return r, took


RESP_LIMIT = 32   # cycles from issuing an access to its response, AXI4-Lite master included


class ControlAttack:
    """Until ``done``: reads (unmapped addresses) and writes (unmapped and read-only ones) that
    must be answered SLVERR within RESP_LIMIT cycles, each followed by a read of the ID
    register that must answer OKAY with ``id_value`` (the bus still works). ``bad`` collects
    the wrong answers, ``counts`` the answers and the slowest one."""

    def __init__(self, h, rng: random.Random, unmapped: list[int], read_only: list[int],
                 id_addr: int, id_value: int) -> None:
        self.h, self.rng = h, rng
        self.unmapped, self.read_only = unmapped, read_only
        self.id_addr, self.id_value = id_addr, id_value
        self.done = False
        self.counts = {"slverr": 0, "okay": 0, "max": 0}
        self.bad: list[str] = []

    def _answer(self, what: str, r, took: int, want) -> None:
        self.counts["max"] = max(self.counts["max"], took)
        if r.resp != want:
            self.bad.append(f"{what}: {r.resp!r}")

    async def run(self) -> None:
        from cocotbext.axi import AxiResp

        h = self.h
        while not self.done:
            for a in self.unmapped + self.read_only:
                if self.done:
                    break
                if a in self.unmapped:
                    r, t = await timed(h, h.axil.read(a, 4), RESP_LIMIT)
                    self._answer(f"read 0x{a:04x}", r, t, AxiResp.SLVERR)
                    self.counts["slverr"] += 1
                data = self.rng.getrandbits(32).to_bytes(4, "little")
                r, t = await timed(h, h.axil.write(a, data), RESP_LIMIT)
                self._answer(f"write 0x{a:04x}", r, t, AxiResp.SLVERR)
                self.counts["slverr"] += 1
                r, t = await timed(h, h.axil.read(self.id_addr, 4), RESP_LIMIT)
                self.counts["okay"] += 1
                if r.resp != AxiResp.OKAY or int.from_bytes(r.data, "little") != self.id_value:
                    self.bad.append(f"ID read after 0x{a:04x}: {r.resp!r}")


def monitor_counts(inst) -> tuple[int, int]:
    """(frames, beats) counted by a bound axis_monitor instance."""
    return int(inst.frames.value), int(inst.beats.value)

"""cocotb tests of rtl/host/pkt_gen.sv and rtl/host/pkt_chk.sv through tb/pkt_gen/pkt_loop.sv.

Every frame the generator sends is parsed here (scapy): Ethernet/IPv4/UDP with a valid IPv4
checksum, the length the sweep gives, the flow's source address and port, the sequence number,
the timestamp (the cycle of its first beat, less one: the generator samples ts_ns the cycle
before the beat is on the bus). The checker's counters must agree: frames and bytes, the gaps
the drop filter made, and a latency of DELAY + 1 ns (ts_ns counts one a cycle) on every frame.
The first frame's first beat is on the bus EN_TO_BEAT cycles after en is sampled high (the
latency rtl/host/pkt_gen.sv's header comment states).
"""

from __future__ import annotations

import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

DATA_W = int(os.environ.get("WS_DATA_W", "512"))
DROP_N = int(os.environ.get("WS_DROP_N", "0"))
KW = DATA_W // 8
DELAY = 3
PORT = 0x5753
CLOCK_MHZ = 322.265625
EN_TO_BEAT = 7      # en sampled high at a clock edge -> the first beat valid after the 7th next


class Mon:
    def __init__(self, dut):
        self.dut = dut
        self.frames: list[tuple[int, bytes]] = []     # (cycle of the first beat, bytes)
        self.cycle = 0
        self.beats = 0
        self.cur = b""
        self.start = 0
        self.en_cycles: list[int] = []    # cycles whose rising edge samples en's rise
        self.en_prev = 0

    async def run(self) -> None:
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            await ReadOnly()
            en = int(d.en.value)
            if en and not self.en_prev:
                self.en_cycles.append(self.cycle + 1)
            self.en_prev = en
            if int(d.g_tvalid.value):
                keep = int(d.g_tkeep.value)
                n = bin(keep).count("1")
                assert keep == (1 << n) - 1, f"tkeep {keep:#x} not contiguous"
                if not self.cur:
                    self.start = self.cycle
                self.cur += int(d.g_tdata.value).to_bytes(KW, "little")[:n]
                self.beats += 1
                if int(d.g_tlast.value):
                    self.frames.append((self.start, self.cur))
                    self.cur = b""


async def setup(dut) -> Mon:
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.en.value = 0
    dut.clear.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    mon = Mon(dut)
    cocotb.start_soon(mon.run())
    await ClockCycles(dut.clk, 2)
    return mon


async def run(dut, mon: Mon, lmin: int, lmax: int, rate: float, flows: int, count: int
              ) -> list[tuple[int, bytes]]:
    first = len(mon.frames)
    dut.cfg_len_min.value = lmin
    dut.cfg_len_max.value = lmax
    dut.cfg_rate.value = round(rate * 65536)
    dut.cfg_flows.value = flows
    dut.cfg_count.value = count
    dut.clear.value = 1
    await ClockCycles(dut.clk, 2)
    dut.clear.value = 0
    dut.en.value = 1
    for _ in range(200_000):
        await RisingEdge(dut.clk)
        if int(dut.sent_frames.value) == count and len(mon.frames) - first == count:
            break
    await ClockCycles(dut.clk, DELAY + 10)
    dut.en.value = 0
    await ClockCycles(dut.clk, 3)
    return mon.frames[first:]


def check_frames(frames: list[tuple[int, bytes]], lmin: int, lmax: int, flows: int) -> None:
    span = lmax - lmin + 1
    for i, (cyc, f) in enumerate(frames):
        assert len(f) == lmin + i % span, (i, len(f))
        p = Ether(f)
        assert IP in p and UDP in p, i
        ip, udp = p[IP], p[UDP]
        got = ip.chksum
        del ip.chksum
        assert IP(bytes(ip)).chksum == got, f"frame {i}: IPv4 checksum {got:#x}"
        flow = i % max(flows, 1)
        assert ip.src == f"10.0.{flow >> 8}.{flow & 255}" and ip.dst == "10.1.0.1"
        assert ip.len == len(f) - 14 and ip.id == i & 0xFFFF and ip.proto == 17
        assert udp.sport == 1024 + flow and udp.dport == PORT and udp.len == len(f) - 34
        assert int.from_bytes(f[42:50], "big") == i, f"frame {i}: sequence"
    ts = [int.from_bytes(f[50:58], "big") for _, f in frames]
    off = {c - t for (c, _), t in zip(frames, ts)}
    assert len(off) == 1, f"timestamps do not follow the first beats: {sorted(off)[:5]}"


async def check_counts(dut, frames: list[tuple[int, bytes]]) -> None:
    n = len(frames)
    kept = [i for i in range(n) if not DROP_N or i % DROP_N != DROP_N - 1]
    gaps = sum(1 for i in range(n) if DROP_N and i % DROP_N == DROP_N - 1 and i < kept[-1])
    assert int(dut.sent_frames.value) == n
    assert int(dut.sent_bytes.value) == sum(len(f) for _, f in frames)
    assert int(dut.frames.value) == len(kept), (int(dut.frames.value), len(kept))
    assert int(dut.bytes.value) == sum(len(frames[i][1]) for i in kept)
    assert int(dut.others.value) == 0 and int(dut.late.value) == 0
    assert int(dut.gaps.value) == gaps, (int(dut.gaps.value), gaps)
    assert int(dut.lat_min.value) == int(dut.lat_max.value) == DELAY + 1
    assert int(dut.lat_sum.value) == (DELAY + 1) * len(kept)


@cocotb.test()
async def back_to_back(dut):
    """64-byte frames (60 on the bus) with no rate limit, 16 flows: one beat a cycle, frames
    back to back with no idle cycle; the checker agrees."""
    mon = await setup(dut)
    b0 = mon.beats
    frames = await run(dut, mon, 60, 60, 0.0, 16, 1500)
    check_frames(frames, 60, 60, 16)
    await check_counts(dut, frames)
    beats = mon.beats - b0
    lat = frames[0][0] - mon.en_cycles[-1]
    assert lat == EN_TO_BEAT, f"first beat {lat} cycles after en, not {EN_TO_BEAT}"
    span = frames[-1][0] - frames[0][0] + -(-60 // KW)
    assert beats == span, f"{beats} beats in {span} cycles: the generator idled"
    dut._log.info("back to back %d bits: %d frames, %d beats in %d cycles", DATA_W, len(frames),
                  beats, span)


@cocotb.test()
async def line_rate_100g(dut):
    """The bucket at 100 Gbit/s at 322.265625 MHz (38.79 wire bytes a cycle): 64- and 1518-byte
    frames at 148.8 and 8.13 Mpps (within 0.5 %), when the bus can carry them."""
    mon = await setup(dut)
    rate = 100e9 / 8 / (CLOCK_MHZ * 1e6)
    for wire, mpps in ((64, 148.81), (1518, 8.127)):
        bus = wire - 4
        if -(-bus // KW) / (wire + 20) > 1 / rate:
            continue            # more beats than cycles: the bus is too narrow for 100G
        frames = await run(dut, mon, bus, bus, rate, 4, 600)
        check_frames(frames, bus, bus, 4)
        await check_counts(dut, frames)
        got = (len(frames) - 1) / (frames[-1][0] - frames[0][0]) * CLOCK_MHZ
        dut._log.info("line rate %d bits, %d bytes: %.2f Mpps (100G: %.2f)", DATA_W, wire, got,
                      mpps)
        assert abs(got / mpps - 1) < 0.005, got


@cocotb.test()
async def length_sweep(dut):
    """Lengths 60..200 sweeping, one flow, half the bus rate: every length, the checker
    agrees."""
    mon = await setup(dut)
    frames = await run(dut, mon, 60, 200, KW / 2, 1, 400)
    check_frames(frames, 60, 200, 1)
    await check_counts(dut, frames)

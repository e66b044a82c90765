"""cocotb tests of rtl/host/ts_clock.sv against wirespeed/model/ts.py.

One loop samples, every cycle, the time (ts_ns, ts_frac), the register port's wr_req (c0 of a
write) and rd_req; the model replays the writes from one sampled cycle on and must give the
time of every later cycle exactly (96 bits).
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from tb.block_csr.axil import OKAY, SLVERR, Axil, protocol_checker
from wirespeed.model import ts
from wirespeed.regmap import TS_CLOCK

R = TS_CLOCK.reg
MHZ_100G = 322.265625


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.t: dict[int, int] = {}
        self.writes: list[tuple[int, int, int, int]] = []
        self.reads: list[tuple[int, int]] = []
        self.pps_level: dict[int, int] = {}
        self.pps_drive = 0

    async def loop(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            d.pps.value = self.pps_drive
            self.pps_level[self.cycle] = self.pps_drive
            await ReadOnly()
            self.t[self.cycle] = int(d.ts_ns.value) << 32 | int(d.ts_frac.value)
            if int(d.wr_req.value):
                self.writes.append((self.cycle, int(d.wr_addr.value) * 4, int(d.wr_data.value),
                                    int(d.wr_strb.value)))
            if int(d.rd_req.value):
                self.reads.append((self.cycle, int(d.rd_addr.value) * 4))


async def setup(dut):
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.pps.value = 0
    axil = Axil(dut)
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    bench = Bench(dut)
    cocotb.start_soon(bench.loop())
    cocotb.start_soon(protocol_checker(dut))
    await ClockCycles(dut.clk, 2)
    return axil, bench


def check_replay(bench: Bench, t0: int, incr0: int, staging: ts.Staging) -> int:
    """Every sampled T(t), t > t0, equals the model's replay of the writes from T(t0)."""
    ev = ts.events([w for w in bench.writes if w[0] >= t0 - 10], staging)
    last = max(bench.t)
    want = ts.replay(t0, bench.t[t0], incr0, ev, last)
    for t in range(t0, last + 1):
        assert bench.t[t] == want[t], (f"cycle {t} (t0 {t0}): T = {bench.t[t]:#x}, model "
                                       f"{want[t]:#x} (ns {bench.t[t] >> 32} vs {want[t] >> 32})")
    return last - t0


async def write_incr(axil: Axil, incr: int) -> None:
    await axil.wr(R("INCR_FRAC"), incr & 0xFFFFFFFF)
    await axil.wr(R("INCR_NS"), incr >> 32)
    await axil.wr(R("CMD"), ts.CMD_INCR)


@cocotb.test()
async def registers(dut):
    """Reset values, INFO, strobes, SLVERR on read-only and unmapped addresses."""
    axil, bench = await setup(dut)
    assert await axil.rd(R("INFO")) == (2 << 24) | (8 << 16) | (32 << 8) | 1
    assert await axil.rd(R("INCR_NS")) == 4 and await axil.rd(R("INCR_FRAC")) == 0
    assert await axil.rd(R("CMD")) == 0
    await axil.wr(R("SET_LO"), 0x11223344)
    await axil.wr(R("SET_LO"), 0xAABBCCDD, strb=0b1010)
    assert await axil.rd(R("SET_LO")) == 0xAA22CC44
    await axil.wr(R("INCR_NS"), 0xFFFF)
    assert await axil.rd(R("INCR_NS")) == 0xFF        # INC_NS_W = 8
    for name in ("INFO", "TIME_LO", "TIME_HI", "TIME_FRAC", "PPS_LO", "PPS_HI", "PPS_FRAC",
                 "PPS_COUNT"):
        assert await axil.write(R(name), 1) == SLVERR, name
    for a in (0x02C, 0x040, 0x0FC, 0x800):
        assert await axil.write(a, 1) == SLVERR, hex(a)
        assert await axil.read(a) == (0, SLVERR), hex(a)
    # the time reads back as the cycle of the TIME_LO read's rd_req
    for _ in range(5):
        lo = await axil.rd(R("TIME_LO"))
        hi = await axil.rd(R("TIME_HI"))
        fr = await axil.rd(R("TIME_FRAC"))
        c = [c for c, a in bench.reads if a == R("TIME_LO")][-1]
        assert (hi << 64 | lo << 32 | fr) == bench.t[c], f"TIME read at cycle {c}"
        await ClockCycles(dut.clk, random.randint(0, 5))


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def accumulate_exact(dut):
    """Fractional accumulation over many cycles: 322.265625 MHz (3.1030303 ns), then random
    odd increments, each against the model bit for bit; the increment changes at exactly
    c0 + K_INC."""
    axil, bench = await setup(dut)
    rng = random.Random(29)
    staging = ts.Staging()
    t0 = bench.cycle
    incrs = [ts.incr_for_mhz(MHZ_100G), ts.incr_for_mhz(156.25), ts.incr_for_mhz(161.1328125)]
    incrs += [rng.getrandbits(40) | 1 for _ in range(4)] + [(255 << 32) | 0xFFFFFFFF, 1]
    for inc in incrs:
        await write_incr(axil, inc)
        await ClockCycles(dut.clk, rng.choice([3, 50, 4000]))
    await ClockCycles(dut.clk, 20000)
    n = check_replay(bench, t0, 4 << 32, staging)
    assert incrs[0] == 0x3_1A60_31A6, hex(incrs[0])
    # 322.265625 MHz: 3.1030303 ns per cycle as 32.32
    assert abs(incrs[0] / 2**32 - 1000 / MHZ_100G) < 2**-32
    dut._log.info("accumulate_exact: %d cycles, %d increments", n, len(incrs))


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def set_and_adjust(dut):
    """SET (T(c0 + K_SET) = value) and ADJUST (one step of I + ADJ at c0 + K_ADJ), positive
    and negative, alone and in one CMD with INCR; the time then advances exactly."""
    axil, bench = await setup(dut)
    rng = random.Random(7)
    staging = ts.Staging()
    t0 = bench.cycle
    await write_incr(axil, ts.incr_for_mhz(MHZ_100G))
    for k in range(12):
        op = rng.choice(["set", "adj", "adj", "both"])
        if op in ("set", "both"):
            v = rng.choice([rng.getrandbits(64), (1 << 64) - 1000, 1_700_000_000 * 10**9])
            await axil.wr(R("SET_LO"), v & 0xFFFFFFFF)
            await axil.wr(R("SET_HI"), v >> 32)
        if op in ("adj", "both"):
            a = rng.choice([rng.randint(-10**9, 10**9), -1, 1, rng.getrandbits(64)]) & ts.MASK64
            await axil.wr(R("ADJ_LO"), a & 0xFFFFFFFF)
            await axil.wr(R("ADJ_HI"), a >> 32)
        cmd = {"set": ts.CMD_SET, "adj": ts.CMD_ADJUST,
               "both": ts.CMD_SET | ts.CMD_ADJUST}[op]
        if k % 4 == 3:
            await axil.wr(R("INCR_FRAC"), rng.getrandbits(32))
            cmd |= ts.CMD_INCR
        await axil.wr(R("CMD"), cmd)
        await ClockCycles(dut.clk, rng.randint(8, 200))
    n = check_replay(bench, t0, 4 << 32, staging)
    # the boundaries themselves: each set shows its value at exactly c0 + K_SET
    sets = [c for c, a, d, s in bench.writes if a == R("CMD") and d & ts.CMD_SET]
    assert len(sets) >= 3
    dut._log.info("set_and_adjust: %d cycles, %d commands", n, len(sets))


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def pps_latch(dut):
    """PPS pulses at random cycles (and widths): each rising edge latches T(p + PPS_SYNC),
    read back whole through PPS_LO/HI/FRAC; PPS_COUNT counts rising edges only."""
    axil, bench = await setup(dut)
    rng = random.Random(5)
    await write_incr(axil, ts.incr_for_mhz(MHZ_100G))
    for k in range(10):
        await ClockCycles(dut.clk, rng.randint(5, 40))
        p = bench.cycle + 1          # the first cycle the pin is high
        bench.pps_drive = 1
        await ClockCycles(dut.clk, rng.randint(1, 30))
        bench.pps_drive = 0
        await ClockCycles(dut.clk, 8)
        p = min(c for c, v in bench.pps_level.items() if v and c >= p)
        lo = await axil.rd(R("PPS_LO"))
        hi = await axil.rd(R("PPS_HI"))
        fr = await axil.rd(R("PPS_FRAC"))
        assert (hi << 64 | lo << 32 | fr) == bench.t[p + ts.PPS_SYNC], f"pulse {k} at {p}"
        assert await axil.rd(R("PPS_COUNT")) == k + 1
    dut._log.info("pps_latch: 10 pulses")

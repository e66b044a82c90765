"""cocotb tests of rtl/control/allow_list.sv (IPv4 {src, dst} allow-list over AXI4-Lite, with
the pipelined lookup port: lookup_hit answers LOOKUP_LATENCY cycles after the pair).

The DUT's parameters come from the environment (set by test_allow_list.py): WS_ENTRIES,
WS_ADDR_W, WS_LOOKUP_LATENCY.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge

from tb.block_csr.axil import OKAY, SLVERR, Axil, protocol_checker

PERIOD_NS = 4
ENTRIES = int(os.environ.get("WS_ENTRIES", "64"))
ADDR_W = int(os.environ.get("WS_ADDR_W", "12"))
LAT = int(os.environ.get("WS_LOOKUP_LATENCY", "2"))
# A SRC/DST write (with no read accepted meanwhile): B is raised KEY_B cycles after the cycle
# both AW and W are present; the request is raised the cycle after (c0, from registers) and
# the old pair still hits through its entry for lookups presented up to cycle B - OLD_UNTIL
# (c1). The sequence forms 2 words of each of the NCHUNK tables (CHUNK_W 10: 7) from the
# ENTRIES keys, ENTRIES + 3 cycles a word.
NCHUNK = 7
KEY_B = 13 + 2 * NCHUNK * (ENTRIES + 3)
OLD_UNTIL = KEY_B - 2
# Simulated time limits grow with the write time (the tests are written for 64 entries)
TSCALE = max(1, ENTRIES // 64)


def allow_addr(i: int, field: int) -> int:
    """field: 0 SRC, 1 DST, 2 VALID."""
    return 16 * i + 4 * field


def lanes(strb: int) -> int:
    return sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)


async def setup(dut) -> Axil:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    dut.lookup_src.value = 0
    dut.lookup_dst.value = 0
    axil = Axil(dut, timeout=KEY_B + 64)  # a SRC/DST write answers after KEY_B cycles
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    cocotb.start_soon(protocol_checker(dut))
    return axil


async def hit(dut, src, dst) -> int:
    """lookup_hit for (src, dst): presented in one cycle, answered LAT cycles later."""
    dut.lookup_src.value = src
    dut.lookup_dst.value = dst
    for _ in range(LAT):
        await RisingEdge(dut.clk)
    await ReadOnly()
    v = int(dut.lookup_hit.value)
    await RisingEdge(dut.clk)
    return v


class Model:
    """Expected contents; SRC/DST start as None (not reset in hardware): define them first."""

    def __init__(self):
        self.src = [None] * ENTRIES
        self.dst = [None] * ENTRIES
        self.valid = [0] * ENTRIES

    def write(self, i, field, data, strb):
        m = lanes(strb)
        if field == 2:
            if strb & 1:
                self.valid[i] = data & 1
        elif m:
            arr = self.src if field == 0 else self.dst
            assert arr[i] is not None or m == 0xFFFFFFFF, "partial write to an undefined entry"
            arr[i] = ((arr[i] or 0) & ~m) | (data & m)

    def hit(self, s, t, skip=None) -> int:
        return int(any(self.valid[i] and self.src[i] == s and self.dst[i] == t
                       for i in range(ENTRIES) if i != skip))

    def copy(self) -> "Model":
        m = Model()
        m.src, m.dst, m.valid = list(self.src), list(self.dst), list(self.valid)
        return m


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=2000 * TSCALE, timeout_unit="us")
async def program_and_lookup(dut):
    """Programming, read-back, byte strobes, VALID, and the registered lookup_hit."""
    axil = await setup(dut)
    rng = random.Random(7)

    for i in range(ENTRIES):
        assert await axil.rd(allow_addr(i, 2)) == 0, "VALID resets to 0"
    assert await hit(dut, 0, 0) == 0
    idx = sorted({0, ENTRIES - 1, *rng.sample(range(ENTRIES), min(6, ENTRIES))})
    pairs = {i: (rng.getrandbits(32), rng.getrandbits(32)) for i in idx}
    for i, (s, t) in pairs.items():
        await axil.wr(allow_addr(i, 0), s)
        await axil.wr(allow_addr(i, 1), t)
    for i, (s, t) in pairs.items():
        assert await axil.rd(allow_addr(i, 0)) == s
        assert await axil.rd(allow_addr(i, 1)) == t
        assert await hit(dut, s, t) == 0, "entry not valid yet"
    for i in pairs:
        await axil.wr(allow_addr(i, 2), 0xFFFFFFFF)
        assert await axil.rd(allow_addr(i, 2)) == 1, "VALID reads bit 0 only"
    for i, (s, t) in pairs.items():
        assert await hit(dut, s, t) == 1, f"entry {i}"
        assert await hit(dut, s ^ 1, t) == 0
        assert await hit(dut, s, t ^ 0x80000000) == 0
        assert await hit(dut, t, s) == 0 or (t, s) in pairs.values()
    # byte strobes on SRC: change only byte 2
    i0 = idx[0]
    s, t = pairs[i0]
    await axil.wr(allow_addr(i0, 0), 0xA5A5A5A5, strb=0b0100)
    s2 = (s & ~0x00FF0000) | 0x00A50000
    assert await axil.rd(allow_addr(i0, 0)) == s2
    assert await hit(dut, s2, t) == 1
    await axil.wr(allow_addr(i0, 0), 0, strb=0)
    assert await axil.rd(allow_addr(i0, 0)) == s2
    # VALID = 0 disables the entry; lookup follows the write
    await axil.wr(allow_addr(i0, 2), 0)
    assert await hit(dut, s2, t) == 0
    await axil.wr(allow_addr(i0, 2), 1, strb=0)  # no byte lane: stays invalid
    assert await hit(dut, s2, t) == 0
    await axil.wr(allow_addr(i0, 2), 1, strb=0xE)  # not lane 0: stays invalid
    assert await hit(dut, s2, t) == 0
    last = idx[-1]
    if last != i0:
        assert await hit(dut, *pairs[last]) == 1
    # reset clears VALID (not the addresses)
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    for i, (s, t) in pairs.items():
        assert await axil.rd(allow_addr(i, 2)) == 0
        assert await hit(dut, s, t) == 0


@cocotb.test(timeout_time=2000 * TSCALE, timeout_unit="us")
async def lookup_follows_write(dut):
    """A VALID write takes effect in the lookup presented in the cycle its B is taken, answered
    LAT cycles later."""
    axil = await setup(dut)
    i = ENTRIES // 2
    await axil.wr(allow_addr(i, 0), 0x0A000001)
    await axil.wr(allow_addr(i, 1), 0x0A000002)
    dut.lookup_src.value = 0x0A000001
    dut.lookup_dst.value = 0x0A000002
    for v in (1, 0, 1, 0):
        await axil.wr(allow_addr(i, 2), v)
        for _ in range(LAT):
            await RisingEdge(dut.clk)
        await ReadOnly()
        assert int(dut.lookup_hit.value) == v
        await RisingEdge(dut.clk)


@cocotb.test(timeout_time=2000 * TSCALE, timeout_unit="us")
async def slverr(dut):
    """Offset 0xC of an entry, entries beyond ENTRIES: SLVERR on read and write, no effect."""
    axil = await setup(dut)
    await axil.wr(allow_addr(0, 0), 0x11111111)
    await axil.wr(allow_addr(0, 1), 0x22222222)
    await axil.wr(allow_addr(0, 2), 1)
    top = 1 << ADDR_W
    unmapped = [allow_addr(0, 3), allow_addr(ENTRIES - 1, 3), allow_addr(ENTRIES - 1, 3) + 3]
    if 16 * ENTRIES < top:
        unmapped += [allow_addr(ENTRIES, 0), allow_addr(ENTRIES, 2), top - 4, top - 16, top - 8]
        if 32 * ENTRIES <= top:
            unmapped += [16 * ENTRIES * 2 - 16]
    for a in unmapped:
        assert await axil.read(a) == (0, SLVERR), f"read 0x{a:04x}"
        assert await axil.write(a, 0xFFFFFFFF) == SLVERR, f"write 0x{a:04x}"
        assert await axil.write(a, 0xFFFFFFFF, strb=0) == SLVERR, f"write 0x{a:04x} strb 0"
    assert await axil.rd(allow_addr(0, 0)) == 0x11111111
    assert await axil.rd(allow_addr(0, 1)) == 0x22222222
    assert await axil.rd(allow_addr(0, 2)) == 1
    for i in range(1, ENTRIES):
        assert await axil.rd(allow_addr(i, 2)) == 0
    # address bits [1:0] are ignored
    assert await axil.rd(allow_addr(0, 0) + 3) == 0x11111111


@cocotb.test(timeout_time=2000 * TSCALE, timeout_unit="us")
async def handshake_orders(dut):
    """AW before W, W before AW, both together, slow B and R ready; reads during writes."""
    axil = await setup(dut)
    rng = random.Random(5)
    a = allow_addr(ENTRIES - 1, 1)
    for _ in range(60):
        v = rng.getrandbits(32)
        aw_delay, w_delay = rng.choice([(0, 0), (0, 3), (3, 0), (1, 7), (7, 1), (0, 1), (1, 0)])
        b_delay = rng.choice([0, 0, 1, 5])
        assert await axil.write(a, v, aw_delay=aw_delay, w_delay=w_delay, b_delay=b_delay) == OKAY
        assert await axil.read(a, r_delay=rng.choice([0, 0, 2, 6])) == (v, OKAY)
    await axil.wr(allow_addr(0, 0), 0x5)
    w = cocotb.start_soon(axil.write(a, 0x3, aw_delay=2, w_delay=4, b_delay=3))
    assert await axil.read(allow_addr(0, 0), r_delay=3) == (0x5, OKAY)
    assert await w == OKAY
    assert await axil.rd(a) == 0x3


@cocotb.test(timeout_time=4000 * TSCALE, timeout_unit="us")
async def random_against_model(dut):
    """Random writes (any field, any strobes, some unmapped), reads and lookups, against a
    Python model; a small address pool so entries collide and duplicate."""
    axil = await setup(dut)
    rng = random.Random(99)
    model = Model()
    pool = [rng.getrandbits(32) for _ in range(3)]
    top = 1 << ADDR_W
    for i in range(ENTRIES):  # define every address so reads are comparable
        for field in (0, 1):
            v = rng.choice(pool)
            await axil.wr(allow_addr(i, field), v)
            model.write(i, field, v, 0xF)
    for _ in range(600):
        op = rng.random()
        if op < 0.45:
            i = rng.randrange(ENTRIES)
            field = rng.choice([0, 1, 2, 2])
            data = rng.choice(pool) if field < 2 else rng.getrandbits(32)
            strb = rng.choice([0xF, 0xF, 0xF, rng.randrange(16)])
            assert await axil.write(allow_addr(i, field), data, strb=strb,
                                    b_delay=rng.choice([0, 0, 3])) == OKAY
            model.write(i, field, data, strb)
        elif op < 0.55:
            a = rng.choice([allow_addr(rng.randrange(ENTRIES), 3)]
                           + ([rng.randrange(16 * ENTRIES, top) & ~3] if 16 * ENTRIES < top else []))
            assert await axil.write(a, rng.getrandbits(32)) == SLVERR
        elif op < 0.75:
            i = rng.randrange(ENTRIES)
            field = rng.randrange(3)
            want = (model.src, model.dst, model.valid)[field][i]
            assert await axil.read(allow_addr(i, field), r_delay=rng.choice([0, 0, 4])) == (want, OKAY)
        else:
            s, t = rng.choice(pool), rng.choice(pool)
            assert await hit(dut, s, t) == model.hit(s, t), f"lookup {s:#x} {t:#x}"


@cocotb.test(timeout_time=4000 * TSCALE, timeout_unit="us")
async def lookups_every_cycle(dut):
    """A lookup in every cycle (pairs from a small pool, so the written pairs and the words
    they share are looked up all the time: port A and port B collide) while entries are
    rewritten, against the documented rule: a VALID write is seen by the lookups presented
    from its B cycle on; during a SRC/DST write of entry i the old pair hits through entry i
    up to the lookup presented KEY_B - OLD_UNTIL cycles after the write starts and the new pair
    from the B cycle; no other entry is disturbed."""
    axil = await setup(dut)
    rng = random.Random(1234)
    pool = [0x0A000001, 0x0A000002, 0x0A000102, 0xC0A80001, 0x0A000003]
    model = Model()
    n = min(ENTRIES, 6)
    for i in range(ENTRIES):
        for field in (0, 1):
            v = rng.choice(pool)
            await axil.wr(allow_addr(i, field), v)
            model.write(i, field, v, 0xF)
    for i in range(n):
        await axil.wr(allow_addr(i, 2), 1)
        model.write(i, 2, 1, 0xF)

    cycle = 0
    presented = {}   # cycle -> (src, dst)
    hits = {}        # cycle presented -> lookup_hit
    bcycles = []     # cycles in which a B is raised
    running = True

    async def drive():
        nonlocal cycle
        prev_b = 0
        while running:
            await RisingEdge(dut.clk)
            cycle += 1
            pair = (rng.choice(pool), rng.choice(pool))
            dut.lookup_src.value, dut.lookup_dst.value = pair
            presented[cycle] = pair
            await ReadOnly()
            hits[cycle - LAT] = int(dut.lookup_hit.value)
            b = int(dut.s_axil_bvalid.value)
            if b and not prev_b:
                bcycles.append(cycle)
            prev_b = b

    task = cocotb.start_soon(drive())
    await RisingEdge(dut.clk)
    writes = []  # (B cycle, field, entry, model before, model after)
    start = cycle + 2
    for _ in range(120):
        i = rng.randrange(n)
        field = rng.choice([0, 1, 2])
        data = rng.choice(pool) if field < 2 else rng.randrange(2)
        strb = rng.choice([0xF, 0xF, 0x3, 0xC]) if field < 2 else 0xF
        before = model.copy()
        nb = len(bcycles)
        assert await axil.write(allow_addr(i, field), data, strb=strb) == OKAY
        model.write(i, field, data, strb)
        assert len(bcycles) == nb + 1
        writes.append((bcycles[-1], field, i, before, model.copy()))
        for _ in range(rng.choice([0, 0, 1, 3])):
            await RisingEdge(dut.clk)
    for _ in range(LAT + 2):
        await RisingEdge(dut.clk)
    running = False
    await task
    end = cycle - LAT - 1

    checked = 0
    w = 0
    state = writes[0][3]
    for t in range(start, end):
        while w < len(writes) and t >= writes[w][0]:
            state = writes[w][4]
            w += 1
        s, d = presented[t]
        want = state.hit(s, d)
        if w < len(writes):
            b, field, i, before, after = writes[w]
            if field < 2 and b - KEY_B <= t < b:
                # entry i: the old pair up to b - OLD_UNTIL, then nothing until b
                other = before.hit(s, d, skip=i)
                mine = int(t <= b - OLD_UNTIL and before.valid[i] and before.src[i] == s
                           and before.dst[i] == d)
                want = other | mine
        assert hits[t] == want, f"lookup presented in cycle {t} {s:#x} {d:#x}: {hits[t]} (writes {writes[max(w-1,0)][:3]} {writes[w][:3] if w < len(writes) else None})"
        checked += 1
    dut._log.info("lookups_every_cycle: %d lookups checked around %d writes", checked, len(writes))


@cocotb.test(timeout_time=2000 * TSCALE, timeout_unit="us")
async def key_write_timing(dut):
    """A SRC/DST write: B exactly KEY_B cycles after the cycle AW and W are both present, one
    cycle later for each read accepted while it runs; the reads answer in their 4 cycles."""
    axil = await setup(dut)
    cycle = 0
    aws = []     # cycles of an AW handshake
    ws = []      # cycles of a W handshake
    bup = []     # cycles B is raised in
    ars = []     # cycles of an AR handshake
    rvs = []     # cycles R is raised in
    running = True

    async def mon():
        nonlocal cycle
        prev_b = prev_r = 0
        while running:
            await RisingEdge(dut.clk)
            cycle += 1
            await ReadOnly()
            if int(dut.s_axil_awvalid.value) and int(dut.s_axil_awready.value):
                aws.append(cycle)
            if int(dut.s_axil_wvalid.value) and int(dut.s_axil_wready.value):
                ws.append(cycle)
            if int(dut.s_axil_arvalid.value) and int(dut.s_axil_arready.value):
                ars.append(cycle)
            b, r = int(dut.s_axil_bvalid.value), int(dut.s_axil_rvalid.value)
            if b and not prev_b:
                bup.append(cycle)
            if r and not prev_r:
                rvs.append(cycle)
            prev_b, prev_r = b, r

    task = cocotb.start_soon(mon())
    await RisingEdge(dut.clk)  # the monitor samples every cycle the writes drive
    i = ENTRIES - 1
    await axil.wr(allow_addr(i, 0), 0x01020304)
    c0 = max(aws[-1], ws[-1])
    assert bup[-1] - c0 == KEY_B, f"B {bup[-1] - c0} cycles after c0"
    # the same with reads: VALID[i] (held by the write) and SRC[i] (still the old key early)
    for nreads in (1, 3):
        await axil.wr(allow_addr(i, 2), 1)
        n0 = len(ars)
        w = cocotb.start_soon(axil.write(allow_addr(i, 1), 0x0A0B0C0D))
        for k in range(nreads):
            for _ in range(5 + KEY_B // (nreads + 3)):
                await RisingEdge(dut.clk)
            assert await axil.read(allow_addr(i, 2 if k % 2 == 0 else 0)) == (
                (1, OKAY) if k % 2 == 0 else (0x01020304, OKAY))
        assert await w == OKAY
        c0 = max(aws[-1], ws[-1])
        assert len(ars) - n0 == nreads
        assert all(c0 < a < bup[-1] - 1 for a in ars[n0:])
        assert bup[-1] - c0 == KEY_B + nreads, f"B {bup[-1] - c0} cycles after c0"
        assert [r - a for a, r in zip(ars[n0:], rvs[-nreads:])] == [4] * nreads
    running = False
    await task
    await RisingEdge(dut.clk)
    assert await axil.rd(allow_addr(i, 1)) == 0x0A0B0C0D
    assert await axil.rd(allow_addr(i, 2)) == 1

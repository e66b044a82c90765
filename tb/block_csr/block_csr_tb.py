"""cocotb tests of rtl/control/block_csr.sv (the standard CSR window of a block: ID, PARAMS,
CONTROL, COUNTER_CLEAR, extra config registers, 64-bit outcome and TX counters).

The DUT's parameters come from the environment (set by test_block_csr.py): WS_ID, WS_PARAMS,
WS_NUM_OUTCOMES, WS_NUM_REGS, WS_REG_RESET, WS_REG_WMASK (hex), WS_ADDR_W.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from tb.block_csr import backdoor
from tb.block_csr.axil import OKAY, SLVERR, Axil, cnt_addr, protocol_checker

PERIOD_NS = 4
TX_SLOT = 16

ID_VALUE = int(os.environ.get("WS_ID", "0"), 0)
PARAMS_VALUE = int(os.environ.get("WS_PARAMS", "0"), 0)
NUM_OUTCOMES = int(os.environ.get("WS_NUM_OUTCOMES", "16"))
NUM_REGS = int(os.environ.get("WS_NUM_REGS", "1"))
REG_RESET = int(os.environ.get("WS_REG_RESET", "0"), 16)
REG_WMASK = int(os.environ.get("WS_REG_WMASK", "f" * (8 * NUM_REGS)), 16)
ADDR_W = int(os.environ.get("WS_ADDR_W", "12"))

SLOTS = list(range(NUM_OUTCOMES)) + [TX_SLOT]


def reg_addr(i: int) -> int:
    return 0x008 if i == 0 else 0x010 + 4 * (i - 1)


def reg_reset(i: int) -> int:
    return (REG_RESET >> (32 * i)) & 0xFFFFFFFF


def reg_wmask(i: int) -> int:
    return (REG_WMASK >> (32 * i)) & 0xFFFFFFFF


def lanes(strb: int) -> int:
    return sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)


def regs_out(dut, i: int) -> int:
    return (int(dut.regs.value) >> (32 * i)) & 0xFFFFFFFF


async def setup(dut) -> Axil:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    dut.stat_valid.value = 0
    dut.stat_outcome.value = 0
    dut.stat_len.value = 0
    dut.tx_valid.value = 0
    dut.tx_len.value = 0
    axil = Axil(dut)
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    cocotb.start_soon(protocol_checker(dut))
    return axil


async def inject(dut, events) -> None:
    """events: list of per-cycle tuples (stat or None, tx or None); stat=(outcome, len)."""
    for stat, tx in events:
        dut.stat_valid.value = int(stat is not None)
        if stat is not None:
            dut.stat_outcome.value, dut.stat_len.value = stat
        dut.tx_valid.value = int(tx is not None)
        if tx is not None:
            dut.tx_len.value = tx
        await RisingEdge(dut.clk)
    dut.stat_valid.value = 0
    dut.tx_valid.value = 0
    # counters show an event two edges after it is presented
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)


def set_counter(dut, slot: int, name: str, value: int) -> None:
    """Test-only preload of a counter ('pkts_q' or 'bytes_q') through the simulator."""
    backdoor.set_counter(dut, slot, name.removesuffix("_q"), value)


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def id_params_control(dut):
    """ID, PARAMS, CONTROL read/write, its output and writable mask, wstrb, COUNTER_CLEAR read,
    address bits [1:0] ignored."""
    axil = await setup(dut)
    assert await axil.rd(0x000) == ID_VALUE
    assert await axil.rd(0x004) == PARAMS_VALUE
    assert await axil.rd(0x008) == reg_reset(0)
    assert regs_out(dut, 0) == reg_reset(0)
    mask, rst = reg_wmask(0), reg_reset(0)
    rng = random.Random(3)
    for v in list(range(16)) + [0xFFFFFFF5, 0xA, 0xFFFFFFFF, 0] + [rng.getrandbits(32) for _ in range(8)]:
        await axil.wr(0x008, v)
        want = (v & mask) | (rst & ~mask)
        assert await axil.rd(0x008) == want, f"CONTROL wrote {v:#x}"
        assert regs_out(dut, 0) == want
    cur = want
    # WSTRB = 0 writes nothing; each byte lane alone
    await axil.wr(0x008, ~cur & 0xFFFFFFFF, strb=0)
    assert await axil.rd(0x008) == cur
    for strb in (0x1, 0x2, 0x4, 0x8, 0xE, 0x5):
        v = rng.getrandbits(32)
        await axil.wr(0x008, v, strb=strb)
        m = lanes(strb) & mask
        cur = (cur & ~m) | (v & m)
        assert await axil.rd(0x008) == cur, f"strb {strb:#x}"
    # address bits [1:0] are ignored
    assert await axil.rd(0x002) == ID_VALUE
    assert await axil.rd(0x007) == PARAMS_VALUE
    # COUNTER_CLEAR is write-only and reads 0
    assert await axil.read(0x00C) == (0, OKAY)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def extra_regs(dut):
    """Every config register: reset value (bus and `regs` port), masked writes with byte
    strobes, and a write to one register leaves the others alone."""
    axil = await setup(dut)
    rng = random.Random(21)
    model = [reg_reset(i) for i in range(NUM_REGS)]
    for i in range(NUM_REGS):
        assert await axil.rd(reg_addr(i)) == model[i], f"reg {i} reset"
        assert regs_out(dut, i) == model[i], f"regs[{i}] reset"
    order = list(range(NUM_REGS)) * 3
    rng.shuffle(order)
    for i in order:
        v = rng.getrandbits(32)
        strb = rng.choice([0xF, 0xF, 0x0, 0x1, 0x3, 0xC, rng.randrange(16)])
        await axil.wr(reg_addr(i), v, strb=strb)
        m = lanes(strb) & reg_wmask(i)
        model[i] = (model[i] & ~m) | (v & m)
        for j in {i, rng.randrange(NUM_REGS), 0, NUM_REGS - 1}:
            assert await axil.rd(reg_addr(j)) == model[j], f"reg {j} after write to reg {i}"
        for j in range(NUM_REGS):
            assert regs_out(dut, j) == model[j], f"regs[{j}] after write to reg {i}"
    # reset returns every register to its reset value
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    for i in range(NUM_REGS):
        assert await axil.rd(reg_addr(i)) == reg_reset(i), f"reg {i} after reset"


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def handshake_orders(dut):
    """AW before W, W before AW, both together, slow B and R ready; reads during writes."""
    axil = await setup(dut)
    rng = random.Random(5)
    a = reg_addr(NUM_REGS - 1)
    m = reg_wmask(NUM_REGS - 1)
    r = reg_reset(NUM_REGS - 1) & ~m
    for _ in range(60):
        v = rng.getrandbits(32)
        aw_delay, w_delay = rng.choice([(0, 0), (0, 3), (3, 0), (1, 7), (7, 1), (0, 1), (1, 0)])
        b_delay = rng.choice([0, 0, 1, 5])
        assert await axil.write(a, v, aw_delay=aw_delay, w_delay=w_delay, b_delay=b_delay) == OKAY
        data, resp = await axil.read(a, r_delay=rng.choice([0, 0, 2, 6]))
        assert (data, resp) == ((v & m) | r, OKAY)
    # a read and a write in flight together (independent channels)
    w = cocotb.start_soon(axil.write(a, 0x3, aw_delay=2, w_delay=4, b_delay=3))
    data, resp = await axil.read(0x000, r_delay=3)
    assert (data, resp) == (ID_VALUE, OKAY)
    assert await w == OKAY
    assert await axil.rd(a) == (0x3 & m) | r


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def slverr(dut):
    """Unmapped reads and writes, and writes to read-only registers, answer SLVERR and change
    nothing."""
    axil = await setup(dut)
    await axil.wr(0x008, 0x6)
    ctrl = await axil.rd(0x008)
    top = 1 << ADDR_W
    unmapped = [0x0FC, 0x0F0, 0x210, 0x214, 0x21C, 0x300, 0x3FC, top - 4, top - 0x100 + 0x008]
    if NUM_REGS < 61:
        unmapped += [reg_addr(NUM_REGS)]
    if NUM_OUTCOMES < 16:
        unmapped += [cnt_addr(NUM_OUTCOMES, 0), cnt_addr(NUM_OUTCOMES, 3), cnt_addr(15, 0), cnt_addr(15, 3)]
    if ADDR_W > 10:
        # aliases with address bits above 0x3FF set are not mapped (full decode)
        unmapped += [0x400, 0x400 + 0x008, 0x400 + cnt_addr(0, 0), (top >> 1) | 0x000, (top >> 1) | 0x200]
    mapped = {reg_addr(i) for i in range(NUM_REGS)}
    unmapped = sorted(set(unmapped) - mapped)
    for a in unmapped:
        assert await axil.read(a) == (0, SLVERR), f"read 0x{a:04x}"
        assert await axil.write(a, 0xFFFFFFFF) == SLVERR, f"write 0x{a:04x}"
    read_only = [0x000, 0x004, 0x001] + [cnt_addr(s, r) for s in sorted({0, NUM_OUTCOMES // 2, NUM_OUTCOMES - 1, TX_SLOT}) for r in range(4)]
    for a in read_only:
        assert await axil.write(a, 0x12345678) == SLVERR, f"RO write 0x{a:04x}"
        assert await axil.write(a, 0x12345678, strb=0) == SLVERR, f"RO write 0x{a:04x} strb 0"
    # nothing changed, and the slave still answers
    assert await axil.rd(0x000) == ID_VALUE
    assert await axil.rd(0x004) == PARAMS_VALUE
    assert await axil.rd(0x008) == ctrl
    for i in range(1, NUM_REGS):
        assert await axil.rd(reg_addr(i)) == reg_reset(i)
    for s in SLOTS:
        assert await axil.rd64(s, 0) == 0 and await axil.rd64(s, 1) == 0


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def counters_all(dut):
    """Random event streams on every outcome and on TX, every cycle or with gaps; every
    counter register read back."""
    axil = await setup(dut)
    rng = random.Random(11)
    pk = [0] * 17
    by = [0] * 17
    events = []
    for cyc in range(3000):
        stat = tx = None
        busy = cyc < 1000  # the first 1000 cycles carry an event in every cycle
        if busy or rng.random() < 0.5:
            o = rng.randrange(NUM_OUTCOMES)
            ln = rng.choice([0, 1, 60, 64, 1514, 9000, 0xFFFF, rng.randrange(1 << 16)])
            stat = (o, ln)
            pk[o] += 1
            by[o] += ln
        if busy or rng.random() < 0.5:
            ln = rng.randrange(1 << 16)
            tx = ln
            pk[TX_SLOT] += 1
            by[TX_SLOT] += ln
        events.append((stat, tx))
    await inject(dut, events)
    for s in SLOTS:
        assert await axil.rd64(s, 0) == pk[s], f"slot {s} packets"
        assert await axil.rd64(s, 1) == by[s], f"slot {s} bytes"
    # outcome codes above NUM_OUTCOMES-1 are not counted anywhere
    await inject(dut, [((o, 100), None) for o in range(NUM_OUTCOMES, 16)])
    for s in SLOTS:
        assert await axil.rd64(s, 0) == pk[s]
        assert await axil.rd64(s, 1) == by[s]


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def counters_64bit(dut):
    """Carry across 2^32: bytes with real events (65 538 frames of 65 535 bytes), packets by
    preloading the counter register; HI latched by the LO read."""
    axil = await setup(dut)
    n = 65538
    o = min(5, NUM_OUTCOMES - 1)
    dut.stat_outcome.value = o
    dut.stat_len.value = 0xFFFF
    dut.tx_len.value = 0xFFFF
    await RisingEdge(dut.clk)
    dut.stat_valid.value = 1
    dut.tx_valid.value = 1
    await ClockCycles(dut.clk, n)  # n rising edges sample the events
    dut.stat_valid.value = 0
    dut.tx_valid.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    want = n * 0xFFFF
    assert want > 1 << 32
    for s in (o, TX_SLOT):
        assert await axil.rd64(s, 1) == want, f"slot {s} bytes {want:#x}"
        assert await axil.rd64(s, 0) == n

    # packets: preload just below 2^32, then count across it
    p = NUM_OUTCOMES - 1
    set_counter(dut, p, "pkts_q", 0xFFFF_FFFE)
    await inject(dut, [((p, 10), None)] * 3)
    assert await axil.rd64(p, 0) == 0x1_0000_0001
    assert await axil.rd64(p, 1) == 30 + (want if p == o else 0)
    # and across 2^64 - 1 into the top of the TX bytes counter
    set_counter(dut, TX_SLOT, "bytes_q", 0xFFFF_FFFF_FFFF_0000)
    await inject(dut, [(None, 0xFFFF)])
    assert await axil.rd64(TX_SLOT, 1) == 0xFFFF_FFFF_FFFF_FFFF

    # the HI register returns the value latched by the last LO read of the same counter
    set_counter(dut, p, "bytes_q", 0x1111_2222_3333_4444)
    await RisingEdge(dut.clk)
    assert await axil.rd(cnt_addr(p, 2)) == 0x3333_4444
    set_counter(dut, p, "bytes_q", 0x5555_6666_7777_8888)
    await RisingEdge(dut.clk)
    # another counter's LO read, and this counter's PKTS_LO read, do not disturb this latch
    await axil.rd(cnt_addr(TX_SLOT, 2))
    await axil.rd(cnt_addr(p, 0))
    assert await axil.rd(cnt_addr(p, 3)) == 0x1111_2222
    assert await axil.rd(cnt_addr(p, 2)) == 0x7777_8888
    assert await axil.rd(cnt_addr(p, 3)) == 0x5555_6666
    # packets latch of slot p still holds 0x1 from the read above, also after its counter
    # moved and another counter's PKTS_LO was read
    set_counter(dut, p, "pkts_q", 0x7_0000_0000)
    await RisingEdge(dut.clk)
    await axil.rd(cnt_addr(TX_SLOT, 0))
    assert await axil.rd(cnt_addr(p, 1)) == 0x1
    assert await axil.rd(cnt_addr(p, 0)) == 0
    assert await axil.rd(cnt_addr(p, 1)) == 0x7


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def counter_clear(dut):
    """COUNTER_CLEAR zeroes every counter and latch; events around the clear are not lost:
    an event presented in cycle c is counted after the clear iff c >= (write cycle - 1).
    Config registers are not touched by the clear."""
    axil = await setup(dut)
    await axil.wr(0x008, 0xFFFFFFFF)
    ctrl = await axil.rd(0x008)
    await inject(dut, [((o, 100 + o), 50) for o in range(NUM_OUTCOMES)] * 3)
    o2 = min(2, NUM_OUTCOMES - 1)
    assert await axil.rd64(o2, 0) == 3
    await axil.rd(cnt_addr(o2, 0))  # leave something in a latch (0 here) and in TX's
    await axil.rd(cnt_addr(TX_SLOT, 2))
    assert await axil.write(0x00C, 0x0) == OKAY  # bit 0 clear: no effect
    assert await axil.write(0x00C, 0xFFFFFFFE) == OKAY  # bit 0 clear: no effect
    assert await axil.write(0x00C, 0x1, strb=0) == OKAY  # no byte lane: no effect
    assert await axil.write(0x00C, 0x1, strb=0xE) == OKAY  # not byte lane 0: no effect
    assert await axil.rd64(o2, 0) == 3
    assert await axil.rd64(TX_SLOT, 0) == 3 * NUM_OUTCOMES
    assert await axil.write(0x00C, 0x1) == OKAY
    for s in SLOTS:
        for r in range(4):
            assert await axil.rd(cnt_addr(s, r)) == 0, f"slot {s} reg {r}"
    assert await axil.rd(0x008) == ctrl

    # Events in every cycle around a clear write; stat_len = cycle number identifies them.
    d = dut
    o1 = min(1, NUM_OUTCOMES - 1)
    d.stat_outcome.value = o1
    d.stat_valid.value = 1
    d.s_axil_awaddr.value = 0x00C
    d.s_axil_wdata.value = 1
    d.s_axil_wstrb.value = 0xF
    d.s_axil_bready.value = 1
    write_cycle = None
    total = 30
    for c in range(total):
        d.stat_len.value = c + 1
        d.s_axil_awvalid.value = int(c == 10)
        d.s_axil_wvalid.value = int(c == 10)
        await RisingEdge(d.clk)
        if int(d.s_axil_awvalid.value) and int(d.s_axil_awready.value):
            write_cycle = c
    d.stat_valid.value = 0
    d.s_axil_awvalid.value = 0
    d.s_axil_wvalid.value = 0
    d.s_axil_bready.value = 0
    for _ in range(3):
        await RisingEdge(d.clk)
    assert write_cycle == 10
    kept = [c + 1 for c in range(total) if c >= write_cycle - 1]
    assert await axil.rd64(o1, 0) == len(kept)
    assert await axil.rd64(o1, 1) == sum(kept)


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def reads_under_load(dut):
    """A stat event and a tx event in every cycle (outcomes in runs: the same counter back to
    back, alternating, random) while counters are read over AXI4-Lite without pause: every
    64-bit value read (LO, then HI latched by it) is exactly the count of the events presented
    up to two cycles before its LO read's AR handshake; every read answers 3 cycles after
    AR."""
    axil = await setup(dut)
    rng = random.Random(17)
    cycle = 0
    cum = {c: ([0] * 17, [0] * 17) for c in (-3, -2, -1)}  # cycle -> (pkts, bytes) per slot,
                                                      # after the events presented in it
    ar_cycles = []      # AR handshake cycles
    r_cycles = []       # R handshake cycles
    running = True
    pk = [0] * 17
    by = [0] * 17
    pattern = []

    def next_outcome():
        if not pattern:
            kind = rng.choice(["run", "alt", "rand"])
            a, b = rng.randrange(NUM_OUTCOMES), rng.randrange(NUM_OUTCOMES)
            n = rng.randrange(1, 12)
            pattern.extend([a] * n if kind == "run" else [a, b] * n if kind == "alt"
                           else [rng.randrange(16) for _ in range(n)])
        return pattern.pop(0)

    async def traffic():
        nonlocal cycle
        while running:
            o = next_outcome()
            ln = rng.choice([0, 64, 1514, 0xFFFF, rng.randrange(1 << 16)])
            tl = rng.randrange(1 << 16)
            dut.stat_valid.value = 1
            dut.stat_outcome.value = o
            dut.stat_len.value = ln
            dut.tx_valid.value = 1
            dut.tx_len.value = tl
            if o < NUM_OUTCOMES:
                pk[o] += 1
                by[o] += ln
            pk[TX_SLOT] += 1
            by[TX_SLOT] += tl
            cum[cycle] = (list(pk), list(by))
            await RisingEdge(dut.clk)
            if int(dut.s_axil_arvalid.value) and int(dut.s_axil_arready.value):
                ar_cycles.append(cycle)
            if int(dut.s_axil_rvalid.value) and int(dut.s_axil_rready.value):
                r_cycles.append(cycle)
            cycle += 1
        dut.stat_valid.value = 0
        dut.tx_valid.value = 0

    task = cocotb.start_soon(traffic())
    await RisingEdge(dut.clk)
    checked = 0
    for _ in range(150):
        s = rng.choice(SLOTS)
        which = rng.randrange(2)
        n0 = len(ar_cycles)
        lo = await axil.rd(cnt_addr(s, 2 * which))
        ar = ar_cycles[n0]
        hi = await axil.rd(cnt_addr(s, 2 * which + 1))
        got = (hi << 32) | lo
        pks, bys = cum[ar - 3]
        want = (pks if which == 0 else bys)[s]
        assert got == want, f"slot {s} {'bytes' if which else 'packets'}: {got:#x}, want {want:#x} (AR cycle {ar})"
        checked += 1
    running = False
    await task
    for a, r in zip(ar_cycles, r_cycles):
        assert r - a == 3, f"AR in cycle {a}, R in cycle {r}"
    dut._log.info("reads_under_load: %d counters read under full traffic", checked)

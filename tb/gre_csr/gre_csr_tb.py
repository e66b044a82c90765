"""cocotb tests of rtl/control/gre_csr.sv (AXI4-Lite register file of gre_decap).

The register map is the one of docs/gre_decap.md. The AXI4-Lite master here is a small
hand-written one, so the tests control the order and timing of AW, W, B, AR and R.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

OKAY, SLVERR = 0, 2
ID_VALUE = 0x57534731
NUM_OUTCOMES = 14
TX_SLOT = 16
TIMEOUT = 64  # cycles any handshake may take before the test calls it a hang
PERIOD_NS = 4

DATA_W = int(os.environ.get("WS_DATA_W", "256"))
ALLOW_ENTRIES = int(os.environ.get("WS_ALLOW_ENTRIES", "64"))


def cnt_addr(slot: int, reg: int) -> int:
    """reg: 0 PKTS_LO, 1 PKTS_HI, 2 BYTES_LO, 3 BYTES_HI; slot 16 = TX."""
    return 0x100 + 16 * slot + 4 * reg


def allow_addr(i: int, field: int) -> int:
    """field: 0 SRC, 1 DST, 2 VALID."""
    return 0x1000 + 16 * i + 4 * field


class Axil:
    """Minimal AXI4-Lite master with per-channel delays. Every wait is bounded."""

    def __init__(self, dut):
        self.dut = dut
        for name in ("awvalid", "wvalid", "bready", "arvalid", "rready"):
            getattr(dut, f"s_axil_{name}").value = 0
        dut.s_axil_awaddr.value = 0
        dut.s_axil_awprot.value = 0
        dut.s_axil_wdata.value = 0
        dut.s_axil_wstrb.value = 0
        dut.s_axil_araddr.value = 0
        dut.s_axil_arprot.value = 0

    async def write(self, addr, data, strb=0xF, aw_delay=0, w_delay=0, b_delay=0) -> int:
        d = self.dut
        d.s_axil_awaddr.value = addr
        d.s_axil_wdata.value = data & 0xFFFFFFFF
        d.s_axil_wstrb.value = strb
        aw_done = w_done = False
        cyc = 0
        while not (aw_done and w_done):
            d.s_axil_awvalid.value = int(not aw_done and cyc >= aw_delay)
            d.s_axil_wvalid.value = int(not w_done and cyc >= w_delay)
            d.s_axil_bready.value = int(cyc >= b_delay)
            await RisingEdge(d.clk)
            if int(d.s_axil_awvalid.value) and int(d.s_axil_awready.value):
                aw_done = True
            if int(d.s_axil_wvalid.value) and int(d.s_axil_wready.value):
                w_done = True
            cyc += 1
            assert cyc < TIMEOUT + aw_delay + w_delay, f"write 0x{addr:04x}: AW/W hang"
        d.s_axil_awvalid.value = 0
        d.s_axil_wvalid.value = 0
        while True:
            d.s_axil_bready.value = int(cyc >= b_delay)
            await RisingEdge(d.clk)
            if int(d.s_axil_bvalid.value) and int(d.s_axil_bready.value):
                resp = int(d.s_axil_bresp.value)
                break
            cyc += 1
            assert cyc < TIMEOUT + b_delay, f"write 0x{addr:04x}: B hang"
        d.s_axil_bready.value = 0
        return resp

    async def read(self, addr, r_delay=0) -> tuple[int, int]:
        d = self.dut
        d.s_axil_araddr.value = addr
        d.s_axil_arvalid.value = 1
        cyc = 0
        while True:
            d.s_axil_rready.value = int(cyc >= r_delay)
            await RisingEdge(d.clk)
            cyc += 1
            if int(d.s_axil_arvalid.value) and int(d.s_axil_arready.value):
                break
            assert cyc < TIMEOUT, f"read 0x{addr:04x}: AR hang"
        d.s_axil_arvalid.value = 0
        while True:
            d.s_axil_rready.value = int(cyc >= r_delay)
            await RisingEdge(d.clk)
            if int(d.s_axil_rvalid.value) and int(d.s_axil_rready.value):
                out = (int(d.s_axil_rdata.value), int(d.s_axil_rresp.value))
                break
            cyc += 1
            assert cyc < TIMEOUT + r_delay, f"read 0x{addr:04x}: R hang"
        d.s_axil_rready.value = 0
        return out

    async def rd(self, addr) -> int:
        data, resp = await self.read(addr)
        assert resp == OKAY, f"read 0x{addr:04x}: resp {resp}"
        return data

    async def wr(self, addr, data, **kw) -> None:
        resp = await self.write(addr, data, **kw)
        assert resp == OKAY, f"write 0x{addr:04x}: resp {resp}"

    async def rd64(self, slot, which) -> int:
        """which: 0 packets, 1 bytes. LO first (latches HI), then HI."""
        lo = await self.rd(cnt_addr(slot, 2 * which))
        hi = await self.rd(cnt_addr(slot, 2 * which + 1))
        return (hi << 32) | lo


async def protocol_checker(dut):
    """B never precedes its AW and W; R never precedes its AR; valid holds until ready."""
    aw = w = b = ar = r = 0
    prev_b = prev_r = None
    while True:
        await RisingEdge(dut.clk)
        aw += int(dut.s_axil_awvalid.value) & int(dut.s_axil_awready.value)
        w += int(dut.s_axil_wvalid.value) & int(dut.s_axil_wready.value)
        ar += int(dut.s_axil_arvalid.value) & int(dut.s_axil_arready.value)
        bv, rv = int(dut.s_axil_bvalid.value), int(dut.s_axil_rvalid.value)
        if prev_b is not None and prev_b[0] and not prev_b[1]:
            assert bv and int(dut.s_axil_bresp.value) == prev_b[2], "B dropped or changed before ready"
        if prev_r is not None and prev_r[0] and not prev_r[1]:
            assert rv and int(dut.s_axil_rdata.value) == prev_r[2], "R dropped or changed before ready"
        assert b + bv <= min(aw, w), "B before AW and W"
        assert r + rv <= ar, "R before AR"
        bh = bv & int(dut.s_axil_bready.value)
        rh = rv & int(dut.s_axil_rready.value)
        prev_b = (bv, bh, int(dut.s_axil_bresp.value))
        prev_r = (rv, rh, int(dut.s_axil_rdata.value) if rv else 0)
        b += bh
        r += rh


async def setup(dut) -> Axil:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    dut.stat_valid.value = 0
    dut.stat_outcome.value = 0
    dut.stat_len.value = 0
    dut.tx_valid.value = 0
    dut.tx_len.value = 0
    dut.lookup_src.value = 0
    dut.lookup_dst.value = 0
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


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def id_params_control(dut):
    """ID, PARAMS, CONTROL read/write and its outputs, wstrb, COUNTER_CLEAR read."""
    axil = await setup(dut)
    assert await axil.rd(0x0000) == ID_VALUE
    assert await axil.rd(0x0004) == (ALLOW_ENTRIES << 16) | DATA_W
    assert await axil.rd(0x0008) == 0
    outs = ("ctrl_allow_enable", "ctrl_drop_pass", "ctrl_drop_punt", "ctrl_forward_malformed")
    for v in list(range(16)) + [0xFFFFFFF5, 0xA]:
        await axil.wr(0x0008, v)
        assert await axil.rd(0x0008) == v & 0xF
        for bit, name in enumerate(outs):
            assert int(getattr(dut, name).value) == (v >> bit) & 1, name
    # WSTRB = 0 writes nothing; a write without byte lane 0 does not touch bits 3:0
    await axil.wr(0x0008, 0x5, strb=0)
    assert await axil.rd(0x0008) == 0xA
    await axil.wr(0x0008, 0x5, strb=0xE)
    assert await axil.rd(0x0008) == 0xA
    # address bits [1:0] are ignored
    assert await axil.rd(0x0002) == ID_VALUE
    # COUNTER_CLEAR is write-only and reads 0
    assert await axil.read(0x000C) == (0, OKAY)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def handshake_orders(dut):
    """AW before W, W before AW, both together, slow B and R ready; reads during writes."""
    axil = await setup(dut)
    rng = random.Random(5)
    for n in range(60):
        v = rng.randrange(16)
        aw_delay, w_delay = rng.choice([(0, 0), (0, 3), (3, 0), (1, 7), (7, 1), (0, 1), (1, 0)])
        b_delay = rng.choice([0, 0, 1, 5])
        assert await axil.write(0x0008, v, aw_delay=aw_delay, w_delay=w_delay, b_delay=b_delay) == OKAY
        data, resp = await axil.read(0x0008, r_delay=rng.choice([0, 0, 2, 6]))
        assert (data, resp) == (v, OKAY)
    # a read and a write in flight together (independent channels)
    w = cocotb.start_soon(axil.write(0x0008, 0x3, aw_delay=2, w_delay=4, b_delay=3))
    data, resp = await axil.read(0x0000, r_delay=3)
    assert (data, resp) == (ID_VALUE, OKAY)
    assert await w == OKAY
    assert await axil.rd(0x0008) == 0x3


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def slverr(dut):
    """Unmapped reads and writes, and writes to read-only registers, answer SLVERR."""
    axil = await setup(dut)
    await axil.wr(0x0008, 0x6)
    unmapped = [0x0010, 0x0014, 0x00FC, 0x0100 + 16 * NUM_OUTCOMES, 0x0100 + 16 * 15 + 12,
                0x0210, 0x0300, 0x0FFC, 0x1000 + 16 * ALLOW_ENTRIES, 0x100C, 0x1000 + 16 * 3 + 12,
                0x2000, 0x4000, 0x8000, 0xFFFC]
    if ALLOW_ENTRIES < 256:
        unmapped.append(0x1FF0)
    for a in unmapped:
        assert await axil.read(a) == (0, SLVERR), f"read 0x{a:04x}"
        assert await axil.write(a, 0xFFFFFFFF) == SLVERR, f"write 0x{a:04x}"
    read_only = [0x0000, 0x0004] + [cnt_addr(s, r) for s in (0, 7, NUM_OUTCOMES - 1, TX_SLOT) for r in range(4)]
    for a in read_only:
        assert await axil.write(a, 0x12345678) == SLVERR, f"RO write 0x{a:04x}"
        assert await axil.write(a, 0x12345678, strb=0) == SLVERR, f"RO write 0x{a:04x} strb 0"
    # nothing changed, and the slave still answers
    assert await axil.rd(0x0000) == ID_VALUE
    assert await axil.rd(0x0004) == (ALLOW_ENTRIES << 16) | DATA_W
    assert await axil.rd(0x0008) == 0x6
    for s in (0, 7, TX_SLOT):
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
    for s in list(range(NUM_OUTCOMES)) + [TX_SLOT]:
        assert await axil.rd64(s, 0) == pk[s], f"slot {s} packets"
        assert await axil.rd64(s, 1) == by[s], f"slot {s} bytes"
    # outcome codes above NUM_OUTCOMES-1 are not counted anywhere
    await inject(dut, [((14, 100), None), ((15, 100), None)])
    for s in list(range(NUM_OUTCOMES)) + [TX_SLOT]:
        assert await axil.rd64(s, 0) == pk[s]


def counter_reg(dut, slot: int, name: str):
    """Handle of a counter flip-flop (test-only preload)."""
    return getattr(getattr(dut.g_cnt[slot], "g_impl"), name)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def counters_64bit(dut):
    """Carry across 2^32: bytes with real events (65 538 frames of 65 535 bytes), packets by
    preloading the counter register; HI latched by the LO read."""
    axil = await setup(dut)
    n = 65538
    dut.stat_outcome.value = 5
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
    for s in (5, TX_SLOT):
        assert await axil.rd64(s, 1) == want, f"slot {s} bytes {want:#x}"
        assert await axil.rd64(s, 0) == n

    # packets: preload just below 2^32, then count across it
    counter_reg(dut, 3, "pkts_q").value = 0xFFFF_FFFE
    await inject(dut, [((3, 10), None)] * 3)
    assert await axil.rd64(3, 0) == 0x1_0000_0001
    assert await axil.rd64(3, 1) == 30

    # the HI register returns the value latched by the last LO read of the same counter
    counter_reg(dut, 3, "bytes_q").value = 0x1111_2222_3333_4444
    await RisingEdge(dut.clk)
    assert await axil.rd(cnt_addr(3, 2)) == 0x3333_4444
    counter_reg(dut, 3, "bytes_q").value = 0x5555_6666_7777_8888
    await RisingEdge(dut.clk)
    # another counter's LO read does not disturb this latch
    await axil.rd(cnt_addr(4, 2))
    await axil.rd(cnt_addr(3, 0))
    assert await axil.rd(cnt_addr(3, 3)) == 0x1111_2222
    assert await axil.rd(cnt_addr(3, 2)) == 0x7777_8888
    assert await axil.rd(cnt_addr(3, 3)) == 0x5555_6666
    # packets latch of slot 3 still holds 0x1 from the read above
    assert await axil.rd(cnt_addr(3, 1)) == 0x1


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def counter_clear(dut):
    """COUNTER_CLEAR zeroes every counter and latch; events around the clear are not lost:
    an event presented in cycle c is counted after the clear iff c >= (write cycle - 1)."""
    axil = await setup(dut)
    await inject(dut, [((o, 100 + o), 50) for o in range(NUM_OUTCOMES)] * 3)
    assert await axil.rd64(2, 0) == 3
    await axil.rd(cnt_addr(2, 0))  # leave something in a latch
    assert await axil.write(0x000C, 0x0) == OKAY  # bit 0 clear: no effect
    assert await axil.write(0x000C, 0x1, strb=0) == OKAY  # no byte lane: no effect
    assert await axil.rd64(2, 0) == 3
    assert await axil.write(0x000C, 0x1) == OKAY
    for s in list(range(NUM_OUTCOMES)) + [TX_SLOT]:
        for r in range(4):
            assert await axil.rd(cnt_addr(s, r)) == 0, f"slot {s} reg {r}"

    # Events in every cycle around a clear write; stat_len = cycle number identifies them.
    d = dut
    d.stat_outcome.value = 1
    d.stat_valid.value = 1
    d.s_axil_awaddr.value = 0x000C
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
    assert await axil.rd64(1, 0) == len(kept)
    assert await axil.rd64(1, 1) == sum(kept)


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def allow_list(dut):
    """Programming, read-back, byte strobes, VALID, and the combinational lookup_hit."""
    axil = await setup(dut)
    rng = random.Random(7)

    async def hit(src, dst) -> int:
        dut.lookup_src.value = src
        dut.lookup_dst.value = dst
        await ReadOnly()  # combinational: same cycle
        v = int(dut.lookup_hit.value)
        await RisingEdge(dut.clk)
        return v

    for i in range(ALLOW_ENTRIES):
        assert await axil.rd(allow_addr(i, 2)) == 0, "VALID resets to 0"
    idx = sorted({0, ALLOW_ENTRIES - 1, *rng.sample(range(ALLOW_ENTRIES), min(6, ALLOW_ENTRIES))})
    pairs = {i: (rng.getrandbits(32), rng.getrandbits(32)) for i in idx}
    for i, (s, t) in pairs.items():
        await axil.wr(allow_addr(i, 0), s)
        await axil.wr(allow_addr(i, 1), t)
    for i, (s, t) in pairs.items():
        assert await axil.rd(allow_addr(i, 0)) == s
        assert await axil.rd(allow_addr(i, 1)) == t
        assert await hit(s, t) == 0, "entry not valid yet"
    for i in pairs:
        await axil.wr(allow_addr(i, 2), 0xFFFFFFFF)
        assert await axil.rd(allow_addr(i, 2)) == 1
    for i, (s, t) in pairs.items():
        assert await hit(s, t) == 1, f"entry {i}"
        assert await hit(s ^ 1, t) == 0
        assert await hit(s, t ^ 0x80000000) == 0
        assert await hit(t, s) == 0 or (t, s) in pairs.values()
    # byte strobes on SRC: change only byte 2
    i0 = idx[0]
    s, t = pairs[i0]
    await axil.wr(allow_addr(i0, 0), 0xA5A5A5A5, strb=0b0100)
    s2 = (s & ~0x00FF0000) | 0x00A50000
    assert await axil.rd(allow_addr(i0, 0)) == s2
    assert await hit(s2, t) == 1
    await axil.wr(allow_addr(i0, 0), 0, strb=0)
    assert await axil.rd(allow_addr(i0, 0)) == s2
    # VALID = 0 disables the entry; lookup follows the write
    await axil.wr(allow_addr(i0, 2), 0)
    assert await hit(s2, t) == 0
    await axil.wr(allow_addr(i0, 2), 1, strb=0)  # no byte lane: stays invalid
    assert await hit(s2, t) == 0
    # CONTROL.ALLOW_ENABLE does not gate the lookup itself (the datapath applies it)
    last = idx[-1]
    if last != i0:
        assert await hit(*pairs[last]) == 1

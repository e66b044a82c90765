"""cocotb tests of rtl/host/rss_hash.sv (Toeplitz RSS hash, hash types, symmetric mode,
indirection table, AXI4-Lite key and table) against the golden model wirespeed/model/rss.py.

Every output is checked against the model and at exactly LATENCY cycles after its tuple: a
single loop counts cycles, drives the tuple of each cycle and samples the outputs and the
register port's wr_req (the cycle a write is performed, c0 of docs/rss.md).

The DUT's parameters come from the environment (set by test_rss_hash.py): WS_TABLE_ENTRIES,
WS_QUEUE_W.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from tb.block_csr.axil import OKAY, SLVERR, Axil, protocol_checker
from wirespeed.model.rss import MS_KEY, FlowTuple, HashType, RssConfig, reverse, rss

PERIOD_NS = 4
ENTRIES = int(os.environ.get("WS_TABLE_ENTRIES", "128"))
QUEUE_W = int(os.environ.get("WS_QUEUE_W", "8"))
LATENCY = 10
# docs/rss.md: a key load performed in cycle c0 hashes the tuples of cycles >= c0 + KEY_FROM
# with the new key; an INDIR write in c0 reaches the tuples of cycles >= c0 + INDIR_FROM;
# DEFAULT_QUEUE the tuples of cycles >= c0 + DEFQ_FROM.
KEY_FROM = 36 * 256 + 2
INDIR_FROM = -5
DEFQ_FROM = -7
REBUILD_WAIT = 36 * 256 + 16

A_CTRL, A_DEFQ, A_KEY_CTRL, A_INFO, A_CNT_T, A_CNT_D = 0x00, 0x04, 0x08, 0x0C, 0x10, 0x14
A_KEY, A_INDIR = 0x40, 0x800
M32 = (1 << 32) - 1


def key_words(key: bytes) -> list[int]:
    return [int.from_bytes(key[4 * i:4 * i + 4], "big") for i in range(10)]


class Bench:
    """The clock loop: cycle numbers, the tuple driven in each cycle, outputs and writes."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.source = None          # callable(cycle) -> (flags, FlowTuple-ish) or None
        self.inputs: dict[int, tuple] = {}
        self.outputs: dict[int, tuple[int, int, int]] = {}
        self.writes: list[tuple[int, int, int, int]] = []   # (c0, byte address, data, strb)
        self.running = True

    def drive(self, item):
        d = self.dut
        if item is None:
            d.in_valid.value = 0
            return
        v4, v6, tcp, udp, src, dst, sp, dp = item
        d.in_valid.value = 1
        d.in_ipv4.value, d.in_ipv6.value, d.in_tcp.value, d.in_udp.value = v4, v6, tcp, udp
        d.in_src.value, d.in_dst.value = src, dst
        d.in_sport.value, d.in_dport.value = sp, dp

    async def loop(self):
        d = self.dut
        while self.running:
            await RisingEdge(d.clk)
            self.cycle += 1
            item = self.source(self.cycle) if self.source else None
            self.drive(item)
            if item is not None:
                self.inputs[self.cycle] = item
            await ReadOnly()
            if int(d.out_valid.value):
                self.outputs[self.cycle] = (int(d.out_hash.value), int(d.out_type.value),
                                            int(d.out_queue.value))
            if int(d.wr_req.value):
                self.writes.append((self.cycle, int(d.wr_addr.value) * 4,
                                    int(d.wr_data.value), int(d.wr_strb.value)))

    async def idle(self, n=LATENCY + 2):
        src, self.source = self.source, None
        await ClockCycles(self.dut.clk, n)
        self.source = src


def to_tuple(item) -> FlowTuple:
    """The model's view of the RTL's flags: L3 only if exactly one of v4/v6, L4 likewise."""
    v4, v6, tcp, udp, src, dst, sp, dp = item
    l3 = 4 if v4 and not v6 else 6 if v6 and not v4 else 0
    l4 = 6 if tcp and not udp else 17 if udp and not tcp else 0
    if l3 == 4:
        src, dst = src & M32, dst & M32
    if l4 == 0:
        sp = dp = 0
    return FlowTuple(l3, l4, src, dst, sp, dp)


def random_item(rng: random.Random, bad: float = 0.05):
    """Random flags and fields (the bits an IPv4 tuple ignores are random too)."""
    r = rng.random()
    if r < bad:
        v4, v6 = rng.choice([(0, 0), (1, 1)])
    else:
        v4 = int(rng.random() < 0.5)
        v6 = 1 - v4
    tcp, udp = rng.choice([(1, 0), (0, 1), (0, 0), (1, 0), (0, 1), (1, 1)])
    a = rng.getrandbits(128)
    b = rng.getrandbits(128) if rng.random() < 0.9 else a     # same address both ways
    return (v4, v6, tcp, udp, a, b, rng.getrandbits(16), rng.getrandbits(16))


async def setup(dut) -> tuple[Axil, Bench]:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    dut.in_valid.value = 0
    for n in ("in_ipv4", "in_ipv6", "in_tcp", "in_udp", "in_src", "in_dst", "in_sport",
              "in_dport"):
        getattr(dut, n).value = 0
    axil = Axil(dut)
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    bench = Bench(dut)
    cocotb.start_soon(bench.loop())
    cocotb.start_soon(protocol_checker(dut))
    await RisingEdge(dut.clk)
    return axil, bench


async def wait_rebuild(axil: Axil, bench: Bench):
    await ClockCycles(bench.dut.clk, REBUILD_WAIT)
    assert await axil.rd(A_KEY_CTRL) & 1 == 0, "rebuild still busy"


async def write_table(axil: Axil, table: list[int]):
    for i, q in enumerate(table):
        await axil.wr(A_INDIR + 4 * i, q)


async def load_key(axil: Axil, key: bytes):
    for i, w in enumerate(key_words(key)):
        await axil.wr(A_KEY + 4 * i, w)
    await axil.wr(A_KEY_CTRL, 1)


def check_all(bench: Bench, expect) -> int:
    """Every input answered at exactly +LATENCY, nothing else out; expect(cycle, item) gives
    the model's RssResult."""
    want_cycles = {c + LATENCY for c in bench.inputs}
    got = {c for c in bench.outputs if c - LATENCY >= min(bench.inputs, default=0)}
    assert got == want_cycles, f"outputs at {sorted(got ^ want_cycles)[:8]}: not LATENCY after a tuple"
    for c, item in sorted(bench.inputs.items()):
        r = expect(c, item)
        out = bench.outputs[c + LATENCY]
        assert out == (r.hash, int(r.htype), r.queue), \
            f"tuple of cycle {c} {item}: got {out}, model {(hex(r.hash), r.htype.name, r.queue)}"
    return len(bench.inputs)


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def registers(dut):
    """Reset values, INFO, strobes, SLVERR, INDIR read-back, the rebuild after reset."""
    axil, bench = await setup(dut)
    assert await axil.rd(A_KEY_CTRL) & 1 == 1, "reset starts a rebuild"
    assert await axil.rd(A_CTRL) == 0x3F
    assert await axil.rd(A_DEFQ) == 0
    assert await axil.rd(A_INFO) == (LATENCY << 24) | (QUEUE_W << 16) | ENTRIES
    for i, w in enumerate(key_words(MS_KEY)):
        assert await axil.rd(A_KEY + 4 * i) == w
    assert await axil.rd(A_CNT_T) == 0 and await axil.rd(A_CNT_D) == 0
    # strobes
    await axil.wr(A_KEY + 8, 0xA1B2C3D4, strb=0b0101)
    w2 = key_words(MS_KEY)[2]
    assert await axil.rd(A_KEY + 8) == (w2 & 0xFF00FF00) | 0x00B200D4
    await axil.wr(A_KEY + 8, w2)
    await axil.wr(A_CTRL, 0x1FF, strb=0b0010)
    assert await axil.rd(A_CTRL) == 0x13F
    await axil.wr(A_CTRL, 0x005, strb=0b0001)
    assert await axil.rd(A_CTRL) == 0x105
    await axil.wr(A_CTRL, 0x3F)
    qmask = (1 << QUEUE_W) - 1
    await axil.wr(A_DEFQ, 0xFFFFFFFF)
    assert await axil.rd(A_DEFQ) == qmask
    await axil.wr(A_DEFQ, 0)
    # the indirection table
    rng = random.Random(1)
    idx = sorted({0, ENTRIES - 1, *rng.sample(range(ENTRIES), min(8, ENTRIES))})
    vals = {i: rng.getrandbits(QUEUE_W) for i in idx}
    for i, v in vals.items():
        await axil.wr(A_INDIR + 4 * i, v | 0xFFFF0000)
    for i, v in vals.items():
        assert await axil.rd(A_INDIR + 4 * i) == v
    i0 = idx[0]
    await axil.wr(A_INDIR + 4 * i0, vals[i0] ^ 1, strb=0b1110)   # lane 0 missing: no change
    assert await axil.rd(A_INDIR + 4 * i0) == vals[i0]
    # SLVERR: read-only registers written, unmapped addresses
    for a in (A_INFO, A_CNT_T, A_CNT_D):
        assert await axil.write(a, 1) == SLVERR
    unmapped = [0x18, 0x3C, 0x68, 0x7FC, 0xFFC if ENTRIES < 512 else 0x7F0]
    if ENTRIES < 512:
        unmapped.append(A_INDIR + 4 * ENTRIES)
    for a in unmapped:
        assert await axil.read(a) == (0, SLVERR), hex(a)
        assert await axil.write(a, 0xFFFFFFFF) == SLVERR, hex(a)
    assert await axil.rd(A_INFO) >> 24 == LATENCY
    await wait_rebuild(axil, bench)
    bank = await axil.rd(A_KEY_CTRL) >> 1 & 1
    assert bank == 1, "the first rebuild flips the bank"
    # KEY_CTRL without bit 0 (or without lane 0) starts nothing
    await axil.wr(A_KEY_CTRL, 0)
    await axil.wr(A_KEY_CTRL, 1, strb=0b1110)
    assert await axil.rd(A_KEY_CTRL) == bank << 1


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def microsoft_table(dut):
    """Microsoft's verification examples (standard key) through the RTL: IPv4 and IPv6, the
    2-tuple and the TCP 4-tuple, in consecutive cycles."""
    from tb.model.test_rss_model import MS_CASES
    axil, bench = await setup(dut)
    await wait_rebuild(axil, bench)
    table = [i & ((1 << QUEUE_W) - 1) for i in range(ENTRIES)]
    await write_table(axil, table)
    n = 0
    for ht in (HashType.IPV4, HashType.TCP_IPV4, HashType.IPV6, HashType.TCP_IPV6):
        en = 1 << (ht - 1)
        await axil.wr(A_CTRL, en)
        await bench.idle()
        bench.inputs.clear()
        bench.outputs.clear()
        cases = [(t, h) for t, k, h in MS_CASES if k == ht]
        items = [(int(t.l3 == 4), int(t.l3 == 6), 1, 0, t.src, t.dst, t.sport, t.dport)
                 for t, _ in cases]
        start = bench.cycle + 2
        bench.source = lambda c: items[c - start] if start <= c < start + len(items) else None
        await ClockCycles(dut.clk, len(items) + LATENCY + 4)
        bench.source = None
        for k, (t, h) in enumerate(cases):
            out = bench.outputs[start + k + LATENCY]
            assert out == (h, int(ht), table[h & (ENTRIES - 1)]), (ht.name, k, hex(out[0]), hex(h))
        cfg = RssConfig(enables=en, table=table)
        n += check_all(bench, lambda c, item: rss(to_tuple(item), cfg))
    dut._log.info("microsoft_table: %d examples checked", n)


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def random_traffic(dut):
    """Random tuples with random idle cycles, in phases of random enables, symmetric mode,
    default queue and key, every output against the model at exactly LATENCY cycles."""
    axil, bench = await setup(dut)
    rng = random.Random(2024)
    await wait_rebuild(axil, bench)
    checked = 0
    for phase in range(4):
        key = MS_KEY if phase == 0 else bytes(rng.getrandbits(8) for _ in range(40))
        table = [rng.getrandbits(QUEUE_W) for _ in range(ENTRIES)]
        en = 0x3F if phase == 0 else rng.getrandbits(6)
        sym = phase % 2 == 1
        defq = rng.getrandbits(QUEUE_W)
        if key != MS_KEY:
            await load_key(axil, key)
            await wait_rebuild(axil, bench)
        await write_table(axil, table)
        await axil.wr(A_CTRL, en | sym << 8)
        await axil.wr(A_DEFQ, defq)
        await bench.idle()
        bench.inputs.clear()
        bench.outputs.clear()
        idle = rng.choice([0.0, 0.3])
        bench.source = lambda c: None if rng.random() < idle else random_item(rng, bad=0.08)
        await ClockCycles(dut.clk, 400)
        bench.source = None
        await ClockCycles(dut.clk, LATENCY + 2)
        cfg = RssConfig(key=key, enables=en, symmetric=sym, table=table, default_queue=defq)
        checked += check_all(bench, lambda c, item: rss(to_tuple(item), cfg))
    # the counters: every tuple out since reset, the NONE ones apart
    tot = await axil.rd(A_CNT_T)
    dft = await axil.rd(A_CNT_D)
    assert tot >= checked and 0 < dft < tot
    dut._log.info("random_traffic: %d tuples checked", checked)


@cocotb.test(timeout_time=20000, timeout_unit="us")
async def symmetric_both_directions(dut):
    """Symmetric mode: each flow and its reverse, back to back, give one hash and one queue
    (and the model's); without it the two directions differ."""
    axil, bench = await setup(dut)
    rng = random.Random(77)
    await wait_rebuild(axil, bench)
    table = [rng.getrandbits(QUEUE_W) for _ in range(ENTRIES)]
    await write_table(axil, table)
    flows = []
    for i in range(150):
        it = random_item(rng, bad=0.0)
        if i % 7 == 0:      # one address both ways: the ports decide
            it = (*it[:4], it[4], it[4], it[6], it[7])
        v4, v6, tcp, udp, a, b, sp, dp = it
        flows += [it, (v4, v6, tcp, udp, b, a, dp, sp)]
    for sym in (True, False):
        await axil.wr(A_CTRL, 0x3F | sym << 8)
        await bench.idle()
        bench.inputs.clear()
        bench.outputs.clear()
        start = bench.cycle + 2
        bench.source = lambda c: flows[c - start] if start <= c < start + len(flows) else None
        await ClockCycles(dut.clk, len(flows) + LATENCY + 4)
        bench.source = None
        cfg = RssConfig(symmetric=sym, table=table)
        check_all(bench, lambda c, item: rss(to_tuple(item), cfg))
        outs = [bench.outputs[start + k + LATENCY] for k in range(len(flows))]
        same = sum(outs[2 * i] == outs[2 * i + 1] for i in range(len(flows) // 2))
        if sym:
            assert same == len(flows) // 2
        else:
            assert same < len(flows) // 8
        t = to_tuple(flows[0])
        assert (rss(t, cfg).hash == rss(reverse(t), cfg).hash) == sym
    dut._log.info("symmetric_both_directions: %d flows both ways", len(flows) // 2)


@cocotb.test(timeout_time=40000, timeout_unit="us")
async def rewrites_mid_stream(dut):
    """A tuple in most cycles while the indirection table, DEFAULT_QUEUE and the key are
    rewritten: each tuple sees exactly the writes performed up to the documented cycle (an
    INDIR write in c0 from the tuple of c0 + INDIR_FROM on, DEFAULT_QUEUE from c0 + DEFQ_FROM,
    a key load from c0 + KEY_FROM on; a load during a rebuild restarts it). No tuple sees a
    mixed key."""
    axil, bench = await setup(dut)
    rng = random.Random(31337)
    await wait_rebuild(axil, bench)
    table0 = [rng.getrandbits(QUEUE_W) for _ in range(ENTRIES)]
    await write_table(axil, table0)
    await axil.wr(A_CTRL, 0x3F | 1 << 8)
    await bench.idle()
    bench.inputs.clear()
    bench.outputs.clear()
    bench.writes.clear()
    # few flows (two of them unknown: the default queue), and the entries rewritten are the
    # ones they read, so every rule is hit at its boundary cycle (port A and B collide too)
    flows = [random_item(rng, bad=0.0) for _ in range(4)]
    flows += [(0, 0, 1, 0, 1, 2, 3, 4), (1, 1, 0, 1, 5, 6, 7, 8)]
    bench.source = lambda c: None if rng.random() < 0.1 else rng.choice(flows)
    cur_key = MS_KEY
    for step in range(3):
        hit = sorted({rss(to_tuple(f), RssConfig(key=cur_key, symmetric=True,
                                                 table=[0] * ENTRIES)).hash & (ENTRIES - 1)
                      for f in flows[:4]})
        for _ in range(80):
            if rng.random() < 0.35:
                await axil.wr(A_DEFQ, rng.getrandbits(QUEUE_W), b_delay=rng.choice([0, 2]))
            else:
                await axil.wr(A_INDIR + 4 * rng.choice(hit), rng.getrandbits(QUEUE_W))
            await ClockCycles(dut.clk, rng.choice([0, 1, 3]) + 1)
        key = bytes(rng.getrandbits(8) for _ in range(40))
        await load_key(axil, key)
        if step == 1:
            # a second load during the rebuild: restarts it with another key
            await ClockCycles(dut.clk, 3000)
            key = bytes(rng.getrandbits(8) for _ in range(40))
            await load_key(axil, key)
        cur_key = key
        await ClockCycles(dut.clk, KEY_FROM + 50)
    bench.source = None
    await ClockCycles(dut.clk, LATENCY + 2)

    # The state each tuple sees, from the writes' cycles
    loads = [c for c, a, d, s in bench.writes if a == A_KEY_CTRL and s & 1 and d & 1]
    # a load restarted by the next one before it took effect never applies
    applied = [c for k, c in enumerate(loads) if k + 1 == len(loads) or loads[k + 1] >= c + KEY_FROM]
    key_of_load = {}
    staged = list(key_words(MS_KEY))
    for c, a, d, s in bench.writes:
        if A_KEY <= a < A_KEY + 40:
            staged[(a - A_KEY) // 4] = d
        if c in loads:
            key_of_load[c] = b"".join(w.to_bytes(4, "big") for w in staged)
    assert len(applied) == 3 and len(loads) == 4

    def expect(c, item):
        key = MS_KEY
        for lc in applied:
            if c >= lc + KEY_FROM:
                key = key_of_load[lc]
        table = list(table0)
        defq = 0
        for wc, a, d, s in bench.writes:
            if A_INDIR <= a < A_INDIR + 4 * ENTRIES and c >= wc + INDIR_FROM:
                table[(a - A_INDIR) // 4] = d & ((1 << QUEUE_W) - 1)
            if a == A_DEFQ and c >= wc + DEFQ_FROM:
                defq = d & ((1 << QUEUE_W) - 1)
        return rss(to_tuple(item), RssConfig(key=key, symmetric=True, table=table,
                                             default_queue=defq))

    n = check_all(bench, expect)
    dut._log.info("rewrites_mid_stream: %d tuples checked around %d writes, %d key loads",
                  n, len(bench.writes), len(loads))

"""cocotb tests of rtl/control/hash_table.sv against wirespeed/table.py.

One coroutine (`Bench._run`) does everything that happens per clock cycle: it is the AXI4-Lite
master (a queue of writes and a queue of reads, each channel a small state machine), drives
the lookup port from a key source, and samples the lookup results and the AXI handshakes.
One await per cycle keeps the 16K-entry runs fast, and every event carries the number of the
clock edge it happened at, so the checks can be exact:

* lookup presented for edge L  ->  result sampled at edge L + LOOKUP_LATENCY, every time;
* write n: AW handshake at edge A[n], B handshake at edge B[n]. A lookup presented for edge L
  sees the state after write n's command when B[n] <= L (the RTL answers B only after the
  slot is written), the state before it when L < A[n], either in between.

Values read right after `await RisingEdge` are the ones the DUT sampled at that edge.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Optional

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import Event, RisingEdge, Timer

from wirespeed.table import (
    LOOKUP_LATENCY, OP_DELETE, OP_READ, OP_WRITE, TBL_CMD, TBL_COUNT, TBL_INFO, TBL_KEY,
    TBL_SLOT, TBL_STATUS, TBL_VALUE, TBL_VALUE_W, HashTable, Slot, TableFullError,
    bucket_indices,
)

OKAY, SLVERR = 0, 2
PERIOD_NS = 4
TIMEOUT = 64  # cycles a handshake may take before the bench calls it a hang

KEY_W = int(os.environ.get("WS_KEY_W", "45"))
VALUE_W = int(os.environ.get("WS_VALUE_W", "214"))
SLOTS = int(os.environ.get("WS_SLOTS", "256"))
ADDR_W = int(os.environ.get("WS_ADDR_W", "12"))
FULL_N = int(os.environ.get("WS_FULL_N", "0"))
# The build's LOOKUP_LATENCY parameter (the RTL's default is wirespeed.table's).
LATENCY = int(os.environ.get("WS_LOOKUP_LATENCY", str(LOOKUP_LATENCY)))
BUCKETS = SLOTS // 8
KEY_WORDS = (KEY_W + 31) // 32
VALUE_WORDS = (VALUE_W + 31) // 32
KMASK = (1 << KEY_W) - 1
VMASK = (1 << VALUE_W) - 1


def pattern(key: int, version: int) -> int:
    """A recognizable value per (key, version): every 32-bit word depends on both, so a slot
    mixing two writes could not be mistaken for one of them."""
    v = 0
    for i in range(VALUE_WORDS):
        x = (key * 0x9E3779B97F4A7C15 + version * 0xC2B2AE3D27D4EB4F + i * 0x165667B1) & (2**64 - 1)
        x ^= x >> 29
        x = (x * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        x ^= x >> 32
        v |= (x & 0xFFFFFFFF) << (32 * i)
    return v & VMASK


@dataclass
class WriteOp:
    addr: int
    data: int
    strb: int = 0xF
    aw_delay: int = 0
    w_delay: int = 0
    b_delay: int = 0
    idx: int = -1
    t: int = 0
    aw_done: bool = False
    w_done: bool = False
    resp: Optional[int] = None
    a_edge: int = -1
    b_edge: int = -1
    event: Optional[Event] = None


@dataclass
class ReadOp:
    addr: int
    r_delay: int = 0
    t: int = 0
    ar_done: bool = False
    data: Optional[int] = None
    resp: Optional[int] = None
    event: Optional[Event] = field(default=None)


@dataclass
class Result:
    edge: int    # L: the edge the lookup was presented at
    key: int
    hit: bool
    value: int
    n_aw: int    # AW handshakes at edges <= L
    n_b: int     # B handshakes at edges <= L


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.rst_left = 0
        self.wq: deque[WriteOp] = deque()
        self.wcur: Optional[WriteOp] = None
        self.writes: list[WriteOp] = []
        self.n_aw = 0
        self.n_b = 0
        self.rq: deque[ReadOp] = deque()
        self.rcur: Optional[ReadOp] = None
        self.source: Optional[Callable[[], Optional[int]]] = None
        self.pending: deque[tuple[int, int, int, int]] = deque()
        self.results: list[Result] = []
        self.keep_results = True
        self.axi = True   # False: leave the AXI signals to another master
        self._drv: dict[str, int] = {}
        self._idle_wait: list[tuple[int, Event]] = []

    # -- signal driving (only on change: writes are the expensive part) --------------------

    def _set(self, name: str, value: int) -> None:
        if self._drv.get(name) != value:
            self._drv[name] = value
            getattr(self.dut, name).value = value

    def start(self) -> None:
        Clock(self.dut.clk, PERIOD_NS, unit="ns").start()
        for name in ("rst", "lk_valid", "lk_key", "s_axil_awaddr", "s_axil_awprot",
                     "s_axil_awvalid", "s_axil_wdata", "s_axil_wstrb", "s_axil_wvalid",
                     "s_axil_bready", "s_axil_araddr", "s_axil_arprot", "s_axil_arvalid",
                     "s_axil_rready"):
            self._set(name, 0)
        cocotb.start_soon(self._run())

    # -- the per-cycle loop ----------------------------------------------------------------

    async def _run(self) -> None:
        d = self.dut
        edge = RisingEdge(d.clk)
        lat = LATENCY
        while True:
            # ---- drive for the coming edge
            in_rst = self.rst_left > 0
            self._set("rst", int(in_rst))
            if self.rst_left:
                self.rst_left -= 1
            if self.axi:
                self._drive_write()
                self._drive_read()
            key = self.source() if self.source is not None else None
            if key is None:
                self._set("lk_valid", 0)
            else:
                self._set("lk_valid", 1)
                self._set("lk_key", key)
            await edge
            self.cycle += 1
            e = self.cycle
            # ---- sample what happened at this edge
            if self.axi:
                self._sample_write(e, in_rst)
                self._sample_read(in_rst)
            if in_rst:
                self.pending.clear()
            elif key is not None:
                self.pending.append((e, key, self.n_aw, self.n_b))
            if not in_rst:
                rs_valid = int(d.rs_valid.value)
                due = bool(self.pending) and self.pending[0][0] == e - lat
                if rs_valid != due:
                    raise AssertionError(
                        f"edge {e}: rs_valid={rs_valid} but a result is {'' if due else 'not '}"
                        f"due (lookup latency must be {lat})")
                if rs_valid:
                    l_edge, k, na, nb = self.pending.popleft()
                    hit = bool(int(d.rs_hit.value))
                    value = int(d.rs_value.value)
                    if not hit and value != 0:
                        raise AssertionError(f"edge {e}: miss with rs_value 0x{value:x}")
                    if self.keep_results:
                        self.results.append(Result(l_edge, k, hit, value, na, nb))
            if self._idle_wait:
                for n, ev in list(self._idle_wait):
                    if e >= n:
                        ev.set()
                        self._idle_wait.remove((n, ev))

    def _drive_write(self) -> None:
        op = self.wcur
        if op is None and self.wq:
            op = self.wcur = self.wq.popleft()
            self._set("s_axil_awaddr", op.addr)
            self._set("s_axil_wdata", op.data & 0xFFFFFFFF)
            self._set("s_axil_wstrb", op.strb)
        if op is None:
            self._set("s_axil_awvalid", 0)
            self._set("s_axil_wvalid", 0)
            self._set("s_axil_bready", 0)
            return
        self._set("s_axil_awvalid", int(not op.aw_done and op.t >= op.aw_delay))
        self._set("s_axil_wvalid", int(not op.w_done and op.t >= op.w_delay))
        self._set("s_axil_bready", int(op.t >= op.b_delay))

    def _sample_write(self, e: int, in_rst: bool) -> None:
        d = self.dut
        op = self.wcur
        if op is None:
            return
        if in_rst:
            raise AssertionError("a write is in flight across reset")
        aw_before, w_before = op.aw_done, op.w_done
        if self._drv["s_axil_awvalid"] and int(d.s_axil_awready.value):
            op.aw_done = True
            op.a_edge = e
            self.n_aw += 1
        if self._drv["s_axil_wvalid"] and int(d.s_axil_wready.value):
            op.w_done = True
        if self._drv["s_axil_bready"] and int(d.s_axil_bvalid.value):
            if not (aw_before and w_before):
                raise AssertionError(f"write 0x{op.addr:x}: B before AW and W")
            op.resp = int(d.s_axil_bresp.value)
            op.b_edge = e
            self.n_b += 1
            self.wcur = None
            if op.event is not None:
                op.event.set()
            return
        op.t += 1
        if op.t > TIMEOUT + op.aw_delay + op.w_delay + op.b_delay:
            raise AssertionError(f"write 0x{op.addr:x}: no response (hang)")

    def _drive_read(self) -> None:
        op = self.rcur
        if op is None and self.rq:
            op = self.rcur = self.rq.popleft()
            self._set("s_axil_araddr", op.addr)
        if op is None:
            self._set("s_axil_arvalid", 0)
            self._set("s_axil_rready", 0)
            return
        self._set("s_axil_arvalid", int(not op.ar_done))
        self._set("s_axil_rready", int(op.t >= op.r_delay))

    def _sample_read(self, in_rst: bool) -> None:
        d = self.dut
        op = self.rcur
        if op is None:
            return
        if in_rst:
            raise AssertionError("a read is in flight across reset")
        ar_before = op.ar_done
        if self._drv["s_axil_arvalid"] and int(d.s_axil_arready.value):
            op.ar_done = True
        if self._drv["s_axil_rready"] and int(d.s_axil_rvalid.value):
            if not ar_before:
                raise AssertionError(f"read 0x{op.addr:x}: R before AR")
            op.data = int(d.s_axil_rdata.value)
            op.resp = int(d.s_axil_rresp.value)
            self.rcur = None
            if op.event is not None:
                op.event.set()
            return
        op.t += 1
        if op.t > TIMEOUT + op.r_delay:
            raise AssertionError(f"read 0x{op.addr:x}: no response (hang)")

    # -- API for the tests -----------------------------------------------------------------

    def queue_writes(self, ops: list[tuple[int, int]], **kw) -> list[WriteOp]:
        """Queue register writes; returns their records (idx = global write number)."""
        out = []
        for addr, data in ops:
            w = WriteOp(addr, data, idx=len(self.writes), **kw)
            self.writes.append(w)
            self.wq.append(w)
            out.append(w)
        return out

    async def write_ops(self, ops: list[tuple[int, int]], expect=OKAY, **kw) -> list[WriteOp]:
        """Write in order and wait for the last B."""
        ws = self.queue_writes(ops, **kw)
        if not ws:
            return ws
        ws[-1].event = Event()
        await ws[-1].event.wait()
        for w in ws:
            if expect is not None:
                assert w.resp == expect, f"write 0x{w.addr:03x} <- 0x{w.data:x}: resp {w.resp}"
        return ws

    async def write(self, addr: int, data: int, **kw) -> int:
        ws = await self.write_ops([(addr, data)], expect=None, **kw)
        return ws[0].resp  # type: ignore[return-value]

    async def wr(self, addr: int, data: int, **kw) -> None:
        resp = await self.write(addr, data, **kw)
        assert resp == OKAY, f"write 0x{addr:03x}: resp {resp}"

    async def read(self, addr: int, r_delay: int = 0) -> tuple[int, int]:
        op = ReadOp(addr, r_delay, event=Event())
        self.rq.append(op)
        await op.event.wait()
        return op.data, op.resp  # type: ignore[return-value]

    async def read_many(self, addrs: list[int]) -> list[tuple[int, int]]:
        """Reads queued together: the bench issues them back to back (AR every 3 cycles: R
        comes 2 cycles after AR, the next AR the cycle after R)."""
        ops = [ReadOp(a) for a in addrs]
        ops[-1].event = Event()
        self.rq.extend(ops)
        await ops[-1].event.wait()
        return [(o.data, o.resp) for o in ops]  # type: ignore[misc]

    async def rd(self, addr: int) -> int:
        data, resp = await self.read(addr)
        assert resp == OKAY, f"read 0x{addr:03x}: resp {resp}"
        return data

    async def cycles(self, n: int) -> None:
        ev = Event()
        self._idle_wait.append((self.cycle + n, ev))
        await ev.wait()

    async def reset(self) -> None:
        """Pulse rst for 3 cycles and wait until the table has cleared itself."""
        self.rst_left = 3
        await self.cycles(4)
        if BUCKETS >= 8:
            assert await self.rd(TBL_STATUS) & 1 == 1, "not busy (clearing) right after reset"
        await self.wait_idle(BUCKETS + 8)

    async def wait_idle(self, limit: int = 16) -> None:
        for _ in range(limit):
            if await self.rd(TBL_STATUS) & 1 == 0:
                return
        raise AssertionError(f"TBL_STATUS busy for more than {limit} reads")

    async def lookup_all(self, keys: list[int]) -> list[Result]:
        """Look `keys` up back to back (one per cycle); their results, in order."""
        it = iter(keys)
        start = len(self.results)
        self.source = lambda: next(it, None)
        await self.cycles(len(keys) + LATENCY + 2)
        self.source = None
        res = self.results[start:]
        assert [r.key for r in res] == list(keys)
        return res


def check_results(results: list[Result], model: dict[int, int]) -> None:
    for r in results:
        want = model.get(r.key)
        got = r.value if r.hit else None
        assert got == want, (f"lookup of 0x{r.key:x} at edge {r.edge}: got "
                             f"{'miss' if got is None else hex(got)}, want "
                             f"{'miss' if want is None else hex(want)}")


async def setup(dut) -> Bench:
    bench = Bench(dut)
    bench.start()
    await bench.reset()
    return bench


def random_keys(rng: random.Random, n: int, exclude=()) -> list[int]:
    out: set[int] = set()
    ex = set(exclude)
    while len(out) < n:
        k = rng.getrandbits(KEY_W)
        if k not in ex:
            out.add(k)
    return list(out)


# ---------------------------------------------------------------------------------------------
# Register file
# ---------------------------------------------------------------------------------------------


@cocotb.test()
async def registers(dut):
    """RO parameters, RW registers and their widths, WSTRB, handshake orders, SLVERR."""
    b = await setup(dut)
    log2 = SLOTS.bit_length() - 1
    assert await b.rd(TBL_INFO) == (KEY_W << 16) | (4 << 8) | log2
    assert await b.rd(TBL_VALUE_W) == VALUE_W
    assert await b.rd(TBL_COUNT) == 0
    assert await b.rd(TBL_STATUS) == 0
    assert await b.rd(TBL_CMD) == 0
    # address bits [1:0] ignored
    assert await b.rd(TBL_INFO + 3) == (KEY_W << 16) | (4 << 8) | log2
    # TBL_SLOT: all 32 bits
    for v in (0xFFFFFFFF, 0x12345678, 0):
        await b.wr(TBL_SLOT, v)
        assert await b.rd(TBL_SLOT) == v
    # KEY / VALUE words: bits above the width read 0
    for i in range(KEY_WORDS):
        await b.wr(TBL_KEY + 4 * i, 0xFFFFFFFF)
        assert await b.rd(TBL_KEY + 4 * i) == (KMASK >> (32 * i)) & 0xFFFFFFFF
    for i in range(VALUE_WORDS):
        await b.wr(TBL_VALUE + 4 * i, 0xFFFFFFFF)
        assert await b.rd(TBL_VALUE + 4 * i) == (VMASK >> (32 * i)) & 0xFFFFFFFF
    # WSTRB byte lanes
    await b.wr(TBL_SLOT, 0x11223344)
    await b.wr(TBL_SLOT, 0xAABBCCDD, strb=0b0101)
    assert await b.rd(TBL_SLOT) == 0x11BB33DD
    await b.wr(TBL_SLOT, 0, strb=0)
    assert await b.rd(TBL_SLOT) == 0x11BB33DD
    await b.wr(TBL_KEY, 0)
    await b.wr(TBL_KEY, 0xA5A5A5A5, strb=0b1000)
    assert await b.rd(TBL_KEY) == 0xA5000000 & KMASK
    # handshake orders: AW before W, W before AW, slow B and R
    rng = random.Random(5)
    for _ in range(40):
        v = rng.getrandbits(32)
        aw, w = rng.choice([(0, 0), (0, 3), (3, 0), (1, 7), (7, 1), (0, 1), (1, 0)])
        assert await b.write(TBL_SLOT, v, aw_delay=aw, w_delay=w, b_delay=rng.choice([0, 1, 5])) == OKAY
        assert await b.read(TBL_SLOT, r_delay=rng.choice([0, 2, 6])) == (v, OKAY)
    # a read and a write in flight together
    b.queue_writes([(TBL_SLOT, 0x5A)], aw_delay=2, w_delay=4, b_delay=3)
    assert await b.read(TBL_INFO, r_delay=3) == ((KEY_W << 16) | (4 << 8) | log2, OKAY)
    await b.cycles(12)
    assert await b.rd(TBL_SLOT) == 0x5A
    # unmapped addresses: SLVERR on read and write; RO registers: SLVERR on write
    unmapped = [0x018, 0x01C, 0x060, 0x07C]
    unmapped += [TBL_KEY + 4 * i for i in range(KEY_WORDS, 8)]
    unmapped += [TBL_VALUE + 4 * i for i in range(VALUE_WORDS, 8)]
    if ADDR_W >= 12:
        unmapped += [0x100, 0x420, 0x800, 0xFFC]
    await b.wr(TBL_SLOT, 0x77)
    for a in unmapped:
        assert await b.read(a) == (0, SLVERR), f"read 0x{a:03x}"
        assert await b.write(a, 0xFFFFFFFF) == SLVERR, f"write 0x{a:03x}"
    for a in (TBL_INFO, TBL_VALUE_W, TBL_COUNT, TBL_STATUS):
        assert await b.write(a, 0x12345678) == SLVERR, f"RO write 0x{a:03x}"
        assert await b.write(a, 0x12345678, strb=0) == SLVERR, f"RO write 0x{a:03x} strb 0"
    # a command on a bucket outside the table: SLVERR, nothing done
    await b.wr(TBL_SLOT, BUCKETS << 3)
    for op in (OP_WRITE, OP_DELETE, OP_READ):
        assert await b.write(TBL_CMD, op) == SLVERR
    await b.wr(TBL_SLOT, 0xFFFFFFF8)
    assert await b.write(TBL_CMD, OP_WRITE) == SLVERR
    # op 0, or a command write without byte lane 0: OKAY, nothing done
    assert await b.write(TBL_CMD, 0) == OKAY
    assert await b.write(TBL_CMD, OP_WRITE, strb=0b1110) == OKAY
    assert await b.rd(TBL_COUNT) == 0
    assert await b.rd(TBL_STATUS) == 0
    assert await b.rd(TBL_INFO) == (KEY_W << 16) | (4 << 8) | log2


@cocotb.test()
async def commands(dut):
    """Write / read / delete commands on every way of both banks, TBL_COUNT, busy, B after
    the command."""
    b = await setup(dut)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    rng = random.Random(21)
    buckets = sorted({0, BUCKETS - 1, rng.randrange(BUCKETS)})
    stored: dict[Slot, tuple[int, int]] = {}
    count = 0
    for bucket in buckets:
        for bank in (0, 1):
            for way in range(4):
                s = Slot(bank, bucket, way)
                k, v = rng.getrandbits(KEY_W), rng.getrandbits(VALUE_W)
                ws = await b.write_ops(t.write_ops(s, k, v))
                # B of the command comes 6 cycles after its AW/W (decode, 4 busy cycles)
                assert ws[-1].b_edge - ws[-1].a_edge == 6, (ws[-1].a_edge, ws[-1].b_edge)
                if s not in stored:
                    count += 1
                stored[s] = (k, v)
                assert await b.rd(TBL_COUNT) == count
    # overwrite: count unchanged
    s0 = Slot(0, buckets[0], 2)
    stored[s0] = (5, 6 & VMASK)
    await b.write_ops(t.write_ops(s0, 5, 6 & VMASK))
    assert await b.rd(TBL_COUNT) == count
    # read every slot back (valid ones and some empty ones)
    for bucket in buckets + [(buckets[-1] + 1) % BUCKETS]:
        for bank in (0, 1):
            for way in range(4):
                s = Slot(bank, bucket, way)
                await b.write_ops(t.read_ops(s))
                st = await b.rd(TBL_STATUS)
                key = val = 0
                for i in range(KEY_WORDS):
                    key |= await b.rd(TBL_KEY + 4 * i) << (32 * i)
                for i in range(VALUE_WORDS):
                    val |= await b.rd(TBL_VALUE + 4 * i) << (32 * i)
                if s in stored:
                    assert st == 1 << 31 and (key, val) == stored[s], s
                elif bucket not in buckets:
                    assert st == 0 and (key, val) == (0, 0), s
    # delete: valid -1, invalid unchanged
    for s in list(stored)[:5]:
        await b.write_ops(t.delete_ops(s))
        count -= 1
        del stored[s]
        assert await b.rd(TBL_COUNT) == count
        await b.write_ops(t.delete_ops(s))
        assert await b.rd(TBL_COUNT) == count
        await b.write_ops(t.read_ops(s))
        assert await b.rd(TBL_STATUS) == 0
    # busy is visible while a command runs (a read presented with the command write)
    await b.wr(TBL_SLOT, Slot(1, 0, 0).reg)
    b.queue_writes([(TBL_CMD, OP_READ)])
    seen = [d & 1 for d, _ in await b.read_many([TBL_STATUS] * 4)]
    assert seen == [0, 1, 0, 0], seen  # AR at the command's edge, then +3 (busy), +6, +9


# ---------------------------------------------------------------------------------------------
# Lookups
# ---------------------------------------------------------------------------------------------


@cocotb.test()
async def lookups(dut):
    """Table at ~50 % load (placed by HashTable): every key looked up back to back, misses,
    keys one bit away from present ones, and a stream with random gaps (fixed latency each)."""
    b = await setup(dut)
    rng = random.Random(33)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    n = SLOTS // 2
    keys = random_keys(rng, n)
    model = {}
    ops = []
    for k in keys:
        v = rng.getrandbits(VALUE_W)
        ops += t.insert(k, v)
        model[k] = v
    await b.write_ops(ops)
    assert await b.rd(TBL_COUNT) == n
    res = await b.lookup_all(keys)
    check_results(res, model)
    misses = random_keys(rng, n, exclude=model)
    near = [k ^ (1 << rng.randrange(KEY_W)) for k in keys[:64]]
    mixed = keys + misses + near
    rng.shuffle(mixed)
    check_results(await b.lookup_all(mixed), model)
    assert sum(r.hit for r in b.results[-len(mixed):]) == n + sum(k in model for k in near)
    # random gaps: the bench checks rs_valid against lk_valid delayed by exactly LATENCY
    seq = [rng.choice(mixed) if rng.random() < 0.6 else None for _ in range(600)]
    it = iter(seq)
    start = len(b.results)
    b.source = lambda: next(it, None)
    await b.cycles(len(seq) + 8)
    b.source = None
    res = b.results[start:]
    assert [r.key for r in res] == [k for k in seq if k is not None]
    edges = [r.edge for r in res]
    assert len(set(edges)) == len(edges)
    check_results(res, model)


@cocotb.test()
async def collisions(dut):
    """Keys sharing buckets (found by brute force): 8 keys with the same (h0, h1) fill all 8
    ways; keys sharing only h0 or only h1; absent keys hashing to full buckets miss."""
    b = await setup(dut)
    rng = random.Random(44)
    target = bucket_indices(rng.getrandbits(KEY_W), KEY_W, SLOTS)
    both, only0, only1 = [], [], []
    while len(both) < 10 or len(only0) < 6 or len(only1) < 6:
        k = rng.getrandbits(KEY_W)
        h = bucket_indices(k, KEY_W, SLOTS)
        if h == target:
            both.append(k)
        elif h[0] == target[0]:
            only0.append(k)
        elif h[1] == target[1]:
            only1.append(k)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    model = {}
    ops = []
    for i, k in enumerate(both[:8]):
        v = pattern(k, i)
        ops += t.insert(k, v)
        model[k] = v
        assert t.slot_of(k) == Slot(i // 4, target[i // 4], i % 4)
    await b.write_ops(ops)
    probe = both + only0 + only1
    check_results(await b.lookup_all(probe * 2), model)
    try:
        t.insert(both[8], 1)
        raise AssertionError("a 9th key with the same two buckets was placed")
    except TableFullError:
        pass
    # free two ways and refill with keys sharing one bucket only
    for k in both[2:4]:
        await b.write_ops(t.delete(k))
        del model[k]
    check_results(await b.lookup_all(probe), model)
    for i, k in enumerate(only0[:2] + only1[:2]):
        v = pattern(k, 100 + i)
        await b.write_ops(t.insert(k, v))
        model[k] = v
    check_results(await b.lookup_all(probe), model)
    assert await b.rd(TBL_COUNT) == len(model)
    # the same key in two slots (as during a relocation, same value): still found
    k = both[0]
    s = Slot(1, target[1], 3)
    old = t.at(s)
    await b.write_ops(t.write_ops(s, k, model[k]))
    check_results(await b.lookup_all([k] * 4), model)
    if old is not None:
        await b.write_ops(t.write_ops(s, *old))
    else:
        await b.write_ops(t.delete_ops(s))
    check_results(await b.lookup_all(probe), model)


@cocotb.test()
async def update_boundary(dut):
    """The exact cycle a change becomes visible: lookups presented up to the edge after the one
    that takes the command write (the write is decoded from registers in between) see the old
    slot, from the edge after that on the new one (the lookup that reads the bucket in the
    cycle of the memory write takes the written word: bypass). A key in another way of the
    same bucket is not disturbed."""
    b = await setup(dut)
    rng = random.Random(99)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    target = bucket_indices(rng.getrandbits(KEY_W), KEY_W, SLOTS)
    same = []
    while len(same) < 2:
        k = rng.getrandbits(KEY_W)
        if bucket_indices(k, KEY_W, SLOTS) == target:
            same.append(k)
    k, n = same
    await b.write_ops(t.insert(n, pattern(n, 1)))     # bank 0 way 0
    await b.write_ops(t.insert(k, pattern(k, 1)))     # bank 0 way 1
    assert t.slot_of(k) == Slot(0, target[0], 1)
    changes = [("update", 2), ("delete", None), ("insert", 3)] * 2
    for i, (kind, ver) in enumerate(changes):
        probe = k if i < 3 else n     # first k itself every cycle, then its neighbour
        b.source = lambda p=probe: p
        after = None if ver is None else pattern(k, ver)
        before = t.lookup(k)
        start = len(b.results)
        await b.cycles(6)
        ops = t.delete(k) if kind == "delete" else t.insert(k, after)
        ws = await b.write_ops(ops)
        await b.cycles(6)
        a = ws[-1].a_edge
        res = b.results[start:]
        assert {r.edge for r in res} >= set(range(a - 3, a + 4))
        for r in res:
            got = r.value if r.hit else None
            if r.key == n:
                assert got == pattern(n, 1), f"neighbour disturbed at edge {r.edge}"
                continue
            want = before if r.edge <= a + 1 else after
            assert got == want, (f"{kind}: lookup at edge {r.edge} (command taken at edge {a}):"
                                 f" got {got if got is None else hex(got)}, want "
                                 f"{want if want is None else hex(want)}")
    b.source = None
    await b.cycles(6)


# ---------------------------------------------------------------------------------------------
# Changes under a lookup stream
# ---------------------------------------------------------------------------------------------


class Timeline:
    """What a lookup of each key may return, given when it was presented (n_aw, n_b)."""

    def __init__(self):
        self.ops: dict[int, list[tuple[int, int, Optional[int]]]] = {}
        self.initial: dict[int, Optional[int]] = {}
        self.ever: dict[int, set[int]] = {}

    def change(self, key: int, first: int, last: int, after: Optional[int]) -> None:
        """A change of `key` done by writes first..last (global write numbers)."""
        self.ops.setdefault(key, []).append((first, last, after))
        if after is not None:
            self.ever.setdefault(key, set()).add(after)

    def allowed(self, key: int, n_aw: int, n_b: int) -> set[Optional[int]]:
        state = self.initial.get(key)
        during: set[Optional[int]] = set()
        for first, last, after in self.ops.get(key, ()):
            if n_b >= last + 1:
                state = after
            elif n_aw >= first + 1:
                during = {after}
            else:
                break
        return {state} | during

    def check(self, results: list[Result]) -> tuple[int, int]:
        hits = 0
        for r in results:
            got = r.value if r.hit else None
            if got is not None:
                assert got in self.ever.get(r.key, ()) or got == self.initial.get(r.key), \
                    f"lookup of 0x{r.key:x} returned 0x{got:x}: never written for that key"
                hits += 1
            ok = self.allowed(r.key, r.n_aw, r.n_b)
            assert got in ok, (f"lookup of 0x{r.key:x} at edge {r.edge} (AW {r.n_aw}, B {r.n_b}):"
                               f" got {'miss' if got is None else hex(got)}, allowed "
                               f"{[None if a is None else hex(a) for a in ok]}")
        return hits, len(results) - hits


@cocotb.test()
async def updates_under_lookups(dut):
    """Inserts (with cuckoo relocations at high load), updates and deletes while a lookup runs
    every cycle: no lookup ever returns a value that was not written for its key (values are
    a pattern per (key, version)), a key that is in the table never misses (relocations
    included), and once an update's B has come back, lookups return the new value."""
    b = await setup(dut)
    rng = random.Random(55)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    tl = Timeline()
    version: dict[int, int] = {}
    universe = random_keys(rng, int(SLOTS * 0.97))
    present: set[int] = set()
    hot: list[int] = []   # keys of the change in flight: looked up more often

    def source() -> Optional[int]:
        r = rng.random()
        if hot and r < 0.5:
            return rng.choice(hot)
        return rng.choice(universe)

    b.source = source
    # fill to ~90 % (relocations happen), then a random mix of changes
    target_load = int(SLOTS * 0.9)
    steps = 0
    while steps < max(6 * SLOTS, 600):
        k = rng.choice(universe)
        if len(present) < target_load and k not in present:
            kind = "insert"
        else:
            kind = rng.choice(["update", "delete", "insert"] if k in present else ["insert"])
        if kind == "delete":
            ops = t.delete(k)
            after = None
        else:
            version[k] = version.get(k, 0) + 1
            after = pattern(k, version[k])
            try:
                ops = t.insert(k, after)
            except TableFullError:
                version[k] -= 1
                steps += 1
                continue
        hot[:] = [k]
        # moved entries keep their value: they must be found all along (no Timeline change)
        ws = await b.write_ops(ops)
        tl.change(k, ws[0].idx, ws[-1].idx, after)
        if after is None:
            present.discard(k)
        else:
            present.add(k)
        steps += 1
    b.source = None
    await b.cycles(8)
    hits, misses = tl.check(b.results)
    assert t.relocations > 0, "no relocation happened"
    assert hits > 500 and misses > 50, (hits, misses)
    assert await b.rd(TBL_COUNT) == len(present) == len(t)
    dut._log.info("%d lookups (%d hits, %d misses) under %d changes, %d relocations",
                  len(b.results), hits, misses, steps, t.relocations)
    # and a final sweep: exactly the model
    check_results(await b.lookup_all(universe), dict(t.items()))


@cocotb.test()
async def reset_clears(dut):
    """rst empties the table: TBL_COUNT 0, lookups during the clear and after it miss."""
    b = await setup(dut)
    rng = random.Random(66)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    keys = random_keys(rng, SLOTS // 4)
    ops = []
    for k in keys:
        ops += t.insert(k, pattern(k, 1))
    await b.write_ops(ops)
    check_results(await b.lookup_all(keys[:32]), dict(t.items()))
    b.source = lambda: rng.choice(keys)
    start = len(b.results)
    b.rst_left = 2
    await b.cycles(3)
    # a register write during the clear is taken but answered only once the table is idle
    ws = b.queue_writes([(TBL_SLOT, 0x99)])
    await b.cycles(BUCKETS + 16)
    b.source = None
    await b.cycles(8)
    assert len(b.results) - start > BUCKETS
    assert all(not r.hit for r in b.results[start:])
    assert ws[0].resp == OKAY and ws[0].b_edge - ws[0].a_edge >= BUCKETS - 4, ws[0]
    assert await b.rd(TBL_SLOT) == 0x99
    await b.wait_idle()
    assert await b.rd(TBL_COUNT) == 0
    check_results(await b.lookup_all(keys), {})
    # and it works again
    await b.write_ops(HashTable(KEY_W, VALUE_W, SLOTS).insert(keys[0], 7))
    check_results(await b.lookup_all(keys[:4]), {keys[0]: 7})


@cocotb.test()
async def third_party_master(dut):
    """The register file through cocotbext-axi's AxiLiteMaster (its own handshake timing)."""
    from cocotbext.axi import AxiLiteBus, AxiLiteMaster

    b = Bench(dut)
    b.axi = False
    b.start()
    b.rst_left = 3
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    logging.getLogger(f"{dut._log.name}.s_axil").setLevel(logging.WARNING)
    await b.cycles(BUCKETS + 10)
    info = await master.read_dword(TBL_INFO)
    assert info == (KEY_W << 16) | (4 << 8) | (SLOTS.bit_length() - 1)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    rng = random.Random(77)
    model = {}
    for k in random_keys(rng, 6):
        v = rng.getrandbits(VALUE_W)
        model[k] = v
        for addr, data in t.insert(k, v):
            await master.write_dword(addr, data)
    assert await master.read_dword(TBL_COUNT) == 6
    r = await master.read(0x018, 4)
    assert int(r.resp) == SLVERR
    w = await master.write(TBL_INFO, b"\x00\x00\x00\x00")
    assert int(w.resp) == SLVERR
    check_results(await b.lookup_all(list(model) + random_keys(rng, 6, model)), model)


# ---------------------------------------------------------------------------------------------
# Full load (WS_FULL_N entries; 16384 in the default 32768-slot table)
# ---------------------------------------------------------------------------------------------


@cocotb.test(skip=FULL_N == 0)
async def full_load(dut):
    """WS_FULL_N entries written over AXI4-Lite (placement by HashTable), then every one looked
    up back to back, and as many absent keys."""
    b = await setup(dut)
    rng = random.Random(88)
    t = HashTable(KEY_W, VALUE_W, SLOTS)
    keys = random_keys(rng, FULL_N)
    ops = []
    for k in keys:
        ops += t.insert(k, pattern(k, 1))
    t0 = time.monotonic()
    c0 = b.cycle
    b.keep_results = False
    await b.write_ops(ops)
    t1 = time.monotonic()
    dut._log.info("wrote %d entries (%d register writes, %d relocations) in %d cycles, %.1f s",
                  FULL_N, len(ops), t.relocations, b.cycle - c0, t1 - t0)
    assert await b.rd(TBL_COUNT) == FULL_N
    b.keep_results = True
    model = dict(t.items())
    misses = random_keys(rng, FULL_N, exclude=model)
    res = await b.lookup_all(keys + misses)
    check_results(res, model)
    assert sum(r.hit for r in res) == FULL_N
    dut._log.info("looked up %d keys in %.1f s", 2 * FULL_N, time.monotonic() - t1)

"""cocotb tests of rtl/host/dma_ring_writer.sv against wirespeed/model/dma.py.

The AXI4 side is tb/dma_ring_writer/axi_ram.py (random AWREADY/WREADY, random B latency, the
burst rules checked on every transfer). Every write into a ring is checked against the host's
view: no byte between the host's released CONS and the PROD it has seen may be written. A host
driver reads each ring up to the written-back PROD, checks every record against the frames
sent to that queue (header fields and every byte), and writes Q_CONS.

The DUT's width comes from WS_DATA_W (set by test_dma_ring_writer.py).
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Lock, ReadOnly, RisingEdge

from tb.block_csr.axil import SLVERR, Axil, protocol_checker
from tb.dma_ring_writer.axi_ram import AxiRam
from wirespeed.model.dma import ALIGN, HDR_BYTES, Desc, Header, Ring, get, parse_ring, record_len
from wirespeed.regmap import DMA_RING_WRITER

DATA_W = int(os.environ.get("WS_DATA_W", "256"))
KW = DATA_W // 8
QUEUES = 16
BURST = int(os.environ.get("WS_BURST", "256"))
FLUSH = int(os.environ.get("WS_FLUSH", "256"))   # FLUSH_CYCLES
BUF_BYTES = 16384
R = DMA_RING_WRITER.reg
RING_BASE = 0x7_0000_0000          # queue q's ring at RING_BASE + q * RING_STRIDE
RING_STRIDE = 1 << 20
WB_BASE = 0x0_8000_1000            # queue q's PROD at WB_BASE + 4 * q (every lane used)
M32 = (1 << 32) - 1


class Host:
    """The rings as the host sees them, the AXI sides, the frames sent per queue."""

    def __init__(self, dut, rng: random.Random, aw_ready=1.0, w_ready=1.0, b_delay=0):
        self.dut = dut
        self.rng = rng
        self.size = {q: 4096 for q in range(QUEUES)}
        self.enabled = {q: False for q in range(QUEUES)}
        self.released = {q: 0 for q in range(QUEUES)}    # CONS the host gave back
        self.seen = {q: 0 for q in range(QUEUES)}        # PROD written back
        self.wbs = {q: 0 for q in range(QUEUES)}         # write-backs seen
        self.wb_cycles: list[int] = []
        self.sent: dict[int, list[tuple[bytes, Desc]]] = {q: [] for q in range(QUEUES)}
        self.ptr = {q: 0 for q in range(QUEUES)}
        self.captured = {q: 0 for q in range(QUEUES)}
        self.captured_bytes = {q: 0 for q in range(QUEUES)}
        self.skipped = {q: 0 for q in range(QUEUES)}
        self.last_ts = {q: -1 for q in range(QUEUES)}
        # ring bytes written since the host last released them: each is written once a pass
        self.written: dict[int, set[int]] = {q: set() for q in range(QUEUES)}
        self.first_write: dict[int, int] = {}       # queue -> cycle of its first ring write
        self.ram = AxiRam(dut, KW, rng, BURST, self.check_write, aw_ready, w_ready, b_delay)
        self.axil = Axil(dut)
        self.lock = Lock()
        self.paused = False
        self.stopped = False
        self.cycle = 0
        self.in_beats = 0
        self.last_in_cycle: int | None = None

    # --- AXI4-Lite, shared by the driver and the test
    async def wr(self, a: int, v: int, **kw) -> None:
        async with self.lock:
            await self.axil.wr(a, v, **kw)

    async def rd(self, a: int) -> int:
        async with self.lock:
            return await self.axil.rd(a)

    async def write(self, a: int, v: int, **kw) -> int:
        async with self.lock:
            return await self.axil.write(a, v, **kw)

    async def read(self, a: int) -> tuple[int, int]:
        async with self.lock:
            return await self.axil.read(a)

    # --- memory rules
    def base(self, q: int) -> int:
        return RING_BASE + q * RING_STRIDE

    def check_write(self, addr: int, raw: bytes, strb: int) -> None:
        if WB_BASE <= addr < WB_BASE + 4 * QUEUES + KW:
            lanes = [i for i in range(KW) if strb >> i & 1]
            assert len(lanes) == 4 and lanes == list(range(lanes[0], lanes[0] + 4)), \
                f"write-back at {addr:#x}: strobes {strb:#x}"
            a = addr + lanes[0]
            q = (a - WB_BASE) // 4
            assert a == WB_BASE + 4 * q and q < QUEUES, f"write-back to {a:#x}"
            v = int.from_bytes(raw[lanes[0]:lanes[0] + 4], "little")
            assert ((v - self.seen[q]) & M32) < 1 << 31, f"queue {q}: PROD went back"
            assert ((v - self.released[q]) & M32) <= self.size[q], \
                f"queue {q}: PROD {v} is more than a ring past CONS {self.released[q]}"
            self.seen[q] = v
            self.wbs[q] += 1
            self.wb_cycles.append(self.ram.cycle)
            return
        q = (addr - RING_BASE) // RING_STRIDE
        assert 0 <= q < QUEUES and addr - self.base(q) < self.size[q], \
            f"write to {addr:#x}: in no ring"
        # packed records: the strobes are whole 8-byte granules, one run per beat
        lanes = [i for i in range(KW) if strb >> i & 1]
        assert lanes and lanes == list(range(lanes[0], lanes[-1] + 1)) \
            and lanes[0] % ALIGN == 0 and (lanes[-1] + 1) % ALIGN == 0, \
            f"ring write at {addr:#x}: strobes {strb:#x}"
        o = addr - self.base(q)
        used = (self.seen[q] - self.released[q]) & M32
        self.first_write.setdefault(q, self.ram.cycle)
        for i in lanes:
            pos = (o + i) % self.size[q]
            assert pos not in self.written[q], f"queue {q}: ring offset {pos} written twice"
            self.written[q].add(pos)
            # unconsumed: positions released .. seen (mod size)
            assert ((o + i - self.released[q]) % self.size[q]) >= used, \
                (f"queue {q}: write at ring offset {o + i} overwrites unconsumed data "
                 f"(CONS {self.released[q]}, PROD seen {self.seen[q]})")

    def ring_bytes(self, q: int) -> bytes:
        return self.ram.read(self.base(q), self.size[q])

    def release(self, q: int, cons: int) -> None:
        """The host gives back [released, cons): the writer may write those bytes again."""
        for x in range((cons - self.released[q]) & M32):
            self.written[q].discard((self.released[q] + x) % self.size[q])
        self.released[q] = cons

    # --- configuration
    async def setup_queue(self, q: int, size: int, enable: bool = True) -> None:
        self.size[q] = size
        self.enabled[q] = enable
        b = self.base(q)
        await self.wr(R("Q_BASE_LO", q), b & M32)
        await self.wr(R("Q_BASE_HI", q), b >> 32)
        await self.wr(R("Q_WB_LO", q), (WB_BASE + 4 * q) & M32)
        await self.wr(R("Q_WB_HI", q), (WB_BASE + 4 * q) >> 32)
        await self.wr(R("Q_CTRL", q), (size.bit_length() - 1) << 8 | int(enable))

    # --- the host driver
    def consume(self, q: int) -> int:
        """Read queue q's records up to the PROD seen; check each; return the new CONS."""
        prod = self.seen[q]
        cons = self.released[q]
        if prod == cons:
            return cons
        recs = parse_ring(self.ring_bytes(q), cons, prod)
        for h, data in recs:
            self.match(q, h, data)
        return prod

    def match(self, q: int, h: Header, data: bytes) -> None:
        sent = self.sent[q]
        while self.ptr[q] < len(sent):
            f, d = sent[self.ptr[q]]
            self.ptr[q] += 1
            if data == f and h.matches(f, d):
                self.captured[q] += 1
                self.captured_bytes[q] += len(f)
                assert h.ts >= self.last_ts[q], f"queue {q}: timestamps went back"
                self.last_ts[q] = h.ts
                return
            self.skipped[q] += 1
        raise AssertionError(f"queue {q}: a record ({h}) matches no frame sent to it, in order")

    async def driver(self, delay=(0, 20)) -> None:
        while True:
            await ClockCycles(self.dut.clk, self.rng.randint(*delay) + 1)
            if self.paused:
                continue
            for q in self.rng.sample(range(QUEUES), QUEUES):
                if self.seen[q] != self.released[q]:
                    cons = self.consume(q)
                    self.release(q, cons)
                    await self.wr(R("Q_CONS", q), cons)

    # --- the input
    async def clock(self) -> None:
        while True:
            await RisingEdge(self.dut.clk)
            self.cycle += 1

    async def send(self, frames: list[tuple[bytes, Desc]], idle: float = 0.0,
                   gap=lambda f: 0) -> None:
        d = self.dut
        for f, desc in frames:
            self.sent[desc.queue].append((f, desc))
            nb = -(-len(f) // KW)
            for k in range(nb):
                while self.rng.random() < idle:
                    d.s_axis_tvalid.value = 0
                    await RisingEdge(d.clk)
                chunk = f[k * KW:(k + 1) * KW]
                last = k == nb - 1
                d.s_axis_tdata.value = int.from_bytes(chunk.ljust(KW, bytes([0xA5])), "little")
                d.s_axis_tkeep.value = (1 << len(chunk)) - 1
                d.s_axis_tlast.value = int(last)
                d.s_axis_tvalid.value = 1
                # the sideband counts on the last beat only: other beats carry noise
                sb = desc if last else Desc(self.rng.randrange(QUEUES), self.rng.getrandbits(64),
                                            self.rng.getrandbits(32), self.rng.randrange(8),
                                            self.rng.randrange(4), self.rng.randrange(4),
                                            self.rng.randrange(2))
                d.s_axis_tqueue.value = sb.queue
                d.s_axis_tts.value = sb.ts
                d.s_axis_thash.value = sb.hash
                d.s_axis_thtype.value = sb.htype
                d.s_axis_tport.value = sb.port
                d.s_axis_tflags.value = sb.flags
                d.s_axis_tuser.value = sb.err
                await RisingEdge(d.clk)
                assert int(d.s_axis_tready.value) == 1, "the input was stalled"
                self.in_beats += 1
                if last:
                    self.last_in_cycle = self.cycle
            d.s_axis_tvalid.value = 0
            for _ in range(gap(f)):
                await RisingEdge(d.clk)
        d.s_axis_tvalid.value = 0

    async def counters(self, q: int) -> dict[str, int]:
        return {n: await self.rd(R(n, q)) for n in ("Q_FRAMES", "Q_BYTES", "Q_DROP_FULL",
                                                    "Q_DROP_BUF", "Q_DROP_OFF", "Q_PROD")}


async def setup(dut, **kw) -> Host:
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.s_axis_tvalid.value = 0
    for n in ("tdata", "tkeep", "tlast", "tuser", "tqueue", "tts", "thash", "thtype", "tport",
              "tflags"):
        getattr(dut, f"s_axis_{n}").value = 0
    host = Host(dut, random.Random(kw.pop("seed", DATA_W)), **kw)
    await ClockCycles(dut.clk, 4)
    dut.rst.value = 0
    cocotb.start_soon(host.ram.run())
    cocotb.start_soon(host.clock())
    cocotb.start_soon(protocol_checker(dut))
    await ClockCycles(dut.clk, 4)
    return host


def frame(rng: random.Random, n: int, seq: int) -> bytes:
    """n bytes, the first 4 a sequence number (every frame distinct)."""
    n = max(n, 4)
    return seq.to_bytes(4, "little") + bytes(rng.getrandbits(8) for _ in range(n - 4))


def desc(rng: random.Random, q: int, ts: int) -> Desc:
    return Desc(q, ts, rng.getrandbits(32), rng.randrange(7), rng.randrange(4), rng.randrange(4),
                int(rng.random() < 0.1))


async def quiet(host: Host, want: dict[int, int], limit: int = 200_000) -> None:
    """Until every queue's written-back PROD is ``want[q]``."""
    for _ in range(limit // 16):
        if all(host.seen[q] == v for q, v in want.items()):
            return
        await ClockCycles(host.dut.clk, 16)
    raise AssertionError(f"PROD never reached {want}: seen {host.seen}")


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def registers(dut):
    """Reset values, INFO/PARAMS, read-back of the queue registers, strobes, SLVERR."""
    host = await setup(dut)
    info = await host.rd(R("INFO"))
    assert info == (QUEUES - 1) << 24 | HDR_BYTES << 16 | 3 << 8 | 1
    assert await host.rd(R("PARAMS")) == BURST << 16 | BUF_BYTES // 1024
    for q in (0, 7, QUEUES - 1):
        assert await host.rd(R("Q_CTRL", q)) == 12 << 8
        for n in ("Q_BASE_LO", "Q_BASE_HI", "Q_WB_LO", "Q_WB_HI", "Q_CONS", "Q_PROD", "Q_FRAMES",
                  "Q_BYTES", "Q_DROP_FULL", "Q_DROP_BUF", "Q_DROP_OFF"):
            assert await host.rd(R(n, q)) == 0, (n, q)
    await host.wr(R("Q_BASE_LO", 5), 0x12345FFF)
    assert await host.rd(R("Q_BASE_LO", 5)) == 0x12345000
    await host.wr(R("Q_BASE_HI", 5), 0xDEADBEEF)
    assert await host.rd(R("Q_BASE_HI", 5)) == 0xDEADBEEF
    await host.wr(R("Q_WB_LO", 5), 0xFFFFFFFF, strb=0b0001)
    assert await host.rd(R("Q_WB_LO", 5)) == 0xFC
    await host.wr(R("Q_CONS", 5), 0xA1B2C3D4, strb=0b1010)
    assert await host.rd(R("Q_CONS", 5)) == 0xA100C300
    await host.wr(R("Q_CTRL", 5), 0x1F01)         # LOG2_SIZE 31 clamps to 30
    assert await host.rd(R("Q_CTRL", 5)) == 30 << 8 | 1
    await host.wr(R("Q_CTRL", 5), 0x0500)         # 5 clamps to 12
    assert await host.rd(R("Q_CTRL", 5)) == 12 << 8
    for n in ("INFO", "PARAMS", "CNT_BURSTS"):
        assert await host.write(R(n), 1) == SLVERR, n
    for n in ("Q_PROD", "Q_FRAMES", "Q_DROP_OFF"):
        assert await host.write(R(n, 3), 1) == SLVERR, n
    for a in (0x008, 0x01C, 0x0FC, R("Q_CTRL", 0) + 0x1C, R("Q_CTRL", 0) + 0x34,
              R("Q_CTRL", 0) + 0x40 * QUEUES, 0xFFC):
        assert await host.read(a) == (0, SLVERR), hex(a)
        assert await host.write(a, 1) == SLVERR, hex(a)
    assert await host.rd(R("Q_BASE_HI", 5)) == 0xDEADBEEF


@cocotb.test(timeout_time=200, timeout_unit="ms")
async def rings_exact(dut):
    """Phases of traffic with the host not consuming: each ring's bytes equal the model's
    (records back to back, wrapping, full rings dropping, a disabled queue, a frame larger
    than its ring); then the host consumes everything and the next phase wraps the rings."""
    host = await setup(dut, aw_ready=0.6, w_ready=0.7, b_delay=12, seed=DATA_W + 1)
    rng = host.rng
    sizes = {0: 4096, 1: 8192, 2: 4096, 3: 16384}
    model = {q: Ring(s, enabled=q != 2) for q, s in sizes.items()}
    for q, s in sizes.items():
        await host.setup_queue(q, s, enable=q != 2)
    seq = ts = 0
    for phase in range(5):
        frames = []
        for _ in range(rng.randint(12, 30)):
            q = rng.choice(list(sizes))
            n = rng.choice([60, 61, 64, 65, 127, 128, 200, 511, 512, 1500, rng.randint(60, 1600),
                            5000 if rng.random() < 0.1 else 300])
            ts += rng.randint(0, 5000)
            frames.append((frame(rng, n, seq), desc(rng, q, ts)))
            seq += 1
        for _ in range(3):        # queue 0 (4 KiB) fills in every phase
            ts += 1
            frames.insert(rng.randrange(len(frames)), (frame(rng, 1500, seq), desc(rng, 0, ts)))
            seq += 1
        frames.sort(key=lambda fd: fd[1].ts)
        for f, d in frames:
            model[d.queue].offer(f, d)
        # paced so that the frame buffer never fills (its drops are the RTL's call)
        await host.send(frames, idle=0.2, gap=lambda f: 3 * (-(-len(f) // KW)))
        await quiet(host, {q: m.prod for q, m in model.items()})
        await ClockCycles(dut.clk, 50)
        for q, m in model.items():
            assert host.ring_bytes(q) == bytes(m.mem), f"phase {phase}: ring {q} differs"
            c = await host.counters(q)
            assert c == {"Q_FRAMES": m.frames, "Q_BYTES": m.byte_count,
                         "Q_DROP_FULL": m.drop_full, "Q_DROP_BUF": 0, "Q_DROP_OFF": m.drop_off,
                         "Q_PROD": m.prod}, f"phase {phase} queue {q}: {c}"
        # the host consumes every ring
        for q, m in model.items():
            if m.enabled:
                host.consume(q)
                host.release(q, m.prod)
                m.cons = m.prod
                await host.wr(R("Q_CONS", q), m.prod)
        await ClockCycles(dut.clk, 10)
    wraps = {q: m.prod // m.size for q, m in model.items()}
    full = sum(m.drop_full for m in model.values())
    assert full > 0 and wraps[0] >= 2, (wraps, full)
    assert sum(host.captured.values()) == sum(m.frames for m in model.values())
    dut._log.info("rings_exact %d bits: %d frames, %d written, %d full drops, ring wraps %s, "
                  "%d bursts, %d write-backs", DATA_W, seq, sum(host.captured.values()), full,
                  wraps, host.ram.bursts, sum(host.wbs.values()))


@cocotb.test(timeout_time=400, timeout_unit="ms")
async def stress(dut):
    """16 queues, random lengths (60..1600, some 9000), random idle on the input, random
    AWREADY/WREADY and B latency, the host consuming with random delays and pauses: every
    record equals a frame sent to its queue, in order; every frame is written or counted as
    a drop; nothing unconsumed is overwritten (checked on every write)."""
    host = await setup(dut, aw_ready=0.5, w_ready=0.6, b_delay=20, seed=DATA_W + 2)
    rng = host.rng
    for q in range(QUEUES):
        await host.setup_queue(q, 4096 if q == 3 else rng.choice([4096, 8192, 16384]),
                               enable=q != 9)
    cocotb.start_soon(host.driver())

    async def pauses():
        while not host.stopped:
            await ClockCycles(dut.clk, rng.randint(500, 3000))
            host.paused = True
            await ClockCycles(dut.clk, rng.randint(200, 3000))
            host.paused = False

    cocotb.start_soon(pauses())
    frames = []
    ts = 0
    for seq in range(700 if DATA_W >= 256 else 450):
        q = rng.choice([rng.randrange(QUEUES), 3, 3])     # queue 3 busier
        n = rng.choice([60, 64, 65, 128, 256, 512, 1024, 1518, rng.randint(60, 1600)])
        if rng.random() < 0.02:
            n = 9000
        ts += rng.randint(0, 100)
        frames.append((frame(rng, n, seq), desc(rng, q, ts)))
    await host.send(frames, idle=rng.choice([0.0, 0.3]))
    host.stopped = True
    await ClockCycles(dut.clk, 3100)
    host.paused = False
    # drain: every frame decided (written or dropped) and everything written consumed
    for _ in range(4000):
        await ClockCycles(dut.clk, 50)
        done = 0
        for q in range(QUEUES):
            c = await host.counters(q)
            lost = c["Q_DROP_FULL"] + c["Q_DROP_BUF"] + c["Q_DROP_OFF"]
            done += c["Q_FRAMES"] + lost == len(host.sent[q]) and \
                c["Q_PROD"] == host.released[q] == host.seen[q]
        if done == QUEUES:
            break
    total = drops = 0
    kinds = {"Q_DROP_FULL": 0, "Q_DROP_BUF": 0, "Q_DROP_OFF": 0}
    for q in range(QUEUES):
        c = await host.counters(q)
        n = len(host.sent[q])
        lost = c["Q_DROP_FULL"] + c["Q_DROP_BUF"] + c["Q_DROP_OFF"]
        for k in kinds:
            kinds[k] += c[k]
        assert c["Q_FRAMES"] == host.captured[q], (q, c, host.captured[q])
        assert host.captured[q] + lost == n, f"queue {q}: {host.captured[q]} + {lost} != {n}"
        assert host.skipped[q] + (n - host.ptr[q]) == lost, f"queue {q}"
        assert c["Q_BYTES"] == host.captured_bytes[q] & M32, f"queue {q}: Q_BYTES"
        total += n
        drops += lost
    # the disabled queue: every frame dropped (for the buffer first, if it was full)
    c9 = await host.counters(9)
    assert kinds["Q_DROP_OFF"] == c9["Q_DROP_OFF"] == len(host.sent[9]) - c9["Q_DROP_BUF"] > 0
    assert kinds["Q_DROP_FULL"] > 0, "the pauses should fill some ring"
    assert sum(host.captured.values()) > total // 3
    dut._log.info("stress %d bits: %d frames, %d written, drops %s, %d bursts, %d write-backs",
                  DATA_W, total, sum(host.captured.values()), kinds, host.ram.bursts,
                  sum(host.wbs.values()))


@cocotb.test(timeout_time=200, timeout_unit="ms")
async def latency_and_rate(dut):
    """With AXI always ready: one frame's latency (its last input beat to its first W beat and
    to its write-back), then back-to-back frames into one queue at one beat a cycle: the W
    channel carries a data beat in every cycle of the run but those of write-backs."""
    host = await setup(dut, seed=DATA_W + 3)
    rng = host.rng
    await host.setup_queue(0, 1 << 20)
    lat = {}
    for n in (60, 1518):
        host.ram.first_w_cycle = None
        wb0 = host.wbs[0]
        f = frame(rng, n, n)
        await host.send([(f, desc(rng, 0, 1))])
        t_last = host.last_in_cycle
        while host.wbs[0] == wb0:
            await RisingEdge(dut.clk)
        t_wb = host.cycle
        lat[n] = (host.ram.first_w_cycle - t_last, t_wb - t_last)
        await ClockCycles(dut.clk, 20)
    dut._log.info("latency %d bits: last input beat -> first W beat / write-back: %s",
                  DATA_W, lat)
    cocotb.start_soon(host.driver(delay=(0, 0)))
    ts = 2
    for n in (64, 65, 128, 1518):
        frames = [(frame(rng, n, 10_000 * n + i), desc(rng, 0, ts + i)) for i in range(300)]
        ts += 300
        w0 = len(host.ram.w_cycles)
        c0 = host.cycle
        await host.send(frames)
        in_cycles = host.cycle - c0
        stable = 0
        while stable < 200:            # until the last write-back
            s = host.seen[0]
            await ClockCycles(dut.clk, 10)
            stable = stable + 10 if host.seen[0] == s else 0
        cyc = host.ram.w_cycles[w0:]
        # the steady run: the middle of it (W starts a burst behind the mover, which is 32
        # beats at 64 bits; at the end the last burst's W waits for its close)
        cyc = cyc[len(cyc) // 5:-len(cyc) // 10]
        span = cyc[-2] - cyc[0] + 1
        wbs = sum(cyc[0] <= c <= cyc[-2] for c in host.wb_cycles)
        in_beats = sum(-(-len(f) // KW) for f, _ in frames)
        c = await host.counters(0)
        dut._log.info("rate %d bits, %d-byte frames: %d input beats in %d cycles; W: %d beats "
                      "(%d write-backs) in %d cycles (%.3f a cycle); %d frames dropped for the "
                      "buffer so far", DATA_W, n, in_beats, in_cycles, len(cyc), wbs, span,
                      (len(cyc) - 1) / span, c["Q_DROP_BUF"])
        # W carries the packed bytes of what the writer passes: a record every 2 cycles at most
        # (the decision), every max(2, input beats, the record's beats) cycles (the mover
        # moves one record beat a cycle, each written at the record's 8-byte lane)
        nb = -(-n // KW)
        rb = -(-record_len(n) // KW)
        want = min(1.0, record_len(n) / KW / max(2, nb, rb))
        gaps = [(a - cyc[0], b - a) for a, b in zip(cyc, cyc[1:-1]) if b - a > 1]
        dut._log.info("W gaps (offset, cycles): %s; AWs near: %s; expected rate %.3f", gaps[:10],
                      [(c - cyc[0], l) for c, a, l in host.ram.aw_log if c >= cyc[0]][:12], want)
        if want >= 1.0:
            assert len(cyc) - 1 >= span, f"W idle in {span - len(cyc) + 1} of {span} cycles"
        else:
            assert (len(cyc) - 1) / span >= 0.97 * want, f"W {len(cyc) - 1} beats in {span}"
        assert wbs <= 2 + span // 64, f"{wbs} write-backs in {span} cycles (WB_GAP 64)"
    c = await host.counters(0)
    assert c["Q_DROP_FULL"] == 0


@cocotb.test(timeout_time=100, timeout_unit="ms")
async def flush_bound(dut):
    """A lone frame to queue 1 while queue 0 receives a frame every 3 cycles (the input never
    quiet): queue 1's partial block waits for FLUSH_CYCLES (256) and is written within the
    bound of docs/host.md (FLUSH_CYCLES + 8 x QUEUES + 16 cycles after the mover took it, about
    15 after its last input beat, plus the reader and AXI, about 10)."""
    host = await setup(dut, seed=DATA_W + 4)
    rng = host.rng
    for q in (0, 1):
        await host.setup_queue(q, 1 << 16)
    cocotb.start_soon(host.driver(delay=(0, 0)))
    lone = [(frame(rng, 100, 1), desc(rng, 1, 1))]
    await host.send(lone)
    t_last = host.last_in_cycle
    busy = [(frame(rng, 60, 100 + i), desc(rng, 0, 2 + i)) for i in range(300)]
    await host.send(busy, gap=lambda f: 2)
    await quiet(host, {1: record_len(100)})
    w = host.first_write[1] - t_last
    dut._log.info("flush_bound %d bits: queue 1's first ring write %d cycles after its frame's "
                  "last input beat", DATA_W, w)
    assert FLUSH <= w <= FLUSH + 8 * QUEUES + 16 + 25, w
    assert host.captured[1] == 1

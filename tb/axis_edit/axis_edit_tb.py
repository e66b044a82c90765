"""cocotb tests of rtl/stream/axis_edit.sv (the pipelined edit engine), against the golden model
wirespeed/model/edit.py.

random_frames: random frames (1..600 bytes, a few up to 9600) through cocotbext-axi source and
  sink with random idle on the input and random backpressure on the output, in phases;
  descriptors fed by their own coroutine with random delays (so they come before, during or
  after their frame's first beats; one phase has them all queued ahead). Random shift
  D in [-64, 200] (mostly L >= 1, some L < 1), head bytes and enables, out_len, min_len, sum
  regions (half of them made to sum to 0xFFFF), rx_err, drop. Every output frame is compared with
  the model (bytes, tuser of the last beat), every status event field by field; a raw monitor
  checks that non-last beats have every tkeep bit and tuser = 0 and that empty lanes of last
  beats are 0.

cycles: full-rate input (a beat every cycle, frames back to back), output always ready,
  descriptors queued ahead: for frames of every length 60..600 with random D >= 0,
  s_axis_tready never falls while a beat is offered; the first output beat of an idle engine
  comes exactly LATENCY cycles after its frame's first input beat (and after each isolated
  frame of the second phase, LATENCY + floor(D / KW)), the last output beat of an isolated
  frame exactly LAST_LATENCY cycles after its last input beat, and every frame's output equals
  the model.
"""

from __future__ import annotations

import logging
import os
import random
from collections import deque

import cocotb
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from tb.common.bench import clock_and_reset
from wirespeed.model.common import ones_sum
from wirespeed.model.edit import EditDesc, edit, out_length

SEED = int(os.environ.get("WS_EDIT_SEED", "0"))
FRAMES = int(os.environ.get("WS_EDIT_FRAMES", "160"))

# First-beat latency in cycles (axis_edit.sv header: 8 + NSH + EXTRA). The last output beat
# leaves as many cycles after the frame's last input beat (two input beats at least).
LATENCY = {64: 10, 128: 11, 256: 11, 512: 12}
LAST_LATENCY = LATENCY
PERIOD_NS = 4   # clock_and_reset's default


def now() -> int:
    """The current cycle (rising edges since time 0)."""
    return int(get_sim_time("ns")) // PERIOD_NS

INPUTS = ("s_axis_tvalid", "s_axis_tlast", "s_axis_tuser", "s_axis_tdata", "s_axis_tkeep",
          "s_desc_valid", "m_axis_tready")


def params(dut) -> tuple[int, int, int]:
    """(bytes per beat, HEAD_BYTES, LEN_W) from the port widths."""
    return len(dut.s_axis_tkeep), len(dut.s_desc_head_en), len(dut.s_desc_out_len)


def pause_gen(p: float, rng: random.Random):
    while True:
        yield rng.random() < p


def sum_fix(data: bytearray, start: int, end: int, rng: random.Random) -> None:
    """Make the one's-complement sum of data[start:end] 0xFFFF by setting one word in it."""
    end = min(end, len(data))
    if end - start < 2:
        return
    c = start + 2 * rng.randrange((end - start) // 2)
    data[c] = data[c + 1] = 0
    s = ones_sum(bytes(data[start:end]))
    w = (~s) & 0xFFFF
    data[c], data[c + 1] = w >> 8, w & 0xFF


def random_case(rng: random.Random, kw: int, head_bytes: int, len_w: int, n: int,
                non_negative: bool = False):
    """(frame bytes, descriptor, rx_err) for an n-byte frame."""
    data = bytearray(rng.getrandbits(8) for _ in range(n))
    full = (1 << len_w) - 1
    # D: mostly L >= 1 (D < n), some past the frame's end
    if non_negative:
        d = rng.randint(0, min(200, n - 1))
    elif rng.random() < 0.06:
        d = rng.randint(n, n + 40)
    else:
        d = rng.randint(-64, min(200, n - 1))
    head = bytes(rng.getrandbits(8) for _ in range(head_bytes))
    r = rng.random()
    head_en = 0 if r < 0.3 else (1 << head_bytes) - 1 if r < 0.4 else rng.getrandbits(head_bytes)
    avail = n - d
    r = rng.random()
    if r < 0.45 or non_negative and r < 0.7:
        out_len = full
    elif r < 0.05 + 0.45:
        out_len = 0
    else:
        out_len = rng.randint(1, max(1, avail + 10))
    min_len = 0 if rng.random() < 0.6 else rng.randint(max(0, n - 8), n + 8)
    sum_en = rng.random() < 0.5
    start = 2 * rng.randint(0, (n + 10) // 2)
    end = rng.randint(max(0, start - 4), n + 12)
    if sum_en and rng.random() < 0.6:
        sum_fix(data, start, end, rng)
    rx_err = rng.random() < 0.1
    drop = rng.random() < 0.08
    desc = EditDesc(drop=drop, shift=d, head=head, head_en=head_en, out_len=out_len,
                    min_len=min_len, sum_en=sum_en, sum_start=start, sum_end=end,
                    meta=rng.getrandbits(8))
    return bytes(data), desc, rx_err


def drive_desc(dut, d: EditDesc, len_w: int) -> None:
    dut.s_desc_drop.value = int(d.drop)
    dut.s_desc_shift.value = d.shift & ((1 << (len_w + 1)) - 1)
    dut.s_desc_head.value = int.from_bytes(d.head, "little")
    dut.s_desc_head_en.value = d.head_en
    dut.s_desc_out_len.value = d.out_len
    dut.s_desc_min_len.value = d.min_len
    dut.s_desc_sum_en.value = int(d.sum_en)
    dut.s_desc_sum_start.value = d.sum_start
    dut.s_desc_sum_end.value = d.sum_end
    dut.s_desc_meta.value = d.meta


class Bench:
    """Descriptor driver, status monitor and raw output checks around one DUT."""

    def __init__(self, dut, rng: random.Random):
        self.dut = dut
        self.rng = rng
        self.kw, self.head_bytes, self.len_w = params(dut)
        self.descs: deque[tuple[EditDesc, int]] = deque()   # (descriptor, cycles to wait)
        self.stats: list[dict] = []
        self.cycle = 0
        self.errors: list[str] = []
        cocotb.start_soon(self._desc_driver())
        cocotb.start_soon(self._monitor())

    async def _desc_driver(self) -> None:
        dut = self.dut
        dut.s_desc_valid.value = 0
        while True:
            await FallingEdge(dut.clk)
            if not self.descs:
                continue
            d, wait = self.descs.popleft()
            for _ in range(wait):
                await FallingEdge(dut.clk)
            drive_desc(dut, d, self.len_w)
            dut.s_desc_valid.value = 1
            while True:
                await RisingEdge(dut.clk)
                if int(dut.s_desc_ready.value):
                    break
            await FallingEdge(dut.clk)
            dut.s_desc_valid.value = 0

    async def _monitor(self) -> None:
        dut = self.dut
        kw = self.kw
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            if int(dut.m_stat_valid.value):
                self.stats.append({k: int(getattr(dut, f"m_stat_{k}").value) for k in
                                   ("meta", "emitted", "rx_err", "short", "sum_bad", "in_len",
                                    "out_len")})
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                keep = int(dut.m_axis_tkeep.value)
                data = int(dut.m_axis_tdata.value)
                last = int(dut.m_axis_tlast.value)
                if not last:
                    if keep != (1 << kw) - 1:
                        self.errors.append(f"cycle {self.cycle}: non-last beat tkeep {keep:x}")
                    if int(dut.m_axis_tuser.value):
                        self.errors.append(f"cycle {self.cycle}: tuser on a non-last beat")
                else:
                    nb = keep.bit_length()
                    if keep != (1 << nb) - 1 or nb == 0:
                        self.errors.append(f"cycle {self.cycle}: last tkeep {keep:x}")
                    if data >> (8 * nb):
                        self.errors.append(f"cycle {self.cycle}: empty lanes not 0")

    def check_stats(self, cases) -> None:
        assert not self.errors, self.errors[:5]
        assert len(self.stats) == len(cases), f"{len(self.stats)} status events, {len(cases)} frames"
        for i, ((data, desc, rx_err), st) in enumerate(zip(cases, self.stats)):
            exp = edit(data, desc, rx_err)
            want = {"meta": exp.meta, "emitted": int(exp.emitted), "rx_err": int(exp.rx_err),
                    "short": int(exp.short), "sum_bad": int(exp.sum_bad), "in_len": exp.in_len,
                    "out_len": exp.out_len}
            assert st == want, f"frame {i} (n={len(data)}, {desc}): status {st} != {want}"


def quiet(*ends) -> None:
    """cocotbext-axi logs every frame at INFO: keep the test log readable."""
    for e in ends:
        e.log.setLevel(logging.WARNING)


def tuser_last(rx) -> int:
    t = rx.tuser
    return int(t[-1] if isinstance(t, list) else t)


async def check_outputs(snk: AxiStreamSink, cases) -> None:
    for i, (data, desc, rx_err) in enumerate(cases):
        exp = edit(data, desc, rx_err)
        if exp.output is None:
            continue
        rx = await snk.recv()
        got = bytes(rx.tdata)
        assert got == exp.output, (f"frame {i} (n={len(data)}, D={desc.shift}, "
                                   f"out_len={desc.out_len}): {got.hex()} != {exp.output.hex()}")
        assert tuser_last(rx) == int(exp.aborted), f"frame {i}: tuser {tuser_last(rx)}"
    assert snk.empty()


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def random_frames(dut):
    """Random frames, descriptors, idle and backpressure against the model."""
    await clock_and_reset(dut, INPUTS)
    kw, head_bytes, len_w = params(dut)
    rng = random.Random(SEED * 1000 + kw)
    bench = Bench(dut, rng)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    quiet(src, snk)

    # (input idle, output stall, descriptor delay range, descriptors queued ahead)
    phases = [(0.0, 0.0, 0, True), (0.3, 0.0, 12, False), (0.2, 0.5, 40, False),
              (0.0, 0.3, 3, False)]
    cases = []
    per_phase = max(4, FRAMES // len(phases))
    for p, (idle, stall, dmax, ahead) in enumerate(phases):
        src.set_pause_generator(pause_gen(idle, random.Random(rng.random())) if idle else None)
        snk.set_pause_generator(pause_gen(stall, random.Random(rng.random())) if stall else None)
        if not idle:
            src.pause = False
        if not stall:
            snk.pause = False
        phase_cases = []
        for i in range(per_phase):
            n = rng.randint(1, 600)
            if p == 2 and i < 2:
                n = rng.randint(2000, 9600)
            if p == 1 and i < 8:
                n = rng.randint(1, 2 * kw)      # tiny frames back to back
            phase_cases.append(random_case(rng, kw, head_bytes, len_w, n))
        for data, desc, rx_err in phase_cases:
            bench.descs.append((desc, 0 if ahead else rng.randint(0, dmax)))
        for data, desc, rx_err in phase_cases:
            await src.send(AxiStreamFrame(data, tuser=[0] * (len(data) - 1) + [int(rx_err)]))
        await check_outputs(snk, phase_cases)
        await src.wait()
        cases += phase_cases
        # the status of the last frames comes a few cycles after their last beat
        for _ in range(40):
            await RisingEdge(dut.clk)
        bench.check_stats(cases)
    for _ in range(40):
        await RisingEdge(dut.clk)
    bench.check_stats(cases)


@cocotb.test(timeout_time=40, timeout_unit="ms")
async def cycles(dut):
    """Full rate: s_axis_tready never falls for D >= 0; exact first-beat latency."""
    await clock_and_reset(dut, INPUTS)
    kw, head_bytes, len_w = params(dut)
    width = 8 * kw
    rng = random.Random(SEED * 1000 + 7 + kw)
    bench = Bench(dut, rng)
    snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    quiet(snk)
    snk.pause = False
    dut.m_axis_tready.value = 1

    lengths = list(range(60, 601))
    rng.shuffle(lengths)
    cases = [random_case(rng, kw, head_bytes, len_w, n, non_negative=True) for n in lengths]
    # The first frame's latency is checked: it leaves, D < KW, at least two output beats.
    data, desc, _ = random_case(rng, kw, head_bytes, len_w, 600, non_negative=True)
    cases[0] = (data, EditDesc(shift=rng.randrange(kw), head=desc.head, head_en=desc.head_en,
                               out_len=(1 << len_w) - 1), False)
    for _, desc, _ in cases:
        bench.descs.append((desc, 0))
    # Descriptors ahead: let the driver queue as many as the engine takes.
    for _ in range(40):
        await RisingEdge(dut.clk)

    first_in: list[int] = []      # cycle of each frame's first input beat
    first_out: list[int] = []     # cycle of each output frame's first beat
    last_in: list[int] = []       # cycle of each frame's last input beat
    last_out: list[int] = []      # cycle of each output frame's last beat
    out_frames: list[int] = []    # index of the frame each output frame belongs to

    async def out_watch():
        # Sampled mid-cycle: a beat valid and ready now is taken at the next rising edge.
        start = True
        while True:
            await FallingEdge(dut.clk)
            await ReadOnly()
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                if start:
                    first_out.append(now() + 1)
                start = bool(int(dut.m_axis_tlast.value))
                if start:
                    last_out.append(now() + 1)

    cocotb.start_soon(out_watch())

    async def send(batch, gap: int) -> None:
        """Drive the frames of `batch` a beat per cycle; `gap` idle cycles between frames."""
        for data, desc, rx_err in batch:
            nb = (len(data) + kw - 1) // kw
            for b in range(nb):
                await FallingEdge(dut.clk)
                chunk = data[b * kw:(b + 1) * kw]
                dut.s_axis_tdata.value = int.from_bytes(chunk, "little")
                dut.s_axis_tkeep.value = (1 << len(chunk)) - 1
                dut.s_axis_tlast.value = int(b == nb - 1)
                dut.s_axis_tuser.value = int(rx_err and b == nb - 1)
                dut.s_axis_tvalid.value = 1
                await ReadOnly()
                assert int(dut.s_axis_tready.value), (
                    f"s_axis_tready low in cycle {now()} (frame n={len(data)}, beat {b})")
                if b == 0:
                    first_in.append(now() + 1)     # taken at the next rising edge
                if b == nb - 1:
                    last_in.append(now() + 1)
                await RisingEdge(dut.clk)
            if gap:
                await FallingEdge(dut.clk)
                dut.s_axis_tvalid.value = 0
                for _ in range(gap - 1):
                    await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        dut.s_axis_tvalid.value = 0

    # Phase 1: every length back to back.
    await send(cases, 0)
    emitted = [i for i, (d, desc, e) in enumerate(cases) if edit(d, desc, e).output is not None]
    await check_outputs(snk, cases)
    assert emitted and emitted[0] == 0, "the first frame must leave (its latency is checked)"
    assert first_out[0] - first_in[0] == LATENCY[width], (
        f"latency {first_out[0] - first_in[0]} != {LATENCY[width]}")

    # Phase 2: isolated frames (idle engine each time), pass-through, two beats or more.
    iso = []
    for n, d in ((2 * kw, 0), (60, 1), (61, kw - 1), (64 + kw, kw + 3), (200, 2 * kw + 5),
                 (599, 7)):
        n = max(n, kw + 1)
        d = d % (n - kw)    # two output beats at least: the first is not the last
        data = bytes(rng.getrandbits(8) for _ in range(n))
        iso.append((data, EditDesc(shift=d, out_len=(1 << len_w) - 1), False))
    for _, desc, _ in iso:
        bench.descs.append((desc, 0))
    for _ in range(40):
        await RisingEdge(dut.clk)
    n_before_in, n_before_out = len(first_in), len(first_out)
    assert len(last_in) == n_before_in and len(last_out) == n_before_out
    await send(iso, 60)
    await check_outputs(snk, iso)
    # output beat 0 reads input beats q and q + 1: q = floor(D / KW) cycles more
    lat = [o - i for i, o in zip(first_in[n_before_in:], first_out[n_before_out:])]
    want = [LATENCY[width] + desc.shift // kw for _, desc, _ in iso]
    assert lat == want, f"isolated-frame latencies {lat}, expected {want}"
    lat = [o - i for i, o in zip(last_in[n_before_in:], last_out[n_before_out:])]
    assert lat == [LAST_LATENCY[width]] * len(iso), f"isolated-frame last-beat latencies {lat}"
    for _ in range(40):
        await RisingEdge(dut.clk)
    bench.check_stats(cases + iso)

"""cocotb tests of rtl/stream/axis_frame_fifo.sv (store-and-forward frame FIFO that announces each
frame's length).

A reference model (`model`) predicts every output frame from the input frame and the RAM size:
  - the same bytes (a frame longer than DEPTH beats: its first DEPTH beats, the last of them
    flagged tlast -- the FIFO cuts it where the RAM is full and discards the rest);
  - m_len = the frame's real byte length, saturating at 0xFFFF;
  - m_oversize = longer than DEPTH beats; m_bad = tuser of its last input beat, or oversize
    (tuser of the other input beats is ignored);
  - m_len/m_bad/m_oversize constant over every beat of the frame (sampled on each output beat);
  - m_axis_tuser = m_bad on the last beat, 0 on the others; tkeep all ones on every beat but
    the last, contiguous from bit 0 on the last.
Input frames follow the module's assumption: tkeep all ones on every beat but the last,
contiguous from bit 0 on the last (cocotbext-axi's AxiStreamSource drives exactly that).

Cycle timing (the RTL guarantees it; a timing rewrite of the RTL must keep it), measured with
the output always ready:
  LATENCY = 3: from the rising edge where a frame's last input beat is taken (handshake) to the
    edge where its first output beat is taken, FIFO idle before (any width, any length,
    oversize frames too: there "last input beat" is the discarded tlast beat). So for an idle
    FIFO the first output beat leaves LATENCY + input beats - 1 cycles after the first input beat.
  One beat per cycle: frames of equal beat count sent back to back leave back to back
    (last output beat - first output beat = total beats - 1 cycles), and s_axis_tready never
    falls while they do, for 1..8-beat frames with DEPTH = 16 and FRAMES = 4; complete frames
    already stored leave back to back from the edge the output turns ready, and under any
    pattern of the output's ready m_axis_tvalid stays high until the last of them has left.
  Length queue: FRAMES complete frames wait in the RAM; a frame whose last beat has been read
    out (the OUT_HELD beats held at a stalled output) no longer counts.

The RAM geometry comes from the environment (WS_FIFO_DEPTH, WS_FIFO_FRAMES; the pytest entry
sets them together with the DEPTH/FRAMES parameters).
"""

from __future__ import annotations

import itertools
import logging
import os
import random
from dataclasses import dataclass
from typing import Callable

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

DEPTH = int(os.environ.get("WS_FIFO_DEPTH", "1024"))
FRAMES = int(os.environ.get("WS_FIFO_FRAMES", "32"))
# Every random stream is seeded from the width and this (default 0): a failure reproduces with
# the same WS_FIFO_SEED; another value gives other frames.
SEED = int(os.environ.get("WS_FIFO_SEED", "0"))
# Small RAM: every test at full strength; the default depth (1024 beats) gets fewer phases.
SMALL = DEPTH <= 64
LEN_MAX = 0xFFFF

# Edges from a frame's last input handshake to its first output handshake (idle FIFO, output
# ready): commit of the frame (its first read issued) -> RAM read -> RAM output register ->
# output register -> handshake. Measured at 64/128/256/512 bits with DEPTH 16, and at 256 bits with DEPTH 1024.
LATENCY = 3
# Committed beats out of the RAM while the sink is stalled: the output register and the 2-entry
# queue behind it (the reads in flight when the sink stalls land there).
OUT_HELD = 3


# ------------------------------------------------------------------------------ reference model

@dataclass
class Expected:
    data: bytes       # bytes that leave
    length: int       # m_len
    bad: bool         # m_bad (and tuser of the last beat)
    oversize: bool    # m_oversize
    in_beats: int     # beats of the input frame
    label: str


def model(data: bytes, bad_last: bool, kw: int, label: str = "") -> Expected:
    in_beats = -(-len(data) // kw)
    over = in_beats > DEPTH
    return Expected(
        data=data[: DEPTH * kw] if over else data,
        length=min(len(data), LEN_MAX),
        bad=bool(bad_last) or over,
        oversize=over,
        in_beats=in_beats,
        label=label or f"{len(data)} B{' bad' if bad_last else ''}",
    )


def make_frame(rng: random.Random, length: int, bad: bool, kw: int, p_user: float = 0.3):
    """A frame of `length` random bytes; tuser = `bad` on its last beat, random on the others
    (the FIFO must ignore those). Returns (AxiStreamFrame, Expected)."""
    data = rng.randbytes(length)
    nb = -(-length // kw)
    tuser: list[int] = []
    for b in range(nb):
        u = int(bad) if b == nb - 1 else int(rng.random() < p_user)
        tuser += [u] * min(kw, length - b * kw)  # the source drives a beat's last byte's tuser
    return AxiStreamFrame(data, tuser=tuser), model(data, bad, kw)


# ------------------------------------------------------------------------------ probe

@dataclass
class OutBeat:
    cycle: int
    data: int
    keep: int
    last: int
    user: int
    length: int
    bad: int
    oversize: int


class Probe:
    """Samples both ports at every rising edge (values of the cycle that ends there): input
    handshakes (edge number, tlast), output beats with their side band, s_axis_tready."""

    def __init__(self, dut) -> None:
        self.dut = dut
        self.cycle = 0
        self.inputs: list[tuple[int, int]] = []   # (edge, tlast) of every input handshake
        self.frames: list[list[OutBeat]] = []     # complete output frames
        self.cur: list[OutBeat] = []
        self.n_out = 0                            # output beats
        self.ready_low: list[int] = []            # edges that saw s_axis_tready = 0
        self.low_run = 0                          # consecutive such edges up to now
        cocotb.start_soon(self._run())

    async def _run(self) -> None:
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            s_ready = int(d.s_axis_tready.value)
            if s_ready:
                self.low_run = 0
                if int(d.s_axis_tvalid.value):
                    self.inputs.append((self.cycle, int(d.s_axis_tlast.value)))
            else:
                self.low_run += 1
                self.ready_low.append(self.cycle)
            if int(d.m_axis_tvalid.value) and int(d.m_axis_tready.value):
                beat = OutBeat(
                    self.cycle,
                    int(d.m_axis_tdata.value),
                    int(d.m_axis_tkeep.value),
                    int(d.m_axis_tlast.value),
                    int(d.m_axis_tuser.value),
                    int(d.m_len.value),
                    int(d.m_bad.value),
                    int(d.m_oversize.value),
                )
                self.n_out += 1
                self.cur.append(beat)
                if beat.last:
                    self.frames.append(self.cur)
                    self.cur = []

    def input_frames(self, start: int = 0) -> tuple[list[list[int]], list[int]]:
        """Input handshakes from index `start` split into frames: (complete frames, the open
        one), each a list of edge numbers."""
        done, cur = [], []
        for cycle, last in self.inputs[start:]:
            cur.append(cycle)
            if last:
                done.append(cur)
                cur = []
        return done, cur


def check_frame(beats: list[OutBeat], exp: Expected, kw: int, where: str) -> None:
    full = (1 << kw) - 1
    tag = f"{where}, frame {exp.label}"
    out = bytearray()
    for i, b in enumerate(beats):
        last = i == len(beats) - 1
        assert b.last == int(last), f"{tag}: tlast {b.last} on beat {i} of {len(beats)}"
        if not last:
            assert b.keep == full, f"{tag}: tkeep {b.keep:#x} on beat {i}, not the last"
            assert b.user == 0, f"{tag}: m_axis_tuser on beat {i}, not the last"
        else:
            assert b.keep and b.keep & (b.keep + 1) == 0, f"{tag}: last tkeep {b.keep:#x} not 0..01..1"
            assert b.user == int(exp.bad), f"{tag}: m_axis_tuser {b.user} on the last beat, m_bad {int(exp.bad)}"
        assert (b.length, b.bad, b.oversize) == (exp.length, int(exp.bad), int(exp.oversize)), (
            f"{tag}: beat {i}: m_len/m_bad/m_oversize = {b.length}/{b.bad}/{b.oversize}, "
            f"expected {exp.length}/{int(exp.bad)}/{int(exp.oversize)}"
        )
        out += b.data.to_bytes(kw, "little")[: b.keep.bit_length()]
    assert bytes(out) == exp.data, f"{tag}: data {bytes(out).hex()} != {exp.data.hex()}"


# ------------------------------------------------------------------------------ helpers

def start(dut) -> int:
    Clock(dut.clk, 4, unit="ns").start()
    # cocotbext-axi logs every frame at INFO; the probe and the asserts say what matters
    for port in ("s_axis", "m_axis"):
        logging.getLogger(f"cocotb.{dut._name}.{port}").setLevel(logging.WARNING)
    return len(dut.s_axis_tkeep)


async def reset(dut) -> None:
    dut.rst.value = 1
    dut.s_axis_tvalid.value = 0
    dut.s_axis_tlast.value = 0
    dut.s_axis_tuser.value = 0
    dut.m_axis_tready.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)


def random_pause(p: float, seed: int):
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


def set_pauses(src, snk, p_idle: float, p_stall: float, seed: int) -> None:
    # (cocotbext-axi leaves `pause` at its last value when the generator is removed)
    src.set_pause_generator(random_pause(p_idle, seed) if p_idle else None)
    if not p_idle:
        src.pause = False
    if snk is not None:
        snk.set_pause_generator(random_pause(p_stall, seed + 1) if p_stall else None)
        if not p_stall:
            snk.pause = False


async def until(dut, probe: Probe, cond: Callable[[], bool], limit: int, what: str) -> None:
    for _ in range(limit):
        if cond():
            return
        await RisingEdge(dut.clk)
    assert cond(), f"{what}: not within {limit} cycles (edge {probe.cycle})"


async def idle(dut, cycles: int = 6) -> None:
    for _ in range(cycles):
        await RisingEdge(dut.clk)


def stream(dut):
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    return src, snk


async def run_frames(dut, src, snk, probe: Probe, frames, kw: int, where: str) -> None:
    """Send `frames` [(AxiStreamFrame, Expected)], receive them all from the sink (bytes) and the
    probe (side band), compare with the model."""
    base = len(probe.frames)
    for f, _ in frames:
        await src.send(f)
    for i, (_, exp) in enumerate(frames):
        rx = await snk.recv()
        assert bytes(rx.tdata) == exp.data, (
            f"{where}: frame {i} ({exp.label}): sink got {len(rx.tdata)} B {bytes(rx.tdata).hex()}, "
            f"expected {len(exp.data)} B {exp.data.hex()}"
        )
    await until(dut, probe, lambda: len(probe.frames) >= base + len(frames), 10, f"{where}: probe frames")
    assert len(probe.frames) == base + len(frames), f"{where}: extra output frames"
    for i, (_, exp) in enumerate(frames):
        check_frame(probe.frames[base + i], exp, kw, f"{where}, frame {i}")
    assert snk.empty()


# Pause settings (source idle probability, sink stall probability), "none" first.
PHASES = [(0.0, 0.0), (0.3, 0.0), (0.0, 0.5), (0.3, 0.5), (0.1, 0.8), (0.6, 0.2)]


def directed_lengths(kw: int) -> list[int]:
    lengths = {1}
    for beats in (1, 2, 3):
        lengths |= {beats * kw - 1, beats * kw, beats * kw + 1}
    lengths |= {DEPTH * kw - 1, DEPTH * kw, DEPTH * kw + 1, (DEPTH + 1) * kw, 3 * DEPTH * kw}
    return sorted(x for x in lengths if x >= 1)


# ------------------------------------------------------------------------------ tests

@cocotb.test(timeout_time=2, timeout_unit="ms")
async def directed_lengths_with_backpressure(dut):
    """1 byte, 1..3 beats +- 1 byte, DEPTH beats - 1 byte, exactly DEPTH beats, DEPTH beats + 1
    byte (cut: oversize), DEPTH + 1 beats, 3 x DEPTH beats (oversize); good and bad; in order,
    then shuffled, under every pause setting."""
    kw = start(dut)
    await reset(dut)
    src, snk = stream(dut)
    probe = Probe(dut)
    rng = random.Random(f"directed {kw} {SEED}")
    lengths = directed_lengths(kw)
    for n, (p_idle, p_stall) in enumerate(PHASES if SMALL else [PHASES[0], PHASES[3]]):
        set_pauses(src, snk, p_idle, p_stall, 100 + 10 * n + 1000 * SEED)
        order = [(ln, bad) for bad in (False, True) for ln in lengths]
        if n:
            rng.shuffle(order)
        frames = [make_frame(rng, ln, bad, kw) for ln, bad in order]
        await run_frames(dut, src, snk, probe, frames, kw, f"phase idle {p_idle} stall {p_stall}")
    done, open_ = probe.input_frames()
    assert len(done) == len(probe.frames) and not open_


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def random_frames_with_backpressure(dut):
    """Random lengths 1 .. DEPTH x bytes per beat + 40 (so some oversize; a third of them near a
    beat or RAM boundary), a quarter bad, random tuser on the beats before the last, under every
    pause setting; the bound protocol monitors count as many frames in as out."""
    kw = start(dut)
    await reset(dut)
    src, snk = stream(dut)
    probe = Probe(dut)
    rng = random.Random(f"random {kw} {SEED}")
    per_phase = 150 if SMALL else 4
    edges = directed_lengths(kw)

    def length() -> int:
        # a third of the lengths within 2 bytes of a beat / RAM boundary
        if rng.random() < 1 / 3:
            return max(1, rng.choice(edges) + rng.randint(-2, 2))
        return rng.randint(1, DEPTH * kw + 40)

    for n, (p_idle, p_stall) in enumerate(PHASES):
        set_pauses(src, snk, p_idle, p_stall, 200 + 10 * n + 1000 * SEED)
        frames = [make_frame(rng, length(), rng.random() < 0.25, kw) for _ in range(per_phase)]
        await run_frames(dut, src, snk, probe, frames, kw, f"phase idle {p_idle} stall {p_stall}")
    done, open_ = probe.input_frames()
    assert len(done) == len(probe.frames) == len(PHASES) * per_phase and not open_
    await idle(dut, 2)  # the monitors count at the edge
    mon_in, mon_out = int(dut.mon_s_axis.frames.value), int(dut.mon_m_axis.frames.value)
    assert mon_in == mon_out == len(done), f"protocol monitors: {mon_in} frames in, {mon_out} out"
    assert int(dut.mon_s_axis.beats.value) == len(probe.inputs)
    assert int(dut.mon_m_axis.beats.value) == probe.n_out


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def length_saturates(dut):
    """m_len saturates at 0xFFFF (the FIFO counts the real length of a frame it cuts)."""
    kw = start(dut)
    await reset(dut)
    src, snk = stream(dut)
    probe = Probe(dut)
    rng = random.Random(f"saturation {kw} {SEED}")
    frames = [make_frame(rng, ln, rng.random() < 0.5, kw, 0.0) for ln in (65534, 65535, 65536, 70000)]
    assert [e.length for _, e in frames] == [65534, 65535, 65535, 65535]
    await run_frames(dut, src, snk, probe, frames, kw, "saturation")


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def idle_latency(dut):
    """Idle FIFO, output always ready: a frame's first beat is taken LATENCY edges after its last
    input beat, for any length (oversize included), and it leaves at one beat per cycle."""
    kw = start(dut)
    await reset(dut)
    dut.m_axis_tready.value = 1
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    probe = Probe(dut)
    rng = random.Random(f"latency {kw} {SEED}")
    lengths = sorted({1, kw, kw + 1, 2 * kw, 3 * kw + 1, DEPTH * kw, DEPTH * kw + 1, 3 * DEPTH * kw})
    for ln in lengths:
        for bad in (False, True):
            frame, exp = make_frame(rng, ln, bad, kw)
            n_in, n_out = len(probe.inputs), len(probe.frames)
            await src.send(frame)
            await until(dut, probe, lambda: len(probe.frames) > n_out, 4 * exp.in_beats + 20, exp.label)
            ins = [c for c, _ in probe.inputs[n_in:]]
            out = probe.frames[n_out]
            check_frame(out, exp, kw, "idle latency")
            assert len(ins) == exp.in_beats and ins[-1] - ins[0] == len(ins) - 1, f"{exp.label}: input not back to back"
            latency = out[0].cycle - ins[-1]
            dut._log.info("%s: last input beat -> first output beat: %d cycles", exp.label, latency)
            assert latency == LATENCY, f"{exp.label}: latency {latency} cycles, expected {LATENCY}"
            assert out[0].cycle - ins[0] == exp.in_beats - 1 + LATENCY
            assert out[-1].cycle - out[0].cycle == len(out) - 1, f"{exp.label}: gaps in the output"
            await idle(dut)


# (specified for the RAMs the pytest entry builds: 8-beat frames back to back need DEPTH >= 16,
# 1-beat frames keep 2 length-queue entries busy: commit to landing)
@cocotb.test(timeout_time=2, timeout_unit="ms", skip=not (DEPTH >= 16 and FRAMES >= 4))
async def back_to_back_one_beat_per_cycle(dut):
    """Output always ready, source back to back: batches of frames of equal beat count (1..8 beats,
    random byte count in the last beat, some bad) leave at one beat per cycle with no gap
    (last output beat - first = total beats - 1), the first LATENCY edges after the first
    frame's last input beat, and s_axis_tready never falls."""
    kw = start(dut)
    await reset(dut)
    dut.m_axis_tready.value = 1
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    probe = Probe(dut)
    rng = random.Random(f"back to back {kw} {SEED}")
    for nbeats in (1, 2, 3, 4, 5, 8):
        batch = [
            make_frame(rng, (nbeats - 1) * kw + rng.randint(1, kw), rng.random() < 0.25, kw)
            for _ in range(16)
        ]
        n_in, n_out = len(probe.inputs), len(probe.frames)
        for f, _ in batch:
            src.send_nowait(f)  # all queued at once: the source sends them back to back
        total = sum(e.in_beats for _, e in batch)
        await until(dut, probe, lambda: len(probe.frames) >= n_out + len(batch), 4 * total + 40, f"{nbeats}-beat batch")
        where = f"{nbeats}-beat batch"
        ins = [c for c, _ in probe.inputs[n_in:]]
        assert len(ins) == total and ins[-1] - ins[0] == total - 1, f"{where}: input not back to back"
        outs = probe.frames[n_out:]
        for i, (_, exp) in enumerate(batch):
            check_frame(outs[i], exp, kw, f"{where}, frame {i}")
        first, last = outs[0][0].cycle, outs[-1][-1].cycle
        dut._log.info("%s: %d beats out in %d cycles", where, total, last - first + 1)
        assert last - first == total - 1, f"{where}: {total} beats left in {last - first + 1} cycles"
        assert first - ins[nbeats - 1] == LATENCY
        low = [c for c in probe.ready_low if ins[0] <= c <= last]
        assert not low, f"{where}: s_axis_tready low at edges {low[:10]}"
        await idle(dut)


async def store_stalled(dut, src, probe, rng, kw: int):
    """With the output stalled, send min(FRAMES, 8) frames of 1..4 beats (all of them fit in
    the RAM) and wait until they are stored: (the frames, the output frames seen before)."""
    dut.m_axis_tready.value = 0
    count = min(FRAMES, 8)
    per = max(1, min(4, DEPTH // count))  # beats
    batch = [
        make_frame(rng, rng.randint(1, per * kw), rng.random() < 0.25, kw)
        for _ in range(count)
    ]
    n_out = len(probe.frames)
    for f, _ in batch:
        await src.send(f)
    await src.wait()
    await idle(dut, LATENCY + 3)
    return batch, n_out


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def stored_frames_leave_back_to_back(dut):
    """Output stalled while min(FRAMES, 8) frames (1..4 beats each, all fitting in the RAM) come
    in; once the output is ready they leave at one beat per cycle from the first edge on (the
    output register already holds the first beat)."""
    kw = start(dut)
    await reset(dut)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    probe = Probe(dut)
    rng = random.Random(f"stored {kw} {SEED}")
    for rnd in range(4):
        batch, n_out = await store_stalled(dut, src, probe, rng, kw)
        assert probe.n_out == sum(len(f) for f in probe.frames) + len(probe.cur)
        assert len(probe.frames) == n_out and not probe.cur, "output beat taken while not ready"
        assert int(dut.m_axis_tvalid.value) == 1, "output register empty with complete frames stored"
        dut.m_axis_tready.value = 1
        total = sum(e.in_beats for _, e in batch)
        await until(dut, probe, lambda: len(probe.frames) >= n_out + len(batch), total + 10, f"round {rnd}")
        outs = probe.frames[n_out:]
        for i, (_, exp) in enumerate(batch):
            check_frame(outs[i], exp, kw, f"round {rnd}, frame {i}")
        assert outs[-1][-1].cycle - outs[0][0].cycle == total - 1, f"round {rnd}: gaps in the output"
        await idle(dut)


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def stored_frames_random_backpressure(dut):
    """Output stalled while min(FRAMES, 8) frames (1..4 beats) come in; then the sink's ready
    follows a random pattern (several stall probabilities): m_axis_tvalid never falls until the
    last beat has left (the reads in flight when the sink stalls wait at the output, and the
    reads resume in time), and the frames are whole and in order."""
    kw = start(dut)
    await reset(dut)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    probe = Probe(dut)
    rng = random.Random(f"stored random {kw} {SEED}")
    for rnd, p_stall in enumerate((0.1, 0.3, 0.5, 0.7, 0.9)):
        batch, n_out = await store_stalled(dut, src, probe, rng, kw)
        total = sum(e.in_beats for _, e in batch)
        low = []
        for _ in range(50 * total + 50):
            if len(probe.frames) >= n_out + len(batch):
                break
            dut.m_axis_tready.value = int(rng.random() >= p_stall)
            await RisingEdge(dut.clk)
            if not int(dut.m_axis_tvalid.value) and len(probe.frames) < n_out + len(batch):
                low.append(probe.cycle)
        dut.m_axis_tready.value = 0
        assert len(probe.frames) == n_out + len(batch), f"round {rnd}: frames missing"
        assert not low, f"round {rnd} (stall {p_stall}): m_axis_tvalid low at edges {low[:10]}"
        for i, (_, exp) in enumerate(batch):
            check_frame(probe.frames[n_out + i], exp, kw, f"round {rnd}, frame {i}")
        await idle(dut)


# (the length-queue round needs FRAMES frames of 2 beats to fit in the RAM)
@cocotb.test(timeout_time=2, timeout_unit="ms", skip=not (DEPTH >= 2 * FRAMES + 2))
async def fill_and_drain(dut):
    """Sink stalled for a long time: the FIFO fills and s_axis_tready falls (length queue full
    with small frames, RAM full with big ones, an oversize frame behind another frame waits);
    an oversize frame alone is taken whole without a stall (its tail is discarded). Then the
    sink drains it all (with random backpressure): nothing lost or reordered, frames in =
    frames out."""
    kw = start(dut)
    await reset(dut)
    src, snk = stream(dut)
    probe = Probe(dut)
    rng = random.Random(f"fill {kw} {SEED}")
    big = max(DEPTH // 2 + 1, DEPTH * 3 // 4)  # beats: two such frames do not fit

    def frame_beats(lo: int, hi: int, bad_p: float = 0.25):
        return make_frame(rng, rng.randint((lo - 1) * kw + 1, hi * kw), rng.random() < bad_p, kw)

    rounds = {
        "length queue full": [frame_beats(1, 2) for _ in range(3 * FRAMES)],
        "RAM full": [frame_beats(big, DEPTH - 1) for _ in range(4)],
        # (2-beat frames behind it: the 3 slots freed by the beats held at the output take one
        # and a half of them, so the source is still busy when the FIFO is full)
        "oversize alone": [make_frame(rng, 3 * DEPTH * kw, False, kw)] + [frame_beats(2, 2) for _ in range(3)],
        "oversize behind a frame": [frame_beats(4, 4), make_frame(rng, 3 * DEPTH * kw + 5, False, kw),
                                    frame_beats(1, 3)],
    }
    for n, (name, frames) in enumerate(rounds.items()):
        in0, out0, fr0 = len(probe.inputs), probe.n_out, len(probe.frames)
        snk.set_pause_generator(None)
        snk.pause = True
        src.set_pause_generator(random_pause(0.2, 300 + n + 1000 * SEED))
        for f, _ in frames:
            src.send_nowait(f)
        await until(dut, probe, lambda: probe.low_run >= 40, 20 * DEPTH * 3 + 400, f"{name}: FIFO never filled")
        assert probe.n_out == out0, f"{name}: output beat taken while the sink is stalled"
        assert not src.idle(), f"{name}: everything went in"
        done, open_ = probe.input_frames(in0)
        stored = [min(len(f), DEPTH) for f in done]
        committed = sum(stored)
        held = committed + min(len(open_), DEPTH)
        # with the sink stalled, the output register and the queue behind it hold 3 committed
        # beats (OUT_HELD)
        in_ram = held - min(OUT_HELD, committed)
        dut._log.info("%s: full with %d complete frames, %d beats in the RAM", name, len(done), in_ram)
        if name == "length queue full":
            # FRAMES frames wait in the RAM: a frame whose last beat is among the OUT_HELD beats
            # read out has left the length queue (its length travels with its beats)
            ends = itertools.accumulate(len(f) for f in done)
            out_frames = sum(1 for e in ends if e <= OUT_HELD)
            expect = FRAMES + out_frames
            assert len(done) == expect and not open_, f"{name}: {len(done)} complete frames in, expected {expect}"
        else:
            assert in_ram == DEPTH, f"{name}: {in_ram} beats in the RAM, expected {DEPTH}"
            assert len(done) < FRAMES
        if name == "oversize alone":
            # the oversize frame went in whole without a stall although nothing left
            assert len(done) >= 1 and len(done[0]) == 3 * DEPTH
            assert not [c for c in probe.ready_low if done[0][0] <= c <= done[0][-1]], f"{name}: stalled"
        if name == "oversize behind a frame":
            # it waits for the frame in front of it (1 of its 4 beats still in the RAM: a RAM
            # full of other frames only stalls)
            assert len(done) == 1 and len(open_) == DEPTH - (stored[0] - OUT_HELD)
        # drain
        set_pauses(src, snk, 0.2, 0.3, 310 + n + 1000 * SEED)
        for i, (_, exp) in enumerate(frames):
            rx = await snk.recv()
            assert bytes(rx.tdata) == exp.data, f"{name}: frame {i} ({exp.label}): data"
        await until(dut, probe, lambda: len(probe.frames) >= fr0 + len(frames), 10, f"{name}: probe")
        for i, (_, exp) in enumerate(frames):
            check_frame(probe.frames[fr0 + i], exp, kw, f"{name}, frame {i}")
        done, open_ = probe.input_frames(in0)
        assert len(done) == len(frames) == len(probe.frames) - fr0 and not open_, f"{name}: frames in != out"
        await idle(dut)
    assert snk.empty()

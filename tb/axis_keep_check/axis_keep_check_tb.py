"""cocotb tests of rtl/stream/axis_keep_check.sv, the tkeep guard (docs/robustness.md).

Every cycle, with random tvalid/tready, random frames (1..6 beats) whose beats have holes with
some probability, the outputs are compared with a reference computed here from the contract:
tdata/tvalid/tlast/tready pass straight through in the same cycle; on a beat before the last,
tkeep becomes all ones and tuser passes; on the last beat, tkeep becomes all ones up to its
highest set bit (bit 0 alone when tkeep = 0) and tuser = tuser | a hole in any beat of the
frame. Plus: reset clears a pending hole; a frame without holes passes bit for bit.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from tb.common.bench import clock_and_reset


def fill(keep: int) -> int:
    return (1 << keep.bit_length()) - 1


def beat_hole(keep: int, last: bool, kw: int) -> bool:
    if not last:
        return keep != (1 << kw) - 1
    return keep == 0 or fill(keep) != keep


def rand_keep(rng: random.Random, kw: int, last: bool, p_hole: float) -> int:
    full = (1 << kw) - 1
    if rng.random() < p_hole:
        return rng.choice([0, rng.getrandbits(kw), full & ~(1 << rng.randrange(kw)), 1 << rng.randrange(kw)])
    if not last:
        return full
    return (1 << rng.randint(1, kw)) - 1


async def setup(dut):
    await clock_and_reset(dut, ("s_axis_tvalid", "s_axis_tlast", "s_axis_tuser", "s_axis_tkeep",
                                "s_axis_tdata", "m_axis_tready"))
    return len(dut.s_axis_tkeep)


async def run_random(dut, kw: int, rng: random.Random, frames: int, p_hole: float, p_valid: float, p_ready: float):
    """Drive `frames` random frames; check every cycle. Returns (beats, holes, frames with a hole)."""
    errors = []
    hole_seen = False           # the reference's sticky flag
    stats = [0, 0, 0]
    pending = None              # the beat offered, kept until its handshake
    sent = 0
    frame_beats = rng.randint(1, 6)
    bi = 0
    frame_bad = False
    while sent < frames:
        if pending is None and rng.random() < p_valid:
            last = bi == frame_beats - 1
            keep = rand_keep(rng, kw, last, p_hole)
            pending = (rng.getrandbits(8 * kw), keep, last, rng.random() < 0.1)
        ready = rng.random() < p_ready
        if pending is not None:
            data, keep, last, user = pending
            dut.s_axis_tdata.value = data
            dut.s_axis_tkeep.value = keep
            dut.s_axis_tlast.value = int(last)
            dut.s_axis_tuser.value = int(user)
            dut.s_axis_tvalid.value = 1
        else:
            dut.s_axis_tvalid.value = 0
            dut.s_axis_tkeep.value = rng.getrandbits(kw)
        dut.m_axis_tready.value = int(ready)
        await ReadOnly()
        if int(dut.s_axis_tready.value) != int(ready):
            errors.append("s_axis_tready != m_axis_tready")
        if int(dut.m_axis_tvalid.value) != int(pending is not None):
            errors.append("m_axis_tvalid != s_axis_tvalid")
        if pending is not None:
            data, keep, last, user = pending
            hole = beat_hole(keep, last, kw)
            want_keep = (1 << kw) - 1 if not last else (fill(keep) or 1)
            want_user = int(user or hole_seen or hole) if last else int(user)
            got = (int(dut.m_axis_tdata.value), int(dut.m_axis_tkeep.value), int(dut.m_axis_tlast.value),
                   int(dut.m_axis_tuser.value))
            want = (data, want_keep, int(last), want_user)
            if got != want:
                errors.append(f"beat {stats[0]} keep {keep:0{kw}b} last {int(last)} user {int(user)} "
                              f"hole_seen {int(hole_seen)}: out (keep {got[1]:0{kw}b}, last {got[2]}, user {got[3]}"
                              f", data ok {got[0] == data}), want keep {want_keep:0{kw}b} user {want_user}")
        await RisingEdge(dut.clk)
        if pending is not None and ready:
            data, keep, last, user = pending
            hole = beat_hole(keep, last, kw)
            stats[0] += 1
            stats[1] += int(hole)
            frame_bad |= hole
            hole_seen = (hole_seen or hole) and not last
            pending = None
            bi += 1
            if last:
                sent += 1
                stats[2] += int(frame_bad)
                frame_bad = False
                bi = 0
                frame_beats = rng.randint(1, 6)
        if len(errors) > 10:
            break
    dut.s_axis_tvalid.value = 0
    return errors, stats


@cocotb.test(timeout_time=2, timeout_unit="ms")
async def random_beats_every_cycle(dut):
    """Random frames, holes, idle and backpressure; every output checked every cycle."""
    kw = await setup(dut)
    rng = random.Random(77 + kw)
    errs_all = []
    for p_hole, p_valid, p_ready in ((0.0, 1.0, 1.0), (0.3, 0.7, 0.6), (0.6, 0.9, 0.3)):
        errs, stats = await run_random(dut, kw, rng, 150, p_hole, p_valid, p_ready)
        dut._log.info("p_hole %.1f: %d beats, %d with a hole, %d bad frames", p_hole, *stats)
        if p_hole:
            assert stats[1] > 0 and stats[2] > 0
        errs_all += errs
    assert not errs_all, "\n".join(errs_all[:10])


@cocotb.test(timeout_time=100, timeout_unit="us")
async def reset_clears_a_pending_hole(dut):
    """A hole on a beat before the last, then reset: the next frame (clean) is not marked."""
    kw = await setup(dut)
    if kw == 1:
        full = 1
    else:
        full = (1 << kw) - 1
    dut.m_axis_tready.value = 1
    dut.s_axis_tvalid.value = 1
    dut.s_axis_tlast.value = 0
    dut.s_axis_tuser.value = 0
    dut.s_axis_tkeep.value = 0  # a hole (no byte) on a beat that is not the last
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 1
    dut.s_axis_tlast.value = 1
    dut.s_axis_tkeep.value = full
    await ReadOnly()
    assert int(dut.m_axis_tuser.value) == 0, "the hole survived reset"
    assert int(dut.m_axis_tkeep.value) == full
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0

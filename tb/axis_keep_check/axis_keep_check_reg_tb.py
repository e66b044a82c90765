"""cocotb tests of rtl/stream/axis_keep_check.sv built with REG_OUT = 1 (the repair split around
a register slice; docs/robustness.md).

Random frames (1..6 beats) whose beats have holes with some probability, random tvalid gaps
and random m_axis_tready: the beats leaving are compared, in order, with the contract computed
here (the same as the zero-latency build's, a cycle later): tdata and tlast as they came; on a
beat before the last tkeep all ones and tuser as it came; on the last beat tkeep all ones up to
its highest set bit (bit 0 alone when tkeep = 0) and tuser = tuser | a hole in any beat of the
frame. Plus: every beat offered is taken (a slice, no loss, no duplicate), and reset clears a
pending hole. With CREDIT (WS_CREDIT=1) m_axis_tready is a credit: s_axis_tready equals it in
the same cycle, and each beat taken leaves in the next cycle whatever m_axis_tready is then.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from tb.common.bench import clock_and_reset
from axis_keep_check_tb import beat_hole, fill, rand_keep  # noqa: E402


async def setup(dut):
    await clock_and_reset(dut, ("s_axis_tvalid", "s_axis_tlast", "s_axis_tuser", "s_axis_tkeep",
                                "s_axis_tdata", "m_axis_tready"))
    return len(dut.s_axis_tkeep)


@cocotb.test(timeout_time=4, timeout_unit="ms")
async def random_frames_in_order(dut):
    """Random frames, holes, idle and backpressure; the output stream against the contract."""
    kw = await setup(dut)
    credit = os.environ.get("WS_CREDIT") == "1"
    rng = random.Random(91 + kw)
    full = (1 << kw) - 1
    took = False
    for p_hole, p_valid, p_ready in ((0.0, 1.0, 1.0), (0.3, 0.7, 0.6), (0.6, 0.9, 0.3),
                                     (0.3, 0.4, 0.9)):
        want = []               # beats expected out, in order
        got = []
        hole_seen = False
        pending = None
        frames, sent = 150, 0
        frame_beats, bi = rng.randint(1, 6), 0
        bad_frames = 0
        frame_bad = False
        idle = 0
        while sent < frames or len(got) < len(want):
            if pending is None and sent < frames and rng.random() < p_valid:
                last = bi == frame_beats - 1
                pending = (rng.getrandbits(8 * kw), rand_keep(rng, kw, last, p_hole), last,
                           rng.random() < 0.1)
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
            ready = rng.random() < p_ready
            dut.m_axis_tready.value = int(ready)
            await ReadOnly()
            if credit:
                assert int(dut.s_axis_tready.value) == int(ready), "s_axis_tready != the credit"
                assert int(dut.m_axis_tvalid.value) == int(took), \
                    "a beat taken did not leave in the next cycle (or one left untaken)"
            took = pending is not None and int(dut.s_axis_tready.value)
            if int(dut.m_axis_tvalid.value) and (credit or ready):
                got.append((int(dut.m_axis_tdata.value), int(dut.m_axis_tkeep.value),
                            int(dut.m_axis_tlast.value), int(dut.m_axis_tuser.value)))
            await RisingEdge(dut.clk)
            idle = 0 if took else idle + 1
            assert idle < 200, "the slice stopped taking beats"
            if took:
                data, keep, last, user = pending
                hole = beat_hole(keep, last, kw)
                frame_bad |= hole
                want.append((data, full if not last else (fill(keep) or 1), int(last),
                             int(user or hole_seen or hole) if last else int(user)))
                hole_seen = (hole_seen or hole) and not last
                pending = None
                bi += 1
                if last:
                    sent += 1
                    bad_frames += int(frame_bad)
                    frame_bad = False
                    bi, frame_beats = 0, rng.randint(1, 6)
        dut.s_axis_tvalid.value = 0
        dut._log.info("p_hole %.1f: %d beats, %d bad frames", p_hole, len(want), bad_frames)
        if p_hole:
            assert bad_frames > 0
        assert len(got) == len(want), f"{len(got)} beats out, {len(want)} in"
        for i, (g, w) in enumerate(zip(got, want)):
            assert g == w, (f"beat {i}: out keep {g[1]:0{kw}b} last {g[2]} user {g[3]} data ok "
                            f"{g[0] == w[0]}, want keep {w[1]:0{kw}b} last {w[2]} user {w[3]}")


@cocotb.test(timeout_time=100, timeout_unit="us")
async def reset_clears_a_pending_hole(dut):
    """A hole on a beat before the last, then reset: the next frame (clean) is not marked."""
    kw = await setup(dut)
    full = (1 << kw) - 1
    dut.m_axis_tready.value = 1
    dut.s_axis_tvalid.value = 1
    dut.s_axis_tlast.value = 0
    dut.s_axis_tuser.value = 0
    dut.s_axis_tkeep.value = 0  # a hole (no byte) on a beat that is not the last
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0
    await RisingEdge(dut.clk)   # the beat leaves the slice: the hole is pending
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 1
    dut.s_axis_tlast.value = 1
    dut.s_axis_tkeep.value = full
    await RisingEdge(dut.clk)
    dut.s_axis_tvalid.value = 0
    await ReadOnly()
    assert int(dut.m_axis_tvalid.value) == 1
    assert int(dut.m_axis_tuser.value) == 0, "the hole survived reset"
    assert int(dut.m_axis_tkeep.value) == full

"""cocotb tests of rtl/sim/axis_monitor.sv, bound to axis_skid by rtl/sim/monitors.sv.

`clean_stream` must pass: a legal stream (random idle, random backpressure, partial last
beats) raises nothing and the monitors count exactly the frames and beats that moved.

Every other test commits one protocol violation on s_axis of axis_skid (whose monitors this build
makes tkeep-strict, +define+WS_AXIS_SKID_STRICT_KEEP=1) and must *not* get to its end: the monitor's $error/$fatal ends
the simulation. test_axis_monitor.py runs each one in its own simulator process and checks the
process failed with the rule's message. A violation test that reaches its end fails by itself.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

# The test build sets +define+WS_AXIS_MAX_FRAME_BYTES; test_axis_monitor.py passes the same
# number in the environment, so the bound is tested on both sides of the limit.
MAX_FRAME_BYTES = int(os.environ.get("WS_TEST_MAX_FRAME_BYTES", "0"))


def start(dut) -> int:
    Clock(dut.clk, 4, unit="ns").start()
    return len(dut.s_axis_tkeep)


async def reset(dut) -> None:
    dut.rst.value = 1
    dut.s_axis_tvalid.value = 0
    dut.s_axis_tdata.value = 0
    dut.s_axis_tkeep.value = 0
    dut.s_axis_tlast.value = 0
    dut.s_axis_tuser.value = 0
    dut.m_axis_tready.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)


def pauses(p: float, seed: int):
    rng = random.Random(seed)
    while True:
        yield rng.random() < p


@cocotb.test(timeout_time=500, timeout_unit="us")
async def clean_stream(dut):
    """Legal traffic: nothing fires; the monitors' counters match what moved."""
    keep_w = start(dut)
    await reset(dut)
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    snk = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    src.set_pause_generator(pauses(0.3, 1))
    snk.set_pause_generator(pauses(0.5, 2))
    rng = random.Random(3)
    sent = []
    beats = 0
    # Up to the monitor's frame bound exactly (MAX_FRAME_BYTES): a frame of MAX_BEATS beats is
    # legal.
    limit = MAX_FRAME_BYTES or 8 * keep_w
    for i in range(120):
        n = limit if i == 7 else rng.randint(1, min(limit, 5 * keep_w))
        data = bytes(rng.getrandbits(8) for _ in range(n))
        sent.append(data)
        beats += -(-n // keep_w)
        await src.send(AxiStreamFrame(data, tuser=0))
    for data in sent:
        got = await snk.recv()
        assert bytes(got.tdata) == data
    for _ in range(4):
        await RisingEdge(dut.clk)
    for mon in (dut.mon_s_axis, dut.mon_m_axis):
        assert int(mon.frames.value) == len(sent), (mon._name, int(mon.frames.value))
        assert int(mon.beats.value) == beats, (mon._name, int(mon.beats.value), beats)
        assert int(mon.in_frame.value) == 0
    # Backpressure really happened on both sides (the stability rules were exercised).
    assert int(dut.mon_m_axis.stall_cycles.value) > 50
    assert int(dut.mon_s_axis.stall_cycles.value) > 10


async def offer_stalled(dut, keep_w: int, last: int = 0) -> None:
    """Offer beats on s_axis with m_axis_tready low until one is stalled (tvalid 1, tready 0
    at a rising edge); return at the next falling edge with that beat still offered."""
    dut.m_axis_tready.value = 0
    dut.s_axis_tkeep.value = (1 << keep_w) - 1
    dut.s_axis_tlast.value = last
    dut.s_axis_tuser.value = 0
    await FallingEdge(dut.clk)
    n = 0
    dut.s_axis_tdata.value = 0x1111
    dut.s_axis_tvalid.value = 1
    while True:
        ready = int(dut.s_axis_tready.value)  # what the next rising edge will see
        await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        if not ready:
            return
        n += 1
        assert n < 8, "axis_skid never stalled its input"
        dut.s_axis_tdata.value = 0x1111 + n


async def must_not_get_here(dut) -> None:
    for _ in range(4):
        await RisingEdge(dut.clk)
    raise AssertionError("the protocol violation was not flagged by axis_monitor")


@cocotb.test(timeout_time=50, timeout_unit="us")
async def valid_withdrawn(dut):
    """AXIS-VALID: tvalid falls while the beat is stalled."""
    keep_w = start(dut)
    await reset(dut)
    await offer_stalled(dut, keep_w)
    dut.s_axis_tvalid.value = 0
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def data_changed(dut):
    """AXIS-STABLE: tdata changes while stalled."""
    keep_w = start(dut)
    await reset(dut)
    await offer_stalled(dut, keep_w)
    dut.s_axis_tdata.value = 0xDEAD
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def last_changed(dut):
    """AXIS-STABLE: tlast changes while stalled."""
    keep_w = start(dut)
    await reset(dut)
    await offer_stalled(dut, keep_w)
    dut.s_axis_tlast.value = 1
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def user_changed(dut):
    """AXIS-STABLE: tuser changes while stalled."""
    keep_w = start(dut)
    await reset(dut)
    await offer_stalled(dut, keep_w, last=1)
    dut.s_axis_tuser.value = 1
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def keep_changed(dut):
    """AXIS-STABLE: tkeep changes while stalled (a legal value before and after)."""
    keep_w = start(dut)
    await reset(dut)
    await offer_stalled(dut, keep_w, last=1)
    dut.s_axis_tkeep.value = 1
    await must_not_get_here(dut)


async def one_beat(dut, keep: int, last: int) -> None:
    dut.m_axis_tready.value = 1
    await FallingEdge(dut.clk)
    dut.s_axis_tdata.value = 0x55
    dut.s_axis_tkeep.value = keep
    dut.s_axis_tlast.value = last
    dut.s_axis_tvalid.value = 1


@cocotb.test(timeout_time=50, timeout_unit="us")
async def keep_hole_not_last(dut):
    """AXIS-KEEP: a beat without tlast whose tkeep is not all ones."""
    keep_w = start(dut)
    await reset(dut)
    await one_beat(dut, ((1 << keep_w) - 1) >> 1, 0)
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def keep_hole_last(dut):
    """AXIS-KEEP: a last beat with a hole (0b0101)."""
    start(dut)
    await reset(dut)
    await one_beat(dut, 0b0101, 1)
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def keep_not_from_bit0(dut):
    """AXIS-KEEP: a last beat whose bytes do not start at bit 0 (0b0110)."""
    start(dut)
    await reset(dut)
    await one_beat(dut, 0b0110, 1)
    await must_not_get_here(dut)


@cocotb.test(timeout_time=50, timeout_unit="us")
async def keep_zero_last(dut):
    """AXIS-KEEP: a last beat with no byte."""
    start(dut)
    await reset(dut)
    await one_beat(dut, 0, 1)
    await must_not_get_here(dut)


@cocotb.test(timeout_time=200, timeout_unit="us")
async def no_tlast(dut):
    """AXIS-TLAST: a frame one beat longer than the bound (+define+WS_AXIS_MAX_FRAME_BYTES)."""
    keep_w = start(dut)
    await reset(dut)
    assert MAX_FRAME_BYTES, "WS_TEST_MAX_FRAME_BYTES not set"
    dut.m_axis_tready.value = 1
    dut.s_axis_tkeep.value = (1 << keep_w) - 1
    dut.s_axis_tlast.value = 0
    await FallingEdge(dut.clk)
    dut.s_axis_tvalid.value = 1
    for i in range(MAX_FRAME_BYTES // keep_w + 1):
        dut.s_axis_tdata.value = i
        await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
    await must_not_get_here(dut)

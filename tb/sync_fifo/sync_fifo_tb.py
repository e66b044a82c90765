"""cocotb test of sync_fifo: random s_valid/m_ready; every word comes out once, in order; the
contract's timing checked cycle by cycle against a model of the RAM and the output register
(s_ready = not full, a registered flag; m_valid as the header comment says). Words are spread
over the whole WIDTH so every output slice (SLICE_W) carries a different part of each."""

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge


@cocotb.test()
async def random_traffic(dut):
    depth = int(dut.DEPTH.value)
    bypass = int(dut.BYPASS.value)
    width = int(dut.WIDTH.value)
    mask = (1 << width) - 1

    def word(n: int) -> int:
        return (n * 0x9E3779B97F4A7C15_F39CC0605CEDC835) & mask
    cocotb.start_soon(Clock(dut.clk, 4, unit="ns").start())
    dut.rst.value = 1
    dut.s_valid.value = 0
    dut.s_data.value = 0
    dut.m_ready.value = 0
    all_ready = (1 << len(dut.m_ready)) - 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    rng = random.Random(depth * 2 + bypass)
    ram: list[int] = []          # words in the RAM, oldest first
    out: int | None = None       # the output register
    nxt = 0                      # next word to offer
    got: list[int] = []
    full_seen = empty_seen = 0
    for cycle in range(20000):
        # phase: the rates change every 500 cycles so the FIFO runs full and empty
        p_in, p_out = [(0.9, 0.3), (0.3, 0.9), (0.7, 0.7), (1.0, 1.0)][(cycle // 500) % 4]
        s_valid = rng.random() < p_in
        m_ready = rng.random() < p_out
        dut.s_valid.value = int(s_valid)
        dut.s_data.value = word(nxt)
        # every copy of m_ready (READY_N) carries the same value, as the consumer's copies do
        dut.m_ready.value = all_ready if m_ready else 0
        await ReadOnly()
        s_ready = int(dut.s_ready.value)
        if cycle > 0:
            assert s_ready == int(len(ram) < depth), (cycle, s_ready, len(ram))
        direct = bool(bypass) and not ram and out is None and s_valid
        m_valid = out is not None or direct
        assert int(dut.m_valid.value) == int(m_valid), (cycle, "m_valid")
        if m_valid:
            want = out if out is not None else nxt
            assert int(dut.m_data.value) == word(want), (cycle, int(dut.m_data.value), want)
        full_seen += len(ram) == depth
        empty_seen += not ram and out is None
        # the edge
        push = s_valid and s_ready and not direct
        load = bool(ram) and (out is None or m_ready)
        if m_valid and m_ready:
            got.append(out if out is not None else nxt)
        taken_direct = direct and m_ready
        if load:
            new_out: int | None = ram.pop(0)
        elif direct and not m_ready:
            new_out = nxt
        elif m_ready:
            new_out = None
        else:
            new_out = out
        if push:
            ram.append(nxt)
        if push or (direct and s_valid):
            nxt += 1
        out = new_out
        assert not (taken_direct and push)
        await RisingEdge(dut.clk)
    assert got == list(range(len(got))), "order or loss"
    assert len(got) > 10000
    assert full_seen > 100 and empty_seen > 100, (full_seen, empty_seen)

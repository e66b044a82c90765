"""cocotb test of ram_sdp_reg: random writes and reads (also of the word written in the same
cycle, whose read is undefined and not checked), each read's word checked two cycles later
against a dict; word 0 starts as INIT_WORD0 (all ones), the rest as 0."""

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, ReadOnly

ADDR_W = int(os.environ["WS_ADDR_W"])
DATA_W = int(os.environ["WS_DATA_W"])


@cocotb.test()
async def random_access(dut) -> None:
    rng = random.Random(7)
    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    mem: dict[int, int] = {0: (1 << DATA_W) - 1}
    dut.we.value = 0
    dut.waddr.value = 0
    dut.wdata.value = 0
    dut.raddr.value = 0
    # A few addresses often, so reads meet recent writes; the top and bottom words too.
    hot = [0, 1, (1 << ADDR_W) - 1] + [rng.randrange(1 << ADDR_W) for _ in range(5)]
    pending: list[int | None] = [None, None]   # expected words of the reads 1 and 2 cycles ago
    checked = 0
    for cycle in range(4000):
        await RisingEdge(dut.clk)
        await ReadOnly()
        exp = pending.pop(0)
        if exp is not None:
            got = int(dut.rdata.value)
            assert got == exp, f"cycle {cycle}: read {got:#x}, expected {exp:#x}"
            checked += 1
        # Drive the next cycle's inputs after the read-only phase.
        await cocotb.triggers.Timer(1, unit="ns")
        ra = rng.choice(hot) if rng.random() < 0.7 else rng.randrange(1 << ADDR_W)
        we = rng.random() < 0.4
        wa = rng.choice(hot) if rng.random() < 0.7 else rng.randrange(1 << ADDR_W)
        wd = rng.getrandbits(DATA_W)
        dut.raddr.value = ra
        dut.we.value = int(we)
        dut.waddr.value = wa
        dut.wdata.value = wd
        # The read sees the word before this cycle's write; a read of the word being written
        # is undefined.
        pending.append(None if (we and wa == ra) else mem.get(ra, 0))
        if we:
            mem[wa] = wd
    assert checked > 3000

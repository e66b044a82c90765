"""Small pieces every cocotb bench here starts with."""

from __future__ import annotations

from collections.abc import Iterable

from cocotb.clock import Clock
from cocotb.triggers import RisingEdge


async def clock_and_reset(dut, idle_inputs: Iterable[str], period_ns: int = 4,
                          reset_cycles: int = 3) -> None:
    """Start ``dut.clk``, drive each named input to 0, hold ``dut.rst`` high for
    ``reset_cycles`` cycles, then release it and wait one more cycle."""
    Clock(dut.clk, period_ns, unit="ns").start()
    for name in idle_inputs:
        getattr(dut, name).value = 0
    dut.rst.value = 1
    for _ in range(reset_cycles):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)

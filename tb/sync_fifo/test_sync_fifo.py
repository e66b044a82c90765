"""pytest entry: sync_fifo (rtl/stream/sync_fifo.sv) against a cycle model, with and without
BYPASS, at the smallest and the decap shell's depth, with one output slice and with several (the
last one partial, each slice taking its own copy of m_ready: READY_N)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width,slice_w,ready_n", [(16, 64, 1), (40, 16, 4)])
@pytest.mark.parametrize("depth,bypass", [(2, 0), (2, 1), (16, 0), (16, 1)])
def test_sync_fifo(depth: int, bypass: int, width: int, slice_w: int, ready_n: int) -> None:
    run_cocotb(
        toplevel="sync_fifo",
        test_module="sync_fifo_tb",
        test_dir=HERE,
        parameters={"WIDTH": width, "DEPTH": depth, "BYPASS": bypass, "SLICE_W": slice_w,
                    "READY_N": ready_n},
        sources=[RTL / "stream" / "sync_fifo.sv"],
    )

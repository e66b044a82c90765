"""pytest entry: axis_keep_check (rtl/stream/axis_keep_check.sv) at 8 bits (one tkeep bit) and
at every datapath width, zero-latency and registered (REG_OUT)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [8, 64, 128, 256, 512])
def test_axis_keep_check(data_w: int) -> None:
    run_cocotb(
        toplevel="axis_keep_check",
        test_module="axis_keep_check_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
        sources=[RTL / "stream" / "axis_keep_check.sv"],
    )


@pytest.mark.parametrize("data_w, slice_w, ready_n",
                         [(8, 64, 1), (64, 64, 1), (64, 16, 3), (128, 64, 1), (256, 64, 1),
                          (512, 64, 1), (512, 64, 10)])
def test_axis_keep_check_reg_out(data_w: int, slice_w: int, ready_n: int) -> None:
    """REG_OUT: the slice built in SLICE_W-bit pieces, loaded by READY_N copies of tready."""
    run_cocotb(
        toplevel="axis_keep_check",
        test_module="axis_keep_check_reg_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "REG_OUT": 1, "SLICE_W": slice_w, "READY_N": ready_n},
        sources=[RTL / "stream" / "axis_keep_check.sv", RTL / "stream" / "reg_slice.sv",
                 RTL / "stream" / "axis_skid.sv"],
    )

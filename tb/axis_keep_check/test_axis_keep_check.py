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


@pytest.mark.parametrize("data_w, credit", [(8, 0), (64, 0), (128, 0), (256, 0), (512, 0),
                                            (8, 1), (64, 1), (512, 1)])
def test_axis_keep_check_reg_out(data_w: int, credit: int) -> None:
    """REG_OUT: through a register slice, or (CREDIT) a plain register with a credit."""
    run_cocotb(
        toplevel="axis_keep_check",
        test_module="axis_keep_check_reg_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "REG_OUT": 1, "CREDIT": credit},
        extra_env={"WS_CREDIT": str(credit)},
        sources=[RTL / "stream" / "axis_keep_check.sv", RTL / "stream" / "reg_slice.sv",
                 RTL / "stream" / "axis_skid.sv"],
    )

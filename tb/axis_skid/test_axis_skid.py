"""pytest entry: axis_skid at every datapath width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_axis_skid(data_w: int) -> None:
    run_cocotb(
        toplevel="axis_skid",
        test_module="axis_skid_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
        sources=[RTL / "stream" / "reg_slice.sv", RTL / "stream" / "axis_skid.sv"],
    )

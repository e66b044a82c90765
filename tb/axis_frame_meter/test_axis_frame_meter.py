"""pytest entry: axis_frame_meter (rtl/stream/axis_frame_meter.sv) at every datapath width and at
the narrowest bus it takes (2 bytes per beat)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("keep_w", [2, 8, 16, 32, 64])
def test_axis_frame_meter(keep_w: int) -> None:
    run_cocotb(
        toplevel="axis_frame_meter",
        test_module="axis_frame_meter_tb",
        test_dir=HERE,
        parameters={"KEEP_W": keep_w},
        sources=[RTL / "stream" / "stream_pkg.sv", RTL / "stream" / "axis_frame_meter.sv"],
    )

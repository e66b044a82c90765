"""pytest entry: Avalon-ST <-> AXI4-Stream adapters, round trip, at every datapath width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_avst_round_trip(data_w: int) -> None:
    run_cocotb(
        toplevel="avst_loop",
        test_module="avst_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
        sources=[
            RTL / "stream" / "stream_pkg.sv",
            RTL / "stream" / "beat_buffer.sv",
            RTL / "stream" / "reg_slice.sv",
            RTL / "shell" / "avst_to_axis.sv",
            RTL / "shell" / "axis_to_avst.sv",
            HERE / "avst_loop.sv",
        ],
    )

"""pytest entry: ts_clock (the 96-bit clock, set/adjust/increment, PPS, registers) and
axis_timestamp (stamps at each frame's first beat) at every bus width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


def test_ts_clock() -> None:
    run_cocotb(
        toplevel="ts_clock",
        test_module="ts_clock_tb",
        test_dir=HERE,
        parameters={},
        sources=[RTL / "host" / "ts_clock_pkg.sv", RTL / "control" / "axil_reg_if.sv",
                 RTL / "host" / "ts_clock.sv"],
    )


@pytest.mark.parametrize("width", [64, 128, 256, 512])
def test_axis_timestamp(width: int) -> None:
    run_cocotb(
        toplevel="axis_timestamp",
        test_module="axis_timestamp_tb",
        test_dir=HERE,
        parameters={"DATA_W": width},
        sources=[RTL / "host" / "axis_timestamp.sv"],
        extra_env={"WS_DATA_W": str(width)},
    )

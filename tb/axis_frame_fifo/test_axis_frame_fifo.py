"""pytest entry: axis_frame_fifo (rtl/stream/axis_frame_fifo.sv) at every datapath width, with a
small RAM (DEPTH = 16 beats, FRAMES = 4) so that the full conditions are reached quickly, plus
the module's default depth (DEPTH = 1024, FRAMES = 32, vxlan_encap's at 256 bits) at 256 bits."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


def run(data_w: int, depth: int, frames: int) -> None:
    run_cocotb(
        toplevel="axis_frame_fifo",
        test_module="axis_frame_fifo_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "DEPTH": depth, "FRAMES": frames},
        sources=[RTL / "stream" / "stream_pkg.sv", RTL / "mem" / "ram_sdp_reg.sv",
                 RTL / "stream" / "axis_frame_fifo.sv"],
        # the bench's reference model needs the RAM's geometry
        extra_env={"WS_FIFO_DEPTH": str(depth), "WS_FIFO_FRAMES": str(frames)},
    )


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_axis_frame_fifo(data_w: int) -> None:
    run(data_w, depth=16, frames=4)


def test_axis_frame_fifo_default_depth() -> None:
    run(256, depth=1024, frames=32)

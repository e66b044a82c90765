"""pytest entry: the inner-header option inside capture_top (PARSE_CTRL, the writer's
sideband per frame) at 64 and 512 bits."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width", [64, 512])
def test_capture_top_inner(width: int) -> None:
    run_cocotb(
        toplevel="capture_top",
        test_module="capture_top_inner_tb",
        test_dir=HERE,
        parameters={"DATA_W": width},
        extra_env={"WS_DATA_W": str(width)},
    )

"""pytest entry: rss_parse (outer and inner tuples) at every bus width against the model."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width", [64, 128, 256, 512])
def test_rss_parse(width: int) -> None:
    run_cocotb(
        toplevel="rss_parse",
        test_module="rss_parse_tb",
        test_dir=HERE,
        parameters={"DATA_W": width},
        sources=[RTL / "host" / "rss_parse.sv"],
        extra_env={"WS_DATA_W": str(width)},
    )

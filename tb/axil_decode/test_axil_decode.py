"""pytest entry: axil_decode with the GRE layout (2 windows of 4 KiB in a 64 KiB space) and
with small, odd and full layouts (every window index mapped, one window, 2-word windows)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

from tb.common.sweep import full_sweep

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    "windows, win_addr_w, addr_w",
    [(4, 12, 16), (5, 3, 6)] + ([(2, 12, 16), (3, 8, 10), (4, 4, 6), (1, 12, 13)] if full_sweep() else []),
)
def test_axil_decode(windows: int, win_addr_w: int, addr_w: int) -> None:
    run_cocotb(
        toplevel="axil_decode",
        test_module="axil_decode_tb",
        test_dir=HERE,
        parameters={"WINDOWS": windows, "WIN_ADDR_W": win_addr_w, "ADDR_W": addr_w},
        sources=[RTL / "control" / "axil_decode.sv"],
        extra_env={"WS_WINDOWS": str(windows), "WS_WIN_ADDR_W": str(win_addr_w), "WS_ADDR_W": str(addr_w)},
    )

"""pytest entry: axis_skid at every datapath width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w, slice_w", [(64, 0), (128, 0), (256, 0), (512, 0), (64, 16),
                                              (512, 64)])
def test_axis_skid(data_w: int, slice_w: int) -> None:
    """slice_w 0: one piece (the default); else the slice in SLICE_W-bit pieces."""
    params = {"DATA_W": data_w}
    if slice_w:
        params["SLICE_W"] = slice_w
    run_cocotb(
        toplevel="axis_skid",
        test_module="axis_skid_tb",
        test_dir=HERE,
        parameters=params,
        sources=[RTL / "stream" / "reg_slice.sv", RTL / "stream" / "axis_skid.sv"],
    )

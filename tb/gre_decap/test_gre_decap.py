"""pytest entry: functional tests of gre_decap (cocotb_gre_decap.py) at every datapath width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_gre_decap(data_w: int) -> None:
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
    )

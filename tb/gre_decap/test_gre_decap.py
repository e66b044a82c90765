"""pytest entry: functional tests of gre_decap (cocotb_gre_decap.py) at every datapath width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w,pipe", [(64, 0), (128, 0), (256, 0), (512, 0),
                                         (64, 15), (256, 5), (512, 10)])
def test_gre_decap(data_w: int, pipe: int) -> None:
    """pipe: gre_decap's CLASSIFY_PIPE mask; the function must not depend on where it is cut."""
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "CLASSIFY_PIPE": pipe},
    )

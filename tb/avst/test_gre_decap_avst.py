"""pytest entry: the N3000-style Avalon-ST shell around gre_decap, against the golden model."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 256])
def test_gre_decap_avst(data_w: int) -> None:
    run_cocotb(
        toplevel="gre_decap_avst",
        test_module="gre_decap_avst_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
    )

"""pytest entry: the N3000-style Avalon-ST shell around gre_decap, against the golden model."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.build import PIPELINED_PARAMS

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w, pipelined", [(64, False), (256, False), (256, True)],
                         ids=["64", "256", "256-pipelined"])
def test_gre_decap_avst(data_w: int, pipelined: bool) -> None:
    # The pipelined build is the shell as the report's gre_decap_avst_pipe row measures it:
    # gre_decap's pipeline registers passed through (wirespeed.build.PIPELINED_PARAMS).
    params = {"DATA_W": data_w, **(PIPELINED_PARAMS["gre_decap"] if pipelined else {})}
    run_cocotb(
        toplevel="gre_decap_avst",
        test_module="gre_decap_avst_tb",
        test_dir=HERE,
        parameters=params,
    )

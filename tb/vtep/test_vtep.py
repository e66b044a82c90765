"""pytest entry: cocotb tests of vtep_top (tb/vtep/cocotb_vtep.py) at every datapath width, and
with the decap classifier pipelined (DECAP_CLASSIFY_PIPE = 15) and both splice engines' plans
registered (SPLICE_PIPE = 1) at the narrowest and widest."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(not (RTL / "tunnel" / "vtep_top.sv").exists(),
                                reason="rtl/tunnel/vtep_top.sv does not exist yet")


@pytest.mark.parametrize("data_w,pipe", [(64, 0), (128, 0), (256, 0), (512, 0), (64, 15), (512, 15)],
                         ids=lambda v: str(v))
def test_vtep(data_w: int, pipe: int) -> None:
    """pipe: vtep_top's DECAP_CLASSIFY_PIPE (with SPLICE_PIPE); the function must not depend on
    where it is cut."""
    run_cocotb(
        toplevel="vtep_top",
        test_module="cocotb_vtep",
        test_dir=HERE,
        # (Without the pipe parameter at 0: the build is shared with tb/robustness's.)
        parameters={"DATA_W": data_w,
                    **({"DECAP_CLASSIFY_PIPE": pipe, "SPLICE_PIPE": 1} if pipe else {})},
    )

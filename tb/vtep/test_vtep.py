"""pytest entry: cocotb tests of vtep_top (tb/vtep/cocotb_vtep.py) at every datapath width, and
with the decap classifier pipelined (DECAP_CLASSIFY_PIPE = 31), both splice engines' plans
and descriptors registered and the live beat off their decisions (SPLICE_PIPE = 3) and both tables' words registered (LOOKUP_LATENCY = 4) at the narrowest and widest."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.build import PIPELINED_PARAMS
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(not (RTL / "tunnel" / "vtep_top.sv").exists(),
                                reason="rtl/tunnel/vtep_top.sv does not exist yet")


@pytest.mark.parametrize("data_w,pipe", [(64, 0), (128, 0), (256, 0), (512, 0), (64, 31), (512, 31)],
                         ids=lambda v: str(v))
def test_vtep(data_w: int, pipe: int) -> None:
    """pipe 31: vtep_top built pipelined (PIPELINED_PARAMS: DECAP_CLASSIFY_PIPE 31, SPLICE_PIPE
    2, LOOKUP_LATENCY 4); the function must not depend on where it is cut."""
    run_cocotb(
        toplevel="vtep_top",
        test_module="cocotb_vtep",
        test_dir=HERE,
        # (Without the pipe parameter at 0: the build is shared with tb/robustness's.)
        parameters={"DATA_W": data_w,
                    **(PIPELINED_PARAMS["vtep_top"] if pipe else {})},
    )

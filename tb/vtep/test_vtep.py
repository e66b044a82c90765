"""pytest entry: cocotb tests of vtep_top (tb/vtep/cocotb_vtep.py) at every datapath width, and
with the encap pipelined (PIPELINED_PARAMS: its splice engine's plan and descriptor registered
and the live beat off its decision, SPLICE_PIPE = 3, the tunnel table's words registered,
LOOKUP_LATENCY = 4) at the narrowest and widest. The decap (vxlan_decap on the decap shell)
has one build."""

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
    """pipe 31: vtep_top built pipelined (PIPELINED_PARAMS: the encap's SPLICE_PIPE 3,
    LOOKUP_LATENCY 4); the function must not depend on where it is cut."""
    run_cocotb(
        toplevel="vtep_top",
        test_module="cocotb_vtep",
        test_dir=HERE,
        # (Without the pipe parameter at 0: the build is shared with tb/robustness's.)
        parameters={"DATA_W": data_w,
                    **(PIPELINED_PARAMS["vtep_top"] if pipe else {})},
    )

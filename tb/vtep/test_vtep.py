"""pytest entry: cocotb tests of vtep_top (tb/vtep/cocotb_vtep.py) at every datapath width. Both
directions have one build (vxlan_decap on the decap shell, vxlan_encap on axis_edit), pipelined
by construction."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.skipif(not (RTL / "tunnel" / "vtep_top.sv").exists(),
                                reason="rtl/tunnel/vtep_top.sv does not exist yet")


@pytest.mark.parametrize("data_w", [64, 128, 256, 512], ids=lambda v: str(v))
def test_vtep(data_w: int) -> None:
    run_cocotb(
        toplevel="vtep_top",
        test_module="cocotb_vtep",
        test_dir=HERE,
        # (the build is shared with tb/robustness's)
        parameters={"DATA_W": data_w},
    )

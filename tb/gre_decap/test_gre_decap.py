"""pytest entry: functional tests of gre_decap (cocotb_gre_decap.py) at every datapath width,
built as the report's gre_decap_pipe (CLASSIFY_PIPE = 31, SPLICE_PIPE = 3) at 64 bits (the
build tb/robustness and the cycle test share), and (`make test-full`) with the cut masks 5 and
26 (cut S with cuts 1 and 3)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from tb.common.sweep import full_sweep
from wirespeed.build import PIPELINED_PARAMS

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w,pipe", [(64, 0), (128, 0), (256, 0), (512, 0), (64, 31)]
                         + ([(256, 5), (512, 26)] if full_sweep() else []))
def test_gre_decap(data_w: int, pipe: int) -> None:
    """pipe: gre_decap's CLASSIFY_PIPE mask (31: with SPLICE_PIPE); the function must not
    depend on where it is cut."""
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "CLASSIFY_PIPE": pipe,
                    **(PIPELINED_PARAMS["gre_decap"] if pipe == 31 else {})},
    )

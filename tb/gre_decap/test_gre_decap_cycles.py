"""pytest entry: the performance contract of gre_decap (cocotb_gre_decap_cycles.py): full
throughput with no backpressure, ceil(len/KEEP_W) beats per frame, the exact latency of every
frame, at every width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_gre_decap_cycles(data_w: int) -> None:
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap_cycles",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
    )

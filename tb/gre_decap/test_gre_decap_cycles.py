"""pytest entry: the performance contract of gre_decap (cocotb_gre_decap_cycles.py):
full throughput with no backpressure, ceil(len/KEEP_W) beats per frame, decision latency."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("pipe", [0, 15], ids=["pipe0", "pipe15"])
@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_gre_decap_cycles(data_w: int, pipe: int) -> None:
    """pipe: gre_decap's CLASSIFY_PIPE mask (15 = every cut: 4 more cycles of latency)."""
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap_cycles",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "CLASSIFY_PIPE": pipe},
        extra_env={"WS_PIPE_LAT": str(bin(pipe).count("1"))},
    )

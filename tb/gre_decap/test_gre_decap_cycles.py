"""pytest entry: the performance contract of gre_decap (cocotb_gre_decap_cycles.py):
full throughput with no backpressure, ceil(len/KEEP_W) beats per frame, decision latency. The
default build at every width; the pipelined one (gre_decap_pipe) at 64 and 256 bits (the seed's
width), at every width with `make test-full`."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from tb.common.sweep import full_sweep
from wirespeed.build import PIPELINED_PARAMS

HERE = Path(__file__).resolve().parent


PIPE = PIPELINED_PARAMS["gre_decap"]
CASES = [(w, 0, 0) for w in (64, 128, 256, 512)] + \
    [(w, PIPE["CLASSIFY_PIPE"], PIPE["SPLICE_PIPE"])
     for w in ((64, 128, 256, 512) if full_sweep() else (64, 256))]


@pytest.mark.parametrize("data_w,pipe,splice_pipe", CASES,
                         ids=[f"{w}-pipe{p}" for w, p, _ in CASES])
def test_gre_decap_cycles(data_w: int, pipe: int, splice_pipe: int) -> None:
    """pipe: gre_decap's CLASSIFY_PIPE mask (31 = every cut: 5 more cycles of latency), built
    as the report's gre_decap_pipe is, with SPLICE_PIPE (the splice engine's plan and descriptor
    registered: two cycles more, since gre_decap's output waits for its descriptor)."""
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_gre_decap_cycles",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "CLASSIFY_PIPE": pipe,
                    **({"SPLICE_PIPE": splice_pipe} if splice_pipe else {})},
        extra_env={"WS_PIPE_LAT": str(bin(pipe).count("1")), "WS_SPLICE_PIPE": str(splice_pipe)},
    )

"""pytest entry: cocotb tests of geneve_decap (cocotb_geneve_decap.py): the full set at 256 bits,
a smaller random and latency set at 64, 128 and 512 (CI time)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
def test_geneve_decap(data_w: int) -> None:
    full = data_w == 256
    run_cocotb(
        toplevel="geneve_decap",
        test_module="cocotb_geneve_decap",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
        extra_env={"GENEVE_RANDOM": "400" if full else "100", "GENEVE_LATENCY": "60" if full else "25"},
    )

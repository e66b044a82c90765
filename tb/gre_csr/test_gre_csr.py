"""pytest entry: gre_csr at every datapath width (DATA_W only shows in PARAMS), with the
allow-list size varied across the sweep (5: a non-power-of-two bound, 64: default, 256: max)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    "data_w, allow_entries",
    [(64, 5), (128, 64), (256, 64), (512, 256)],
)
def test_gre_csr(data_w: int, allow_entries: int) -> None:
    run_cocotb(
        toplevel="gre_csr",
        test_module="gre_csr_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "ALLOW_ENTRIES": allow_entries},
        sources=[RTL / "control" / "gre_csr.sv"],
        extra_env={"WS_DATA_W": str(data_w), "WS_ALLOW_ENTRIES": str(allow_entries)},
    )

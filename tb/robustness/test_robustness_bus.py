"""pytest entry: the robustness table's bus rows (RX errors, tkeep holes; cocotb_bus_rows.py) on
vtep_top (VXLAN decap and encap), gre_decap and geneve_decap, each with its axis_keep_check guard inside, at
every datapath width; every top has one build, pipelined by construction. `make test` runs the
bus rows at the narrowest and widest bus (64, 512), `make test-full` at every width."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from tb.common.sweep import full_sweep

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512] if full_sweep() else [64, 512])
@pytest.mark.parametrize("top", ["vtep_top", "gre_decap", "geneve_decap"])
def test_bus_rows(top: str, data_w: int) -> None:
    run_cocotb(
        toplevel=top,
        test_module="cocotb_bus_rows",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
    )


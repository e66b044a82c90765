"""pytest entry: the robustness table's bus rows (RX errors, tkeep holes; cocotb_bus_rows.py) on
vtep_top (VXLAN decap and encap) and gre_decap, each with its axis_keep_check guard inside, at
every datapath width; gre_decap also with its classifier pipelined (CLASSIFY_PIPE = 15)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("data_w", [64, 128, 256, 512])
@pytest.mark.parametrize("top", ["vtep_top", "gre_decap"])
def test_bus_rows(top: str, data_w: int) -> None:
    run_cocotb(
        toplevel=top,
        test_module="cocotb_bus_rows",
        test_dir=HERE,
        parameters={"DATA_W": data_w},
    )


def test_bus_rows_gre_decap_pipelined() -> None:
    """The same rows through the pipelined classifier (late verdicts in the splice engine)."""
    run_cocotb(
        toplevel="gre_decap",
        test_module="cocotb_bus_rows",
        test_dir=HERE,
        parameters={"DATA_W": 64, "CLASSIFY_PIPE": 15},
    )

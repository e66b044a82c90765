"""pytest entry: axil_reg_if alone, its register port driven by a Python register block that
answers late (the path the three control blocks only use for hash_table commands) and
stalls with wr_ready. Same-cycle answers are covered through allow_list, block_csr and
hash_table."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

from tb.common.sweep import full_sweep

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("req_reg", [0, 1])
@pytest.mark.parametrize("addr_w", [12] + ([3] if full_sweep() else []))
def test_axil_reg_if(addr_w: int, req_reg: int) -> None:
    run_cocotb(
        toplevel="axil_reg_if",
        test_module="axil_reg_if_tb",
        test_dir=HERE,
        parameters={"ADDR_W": addr_w, "REQ_REG": req_reg},
        sources=[RTL / "control" / "axil_reg_if.sv"],
        extra_env={"WS_ADDR_W": str(addr_w)},
    )

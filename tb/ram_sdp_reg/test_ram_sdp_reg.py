"""pytest entry: ram_sdp_reg (rtl/mem/ram_sdp_reg.sv), the inferred RAM and the ECP5 DP16KD
tiles (WIRESPEED_ECP5_EBR, with tb/common/dp16kd_model.sv standing in for the primitive),
against a Python model of a RAM read two cycles after its address."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent
TB_COMMON = HERE.parent / "common"


# (ADDR_W, DATA_W, tiles): 64 bits in four 18-bit tiles as allow_list uses it; a 9-bit port
@pytest.mark.parametrize("addr_w, data_w", [(10, 64), (11, 20)])
@pytest.mark.parametrize("tiles", [0, 1], ids=["inferred", "ecp5"])
def test_ram_sdp_reg(addr_w: int, data_w: int, tiles: int) -> None:
    srcs = [RTL / "mem" / "ram_sdp_reg.sv"]
    if tiles:
        srcs = [TB_COMMON / "dp16kd_model.sv"] + srcs
    run_cocotb(
        toplevel="ram_sdp_reg",
        test_module="ram_sdp_reg_tb",
        test_dir=HERE,
        parameters={"ADDR_W": addr_w, "DATA_W": data_w, "INIT_WORD0": (1 << data_w) - 1},
        sources=srcs,
        defines={"WIRESPEED_ECP5_EBR": 1} if tiles else None,
        extra_env={"WS_ADDR_W": str(addr_w), "WS_DATA_W": str(data_w)},
        monitors=False,
    )

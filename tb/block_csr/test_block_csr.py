"""pytest entry: block_csr alone, in the GRE configuration (docs/gre_decap.md), a VXLAN-decap
like one (extra registers with reset values and narrow writable fields) and the parameter
extremes (1 and 16 outcomes, 61 config registers, 10- and 16-bit addresses)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

from tb.common.sweep import full_sweep

HERE = Path(__file__).resolve().parent

# name: (ID_VALUE, PARAMS_VALUE, NUM_OUTCOMES, NUM_REGS, REG_RESET, REG_WMASK or None, ADDR_W)
CONFIGS = {
    "gre": (0x57534731, (64 << 16) | 256, 14, 1, 0, 0xF, 12),
    "vxlan": (0x57535644, 0x00400100, 16, 3, (8472 << 64) | (4789 << 32) | 0x5, (0xFFFF << 64) | (0xFFFF << 32) | 0xF, 12),
    "small": (0xDEADBEEF, 0xFFFFFFFF, 7, 2, (0xA5A5A5A5 << 32) | 0x80000001, None, 10),
    "max": (0x00000001, 0x80000000, 16, 61, 0, None, 16),
    "one": (0x12345678, 0, 1, 5, (0xFFFFFFFF << 128) | (0x00FF0000 << 64), (0x0F0F0F0F << 96), 12),
}


def hexparam(bits: int, value: int) -> str:
    return f"{bits}'h{value:x}"


@pytest.mark.parametrize("name", list(CONFIGS) if full_sweep() else ["gre", "vxlan", "max"])
def test_block_csr(name: str) -> None:
    ident, params, outcomes, nregs, reset, wmask, addr_w = CONFIGS[name]
    parameters = {
        "ID_VALUE": hexparam(32, ident),
        "PARAMS_VALUE": hexparam(32, params),
        "NUM_OUTCOMES": outcomes,
        "NUM_REGS": nregs,
        "ADDR_W": addr_w,
    }
    if reset:
        parameters["REG_RESET"] = hexparam(32 * nregs, reset)
    if wmask is None:
        wmask = (1 << (32 * nregs)) - 1
    else:
        parameters["REG_WMASK"] = hexparam(32 * nregs, wmask)
    run_cocotb(
        toplevel="block_csr",
        test_module="block_csr_tb",
        test_dir=HERE,
        parameters=parameters,
        sources=[RTL / "control" / "axil_reg_if.sv", RTL / "control" / "block_csr.sv"],
        extra_env={
            "WS_ID": hex(ident),
            "WS_PARAMS": hex(params),
            "WS_NUM_OUTCOMES": str(outcomes),
            "WS_NUM_REGS": str(nregs),
            "WS_REG_RESET": f"{reset:x}",
            "WS_REG_WMASK": f"{wmask:x}",
            "WS_ADDR_W": str(addr_w),
        },
    )

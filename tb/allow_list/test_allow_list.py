"""pytest entry: allow_list alone, with the GRE sizes (64 and 256 entries in a 4 KiB window),
a small list (bounds), a single entry in the smallest window and a list that does not fill
its window; each at one of the lookup latencies (1..4; gre_decap uses 4)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

from tb.common.sweep import full_sweep

HERE = Path(__file__).resolve().parent


# (ENTRIES, ADDR_W, LOOKUP_LATENCY)
CASES = [(64, 12, 4), (64, 12, 1), (1, 5, 3)] + (
    [(64, 12, 3), (64, 12, 2), (256, 12, 2), (5, 12, 2), (3, 10, 1)] if full_sweep() else [])


@pytest.mark.parametrize("entries, addr_w, latency", CASES)
def test_allow_list(entries: int, addr_w: int, latency: int) -> None:
    run_cocotb(
        toplevel="allow_list",
        test_module="allow_list_tb",
        test_dir=HERE,
        parameters={"ENTRIES": entries, "ADDR_W": addr_w, "LOOKUP_LATENCY": latency},
        sources=[RTL / "control" / "axil_reg_if.sv", RTL / "mem" / "ram_sdp_reg.sv",
                 RTL / "control" / "allow_list.sv"],
        extra_env={"WS_ENTRIES": str(entries), "WS_ADDR_W": str(addr_w),
                   "WS_LOOKUP_LATENCY": str(latency)},
    )

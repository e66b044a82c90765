"""pytest entry: rss_hash with its defaults (128 entries, 8-bit queues) and with the largest
table (512 entries) and 4-bit queues."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

# (TABLE_ENTRIES, QUEUE_W)
CASES = [(128, 8), (512, 4)]


@pytest.mark.parametrize("entries, queue_w", CASES)
def test_rss_hash(entries: int, queue_w: int) -> None:
    run_cocotb(
        toplevel="rss_hash",
        test_module="rss_hash_tb",
        test_dir=HERE,
        parameters={"TABLE_ENTRIES": entries, "QUEUE_W": queue_w},
        sources=[RTL / "control" / "axil_reg_if.sv", RTL / "mem" / "ram_sdp_reg.sv",
                 RTL / "mem" / "ram_tdp_reg.sv", RTL / "host" / "rss_hash.sv"],
        extra_env={"WS_TABLE_ENTRIES": str(entries), "WS_QUEUE_W": str(queue_w)},
    )

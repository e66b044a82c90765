"""pytest entry: pkt_gen and pkt_chk back to back (tb/pkt_gen/pkt_loop.sv) at every width;
a second build drops every 7th frame (the checker's gap count)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width,drop", [(64, 0), (128, 0), (256, 0), (512, 0), (512, 7)])
def test_pkt_gen(width: int, drop: int) -> None:
    run_cocotb(
        toplevel="pkt_loop",
        test_module="pkt_gen_tb",
        test_dir=HERE,
        parameters={"DATA_W": width, "DROP_N": drop},
        sources=[RTL / "stream" / "sync_fifo.sv", RTL / "host" / "pkt_gen.sv",
                 RTL / "host" / "pkt_chk.sv", HERE / "pkt_loop.sv"],
        extra_env={"WS_DATA_W": str(width), "WS_DROP_N": str(drop)},
        monitors=False,
    )

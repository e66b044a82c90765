"""pytest entry: dma_ring_writer at every bus width (16 queues, 16 KiB frame buffer,
256-byte bursts)."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width", [64, 128, 256, 512])
def test_dma_ring_writer(width: int) -> None:
    run_cocotb(
        toplevel="dma_ring_writer",
        test_module="dma_tb",
        test_dir=HERE,
        parameters={"DATA_W": width},
        sources=[RTL / "host" / "dma_ring_writer_pkg.sv", RTL / "control" / "axil_reg_if.sv",
                 RTL / "stream" / "sync_fifo.sv", RTL / "host" / "dma_ring_writer.sv"],
        extra_env={"WS_DATA_W": str(width)},
    )

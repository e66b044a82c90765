"""pytest entry: dma_ring_writer at every bus width (16 queues, 16 KiB frame buffer,
256-byte bursts), and one build with a short flush timeout and the shortest bursts."""

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


@pytest.mark.parametrize("width,flush,burst", [(64, 256, 256), (128, 256, 256), (256, 256, 256),
                                               (512, 256, 256), (256, 16, 128)])
def test_dma_ring_writer(width: int, flush: int, burst: int) -> None:
    """The defaults at every width; and at 256 bits a 16-cycle flush timeout with 128-byte
    bursts (4 beats, the least): partial blocks flushed all the time, between full ones."""
    params = {"DATA_W": width}
    if flush != 256:
        params["FLUSH_CYCLES"] = flush
    if burst != 256:
        params["BURST_BYTES"] = burst
    run_cocotb(
        toplevel="dma_ring_writer",
        test_module="dma_tb",
        test_dir=HERE,
        parameters=params,
        sources=[RTL / "host" / "dma_ring_writer_pkg.sv", RTL / "control" / "axil_reg_if.sv",
                 RTL / "mem" / "ram_sdp_reg.sv", RTL / "stream" / "sync_fifo.sv",
                 RTL / "host" / "prefetch_fifo.sv",
                 RTL / "host" / "dma_ring_writer.sv"],
        extra_env={"WS_DATA_W": str(width), "WS_FLUSH": str(flush), "WS_BURST": str(burst)},
    )

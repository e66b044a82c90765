"""cocotb test of the inner-header option inside rtl/host/capture_top.sv: PARSE_CTRL (reset,
strobe, read-back), PARAMS.LATENCY, and for every frame the sideband dma_ring_writer samples with
its last beat — queue, hash, hash type and flags [0] (the records' info [6], INNER) — equal to
the model's (wirespeed.capture_check.CaptureModel), with the option off, on, and on in
symmetric mode. Every queue is left disabled: the writer drops each frame (Q_DROP_OFF) and m_axi
stays quiet; what is checked is what the records would carry.

The bus width comes from the environment (WS_DATA_W, set by test_rss_capture_top.py).
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from tb.block_csr.axil import Axil
from tb.common.bench import clock_and_reset
from tb.rss import tunnel_frames as tf
from wirespeed.capture_check import CaptureModel
from wirespeed.model.rss import parse_frame
from wirespeed.regmap import CAPTURE, CAPTURE_LATENCY

DATA_W = int(os.environ.get("WS_DATA_W", "64"))
KW = DATA_W // 8
QUEUES = 16
W_RSS = 0x2000
PCTRL = CAPTURE.reg("PARSE_CTRL")
INNER = CAPTURE.register("PARSE_CTRL").field("INNER").mask


class Bench:
    def __init__(self, dut, rng: random.Random):
        self.dut, self.rng = dut, rng
        self.seen: list[tuple[int, int, int, int]] = []   # (queue, hash, type, flags)

    async def monitor(self):
        u = self.dut.u_dma
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            if int(u.s_axis_tvalid.value) and int(u.s_axis_tlast.value):
                self.seen.append((int(u.s_axis_tqueue.value), int(u.s_axis_thash.value),
                                  int(u.s_axis_thtype.value), int(u.s_axis_tflags.value)))

    async def send(self, frames: list[bytes], idle: float):
        d, rng = self.dut, self.rng
        for f in frames:
            for i in range(0, len(f), KW):
                while rng.random() < idle:
                    await RisingEdge(d.clk)
                    d.s_axis_tvalid.value = 0
                await RisingEdge(d.clk)
                chunk = f[i:i + KW]
                d.s_axis_tdata.value = int.from_bytes(chunk.ljust(KW, b"\0"), "little")
                d.s_axis_tkeep.value = (1 << len(chunk)) - 1
                d.s_axis_tlast.value = int(i + KW >= len(f))
                d.s_axis_tvalid.value = 1
                assert int(d.s_axis_tready.value)
        await RisingEdge(d.clk)
        d.s_axis_tvalid.value = 0
        await ClockCycles(d.clk, CAPTURE_LATENCY + 20)


def check(bench: Bench, frames: list[bytes], model: CaptureModel) -> int:
    assert len(bench.seen) == len(frames), (len(bench.seen), len(frames))
    n_inner = 0
    for f, (q, h, t, flags) in zip(frames, bench.seen):
        r = model.result(f)
        inner = len(f) <= model.max_len and parse_frame(f, model.inner).inner
        n_inner += inner
        assert (q, h, t, flags) == (r.queue, r.hash, int(r.htype), int(inner)), (
            f"frame {f.hex()}\n rtl   queue {q} hash {h:08x} type {t} flags {flags}\n"
            f" model queue {r.queue} hash {r.hash:08x} type {int(r.htype)} inner {inner}")
    bench.seen.clear()
    return n_inner


@cocotb.test()
async def inner_option_in_the_top(dut):
    axil = Axil(dut)
    await clock_and_reset(dut, ("pps", "s_axis_tvalid", "s_axis_tuser", "m_axi_awready",
                                "m_axi_wready", "m_axi_bvalid", "m_axi_bid", "m_axi_bresp"),
                          reset_cycles=5)
    await ClockCycles(dut.clk, 2)
    rng = random.Random(DATA_W)
    bench = Bench(dut, rng)
    cocotb.start_soon(bench.monitor())

    # Registers: PARSE_CTRL resets to 0, takes lane 0 only, reads back; PARAMS.LATENCY
    assert await axil.rd(PCTRL) == 0
    assert await axil.rd(CAPTURE.reg("PARAMS")) >> 24 == CAPTURE_LATENCY
    await axil.wr(PCTRL, INNER, strb=0xE)
    assert await axil.rd(PCTRL) == 0
    await axil.wr(PCTRL, 0xFFFFFFFF)
    assert await axil.rd(PCTRL) == INNER
    await axil.wr(PCTRL, 0)

    # The indirection table over the 16 queues; the reset key's tables rebuilt
    for i in range(128):
        await axil.wr(W_RSS + 0x800 + 4 * i, i % QUEUES)
    while await axil.rd(W_RSS + 0x008) & 1:
        await ClockCycles(dut.clk, 500)

    pairs = [tf.flow_pair(rng, k, v6, l4) for k in ("gre", "teb", "vxlan") for v6 in (0, 1)
             for l4 in ("tcp", "udp")]
    for inner, sym, idle in ((True, False, 0.2), (False, False, 0.0), (True, True, 0.0)):
        await axil.wr(PCTRL, INNER if inner else 0)
        await axil.wr(W_RSS + 0x000, 0x3F | int(sym) << 8)
        frames = tf.mixed(rng, 120) + [f for p in pairs for f in p]
        frames.append(tf.good_tunnel(rng) + bytes(9700))       # a giant: not parsed
        await bench.send(frames, idle)
        model = CaptureModel(queues=QUEUES, inner=inner, symmetric=sym,
                             table=[i % QUEUES for i in range(128)])
        n = check(bench, frames, model)
        dut._log.info(f"inner={inner} symmetric={sym}: {len(frames)} frames, {n} inner")
        assert (n > 50) == inner
        if sym:
            for a, b in pairs:
                assert model.queue_of(a) == model.queue_of(b)

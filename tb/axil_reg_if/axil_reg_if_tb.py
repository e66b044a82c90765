"""cocotb tests of rtl/control/axil_reg_if.sv (AXI4-Lite slave front end -> register port).

The bench is the register block: a dict of 32-bit words where odd word addresses are errors.
It sees wr_req/rd_req at a clock edge and answers (wr_ack/rd_ack) 1..3 cycles later, and pulls
wr_ready low at random. Checked on every edge: requests only with wr_ready and only one in
flight per channel, B exactly one cycle after wr_ack and R one cycle after rd_ack, with the
answer's response and data; plus the master-side results and protocol_checker.

Values read right after `await RisingEdge` are the ones the DUT sampled at that edge.
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge

from tb.block_csr.axil import OKAY, SLVERR, Axil, protocol_checker

PERIOD_NS = 4
ADDR_W = int(os.environ.get("WS_ADDR_W", "12"))
WA_MASK = (1 << (ADDR_W - 2)) - 1


def lanes(strb: int) -> int:
    return sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)


class RegBlock:
    """The register side, one coroutine, one await per cycle."""

    def __init__(self, dut, rng: random.Random, stall: float):
        self.dut, self.rng, self.stall = dut, rng, stall
        self.regs: dict[int, int] = {}
        self.writes = self.reads = 0
        for n in ("wr_ready", "wr_ack", "wr_err", "rd_ack", "rd_data", "rd_err"):
            getattr(dut, n).value = 0
        dut.wr_ready.value = int(rng.random() >= stall)

    def value(self, wa: int) -> int:
        return self.regs.get(wa, 0)

    async def run(self):
        d, rng = self.dut, self.rng
        w_due = r_due = None   # (edge the answer is driven for, err, data)
        b_due = r_valid_due = None
        edge = 0
        while True:
            await RisingEdge(d.clk)
            edge += 1
            wr_req, rd_req = int(d.wr_req.value), int(d.rd_req.value)
            w_acked = int(d.wr_ack.value) and w_due is not None and w_due[0] == edge
            r_acked = int(d.rd_ack.value) and r_due is not None and r_due[0] == edge
            # B / R exactly one cycle after the answer
            bvalid, rvalid = int(d.s_axil_bvalid.value), int(d.s_axil_rvalid.value)
            if b_due is not None and b_due[0] == edge:
                assert bvalid and int(d.s_axil_bresp.value) == b_due[1], f"edge {edge}: B not after wr_ack"
                b_due = None
            if r_valid_due is not None and r_valid_due[0] == edge:
                assert rvalid and (int(d.s_axil_rdata.value), int(d.s_axil_rresp.value)) == r_valid_due[1], \
                    f"edge {edge}: R not after rd_ack"
                r_valid_due = None
            if w_acked:
                b_due = (edge + 1, SLVERR if w_due[1] else OKAY)
                w_due = None
            if r_acked:
                r_valid_due = (edge + 1, (r_due[2], SLVERR if r_due[1] else OKAY))
                r_due = None
            # requests
            if wr_req:
                assert int(d.wr_ready.value), f"edge {edge}: wr_req without wr_ready"
                assert w_due is None and b_due is None and not bvalid, f"edge {edge}: second write in flight"
                wa, data, strb = int(d.wr_addr.value), int(d.wr_data.value), int(d.wr_strb.value)
                err = wa & 1
                if not err:
                    m = lanes(strb)
                    self.regs[wa] = (self.value(wa) & ~m) | (data & m)
                w_due = (edge + rng.randint(1, 3), err, 0)
                self.writes += 1
            if rd_req:
                assert r_due is None and r_valid_due is None and not rvalid, f"edge {edge}: second read in flight"
                wa = int(d.rd_addr.value)
                err = wa & 1
                r_due = (edge + rng.randint(1, 3), err, 0 if err else self.value(wa))
                self.reads += 1
            # drive the next cycle
            d.wr_ack.value = int(w_due is not None and w_due[0] == edge + 1)
            d.wr_err.value = w_due[1] if w_due is not None else rng.getrandbits(1)
            d.rd_ack.value = int(r_due is not None and r_due[0] == edge + 1)
            d.rd_err.value = r_due[1] if r_due is not None else rng.getrandbits(1)
            d.rd_data.value = r_due[2] if r_due is not None else rng.getrandbits(32)
            d.wr_ready.value = int(rng.random() >= self.stall)


async def setup(dut, seed: int, stall: float) -> tuple[Axil, RegBlock]:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    axil = Axil(dut)
    regs = RegBlock(dut, random.Random(seed), stall)
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    cocotb.start_soon(regs.run())
    cocotb.start_soon(protocol_checker(dut))
    return axil, regs


def addr(wa: int, low: int = 0) -> int:
    return ((wa & WA_MASK) << 2) | low


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def late_answers(dut):
    """Writes and reads answered 1..3 cycles late, wr_ready stalls, every handshake order and
    back-pressure, read and write in flight together; SLVERR on odd word addresses."""
    axil, regs = await setup(dut, 1, stall=0.3)
    rng = random.Random(2)
    model: dict[int, int] = {}
    words = sorted({rng.getrandbits(ADDR_W - 2) for _ in range(16)} | {0, 1, WA_MASK})
    for i in range(300):
        wa = rng.choice(words)
        data, strb = rng.getrandbits(32), rng.choice((0xF, 0xF, 0x1, 0x6, 0x0, rng.getrandbits(4)))
        aw_delay, w_delay = rng.choice([(0, 0), (0, 3), (3, 0), (1, 7), (7, 1), (0, 1), (1, 0)])
        kw = dict(strb=strb, aw_delay=aw_delay, w_delay=w_delay, b_delay=rng.choice((0, 0, 1, 4)))
        ra = rng.choice(words)
        if i % 3 == 0:  # a read in flight with the write
            w = cocotb.start_soon(axil.write(addr(wa, rng.getrandbits(2)), data, **kw))
            got = await axil.read(addr(ra, rng.getrandbits(2)), r_delay=rng.choice((0, 2)))
            resp = await w
            # the read may see the write or not (independent channels): compare after both
            exp_r = {(0, SLVERR)} if ra & 1 else {(model.get(ra, 0), OKAY)}
            if not wa & 1 and ra == wa:
                m = lanes(strb)
                exp_r.add(((model.get(wa, 0) & ~m) | (data & m), OKAY))
        else:
            resp = await axil.write(addr(wa, rng.getrandbits(2)), data, **kw)
            got = None
        assert resp == (SLVERR if wa & 1 else OKAY), f"write 0x{wa:x}: resp {resp}"
        if not wa & 1:
            m = lanes(strb)
            model[wa] = (model.get(wa, 0) & ~m) | (data & m)
        if got is not None:
            assert got in exp_r, f"read 0x{ra:x}: {got} not in {exp_r}"
        ra = rng.choice(words)
        exp = (0, SLVERR) if ra & 1 else (model.get(ra, 0), OKAY)
        assert await axil.read(addr(ra), r_delay=rng.choice((0, 0, 3))) == exp, f"read 0x{ra:x}"
    assert regs.writes == 300 and regs.reads >= 300


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def held_by_wr_ready(dut):
    """With wr_ready low, AW and W are taken but no wr_req is given and no B comes; the write
    goes through once wr_ready rises. Reads are answered meanwhile."""
    axil, regs = await setup(dut, 3, stall=1.0)   # wr_ready low from the first cycle
    w = cocotb.start_soon(axil.write(addr(2), 0xA5A5A5A5))
    for _ in range(20):
        await RisingEdge(dut.clk)
    assert regs.writes == 0 and not w.done()
    assert await axil.read(addr(4)) == (0, OKAY)
    regs.stall = 0.0
    assert await w == OKAY
    assert regs.writes == 1
    assert await axil.read(addr(2)) == (0xA5A5A5A5, OKAY)

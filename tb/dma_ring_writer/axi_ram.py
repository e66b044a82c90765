"""A small AXI4 write slave over sparse memory for the DMA benches, with random backpressure
on AW and W, random B latency, and the protocol rules checked on every transfer.

Rules checked (each a test failure with the burst named):
* AWBURST INCR, AWSIZE the full bus, the address aligned to the bus;
* a burst never crosses a 4 KiB boundary, nor ``burst_bytes`` (the writer's own bound);
* WLAST exactly on the burst's last beat; W is taken only for an AW already taken (a legal
  slave choice: it waits for the address);
* AWVALID/WVALID and their payloads held until taken;
* every written byte is allowed by ``check_write`` (the bench's ring rules).
"""

from __future__ import annotations

import random
from collections import deque
from typing import Callable

from cocotb.triggers import ReadOnly, RisingEdge


class AxiRam:
    def __init__(self, dut, kw: int, rng: random.Random, burst_bytes: int,
                 check_write: Callable[[int, bytes, int], None],
                 aw_ready: float = 1.0, w_ready: float = 1.0, b_delay: int = 0):
        self.dut = dut
        self.kw = kw
        self.rng = rng
        self.burst_bytes = burst_bytes
        self.check_write = check_write
        self.aw_ready = aw_ready       # probability of AWREADY in a cycle
        self.w_ready = w_ready
        self.b_delay = b_delay         # B up to this many cycles after the last W beat
        self.mem: dict[int, int] = {}
        self.aws: deque[list[int]] = deque()      # [addr, len, beats taken]
        self.bs: deque[int] = deque()             # cycle each B may be given
        self.cycle = 0
        self.bursts = 0
        self.beats = 0
        self.first_w_cycle: int | None = None
        self.w_cycles: list[int] = []            # cycles with a W beat taken
        self.aw_log: list[tuple[int, int, int]] = []   # (cycle, addr, len)

    def read(self, addr: int, n: int) -> bytes:
        return bytes(self.mem.get(addr + i, 0) for i in range(n))

    async def run(self) -> None:
        """Each cycle: drive the slave's signals after the edge, sample in ReadOnly (a transfer
        happens at the next edge when valid and ready are both high then)."""
        d = self.dut
        prev_aw = prev_w = None
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            d.m_axi_awready.value = int(self.rng.random() < self.aw_ready)
            d.m_axi_wready.value = int(bool(self.aws) and self.rng.random() < self.w_ready)
            bval = bool(self.bs) and self.bs[0] <= self.cycle
            d.m_axi_bvalid.value = int(bval)
            d.m_axi_bresp.value = 0
            d.m_axi_bid.value = 0
            await ReadOnly()
            awv, awr = int(d.m_axi_awvalid.value), int(d.m_axi_awready.value)
            wv, wr = int(d.m_axi_wvalid.value), int(d.m_axi_wready.value)
            aw = (int(d.m_axi_awaddr.value), int(d.m_axi_awlen.value),
                  int(d.m_axi_awsize.value), int(d.m_axi_awburst.value)) if awv else None
            w = (int(d.m_axi_wdata.value), int(d.m_axi_wstrb.value),
                 int(d.m_axi_wlast.value)) if wv else None
            if prev_aw is not None:
                assert aw == prev_aw, f"AW dropped or changed before AWREADY: {prev_aw} -> {aw}"
            if prev_w is not None:
                assert w == prev_w, "W dropped or changed before WREADY"
            prev_aw = aw if awv and not awr else None
            prev_w = w if wv and not wr else None
            if awv and awr:
                self.accept_aw(*aw)
            if wv and wr:
                self.accept_w(*w)
            if bval and int(d.m_axi_bready.value):
                self.bs.popleft()

    def accept_aw(self, addr: int, length: int, size: int, burst: int) -> None:
        kw = self.kw
        nbytes = (length + 1) * kw
        assert burst == 1, f"AW {addr:#x}: AWBURST {burst}, not INCR"
        assert 1 << size == kw, f"AW {addr:#x}: AWSIZE {size} is not the bus width"
        assert addr % kw == 0, f"AW {addr:#x}: not aligned to the bus"
        assert addr % 4096 + nbytes <= 4096, f"AW {addr:#x} + {nbytes} crosses 4 KiB"
        assert addr % self.burst_bytes + nbytes <= self.burst_bytes, \
            f"AW {addr:#x} + {nbytes} crosses a {self.burst_bytes}-byte boundary"
        self.aws.append([addr, length, 0])
        self.aw_log.append((self.cycle, addr, length))
        self.bursts += 1

    def accept_w(self, data: int, strb: int, last: int) -> None:
        assert self.aws, "W beat without an AW"
        a = self.aws[0]
        addr = a[0] + a[2] * self.kw
        assert last == int(a[2] == a[1]), f"WLAST {last} on beat {a[2]} of a {a[1] + 1}-beat burst at {a[0]:#x}"
        raw = data.to_bytes(self.kw, "little")
        self.check_write(addr, raw, strb)
        for i in range(self.kw):
            if strb >> i & 1:
                self.mem[addr + i] = raw[i]
        self.beats += 1
        self.w_cycles.append(self.cycle)
        if self.first_w_cycle is None:
            self.first_w_cycle = self.cycle
        a[2] += 1
        if a[2] > a[1]:
            self.aws.popleft()
            self.bs.append(self.cycle + self.rng.randint(0, self.b_delay))

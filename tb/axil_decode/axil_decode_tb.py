"""cocotb tests of rtl/control/axil_decode.sv (one AXI4-Lite slave in, WINDOWS masters out).

Behind every master port sits a Python AXI4-Lite slave (`Windows`) with random AWREADY /
WREADY / ARREADY and random B / R latency, which logs every request it receives and checks
the decoder's master-side protocol (VALID held with a stable payload until READY, at most one
window addressed per channel, no second request before the response). The host side is the
hand-written master of tb/block_csr/axil.py with random B/R back-pressure.

Parameters come from the environment (set by test_axil_decode.py): WS_WINDOWS,
WS_WIN_ADDR_W, WS_ADDR_W.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from tb.block_csr.axil import DECERR, OKAY, SLVERR, Axil, protocol_checker

PERIOD_NS = 4
WINDOWS = int(os.environ.get("WS_WINDOWS", "2"))
WIN_ADDR_W = int(os.environ.get("WS_WIN_ADDR_W", "12"))
ADDR_W = int(os.environ.get("WS_ADDR_W", "16"))
WIN_SIZE = 1 << WIN_ADDR_W
NUM_WIN_IDX = 1 << (ADDR_W - WIN_ADDR_W)  # window indices the address can name


def field_of(vec: int, idx: int, width: int) -> int:
    return (vec >> (idx * width)) & ((1 << width) - 1)


def initial_word(w: int, rel: int) -> int:
    return ((0xC0 + w) << 24) ^ (rel * 0x01010101 & 0x00FFFFFF) ^ 0x005A0000


def error_resp(w: int, rel: int) -> int:
    """The window slaves answer an error on their last word: SLVERR in even windows, DECERR
    in odd ones (the decoder must pass either through)."""
    if (rel & ~3) == WIN_SIZE - 4:
        return SLVERR if w % 2 == 0 else DECERR
    return OKAY


@dataclass
class Windows:
    """WINDOWS AXI4-Lite slaves on the packed m_axil_* vectors, one coroutine for all."""

    dut: object
    rng: random.Random
    p_ready: float = 0.6  # probability of AWREADY/WREADY/ARREADY per cycle
    max_lat: int = 4      # B and R come 1..max_lat cycles after the request is complete
    wait_valid: bool = False  # READY only while a VALID is waiting (a slave that looks first)
    mem: dict = field(default_factory=dict)
    log: list = field(default_factory=list)  # ("w", win, addr, prot, data, strb) / ("r", win, addr, prot)

    def __post_init__(self):
        d = self.dut
        for n in ("awready", "wready", "bvalid", "bresp", "arready", "rvalid", "rdata", "rresp"):
            getattr(d, f"m_axil_{n}").value = 0
        self.aw = [None] * WINDOWS   # accepted (addr, prot)
        self.w = [None] * WINDOWS    # accepted (data, strb)
        self.b = [None] * WINDOWS    # [countdown, resp]
        self.ar = [None] * WINDOWS   # accepted (addr, prot), R pending: [countdown, data, resp]
        self.r = [None] * WINDOWS
        self.prev = None             # last cycle's (valid, payload) per channel, for stability checks

    def word(self, w: int, rel: int) -> int:
        return self.mem.get((w, rel & ~3), initial_word(w, rel & ~3))

    async def run(self):
        d = self.dut
        awready = wready = arready = 0
        while True:
            await RisingEdge(d.clk)
            awv, wv = int(d.m_axil_awvalid.value), int(d.m_axil_wvalid.value)
            arv = int(d.m_axil_arvalid.value)
            bready, rready = int(d.m_axil_bready.value), int(d.m_axil_rready.value)
            awaddr, awprot = int(d.m_axil_awaddr.value), int(d.m_axil_awprot.value)
            wdata, wstrb = int(d.m_axil_wdata.value), int(d.m_axil_wstrb.value)
            araddr, arprot = int(d.m_axil_araddr.value), int(d.m_axil_arprot.value)
            for name, v in (("AW", awv), ("W", wv), ("AR", arv)):
                assert v & (v - 1) == 0, f"{name}VALID to more than one window: {v:b}"
            cur = {}
            for w in range(WINDOWS):
                cur[("aw", w)] = (awv >> w & 1, field_of(awaddr, w, WIN_ADDR_W), field_of(awprot, w, 3))
                cur[("w", w)] = (wv >> w & 1, field_of(wdata, w, 32), field_of(wstrb, w, 4))
                cur[("ar", w)] = (arv >> w & 1, field_of(araddr, w, WIN_ADDR_W), field_of(arprot, w, 3))
            if self.prev is not None:
                for k, (v, *payload) in self.prev.items():
                    if v:  # VALID was up and not taken: must still be up with the same payload
                        assert cur[k][0] == 1 and list(cur[k][1:]) == payload, f"{k} dropped or changed before READY"
            nxt = {}
            for w in range(WINDOWS):
                # request channels
                if awv >> w & 1 and awready >> w & 1:
                    assert self.aw[w] is None and self.b[w] is None, f"window {w}: second AW before B"
                    self.aw[w] = cur[("aw", w)][1:]
                elif awv >> w & 1:
                    nxt[("aw", w)] = cur[("aw", w)]
                if wv >> w & 1 and wready >> w & 1:
                    assert self.w[w] is None and self.b[w] is None, f"window {w}: second W before B"
                    self.w[w] = cur[("w", w)][1:]
                elif wv >> w & 1:
                    nxt[("w", w)] = cur[("w", w)]
                if arv >> w & 1 and arready >> w & 1:
                    assert self.ar[w] is None, f"window {w}: second AR before R"
                    addr, prot = cur[("ar", w)][1:]
                    self.ar[w] = (addr, prot)
                    self.log.append(("r", w, addr, prot))
                    self.r[w] = [self.rng.randint(1, self.max_lat), self.word(w, addr), error_resp(w, addr)]
                elif arv >> w & 1:
                    nxt[("ar", w)] = cur[("ar", w)]
                # responses
                if self.b[w] is not None and self.b[w][0] == 0 and bready >> w & 1:
                    self.b[w] = None
                if self.r[w] is not None and self.r[w][0] == 0 and rready >> w & 1:
                    self.r[w] = None
                    self.ar[w] = None
                if self.aw[w] is not None and self.w[w] is not None and self.b[w] is None:
                    (addr, prot), (data, strb) = self.aw[w], self.w[w]
                    self.log.append(("w", w, addr, prot, data, strb))
                    resp = error_resp(w, addr)
                    if resp == OKAY:
                        m = sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)
                        self.mem[(w, addr & ~3)] = (self.word(w, addr) & ~m) | (data & m)
                    self.b[w] = [self.rng.randint(1, self.max_lat), resp]
                    self.aw[w] = self.w[w] = None
                for q in (self.b[w], self.r[w]):
                    if q is not None and q[0] > 0:
                        q[0] -= 1
            self.prev = nxt
            # drive the next cycle
            def rnd(ch: str) -> int:
                return sum(1 << w for w in range(WINDOWS)
                           if self.rng.random() < self.p_ready and (not self.wait_valid or (ch, w) in nxt))

            awready, wready, arready = rnd("aw"), rnd("w"), rnd("ar")
            bvalid = bresp = rvalid = rdata = rresp = 0
            for w in range(WINDOWS):
                if self.b[w] is not None and self.b[w][0] == 0:
                    bvalid |= 1 << w
                    bresp |= self.b[w][1] << (2 * w)
                if self.r[w] is not None and self.r[w][0] == 0:
                    rvalid |= 1 << w
                    rdata |= self.r[w][1] << (32 * w)
                    rresp |= self.r[w][2] << (2 * w)
            d.m_axil_awready.value = awready
            d.m_axil_wready.value = wready
            d.m_axil_arready.value = arready
            d.m_axil_bvalid.value = bvalid
            d.m_axil_bresp.value = bresp
            d.m_axil_rvalid.value = rvalid
            d.m_axil_rdata.value = rdata
            d.m_axil_rresp.value = rresp


async def setup(dut, seed: int, **kw) -> tuple[Axil, Windows]:
    Clock(dut.clk, PERIOD_NS, unit="ns").start()
    dut.rst.value = 1
    axil = Axil(dut, timeout=200)
    win = Windows(dut, random.Random(seed), **kw)
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    cocotb.start_soon(win.run())
    cocotb.start_soon(protocol_checker(dut))
    return axil, win


def rand_addr(rng: random.Random, w: int) -> tuple[int, int]:
    """(full address, window-relative address) in window w; low bits [1:0] random too."""
    rel = rng.choice([0, WIN_SIZE - 4, WIN_SIZE - 1, rng.randrange(WIN_SIZE), rng.randrange(WIN_SIZE)])
    return (w << WIN_ADDR_W) | rel, rel


def delays(rng: random.Random) -> dict:
    return {
        "aw_delay": rng.choice([0, 0, 1, 4]),
        "w_delay": rng.choice([0, 0, 2, 5]),
        "b_delay": rng.choice([0, 0, 1, 3, 9]),
    }


# ---------------------------------------------------------------------------------------------


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def routing(dut):
    """Every window: writes and reads land on that window only, with the window-relative
    address, data, strobes and PROT; read data and responses (OKAY, SLVERR, DECERR) come back
    unchanged."""
    axil, win = await setup(dut, seed=1)
    rng = random.Random(2)
    for _ in range(3):
        for w in range(WINDOWS):
            addr, rel = rand_addr(rng, w)
            data, strb, prot = rng.getrandbits(32), rng.randrange(16), rng.randrange(8)
            n = len(win.log)
            want = error_resp(w, rel)
            assert await axil.write(addr, data, strb=strb, prot=prot, **delays(rng)) == want
            assert win.log[n:] == [("w", w, rel, prot, data, strb)], f"write 0x{addr:x}"
            prot = rng.randrange(8)
            got = await axil.read(addr, prot=prot, r_delay=rng.choice([0, 0, 2, 7]))
            assert got == (win.word(w, rel), want), f"read 0x{addr:x}"
            assert win.log[n + 1:] == [("r", w, rel, prot)], f"read 0x{addr:x}"
    # every word of a small window, or a sample of a big one, reads its own initial value
    for w in range(WINDOWS):
        for rel in sorted({0, 4, WIN_SIZE - 8, WIN_SIZE - 4} & set(range(0, WIN_SIZE, 4))):
            if (w, rel) not in win.mem:
                assert await axil.read((w << WIN_ADDR_W) | rel) == (initial_word(w, rel), error_resp(w, rel))


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def beyond_last_window(dut):
    """Addresses whose window index is >= WINDOWS answer SLVERR with data 0 from the decoder
    itself; no window sees them; the next request is served normally."""
    axil, win = await setup(dut, seed=3)
    rng = random.Random(4)
    if WINDOWS == NUM_WIN_IDX:
        # every address is mapped: just check the top of the space reaches the last window
        n = len(win.log)
        top = (1 << ADDR_W) - 4
        assert (await axil.read(top))[1] == error_resp(WINDOWS - 1, WIN_SIZE - 4)
        assert win.log[n:] == [("r", WINDOWS - 1, WIN_SIZE - 4, 0)]
        return
    idxs = sorted({WINDOWS, NUM_WIN_IDX - 1, rng.randrange(WINDOWS, NUM_WIN_IDX)})
    for _ in range(4):
        for i in idxs:
            n = len(win.log)
            addr = (i << WIN_ADDR_W) | rng.randrange(WIN_SIZE)
            assert await axil.write(addr, rng.getrandbits(32), **delays(rng)) == SLVERR, f"write 0x{addr:x}"
            assert await axil.read(addr, r_delay=rng.choice([0, 3])) == (0, SLVERR), f"read 0x{addr:x}"
            assert win.log[n:] == [], f"0x{addr:x} reached a window"
            # and the decoder is not stuck
            w = rng.randrange(WINDOWS)
            a, rel = rand_addr(rng, w)
            assert (await axil.read(a)) == (win.word(w, rel), error_resp(w, rel))


@cocotb.test(timeout_time=8000, timeout_unit="us")
async def concurrent_random(dut):
    """A writer and a reader run at once (independent channels), random addresses in every
    window and beyond, random AW/W order, random B/R back-pressure on the host side and random
    stalls in the windows, whose READY waits for VALID (so a VALID that waits for READY would
    hang); then every written word is read back."""
    axil, win = await setup(dut, seed=5, p_ready=0.5, max_lat=6, wait_valid=True)
    rng_w, rng_r = random.Random(6), random.Random(7)
    written: dict = {}

    async def writer():
        for _ in range(250):
            if WINDOWS < NUM_WIN_IDX and rng_w.random() < 0.1:
                addr = (rng_w.randrange(WINDOWS, NUM_WIN_IDX) << WIN_ADDR_W) | rng_w.randrange(WIN_SIZE)
                assert await axil.write(addr, 1, **delays(rng_w)) == SLVERR
                continue
            w = rng_w.randrange(WINDOWS)
            addr, rel = rand_addr(rng_w, w)
            rel &= ~4 if WIN_SIZE > 4 else ~0  # writes only on even words (reads use odd ones)
            addr = (w << WIN_ADDR_W) | rel
            data = rng_w.getrandbits(32)
            resp = await axil.write(addr, data, **delays(rng_w))
            assert resp == error_resp(w, rel)
            if resp == OKAY:
                written[(w, rel & ~3)] = data

    async def reader():
        for _ in range(250):
            r_delay = rng_r.choice([0, 0, 1, 5, 12])
            if WINDOWS < NUM_WIN_IDX and rng_r.random() < 0.1:
                addr = (rng_r.randrange(WINDOWS, NUM_WIN_IDX) << WIN_ADDR_W) | rng_r.randrange(WIN_SIZE)
                assert await axil.read(addr, r_delay=r_delay) == (0, SLVERR)
                continue
            w = rng_r.randrange(WINDOWS)
            rel = rng_r.randrange(WIN_SIZE)
            if WIN_SIZE > 4:
                rel |= 4  # odd words: never written, still their initial value
            assert await axil.read((w << WIN_ADDR_W) | rel, r_delay=r_delay) == (
                initial_word(w, rel & ~3), error_resp(w, rel))

    tw, tr = cocotb.start_soon(writer()), cocotb.start_soon(reader())
    await tw
    await tr
    for (w, rel), data in sorted(written.items()):
        assert await axil.read((w << WIN_ADDR_W) | rel, r_delay=rng_r.choice([0, 3])) == (data, OKAY)


@cocotb.test(timeout_time=4000, timeout_unit="us")
async def slow_windows(dut):
    """Windows that take their time (ready 10 % of cycles, responses up to 30 cycles late)
    and a host that holds B/R for a long time: every transaction still completes."""
    axil, win = await setup(dut, seed=8, p_ready=0.1, max_lat=30)
    axil.timeout = 400
    rng = random.Random(9)
    for _ in range(20):
        w = rng.randrange(WINDOWS)
        addr, rel = rand_addr(rng, w)
        data = rng.getrandbits(32)
        assert await axil.write(addr, data, b_delay=rng.choice([0, 40])) == error_resp(w, rel)
        got = await axil.read(addr, r_delay=rng.choice([0, 40]))
        assert got == (win.word(w, rel), error_resp(w, rel))
    await ClockCycles(dut.clk, 5)

"""cocotb tests of rtl/host/capture_gen_top.sv (small build: 64 bits, 2 queues, every queue left
disabled, so capture_top counts each frame in FRAMES_IN and drops it, Q_DROP_OFF, and m_axi stays
quiet).

* ``registers``: the map of wirespeed/regmap.py CAPTURE_GEN at 0x4000 (reset values, strobes,
  SLVERR for read-only and unmapped addresses), capture_top's own registers at 0x0000, SLVERR
  beyond the two windows.
* ``cable_loopback``: LOOPBACK off, the generator's frames leave on m_axis; the bench is the
  optic cable, m_axis back into s_axis after DELAY cycles: the checker sees every frame, no
  gap, each with a latency of DELAY + 2 cycles.
* ``select_between_frames``: both sources busy at once (the generator sweeping 60..300 bytes,
  the bench sending frames of its own on s_axis back to back) while LOOPBACK flips at random
  cycles: every frame that enters the capture (watched on the select's register) is whole,
  either a generator frame equal to pkt_gen's format for its sequence number or one of the
  bench's frames; every bench frame is captured or counted in RX_DISCARD, every generator frame
  is captured or left on m_axis, the checker and FRAMES_IN agree.
"""

from __future__ import annotations

import random
import struct

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from tb.block_csr.axil import SLVERR, Axil
from tb.capture_gen.gen_model import gen_frame, sweep_length
from wirespeed.regmap import CAPTURE_GEN, CAPTURE_GEN_BASE, CAPTURE_GEN_PORT

KW = 8          # 64-bit build
DELAY = 5       # the bench's cable, cycles


def R(name: str) -> int:
    return CAPTURE_GEN_BASE + CAPTURE_GEN.reg(name)


F = {n: CAPTURE_GEN.register(r).field(n).mask for r, n in
     (("CTRL", "GEN_ENABLE"), ("CTRL", "LOOPBACK"), ("CMD", "CHK_CLEAR"), ("STATUS", "GEN_DONE"),
      ("STATUS", "LOOPBACK"))}
EN, LOOP = F["GEN_ENABLE"], F["LOOPBACK"]


def beats_of(frame: bytes) -> list[tuple[int, int, int]]:
    """(tdata, tkeep, tlast) of each beat."""
    out = []
    for i in range(0, len(frame), KW):
        chunk = frame[i:i + KW]
        out.append((int.from_bytes(chunk.ljust(KW, b"\0"), "little"), (1 << len(chunk)) - 1,
                    int(i + KW >= len(frame))))
    return out


class Bench:
    """One coroutine a cycle: drives s_axis (from the cable or from a frame list), records
    m_axis, and what enters capture_top (the select's register, p_*)."""

    def __init__(self, dut):
        self.dut = dut
        self.cycle = 0
        self.cable = False                    # s_axis = m_axis DELAY cycles ago
        self.tx: dict[int, tuple[int, int, int]] = {}     # cycle -> m_axis beat taken
        self.rx_frames: list[bytes] = []      # the bench's own frames for s_axis
        self.rx_beats: list[tuple[int, int, int] | None] = []   # None: an idle cycle
        self.rx_sent = 0                      # frames whose last beat s_axis took
        self.tx_frames: list[bytes] = []      # complete frames seen on m_axis
        self.cap_frames: list[bytes] = []     # complete frames into capture_top
        self._tx_cur = b""
        self._cap_cur = b""
        self._drive: tuple[int, int, int] | None = None

    def queue_rx(self, frames: list[bytes], gap: int = 3) -> None:
        """Frames for s_axis, ``gap`` idle cycles after each (a MAC's preamble and IFG)."""
        self.rx_frames += frames
        for f in frames:
            self.rx_beats += beats_of(f) + [None] * gap

    async def loop(self) -> None:
        d = self.dut
        d.m_axis_tready.value = 1
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            # drive s_axis for this cycle
            if self.cable:
                beat = self.tx.pop(self.cycle - DELAY, None)
            elif self.rx_beats and self.rx_beats[0] is None:
                self.rx_beats.pop(0)
                beat = None
            else:
                beat = self.rx_beats[0] if self.rx_beats else None
            self._drive = beat
            if beat is None:
                d.s_axis_tvalid.value = 0
            else:
                d.s_axis_tdata.value, d.s_axis_tkeep.value, d.s_axis_tlast.value = beat
                d.s_axis_tvalid.value = 1
            d.s_axis_tuser.value = 0
            await ReadOnly()
            if self._drive is not None and int(d.s_axis_tready.value):
                if not self.cable:
                    self.rx_beats.pop(0)
                    self.rx_sent += self._drive[2]
            else:
                assert not (self.cable and self._drive is not None), "the cable cannot wait"
            if int(d.m_axis_tvalid.value):
                b = (int(d.m_axis_tdata.value), int(d.m_axis_tkeep.value),
                     int(d.m_axis_tlast.value))
                self.tx[self.cycle] = b
                self._tx_cur += self._bytes(b)
                if b[2]:
                    self.tx_frames.append(self._tx_cur)
                    self._tx_cur = b""
            if int(d.p_valid_q.value) and int(d.cap_ready.value):
                b = (int(d.p_data_q.value), int(d.p_keep_q.value), int(d.p_last_q.value))
                self._cap_cur += self._bytes(b)
                if b[2]:
                    self.cap_frames.append(self._cap_cur)
                    self._cap_cur = b""
            if not self.cable:
                self.tx.clear()

    @staticmethod
    def _bytes(b: tuple[int, int, int]) -> bytes:
        n = bin(b[1]).count("1")
        assert b[1] == (1 << n) - 1, f"tkeep {b[1]:#x}"
        return b[0].to_bytes(KW, "little")[:n]


async def setup(dut) -> tuple[Axil, Bench]:
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.pps.value = 0
    dut.s_axis_tvalid.value = 0
    dut.m_axis_tready.value = 1
    dut.m_axi_awready.value = 0
    dut.m_axi_wready.value = 0
    dut.m_axi_bvalid.value = 0
    dut.m_axi_bid.value = 0
    dut.m_axi_bresp.value = 0
    axil = Axil(dut)
    await ClockCycles(dut.clk, 5)
    dut.rst.value = 0
    bench = Bench(dut)
    cocotb.start_soon(bench.loop())
    await ClockCycles(dut.clk, 3)
    return axil, bench


async def rd64(axil: Axil, lo: str) -> int:
    v = await axil.rd(R(lo))
    return v | await axil.rd(R(lo.replace("_LO", "_HI"))) << 32


async def wait_done(axil: Axil, limit: int = 3000) -> None:
    for _ in range(limit):
        if await axil.rd(R("STATUS")) & F["GEN_DONE"]:
            return
    raise AssertionError("the generator never reports GEN_DONE")


@cocotb.test()
async def registers(dut):
    axil, _ = await setup(dut)
    assert await axil.rd(R("ID")) == CAPTURE_GEN.id_value == 0x57534347
    assert await axil.rd(R("PARAMS")) == CAPTURE_GEN_PORT << 16 | KW * 8
    assert await axil.rd(0x0000) == 0x57534350                    # capture_top's ID
    for r in CAPTURE_GEN.registers:   # TIME counts; *_HI read the latch of the last *_LO read
        if r.reset is not None and r.name != "TIME_LO" and not r.name.endswith("_HI"):
            assert await axil.rd(R(r.name)) == r.reset, r.name
    await axil.wr(R("GEN_LEN"), 0x1234_5678)
    await axil.wr(R("GEN_LEN"), 0xAABB_CCDD, strb=0b0101)
    assert await axil.rd(R("GEN_LEN")) == 0x12BB_56DD
    await axil.wr(R("GEN_RATE"), 0xFFFF_FFFF)
    assert await axil.rd(R("GEN_RATE")) == 0x00FF_FFFF
    await axil.wr(R("GEN_FLOWS"), 0xFFFF_FFFF)
    assert await axil.rd(R("GEN_FLOWS")) == 0xFFFF
    await axil.wr(R("GEN_COUNT"), 0xDEAD_BEEF)
    assert await axil.rd(R("GEN_COUNT")) == 0xDEAD_BEEF
    await axil.wr(R("CTRL"), 0xFFFF_FFFC)                         # neither bit: nothing on
    assert await axil.rd(R("CTRL")) == 0
    for r in CAPTURE_GEN.registers:
        if r.access == "RO":
            assert await axil.write(R(r.name), 1) == SLVERR, r.name
    for off in (0x06C, 0x078, 0x100, 0x3FFC):
        assert await axil.write(CAPTURE_GEN_BASE + off, 1) == SLVERR, hex(off)
        assert (await axil.read(CAPTURE_GEN_BASE + off))[1] == SLVERR, hex(off)
    for a in (0x8000, 0xC004):                                      # no third or fourth window
        assert await axil.write(a, 1) == SLVERR and (await axil.read(a))[1] == SLVERR
    t0 = await rd64(axil, "TIME_LO")
    t1 = await rd64(axil, "TIME_LO")
    assert 0 < t0 < t1 < t0 + 100


@cocotb.test()
async def cable_loopback(dut):
    axil, bench = await setup(dut)
    n, lmin, lmax = 120, 60, 150
    bench.cable = True
    await axil.wr(R("GEN_LEN"), lmin | lmax << 16)
    await axil.wr(R("GEN_RATE"), 0)                                 # back to back
    await axil.wr(R("GEN_FLOWS"), 7)
    await axil.wr(R("GEN_COUNT"), n)
    await axil.wr(R("CMD"), F["CHK_CLEAR"])
    await axil.wr(R("CTRL"), EN)
    await wait_done(axil)
    await ClockCycles(dut.clk, DELAY + 20)
    assert len(bench.tx_frames) == n
    for seq, f in enumerate(bench.tx_frames):
        got_seq, ts = struct.unpack_from("!QQ", f, 42)
        assert got_seq == seq and f == gen_frame(seq, sweep_length(seq, lmin, lmax), 7, ts), seq
    total = sum(len(f) for f in bench.tx_frames)
    assert await axil.rd(R("GEN_FRAMES")) == n and await rd64(axil, "GEN_BYTES_LO") == total
    assert bench.cap_frames == bench.tx_frames                      # what the cable carried
    assert await axil.rd(R("CHK_FRAMES")) == n and await rd64(axil, "CHK_BYTES_LO") == total
    assert [await axil.rd(R(x)) for x in ("CHK_OTHERS", "CHK_GAPS", "CHK_LATE", "RX_DISCARD")] \
        == [0, 0, 0, 0]
    # every frame: the generator's output register, the cable, the select's register
    assert await axil.rd(R("CHK_LAT_MIN")) == await axil.rd(R("CHK_LAT_MAX")) == DELAY + 2
    assert await rd64(axil, "CHK_LAT_SUM_LO") == n * (DELAY + 2)
    assert 0 < await rd64(axil, "GEN_T_FIRST_LO") < await rd64(axil, "GEN_T_LAST_LO")
    fr = await axil.rd(0x0010) | await axil.rd(0x0014) << 32        # capture_top FRAMES_IN
    assert fr == n


@cocotb.test()
async def select_between_frames(dut):
    axil, bench = await setup(dut)
    r = random.Random(29)
    lmin, lmax, flows = 60, 300, 5
    # the bench's frames: not test frames (UDP to another port), each unique
    own = []
    for i in range(400):
        body = struct.pack("!I", i) + bytes(r.randrange(256) for _ in range(r.randrange(56, 240)))
        own.append(bytes.fromhex("0a0000000001" "0a0000000002" "88b5") + body)
    bench.queue_rx(own)
    await axil.wr(R("GEN_LEN"), lmin | lmax << 16)
    await axil.wr(R("GEN_RATE"), 0)
    await axil.wr(R("GEN_FLOWS"), flows)
    await axil.wr(R("GEN_COUNT"), 0)                                # until GEN_ENABLE falls
    await axil.wr(R("CMD"), F["CHK_CLEAR"])
    loop = 0
    await axil.wr(R("CTRL"), EN | loop)
    for _ in range(14):
        await ClockCycles(dut.clk, r.randrange(40, 400))
        loop ^= LOOP
        await axil.wr(R("CTRL"), EN | loop)
        for _ in range(200):                                        # in force between frames
            if (await axil.rd(R("STATUS")) & F["LOOPBACK"]) == loop:
                break
        else:
            raise AssertionError("the select never changed")
    await axil.wr(R("CTRL"), loop)                                  # the generator stops
    while bench.rx_beats:
        await ClockCycles(dut.clk, 50)
    await ClockCycles(dut.clk, 30)
    sent = await axil.rd(R("GEN_FRAMES"))
    gen_seen: dict[int, bytes] = {}
    n_own = 0
    own_set = {f: i for i, f in enumerate(own)}
    for f in bench.cap_frames:
        if f in own_set:
            n_own += 1
            continue
        seq, ts = struct.unpack_from("!QQ", f, 42)
        assert seq < sent and seq not in gen_seen, seq
        assert f == gen_frame(seq, sweep_length(seq, lmin, lmax), flows, ts), f"spliced: {seq}"
        gen_seen[seq] = f
    for f in bench.tx_frames:                                       # the rest left on m_axis
        seq, ts = struct.unpack_from("!QQ", f, 42)
        assert seq not in gen_seen and f == gen_frame(seq, sweep_length(seq, lmin, lmax), flows, ts)
        gen_seen[seq] = f
    assert sorted(gen_seen) == list(range(sent)) and sent > 100
    discard = await axil.rd(R("RX_DISCARD"))
    assert bench.rx_sent == len(own) and n_own + discard == len(own) and 0 < discard < len(own)
    chk, others = await axil.rd(R("CHK_FRAMES")), await axil.rd(R("CHK_OTHERS"))
    assert others == n_own and chk == len(bench.cap_frames) - n_own
    assert chk < sent                                               # some went to m_axis
    # the checker counts sequence gaps: the generator's frames sent out on m_axis meanwhile
    assert await axil.rd(R("CHK_LATE")) == 0
    assert await axil.rd(R("CHK_LAT_MIN")) == await axil.rd(R("CHK_LAT_MAX")) == 2
    fr = await axil.rd(0x0010) | await axil.rd(0x0014) << 32
    assert fr == len(bench.cap_frames)

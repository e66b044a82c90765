"""cocotb tests of rtl/shell/avst_to_axis.sv and rtl/shell/axis_to_avst.sv, back to back
(harness tb/avst/avst_loop.sv): Avalon-ST in -> AXI4-Stream (mid_axis_*) -> Avalon-ST out.

Avalon-ST conventions checked here (the ones the adapters implement):
  * readyLatency 0: a beat moves in a cycle with valid and ready both 1;
  * byte 0 of the frame in data[DATA_W-1 -: 8] (first symbol in high-order bits), as in the
    mixi/N3000 excerpt: data[159:144] = EtherType, data[71:64] = IPv4 protocol on a 256-bit beat;
  * empty = number of unused bytes at the end of the eop beat; error goes with eop.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamMonitor


def avst_beats(frame: bytes, error: int, keep_w: int, rng: random.Random) -> list[dict]:
    """Split a frame into Avalon-ST beats: byte 0 in the high-order byte lane."""
    beats = []
    for off in range(0, len(frame), keep_w):
        chunk = frame[off : off + keep_w]
        eop = off + keep_w >= len(frame)
        empty = keep_w - len(chunk)
        pad = bytes(rng.getrandbits(8) for _ in range(empty))  # junk in the unused lanes
        beats.append(
            dict(
                data=int.from_bytes(chunk + pad, "big"),
                sop=int(off == 0),
                eop=int(eop),
                empty=empty if eop else rng.randrange(keep_w),  # empty is don't-care w/o eop
                error=error if eop else rng.getrandbits(1),  # error is don't-care w/o eop
            )
        )
    return beats


def frame_byte(beats: list[int], keep_w: int, k: int) -> int:
    """Byte k of a frame given its Avalon-ST beats (ints), byte 0 in the high-order lane."""
    data_w = 8 * keep_w
    beat, lane = divmod(k, keep_w)
    return (beats[beat] >> (data_w - 8 - 8 * lane)) & 0xFF


async def avst_source(dut, frames, keep_w, rng, p_gap):
    """Drive frames on s_avst_* with random idle cycles between and inside frames."""
    d = dut
    for frame, error in frames:
        for beat in avst_beats(frame, error, keep_w, rng):
            while rng.random() < p_gap:
                d.s_avst_valid.value = 0
                d.s_avst_data.value = rng.getrandbits(8 * keep_w)
                d.s_avst_sop.value = rng.getrandbits(1)
                d.s_avst_eop.value = rng.getrandbits(1)
                await RisingEdge(d.clk)
            d.s_avst_valid.value = 1
            d.s_avst_data.value = beat["data"]
            d.s_avst_sop.value = beat["sop"]
            d.s_avst_eop.value = beat["eop"]
            d.s_avst_empty.value = beat["empty"]
            d.s_avst_error.value = beat["error"]
            while True:
                await RisingEdge(d.clk)
                if int(d.s_avst_ready.value):  # ready latency 0: taken in this cycle
                    break
    d.s_avst_valid.value = 0


async def avst_sink(dut, out, keep_w, rng, p_stall, n_frames, beat_log):
    """Collect frames from m_avst_*, checking sop/eop framing; random ready."""
    d = dut
    cur = None
    held = None  # (data, sop, eop, empty, error) offered but not taken
    while len(out) < n_frames:
        d.m_avst_ready.value = int(rng.random() >= p_stall)
        await RisingEdge(d.clk)
        if not int(d.m_avst_valid.value):
            assert held is None, "valid dropped before ready"
            continue
        beat = (
            int(d.m_avst_data.value),
            int(d.m_avst_sop.value),
            int(d.m_avst_eop.value),
            int(d.m_avst_empty.value),
            int(d.m_avst_error.value),
        )
        if held is not None:
            assert beat == held, "beat changed while stalled"
        if not int(d.m_avst_ready.value):
            held = beat
            continue
        held = None
        data, sop, eop, empty, error = beat
        if cur is None:
            assert sop == 1, "first beat of a frame without sop"
            cur = {"beats": [], "data": bytearray()}
        else:
            assert sop == 0, "sop inside a frame"
        cur["beats"].append(data)
        nbytes = keep_w - empty if eop else keep_w
        if not eop:
            assert empty == 0, "empty must be 0 without eop"
            assert error == 0, "error must be 0 without eop"
        cur["data"] += data.to_bytes(keep_w, "big")[:nbytes]
        if eop:
            out.append((bytes(cur["data"]), error))
            beat_log.append(cur["beats"])
            cur = None


def seed_frame() -> bytes:
    """The seed's minimum GRE frame: 64-byte inner Ethernet frame in outer Ethernet + IPv4 +
    GRE (14 + 20 + 4 + 50 = 88 bytes on the bus, i.e. 64 B + 24 B)."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import GRE, Ether
    from scapy.packet import Raw

    inner = IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=2) / Raw(b"\x00" * 22)
    pkt = (
        Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
        / IP(src="192.0.2.1", dst="198.51.100.1", proto=47)
        / GRE(proto=0x0800)
        / inner
    )
    raw = bytes(pkt)
    assert len(raw) == 88, len(raw)
    return raw


async def setup(dut) -> int:
    keep_w = len(dut.s_avst_data) // 8
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.s_avst_valid.value = 0
    dut.s_avst_data.value = 0
    dut.s_avst_sop.value = 0
    dut.s_avst_eop.value = 0
    dut.s_avst_empty.value = 0
    dut.s_avst_error.value = 0
    dut.m_avst_ready.value = 0
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    return keep_w


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def seed_byte_order(dut):
    """The seed's GRE frame: the excerpt's tests hold on the first 256-bit beat (on both
    Avalon-ST sides), and the AXI4-Stream side has byte 0 in tdata[7:0]."""
    keep_w = await setup(dut)
    rng = random.Random(1)
    frame = seed_frame()
    mid = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "mid_axis"), dut.clk, dut.rst)
    out, beat_log = [], []
    sink = cocotb.start_soon(avst_sink(dut, out, keep_w, rng, 0.0, 1, beat_log))

    # what the test drives follows the excerpt (checked on the test's own packing)
    in_beats = [b["data"] for b in avst_beats(frame, 0, keep_w, rng)]
    if keep_w == 32:
        assert (in_beats[0] >> 144) & 0xFFFF == 0x0800
        assert (in_beats[0] >> 64) & 0xFF == 47

    await avst_source(dut, [(frame, 0)], keep_w, rng, 0.0)
    await sink
    assert out == [(frame, 0)]

    # Avalon-ST output: same convention; for 256 bits literally the excerpt's bit ranges
    ob = beat_log[0]
    assert frame_byte(ob, keep_w, 12) << 8 | frame_byte(ob, keep_w, 13) == 0x0800
    assert frame_byte(ob, keep_w, 23) == 47
    if keep_w == 32:
        assert (ob[0] >> 144) & 0xFFFF == 0x0800, f"avst_data[159:144] = {(ob[0] >> 144) & 0xFFFF:#06x}"
        assert (ob[0] >> 64) & 0xFF == 47, f"avst_data[71:64] = {(ob[0] >> 64) & 0xFF}"
        assert (ob[0] >> 248) & 0xFF == frame[0], "byte 0 in avst_data[255:248]"

    # AXI4-Stream side: byte k in tdata[8k+7:8k] of its beat
    rx = await mid.recv()
    assert bytes(rx.tdata) == frame
    if keep_w == 32:
        # the first beat's tdata: byte 12 at [103:96], 13 at [111:104], 23 at [191:184]
        first = int.from_bytes(bytes(rx.tdata[:32]), "little")
        assert (first >> 96) & 0xFF == 0x08 and (first >> 104) & 0xFF == 0x00
        assert (first >> 184) & 0xFF == 47


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def round_trip_random(dut):
    """Random frames of 1..300 bytes with random error flags, random valid gaps and random
    ready backpressure: frames and errors survive avst -> axis -> avst; the middle AXI stream
    carries the same bytes with tuser = error on the last beat."""
    keep_w = await setup(dut)
    rng = random.Random(1000 + keep_w)
    mid = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "mid_axis"), dut.clk, dut.rst)
    sizes = list(range(1, 2 * keep_w + 2)) + [rng.randint(1, 300) for _ in range(150)] + [300]
    frames = [(bytes(rng.getrandbits(8) for _ in range(n)), int(rng.random() < 0.2)) for n in sizes]
    out, beat_log = [], []
    plan = [(0.0, 0.0), (0.4, 0.0), (0.0, 0.5), (0.3, 0.3), (0.1, 0.8)]
    chunk = (len(frames) + len(plan) - 1) // len(plan)
    for i, (p_gap, p_stall) in enumerate(plan):
        part = frames[i * chunk : (i + 1) * chunk]
        done = len(out) + len(part)
        sink = cocotb.start_soon(avst_sink(dut, out, keep_w, rng, p_stall, done, beat_log))
        await avst_source(dut, part, keep_w, rng, p_gap)
        await sink
    assert len(out) == len(frames)
    for n, (got, want) in enumerate(zip(out, frames)):
        assert got == want, f"frame {n}: len {len(got[0])}/{len(want[0])} err {got[1]}/{want[1]}"
    for n, (data, err) in enumerate(frames):
        rx = await mid.recv()
        assert bytes(rx.tdata) == data, f"mid frame {n}"
        tuser = rx.tuser if isinstance(rx.tuser, list) else [rx.tuser] * len(data)
        assert tuser[-1] == err, f"mid frame {n}: tuser on the last beat"
        assert all(u == 0 for u in tuser[: (len(data) - 1) // keep_w * keep_w]), f"mid frame {n}: tuser early"
    assert mid.empty()


@cocotb.test(timeout_time=2000, timeout_unit="us")
async def full_throughput(dut):
    """With valid always high and ready always high, s_avst_ready never falls and every
    cycle moves a beat through both adapters."""
    keep_w = await setup(dut)
    rng = random.Random(3)
    frames = [(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 300))), 0) for _ in range(40)]
    n_beats = sum((len(f) + keep_w - 1) // keep_w for f, _ in frames)
    out, beat_log = [], []
    dut.m_avst_ready.value = 1
    stalls = 0

    async def watch():
        nonlocal stalls
        while True:
            await RisingEdge(dut.clk)
            if int(dut.s_avst_valid.value) and not int(dut.s_avst_ready.value):
                stalls += 1

    w = cocotb.start_soon(watch())
    sink = cocotb.start_soon(avst_sink(dut, out, keep_w, rng, 0.0, len(frames), beat_log))
    await avst_source(dut, frames, keep_w, rng, 0.0)
    await sink
    w.cancel()
    assert out == frames
    assert stalls == 0, f"s_avst_ready fell {stalls} times"
    assert sum(len(b) for b in beat_log) == n_beats


@cocotb.test(timeout_time=200, timeout_unit="us")
async def latency_and_backpressure(dut):
    """One cycle per adapter: a beat taken on s_avst in cycle t is on mid_axis in t+1 and on
    m_avst in t+2. With m_avst_ready low, the two adapters hold two beats each and the
    registered s_avst_ready falls one cycle after the fourth beat is taken (so it takes
    exactly four), and the held beats leave in order once m_avst_ready rises."""
    keep_w = await setup(dut)
    d = dut
    d.m_avst_ready.value = 1
    d.s_avst_valid.value = 1
    d.s_avst_data.value = 0x5A << (8 * keep_w - 8)
    d.s_avst_sop.value = 1
    d.s_avst_eop.value = 1
    d.s_avst_empty.value = keep_w - 1
    d.s_avst_error.value = 0
    while True:
        await RisingEdge(d.clk)
        if int(d.s_avst_ready.value):
            break
    d.s_avst_valid.value = 0
    seen = []
    for cyc in range(1, 4):
        await RisingEdge(d.clk)
        seen.append((cyc, int(d.mid_axis_tvalid.value), int(d.m_avst_valid.value)))
        if int(d.m_avst_valid.value):
            out_byte0 = int(d.m_avst_data.value) >> (8 * keep_w - 8)
    # the edge that took the beat is cycle 0; the beat shows in the cycle after each edge
    assert seen[0][1] == 1 and seen[0][2] == 0, seen
    assert seen[1][1] == 0 and seen[1][2] == 1, seen
    assert seen[2][1] == 0 and seen[2][2] == 0, seen
    assert out_byte0 == 0x5A

    # backpressure: sink stalled, source always valid with numbered single-beat frames
    d.m_avst_ready.value = 0
    taken = 0
    n = 0
    for _ in range(12):
        d.s_avst_valid.value = 1
        d.s_avst_data.value = (n + 1) << (8 * keep_w - 8)
        await RisingEdge(d.clk)
        if int(d.s_avst_ready.value):
            taken += 1
            n += 1
    assert taken == 4, f"{taken} beats taken with the output stalled"
    d.s_avst_valid.value = 0
    d.m_avst_ready.value = 1
    got = []
    for _ in range(10):
        await RisingEdge(d.clk)
        if int(d.m_avst_valid.value):
            got.append(int(d.m_avst_data.value) >> (8 * keep_w - 8))
    assert got == [1, 2, 3, 4], got

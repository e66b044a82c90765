"""cocotb test of rtl/host/axis_timestamp.sv: frames of random lengths with random idle on
the input and random backpressure on the output; every output frame equals its input frame
byte for byte (and tuser), and carries on every beat the ts_ns of the cycle its first beat was
accepted; stamps never decrease along the stream."""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

DATA_W = int(os.environ.get("WS_DATA_W", "256"))
KW = DATA_W // 8


def beats(frame: bytes) -> list[tuple[int, int, int]]:
    out = []
    for i in range(0, len(frame), KW):
        chunk = frame[i:i + KW]
        keep = (1 << len(chunk)) - 1
        out.append((int.from_bytes(chunk.ljust(KW, b"\0"), "little"), keep,
                    int(i + KW >= len(frame))))
    return out


@cocotb.test(timeout_time=50, timeout_unit="ms")
async def stamps_under_backpressure(dut):
    rng = random.Random(DATA_W)
    Clock(dut.clk, 4, unit="ns").start()
    dut.rst.value = 1
    dut.s_axis_tvalid.value = 0
    dut.m_axis_tready.value = 0
    dut.ts_ns.value = 0
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    frames = [bytes(rng.getrandbits(8) for _ in range(rng.choice([1, 60, 64, 65, 200,
                                                                  rng.randint(1, 1600)])))
              for _ in range(300)]
    users = [rng.getrandbits(1) for _ in frames]
    ts_of: dict[int, int] = {}      # cycle -> ts_ns driven
    starts: list[int] = []          # the cycle each frame's first beat was accepted
    got: list[tuple[bytes, int, set[int]]] = []
    state = {"cycle": 0, "done": False}

    async def clock_and_ts():
        t = 1000
        while True:
            await RisingEdge(dut.clk)
            state["cycle"] += 1
            t += rng.choice([0, 3, 3, 4, 1000])     # ts_ns moves (sometimes not at all)
            dut.ts_ns.value = t
            ts_of[state["cycle"]] = t

    async def source():
        for f, u in zip(frames, users):
            bl = beats(f)
            for k, (d, keep, last) in enumerate(bl):
                while rng.random() < 0.3:
                    dut.s_axis_tvalid.value = 0
                    await RisingEdge(dut.clk)
                dut.s_axis_tdata.value = d
                dut.s_axis_tkeep.value = keep
                dut.s_axis_tlast.value = last
                dut.s_axis_tuser.value = u if last else 0
                dut.s_axis_tvalid.value = 1
                while True:
                    await RisingEdge(dut.clk)
                    if int(dut.s_axis_tready.value):
                        break
                if k == 0:
                    starts.append(state["cycle"])
            dut.s_axis_tvalid.value = 0
        dut.s_axis_tvalid.value = 0

    async def sink():
        buf = b""
        stamps: set[int] = set()
        while len(got) < len(frames):
            dut.m_axis_tready.value = int(rng.random() < 0.6)
            await RisingEdge(dut.clk)
            if int(dut.m_axis_tvalid.value) and int(dut.m_axis_tready.value):
                keep = int(dut.m_axis_tkeep.value)
                n = bin(keep).count("1")
                buf += int(dut.m_axis_tdata.value).to_bytes(KW, "little")[:n]
                stamps.add(int(dut.m_axis_tts.value))
                if int(dut.m_axis_tlast.value):
                    got.append((buf, int(dut.m_axis_tuser.value), stamps))
                    buf, stamps = b"", set()

    cocotb.start_soon(clock_and_ts())
    cocotb.start_soon(source())
    await sink()
    prev = -1
    for i, (f, u) in enumerate(zip(frames, users)):
        data, user, stamps = got[i]
        assert data == f, f"frame {i}: bytes differ"
        assert user == u, f"frame {i}: tuser"
        assert len(stamps) == 1, f"frame {i}: the stamp changed within the frame"
        st = stamps.pop()
        # ts_ns is driven after the edge of cycle c, so the handshake edge of the first beat
        # (counted as cycle starts[i]) saw the value driven in cycle starts[i] - 1
        assert st == ts_of[starts[i] - 1], f"frame {i}: stamp {st}, want {ts_of[starts[i] - 1]}"
        assert st >= prev, f"frame {i}: stamp went back"
        prev = st
    dut._log.info("axis_timestamp %d bits: %d frames", DATA_W, len(frames))

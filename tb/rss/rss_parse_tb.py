"""cocotb tests of rtl/host/rss_parse.sv against the golden model's parse_frame (docs/rss.md,
"Parsing" and "Inner headers"): every frame's tuple, and its inner flag, exactly LATENCY
cycles after the frame's last beat, with the inner option set at random per frame (it is
sampled with the last beat) and random idle cycles between and inside frames.

The bus width comes from the environment (WS_DATA_W, set by test_rss_parse.py).
"""

from __future__ import annotations

import os
import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from tb.common.bench import clock_and_reset
from tb.rss import tunnel_frames as tf
from wirespeed.model.rss import FlowTuple, parse_frame

DATA_W = int(os.environ.get("WS_DATA_W", "256"))
KW = DATA_W // 8
LATENCY = 9
MAX_LEN = 1200
M32 = (1 << 32) - 1


def expected(frame: bytes, en: bool, max_len: int = MAX_LEN) -> FlowTuple:
    return FlowTuple() if len(frame) > max_len else parse_frame(frame, en)


def norm(t: FlowTuple) -> tuple:
    """What must agree: L3 (nothing else when NONE), L4, addresses, ports of a port type,
    the inner flag."""
    if t.l3 == 0:
        return (0, t.inner)
    ports = (t.sport, t.dport) if t.l4 else ()
    return (t.l3, t.l4, t.src, t.dst, *ports, t.inner)


class Bench:
    def __init__(self, dut, rng: random.Random):
        self.dut = dut
        self.rng = rng
        self.cycle = 0
        self.sent: list[tuple[int, bytes, bool]] = []    # (last beat's cycle, frame, en)
        self.got: list[tuple[int, FlowTuple]] = []

    async def monitor(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            self.cycle += 1
            await ReadOnly()
            if int(d.t_valid.value):
                v4, v6 = int(d.t_ipv4.value), int(d.t_ipv6.value)
                tcp, udp = int(d.t_tcp.value), int(d.t_udp.value)
                assert not (v4 and v6) and not (tcp and udp)
                l3 = 4 if v4 else 6 if v6 else 0
                l4 = 6 if tcp else 17 if udp else 0
                src, dst = int(d.t_src.value), int(d.t_dst.value)
                if l3 == 4:
                    assert src >> 32 == 0 and dst >> 32 == 0, "IPv4 address bits above 31"
                self.got.append((self.cycle, FlowTuple(l3, l4, src, dst, int(d.t_sport.value),
                                                       int(d.t_dport.value),
                                                       bool(int(d.t_inner.value)))))

    async def send(self, frames: list[bytes], idle: float, inner: float):
        """Each frame's beats, idle cycles between and inside frames with probability
        ``idle``, the inner option on with probability ``inner`` (changed at random cycles:
        the value at the last beat counts)."""
        d, rng = self.dut, self.rng
        for f in frames:
            beats = [f[i:i + KW] for i in range(0, len(f), KW)] or [b""]
            for bi, b in enumerate(beats):
                while rng.random() < idle:
                    await RisingEdge(d.clk)
                    d.s_hs.value = 0
                    d.s_tdata.value = rng.getrandbits(DATA_W)   # ignored without s_hs
                    d.inner_en.value = int(rng.random() < inner)
                await RisingEdge(d.clk)
                en = int(rng.random() < inner)
                d.inner_en.value = en
                d.s_hs.value = 1
                pad = bytes(rng.getrandbits(8) for _ in range(KW - len(b)))  # past tkeep
                d.s_tdata.value = int.from_bytes(b + pad, "little")
                d.s_tkeep.value = (1 << len(b)) - 1 if b else 1
                last = bi == len(beats) - 1
                d.s_tlast.value = int(last)
                if last:
                    # The monitor counts this cycle after the edge: cycle + 1
                    self.sent.append((self.cycle + 1, f if b or len(beats) > 1 else b"\x00",
                                      bool(en)))
        await RisingEdge(d.clk)
        d.s_hs.value = 0
        for _ in range(LATENCY + 3):
            await RisingEdge(d.clk)

    def check(self):
        assert len(self.got) == len(self.sent), (len(self.got), len(self.sent))
        for (c, f, en), (oc, t) in zip(self.sent, self.got):
            want = expected(f, en)
            assert oc == c + LATENCY, f"tuple at cycle {oc}, frame's last beat at {c}"
            assert norm(t) == norm(want), (f"inner={en} frame {f.hex()}\n rtl   {t}\n model {want}")
        n_inner = sum(1 for _, t in self.got if t.inner)
        self.dut._log.info(f"{len(self.got)} frames, {n_inner} hashed by their inner tuple")
        self.sent.clear()
        self.got.clear()


async def setup(dut, seed: int) -> Bench:
    dut.max_len.value = MAX_LEN
    await clock_and_reset(dut, ("s_hs", "s_tlast", "s_tkeep", "s_tdata", "inner_en"))
    b = Bench(dut, random.Random(seed))
    cocotb.start_soon(b.monitor())
    return b


@cocotb.test()
async def tunnels_mixed(dut):
    """GRE (L3 and TEB, C/K/S), VXLAN, malformed tunnels, plain frames, the deepest header,
    giants; the option at random, with and without idle cycles."""
    b = await setup(dut, 1000 + DATA_W)
    rng = random.Random(DATA_W)
    for idle, inner in ((0.0, 0.5), (0.3, 0.7), (0.05, 1.0), (0.0, 0.0)):
        frames = tf.mixed(rng, 150)
        frames += [tf.good_tunnel(rng) + bytes(MAX_LEN) for _ in range(2)]    # giants
        rng.shuffle(frames)
        await b.send(frames, idle, inner)
        b.check()


@cocotb.test()
async def option_off_is_outer(dut):
    """The option off: every tunnel frame gives its outer tuple (today's results)."""
    b = await setup(dut, 7)
    rng = random.Random(77)
    frames = [tf.good_tunnel(rng) for _ in range(60)]
    await b.send(frames, 0.1, 0.0)
    for (_, f, _), (_, t) in zip(b.sent, b.got):
        assert not t.inner and norm(t) == norm(parse_frame(f))
    b.check()


@cocotb.test()
async def short_frames_back_to_back(dut):
    """Frames of one or two beats back to back (one tuple a cycle), tunnels among them."""
    b = await setup(dut, 9)
    rng = random.Random(99)
    frames = []
    for _ in range(120):
        f = tf.good_tunnel(rng) if rng.random() < 0.5 else tf.plain(rng)
        frames.append(f[:rng.choice([len(f), KW, 2 * KW, 60])])
    await b.send(frames, 0.0, 0.6)
    b.check()

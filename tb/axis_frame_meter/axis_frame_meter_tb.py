"""cocotb tests of rtl/stream/axis_frame_meter.sv, the TX frame/byte meter of the VXLAN blocks.

The meter only watches handshakes. The bench drives random frames that keep the stream contract
(full beats, then a last beat with 1..KEEP_W bytes; rarely a last beat with tkeep = 0, which
adds no byte), with random tvalid and tready, tuser on some last beats, and checks every cycle:
exactly one frame_valid pulse the cycle after each whole frame's last handshake, none for a
frame with tuser, and frame_len = the frame's byte count saturated to 65,535. Frames around
the 16-bit limit (65,535 / 65,536 bytes and beyond) check the saturation at every width.
"""

from __future__ import annotations

import random

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from tb.common.bench import clock_and_reset


async def setup(dut) -> int:
    await clock_and_reset(dut, ("tvalid", "tready", "tlast", "tuser", "tkeep"))
    return len(dut.tkeep)


def frame_beats(length: int, kw: int) -> list[tuple[int, bool]]:
    """(tkeep, tlast) of each beat of a frame of `length` bytes (length 0: one empty beat)."""
    full = (1 << kw) - 1
    if length == 0:
        return [(0, True)]
    n = -(-length // kw)
    last_bytes = length - (n - 1) * kw
    return [(full, False)] * (n - 1) + [((1 << last_bytes) - 1, True)]


async def drive(dut, kw: int, rng: random.Random, frames: list[tuple[int, bool]],
                p_valid: float, p_ready: float) -> tuple[list[str], int]:
    """Send (length, tuser) frames; check the outputs every cycle. Returns (errors, pulses)."""
    errors: list[str] = []
    expect: int | None = None      # the length due on frame_valid this cycle
    pulses = 0
    beats = [(k, last, user, length) for length, user in frames
             for k, last in frame_beats(length, kw)]
    i = 0
    while i < len(beats) or expect is not None:
        valid = i < len(beats) and rng.random() < p_valid
        ready = rng.random() < p_ready
        if i < len(beats):
            keep, last, user, _ = beats[i]
            dut.tkeep.value = keep
            dut.tlast.value = int(last)
            dut.tuser.value = int(user and last)
        else:
            # idle: garbage on the other signals must not count
            dut.tkeep.value = rng.getrandbits(kw)
            dut.tlast.value = rng.getrandbits(1)
            dut.tuser.value = 0
        dut.tvalid.value = int(valid)
        dut.tready.value = int(ready)
        await ReadOnly()
        got_valid = int(dut.frame_valid.value)
        if expect is not None:
            if not got_valid:
                errors.append(f"beat {i}: no frame_valid for a {expect}-byte frame")
            elif int(dut.frame_len.value) != min(expect, 0xFFFF):
                errors.append(f"beat {i}: frame_len {int(dut.frame_len.value)}, want "
                              f"{min(expect, 0xFFFF)} (frame of {expect} bytes)")
            pulses += 1
        elif got_valid:
            errors.append(f"beat {i}: frame_valid without a whole frame ending")
        expect = None
        await RisingEdge(dut.clk)
        if valid and ready:
            _, last, user, length = beats[i]
            if last and not user:
                expect = length
            i += 1
        if len(errors) > 10:
            break
    dut.tvalid.value = 0
    return errors, pulses


@cocotb.test(timeout_time=20, timeout_unit="ms")
async def random_frames_idle_and_backpressure(dut):
    """Random lengths 0..4 KiB, tuser on some, random idle and backpressure."""
    kw = await setup(dut)
    rng = random.Random(5 + kw)
    for p_valid, p_ready in ((1.0, 1.0), (0.7, 0.6), (0.4, 0.9)):
        frames = [(rng.choice([0, 1, kw - 1, kw, kw + 1, rng.randint(1, 4096)]) if rng.random() < 0.5
                   else rng.randint(1, 1600), rng.random() < 0.15) for _ in range(120)]
        errors, pulses = await drive(dut, kw, rng, frames, p_valid, p_ready)
        assert not errors, "\n".join(errors[:10])
        assert pulses == sum(1 for _, user in frames if not user)


@cocotb.test(timeout_time=50, timeout_unit="ms")
async def saturates_at_16_bits(dut):
    """Frames around 65,535 bytes: exact below, 65,535 at and beyond 65,536; the next frame is
    exact again (the saturation does not stick across frames)."""
    kw = await setup(dut)
    rng = random.Random(1)
    frames = [(n, False) for n in (65535 - kw, 65535, 65536, 65536 + kw, 65536 + 2 * kw + 1, 100)]
    errors, pulses = await drive(dut, kw, rng, frames, 1.0, 1.0)
    assert not errors, "\n".join(errors[:10])
    assert pulses == len(frames)


@cocotb.test(timeout_time=100, timeout_unit="us")
async def reset_mid_frame_starts_a_new_count(dut):
    """Reset in the middle of a frame: the next frame is measured from zero."""
    kw = await setup(dut)
    full = (1 << kw) - 1
    dut.tvalid.value = 1
    dut.tready.value = 1
    dut.tlast.value = 0
    dut.tkeep.value = full
    for _ in range(3):
        await RisingEdge(dut.clk)
    dut.tvalid.value = 0
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    errors, pulses = await drive(dut, kw, random.Random(2), [(kw + 3, False)], 1.0, 1.0)
    assert not errors, "\n".join(errors[:10])
    assert pulses == 1

"""The host-interface golden models: wirespeed/model/ts.py (the timestamp clock) and
wirespeed/model/dma.py (records, rings, the fit rule, the host's parse)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from wirespeed.model import dma, ts


def test_incr_for_mhz() -> None:
    assert ts.incr_for_mhz(322.265625) == 0x3_1A60_31A6
    assert ts.incr_for_mhz(250) == 4 << 32
    assert ts.incr_for_mhz(156.25) == int(6.4 * 2**32 + 0.5)
    # the error of one period is below 2^-33 ns
    inc = ts.incr_for_mhz(Fraction(322265625, 10**6))
    assert abs(Fraction(inc, 2**32) - Fraction(1000) / Fraction(322265625, 10**6)) <= Fraction(1, 2**33)
    with pytest.raises(ValueError):
        ts.incr_for_mhz(1)      # 1000 ns does not fit 8 integer bits


def test_clock_steps_and_wraps() -> None:
    c = ts.TsClock(value=(ts.MASK64 << 32) | 0xFFFF_FFFF, incr=1)
    c.step()
    assert c.value == 0                                  # 2^96 wraps
    c = ts.TsClock(value=100 << 32, incr=ts.incr_for_mhz(322.265625))
    n = 322_265                                          # about 1 ms of cycles
    for _ in range(n):
        c.step()
    exact = Fraction(n * 1000) / Fraction(322265625, 10**6)
    assert ts.to_ns(c.value) - 100 == int(exact)         # the rounding error stays below 1 ns
    c.step(adj=-50)
    assert ts.to_ns(c.value) < 100 + 1_000_000


def test_replay_applies_writes_at_their_cycles() -> None:
    st = ts.Staging()
    w = [(10, ts.A_INCR_FRAC, 0x8000_0000, 0xF), (13, ts.A_INCR_NS, 2, 0xF),
         (16, ts.A_CMD, ts.CMD_INCR, 0xF),
         (20, ts.A_SET_LO, 1000, 0xF), (23, ts.A_CMD, ts.CMD_SET, 0xF),
         (26, ts.A_ADJ_LO, (-7) & 0xFFFF_FFFF, 0xF), (29, ts.A_ADJ_HI, 0xFFFF_FFFF, 0xF),
         (32, ts.A_CMD, ts.CMD_ADJUST, 0xF)]
    ev = ts.events(w, st)
    out = ts.replay(0, 0, 4 << 32, ev, 60)
    k = 16 + ts.K_INC
    assert out[k] == 4 * k << 32 and out[k + 1] - out[k] == int(2.5 * 2**32)
    s = 23 + ts.K_SET
    assert out[s] == 1000 << 32 and out[s + 1] == (1000 << 32) + int(2.5 * 2**32)
    a = 32 + ts.K_ADJ
    assert out[a + 1] - out[a] == int(2.5 * 2**32) - (7 << 32)


def test_header_round_trip() -> None:
    d = dma.Desc(queue=5, ts=0x1122334455667788, hash=0xDEADBEEF, htype=6, port=2, flags=3, err=1)
    h = dma.header(1518, d)
    assert len(h) == dma.HDR_BYTES == 16
    assert h[:4] == bytes([0xEE, 0x05, 5, 6 | 1 << 3 | 2 << 4 | 3 << 6])
    p = dma.Header.parse(h)
    assert p.matches(bytes(1518), d) and not p.matches(bytes(1517), d)


@pytest.mark.parametrize("align", [8, 16, 32, 64])
def test_record_lengths(align: int) -> None:
    for n in (1, 48, 49, 60, 64, 65, 1518, 9600):
        r = dma.record(bytes(n), dma.Desc(0), align)
        assert len(r) == dma.record_len(n, align) and len(r) % align == 0
        assert len(r) - dma.HDR_BYTES - n < align


def test_ring_fills_drops_and_wraps() -> None:
    rng = random.Random(3)
    ring = dma.Ring(4096, 64)
    sent = []
    for i in range(200):
        f = bytes(rng.getrandbits(8) for _ in range(rng.randint(60, 700)))
        d = dma.Desc(0, ts=i)
        before = ring.prod
        ok = ring.offer(f, d)
        room = ring.cons + 4096 - before
        assert ok == (dma.record_len(len(f), 64) <= room)
        if ok:
            sent.append((f, d))
        if rng.random() < 0.3:             # the host consumes everything
            recs = dma.parse_ring(ring.mem, ring.cons, ring.prod, 64)
            assert [(data, h.ts) for h, data in recs] == [(f, d.ts) for f, d in sent]
            sent.clear()
            ring.cons = ring.prod
    assert ring.prod > 3 * 4096 and ring.drop_full > 0
    assert ring.frames + ring.drop_full == 200


def test_disabled_ring_and_put_get_wrap() -> None:
    ring = dma.Ring(4096, 8, enabled=False)
    assert not ring.offer(b"x" * 60, dma.Desc(1)) and ring.drop_off == 1 and ring.prod == 0
    mem = bytearray(16)
    dma.put(mem, 12, bytes(range(8)))
    assert dma.get(mem, 12, 8) == bytes(range(8)) and mem[:4] == bytes([4, 5, 6, 7])

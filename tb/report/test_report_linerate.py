"""Line-rate arithmetic (scripts/report/linerate.py)."""

import pytest

import linerate


def test_wire_bytes_adds_fcs_preamble_and_gap():
    assert linerate.wire_bytes(60) == 84          # the 64-byte minimum frame
    assert linerate.wire_bytes(1514) == 1538


def test_10g_minimum_frames_is_14_88_mpps():
    assert linerate.line_rate_mpps(10, 60) == pytest.approx(14.880952, rel=1e-6)
    assert round(linerate.line_rate_mpps(10, 60), 2) == 14.88


def test_10g_seed_92_byte_frames_is_11_16_mpps():
    # The seed's Table 2 frame: 92 bytes with FCS = 88 on the bus.
    assert round(linerate.line_rate_mpps(10, 88), 2) == 11.16


def test_100g_and_400g_minimum_frames():
    assert linerate.line_rate_mpps(100, 60) == pytest.approx(148.809524, rel=1e-6)
    assert linerate.line_rate_mpps(400, 60) == pytest.approx(595.238095, rel=1e-6)


def test_beats_is_ceiling_of_bytes_per_beat():
    assert linerate.beats(64, 512) == 1
    assert linerate.beats(65, 512) == 2
    assert linerate.beats(88, 256) == 3
    assert linerate.beats(60, 64) == 8


def test_fraction_and_clock_needed_are_inverse():
    # 256 bit, 65-byte frames: 3 beats; at the clock needed the fraction is exactly 1.
    f = linerate.clock_needed_mhz(100, 65, 3)
    assert f == pytest.approx(3 * 100e9 / (8 * 89) / 1e6)
    assert linerate.fraction(f, 3, 100, 65) == pytest.approx(1.0)
    assert linerate.device_mpps(250, 3) == pytest.approx(83.3333, rel=1e-4)


def test_65_byte_problem_sets_worst_case_at_256_and_512_bits():
    mhz, n = linerate.worst_case_clock(100, 512)
    assert n == 65 and mhz == pytest.approx(280.899, rel=1e-4)
    mhz, n = linerate.worst_case_clock(100, 256)
    assert n == 65 and mhz == pytest.approx(421.348, rel=1e-4)
    # Narrow buses are limited by long frames instead (the beat overhead vanishes).
    mhz, n = linerate.worst_case_clock(100, 64)
    assert n > 9000 and mhz < 100e9 / 8 / 8 / 1e6

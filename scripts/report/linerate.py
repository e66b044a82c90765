"""Ethernet line-rate arithmetic used by the bench and the report.

Frame lengths here are *bus* lengths: the bytes on the AXI4-Stream bus, destination MAC to the
end of the payload, without the 4-byte FCS (the MAC adds and strips it). On the wire each frame
also costs its FCS, an 8-byte preamble + start delimiter and a 12-byte minimum inter-frame gap:

    wire bytes = len + 4 (FCS) + 20 (preamble/SFD 8 + IFG 12)

so a minimum "64-byte" Ethernet frame is len = 60 and takes 84 bytes of wire time.
"""

from __future__ import annotations

import math

FCS = 4
PREAMBLE_IFG = 20
RATES_GBPS = (10, 25, 40, 100, 200, 400)


def wire_bytes(bus_len: int) -> int:
    return bus_len + FCS + PREAMBLE_IFG


def line_rate_pps(gbps: float, bus_len: int) -> float:
    """Frames per second that fill a ``gbps`` link with frames of ``bus_len`` bus bytes."""
    return gbps * 1e9 / (8 * wire_bytes(bus_len))


def line_rate_mpps(gbps: float, bus_len: int) -> float:
    return line_rate_pps(gbps, bus_len) / 1e6


def beats(bus_len: int, width: int) -> int:
    """Bus beats of a frame at ``width`` bits: ceil(len / bytes per beat)."""
    return math.ceil(bus_len / (width // 8))


def device_mpps(clock_mhz: float, cycles_per_frame: float) -> float:
    """Frames per microsecond a block moves at ``clock_mhz`` taking ``cycles_per_frame``."""
    return clock_mhz / cycles_per_frame


def fraction(clock_mhz: float, cycles_per_frame: float, gbps: float, bus_len: int) -> float:
    """Device frame rate / line frame rate (>= 1: keeps up with the link), not capped."""
    return device_mpps(clock_mhz, cycles_per_frame) / line_rate_mpps(gbps, bus_len)


def clock_needed_mhz(gbps: float, bus_len: int, cycles_per_frame: float) -> float:
    """Clock at which ``cycles_per_frame`` per frame just keeps up with the link."""
    return line_rate_mpps(gbps, bus_len) * cycles_per_frame


def worst_case_clock(gbps: float, width: int, lengths=range(60, 9601)) -> tuple[float, int]:
    """(MHz, frame length) of the most demanding length for the ideal one-beat-per-cycle
    pipeline: max over lengths of line rate x ceil(len / bytes per beat)."""
    best = (0.0, 0)
    for n in lengths:
        f = clock_needed_mhz(gbps, n, beats(n, width))
        if f > best[0]:
            best = (f, n)
    return best

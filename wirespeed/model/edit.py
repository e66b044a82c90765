"""Golden model of `axis_edit` (rtl/stream/axis_edit.sv), the pipelined edit engine, written
from the contract in the RTL's header comment.

Pure Python on bytes/ints, like the other models. A frame of n input bytes and its descriptor
give L = min(out_len, n - D) output bytes:

    output byte i = head[i]          when i < HEAD_BYTES and bit i of head_en is set
                  = frame[i + D]     otherwise (0 when i + D < 0: room inserted in front)

or nothing (drop, or L < 1). The frame is bad when its last input beat had tuser = 1 (rx_err),
when n < min_len (short), or when sum_en is set and the one's-complement sum of the input
bytes [sum_start, min(sum_end, n)) is not 0xFFFF (sum_bad; an odd last byte is padded with a
zero byte, an empty region sums to 0). An emitted bad frame is aborted: its last output beat
carries tuser = 1. sum_bad is reported for dropped frames too.

`edit(frame, desc, rx_err=False)` returns an `EditResult` with the output bytes (None when
nothing leaves), the aborted flag and every field of the RTL's status event.
"""

from __future__ import annotations

from dataclasses import dataclass

from .common import frame_bytes, ones_sum

__all__ = ["EDIT_LATENCY", "EditDesc", "EditResult", "edit", "out_length"]

# The engine's first-beat latency in cycles per bus width (tb/axis_edit asserts it).
EDIT_LATENCY = {64: 10, 128: 11, 256: 11, 512: 12}


@dataclass(frozen=True)
class EditDesc:
    """One descriptor, as the RTL's `s_desc_*` ports carry it (head byte j = head[j]; bit j of
    head_en enables it)."""

    drop: bool = False
    shift: int = 0           # D: output byte i is input byte i + D
    head: bytes = b""
    head_en: int = 0
    out_len: int = 0xFFFF
    min_len: int = 0
    sum_en: bool = False
    sum_start: int = 0
    sum_end: int = 0
    meta: int = 0


@dataclass(frozen=True)
class EditResult:
    output: bytes | None     # None: nothing leaves (dropped, or L < 1)
    aborted: bool            # tuser of the last output beat (False when nothing leaves)
    emitted: bool
    rx_err: bool
    short: bool
    sum_bad: bool
    in_len: int
    out_len: int             # bytes emitted, 0 when not emitted
    meta: int


def out_length(n: int, desc: EditDesc) -> int:
    """L = min(out_len, n - D): the output length before the drop and L < 1 rules."""
    return min(desc.out_len, n - desc.shift)


def edit(frame, desc: EditDesc, rx_err: bool = False) -> EditResult:
    """What `axis_edit` sends for `frame` under `desc`; `rx_err`: s_axis_tuser on the frame's
    last beat."""
    f = frame_bytes(frame)
    n = len(f)
    if n < 1:
        raise ValueError("an AXI4-Stream frame has at least one byte")
    if desc.sum_start % 2:
        raise ValueError(f"sum_start {desc.sum_start} must be even")
    short = n < desc.min_len
    region = f[desc.sum_start : min(desc.sum_end, n)] if desc.sum_start < n else b""
    sum_bad = bool(desc.sum_en) and ones_sum(region) != 0xFFFF
    bad = bool(rx_err) or short or sum_bad
    length = out_length(n, desc)
    emitted = not desc.drop and length >= 1
    out = None
    if emitted:
        buf = bytearray(length)
        for i in range(length):
            if i < len(desc.head) and (desc.head_en >> i) & 1:
                buf[i] = desc.head[i]
            elif i + desc.shift >= 0:
                buf[i] = f[i + desc.shift]
        out = bytes(buf)
    return EditResult(
        output=out,
        aborted=emitted and bad,
        emitted=emitted,
        rx_err=bool(rx_err),
        short=short,
        sum_bad=sum_bad,
        in_len=n,
        out_len=length if emitted else 0,
        meta=desc.meta,
    )

"""pytest entry: axis_splice (rtl/stream/axis_splice.sv) on its own, against the golden model
wirespeed/model/splice.py (axis_splice_tb.py), at every datapath width with LATE_EOF = 0, at
two widths with LATE_EOF = 1, with the plan registered (OUT_PIPE = 1: one cycle more, the
buffer one beat larger) at 64 bits (LATE_EOF = 0), and with the plan and the descriptor
registered (OUT_PIPE = DESC_PIPE = 1: one cycle more, and one more where output beat 0 waited
for nothing but its descriptor; two beats more) at 256 bits (LATE_EOF = 1, the tops'
SPLICE_PIPE = 2), and with the live input beat also off the decision (END_PIPE = 1: two cycles
more on every frame; three beats more) at 64 bits (LATE_EOF = 0) and 512 bits (LATE_EOF = 1, as
the pipelined tops build it: their SPLICE_PIPE = 3).

Parameters are the largest the tops use, so every path is exercised: INS_MAX = 64 (vxlan_encap:
50 or 62 bytes of outer headers), PATCHES = 6 (gre_decap), META_W = 25 (vxlan_decap's
{decapsulated, VNI}), LEN_W = 17, FRAMES = BUF_BEATS (every top). BUF_BEATS is the largest a
top builds at that width: vxlan_encap's with its table's LOOKUP_LATENCY = 4,
1 << clog2(128/KEEP_W + 4 + 8), with LATE_EOF = 0, and vxlan_decap's with every classifier cut
and LOOKUP_LATENCY = 4 (CLASSIFY_PIPE = 31: 1 << clog2(128/KEEP_W + 4 + 4 + 5 + 8)) with
LATE_EOF = 1.

`make test` runs 40 % of random_frames' frames (WS_SPLICE_FRAMES), `make test-full` all.

WS_SPLICE_TESTCASE (default "random_frames,cycles,empty_seg2") runs a subset of the module's
cocotb tests, e.g. only "cycles".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from tb.common.sweep import full_sweep
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent


def clog2(x: int) -> int:
    return (x - 1).bit_length()


def buf_beats(data_w: int, late_eof: int, pipe: int = 0) -> int:
    kw = data_w // 8
    need = 128 // kw + (4 + 4 + 5 + 8 if late_eof else 4 + 8) + pipe
    return 1 << clog2(need)


def run(data_w: int, late_eof: int, testcase: str | None = None, pipe: int = 0) -> None:
    """pipe: the registers added, as the tops' SPLICE_PIPE counts them: 1 the plan (OUT_PIPE),
    2 the plan and the descriptor (OUT_PIPE, DESC_PIPE), 3 also the live beat (END_PIPE)."""
    out_pipe, desc_pipe, end_pipe = int(pipe >= 1), int(pipe >= 2), int(pipe >= 3)
    bb = buf_beats(data_w, late_eof, pipe)
    run_cocotb(
        toplevel="axis_splice",
        test_module="axis_splice_tb",
        test_dir=HERE,
        parameters={
            "DATA_W": data_w,
            "BUF_BEATS": bb,
            "FRAMES": bb,
            "INS_MAX": 64,
            "PATCHES": 6,
            "LEN_W": 17,
            "META_W": 25,
            "LATE_EOF": late_eof,
            "OUT_PIPE": out_pipe,
            "DESC_PIPE": desc_pipe,
            "END_PIPE": end_pipe,
        },
        # axis_splice needs one package (stream_pkg: keep_bytes)
        sources=[RTL / "stream" / "stream_pkg.sv", RTL / "stream" / "axis_splice.sv"],
        # the bench's driver needs what the ports do not tell
        extra_env={
            "WS_SPLICE_BUF_BEATS": str(bb),
            "WS_SPLICE_LATE_EOF": str(late_eof),
            "WS_SPLICE_OUT_PIPE": str(out_pipe),
            "WS_SPLICE_DESC_PIPE": str(desc_pipe),
            "WS_SPLICE_END_PIPE": str(end_pipe),
            # random_frames' frame count: all of it with `make test-full`, 40 % in `make test`
            # (its coverage list still asserts every case is exercised)
            "WS_SPLICE_FRAMES": "1" if full_sweep() else "0.4",
        },
        testcase=testcase,
    )


@pytest.mark.parametrize(
    "data_w,late_eof,pipe",
    [(64, 0, 0), (128, 0, 0), (256, 0, 0), (512, 0, 0), (64, 1, 0), (512, 1, 0),
     (64, 0, 1), (256, 1, 2), (64, 0, 3), (512, 1, 3)],
    ids=["64-eof0", "128-eof0", "256-eof0", "512-eof0", "64-eof1", "512-eof1",
         "64-eof0-pipe1", "256-eof1-pipe2", "64-eof0-pipe3", "512-eof1-pipe3"],
)
def test_axis_splice(data_w: int, late_eof: int, pipe: int) -> None:
    run(data_w, late_eof, testcase=os.environ.get("WS_SPLICE_TESTCASE", "random_frames,cycles,empty_seg2"),
        pipe=pipe)

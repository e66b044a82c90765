"""pytest entry: axis_edit (rtl/stream/axis_edit.sv) on its own, against the golden model
wirespeed/model/edit.py (axis_edit_tb.py), at every datapath width, with the cycle test (full-rate
input never stalled for D >= 0, exact first- and last-beat latency).

The head size and the length width vary with the width so that a head of one beat, of several,
and of a part of a beat (72 bytes at 128 bits) and LEN_W = 17 are all built; so does the delay
FIFO's depth (FIFO_BEATS: one, two and four LUT RAM banks; 32 and 64 as gre_decap builds it).
WS_EDIT_FRAMES (default 160) sets random_frames' frame count, WS_EDIT_SEED its seed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tb.common.runner import run_cocotb
from wirespeed.paths import RTL

HERE = Path(__file__).resolve().parent

# DATA_W -> (HEAD_BYTES, LEN_W, FIFO_BEATS, cocotb tests)
CONFIGS = {
    64: (64, 16, 64, "random_frames,cycles"),
    128: (72, 17, 16, "random_frames,cycles"),
    256: (64, 16, 32, "random_frames,cycles"),
    512: (128, 16, 32, "random_frames,cycles"),
}


@pytest.mark.parametrize("data_w", sorted(CONFIGS))
def test_axis_edit(data_w: int) -> None:
    head_bytes, len_w, fifo_beats, tests = CONFIGS[data_w]
    run_cocotb(
        toplevel="axis_edit",
        test_module="axis_edit_tb",
        test_dir=HERE,
        parameters={"DATA_W": data_w, "HEAD_BYTES": head_bytes, "LEN_W": len_w,
                    "FIFO_BEATS": fifo_beats},
        sources=[RTL / "stream" / "stream_pkg.sv", RTL / "stream" / "axis_edit.sv"],
        testcase=tests,
    )

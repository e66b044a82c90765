"""pytest entry: the AXI4-Stream protocol monitor (rtl/sim/axis_monitor.sv) on axis_skid.

One Verilator build of axis_skid (64-bit) with the monitors bound by rtl/sim/monitors.sv and a
small frame bound (+define+WS_AXIS_MAX_FRAME_BYTES=256, 32 beats) and the tkeep rule switched
on for axis_skid (+define+WS_AXIS_SKID_STRICT_KEEP=1; by default the slice is bound
tkeep-agnostic, see rtl/sim/monitors.sv). `clean_stream` must pass.
Each violation test of axis_monitor_tb.py runs in its own simulator process, which must fail
with "%Error", the monitor's name (axis_skid.s_axis) and the rule's tag in its output.
"""

from __future__ import annotations

import fcntl
import os
import re
from pathlib import Path

import pytest

from tb.common.runner import with_monitors
from wirespeed.paths import BUILD, ROOT, RTL, use_verilator_env

HERE = Path(__file__).resolve().parent
MAX_FRAME_BYTES = 256
BUILD_DIR = BUILD / "cocotb" / f"axis_monitor_skid_w64_max{MAX_FRAME_BYTES}_strict"

VIOLATIONS = {
    "valid_withdrawn": "AXIS-VALID",
    "data_changed": "AXIS-STABLE",
    "last_changed": "AXIS-STABLE",
    "user_changed": "AXIS-STABLE",
    "keep_changed": "AXIS-STABLE",
    "keep_hole_not_last": "AXIS-KEEP",
    "keep_hole_last": "AXIS-KEEP",
    "keep_not_from_bit0": "AXIS-KEEP",
    "keep_zero_last": "AXIS-KEEP",
    "no_tlast": "AXIS-TLAST",
}


def _runner():
    from cocotb_tools.runner import get_runner

    use_verilator_env()
    runner = get_runner("verilator")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with open(BUILD_DIR.parent / f".{BUILD_DIR.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        runner.build(
            sources=[str(s) for s in with_monitors([RTL / "stream" / "reg_slice.sv",
                                                    RTL / "stream" / "axis_skid.sv"])],
            hdl_toplevel="axis_skid",
            build_dir=str(BUILD_DIR),
            parameters={"DATA_W": 64},
            # axis_skid is bound tkeep-agnostic by default; strict here, to test AXIS-KEEP.
            defines={"WS_AXIS_MAX_FRAME_BYTES": MAX_FRAME_BYTES, "WS_AXIS_SKID_STRICT_KEEP": 1},
            build_args=["-Wno-fatal", "-Werror-USERERROR", "-Werror-USERFATAL", "--assert", "-O2",
                        "-j", "2"],
            always=False,
        )
    return runner


def _run(testcase: str, tmp_path: Path) -> tuple[int, str]:
    """Run one cocotb test in its own simulator process: (exit status, its output)."""
    from cocotb_tools.runner import get_results

    runner = _runner()
    log = tmp_path / f"{testcase}.log"
    xml = tmp_path / f"{testcase}.xml"
    status = 0
    try:
        runner.test(
            hdl_toplevel="axis_skid",
            test_module="axis_monitor_tb",
            build_dir=str(BUILD_DIR),
            test_dir=str(HERE),
            testcase=testcase,
            results_xml=str(xml),
            log_file=str(log),
            extra_env={"PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)]),
                       "WS_TEST_MAX_FRAME_BYTES": str(MAX_FRAME_BYTES)},
        )
    except SystemExit as e:  # the runner exits with the simulator's status under pytest
        status = int(e.code) if isinstance(e.code, int) else 1
    except RuntimeError:  # "Command failed with return code: N" (the simulator's exit)
        status = 1
    out = log.read_text(errors="replace") if log.exists() else ""
    if status == 0:
        _, failed = get_results(xml)
        status = 1 if failed else 0
    return status, out


def test_clean_stream_raises_nothing(tmp_path: Path) -> None:
    status, out = _run("clean_stream", tmp_path)
    assert status == 0, out[-4000:]
    assert "AXIS-" not in out
    assert re.search(r"clean_stream\s+PASS", out), out[-4000:]


@pytest.mark.parametrize("testcase", sorted(VIOLATIONS))
def test_violation_is_flagged(testcase: str, tmp_path: Path) -> None:
    rule = VIOLATIONS[testcase]
    status, out = _run(testcase, tmp_path)
    assert status != 0, f"{testcase}: the simulation did not fail\n{out[-4000:]}"
    # The monitor's own message: name, instance, cycle, rule; nothing else ended the run.
    m = re.search(r"%Error: .*axis_skid\.s_axis \((\S+)\): cycle (\d+): (AXIS-[A-Z]+):", out)
    assert m, f"{testcase}: no axis_monitor message\n{out[-4000:]}"
    assert m.group(1).endswith("mon_s_axis"), m.group(1)
    assert m.group(3) == rule, f"{testcase}: expected {rule}, got {m.group(3)}"
    assert "was not flagged" not in out

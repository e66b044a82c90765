"""Build the Verilator harness (``sim/build.sh W`` → ``build/sim/wW/ws_sim``), with caching.

The cache key is a SHA-256 over the contents of every file under ``rtl/`` and ``sim/`` plus
the Verilator version, stored next to the binary. A rebuild happens only when that key
changes (content, not mtimes, so a fresh clone or ``git checkout`` does not rebuild
needlessly and an edit is never missed). Concurrent callers (pytest-xdist workers) serialise
on a lock file, so a width is compiled once.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import time
from pathlib import Path

from wirespeed import paths
from wirespeed.progress import note

WIDTHS = (64, 128, 256, 512)


class BuildError(RuntimeError):
    """The harness could not be built; the message points at the log."""


def harness_path(width: int) -> Path:
    return paths.BUILD / "sim" / f"w{width}" / "ws_sim"


# Files whose content can change the harness (outputs written under sim/ never count).
_SOURCE_SUFFIXES = {".sv", ".svh", ".v", ".vh", ".vlt", ".cpp", ".cc", ".hpp", ".h", ".sh",
                    ".mk"}


def _inputs() -> list[Path]:
    files: list[Path] = []
    for top in (paths.RTL, paths.SIM):
        if top.is_dir():
            files += [p for p in top.rglob("*") if p.is_file() and
                      (p.suffix in _SOURCE_SUFFIXES or p.name == "Makefile")]
    return sorted(files)


def source_hash() -> str:
    """Hash of every harness input (RTL, sim sources, Verilator version)."""
    h = hashlib.sha256()
    try:
        from importlib.metadata import version

        h.update(f"verilator {version('verilator')}\n".encode())
    except Exception:  # noqa: BLE001 - the version only refines the key
        pass
    for f in _inputs():
        h.update(str(f.relative_to(paths.ROOT)).encode() + b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def ensure_harness(width: int, verbose: bool = True) -> Path:
    """Return the harness binary for ``width``, building it first when it is out of date."""
    if width not in WIDTHS:
        raise BuildError(f"data width {width} is not one of {WIDTHS}")
    script = paths.SIM / "build.sh"
    if not script.is_file():
        raise BuildError(f"{script} is missing: the Verilator harness sources are not in this tree")
    binary = harness_path(width)
    outdir = binary.parent
    outdir.mkdir(parents=True, exist_ok=True)
    stamp = outdir / ".sources.sha256"
    lock_path = outdir.parent / f".lock-w{width}"
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        key = source_hash()
        if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
            return binary
        log = outdir.parent / f"build-w{width}.log"
        note(f"building the Verilator harness for {width}-bit data "
             f"(once per source change; about a minute) ... log: {log}", verbose)
        t0 = time.monotonic()
        env = paths.verilator_env()
        if outdir.resolve() != (paths.ROOT / "build" / "sim" / f"w{width}").resolve():
            env["WS_SIM_MDIR"] = str(outdir)  # build.sh's output-directory override
        with open(log, "w") as out:
            rc = subprocess.run(["bash", str(script), str(width)], cwd=paths.ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT).returncode
        if rc != 0 or not binary.is_file():
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
            raise BuildError(
                f"building the {width}-bit harness failed (sim/build.sh exit {rc}); "
                f"last lines of {log}:\n{tail}"
            )
        stamp.write_text(key + "\n")
        note(f"built {binary} in {time.monotonic() - t0:.0f} s", verbose)
        os.utime(binary)
        return binary

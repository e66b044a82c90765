"""Build the Verilator harnesses, with caching: ``sim/build.sh W`` → ``build/sim/wW/ws_sim``
(gre_decap), ``sim/build.sh W geneve`` → ``build/sim/geneve_wW/ws_geneve`` (geneve_decap, the
same harness source) and ``sim/build.sh W vtep`` → ``build/sim/vtep_wW/ws_vtep`` (vtep_top; a tunnel
table other than the default 32768 slots builds into ``build/sim/vtep_wW_tSLOTS/`` with
``WS_SIM_VFLAGS=-GTUNNEL_SLOTS=SLOTS``).

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
BLOCKS = ("gre", "vtep", "geneve")
DEFAULT_TUNNEL_SLOTS = 32768


# The RTL top of each harness block.
HARNESS_TOP = {"gre": "gre_decap", "vtep": "vtep_top", "geneve": "geneve_decap"}


def build_stage(log_text: str) -> str:
    """What a running ``sim/build.sh`` is doing, from its log so far: "verilating" or
    "compiling C++ (N files started)"."""
    compiled = sum(1 for line in log_text.splitlines()
                   if line.startswith(("ccache g++", "g++", "ccache c++", "c++")) and " -c " in line)
    if "sim/build.sh: compiling" in log_text or compiled:
        return f"compiling C++ ({compiled} files started)"
    return "verilating"


PROGRESS_EVERY = 15.0  # seconds between the stage lines of a running build


def _wait_showing_progress(proc: "subprocess.Popen[bytes]", log: Path, t0: float,
                           verbose: bool, every: float | None = None) -> int:
    """Wait for a build, printing its stage and elapsed time every ``every`` seconds."""
    every = PROGRESS_EVERY if every is None else every
    last = time.monotonic()
    while True:
        try:
            return proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            pass
        now = time.monotonic()
        if verbose and now - last >= every:
            last = now
            try:
                stage = build_stage(log.read_text(errors="replace"))
            except OSError:
                stage = "running"
            note(f"  ... {now - t0:.0f} s: {stage}", verbose)


class BuildError(RuntimeError):
    """The harness could not be built; the message points at the log."""


def harness_path(width: int, block: str = "gre", tunnel_slots: int = DEFAULT_TUNNEL_SLOTS
                 ) -> Path:
    """Where the harness binary of ``block`` at ``width`` (and tunnel-table size) lives. Every
    top has one build (issue 27: pipelined by construction)."""
    if block == "gre":
        return paths.BUILD / "sim" / f"w{width}" / "ws_sim"
    if block == "geneve":
        return paths.BUILD / "sim" / f"geneve_w{width}" / "ws_geneve"
    if block != "vtep":
        raise BuildError(f"unknown block {block!r} (known: {', '.join(BLOCKS)})")
    sub = f"vtep_w{width}" + ("" if tunnel_slots == DEFAULT_TUNNEL_SLOTS else f"_t{tunnel_slots}")
    return paths.BUILD / "sim" / sub / "ws_vtep"


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


def ensure_harness(width: int, verbose: bool = True, block: str = "gre",
                   tunnel_slots: int = DEFAULT_TUNNEL_SLOTS) -> Path:
    """Return the harness binary for ``width`` (``block`` "gre": ws_sim; "vtep": ws_vtep with a
    ``tunnel_slots``-slot tunnel table), building it first when it is out of date."""
    if width not in WIDTHS:
        raise BuildError(f"data width {width} is not one of {WIDTHS}")
    if block not in BLOCKS:
        raise BuildError(f"unknown block {block!r} (known: {', '.join(BLOCKS)})")
    script = paths.SIM / "build.sh"
    if not script.is_file():
        raise BuildError(f"{script} is missing: the Verilator harness sources are not in this tree")
    binary = harness_path(width, block, tunnel_slots)
    outdir = binary.parent
    outdir.mkdir(parents=True, exist_ok=True)
    stamp = outdir / ".sources.sha256"
    tag = outdir.name
    lock_path = outdir.parent / f".lock-{tag}"
    with open(lock_path, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note(f"waiting for another process building {outdir} ...", verbose)
            fcntl.flock(lock, fcntl.LOCK_EX)
        key = source_hash()
        if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
            return binary
        log = outdir.parent / f"build-{tag}.log"
        what = (f"{HARNESS_TOP[block]}, {width}-bit data" if block != "vtep" else
                f"vtep_top, {width}-bit data, {tunnel_slots} tunnel slots")
        note(f"building the Verilator harness for {what} "
             f"(once per source change and build; 20 s to 2 min) ... log: {log}", verbose)
        t0 = time.monotonic()
        env = paths.verilator_env()
        default_dir = paths.ROOT / "build" / "sim" / (f"w{width}" if block == "gre"
                                                      else f"{block}_w{width}")
        if outdir.resolve() != default_dir.resolve():
            env["WS_SIM_MDIR"] = str(outdir)  # build.sh's output-directory override
        cmd = ["bash", str(script), str(width)] + ([block] if block != "gre" else [])
        # Top-level parameters other than DATA_W, as Verilator -G flags (build.sh's VFLAGS).
        top_params = {}
        if block == "vtep" and tunnel_slots != DEFAULT_TUNNEL_SLOTS:
            top_params["TUNNEL_SLOTS"] = tunnel_slots
        if top_params:
            env["WS_SIM_VFLAGS"] = " ".join([env.get("WS_SIM_VFLAGS", "")] + [
                f"-G{k}={v}" for k, v in top_params.items()]).strip()
        with open(log, "w") as out:
            proc = subprocess.Popen(cmd, cwd=paths.ROOT, env=env, stdout=out,
                                    stderr=subprocess.STDOUT)
            rc = _wait_showing_progress(proc, log, t0, verbose)
        if rc != 0 or not binary.is_file():
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
            raise BuildError(
                f"building the {what} harness failed (sim/build.sh exit {rc}); "
                f"last lines of {log}:\n{tail}"
            )
        stamp.write_text(key + "\n")
        note(f"built {binary} in {time.monotonic() - t0:.0f} s", verbose)
        os.utime(binary)
        return binary

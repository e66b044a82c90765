"""``wirespeed tap``: a block's Verilator model live between Linux TAP devices (docs/tap.md).

The harnesses are C++ (``sim/tap_vtep.cpp`` → ``ws_tap_vtep``, ``sim/tap_gre.cpp`` →
``ws_tap_gre``; no Python per frame). This module builds them (``sim/build.sh W tap-vtep``,
cached on the same source hash as the other harnesses), turns a config file into the register
writes they apply after reset, and execs them.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from wirespeed import paths
from wirespeed.build import DEFAULT_TUNNEL_SLOTS, BuildError, _wait_showing_progress, ensure_harness, source_hash
from wirespeed.config import Config
from wirespeed.progress import note

BLOCKS = {"vtep": ("tap-vtep", "ws_tap_vtep"), "gre": ("tap-gre", "ws_tap_gre")}
# Default TAP names (at most 15 characters, the kernel's limit).
DEFAULT_TAPS = {"vtep": ("wsnet", "wshost"), "gre": ("wsgin", "wsgout")}


class TapError(RuntimeError):
    """Something the user must fix before the harness can run (root, /dev/net/tun, a build)."""


def harness_path(block: str, width: int) -> Path:
    target, binary = BLOCKS[block]
    return paths.BUILD / "sim" / f"{target.replace('-', '_')}_w{width}" / binary


TOPS = {"vtep": "vtep_top", "gre": "gre_decap"}
SOURCES = {"vtep": "tap_vtep.cpp", "gre": "tap_gre.cpp"}


def _link_on_model(block: str, width: int, binary: Path, verbose: bool) -> bool:
    """Compile the TAP harness alone and link it with the verilated model that ws_vtep / ws_sim
    already built (wirespeed.build's cached build of the same RTL): seconds instead of the
    minutes of a model of its own. False when that build lacks a piece (then sim/build.sh)."""
    base = ensure_harness(width, verbose=verbose, block=block)
    mdir = base.parent
    pieces = [mdir / "verilated.o", mdir / "verilated_threads.o", mdir / f"V{TOPS[block]}__ALL.a"]
    if not all(p.is_file() for p in pieces) or not (mdir / f"V{TOPS[block]}.h").is_file():
        return False
    vroot = paths.verilator_root()
    # The flags of Verilator's own makefile for a harness file (see the build logs).
    defines = ["-DVERILATOR=1"] + [f"-DVM_{k}=0" for k in ("COVERAGE", "SC", "TIMING", "TRACE", "TRACE_FST",
                                                         "TRACE_VCD", "TRACE_SAIF")]
    cmd = ["g++", "-O2", "-std=gnu++20", "-w", f"-I{mdir}", f"-I{vroot / 'include'}",
           f"-I{vroot / 'include' / 'vltstd'}", f"-I{paths.SIM}", *defines, str(paths.SIM / SOURCES[block]),
           *map(str, pieces), "-pthread", "-lpthread", "-latomic", "-o", str(binary)]
    note(f"linking {binary.name} with the model of {base} ...", verbose)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"compiling sim/{SOURCES[block]} failed:\n{r.stderr[-3000:]}")
    return True


def ensure_tap_harness(block: str, width: int, verbose: bool = True) -> Path:
    """The ``ws_tap_*`` binary of ``block`` at ``width``, built first when its sources changed
    (the key of wirespeed.build: every file under rtl/ and sim/, and the Verilator version):
    linked with ws_vtep's / ws_sim's model when that is built, else by ``sim/build.sh``."""
    if block not in BLOCKS:
        raise TapError(f"unknown block {block!r} (known: {', '.join(BLOCKS)})")
    binary = harness_path(block, width)
    out = binary.parent
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / ".sources.sha256"
    with open(out.parent / f".lock-{out.name}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        key = source_hash()
        if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
            return binary
        if _link_on_model(block, width, binary, verbose):
            stamp.write_text(key + "\n")
            return binary
        log = out.parent / f"build-{out.name}.log"
        note(f"building {binary.name} ({block}, {width}-bit; once per source change, about 2 min) "
             f"... log: {log}", verbose)
        t0 = time.monotonic()
        env = paths.verilator_env()
        with open(log, "w") as f:
            proc = subprocess.Popen(["bash", str(paths.SIM / "build.sh"), str(width), BLOCKS[block][0]],
                                    cwd=paths.ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
            rc = _wait_showing_progress(proc, log, t0, verbose)
        if rc != 0 or not binary.is_file():
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
            raise BuildError(f"building {binary.name} failed (sim/build.sh exit {rc}); last lines of {log}:\n{tail}")
        stamp.write_text(key + "\n")
        note(f"built {binary} in {time.monotonic() - t0:.0f} s", verbose)
        return binary


def preflight() -> None:
    """The checks the harness makes too, before spending minutes on a build."""
    if sys.platform != "linux":
        raise TapError("TAP devices are Linux only")
    if os.geteuid() != 0:
        raise TapError("creating TAP devices needs root (CAP_NET_ADMIN): run as root, e.g. "
                       "`sudo .venv/bin/wirespeed tap ...`")
    if not Path("/dev/net/tun").exists():
        raise TapError("/dev/net/tun is missing: load the tun module (`modprobe tun`) or, in a "
                       "container, pass the device in (e.g. docker --device /dev/net/tun)")


def regs_file(cfg: Config, block: str) -> Path:
    """The config's register writes for ``block`` as a ``--regs`` file under build/tap/."""
    text = cfg.vtep_register_file_text() if block == "vtep" else cfg.register_file_text()
    d = paths.BUILD / "tap"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"regs-{block}-{hashlib.sha1(text.encode()).hexdigest()[:12]}.txt"
    if not path.is_file():
        path.write_text(text)
    return path


def harness_argv(binary: Path, block: str, taps: Sequence[str], netns: Sequence[str | None],
                 regs: Path | None, extra: Sequence[str]) -> list[str]:
    """The harness's command line: ports' TAPs (and namespaces), registers, the rest as given."""
    names = ("net", "host") if block == "vtep" else ("in", "out")
    argv = [str(binary)]
    for port, tap, ns in zip(names, taps, netns):
        argv += [f"--{port}-tap", tap]
        if ns:
            argv += [f"--{port}-netns", ns]
    if regs is not None:
        argv += ["--regs", str(regs)]
    return argv + list(extra)


def exec_harness(argv: list[str]) -> None:
    """Replace this process with the harness (signals then reach it directly)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(argv[0], argv)

"""Harnesses of earlier RTL, for ``wirespeed bench --baseline REV``: ``rtl/`` of a git revision
built by this tree's ``sim/build.sh`` and harness (``WS_SIM_SOURCES``, so without profile
feedback, as every build was compiled before it), into ``build/sim/base-<commit>-wW/``. Old and
new RTL are then measured by one harness, on one input, in one run.
"""

from __future__ import annotations

import hashlib
import subprocess
import tarfile
import time
from pathlib import Path

from wirespeed import build, paths
from wirespeed.progress import note


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=paths.ROOT, capture_output=True, text=True,
                             check=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        err = getattr(exc, "stderr", "") or str(exc)
        raise build.BuildError(f"git {' '.join(args)}: {err.strip()}") from exc
    return out.stdout.strip()


def describe(rev: str) -> dict[str, str]:
    """The commit ``rev`` names: full hash and subject line."""
    commit = _git("rev-parse", "--verify", f"{rev}^{{commit}}")
    return {"rev": rev, "commit": commit, "subject": _git("log", "-1", "--format=%s", commit)}


def _rtl_tree(commit: str) -> Path:
    """``rtl/`` of ``commit``, extracted once under build/bench/."""
    dest = paths.BUILD / "bench" / f"rtl-{commit[:12]}"
    done = dest / ".complete"
    if not done.is_file():
        dest.mkdir(parents=True, exist_ok=True)
        archive = dest / "rtl.tar"
        with open(archive, "wb") as out:
            try:
                subprocess.run(["git", "archive", "--format=tar", commit, "rtl"], cwd=paths.ROOT,
                               stdout=out, check=True)
            except (OSError, subprocess.CalledProcessError) as exc:
                raise build.BuildError(f"git archive {commit} rtl failed: {exc}") from exc
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
        archive.unlink()
        done.write_text(commit + "\n")
    return dest


def _sources(tree: Path) -> list[Path]:
    """The revision's RTL in build.sh's order (packages first), its rtl/sim monitors left out:
    build.sh binds this tree's."""
    files = sorted((p for p in (tree / "rtl").rglob("*.sv")
                    if "sim" not in p.relative_to(tree / "rtl").parts[:1]),
                   key=lambda p: p.relative_to(tree).as_posix())
    return [p for p in files if p.name.endswith("_pkg.sv")] + \
           [p for p in files if not p.name.endswith("_pkg.sv")]


def _harness_key(commit: str) -> str:
    h = hashlib.sha256(commit.encode())
    for f in build._inputs():  # noqa: SLF001 - the harness sources (sim/), as for the cache
        if paths.SIM in f.parents:
            h.update(str(f.relative_to(paths.ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def harness(rev: str, width: int, verbose: bool = True) -> Path:
    """The ws_sim binary of ``rev``'s RTL at ``width``, built when missing or out of date."""
    commit = describe(rev)["commit"]
    outdir = paths.BUILD / "sim" / f"base-{commit[:12]}-w{width}"
    binary = outdir / "ws_sim"
    stamp = outdir / ".sources.sha256"
    key = _harness_key(commit)
    if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        return binary
    srcs = _sources(_rtl_tree(commit))
    if not srcs:
        raise build.BuildError(f"{rev} ({commit[:12]}) has no rtl/*.sv")
    outdir.mkdir(parents=True, exist_ok=True)
    log = outdir.parent / f"build-{outdir.name}.log"
    what = commit[:12] if commit.startswith(rev) else f"{rev} ({commit[:12]})"
    note(f"building the harness for gre_decap of {what}, {width}-bit data ... log: {log}",
         verbose)
    env = paths.verilator_env()
    env["WS_SIM_SOURCES"] = " ".join(str(p) for p in srcs)
    env["WS_SIM_MDIR"] = str(outdir)
    t0 = time.monotonic()
    with open(log, "w") as out:
        proc = subprocess.Popen(["bash", str(paths.SIM / "build.sh"), str(width)],
                                cwd=paths.ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        rc = build._wait_showing_progress(proc, log, t0, verbose)  # noqa: SLF001
    if rc != 0 or not binary.is_file():
        tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
        raise build.BuildError(f"building the harness of {rev} failed (sim/build.sh exit {rc}); "
                               f"last lines of {log}:\n{tail}")
    stamp.write_text(key + "\n")
    return binary

"""Helpers for the end-to-end tests: they drive the real `wirespeed` CLI and Verilator harness."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from wirespeed import config as wconfig
from wirespeed import pcap
from wirespeed.check import expected
from wirespeed.paths import ROOT


def run_cli(args: Sequence[str | Path], timeout: float = 900) -> subprocess.CompletedProcess:
    """`wirespeed ARGS` in a subprocess (exactly what a user runs); never raises on exit code."""
    return subprocess.run([sys.executable, "-m", "wirespeed.cli", *map(str, args)], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def run_ok(args: Sequence[str | Path], timeout: float = 900) -> subprocess.CompletedProcess:
    proc = run_cli(args, timeout)
    assert proc.returncode == 0, (
        f"wirespeed {' '.join(map(str, args))} exited {proc.returncode}\n"
        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def write_pcap(path: Path, frames: Sequence[bytes]) -> Path:
    pcap.write(path, [bytes(f) for f in frames])
    return path


def tshark_fields(tshark: str, capture: Path, *fields: str) -> list[list[str]]:
    """One row per frame, one column per field (multi-occurrence values stay comma-joined)."""
    cmd = [tshark, "-n", "-r", str(capture), "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    assert proc.returncode == 0, f"tshark failed on {capture}: {proc.stderr}"
    return [line.split("\t") for line in proc.stdout.splitlines()]


def run_vs_model(frames: Sequence[bytes], tmp_path: Path, width: int, *,
                 config_text: str | None = None, extra: Sequence[str] = (),
                 name: str = "case", in_path: Path | None = None) -> dict:
    """Run `frames` through `wirespeed run --in/--out` and assert that the output pcap equals
    the golden model's output frame by frame, in order; return the JSON report.

    `in_path`: an existing pcap holding `frames` to pass as is (else one is written)."""
    inp = in_path or write_pcap(tmp_path / f"{name}_in.pcap", frames)
    out = tmp_path / f"{name}_w{width}_out.pcap"
    rep_path = tmp_path / f"{name}_w{width}_report.json"
    args: list[str | Path] = ["run", "--in", inp, "--out", out, "--report", rep_path,
                              "--width", str(width), "--quiet", *extra]
    cfg = wconfig.Config()
    if config_text is not None:
        cfg_path = tmp_path / f"{name}.yaml"
        cfg_path.write_text(config_text)
        cfg = wconfig.load(cfg_path)
        args += ["--config", cfg_path]
    run_ok(args)
    rep = json.loads(rep_path.read_text())
    rep["_out_path"] = str(out)
    got = pcap.read_ethernet(out)
    exp = expected([bytes(f) for f in frames], cfg.gre_config())
    assert len(got) == len(exp.outputs), (
        f"{width} bit: {len(got)} output frames, the model expects {len(exp.outputs)}")
    for i, (g, e) in enumerate(zip(got, exp.outputs)):
        assert g == e, f"{width} bit: output frame {i} differs from the model"
    counted = {k: v["packets"] for k, v in rep["outcomes"].items() if v["packets"]}
    assert counted == dict(exp.outcomes), f"{width} bit: outcome counts differ from the model"
    assert rep["packets_in"] == len(frames)
    assert rep["packets_in"] == rep["packets_out"] + sum(rep["drops"].values())
    return rep

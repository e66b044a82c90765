"""Helpers of tb/capture: run `wirespeed capture` as a user does, read every output file with
tshark, and check the run against the RSS and DMA models."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

import pytest

from wirespeed import capture_check, pcap
from wirespeed.capture_config import CaptureConfig, parse
from wirespeed.paths import ROOT


def tshark_exe() -> str:
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run `make venv` (scripts/setup.sh installs it)")
    return exe


def capture(in_pcap: Path | Sequence[Path], out_dir: Path, *args: str, config: str | None = None,
            expect_rc: int = 0) -> dict[str, Any]:
    """`wirespeed capture --in IN [IN2] --out DIR ARGS` in a subprocess; the report (if it
    ran). A list of inputs: one per port."""
    ins = [str(p) for p in in_pcap] if isinstance(in_pcap, (list, tuple)) else [str(in_pcap)]
    cmd = [sys.executable, "-m", "wirespeed.cli", "capture", "--in", *ins,
           "--out", str(out_dir), "--quiet", *args]
    if config is not None:
        cfg_path = out_dir.parent / f"{out_dir.name}.yaml"
        cfg_path.write_text(config)
        cmd += ["--config", str(cfg_path)]
    proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=900)
    assert proc.returncode == expect_rc, (
        f"{' '.join(cmd)} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
        f"stderr:\n{proc.stderr}")
    rep = out_dir / "report.json"
    return json.loads(rep.read_text()) if rep.is_file() else {"stderr": proc.stderr}


def tshark_read_all(out_dir: Path, report: dict[str, Any]) -> None:
    """tshark reads every queue's file, with as many frames as the report says, their
    timestamps in nanoseconds and non-decreasing."""
    exe = tshark_exe()
    for qs, q in report["queue"].items():
        if "file" not in q:
            continue
        path = out_dir / q["file"]
        proc = subprocess.run([exe, "-n", "-r", str(path), "-T", "fields", "-e",
                               "frame.time_epoch", "-e", "frame.len"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=120)
        assert proc.returncode == 0, f"tshark -r {path}: {proc.stderr}"
        rows = [line.split("\t") for line in proc.stdout.splitlines()]
        assert len(rows) == q["frames"], f"queue {qs}: tshark sees {len(rows)} frames"
        times = [int(r[0].replace(".", "")) for r in rows]   # seconds.nanoseconds
        assert times == sorted(times), f"queue {qs}: timestamps go backwards"
        if rows:
            assert times[0] == q["first_ts_ns"] and times[-1] == q["last_ts_ns"]


def check_model(in_pcap: Path, out_dir: Path, report: dict[str, Any],
                cfg: CaptureConfig) -> None:
    errors = capture_check.check(in_pcap, out_dir, report, cfg.model())
    assert not errors, "\n".join(errors)


def check_balance(report: dict[str, Any]) -> None:
    assert report["balanced"] == 1
    assert report["captured"] + report["dropped"] == report["packets_in"]
    assert report["counters"]["frames_in"] == report["packets_in"]
    for qs, q in report["queue"].items():
        assert q["frames"] + q["drop_full"] + q["drop_buf"] + q["drop_off"] == q["frames_in"], qs


def hash_types_by_queue(frames: Sequence[bytes], cfg: CaptureConfig) -> dict[int, dict[str, int]]:
    """What the report's per-queue hash_types should say."""
    names = {int(t): t.name for t in capture_check.rss.HashType}
    out: dict[int, dict[str, int]] = {}
    model = cfg.model()
    for f in frames:
        r = model.result(f)
        d = out.setdefault(r.queue, {})
        d[names[int(r.htype)]] = d.get(names[int(r.htype)], 0) + 1
    return out


def write(path: Path, frames: Sequence[bytes]) -> Path:
    pcap.write(path, [bytes(f) for f in frames])
    return path


def config(text: str | None) -> CaptureConfig:
    import yaml

    return parse(yaml.safe_load(text) if text else None, "test")

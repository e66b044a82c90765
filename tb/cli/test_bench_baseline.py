"""`wirespeed bench --baseline REV`: earlier RTL measured in the same run (no simulation here:
the harness runs and builds are stood in for)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from wirespeed import baseline, cli, paths


def _fake_width(seen: list[Path | None]):
    def fake(cfg, frames, lengths, in_path, workdir, quiet, binary=None):
        seen.append(binary)
        old = binary is not None
        return {"frames": 4, "wall_seconds": 1.0, "sim_packets_per_second": 1.0 if old else 4.0,
                "cpu_seconds": 1.0, "sim_packets_per_cpu_second": 2.0 if old else 4.0,
                "cycles": 10, "elapsed_cycles": 9, "mpps_at_clock": 1.0,
                "offered_gbps_at_clock": 1.0, "latency_cycles": {}}
    return fake


def test_baseline_measured_after_each_width(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    seen: list[Path | None] = []
    monkeypatch.setattr(cli, "_bench_width", _fake_width(seen))
    built: list[tuple[str, int]] = []

    def fake_harness(rev: str, width: int, verbose: bool = True) -> Path:
        built.append((rev, width))
        return tmp_path / f"old_w{width}"

    monkeypatch.setattr(baseline, "harness", fake_harness)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()
    assert cli.main(["bench", "--frames", "4", "--widths", "64", "128", "-q",
                     "--baseline", "HEAD"]) == 0
    assert seen == [None, tmp_path / "old_w64", None, tmp_path / "old_w128"]
    assert built == [(head, 64), (head, 128)]
    doc = json.loads((tmp_path / "build" / "bench" / "sim_speed.json").read_text())
    (b,) = doc["baselines"]
    assert b["rev"] == "HEAD" and b["commit"] == head and b["subject"]
    assert b["widths"]["64"]["sim_packets_per_second"] == 1.0
    assert doc["widths"]["64"]["sim_packets_per_second"] == 4.0
    assert "4.00x" in capsys.readouterr().out


def test_baseline_bad_revision_and_vtep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    assert cli.main(["bench", "--frames", "4", "--widths", "64", "-q",
                     "--baseline", "no-such-revision-xyz"]) == cli.EXIT_INPUT
    assert cli.main(["bench", "--block", "vtep", "-q", "--baseline", "HEAD"]) == cli.EXIT_INPUT


def test_sources_in_build_order(tmp_path: Path) -> None:
    for f in ("rtl/stream/b.sv", "rtl/parse/z_pkg.sv", "rtl/parse/a.sv", "rtl/sim/mon.sv",
              "rtl/control/c_pkg.sv"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("")
    names = [p.relative_to(tmp_path).as_posix() for p in baseline._sources(tmp_path)]
    assert names == ["rtl/control/c_pkg.sv", "rtl/parse/z_pkg.sv", "rtl/parse/a.sv",
                     "rtl/stream/b.sv"]


def test_report_shows_the_baseline() -> None:
    sys.path.insert(0, str(paths.ROOT / "scripts" / "report"))
    import make_report

    doc = {"widths": {"256": {"sim_packets_per_second": 400.0, "sim_packets_per_cpu_second": 500.0,
                              "wall_seconds": 1.0, "frames": 400}},
           "baselines": [{"rev": "old", "commit": "0123456789abcdef", "subject": "the old RTL",
                          "widths": {"256": {"sim_packets_per_second": 100.0,
                                             "sim_packets_per_cpu_second": 125.0}}}]}
    text = "\n".join(make_report.section_sim_speed(None, doc))
    assert "`0123456`" in text and "4.00×" in text and "the old RTL" in text


def test_repeat_interleaves_and_keeps_the_least_cpu(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    seen: list[Path | None] = []
    cpus = iter([3.0, 5.0, 1.0, 4.0, 2.0, 6.0])  # current, old, current, old, current, old

    def fake(cfg, frames, lengths, in_path, workdir, quiet, binary=None):
        seen.append(binary)
        cpu = next(cpus)
        return {"frames": 4, "wall_seconds": cpu * 2, "sim_packets_per_second": 4.0 / cpu,
                "cpu_seconds": cpu, "sim_packets_per_cpu_second": 4.0 / cpu, "cycles": 10,
                "elapsed_cycles": 9, "mpps_at_clock": 1.0, "offered_gbps_at_clock": 1.0,
                "latency_cycles": {}}

    monkeypatch.setattr(cli, "_bench_width", fake)
    monkeypatch.setattr(baseline, "harness", lambda rev, width, verbose=True: tmp_path / "old")
    assert cli.main(["bench", "--frames", "4", "--widths", "64", "-q", "--repeat", "3",
                     "--baseline", "HEAD"]) == 0
    assert seen == [None, tmp_path / "old"] * 3
    doc = json.loads((tmp_path / "build" / "bench" / "sim_speed.json").read_text())
    assert doc["repeat"] == 3 and "load_average_1min_after" in doc["host"]
    cur, old = doc["widths"]["64"], doc["baselines"][0]["widths"]["64"]
    assert cur["cpu_seconds"] == 1.0 and cur["wall_seconds"] == 2.0
    assert cur["cpu_seconds_runs"] == [3.0, 1.0, 2.0]
    assert old["cpu_seconds"] == 4.0 and old["wall_seconds_runs"] == [10.0, 8.0, 12.0]
    assert cli.main(["bench", "--frames", "4", "--widths", "64", "-q", "--repeat", "0"]) == \
        cli.EXIT_INPUT

"""The measured CPU cost of consuming the capture rings on this machine (issue 29; docs/host.md,
"CPU cost of consuming the rings"): ``sim/capture_cpu.cpp`` (``ws_capture_cpu``, plain C++, no
RTL) fills a ring with packed records as dma_ring_writer writes them and one core consumes it as
the harness's host driver does, in two modes: ``parse`` (headers only, records handed on in
place) and ``copy`` (each frame copied with a pcap record header into an output buffer: a
capture to a file without the file's I/O). From ns per frame and the frame rate of 2 x 100GbE at
each length follows the number of cores a full capture needs.

``python -m wirespeed.capture_cpu [--output F]`` runs it at the capture-seed scenario's lengths.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

from wirespeed import paths

SOURCE = paths.SIM / "capture_cpu.cpp"
WIRE_EXTRA = 20          # preamble + SFD + IFG besides the frame and its FCS
FCS = 4
# The capture-seed scenario's lengths on the wire (FCS included) and the simple IMIX
LENGTHS = (64, 65, 128, 256, 512, 1024, 1518)
IMIX = ((64, 7), (594, 4), (1518, 1))


class CpuBenchError(RuntimeError):
    pass


def binary_path() -> Path:
    return paths.BUILD / "capture_cpu" / "ws_capture_cpu"


def ensure_binary() -> Path:
    """ws_capture_cpu, compiled (g++ -O2) when its source changed."""
    binary = binary_path()
    binary.parent.mkdir(parents=True, exist_ok=True)
    key = hashlib.sha256(SOURCE.read_bytes()).hexdigest()
    stamp = binary.parent / ".source.sha256"
    if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        return binary
    cxx = os.environ.get("CXX", "g++")
    tmp = binary.with_suffix(".tmp")
    proc = subprocess.run([cxx, "-O2", "-std=c++17", "-o", str(tmp), str(SOURCE)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CpuBenchError(f"compiling {SOURCE} failed:\n{proc.stderr[-2000:]}")
    tmp.replace(binary)
    stamp.write_text(key + "\n")
    return binary


def line_rate_mpps(wire_len: float, gbps: float = 100.0) -> float:
    """Frames per microsecond (Mpps) of one port at ``gbps`` for frames of ``wire_len`` bytes."""
    return gbps * 1e3 / ((wire_len + WIRE_EXTRA) * 8)


def measure(wire_lengths: Sequence[int] = LENGTHS, ring_bytes: int = 64 << 20, repeat: int = 5,
            min_ms: float = 100.0, batch: int = 32, ports: int = 2,
            gbps: float = 100.0) -> dict[str, Any]:
    """ns per frame on one core, per wire length (and the IMIX, weighted by frames), and the
    cores ``ports`` x ``gbps`` need at line rate."""
    lens = sorted(set(wire_lengths) | {w for w, _ in IMIX})
    proc = subprocess.run([str(ensure_binary()), "--lengths",
                           ",".join(str(w - FCS) for w in lens), "--ring-bytes", str(ring_bytes),
                           "--repeat", str(repeat), "--min-ms", str(min_ms),
                           "--batch", str(batch)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise CpuBenchError(f"ws_capture_cpu failed: {proc.stderr.strip()}")
    raw = json.loads(proc.stdout)
    by_bus = {r["frame_bytes"]: r for r in raw["lengths"]}
    rows: list[dict[str, Any]] = []

    def row(name: int | str, mix: Sequence[tuple[int, int]]) -> dict[str, Any]:
        n = sum(k for _, k in mix)
        wire = sum(w * k for w, k in mix) / n
        out: dict[str, Any] = {"length": name, "mean_wire_bytes": wire,
                               "mpps_line_rate": ports * line_rate_mpps(wire, gbps)}
        for mode in ("parse", "copy"):
            ns = sum(by_bus[w - FCS][f"{mode}_ns_per_frame"] * k for w, k in mix) / n
            out[f"{mode}_ns_per_frame"] = ns
            # cores: frames per ns at line rate x ns per frame
            out[f"{mode}_cores"] = out["mpps_line_rate"] * ns / 1e3
        return out

    for w in wire_lengths:
        rows.append(row(w, [(w, 1)]))
    rows.append(row("imix", IMIX))
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = None
    return {"ports": ports, "gbps_per_port": gbps, "ring_bytes": raw["ring_bytes"],
            "batch": raw["batch"], "repeat": raw["repeat"], "min_ms": raw["min_ms"],
            "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                     "load_average_1min": load},
            "rows": rows}


def table(res: dict[str, Any]) -> str:
    lines = [f"host CPU, measured here (one core consuming a ring; fastest of {res['repeat']} "
             f"passes; load average {res['host']['load_average_1min']}): ns per frame, and "
             f"cores for {res['ports']} x {res['gbps_per_port']:g} Gbit/s at line rate",
             f"  {'length':>6} {'Mpps':>7} {'parse ns':>9} {'cores':>6} {'copy ns':>9} {'cores':>6}"]
    for r in res["rows"]:
        lines.append(f"  {str(r['length']):>6} {r['mpps_line_rate']:7.2f} "
                     f"{r['parse_ns_per_frame']:9.1f} {r['parse_cores']:6.1f} "
                     f"{r['copy_ns_per_frame']:9.1f} {r['copy_cores']:6.1f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.capture_cpu", description=__doc__)
    ap.add_argument("--output", type=Path, help="write the figures as JSON")
    ap.add_argument("--ring-bytes", type=int, default=64 << 20)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--min-ms", type=float, default=100.0)
    a = ap.parse_args(argv)
    try:
        res = measure(ring_bytes=a.ring_bytes, repeat=a.repeat, min_ms=a.min_ms)
    except CpuBenchError as exc:
        print(f"wirespeed: error: {exc}", file=sys.stderr)
        return 1
    print(table(res))
    if a.output:
        a.output.parent.mkdir(parents=True, exist_ok=True)
        a.output.write_text(json.dumps(res, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""DMA efficiency of the capture path per frame length (docs/host.md, "Efficiency measured"):
``python -m wirespeed.capture_bench [--widths 256 512] [--frames N] [--output docs/bench/capture_dma.json]``.

For each bus width and frame length (64, 65 .. 1518 bytes on the wire, FCS included; 4 less on
the bus), N frames of random UDP flows go through ``wirespeed capture`` at 100 Gbit/s over 16
queues; from each report: frame bytes per AXI beat (measured, and the record arithmetic's
ideal: the frame's share of its packed record), TLPs per frame, the PCIe link's utilisation and
payload rate, and the fraction of the frames captured (the rest dropped and counted).
"""

from __future__ import annotations

import argparse
import json
import random
import struct
import sys
import tempfile
from pathlib import Path
from typing import Any

from wirespeed import pcap
from wirespeed.capture import CaptureError, run_capture
from wirespeed.capture_config import CaptureConfig
from wirespeed.model import dma

LENGTHS = (64, 65, 128, 256, 512, 1024, 1518)


def frames(n: int, wire_len: int, seed: int) -> list[bytes]:
    """UDP/IPv4 frames of ``wire_len`` bytes with the FCS (``wire_len - 4`` on the bus)."""
    r = random.Random(seed)
    size = wire_len - 4
    out = []
    for _ in range(n):
        src = bytes([10, r.randrange(256), r.randrange(256), r.randrange(1, 255)])
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, size - 14, 0, 0, 64, 17, 0, src,
                         bytes([10, 200, 0, 1]))
        udp = struct.pack("!HHHH", r.randrange(1, 65536), 4789, size - 34, 0)
        out.append(b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp
                   + bytes(size - 42))
    return out


def measure(width: int, wire_len: int, n: int, workdir: Path, verbose: bool) -> dict[str, Any]:
    inp = workdir / f"in_{wire_len}.pcap"
    pcap.write(inp, frames(n, wire_len, seed=wire_len))
    cfg = CaptureConfig(data_width=width, queues=16)
    run = run_capture(inp, workdir / f"w{width}_{wire_len}", cfg, verbose=verbose)
    r = run.report
    kw = width // 8
    bus = wire_len - 4
    # records are packed at 8 bytes: ideally every W beat carries KW bytes of records
    rec = dma.record_len(bus)
    return {
        "frame_bytes": wire_len,
        "bus_bytes": bus,
        "record_bytes": rec,
        "ideal_bytes_per_beat": bus * kw / rec,
        "bytes_per_beat": r["dma"]["frame_bytes_per_beat"],
        "tlps_per_frame": r["pcie"]["tlps"] / max(1, r["captured"]),
        "pcie_utilisation": r["pcie"]["utilisation"],
        "pcie_payload_gbps": r["pcie"]["payload_gbps"],
        "offered_gbps": r["offered_gbps"],
        "captured_fraction": r["captured"] / r["packets_in"],
        "drop_buf": sum(q["drop_buf"] for q in r["queue"].values()),
        "drop_full": sum(q["drop_full"] for q in r["queue"].values()),
    }


def table(results: dict[str, Any]) -> str:
    """Markdown: one row per length, per width bytes/beat (ideal) and captured at 100G."""
    widths = sorted(results["widths"], key=int)
    head = "| frame bytes | " + " | ".join(f"{w} bits: bytes/beat, TLPs, PCIe busy, captured"
                                          for w in widths) + " |"
    lines = [head, "|---|" + "---|" * len(widths)]
    for i, length in enumerate(results["lengths"]):
        cells = []
        for w in widths:
            m = results["widths"][w][i]
            cells.append(f"{m['bytes_per_beat']:.1f} ({m['ideal_bytes_per_beat']:.1f}), "
                         f"{m['tlps_per_frame']:.2f}, {100 * m['pcie_utilisation']:.0f} %, "
                         f"{100 * m['captured_fraction']:.1f} %")
        lines.append(f"| {length} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.capture_bench", description=__doc__)
    ap.add_argument("--widths", type=int, nargs="+", default=[512], choices=(64, 128, 256, 512))
    ap.add_argument("--frames", type=int, default=20000, help="frames per length (default 20000)")
    ap.add_argument("--output", type=Path, default=Path("build/bench/capture_dma.json"))
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    res: dict[str, Any] = {"line_rate_gbps": 100.0, "clock_mhz": 322.265625, "queues": 16,
                           "frames": args.frames, "lengths": list(LENGTHS), "widths": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for w in args.widths:
            rows = []
            for length in LENGTHS:
                try:
                    rows.append(measure(w, length, args.frames, Path(tmp), not args.quiet))
                except CaptureError as exc:
                    print(f"capture_bench: error: {exc}", file=sys.stderr)
                    return exc.code
                if not args.quiet:
                    m = rows[-1]
                    print(f"{w} bits, {length} bytes: {m['bytes_per_beat']:.1f} bytes/beat, "
                          f"{m['tlps_per_frame']:.2f} TLPs/frame, PCIe "
                          f"{100 * m['pcie_utilisation']:.1f} % busy, captured "
                          f"{100 * m['captured_fraction']:.1f} %", file=sys.stderr)
            res["widths"][str(w)] = rows
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(res, indent=2) + "\n")
    print(table(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())

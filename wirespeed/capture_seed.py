"""``wirespeed run --scenario capture-seed``: the CESNET/Netcope capture demo (seed
*Wire-Speed Packet Capture and Replay at 200 Gbps*): two 100GbE ports, each fully loaded with
generated frames of one length, captured into host memory through its own PCIe Gen3 x16 link,
the DMA channels (queues) split between the two ports; per length, what was offered and what
reached the host, per port and in total (docs/host.md, "The capture-seed scenario").

Traffic: per port and length, N frames of random flows (IPv4 UDP and TCP, random addresses
and ports, so RSS spreads them over the port's queues) at line rate, built with ``struct`` (a
few seconds for all lengths); lengths 64, 65, 128, 256, 512, 1024, 1518 bytes on the wire (FCS
included, 4 less on the bus) and the simple IMIX (64, 594 and 1518 bytes, 7:4:1, shuffled).
Each length runs both ports side by side (:func:`wirespeed.capture.run_capture_ports`).
Then the host's side: the measured CPU cost of consuming the rings on this machine, per length
(:mod:`wirespeed.capture_cpu`), and the cores 2 x 100G needs at that cost.

``--rtl-gen`` (``run(rtl_gen=True)``): the traffic comes from the RTL instead, as in the seed's
firmware: on each port capture_gen_top's ``pkt_gen`` sends N frames of one length (256 UDP
flows, 10.0.F.F:1024+F -> 10.1.0.1:0x5753, sequence number and send time in the payload) at
100 Gbit/s, looped back into its ``capture_top``; ``pkt_chk`` checks what entered the capture
(frames, sequence gaps, latency in cycles) and its figures are printed under the table. pkt_gen
sweeps lengths min..max rather than drawing a mix, so the IMIX row stays with the Python
generator (it is left out of an ``--rtl-gen`` run and the output says so).
"""

from __future__ import annotations

import json
import random
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Sequence

from wirespeed import capture_cpu, pcap
from wirespeed.capture import CaptureError, GenRun, run_capture_ports, run_gen_ports
from wirespeed.capture_config import CaptureConfig

LENGTHS: tuple[int, ...] = (64, 65, 128, 256, 512, 1024, 1518)
IMIX = ((64, 7), (594, 4), (1518, 1))       # simple IMIX: wire bytes, weight
DEFAULT_FRAMES = 20000                       # per port and length
WIRE_EXTRA = 20                              # preamble + SFD + IFG besides the frame and FCS
CLOCK_MHZ = 322.265625
QUEUES = 16
WIDTH = 512
GEN_FLOWS = 256                              # --rtl-gen: pkt_gen's flows, RSS spreads them

_MAC = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00"


def frame(r: random.Random, wire_len: int) -> bytes:
    """One IPv4 UDP or TCP frame of a random flow, ``wire_len`` bytes with the FCS."""
    size = wire_len - 4
    tcp = r.random() < 0.5
    l4 = 20 if tcp else 8
    src = bytes([10, r.randrange(256), r.randrange(256), r.randrange(1, 255)])
    dst = bytes([172, 16 + r.randrange(16), r.randrange(256), r.randrange(1, 255)])
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, size - 14, r.randrange(65536), 0, 64,
                     6 if tcp else 17, 0, src, dst)
    sp, dp = r.randrange(1024, 65536), r.choice((53, 80, 443, 4789, r.randrange(1, 65536)))
    if tcp:
        hdr = struct.pack("!HHIIBBHHH", sp, dp, r.getrandbits(32), 0, 0x50, 0x10, 8192, 0, 0)
    else:
        hdr = struct.pack("!HHHH", sp, dp, size - 34, 0)
    body = size - 14 - 20 - l4
    return _MAC + ip + hdr + r.randbytes(min(body, 16)) + bytes(max(0, body - 16))


def lengths_of(kind: int | str, n: int, r: random.Random) -> list[int]:
    if kind != "imix":
        return [int(kind)] * n
    pool = [w for w, k in IMIX for _ in range(k)]
    return [r.choice(pool) for _ in range(n)]


def traffic(kind: int | str, n: int, seed: int) -> list[bytes]:
    r = random.Random(seed)
    return [frame(r, w) for w in lengths_of(kind, n, r)]


def port_figures(rep: dict[str, Any]) -> dict[str, Any]:
    """Offered and captured rates of one port's report: frames over the input's span; Gbit/s
    on the wire (frame, FCS, preamble and gap: 100 at line rate)."""
    span_ns = (rep["last_in_cycle"] - rep["first_in_cycle"] + 1) * 1000.0 / rep["clock_mhz"]
    n, got = rep["packets_in"], rep["captured"]
    wire = rep["bytes_in"] + (4 + WIRE_EXTRA) * n
    shares = [q["frames_in"] for q in rep["queue"].values()]
    return {
        "frames": n,
        "captured": got,
        "offered_mpps": n / span_ns * 1e3,
        "offered_gbps": wire * 8 / span_ns,
        "captured_mpps": got / span_ns * 1e3,
        "captured_gbps": wire * 8 / span_ns * (got / n if n else 0.0),
        "loss": (n - got) / n if n else 0.0,
        "pcie_utilisation": rep["pcie"]["utilisation"],
        "pcie_payload_gbps": rep["pcie"]["payload_gbps"],
        "tlps_per_frame": rep["pcie"]["tlps"] / max(1, got),
        "frame_bytes_per_beat": rep["dma"]["frame_bytes_per_beat"],
        "queue_balance": max(shares) * len(shares) / n if n else 0.0,
        "balanced": rep["balanced"],
        "dropped": rep["dropped"],
    }


def checker_figures(rep: dict[str, Any]) -> dict[str, Any]:
    """--rtl-gen: one port's generator and checker (ws_capture_gen's report)."""
    g, c = rep["generator"], rep["checker"]
    return {
        "sent": g["frames"], "sent_bytes": g["bytes"],
        "captured": rep["captured"], "dropped": rep["dropped"],
        # every frame the generator sent is either in a ring or counted as a drop
        "accounted": rep["captured"] + rep["dropped"] == g["frames"],
        "chk_frames": c["frames"], "chk_others": c["others"], "gaps": c["gaps"], "late": c["late"],
        "latency_min_cycles": c["latency_min_cycles"],
        "latency_max_cycles": c["latency_max_cycles"],
        "latency_mean_cycles": c["latency_mean_cycles"], "latency_mean_ns": c["latency_mean_ns"],
        "rate_gbps": g["rate_gbps"],
    }


def run(frames: int = DEFAULT_FRAMES, seed: int = 1, verbose: bool = True,
        kinds: Sequence[int | str] = (*LENGTHS, "imix"), width: int = WIDTH,
        workdir: Path | None = None, cpu: bool = True, rtl_gen: bool = False) -> dict[str, Any]:
    cfg = CaptureConfig(data_width=width, queues=QUEUES, clock_mhz=CLOCK_MHZ,
                        line_rate_gbps=100.0)
    out: dict[str, Any] = {"scenario": "capture-seed", "ports": 2, "queues": QUEUES,
                           "queues_per_port": QUEUES // 2, "data_width": width,
                           "clock_mhz": CLOCK_MHZ, "line_rate_gbps_per_port": 100.0,
                           "frames_per_port": frames, "rows": [],
                           "generator": "pkt_gen (RTL)" if rtl_gen else "Python"}
    if rtl_gen:
        skipped = [k for k in kinds if not isinstance(k, int) and not str(k).isdigit()]
        kinds = [k for k in kinds if k not in skipped]
        if skipped:
            # pkt_gen sweeps lengths min..max: no mix (docs/host.md)
            out["skipped"] = {str(k): "the RTL generator sweeps lengths, it draws no mix: "
                                      "run without --rtl-gen" for k in skipped}
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for kind in kinds:
            t0 = time.monotonic()
            d = Path(tmp) / str(kind)
            d.mkdir()
            if rtl_gen:
                bus = int(kind) - 4
                run_ = run_gen_ports(GenRun(bus, bus, frames, GEN_FLOWS), d / "out", cfg,
                                     verbose=verbose, seed=seed)
            else:
                ins = []
                for p in range(2):
                    path = d / f"port{p}.pcap"
                    salt = zlib.crc32(str(kind).encode()) % 997
                    pcap.write(path, traffic(kind, frames, seed * 1000 + 17 * p + salt))
                    ins.append(path)
                run_ = run_capture_ports(ins, d / "out", cfg, verbose=verbose, seed=seed)
            ports = [port_figures(r) for r in run_.report["ports"]]
            tot = {k: sum(p[k] for p in ports) for k in ("frames", "captured", "offered_mpps",
                                                          "offered_gbps", "captured_mpps",
                                                          "captured_gbps")}
            tot["loss"] = (tot["frames"] - tot["captured"]) / tot["frames"]
            tot["queue_balance"] = run_.report["rss_spread"]["imbalance"]
            tot["balanced"] = run_.report["balanced"]
            row = {"length": kind, "ports": ports, "total": tot,
                   "wall_seconds": time.monotonic() - t0}
            if rtl_gen:
                row["checker"] = [checker_figures(r) for r in run_.report["ports"]]
                accounted = all(c["accounted"] for c in row["checker"])
                tot["balanced"] = int(bool(tot["balanced"]) and accounted)
            out["rows"].append(row)
            if verbose:
                print(f"  {kind}: {tot['captured_gbps']:.1f} of {tot['offered_gbps']:.1f} Gbit/s "
                      f"captured, loss {100 * tot['loss']:.3f} % ({row['wall_seconds']:.0f} s)",
                      file=sys.stderr)
    if cpu:
        # the fastest of 3 passes of at least 50 ms per length and mode: a few seconds
        out["host_cpu"] = capture_cpu.measure([k for k in kinds if k != "imix"], repeat=3,
                                              min_ms=50.0, gbps=100.0, ports=2)
    return out


def checker_table(res: dict[str, Any]) -> str:
    """--rtl-gen: per length and port, what pkt_gen sent, where it went, what pkt_chk saw."""
    cyc = 1000.0 / res["clock_mhz"]
    lines = ["  the RTL generator and checker (capture_gen_top, per port: pkt_gen looped back "
             "into capture_top; pkt_chk on the capture's input; latency in cycles of "
             f"{cyc:.3f} ns)",
             f"  {'length':>6} {'port':>5} {'sent':>9} {'captured':>9} {'drops':>6} "
             f"{'balance':>8} {'checked':>9} {'gaps':>5} {'late':>5} "
             f"{'latency min/max/mean, cycles':>29}"]
    for row in res["rows"]:
        for i, c in enumerate(row.get("checker", [])):
            lat = (f"{c['latency_min_cycles']}/{c['latency_max_cycles']}/"
                   f"{c['latency_mean_cycles']:.2f}")
            lines.append(
                f"  {str(row['length']) if i == 0 else '':>6} {i:>5} {c['sent']:>9} "
                f"{c['captured']:>9} {c['dropped']:>6} "
                f"{'ok' if c['accounted'] else 'NO':>8} {c['chk_frames']:>9} {c['gaps']:>5} "
                f"{c['late']:>5} {lat:>29}")
    for k, why in res.get("skipped", {}).items():
        lines.append(f"  {k}: not run: {why}")
    return "\n".join(lines)


def table(res: dict[str, Any]) -> str:
    lines = [
        f"capture-seed (seed: CESNET/Netcope, Wire-Speed Packet Capture and Replay at 200 Gbps): "
        f"2 x 100GbE, {res['queues']} queues ({res['queues_per_port']} per port), "
        f"{res['data_width']}-bit bus at {res['clock_mhz']:g} MHz, one PCIe Gen3 x16 link model "
        f"per port; {res['frames_per_port']} frames per port and length",
        "  Gbit/s on the wire (frame + FCS + preamble + gap); PCIe: the link's busy share; "
        "balance: max queue share x queues",
        f"  {'length':>6} {'port':>5} {'offered':>16} {'captured':>16} {'loss':>8} "
        f"{'PCIe':>6} {'TLP/fr':>6} {'balance':>7}",
    ]
    for row in res["rows"]:
        for i, p in enumerate(row["ports"] + [row["total"]]):
            name = str(i) if i < len(row["ports"]) else "total"
            pcie = f"{100 * p['pcie_utilisation']:5.1f}%" if "pcie_utilisation" in p else ""
            tlp = f"{p['tlps_per_frame']:6.2f}" if "tlps_per_frame" in p else ""
            lines.append(
                f"  {str(row['length']) if i == 0 else '':>6} {name:>5} "
                f"{p['offered_mpps']:7.2f} Mpps {p['offered_gbps']:5.1f} G "
                f"{p['captured_mpps']:7.2f} Mpps {p['captured_gbps']:5.1f} G "
                f"{100 * p['loss']:7.3f}% {pcie:>6} {tlp:>6} {p['queue_balance']:7.2f}")
    worst = max(r["total"]["loss"] for r in res["rows"])
    lines.append(f"  seed: 200 Gbit/s captured without loss at every frame length; ours: "
                 + ("no loss at any length" if worst == 0 else
                    f"worst loss {100 * worst:.3f} %"))
    if any("checker" in r for r in res["rows"]) or res.get("skipped"):
        lines.append(checker_table(res))
    if "host_cpu" in res:
        lines.append(capture_cpu.table(res["host_cpu"]))
    return "\n".join(lines)


def cmd(args: Any) -> int:
    """``wirespeed run --scenario capture-seed`` (wirespeed.cli)."""
    frames = DEFAULT_FRAMES if args.frames is None else args.frames
    width = args.width or WIDTH
    verbose = not args.quiet
    try:
        res = run(frames=frames, seed=args.seed, verbose=verbose, width=width,
                  rtl_gen=bool(getattr(args, "rtl_gen", False)))
    except CaptureError as exc:
        print(f"wirespeed: error: {exc}", file=sys.stderr)
        return exc.code
    print(table(res))
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(res, indent=2) + "\n")
    ok = all(r["total"]["balanced"] for r in res["rows"])
    return 0 if ok else 1


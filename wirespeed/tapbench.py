"""The virtual NIC's figures (docs/tap.md): iperf2 TCP throughput through the simulated VTEP in
both directions, the frames per second it carried, and the round trip it adds to a ping over a
plain veth pair. Writes docs/bench/tap.json.

    python -m wirespeed.tapbench [--widths 256 512] [--seconds 10] [--output docs/bench/tap.json]

Needs root (wirespeed.taplab); prints the reason and exits 0 without writing when the lab
cannot run, so that `make bench` goes on elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any, Sequence

from wirespeed import paths, taplab

GOAL_MBIT_S = 1000.0  # issue 30: >= 1 Gbit/s of iperf2 TCP through the simulated VTEP
PINGS = 20


def _cpu_seconds(pid: int) -> float:
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def veth_rtt_ms(tag: str) -> float | None:
    """Mean ping round trip over a plain veth pair between two namespaces (the baseline)."""
    a, b = f"ws{tag}va", f"ws{tag}vb"
    ns = taplab.Namespaces([a, b])
    try:
        ns.create()
        ns.ip(a, "link", "add", "v0", "type", "veth", "peer", "name", "v1", "netns", b)
        ns.ip(a, "addr", "add", "10.210.0.1/24", "dev", "v0")
        ns.ip(b, "addr", "add", "10.210.0.2/24", "dev", "v1")
        ns.ip(a, "link", "set", "v0", "up")
        ns.ip(b, "link", "set", "v1", "up")
        r = ns.exec(a, "ping", "-c", str(PINGS), "-i", "0.05", "-W", "2", "-q", "10.210.0.2", check=False)
        return taplab.parse_ping(r.stdout, PINGS).rtt_avg_ms
    finally:
        ns.close()


def _ports_frames(line: dict[str, Any]) -> int:
    return sum(p["frames"] for k, p in line["ports"].items() if k.endswith(" rx"))


def _iperf_measured(lab: taplab.VxlanTapLab, seconds: float, reverse: bool) -> dict[str, Any]:
    assert lab.sim is not None and lab.sim.pid is not None
    before = lab.sim.lines()[-1]
    cpu0, t0 = _cpu_seconds(lab.sim.pid), time.monotonic()
    r = lab.iperf(seconds, reverse=reverse)
    time.sleep(0.6)  # one more view line
    after = lab.sim.lines()[-1]
    cpu1, t1 = _cpu_seconds(lab.sim.pid), time.monotonic()
    dt = after["t"] - before["t"]
    frames = _ports_frames(after) - _ports_frames(before)
    cycles = after["busy_cycles"] - before["busy_cycles"]
    return {"mbit_s": round(r.mbit_s, 3), "seconds": round(r.seconds, 2), "bytes": r.server_bytes,
            "bytes_client": r.client_bytes,
            "frames_per_second": round(frames / dt, 1) if dt > 0 else None,
            "sim_cpu_share": round((cpu1 - cpu0) / (t1 - t0), 3),
            "clocked_cycles_per_cpu_second": round(cycles / (cpu1 - cpu0)) if cpu1 > cpu0 else None}


def bench_width(width: int, seconds: float, workdir: Path) -> dict[str, Any]:
    with taplab.VxlanTapLab(workdir / f"w{width}", tag=f"b{width}", width=width,
                            sim_args=["--interval", "0.5"]) as lab:
        lab.ping(True, count=3)  # warm: neighbour entries, caches
        p = lab.ping(True, count=PINGS, interval=0.05)
        fwd = _iperf_measured(lab, seconds, reverse=False)
        rev = _iperf_measured(lab, seconds, reverse=True)
        assert lab.sim is not None
        final = lab.sim.stop()
    return {"ping_rtt_ms": {"avg": p.rtt_avg_ms, "min": p.rtt_min_ms, "max": p.rtt_max_ms,
                            "replies": f"{p.received}/{p.sent}"},
            "iperf_tcp": {"cloud_to_onprem (decap carries the data)": fwd,
                          "onprem_to_cloud (encap carries the data)": rev},
            "balanced": bool(final.get("balanced")),
            "frames": {k: v["frames_in"] for k, v in final["counters"].items()}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.tapbench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--widths", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--output", type=Path, default=paths.ROOT / "docs" / "bench" / "tap.json")
    a = ap.parse_args(argv)
    try:
        taplab.check_available()
    except taplab.LabUnavailable as e:
        print(f"tapbench: skipped, the TAP lab cannot run here: {e}")
        return 0
    load0 = os.getloadavg()
    veth = veth_rtt_ms("bv")
    doc: dict[str, Any] = {
        "what": "iperf2 TCP through the simulated VXLAN VTEP (vtep_top, Verilator) between two network "
                "namespaces via TAP devices; ping round trip against a plain veth pair (docs/tap.md)",
        "command": "python -m wirespeed.tapbench --widths " + " ".join(map(str, a.widths)) +
                   f" --seconds {a.seconds:g}",
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                    "loadavg_at_start": [round(x, 2) for x in load0]},
        "goal_mbit_s": GOAL_MBIT_S,
        "veth_ping_rtt_ms": veth,
        "widths": {},
    }
    for w in a.widths:
        print(f"tapbench: {w}-bit ...", flush=True)
        r = bench_width(w, a.seconds, paths.BUILD / "tap" / "bench")
        if veth is not None and r["ping_rtt_ms"]["avg"] is not None:
            r["ping_rtt_added_ms"] = round(r["ping_rtt_ms"]["avg"] - veth, 3)
        best = max(v["mbit_s"] for v in r["iperf_tcp"].values())
        r["goal_met"] = best >= GOAL_MBIT_S
        doc["widths"][str(w)] = r
        print(json.dumps(r, indent=1), flush=True)
    doc["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    a.output.parent.mkdir(parents=True, exist_ok=True)
    a.output.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"tapbench: wrote {a.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

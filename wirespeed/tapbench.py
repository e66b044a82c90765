"""The virtual NIC's figures (docs/tap.md): iperf2 TCP throughput through the simulated VTEP in
both directions, the frames per second it carried, and the round trip it adds to a ping over a
plain veth pair. Writes docs/bench/tap.json.

    python -m wirespeed.tapbench [--widths 256 512] [--mtus 1500 9000] [--seconds 10]
                                 [--output docs/bench/tap.json]

Per width and underlay MTU (1500: the standard figures, "widths"; 9000: jumbo frames on the
underlay and 8950 inside, "jumbo"): ping, then iperf2 each way, each with the harness's own
profile over the transfer (simulated cycles per frame, TAP system calls per frame, reads that
found nothing, cycles clocked with nothing in flight, sleeps in poll()).

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

from wirespeed import paths, tap, taplab

GOAL_MBIT_S = 1000.0  # issue 30: >= 1 Gbit/s of iperf2 TCP through the simulated VTEP
PINGS = 20
JUMBO_MTU = 9000


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


def loop_profile(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The harness's own profile between two view lines (their "loop" counters, sim/tap_run.hpp):
    per frame through the NIC (both ports' rx), the simulated cycles and the TAP system calls."""
    lb, la = before.get("loop") or {}, after.get("loop") or {}
    d = {k: la.get(k, 0) - lb.get(k, 0) for k in la}
    frames = _ports_frames(after) - _ports_frames(before)
    if not d or frames <= 0:
        return {}
    cycles = max(1, d.get("busy_cycles", 0))
    return {"frames": frames,
            "cycles_per_frame": round(d.get("busy_cycles", 0) / frames, 1),
            "syscalls_per_frame": round((d.get("tap_reads", 0) + d.get("tap_writes", 0) + d.get("polls", 0))
                                        / frames, 2),
            "empty_reads_per_frame": round(d.get("tap_empty_reads", 0) / frames, 2),
            "idle_cycle_share": round(d.get("idle_cycles", 0) / cycles, 4),
            "polls": d.get("polls", 0)}


def _iperf_measured(lab: taplab.VxlanTapLab, seconds: float, reverse: bool,
                    client_args: Sequence[str] = ()) -> dict[str, Any]:
    assert lab.sim is not None and lab.sim.pid is not None
    before = lab.sim.lines()[-1]
    cpu0, t0 = _cpu_seconds(lab.sim.pid), time.monotonic()
    r = lab.iperf(seconds, reverse=reverse, client_args=client_args)
    time.sleep(0.6)  # one more view line
    after = lab.sim.lines()[-1]
    cpu1, t1 = _cpu_seconds(lab.sim.pid), time.monotonic()
    dt = after["t"] - before["t"]
    frames = _ports_frames(after) - _ports_frames(before)
    cycles = after["busy_cycles"] - before["busy_cycles"]
    cps = cycles / (cpu1 - cpu0) if cpu1 > cpu0 else None
    return {"mbit_s": round(r.mbit_s, 3), "seconds": round(r.seconds, 2), "bytes": r.server_bytes,
            "bytes_client": r.client_bytes,
            "frames_per_second": round(frames / dt, 1) if dt > 0 else None,
            "sim_cpu_share": round((cpu1 - cpu0) / (t1 - t0), 3),
            "clocked_cycles_per_cpu_second": round(cps) if cps else None,
            # what a whole core for the harness would carry at this cost per byte
            "mbit_s_per_cpu_second": round(r.mbit_s * (t1 - t0) / (cpu1 - cpu0), 1) if cpu1 > cpu0 else None,
            "profile": loop_profile(before, after)}


def bench_width(width: int, seconds: float, workdir: Path, mtu: int = taplab.UNDERLAY_MTU) -> dict[str, Any]:
    with taplab.VxlanTapLab(workdir / f"w{width}m{mtu}", tag=f"b{width}", width=width, mtu=mtu,
                            sim_args=["--interval", "0.5"]) as lab:
        lab.ping(True, count=3)  # warm: neighbour entries, caches
        p = lab.ping(True, count=PINGS, interval=0.05)
        fwd = _iperf_measured(lab, seconds, reverse=False)
        rev = _iperf_measured(lab, seconds, reverse=True)
        assert lab.sim is not None
        final = lab.sim.stop()
    return {"mtu": mtu, "inner_mtu": mtu - taplab.VXLAN_OVERHEAD,
            "ping_rtt_ms": {"avg": p.rtt_avg_ms, "min": p.rtt_min_ms, "max": p.rtt_max_ms,
                            "replies": f"{p.received}/{p.sent}"},
            "iperf_tcp": {"cloud_to_onprem (decap carries the data)": fwd,
                          "onprem_to_cloud (encap carries the data)": rev},
            "balanced": bool(final.get("balanced")),
            "frames": {k: v["frames_in"] for k, v in final["counters"].items()}}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m wirespeed.tapbench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--widths", type=int, nargs="+", default=[256, 512])
    ap.add_argument("--mtus", type=int, nargs="+", default=[taplab.UNDERLAY_MTU, JUMBO_MTU],
                    help="underlay MTUs (1500: the standard figures; others go under \"jumbo\")")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--no-pgo", action="store_true",
                    help="the quick build (the harness linked on ws_vtep's model) instead of the "
                         "profile-feedback one (sim/build.sh W tap-vtep, minutes once per source change)")
    ap.add_argument("--output", type=Path, default=paths.ROOT / "docs" / "bench" / "tap.json")
    a = ap.parse_args(argv)
    try:
        taplab.check_available()
    except taplab.LabUnavailable as e:
        print(f"tapbench: skipped, the TAP lab cannot run here: {e}")
        return 0
    if not a.no_pgo:
        os.environ[tap.PGO_ENV] = "1"  # inherited by `wirespeed tap` (wirespeed.tap.want_optimized)
    for w in a.widths:  # built before the labs (TapSim waits 15 min at most for a ready harness)
        tap.ensure_tap_harness("vtep", w, verbose=True, optimized=not a.no_pgo)
    # ... and kept for the whole bench even if the tree changes meanwhile (other work in it)
    sources = sorted({(tap.harness_path("vtep", w, not a.no_pgo).parent / ".sources.sha256").read_text().strip()
                      for w in a.widths})
    os.environ[tap.SOURCES_ENV] = ",".join(sources)
    load0 = os.getloadavg()
    veth = veth_rtt_ms("bv")
    doc: dict[str, Any] = {
        "what": "iperf2 TCP through the simulated VXLAN VTEP (vtep_top, Verilator) between two network "
                "namespaces via TAP devices; ping round trip against a plain veth pair (docs/tap.md)",
        "command": "python -m wirespeed.tapbench --widths " + " ".join(map(str, a.widths)) +
                   " --mtus " + " ".join(map(str, a.mtus)) + f" --seconds {a.seconds:g}" +
                   (" --no-pgo" if a.no_pgo else ""),
        "build": ("ws_tap_vtep linked on ws_vtep's model (-O2)" if a.no_pgo else
                  "ws_tap_vtep with a model of its own compiled with GCC profile feedback (sim/build.sh W tap-vtep)"),
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(),
                    "loadavg_at_start": [round(x, 2) for x in load0]},
        "sources": sources,
        "goal_mbit_s": GOAL_MBIT_S,
        "veth_ping_rtt_ms": veth,
        "widths": {},
    }
    for mtu in a.mtus:
        for w in a.widths:
            print(f"tapbench: {w}-bit, underlay MTU {mtu} ...", flush=True)
            r = bench_width(w, a.seconds, paths.BUILD / "tap" / "bench", mtu=mtu)
            if veth is not None and r["ping_rtt_ms"]["avg"] is not None:
                r["ping_rtt_added_ms"] = round(r["ping_rtt_ms"]["avg"] - veth, 3)
            best = max(v["mbit_s"] for v in r["iperf_tcp"].values())
            r["goal_met"] = best >= GOAL_MBIT_S
            if mtu == taplab.UNDERLAY_MTU:
                doc["widths"][str(w)] = r
            else:
                doc.setdefault("jumbo", {}).setdefault(str(mtu), {})[str(w)] = r
            print(json.dumps(r, indent=1), flush=True)
    doc["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    a.output.parent.mkdir(parents=True, exist_ok=True)
    a.output.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"tapbench: wrote {a.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The run report: numbers derived from the harness's JSON, balance checks, and tables.

Definitions (also in docs/config.md, "The report"):

* ``bytes_in`` / ``bytes_out``: MAC bytes = bus bytes + 4 bytes of FCS per frame (no padding to
  the 64-byte minimum, no preamble or gap), the way the seed's Table 2 counts bytes.
* ``elapsed_cycles`` = ``last_out_cycle - first_in_cycle + 1`` (first input handshake to last
  output handshake, inclusive); without output it ends at ``last_in_cycle``.
* ``rate_cycles``, the window every rate is taken over: ``elapsed_cycles``, but never less than
  the pacing slots of all input frames (their wire bits at ``line_rate_gbps``), so N paced
  frames are measured over N slots, not the N - 1 gaps between their starts, and no rate
  exceeds the pacing. ``elapsed_us`` = ``rate_cycles / clock_mhz``.
* ``mpps`` = ``packets_out / elapsed_us`` (output frames per simulated µs = Mpps);
  ``offered_mpps`` = ``packets_in / elapsed_us``.
* ``offered_gbps`` = offered wire bits / elapsed time, where a frame of L bus bytes is
  ``max(L, 60) + 4 + 20`` bytes on the wire (padding, FCS, preamble+SFD 8, gap 12).
* ``line_rate_fraction`` = ``offered_gbps / line_rate_gbps`` (``null`` when back-to-back).
* ``few_frames``: fewer than FEW_FRAMES input frames; the rates are then marked as measured
  on few frames.
* ``drops``: every drop reason (all ten, zeros included) → frames of that reason that were
  *not* written to the output. Malformed frames forwarded by policy are counted in
  ``forwarded_malformed`` instead, so ``packets_in == packets_out + sum(drops)`` always holds.
* ``dropped`` = ``sum(drops)``: frames the block dropped and counted under a drop reason.
* ``loss`` = ``packets_in - packets_out - dropped``: frames neither delivered nor counted
  (uncounted loss; the balance check fails unless it is 0). The same meaning as the VTEP's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from wirespeed import paths
from wirespeed.config import Config
from wirespeed.model.common import beats
from wirespeed.regmap import GRE
from wirespeed.scenario import FCS_BYTES, wire_bytes

OUTCOMES = GRE.outcome_names()  # from the one source, wirespeed/regmap.py
DROP_REASONS = OUTCOMES[4:]
MALFORMED = ("DROP_IP_HEADER", "DROP_IP_CHECKSUM", "DROP_FRAGMENT", "DROP_GRE_HEADER")

# The seed white paper (Intel / mixi, 2018).
SEED_TABLE1_US = {"FPGA GRE": 3.18, "DPDK GRE": 9.52, "Switch GRE": 2.29,
                  "FPGA TCP": 3.01, "DPDK TCP": 9.45, "Switch TCP": 2.09}
SEED_TABLE2 = {
    "DPDK + QFX": {"tx_bytes": 55168165240, "rx_bytes": 47972317600, "tx_mpps": 11.17,
                   "rx_mpps": 11.17, "loss": 0},
    "QFX (decap)": {"tx_bytes": 21304829160, "rx_bytes": 18525938400, "tx_mpps": 11.17,
                    "rx_mpps": 11.17, "loss": 0},
    "FPGA": {"tx_bytes": 12308110704, "rx_bytes": 10702704960, "tx_mpps": 11.19,
             "rx_mpps": 11.19, "loss": 0},
}
SEED_RATIO = 0.8695652174  # (68 + 92) / (92 + 92)
# What `make synth` measured (docs/performance.md is written from it).
SYNTH_JSON = paths.ROOT / "docs" / "bench" / "synth.json"
# Below this many input frames, rates and line-rate fractions are marked as measured on few
# frames: the measuring window is then dominated by one frame's slot and the pipeline latency.
FEW_FRAMES = 1000


def rate_window(elapsed: int, wire_bits: int, clock_mhz: float, line_rate_gbps: float) -> int:
    """The cycles rates are taken over: ``elapsed``, at least the input's pacing slots."""
    if not line_rate_gbps or not clock_mhz:
        return elapsed
    slots = -(-wire_bits * clock_mhz // (1000.0 * line_rate_gbps))  # ceil
    return max(elapsed, int(slots))


def few_frames_note(n: int) -> str:
    """The mark of a rate measured on few frames ("" when there are enough)."""
    return f" (from only {n} frames: indicative)" if 0 < n < FEW_FRAMES else ""


class BalanceError(RuntimeError):
    """Frames are unaccounted for; the message lists every mismatch."""


def _count(h: Mapping[str, Any], key: str, name: str) -> int:
    return int(h.get(key, {}).get(name, {}).get("packets", 0))


def build(h: Mapping[str, Any], cfg: Config, in_lengths: Sequence[int],
          out_lengths: Sequence[int]) -> dict[str, Any]:
    """The report for one run from the harness JSON ``h`` and the frame lengths (bus bytes)."""
    clock = float(h.get("clock_mhz", cfg.clock_mhz))
    rate = float(h.get("line_rate_gbps", cfg.line_rate_gbps))
    outcomes = {n: {"packets": _count(h, "outcomes", n),
                    "bytes": int(h.get("outcomes", {}).get(n, {}).get("bytes", 0))}
                for n in OUTCOMES}
    fwd_malformed = 0
    drops: dict[str, int] = {}
    for n in DROP_REASONS:
        c = outcomes[n]["packets"]
        if cfg.policy_malformed == "forward" and n in MALFORMED:
            fwd_malformed += c
            c = 0
        drops[n] = c
    first_in = h.get("first_in_cycle")
    last_in = h.get("last_in_cycle")
    last_out = h.get("last_out_cycle")
    n_in, n_out = len(in_lengths), len(out_lengths)
    if first_in is None or first_in < 0 or n_in == 0:
        elapsed = 0
    else:
        end = last_out if (n_out and last_out is not None and last_out >= 0) else last_in
        elapsed = int(end) - int(first_in) + 1
    wire_bits = 8 * sum(wire_bytes(n) for n in in_lengths)
    window = rate_window(elapsed, wire_bits, clock, rate)
    elapsed_us = window / clock if clock else 0.0
    offered_gbps = wire_bits / (elapsed_us * 1000.0) if elapsed_us else 0.0
    bytes_in = sum(in_lengths) + FCS_BYTES * n_in
    bytes_out = sum(out_lengths) + FCS_BYTES * n_out
    lat = dict(h.get("latency_cycles", {}))
    ns = 1000.0 / clock if clock else 0.0
    latency_ns = {k: lat[k] * ns for k in ("min", "max", "mean") if lat.get(k) is not None}
    return {
        "packets_in": n_in,
        "packets_out": n_out,
        "bytes_in": bytes_in,
        "bytes_out": bytes_out,
        "bus_bytes_in": sum(in_lengths),
        "bus_bytes_out": sum(out_lengths),
        "rx_tx_byte_ratio": round(bytes_out / bytes_in, 10) if bytes_in else None,
        "passed": outcomes["PASS"]["packets"] + outcomes["PUNT"]["packets"],
        "punted": outcomes["PUNT"]["packets"],
        "decapsulated": outcomes["DECAP_L3"]["packets"] + outcomes["DECAP_TEB"]["packets"],
        "forwarded_malformed": fwd_malformed,
        "drops": drops,
        "dropped": sum(drops.values()),
        "aborted": int(h.get("aborted", 0)),
        "loss": n_in - n_out - sum(drops.values()),
        "outcomes": outcomes,
        "data_width": int(h.get("data_width", cfg.data_width)),
        "clock_mhz": clock,
        "line_rate_gbps": rate,
        "cycles": int(h.get("cycles", 0)),
        "elapsed_cycles": elapsed,
        "rate_cycles": window,
        "elapsed_us": elapsed_us,
        "few_frames": 0 < n_in < FEW_FRAMES,
        "mpps": n_out / elapsed_us if elapsed_us else 0.0,
        "offered_mpps": n_in / elapsed_us if elapsed_us else 0.0,
        "offered_gbps": offered_gbps,
        "line_rate_fraction": offered_gbps / rate if rate else None,
        "latency_cycles": {k: lat.get(k) for k in ("min", "max", "mean", "count")},
        "latency_ns": latency_ns,
        "config": {
            "source": cfg.source,
            "allow_list_enabled": cfg.allow_enabled,
            "allow_list_entries": len(cfg.allow_entries),
            "policy": {"pass": cfg.policy_pass, "punt": cfg.policy_punt,
                       "malformed": cfg.policy_malformed},
        },
        "harness": dict(h),
    }


def latency_by(csv_path: Path, key: Callable[[int], str]) -> dict[str, dict[str, float]]:
    """Per-class latency from the harness's ``--latency-csv`` (``key(index_in)`` = class name).

    The CSV has one line per emitted frame: ``index_in,first_in_cycle,first_out_cycle,latency``
    with ``index_in`` counting input frames from 0.
    """
    acc: dict[str, list[float]] = {}
    with open(csv_path) as f:
        next(f, None)  # header
        for line in f:
            idx, _, _, lat = line.split(",")
            v = int(lat)
            a = acc.setdefault(key(int(idx)), [v, v, 0, 0])
            if v < a[0]:
                a[0] = v
            if v > a[1]:
                a[1] = v
            a[2] += v
            a[3] += 1
    return {k: {"min": a[0], "max": a[1], "mean": a[2] / a[3], "count": a[3]}
            for k, a in sorted(acc.items())}


def balance_errors(rep: Mapping[str, Any]) -> list[str]:
    """Every inconsistency between the pcaps, the harness and the hardware counters."""
    h = rep["harness"]
    errs: list[str] = []
    dropped = sum(rep["drops"].values())
    if rep["packets_in"] != rep["packets_out"] + dropped:
        errs.append(f"packets_in {rep['packets_in']} != packets_out {rep['packets_out']} + "
                    f"drops {dropped}")
    if h.get("packets_in") != rep["packets_in"]:
        errs.append(f"the harness read {h.get('packets_in')} frames, the input pcap has "
                    f"{rep['packets_in']}")
    if h.get("packets_out") != rep["packets_out"]:
        errs.append(f"the harness reports {h.get('packets_out')} output frames, the output pcap "
                    f"has {rep['packets_out']}")
    if h.get("bytes_in") is not None and h["bytes_in"] != rep["bus_bytes_in"]:
        errs.append(f"the harness read {h['bytes_in']} bus bytes, the pcap has "
                    f"{rep['bus_bytes_in']}")
    total = sum(o["packets"] for o in rep["outcomes"].values())
    if total != rep["packets_in"]:
        errs.append(f"outcome counts sum to {total}, not packets_in {rep['packets_in']}")
    stat = h.get("stat_outcomes")
    if stat is not None:
        for n in OUTCOMES:
            a, b = rep["outcomes"][n], stat.get(n, {})
            if (a["packets"], a["bytes"]) != (b.get("packets", 0), b.get("bytes", 0)):
                errs.append(f"{n}: the block's counters say {b.get('packets', 0)} frames / "
                            f"{b.get('bytes', 0)} bytes, the harness saw {a['packets']} / "
                            f"{a['bytes']}")
    if h.get("tx_packets") is not None and h["tx_packets"] != rep["packets_out"]:
        errs.append(f"the block's TX counter says {h['tx_packets']} frames, the output pcap has "
                    f"{rep['packets_out']}")
    return errs


def check_balance(rep: Mapping[str, Any]) -> None:
    errs = balance_errors(rep)
    if errs:
        raise BalanceError("balance check failed:\n  " + "\n  ".join(errs))


# ----------------------------------------------------------------------------- tables

def grid(rows: Sequence[Sequence[str]], header: Sequence[str]) -> str:
    cols = [header, *rows]
    widths = [max(len(r[i]) for r in cols) for i in range(len(header))]
    def line(r: Sequence[str]) -> str:
        first = r[0].ljust(widths[0])
        rest = "  ".join(c.rjust(w) for c, w in zip(r[1:], widths[1:]))
        return f"  {first}  {rest}".rstrip()
    sep = "  " + "-" * (sum(widths) + 2 * (len(widths) - 1))
    return "\n".join([line(header), sep, *(line(r) for r in rows)])


def _cfg_label(rep: Mapping[str, Any]) -> str:
    rate = rep["line_rate_gbps"]
    offered = f"{rate:g} GbE line rate" if rate else "back-to-back"
    return f"{rep['data_width']}-bit bus @ {rep['clock_mhz']:g} MHz, {offered}"


def table2(rep: Mapping[str, Any]) -> str:
    """The seed's Table 2 with our run as an extra column."""
    seed = SEED_TABLE2
    names = list(seed)
    header = ["92-byte frames, GRE:TCP 1:1", *names, "wirespeed (sim)", "ideal"]
    r = rep
    rows = [
        ["tx packets", *("-" for _ in names), f"{r['packets_in']}", "-"],
        ["rx packets", *("-" for _ in names), f"{r['packets_out']}", "-"],
        ["tx bytes", *(str(seed[n]["tx_bytes"]) for n in names), f"{r['bytes_in']}", "-"],
        ["rx bytes", *(str(seed[n]["rx_bytes"]) for n in names), f"{r['bytes_out']}", "-"],
        ["rx / tx bytes", *(f"{seed[n]['rx_bytes'] / seed[n]['tx_bytes']:.10f}" for n in names),
         f"{r['rx_tx_byte_ratio']:.10f}" if r["rx_tx_byte_ratio"] is not None else "-",
         f"{SEED_RATIO:.10f}"],
        ["tx pps", *(f"{seed[n]['tx_mpps']:.2f} Mpps" for n in names),
         f"{r['offered_mpps']:.2f} Mpps", "-"],
        ["rx pps", *(f"{seed[n]['rx_mpps']:.2f} Mpps" for n in names),
         f"{r['mpps']:.2f} Mpps", "-"],
        ["loss packets", *(str(seed[n]["loss"]) for n in names), f"{r['loss']}", "0"],
        ["counted drops", *("-" for _ in names), f"{r['dropped']}", "0"],
    ]
    title = (f"Table 2 - throughput (seed: Intel/mixi white paper; ours: {_cfg_label(r)}, "
             f"{r['elapsed_us']:.1f} simulated us)")
    note = ("  loss = frames neither delivered nor counted under a drop reason; counted drops "
            "apart (the seed's runs had none)")
    return title + "\n" + grid(rows, header) + "\n" + note


def table1(rep: Mapping[str, Any],
           by_class: Mapping[str, Mapping[str, float]] | None = None) -> str:
    """The seed's Table 1 beside our pipeline latency (per GRE/TCP class when known)."""
    clock = rep["clock_mhz"]

    def fmt(lat: Mapping[str, float] | None) -> str:
        if not lat or lat.get("min") is None:
            return "-"
        lo, hi, mean = lat["min"], lat["max"], lat["mean"]
        ns = 1000.0 / clock
        if lo == hi:
            return f"{lo:g} cycle{'' if lo == 1 else 's'} = {lo * ns:.1f} ns"
        return (f"{lo:g}..{hi:g} cycles = {lo * ns:.1f}..{hi * ns:.1f} ns "
                f"(mean {mean:.2f})")

    rows = [[p, f"{SEED_TABLE1_US[p + ' GRE']:.2f} us", f"{SEED_TABLE1_US[p + ' TCP']:.2f} us"]
            for p in ("FPGA", "DPDK", "Switch")]
    if by_class:
        rows.append(["wirespeed (sim)", fmt(by_class.get("GRE")), fmt(by_class.get("TCP"))])
        header = ["platform", "GRE", "TCP"]
    else:
        rows.append(["wirespeed (sim, all frames)", fmt(rep["latency_cycles"]), ""])
        header = ["platform", "GRE", "TCP"]
    title = "Table 1 - latency of one packet (seed: measured end to end; ours: simulated)"
    note = ("  note: ours is the decap pipeline alone (first input beat to first output beat); "
            "the seed's microseconds also include MACs, PHYs, PCIe and cables.")
    return title + "\n" + grid(rows, header) + "\n" + note


def summary(rep: Mapping[str, Any]) -> str:
    """Counts per outcome and the headline numbers of any run."""
    r = rep
    lines = [f"wirespeed run: {_cfg_label(r)}",
             f"  frames in {r['packets_in']} ({r['bytes_in']} MAC bytes), out {r['packets_out']} "
             f"({r['bytes_out']} MAC bytes), counted drops {r['dropped']}, "
             f"loss (uncounted) {r['loss']}"]
    counted = [(n, o["packets"]) for n, o in r["outcomes"].items() if o["packets"]]
    if counted:
        lines.append("  outcomes: " + ", ".join(f"{n} {c}" for n, c in counted))
    if r["forwarded_malformed"]:
        lines.append(f"  forwarded malformed (policy): {r['forwarded_malformed']}")
    lat = r["latency_cycles"]
    if lat.get("count"):
        ns = r["latency_ns"]
        lines.append(f"  latency: min {lat['min']} / mean {lat['mean']:.2f} / max {lat['max']} "
                     f"cycles = {ns['min']:.1f} / {ns['mean']:.1f} / {ns['max']:.1f} ns")
    for key in ("latency_by_class", "latency_by_outcome"):
        for name, v in (r.get(key) or {}).items():
            lines.append(f"    {name}: {v['min']}..{v['max']} cycles, mean {v['mean']:.2f} "
                         f"({v['count']} frames)")
    frac = r["line_rate_fraction"]
    lines.append(f"  {r['mpps']:.2f} Mpps out over {r['rate_cycles']} cycles "
                 f"({r['elapsed_us']:.2f} us); offered {r['offered_gbps']:.2f} Gb/s"
                 + (f" = {frac:.4f} of line rate" if frac is not None else "")
                 + few_frames_note(r["packets_in"]))
    h = r.get("harness") or {}
    if h.get("wall_seconds"):
        skipped = h.get("idle_skipped_cycles")
        lines.append(f"  simulator: {h.get('cycles', 0)} cycles"
                     + (f" ({skipped} idle cycles skipped)" if skipped is not None else "")
                     + f" in {h['wall_seconds']:.2f} s wall, "
                     f"{h.get('sim_packets_per_second', 0):.0f} frames per wall second")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- measured clock

def measured_fmax(module: str, width: int, path: Path = SYNTH_JSON) -> tuple[float, bool] | None:
    """The clock `make synth` recorded for `module` at `width` bits on ECP5 (docs/bench/synth.json):
    (MHz, routed). routed is False where only the placer's estimate exists (the largest tops).
    None where the configuration was not measured, or its entry is marked stale (measured on
    older RTL)."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    for e in doc.get("results", []):
        if e.get("module") != module or e.get("width") != width or e.get("stale"):
            continue
        pnr = e.get("pnr") or {}
        if pnr.get("fmax_mhz"):
            return float(pnr["fmax_mhz"]), True
        if pnr.get("placed_fmax_mhz"):
            return float(pnr["placed_fmax_mhz"]), False
    return None


def clock_note(rep: Mapping[str, Any], in_lengths: Sequence[int], module: str,
               fmax: tuple[float, bool] | None) -> str:
    """What the run's throughput becomes at the clock the block was measured to reach.

    The tables above use the configured clock_mhz. The block takes one bus beat per cycle and
    never stalls its input (docs/performance.md, "Throughput"), so its capacity at `f` MHz is
    f / (mean beats per input frame) Mpps; that is set beside what this run offered."""
    width = rep["data_width"]
    clock = rep["clock_mhz"]
    head = f"clock: the tables above assume {clock:g} MHz (clock_mhz)."
    if fmax is None:
        return (f"{head} {module} at {width} bits has no current synthesis result: "
                f"`make synth SYNTH_ARGS='--modules {module} --widths {width}'` measures it.")
    mhz, routed = fmax
    how = "after place and route" if routed else "the placer's estimate, not routed"
    n = len(in_lengths)
    per_frame = sum(beats(ln, width // 8) for ln in in_lengths) / n if n else 0.0
    lines = [f"{head} On ECP5-85 speed 8, `make synth` measured {module} at {width} bits "
             f"at {'' if routed else '≈'}{mhz:.1f} MHz ({how}; docs/performance.md)."]
    if per_frame:
        cap = mhz / per_frame
        offered = rep["offered_mpps"]
        short = (": not line rate at that clock" if rep["line_rate_gbps"] else "")
        verdict = ("it keeps up" if cap >= offered else
                   f"{cap / offered:.2f} of what this run offers{short}")
        lines.append(f"  There its {per_frame:.2f} cycles per frame carry {cap:.2f} Mpps against "
                     f"{offered:.2f} Mpps offered here: {verdict}.")
    worst = rep["latency_cycles"].get("max")
    if worst is not None:
        lines.append(f"  Its latency of up to {worst} cycle{'' if worst == 1 else 's'} is "
                     f"{worst * 1000.0 / mhz:.1f} ns there.")
    return "\n".join(lines)

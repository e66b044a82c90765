"""Run the robustness table's pcap rows through the Verilator harnesses and compare, frame by
frame, with the golden model.

One harness run per (bus width, run): every row of a block and configuration goes into one
pcap, in table order; the harness's per-frame status CSV (`--stat-csv`, `--decap-stat-csv`,
`--encap-stat-csv`: index, outcome, emit, length, from the block's m_stat stream) says what the
RTL decided for each frame, so every mismatch is reported against its row.

Harnesses: ws_sim (gre_decap), ws_vtep (vtep_top), ws_geneve (geneve_decap: sim/harness.cpp
built on that top, `sim/build.sh W geneve`; its `--vni-csv` gives each whole output frame's
m_axis_tvni, checked against the model's VNI of every decapsulated frame).

Checked per frame: outcome code, emit (put on the output bus at all, aborted frames included)
and length; per run: the output pcap == the model's whole output frames in order (bytes), the
number of aborted frames, every outcome counter (packets and bytes, read by the harness over
AXI4-Lite at the end), the TX counters and the balance (frames in = Σ counters).
"""

from __future__ import annotations

import csv
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from wirespeed import pcap
from wirespeed import robustness as RB
from wirespeed.build import ensure_harness

# (run name) -> [(block, config, port)]; port = the harness input the block's frames go to.
RUNS = {
    "gre": [("gre_decap", "default", "in")],
    "vtep": [("vxlan_decap", "default", "net"), ("vxlan_encap", "default", "host")],
    "vtep_strict": [("vxlan_decap", "strict", "net")],
    "geneve": [("geneve_decap", "default", "in")],
    "geneve_vni": [("geneve_decap", "vni", "in")],
    "geneve_policy": [("geneve_decap", "policy", "in")],
}
# The one-port harnesses: run name prefix -> ensure_harness block (ws_sim, ws_geneve).
ONE_PORT = {"gre": "gre", "geneve": "geneve"}

# Traffic: back-to-back with random idle input cycles and output stalls (deterministic seed), so
# frames are close together and the neighbours of every bad frame are checked under pressure.
TRAFFIC = ["--line-rate-gbps", "0", "--idle-prob", "0.05", "--stall-prob", "0.1", "--seed", "5",
           "--max-idle-cycles", "20000"]


@dataclass
class Item:
    row: RB.Row
    frame: bytes
    result: object  # the model's Result


@dataclass
class Side:
    block: str
    config: str
    items: list[Item] = field(default_factory=list)


def side(block: str, cfg: str, width: int) -> Side:
    s = Side(block, cfg)
    for r in RB.rows(block, bus="pcap", cfg=cfg):
        for f in r.frames():
            s.items.append(Item(r, f, RB.model_result(r, f, False, width // 8)))
    return s


def _read_stat_csv(path: Path) -> list[tuple[int, int, int, int]]:
    with open(path, newline="") as fh:
        rd = csv.DictReader(fh)
        return [(int(x["index_in"]), int(x["outcome"]), int(x["emit"]), int(x["len"])) for x in rd]


@dataclass
class Diffs:
    """Differences of one run: per row id (frame statuses, output bytes) and for the run as a
    whole (counters, TX, balance, frame counts)."""

    rows: dict = field(default_factory=dict)
    run: list = field(default_factory=list)

    def row(self, rid: str, msg: str) -> None:
        self.rows.setdefault(rid, []).append(msg)

    def all(self) -> list[str]:
        return self.run + [m for ms in self.rows.values() for m in ms]


def compare(s: Side, stats, outputs: list[bytes], rep: dict, d: Diffs | None = None) -> Diffs:
    """Every difference between the RTL run of `s` and the model."""
    d = Diffs() if d is None else d
    names = RB.OUTCOMES[s.block]
    if len(stats) != len(s.items):
        d.run.append(f"{s.block}: {len(stats)} status lines for {len(s.items)} frames")
    for (idx, oc, emit, ln), it in zip(stats, s.items):
        r = it.result
        probs = []
        if oc != int(r.outcome):
            got = names(oc).name if oc < len(names) else str(oc)
            probs.append(f"outcome {got}, model {r.outcome.name}")
        if bool(emit) != bool(r.emit):
            probs.append(f"emit {emit}, model {int(r.emit)} (aborted={int(r.aborted)})")
        if ln != min(len(it.frame), 0xFFFF):
            probs.append(f"status length {ln} != {len(it.frame)}")
        if probs:
            d.row(it.row.id, f"{it.row.id} frame #{idx} ({len(it.frame)} B): " + "; ".join(probs))
    for it in s.items[len(stats):]:
        d.row(it.row.id, f"{it.row.id}: no status for a frame of {len(it.frame)} B")
    want_out = [(it.row.id, it.result.output) for it in s.items if it.result.output is not None]
    if len(outputs) != len(want_out):
        d.run.append(f"{s.block}: {len(outputs)} frames out whole, model {len(want_out)}")
    for k, (got, (rid, want)) in enumerate(zip(outputs, want_out)):
        if bytes(got) != bytes(want):
            at = next((j for j in range(min(len(got), len(want))) if got[j] != want[j]), min(len(got), len(want)))
            d.row(rid, f"{rid}: output frame {k}: {len(got)} B vs the model's {len(want)} B, first difference "
                       f"at byte {at}")
            break  # the frames after it may be shifted: the first difference is the one to read
    want_abort = sum(1 for it in s.items if it.result.aborted)
    if rep["aborted"] != want_abort:
        d.run.append(f"{s.block}: {rep['aborted']} aborted, model {want_abort}")
    pk, by = Counter(), Counter()
    for it in s.items:
        pk[it.result.outcome.name] += 1
        by[it.result.outcome.name] += len(it.frame)
    for name in names.__members__:
        got = rep["outcomes"][name]
        if got["packets"] != pk[name] or got["bytes"] != by[name]:
            rows_of = sorted({it.row.id for it in s.items if it.result.outcome.name == name})
            d.run.append(f"{s.block}: counter {name} = {got['packets']} pkts / {got['bytes']} B, model "
                         f"{pk[name]} / {by[name]} (rows {', '.join(rows_of) or '-'})")
    tx = [it.result.output for it in s.items if it.result.output is not None]
    if rep["tx_packets"] != len(tx) or rep["tx_bytes"] != sum(map(len, tx)):
        d.run.append(f"{s.block}: TX {rep['tx_packets']} / {rep['tx_bytes']} B, model {len(tx)} / "
                     f"{sum(map(len, tx))} B")
    if sum(v["packets"] for v in rep["outcomes"].values()) != len(s.items):
        d.run.append(f"{s.block}: BALANCE: Σ counters != {len(s.items)} frames in")
    if sum(v["bytes"] for v in rep["outcomes"].values()) != sum(len(it.frame) for it in s.items):
        d.run.append(f"{s.block}: BALANCE: Σ byte counters != bytes in")
    return d


def compare_vnis(s: Side, path: Path, d: Diffs) -> Diffs:
    """geneve_decap's m_axis_tvni side band (ws_geneve --vni-csv: output index, VNI of every
    whole output frame with m_axis_tvni_valid = 1) against the model: the decapsulated frames
    carry their VNI, PASS and PUNT frames none."""
    want = []
    k = 0
    for it in s.items:
        if it.result.output is None:
            continue
        if it.result.tvni_valid:
            want.append((k, it.result.vni, it.row.id))
        k += 1
    with open(path, newline="") as fh:
        got = [(int(x["index"]), int(x["vni"])) for x in csv.DictReader(fh)]
    if got != [(i, v) for i, v, _ in want]:
        p = next((j for j, (a, b) in enumerate(zip(got, want)) if a != b[:2]), min(len(got), len(want)))
        rid = want[p][2] if p < len(want) else "-"
        d.row(rid, f"{rid}: m_axis_tvni: {len(got)} frames with a VNI, model {len(want)}; first difference at "
                   f"entry {p}: {got[p] if p < len(got) else None} vs {want[p][:2] if p < len(want) else None}")
    return d


def run(run_name: str, width: int, work: Path) -> tuple[list[Side], Diffs]:
    """Run `run_name` at `width` in `work`; (the sides, every difference)."""
    import json

    sides = [side(b, c, width) for b, c, _ in RUNS[run_name]]
    writes: list[tuple[int, int]] = []
    for b, c, _ in RUNS[run_name]:
        writes += RB.regs_writes(b, c)
    regs = work / "regs.txt"
    regs.write_text("".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in writes))
    js = work / "report.json"
    one_port = ONE_PORT.get(run_name.split("_")[0])
    if one_port:
        binary = ensure_harness(width, verbose=False, block=one_port)
        pcap.write(work / "in.pcap", [it.frame for it in sides[0].items])
        cmd = [str(binary), "--in", str(work / "in.pcap"), "--out", str(work / "out.pcap"), "--json", str(js),
               "--regs", str(regs), "--stat-csv", str(work / "stat.csv"), *TRAFFIC]
        if one_port == "geneve":
            cmd += ["--vni-csv", str(work / "vni.csv")]
    else:
        binary = ensure_harness(width, verbose=False, block="vtep")
        cmd = [str(binary), "--json", str(js), "--regs", str(regs), *TRAFFIC]
        for s, (_, _, port) in zip(sides, RUNS[run_name]):
            pcap.write(work / f"{port}.pcap", [it.frame for it in s.items])
            d = "decap" if port == "net" else "encap"
            out = "host" if port == "net" else "net"
            cmd += [f"--{port}-in", str(work / f"{port}.pcap"), f"--{out}-out", str(work / f"{out}_out.pcap"),
                    f"--{d}-stat-csv", str(work / f"{d}_stat.csv")]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
    diffs = Diffs()
    if proc.returncode != 0:
        out = "\n".join(x for x in (proc.stdout.strip(), proc.stderr.strip()) if x)
        diffs.run.append(f"{binary.name} exit {proc.returncode}: {out[:3000]}")
        return sides, diffs
    rep = json.loads(js.read_text())
    if one_port:
        outs = pcap.read_ethernet(work / "out.pcap")
        compare(sides[0], _read_stat_csv(work / "stat.csv"), outs, rep, diffs)
        if one_port == "geneve":
            compare_vnis(sides[0], work / "vni.csv", diffs)
    else:
        for s, (_, _, port) in zip(sides, RUNS[run_name]):
            d = "decap" if port == "net" else "encap"
            out = "host" if port == "net" else "net"
            compare(s, _read_stat_csv(work / f"{d}_stat.csv"), pcap.read_ethernet(work / f"{out}_out.pcap"),
                    rep[d], diffs)
    return sides, diffs

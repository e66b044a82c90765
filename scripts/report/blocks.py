"""The datapath blocks that the synthesis and bench scripts measure, and their RTL files.

Shared by scripts/synth/run.py and scripts/report/bench.py so both use the same parameters
(e.g. axis_splice standalone is built with the buffer depth gre_decap gives it).
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RTL = ROOT / "rtl"
WIDTHS = (64, 128, 256, 512)

# Datapath modules, in the order the report lists them. gre_decap_avst is used only when its
# source exists (the Avalon-ST shell).
MODULES = ("axis_skid", "gre_classify", "gre_classify_pipe", "axis_splice", "gre_decap",
           "gre_decap_pipe", "gre_decap_avst", "axis_frame_fifo", "hash_table",
           "vxlan_classify", "encap_classify", "vxlan_decap", "vxlan_encap", "vtep_top")

# What a variant's extra stages cost, in cycles (gre_classify.sv "Pipelining"; asserted for
# gre_decap by tb/gre_decap/test_gre_decap_cycles.py).
VARIANT_LATENCY = {
    "gre_classify_pipe": "decision +4, frame-end verdict +7 cycles",
    "gre_decap_pipe": "first output beat +4, last beat of a frame +7 cycles (at most)",
}

# Blocks without a bus width: built once (reported at 256 bits).
WIDTH_INDEPENDENT = frozenset({"hash_table"})

# Blocks that are another parameter set of an RTL module: name -> (module, extra parameters).
# The *_pipe builds cut gre_classify's decision chain at all four points (PIPE_CUTS = 4'b1111,
# four cycles more latency; see gre_classify.sv).
VARIANTS: dict[str, tuple[str, dict[str, int]]] = {
    "gre_classify_pipe": ("gre_classify", {"PIPE_CUTS": 15}),
    "gre_decap_pipe": ("gre_decap", {"CLASSIFY_PIPE": 15}),
}

DESCRIPTIONS = {
    "axis_skid": "AXI4-Stream register slice",
    "gre_classify": "header parser / decision (observes the stream)",
    "axis_splice": "byte-shifting edit engine (strip, cut, patch)",
    "gre_decap": "GRE decap top: classify + splice + CSR (AXI4-Stream)",
    "gre_decap_avst": "gre_decap in the Avalon-ST shell (N3000-style)",
    "gre_classify_pipe": "gre_classify with its decision chain cut in 4 stages (+4 cycles)",
    "gre_decap_pipe": "gre_decap with the 4-stage classifier (+4 cycles)",
    "axis_frame_fifo": "store-and-forward frame FIFO (vxlan_encap's, 32 KiB)",
    "hash_table": "2-bank x 4-way hash table (vxlan_encap's tunnel table, 32K slots)",
    "vxlan_classify": "VXLAN header parser / decision (VNI lookup pipeline)",
    "encap_classify": "VXLAN encap decision: tunnel lookup, outer header build",
    "vxlan_decap": "VXLAN decap: classify + VNI table + splice + CSR",
    "vxlan_encap": "VXLAN encap: FIFO + classify + tunnel table + splice + CSR",
    "vtep_top": "VXLAN VTEP top: decap + encap + one AXI-Lite space",
}


def rtl_module(block: str) -> str:
    """The RTL module a block name builds (a variant's module, or the name itself)."""
    return VARIANTS[block][0] if block in VARIANTS else block

HDR_BYTES = 128   # gre_decap's header window (gre_decap.sv)


def clog2(x: int) -> int:
    return math.ceil(math.log2(x)) if x > 1 else 0


def splice_buf_beats(width: int) -> int:
    """BUF_BEATS (= FRAMES) with which gre_decap instantiates axis_splice (gre_decap.sv)."""
    return 1 << clog2(HDR_BYTES // (width // 8) + 4)


def module_params(module: str, width: int) -> dict[str, int]:
    if module in VARIANTS:
        base, extra = VARIANTS[module]
        return {**module_params(base, width), **extra}
    if module == "axis_frame_fifo":
        # As vxlan_encap instantiates it (FIFO_BYTES = 32768).
        return {"DATA_W": width, "DEPTH": 32768 // (width // 8)}
    if module == "hash_table":
        # Not bus-width dependent: the same table at every width (vxlan_encap's tunnels).
        return {}
    if module == "axis_splice":
        b = splice_buf_beats(width)
        # As gre_decap.sv instantiates it (tb/report checks the literal ones still match).
        return {"DATA_W": width, "BUF_BEATS": b, "FRAMES": b, "INS_MAX": 1, "PATCHES": 6,
                "LEN_W": 17, "META_W": 1, "LATE_EOF": 0}
    return {"DATA_W": width}


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def rtl_index(rtl: Path = RTL) -> tuple[dict[str, Path], dict[str, Path]]:
    """(module name -> file, package name -> file) over rtl/**/*.sv."""
    mods: dict[str, Path] = {}
    pkgs: dict[str, Path] = {}
    for f in sorted(rtl.rglob("*.sv")):
        t = strip_comments(f.read_text(errors="replace"))
        for m in re.finditer(r"^\s*module\s+(\w+)", t, flags=re.M):
            mods[m.group(1)] = f
        for m in re.finditer(r"^\s*package\s+(\w+)", t, flags=re.M):
            pkgs[m.group(1)] = f
    return mods, pkgs


def available(rtl: Path = RTL) -> list[str]:
    mods, _ = rtl_index(rtl)
    return [m for m in MODULES if rtl_module(m) in mods]


def dependencies(top: str, rtl: Path = RTL) -> list[Path]:
    """Source files of ``top`` and everything it instantiates or imports, packages first."""
    mods, pkgs = rtl_index(rtl)
    if top not in mods:
        raise KeyError(f"module {top} is not declared in any {rtl}/**/*.sv")
    seen: set[Path] = set()
    todo = [mods[top]]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        t = strip_comments(f.read_text(errors="replace"))
        for name, g in mods.items():
            if g not in seen and re.search(rf"(?<![\w$.]){re.escape(name)}\s*(#|\w+\s*\()", t):
                todo.append(g)
        for name, g in pkgs.items():
            if g not in seen and re.search(rf"\b{re.escape(name)}\s*::", t):
                todo.append(g)
    files = sorted(seen)
    pk = order_packages([f for f in files if f in pkgs.values()], pkgs)
    return pk + [f for f in files if f not in pk]


def order_packages(files: list[Path], pkgs: dict[str, Path]) -> list[Path]:
    """Package files so that a package comes after the packages it references (X::)."""
    uses: dict[Path, set[Path]] = {}
    for f in files:
        t = strip_comments(f.read_text(errors="replace"))
        uses[f] = {g for n, g in pkgs.items()
                   if g != f and g in files and re.search(rf"\b{re.escape(n)}\s*::", t)}
    out: list[Path] = []
    while len(out) < len(files):
        ready = [f for f in files if f not in out and uses[f] <= set(out)]
        if not ready:                       # a cycle: keep the remaining order
            ready = [f for f in files if f not in out]
        out.append(ready[0])
    return out


def file_dependencies(f: Path, rtl: Path = RTL) -> list[Path]:
    """The packages ``f`` references (transitively, in order) and then ``f`` itself."""
    _, pkgs = rtl_index(rtl)
    need: list[Path] = []
    todo = [f]
    while todo:
        g = todo.pop()
        t = strip_comments(g.read_text(errors="replace"))
        for n, p in pkgs.items():
            if p != g and p not in need and re.search(rf"\b{re.escape(n)}\s*::", t):
                need.append(p)
                todo.append(p)
    return order_packages(need, pkgs) + [f]


def files_hash(files: list[Path], root: Path = ROOT) -> str:
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]

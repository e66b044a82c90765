"""The datapath blocks that the synthesis and bench scripts measure, and their RTL files.

Shared by scripts/synth/run.py and scripts/report/bench.py so both use the same parameters
(e.g. axis_edit standalone is built with the parameters the decap shell gives it).
"""

from __future__ import annotations

import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The wirespeed package of this checkout, whatever the venv's editable install points at: run
# as scripts, these files have scripts/*/ on sys.path, not the checkout, and bench.py and
# make_report.py import wirespeed after this file.
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
import wirespeed  # noqa: E402
if not Path(wirespeed.__file__).resolve().is_relative_to(ROOT):
    raise ImportError(f"wirespeed was imported from {wirespeed.__file__}, not from this "
                      f"checkout ({ROOT}): import scripts/report/blocks.py before anything "
                      "that imports wirespeed")
RTL = ROOT / "rtl"
WIDTHS = (64, 128, 256, 512)

# Datapath modules, in the order the report lists them. gre_decap_avst is used only when its
# source exists (the Avalon-ST shell).
MODULES = ("axis_skid", "axis_keep_check", "axis_frame_meter", "ip_front", "gre_classify",
           "axis_edit", "allow_list", "block_csr", "gre_decap", "avst_to_axis", "axis_to_avst",
           "gre_decap_avst", "axis_frame_fifo", "hash_table", "hash_table_4k",
           "hash_table_vni", "vxlan_decap", "geneve_decap", "vxlan_encap", "vtep_top",
           "rss_hash", "ts_clock", "axis_timestamp", "dma_ring_writer", "capture_top", "pkt_gen",
           "pkt_chk")

# The tops the goals name (every one of them and every datapath module is held to the
# clock goals; these also have area goals, see AREA_GOALS_LUT4).
TOPS = ("gre_decap", "gre_decap_avst", "vxlan_decap", "vxlan_encap", "vtep_top")

# What a variant's extra stages cost, in cycles.
VARIANT_LATENCY = {
    "hash_table_vni": "lookup 5 cycles, 2 fewer (asserted by tb/hash_table)",
}

# The goals of issue 27, on LFE5UM-85F speed 8, routed (a placement estimate does not count):
# every datapath module and top at these clocks; the tops' area at 256 bits (LUT4, block RAM
# not counted); the seed's 88-byte GRE frame through gre_decap at 256 bits.
CLOCK_GOALS_MHZ = {256: 165.0, 512: 160.0}
AREA_GOALS_LUT4 = {"gre_decap": 10_000, "vxlan_decap": 10_000, "vtep_top": 25_000}
LATENCY_GOAL_CYCLES = 12
LATENCY_GOAL_NS = 75.0
# Simulation speed: the default scenario's simulated frames per wall second at least this
# many times the RTL issue 27 was filed against (98f596d, the last commit before its rework:
# the 14-16 MHz tops, ~0.11 M frames/s), both measured in one `wirespeed bench --baseline` run.
SIM_SPEED_GOAL_X = 4.0
SIM_SPEED_BASELINE = "98f596d"

# The anchor: Alex Forencich's eth_axis_rx (verilog-ethernet), a fixed-offset header strip,
# routed on the same flow (out of context, every port registered, --freq 250, seed 1). Figures
# as issue 27 states them: width -> (fmax MHz, LUT4).
ANCHOR = "eth_axis_rx"
ANCHOR_FIGURES = {256: (169.0, 800), 512: (162.0, 1500)}

# Blocks without a bus width: built once (reported at 256 bits).
WIDTH_INDEPENDENT = frozenset({"hash_table", "hash_table_4k", "hash_table_vni",
                               "allow_list", "block_csr", "gre_classify", "rss_hash",
                               "ts_clock"})

# Builds measured at fewer widths than every module. gre_decap_avst is gre_decap between
# avst_to_axis and axis_to_avst, each of which has its own row at every width: the whole
# shell is built at the N3000's 256 bits.
BUILD_WIDTHS: dict[str, tuple[int, ...]] = {
    "gre_decap_avst": (256,),
    # the whole capture port, at the widths of the clock goals (its parts have rows of their own)
    "capture_top": (256, 512),
    # the in-FPGA generator and checker of the capture demo, at the widths of the clock goals
    "pkt_gen": (256, 512),
    "pkt_chk": (256, 512),
}


def widths_of(block: str) -> tuple[int, ...]:
    """The bus widths a block is synthesized at (width-independent ones: once, as 256)."""
    if block in WIDTH_INDEPENDENT:
        return (256,)
    return BUILD_WIDTHS.get(block, WIDTHS)

# The VXLAN tunnel table that vxlan_encap and vtep_top are placed and routed with. Their default
# (TUNNEL_SLOTS = 32768: 16K tunnels at 50 % load) needs 928 DP16KD block RAMs and the
# LFE5UM-85F has 208, so they are built (ECP5 and UltraScale+ alike) with the largest power of
# two that fits beside the VNI table and the frame FIFO (4096 slots: 116 DP16KD); the
# `hash_table` row gives the default table's own cost (on UltraScale+ it fits in URAM).
ECP5_TUNNEL_SLOTS = 4096

# Blocks that are another parameter set of an RTL module: name -> (module, extra parameters).
# Every top has one build (issue 27: the tunnel blocks are pipelined by construction).
VARIANTS: dict[str, tuple[str, dict[str, int]]] = {
    # the tunnel table as vxlan_encap and vtep_top build it here
    "hash_table_4k": ("hash_table", {"SLOTS": ECP5_TUNNEL_SLOTS}),
    # the VNI table as vxlan_decap and geneve_decap build it
    "hash_table_vni": ("hash_table", {"KEY_W": 24, "VALUE_W": 13, "SLOTS": 8192,
                                      "LOOKUP_LATENCY": 5, "SDP_MEM": 0}),
}

DESCRIPTIONS = {
    "axis_skid": "AXI4-Stream register slice",
    "axis_keep_check": "tkeep contract check at each top's input (marks bad frames)",
    "axis_frame_meter": "frame and byte counter of a stream (the tops' counters)",
    "ip_front": "shared header front end: the first 128 bytes captured by beat position, "
                "Ethernet and the outer IP header parsed in registered stages into a tap",
    "gre_classify": "GRE classifier: five registered stages (G0-G4) from the front end's tap to one "
                    "descriptor per frame (no bus width)",
    "axis_edit": "pipelined edit engine (plan and datapath split, shift in registered stages, "
                 "delay FIFO), as gre_decap instantiates it",
    "allow_list": "gre_decap's allow list of outer addresses (AXI-Lite programmed)",
    "block_csr": "a block's CSR window (ID, CONTROL, 64-bit outcome and TX counters), as "
                 "gre_decap instantiates it (14 outcomes, no bus width)",
    "gre_decap": "GRE decap top: keep check + ip_front + gre_classify + descriptor queue + "
                 "axis_edit + CSRs (AXI4-Stream)",
    "avst_to_axis": "Avalon-ST to AXI4-Stream adapter (the shell's input)",
    "axis_to_avst": "AXI4-Stream to Avalon-ST adapter (the shell's output)",
    "gre_decap_avst": "gre_decap in the Avalon-ST shell (N3000-style)",
    "axis_frame_fifo": "store-and-forward frame FIFO (vxlan_encap's, 32 KiB)",
    "hash_table": "2-bank x 4-way hash table (vxlan_encap's tunnel table, 32K slots, lookup "
                  "in 7 cycles)",
    "hash_table_4k": "the same table with 4096 slots, as vxlan_encap and vtep_top are built "
                     "here",
    "hash_table_vni": "the VNI table as vxlan_decap and geneve_decap build it (8192 slots, "
                      "24-bit key, lookup in 5 cycles)",
    "vxlan_decap": "VXLAN decap top: the decap shell (keep check + ip_front + descriptor "
                   "queue + axis_edit + CSRs) + vxlan_decap_classify + VNI table (8192 slots)",
    "geneve_decap": "Geneve decap top: the decap shell + geneve_decap_classify (inner window "
                    "keyed on K, up to byte 375) + VNI table (8192 slots)",
    "vxlan_encap": "VXLAN encap: frame FIFO + vxlan_encap_classify + tunnel table (lookup 4 "
                   "cycles) + axis_edit + CSR (built with 4096 tunnel slots)",
    "vtep_top": "VXLAN VTEP top: decap + encap + one AXI-Lite space (built with 4096 tunnel "
                "slots)",
    "rss_hash": "RSS: Toeplitz hash of a parsed tuple (36 per-byte contribution tables in "
                "block RAM), hash type and indirection table (128 entries), 10 cycles (no "
                "bus width)",
    "ts_clock": "64.32-bit nanosecond clock (fractional increment, set/adjust, PPS latch) "
                "with its AXI4-Lite registers (no bus width)",
    "axis_timestamp": "stamps each frame at its first beat (register slice + 64-bit sideband)",
    "dma_ring_writer": "packed DMA of frames into per-queue host rings over an AXI4 write "
                       "master (16 queues, store-and-forward frame buffer)",
    "capture_top": "one capture port: stamps, RSS parse and hash, delay line and the DMA ring "
                   "writer (16 queues) behind one AXI4-Lite space",
    "pkt_gen": "traffic generator: Ethernet/IPv4/UDP frames of a length range, flows, a rate "
               "(token bucket), sequence number and timestamp in the payload",
    "pkt_chk": "traffic checker: counts, sequence gaps and latency from the embedded "
               "timestamps",
}


def rtl_module(block: str) -> str:
    """The RTL module a block name builds (a variant's module, or the name itself)."""
    return VARIANTS[block][0] if block in VARIANTS else block

# axis_edit as the decap shell instantiates it (its parameters HEAD_BYTES, LEN_W, META_W 4,
# FIFO_BEATS, 64 at 64 bits and 32 above, and IN_SLACK 1 at 512 bits, where the keep check in
# front is a register; tb/report checks that they still match decap_shell.sv).
def edit_params(width: int) -> dict[str, int]:
    return {"HEAD_BYTES": 40, "LEN_W": 17, "META_W": 4, "FIFO_BEATS": 64 if width == 64 else 32,
            "IN_SLACK": 1 if width >= 512 else 0}



def module_params(module: str, width: int) -> dict[str, int]:
    if module in VARIANTS:
        base, extra = VARIANTS[module]
        return {**module_params(base, width), **extra}
    if module == "axis_frame_fifo":
        # As vxlan_encap instantiates it (FIFO_BYTES = 32768).
        return {"DATA_W": width, "DEPTH": 32768 // (width // 8)}
    if module == "block_csr":
        # As gre_decap instantiates it (NUM_OUTCOMES: its 14 outcome codes; CONTROL only).
        return {"NUM_OUTCOMES": 14}
    if module == "allow_list":
        # As gre_decap instantiates it: the block-RAM words registered before the match.
        return {"LOOKUP_LATENCY": 4}
    if module == "hash_table":
        # As vxlan_encap instantiates its tunnel table (its default size; simple dual-port).
        return {"LOOKUP_LATENCY": 7, "SDP_MEM": 1}
    if module in ("gre_classify", "rss_hash", "ts_clock"):
        # Not bus-width dependent: the same block at every width, with its defaults as the
        # tops instantiate it (gre_decap's classifier, which reads the front end's tap; the
        # capture port's RSS hash and clock).
        return {}
    if module == "axis_frame_meter":
        return {"KEEP_W": width // 8}
    if module in ("vxlan_encap", "vtep_top"):
        return {"DATA_W": width, "TUNNEL_SLOTS": ECP5_TUNNEL_SLOTS}
    if module == "axis_edit":
        return {"DATA_W": width, **edit_params(width)}
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


# What limits each module that falls short of the clock goals, and the next cut: one or two
# sentences, shown beside the module's critical path in docs/performance.md. The path itself,
# and every figure, comes from the synthesis run; measurement history is in git log.
UNROUTED = ("Placed, not routed: router1 does not converge in a session here (the tables' and "
            "the frame FIFO's block RAMs crowd the routing), so nextpnr names no path.")
TIMING_NOTES: dict[str, str] = {
    "axis_edit": (
        "Meets the goal at 256 and 512 bits. Next: 64 and 128 bits, not routed (the tops build "
        "256 and 512)."),
    "gre_decap": (
        "At 512 bits the edit engine's checksum tree: a first-level input register "
        "(`g_tree[0].sum_in`) sits 3.6 ns of wire from the adders it feeds, placed with the "
        "data it sums. Next: the tree's inputs registered again beside its adders (the "
        "verdict has cycles to spare at 512 bits)."),
    "gre_decap_avst": (
        "The shell's start count: `start_ok_q` into the ready it hands the Avalon-ST adapter's "
        "slice (one LUT placed among the slice's copies, 2.2 ns away), and back through the "
        "input handshake into its own next value (1.9 ns). Next: the shell's own handshake from "
        "a LUT kept beside the count, apart from the ready that crosses the die."),
    "vxlan_decap": (
        "At 256 bits the VNI table's way compare (`way_ok_q`) through four LUTs into the "
        "classifier's `rs_value`; at 512 bits the table's AXI4-Lite write handshake "
        "(`bwait_q` to `awready`, through the command queue back to its own reset), 4.6 ns of "
        "wire between the interface and the command engine. Next: the way hit registered "
        "one-hot before the classifier's select, and `awready` from a register."),
    "geneve_decap": (
        "At 256 bits the VNI table's way compare into `rs_value` (seeds 1 and 3) or J3's "
        "select into the set/reset of the descriptor's head enables (seed 2); at 512 bits the "
        "classifier's wide tap FIFO, whose per-slice load logic takes `j1_valid_q` across the "
        "die (7 ns of wire in three hops). Next: the way hit registered before the select, the "
        "head enables loaded every cycle as vxlan_decap's V5, and kept copies of the push "
        "valid per slice of the tap FIFO."),
    "vxlan_encap": (
        "The edit engine's plan load: `p_fok_q` through the plan FIFO's pop (`pl_ne_q`) into "
        "the load enables of the plan counters (`p_rpos_q`, `p_rem_q`), 2.1 ns of wire between "
        "them. Next: the plan counters' enable from kept copies beside them, as the descriptor "
        "queue's ready."),
    "vtep_top": (
        "Placed, not routed: router1 does not converge in a session here (the tables' and the "
        "frame FIFO's block RAMs crowd the routing), so nextpnr names no path. Next: a route "
        "with a longer limit; it is as fast as its slower direction."),
    "dma_ring_writer": (
        "The mover's stage M: the beat's go flags (`m_v_c`, `m_free_c`) through the offset "
        "adder into `m_mask_q` and `m_off_q`, 5 ns of wire across the die. Next: the offset "
        "and mask formed from registers a cycle ahead, selected by the go decision beside "
        "their registers."),
    "pkt_gen": (
        "At 256 bits the header FIFO's take (`u_h.out_valid_q` through the start decision, "
        "with `m_axis_tready`) into its output slices' enables, five LUTs. Next: the next "
        "header staged in a register, taken while the sender is busy."),
}

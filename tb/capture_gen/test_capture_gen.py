"""capture_gen_top (rtl/host/capture_gen_top.sv) through ws_capture_gen: pkt_gen looped back into
capture_top on each port, over the PCIe and host model (docs/host.md, "Generator and checker in
front of the capture"); and in cocotb at 64 bits (capture_gen_tb.py: registers, a cable loop,
the select under load).

Every captured frame is compared byte for byte with the frame pkt_gen's documented format gives
for its sequence number (rtl/host/pkt_gen.sv's header comment, built here with ``struct``, the
IPv4 checksum computed the textbook way), every sequence number is captured exactly once, and
the stamps are cycle-exact: the payload's send time of frame 0 is one cycle before the
generator's first handshake (GEN_T_FIRST), the checker's latency is 2 cycles for every frame
(the generator's output register and the select's), and every record's ts_clock stamp is that
send time + 2 cycles in nanoseconds (record ns - send cycle x the ns increment constant within
the floor's 1 ns).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

from wirespeed import capture_seed, pcap
from wirespeed.capture import GenRun, run_gen_ports
from wirespeed.capture_config import CaptureConfig
from tb.capture_gen.gen_model import gen_frame
from wirespeed.regmap import CAPTURE_GEN_LATENCY

CLOCK_MHZ = 322.265625
# ts_clock's increment as the harness sets it: round(1000 / f x 2^32) / 2^32 ns a cycle
INC_NS = round(1000.0 / CLOCK_MHZ * 2**32) / 2**32


def check_port(out_dir: Path, rep: dict[str, Any], length: int, count: int, flows: int,
               width: int, gbps: float) -> None:
    g, c = rep["generator"], rep["checker"]
    # nothing lost at the rate, every frame accounted for
    assert g["frames"] == count and g["bytes"] == count * length
    assert rep["captured"] == count and rep["dropped"] == 0
    assert rep["captured"] + rep["dropped"] == g["frames"] == rep["counters"]["frames_in"]
    assert rep["balanced"] == 1
    # the checker saw every frame that entered the capture, in order, 2 cycles after it left
    assert (c["frames"], c["bytes"], c["others"], c["gaps"], c["late"]) == \
        (count, count * length, 0, 0, 0)
    assert c["latency_min_cycles"] == c["latency_max_cycles"] == CAPTURE_GEN_LATENCY == 2
    assert c["latency_sum_cycles"] == 2 * count
    # the offered rate: the bucket's figure on the wire; over a short run slightly more (its
    # 256 bytes saved at the start, and the span ends with the last frame's last beat)
    fig = capture_seed.port_figures(rep)
    assert gbps * 0.999 < fig["offered_gbps"] < gbps * (1 + 4 / count), fig
    assert fig["loss"] == 0
    # RSS spreads the flows over the port's queues
    assert rep["rss_spread"]["imbalance"] < 1.3, rep["rss_spread"]
    # every record: the frame pkt_gen's format gives, each sequence number once, in order per
    # queue; the stamps cycle-exact
    seen: dict[int, int] = {}
    offsets = []
    for q in rep["queue"].values():
        if not q["frames"]:
            continue
        got = pcap.read(out_dir / q["file"])
        seqs = []
        for r in got.records:
            f = r.data
            seq, ts = struct.unpack_from("!QQ", f, 42)
            assert f == gen_frame(seq, length, flows, ts), (q["file"], seq)
            assert seq not in seen, seq
            seen[seq] = ts
            seqs.append(seq)
            offsets.append(r.ts_sec * 10**9 + r.ts_frac - ts * INC_NS)
        assert seqs == sorted(seqs), q["file"]
        assert len(got.records) == q["frames"]
    assert sorted(seen) == list(range(count))
    beats = -(-length // (width // 8))
    assert seen[0] + 1 == g["t_first"]                  # registered at t, taken at t + 1
    assert seen[count - 1] + beats == g["t_last"]       # its last beat, back to back
    times = [seen[s] for s in range(count)]
    assert all(b - a >= beats for a, b in zip(times, times[1:]))
    # ts_clock's ns at the capture's first-beat cycle (send cycle + 2), floored: one constant
    assert max(offsets) - min(offsets) < 1.0 + 1e-6, (min(offsets), max(offsets))


@pytest.mark.parametrize("wire", [64, 1518])
def test_loopback_512_line_rate(tmp_path: Path, wire: int) -> None:
    """Both ports at 512 bits, 2000 frames of one length at 100 Gbit/s each, 8 queues a port."""
    length, count, flows = wire - 4, 2000, 256
    cfg = CaptureConfig(data_width=512, queues=16, clock_mhz=CLOCK_MHZ, line_rate_gbps=100.0)
    run = run_gen_ports(GenRun(length, length, count, flows), tmp_path / "out", cfg,
                        verbose=False)
    reps = run.report["ports"]
    assert len(reps) == 2 and run.report["balanced"] == 1
    for p, rep in enumerate(reps):
        assert rep["queue_base"] == 8 * p and rep["queues"] == 8
        assert abs(rep["generator"]["rate_gbps"] - 100.0) < 1e-4
        check_port(tmp_path / "out", rep, length, count, flows, 512, 100.0)


def test_select_and_registers_cocotb() -> None:
    """capture_gen_top in cocotb at 64 bits (tb/capture_gen/capture_gen_tb.py): the register
    map, the generator through an external cable loop (latency = the cable + 2 cycles), and the
    select flipped under load from both sources (no frame cut or spliced, every frame counted)."""
    from tb.common.runner import run_cocotb

    run_cocotb(
        toplevel="capture_gen_top",
        test_module="capture_gen_tb",
        test_dir=Path(__file__).resolve().parent,
        parameters={"DATA_W": 64, "QUEUES": 2, "RSS_ENTRIES": 16, "BUF_BYTES": 4096, "FRAMES": 16},
    )


def test_capture_seed_rtl_gen(tmp_path: Path) -> None:
    """`wirespeed run --scenario capture-seed --rtl-gen` (small): every length on both ports'
    RTL generators at 100G, the table and the checker's figures printed, IMIX left out with a
    note; per port sent = captured + drops, the checker's count = sent, no gap, 2 cycles."""
    import json
    import subprocess
    import sys

    from wirespeed.paths import ROOT

    rep_path = tmp_path / "seed.json"
    proc = subprocess.run([sys.executable, "-m", "wirespeed.cli", "run", "--scenario",
                           "capture-seed", "--rtl-gen", "--frames", "600", "--quiet", "--report",
                           str(rep_path)], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    assert "no loss at any length" in proc.stdout
    assert "the RTL generator and checker" in proc.stdout and "imix: not run" in proc.stdout
    res = json.loads(rep_path.read_text())
    assert res["generator"] == "pkt_gen (RTL)" and "imix" in res["skipped"]
    assert [row["length"] for row in res["rows"]] == list(capture_seed.LENGTHS)
    for row in res["rows"]:
        assert row["total"]["loss"] == 0 and row["total"]["balanced"] == 1
        for p in row["ports"]:
            assert p["frames"] == 600 and 99.9 < p["offered_gbps"] < 101.0
        assert len(row["checker"]) == 2
        for c in row["checker"]:
            assert c["accounted"] and c["sent"] == c["captured"] + c["dropped"] == 600
            assert (c["chk_frames"], c["gaps"], c["late"]) == (600, 0, 0)
            assert c["latency_min_cycles"] == c["latency_max_cycles"] == CAPTURE_GEN_LATENCY

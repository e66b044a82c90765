"""`wirespeed bench` (what `make bench` runs), on a few frames: it writes its JSON."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_util import run_ok
from wirespeed.model import frames as F
from wirespeed.model.gre import gre_decap, latency_cycles


def test_bench_smoke(tmp_path: Path) -> None:
    out = tmp_path / "bench" / "sim_speed.json"
    proc = run_ok(["bench", "--frames", "1000", "--widths", "256", "--output", out, "-q"])
    doc = json.loads(out.read_text())
    r = doc["widths"]["256"]
    assert doc["frames"] == 1000 and r["frames"] == 1000
    assert r["sim_packets_per_second"] > 0 and r["wall_seconds"] > 0
    # Back-to-back 88-byte frames on a 256-bit bus: 3 beats each at 250 MHz, over a span that
    # ends with the last frame's latency.
    span_cycles = 1000 * 3 + latency_cycles(gre_decap(F.seed_gre_frame(0)), 32)
    assert abs(r["mpps_at_clock"] - 1000 * 250 / span_cycles) < 0.05
    assert "256 bit" in proc.stdout

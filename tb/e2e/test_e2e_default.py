"""`wirespeed run` with the built-in default scenario (the seed's Table 2), small frame counts.

Cycle counts are deterministic, so latencies are asserted exactly, as the contract gives them
(docs/gre_decap.md, "Performance contract"; wirespeed.model.gre.latency_cycles): the beat that
completes the 128-byte window (an 88-byte frame's last beat), the decision, the edit engine and
its slot. At 256 bits a seed GRE frame and a plain TCP frame take the same; at 64 bits the GRE
frame skips 24 bytes, three input beats, that the TCP frame keeps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from e2e_util import run_ok
from wirespeed import pcap
from wirespeed.model import frames as F
from wirespeed.model.gre import gre_decap, latency_cycles

SEED_RATIO = 0.8695652174
CLOCK_MHZ = 250.0


def contract_latency(frame: bytes, width: int) -> int:
    return latency_cycles(gre_decap(frame), width // 8)


GRE_256 = contract_latency(F.seed_gre_frame(0), 256)
TCP_256 = contract_latency(F.seed_tcp_frame(0), 256)


def _default(tmp_path: Path, *extra: str) -> tuple[dict, str]:
    proc = run_ok(["run", "--frames", "2000", "--workdir", tmp_path, *extra])
    return json.loads((tmp_path / "report.json").read_text()), proc.stdout


def test_default_scenario_at_line_rate(tmp_path: Path) -> None:
    rep, out = _default(tmp_path, "--check")
    assert rep["packets_in"] == rep["packets_out"] == 2000 and rep["loss"] == 0
    assert sum(rep["drops"].values()) == 0 and rep["aborted"] == 0
    assert rep["outcomes"]["DECAP_L3"]["packets"] == rep["outcomes"]["PASS"]["packets"] == 1000
    assert rep["bytes_in"] == 2000 * 92 and rep["bytes_out"] == 1000 * (68 + 92)
    assert round(rep["bytes_out"] / rep["bytes_in"], 10) == SEED_RATIO == rep["rx_tx_byte_ratio"]
    assert rep["model_check"]["ok"]
    # Latency, exactly as the contract gives it.
    assert rep["latency_by_class"]["GRE"] == {"min": GRE_256, "max": GRE_256, "mean": GRE_256,
                                              "count": 1000}
    assert rep["latency_by_class"]["TCP"] == {"min": TCP_256, "max": TCP_256, "mean": TCP_256,
                                              "count": 1000}
    assert rep["latency_ns"]["max"] == GRE_256 * 1000 / CLOCK_MHZ
    # 10 GbE pacing: a 92-byte frame takes 112 bytes of wire time = 22.4 cycles at 250 MHz.
    assert rep["data_width"] == 256 and rep["clock_mhz"] == CLOCK_MHZ
    assert rep["mpps"] == pytest.approx(250 / 22.4, rel=2e-3)
    assert rep["line_rate_fraction"] == pytest.approx(1.0, abs=2e-3)
    assert rep["harness"]["in_stall_cycles"] == 0 and rep["harness"]["out_stall_cycles"] == 0
    # The printed tables.
    assert "Table 2" in out and "Table 1" in out and "0.8695652174" in out
    assert "3.18 us" in out and "9.52 us" in out and "2.29 us" in out
    assert f"{GRE_256} cycles = {GRE_256 * 1000 / CLOCK_MHZ:.1f} ns" in out
    assert "MACs, PHYs, PCIe" in out
    # ... and what they become at the clock synthesis measured (or how to measure it)
    assert "clock: the tables above assume 250 MHz" in out and "gre_decap at 256 bits" in out
    assert len(pcap.read_ethernet(tmp_path / "out.pcap")) == 2000


def test_default_scenario_back_to_back(tmp_path: Path) -> None:
    rep, _ = _default(tmp_path, "--line-rate-gbps", "0")
    assert rep["loss"] == 0 and rep["line_rate_fraction"] is None
    # 88 bytes = 3 beats of 32: one frame every 3 cycles, and tready never falls. The run's
    # span is the 6,000 input cycles and the last frame's latency.
    assert rep["harness"]["ready_low_cycles"] == 0
    span_us = (2000 * 3 + GRE_256) / CLOCK_MHZ
    assert rep["offered_mpps"] == pytest.approx(2000 / span_us, rel=2e-4)
    assert rep["mpps"] == pytest.approx(2000 / span_us, rel=2e-4)
    assert rep["latency_by_class"]["GRE"]["max"] == GRE_256


def test_default_scenario_at_64_bits(tmp_path: Path) -> None:
    rep, _ = _default(tmp_path, "--width", "64", "--line-rate-gbps", "0")
    assert rep["data_width"] == 64 and rep["loss"] == 0
    assert rep["rx_tx_byte_ratio"] == SEED_RATIO
    # 8 bytes a beat: 11 beats per 88-byte frame.
    assert rep["offered_mpps"] == pytest.approx(250 / 11, rel=2e-3)
    gre, tcp = rep["latency_by_class"]["GRE"], rep["latency_by_class"]["TCP"]
    assert gre["min"] == gre["max"] and tcp["min"] == tcp["max"]
    assert (gre["max"], tcp["max"]) == (contract_latency(F.seed_gre_frame(0), 64),
                                        contract_latency(F.seed_tcp_frame(0), 64))

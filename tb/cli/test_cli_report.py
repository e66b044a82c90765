"""Unit tests of wirespeed.report on a synthetic harness report."""

from __future__ import annotations

from typing import Any

from wirespeed import report
from wirespeed.config import Config
from wirespeed.model.gre import Outcome


def harness(n_pairs: int, **over: Any) -> dict[str, Any]:
    outcomes = {name: {"packets": 0, "bytes": 0} for name in report.OUTCOMES}
    outcomes["DECAP_L3"] = {"packets": n_pairs, "bytes": 88 * n_pairs}
    outcomes["PASS"] = {"packets": n_pairs, "bytes": 88 * n_pairs}
    h = {
        "data_width": 256, "clock_mhz": 250.0, "line_rate_gbps": 10.0,
        "packets_in": 2 * n_pairs, "bytes_in": 176 * n_pairs,
        "packets_out": 2 * n_pairs, "bytes_out": 152 * n_pairs, "aborted": 0,
        "cycles": 1000, "first_in_cycle": 10, "last_in_cycle": 900, "first_out_cycle": 12,
        "last_out_cycle": 909, "latency_cycles": {"min": 2, "max": 2, "mean": 2.0,
                                                  "count": 2 * n_pairs},
        "outcomes": outcomes, "stat_outcomes": {k: dict(v) for k, v in outcomes.items()},
        "tx_packets": 2 * n_pairs, "tx_bytes": 152 * n_pairs,
    }
    h.update(over)
    return h


def test_outcome_names_match_the_model() -> None:
    assert report.OUTCOMES == tuple(o.name for o in Outcome)


def test_seed_mix_numbers() -> None:
    n = 40
    # 40 Gb/s: the 900 cycles are more than the 80 frames' pacing slots (448 cycles), so the
    # rates are taken over them (report.rate_window)
    rep = report.build(harness(n, line_rate_gbps=40.0), Config(), [88] * 2 * n, [64, 88] * n)
    assert rep["bytes_in"] == 92 * 2 * n and rep["bytes_out"] == (68 + 92) * n
    assert rep["rx_tx_byte_ratio"] == 0.8695652174 == report.SEED_RATIO
    assert rep["elapsed_cycles"] == 900 and rep["elapsed_us"] == 3.6
    assert abs(rep["mpps"] - 80 / 3.6) < 1e-9
    # 80 frames of 112 wire bytes in 3.6 us at 40 Gb/s
    assert rep["rate_cycles"] == 900
    assert abs(rep["line_rate_fraction"] - 80 * 112 * 8 / (3.6e-6 * 40e9)) < 1e-9
    assert rep["latency_ns"] == {"min": 8.0, "max": 8.0, "mean": 8.0}
    assert rep["drops"] == {name: 0 for name in report.DROP_REASONS}
    assert rep["passed"] == n and rep["decapsulated"] == n and rep["loss"] == 0
    assert report.balance_errors(rep) == []
    t2 = report.table2(rep)
    assert "0.8695652174" in t2 and "12308110704" in t2
    t1 = report.table1(rep)
    assert "3.18 us" in t1 and "9.52 us" in t1 and "2.29 us" in t1 and "8.0 ns" in t1
    t1 = report.table1(rep, {"GRE": {"min": 2, "max": 2, "mean": 2.0},
                             "TCP": {"min": 2, "max": 3, "mean": 2.5}})
    assert "2 cycles = 8.0 ns" in t1 and "2..3 cycles = 8.0..12.0 ns (mean 2.50)" in t1
    assert "MACs, PHYs, PCIe" in t1


def test_back_to_back_has_no_line_rate_fraction() -> None:
    rep = report.build(harness(1, line_rate_gbps=0.0), Config(line_rate_gbps=0), [88, 88],
                       [64, 88])
    assert rep["line_rate_fraction"] is None and rep["offered_gbps"] > 0


def test_balance_errors_are_specific() -> None:
    h = harness(2)
    h["stat_outcomes"]["PASS"] = {"packets": 1, "bytes": 88}
    rep = report.build(h, Config(), [88] * 4, [64, 88, 64])
    errs = report.balance_errors(rep)
    assert any("packets_in 4 != packets_out 3 + drops 0" in e for e in errs)
    assert any("output pcap has 3" in e for e in errs)
    assert any(e.startswith("PASS: the block's counters say 1") for e in errs)


def test_forwarded_malformed_is_not_a_drop() -> None:
    h = harness(1)
    h["outcomes"]["DROP_IP_CHECKSUM"] = {"packets": 1, "bytes": 88}
    h["stat_outcomes"]["DROP_IP_CHECKSUM"] = {"packets": 1, "bytes": 88}
    h["packets_in"], h["bytes_in"] = 3, 264
    fwd = report.build(h, Config(policy_malformed="forward"), [88] * 3, [64, 88, 88])
    assert fwd["drops"]["DROP_IP_CHECKSUM"] == 0 and fwd["forwarded_malformed"] == 1
    dropped = report.build(h, Config(), [88] * 3, [64, 88, 88])
    assert dropped["drops"]["DROP_IP_CHECKSUM"] == 1
    assert any("packets_in 3 != packets_out 3 + drops 1" in e
               for e in report.balance_errors(dropped))


def test_clock_note_at_the_measured_fmax(tmp_path) -> None:
    """The run's tables use clock_mhz; the note converts to the clock synthesis measured."""
    import json

    synth = tmp_path / "synth.json"
    synth.write_text(json.dumps({"results": [
        {"module": "gre_decap", "width": 256, "pnr": {"fmax_mhz": None, "routed": False,
                                                      "placed_fmax_mhz": 8.37}},
        {"module": "gre_decap", "width": 512, "stale": True, "pnr": {"fmax_mhz": 30.0}},
        {"module": "axis_skid", "width": 256, "pnr": {"fmax_mhz": 302.39}},
    ]}))
    assert report.measured_fmax("gre_decap", 256, synth) == (8.37, False)
    assert report.measured_fmax("axis_skid", 256, synth) == (302.39, True)
    assert report.measured_fmax("gre_decap", 512, synth) is None  # measured on older RTL
    assert report.measured_fmax("gre_decap", 64, synth) is None
    assert report.measured_fmax("gre_decap", 256, tmp_path / "missing.json") is None

    n = 40
    rep = report.build(harness(n, line_rate_gbps=40.0), Config(), [88] * 2 * n,
                       [64, 88] * n)  # 22.22 Mpps offered
    note = report.clock_note(rep, [88] * 2 * n, "gre_decap", (8.37, False))
    # 88 bytes on 32-byte beats: 3 cycles per frame; 8.37 / 3 = 2.79 Mpps
    assert "assume 250 MHz" in note and "≈8.4 MHz (the placer's estimate, not routed" in note
    assert "3.00 cycles per frame carry 2.79 Mpps against 22.22 Mpps" in note
    assert "0.13 of what this run offers: not line rate at that clock" in note
    assert "latency of up to 2 cycles is 238.9 ns" in note  # 2 / 8.37 MHz
    note = report.clock_note(rep, [88] * 2 * n, "gre_decap", (302.39, True))
    assert "302.4 MHz (after place and route" in note and "it keeps up" in note
    b2b = report.build(harness(n, line_rate_gbps=0.0), Config(line_rate_gbps=0), [88] * 2 * n,
                       [64, 88] * n)
    note = report.clock_note(b2b, [88] * 2 * n, "gre_decap", (8.37, False))
    assert "of what this run offers." in note and "line rate" not in note  # back to back
    note = report.clock_note(rep, [88] * 2 * n, "gre_decap", None)
    assert "--modules gre_decap --widths 256" in note

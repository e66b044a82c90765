"""The Python side of `wirespeed tap` without root or devices: the command line's errors, the
harness's argv and register file, the parsers of ping and iperf2 output, the malformed frames."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed import cli, tap, taplab
from wirespeed.config import from_mapping
from wirespeed.model.vxlan import DecapConfig, decap


def test_not_root_is_refused_before_any_build(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(tap.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(tap, "ensure_tap_harness", lambda *a, **k: pytest.fail("built although not root"))
    assert cli.main(["tap", "--block", "vtep"]) == cli.EXIT_INPUT
    assert "needs root" in capsys.readouterr().err


def test_missing_tun_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tap.os, "geteuid", lambda: 0)
    real = Path.exists
    monkeypatch.setattr(tap.Path, "exists", lambda p: False if str(p) == "/dev/net/tun" else real(p))
    with pytest.raises(tap.TapError, match="/dev/net/tun is missing"):
        tap.preflight()


def test_harness_argv_and_registers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tap.paths, "BUILD", tmp_path)
    cfg = from_mapping({"vtep": {"tunnels": [{"inner_dst": "192.168.42.1", "vni": 42,
                                              "outer_dst_mac": "02:00:0a:c8:00:01",
                                              "outer_src_mac": "02:00:0a:c8:00:02",
                                              "outer_src": "10.200.0.2", "outer_dst": "10.200.0.1"}]}})
    regs = tap.regs_file(cfg, "vtep")
    lines = [ln.split() for ln in regs.read_text().splitlines()]
    assert [(int(a, 16), int(v, 16)) for a, v in lines] == cfg.vtep_register_writes()
    argv = tap.harness_argv(Path("/x/ws_tap_vtep"), "vtep", ("n0", "h0"), ("cloud", None), regs, ["--json"])
    assert argv == ["/x/ws_tap_vtep", "--net-tap", "n0", "--net-netns", "cloud", "--host-tap", "h0",
                    "--regs", str(regs), "--json"]
    argv = tap.harness_argv(Path("/x/ws_tap_gre"), "gre", ("i0", "o0"), (None, "h"), None, [])
    assert argv == ["/x/ws_tap_gre", "--in-tap", "i0", "--out-tap", "o0", "--out-netns", "h"]


def test_parsers() -> None:
    p = taplab.parse_ping("5 packets transmitted, 4 received, 20% packet loss, time 804ms\n"
                          "rtt min/avg/max/mdev = 0.552/0.823/1.432/0.3 ms\n", 5)
    assert (p.received, p.rtt_min_ms, p.rtt_avg_ms, p.rtt_max_ms) == (4, 0.552, 0.823, 1.432)
    assert taplab.parse_ping("3 packets transmitted, 0 received", 3).rtt_avg_ms is None
    r = taplab.parse_iperf_csv("19700101000000,192.168.42.1,40000,192.168.42.2,5001,1,0.0-10.4,13107260,10050000\n")
    assert r == (13107260, pytest.approx(10.4), 10050000.0)
    assert taplab.parse_iperf_csv("connect failed") is None


def test_malformed_frames_are_what_they_claim() -> None:
    """Each injected frame is, by the golden model, the outcome the live test expects."""
    cfg = DecapConfig()
    for outcome, frames in taplab.malformed_vxlan_frames().items():
        for f in frames:
            assert decap(f, cfg).outcome.name == outcome

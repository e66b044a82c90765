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


def test_training_frames_are_the_lab_tunnel_both_ways(tmp_path: Path) -> None:
    """sim/build.sh tap-vtep's profile-feedback input: VXLAN to the NIC's underlay address on
    the network port (valid outer IPv4 checksums, jumbo and small ones among them), TCP from
    onprem to the cloud on the host port, and the lab's registers."""
    import socket
    import struct

    net, host = tap.training_frames(64)
    assert len(net) == 64 and len(host) == 32 + 22
    for f in net:
        assert f[:6] == bytes.fromhex(taplab.MAC["nic"].replace(":", "")) and f[12:14] == b"\x08\x00"
        ip = f[14:34]
        assert sum(struct.unpack("!10H", ip)) % 0xFFFF == 0  # header checksum
        assert socket.inet_ntoa(ip[16:20]) == taplab.UNDER_NIC and ip[9] == 17
        assert struct.unpack("!H", f[36:38])[0] == 4789 and f[42] == 0x08
        assert struct.unpack("!I", f[46:50])[0] >> 8 == taplab.VNI
    assert {len(f) for f in net} == {1514, 9014, 98 + 50}
    assert all(socket.inet_ntoa(f[30:34]) == taplab.INNER_CLOUD for f in host)
    tap.write_training(tmp_path, 256, n=8)
    assert (tmp_path / "regs.txt").read_text() == from_mapping(taplab.lab_config(256)).vtep_register_file_text()
    assert (tmp_path / "net.pcap").stat().st_size > 8 * 1514


def test_optimized_build_is_asked_for_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(tap.PGO_ENV, raising=False)
    assert not tap.want_optimized("vtep")
    monkeypatch.setenv(tap.PGO_ENV, "1")
    assert tap.want_optimized("vtep") and not tap.want_optimized("gre")
    assert not tap.want_optimized("vtep", optimized=False)
    assert tap.harness_path("vtep", 512, True).parent.name == "tap_vtep_pgo_w512"
    assert tap.harness_path("vtep", 512).parent.name == "tap_vtep_w512"


def test_bench_loop_profile() -> None:
    from wirespeed import tapbench

    def line(frames: int, **loop: int) -> dict[str, object]:
        return {"ports": {"net rx": {"frames": frames}, "host rx": {"frames": 0}, "net tx": {"frames": 99}},
                "loop": loop}

    a = line(100, busy_cycles=1000, idle_cycles=10, polls=5, tap_reads=150, tap_empty_reads=40, tap_writes=100)
    b = line(300, busy_cycles=9000, idle_cycles=50, polls=5, tap_reads=450, tap_empty_reads=140, tap_writes=300)
    assert tapbench.loop_profile(a, b) == {"frames": 200, "cycles_per_frame": 40.0, "syscalls_per_frame": 2.5,
                                           "empty_reads_per_frame": 0.5, "idle_cycle_share": 0.005, "polls": 0}
    assert tapbench.loop_profile({"ports": {}}, {"ports": {}}) == {}


def test_report_section_lists_each_width_and_mtu_with_the_profile() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "report"))
    import make_report

    run = {"mbit_s": 100.0, "frames_per_second": 9000.0, "clocked_cycles_per_cpu_second": 600000,
           "sim_cpu_share": 0.5, "mbit_s_per_cpu_second": 200.0,
           "profile": {"cycles_per_frame": 35.0, "syscalls_per_frame": 4.2, "empty_reads_per_frame": 2.2,
                       "idle_cycle_share": 0.0001, "polls": 3}}
    res = {"ping_rtt_ms": {"avg": 0.3}, "ping_rtt_added_ms": 0.25, "balanced": True, "goal_met": False,
           "iperf_tcp": {"cloud_to_onprem (decap carries the data)": run,
                         "onprem_to_cloud (encap carries the data)": run}}
    doc = {"goal_mbit_s": 1000.0, "widths": {"512": dict(res, mtu=1500), "256": dict(res, mtu=1500)},
           "jumbo": {"9000": {"256": dict(res, mtu=9000)}}}
    text = "\n".join(make_report.section_tap(doc))
    rows = [ln for ln in text.splitlines() if ln.startswith("| 256") or ln.startswith("| 512")]
    assert [r.split(" | ")[:2] for r in rows] == [["| 256", "1500"], ["| 512", "1500"], ["| 256", "9000"]] * 2
    assert "| 200 / 200 |" in rows[0] and "| 35.0 / 35.0 |" in rows[3]
    assert text.rstrip().endswith("not met.")

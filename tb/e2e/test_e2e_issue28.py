"""The command line as users meet it (issue 28), end to end through the real harnesses: paced
runs skip idle cycles with identical results, per-frame verdicts, `--check`'s success line,
`--workdir` with `--in`, nanosecond output timestamps, pcapng input, loss and rates from few
frames, the VTEP's notes and verdicts of both directions, one progress line for vxlan-seed.

Expectations come from the golden model and the harness's own JSON (no latency constants:
gre_decap's latencies are allowed to change)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest

from e2e_util import run_cli, run_ok
from wirespeed import pcap, scenario, verdicts, vtep
from wirespeed.build import ensure_harness
from wirespeed.check import expected
from wirespeed.config import Config
from wirespeed.paths import CAPTURES

WIDTH = 256


def _gre_mix() -> list[bytes]:
    """gre-sample.pcap's 40 frames (DECAP_L3), interleaved with copies of five of them with a
    byte of the outer IPv4 header changed (most become DROP_IP_CHECKSUM) and plain TCP (PASS)."""
    frames = pcap.read_ethernet(CAPTURES / "gre-sample.pcap")
    bad = []
    for f in frames[:5]:
        b = bytearray(f)
        b[24] ^= 0x5A  # outer IPv4 header checksum
        bad.append(bytes(b))
    tcp = [scenario.generate(2)[1]] * 3
    return [x for trio in zip(frames[:5], bad, tcp) for x in trio] + frames[5:]


def test_paced_harness_skips_idle_cycles_with_identical_results(tmp_path: Path) -> None:
    """The monitors are in the build (their free-running counters listed for the harness), and
    a paced run still jumps over idle cycles; pcap, CSVs and report equal a cycle-by-cycle run.
    1 Gb/s: gaps of 224 cycles between the 88-byte frames, wider than any latency of the
    block (only a pipeline that has drained can be skipped)."""
    binary = ensure_harness(WIDTH, verbose=False)
    counters = (binary.parent / "ws_free_counters.h").read_text()
    assert "__DOT__mon_s_axis__DOT__cycle" in counters
    frames = scenario.generate(400)
    inp = tmp_path / "in.pcap"
    pcap.write(inp, frames)
    res = {}
    for name, extra in (("skip", []), ("noskip", ["--no-skip-idle"])):
        d = tmp_path / name
        d.mkdir()
        subprocess.run([str(binary), "--in", str(inp), "--out", str(d / "out.pcap"), "--json",
                        str(d / "r.json"), "--latency-csv", str(d / "lat.csv"), "--stat-csv",
                        str(d / "stat.csv"), "--line-rate-gbps", "1", *extra], check=True)
        res[name] = d
    rep = {n: json.loads((d / "r.json").read_text()) for n, d in res.items()}
    assert rep["skip"]["idle_skipped_cycles"] > rep["skip"]["cycles"] // 3
    assert rep["noskip"]["idle_skipped_cycles"] == 0
    for f in ("out.pcap", "lat.csv", "stat.csv"):
        assert (res["skip"] / f).read_bytes() == (res["noskip"] / f).read_bytes(), f
    for r in rep.values():
        for k in ("wall_seconds", "sim_packets_per_second", "idle_skipped_cycles"):
            r.pop(k)
    assert rep["skip"] == rep["noskip"]


def test_in_run_verdicts_check_workdir_timestamps(tmp_path: Path) -> None:
    frames = _gre_mix()
    inp = tmp_path / "mix.pcap"
    pcap.write(inp, frames)
    out, vcsv, wd = tmp_path / "out.pcap", tmp_path / "v.csv", tmp_path / "wd"
    proc = run_ok(["run", "--in", inp, "--out", out, "--verdicts", vcsv, "--check",
                   "--workdir", wd, "--width", WIDTH])
    n = len(frames)
    assert f"model check: {n}/{n} frames match" in proc.stdout
    assert f"verdicts: {vcsv}" in proc.stdout
    # --workdir keeps the run's files, the report among them
    for f in ("in.pcap", "regs.txt", "harness.json", "latency.csv", "stat.csv",
              "verdicts.csv", "report.json"):
        assert (wd / f).is_file(), f
    rep = json.loads((wd / "report.json").read_text())
    assert (wd / "verdicts.csv").read_text() == vcsv.read_text()

    exp = expected(frames, Config().gre_config())
    rows = verdicts.read(vcsv)
    assert [int(r["index"]) for r in rows] == list(range(n))
    assert [r["outcome"] for r in rows] == exp.per_frame
    written = [r for r in rows if r["output_index"] != "none"]
    assert [int(r["output_index"]) for r in written] == list(range(len(exp.outputs)))
    outs = pcap.read_ethernet(out)
    assert outs == exp.outputs
    dropped = [r for r in rows if r["output_index"] == "none"]
    assert dropped and all(r["outcome"].startswith("DROP_") for r in dropped)
    assert all(r["latency_cycles"] != "none" for r in written)
    lat = [int(r["latency_cycles"]) for r in written]
    assert min(lat) == rep["latency_cycles"]["min"] and max(lat) == rep["latency_cycles"]["max"]

    # one meaning of loss: counted drops apart, no uncounted loss
    assert rep["dropped"] == len(dropped) and rep["loss"] == 0
    assert rep["packets_in"] - rep["packets_out"] - rep["dropped"] == rep["loss"]
    assert f"counted drops {len(dropped)}, loss (uncounted) 0" in proc.stdout

    # nanosecond output timestamps: when each frame had left, at the clock
    cap = pcap.read(out)
    assert cap.nanosecond
    ts = [r.ts_sec * 10**9 + r.ts_frac for r in cap.records]
    assert ts == sorted(ts) and len(set(ts)) == len(ts)
    h = rep["harness"]
    assert ts[-1] == math.floor(h["last_out_cycle"] * 1000 / h["clock_mhz"])
    # few frames: the rates say so, and stay within the pacing
    assert rep["few_frames"] and rep["line_rate_fraction"] <= 1.0
    assert f"(from only {n} frames: indicative)" in proc.stdout


@pytest.mark.skipif(shutil.which("editcap") is None, reason="editcap (tshark) not installed")
def test_pcapng_input(tmp_path: Path) -> None:
    ng = tmp_path / "gre-sample.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", str(CAPTURES / "gre-sample.pcap"), str(ng)],
                   check=True)
    out = tmp_path / "out.pcap"
    proc = run_ok(["run", "--in", ng, "--out", out, "--check", "--width", WIDTH])
    assert "model check: 40/40 frames match" in proc.stdout
    want = expected(pcap.read_ethernet(CAPTURES / "gre-sample.pcap"), Config().gre_config())
    assert pcap.read_ethernet(out) == want.outputs


def test_workdir_not_creatable_is_an_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli(["run", "--in", CAPTURES / "gre-sample.pcap", "--out", tmp_path / "o.pcap",
                    "--workdir", blocker / "sub", "--width", WIDTH])
    assert proc.returncode == 2
    assert f"--workdir {blocker / 'sub'}: cannot create it" in proc.stderr


def test_default_scenario_writes_verdicts_and_skips_idle(tmp_path: Path) -> None:
    proc = run_ok(["run", "--frames", "600", "--workdir", tmp_path, "--width", WIDTH,
                   "--line-rate-gbps", "1"])
    rows = verdicts.read(tmp_path / "verdicts.csv")
    assert len(rows) == 600
    assert [r["output_index"] for r in rows] == [str(i) for i in range(600)]
    assert {r["outcome"] for r in rows} == {"DECAP_L3", "PASS"}
    rep = json.loads((tmp_path / "report.json").read_text())
    assert rep["harness"]["idle_skipped_cycles"] > 0
    assert f"({rep['harness']['idle_skipped_cycles']} idle cycles skipped)" in proc.stdout
    assert "frames per wall second" in proc.stdout


# ----------------------------------------------------------------------------- VTEP

def _bad_udp(f: bytes) -> bytes:
    b = bytearray(f)
    b[40] ^= 0x11  # outer UDP checksum (Ether 14 + IPv4 20 + 6); non-zero either way
    return bytes(b)


def test_vtep_verdicts_both_directions_and_checksum_hint(tmp_path: Path) -> None:
    """Empty tables: every VNI decapsulated, every host frame PASS_MISS. Eight of ten network
    frames carry a wrong outer UDP checksum, as from a sender with TX checksum offload."""
    net = [vtep.seed_net_frame(k) for k in range(10)]
    net = [_bad_udp(f) if k < 8 else f for k, f in enumerate(net)]
    host = [vtep.seed_host_frame(k) for k in range(6)]
    ni, hi = tmp_path / "net.pcap", tmp_path / "host.pcap"
    pcap.write(ni, net)
    pcap.write(hi, host)
    v = tmp_path / "v.csv"
    proc = run_ok(["run", "--block", "vtep", "--net-in", ni, "--host-out", tmp_path / "ho.pcap",
                   "--host-in", hi, "--net-out", tmp_path / "no.pcap", "--verdicts", v,
                   "--check", "--width", WIDTH, "--report", tmp_path / "r.json"])
    assert "model check: 16/16 frames match (decap 10, encap 6" in proc.stdout
    assert "8 of 10 frames were dropped for a wrong outer UDP checksum" in proc.stdout
    assert "ethtool -K DEV tx off" in proc.stdout
    assert "rates from only decap 10, encap 6 frames" in proc.stdout
    rows = verdicts.read(v)
    dec = [r for r in rows if r["direction"] == "decap"]
    enc = [r for r in rows if r["direction"] == "encap"]
    assert [r["outcome"] for r in dec] == ["DROP_UDP_CHECKSUM"] * 8 + ["DECAP"] * 2
    assert [r["output_index"] for r in dec] == ["none"] * 8 + ["0", "1"]
    assert [r["outcome"] for r in enc] == ["PASS_MISS"] * 6
    assert [r["output_index"] for r in enc] == [str(i) for i in range(6)]
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["decap"]["dropped"] == 8 and rep["decap"]["loss"] == 0
    for d in ("decap", "encap"):
        assert rep[d]["line_rate_fraction"] <= 1.0 and rep[d]["tx_gbps"] <= 10.0


def test_vxlan_seed_one_progress_line(tmp_path: Path) -> None:
    proc = run_ok(["run", "--scenario", "vxlan-seed", "--frames", "200", "--workdir", tmp_path,
                   "--width", WIDTH, "--check"])
    lines = [ln for ln in proc.stderr.splitlines() if "in 0/0" in ln or "ws_vtep:" in ln]
    assert lines == [], lines
    merged = [ln for ln in proc.stderr.splitlines() if ln.startswith("ws_vtep x 2: ")]
    assert merged and merged[-1].startswith("ws_vtep x 2: decap 200/200 (100%), "
                                            "encap 200/200 (100%)")
    assert "model check: 400/400 frames match" in proc.stdout
    assert len(verdicts.read(tmp_path / "verdicts.csv")) == 400


# ----------------------------------------------------------------------------- pipeline

def _vxlan_in_gre() -> list[bytes]:
    """VXLAN frames carried in GRE: the VXLAN frame's IPv4 packet (protocol 0x0800, DECAP_L3)
    and the whole VXLAN frame (0x6558, DECAP_TEB)."""
    from wirespeed.model.frames import gre_frame

    out = []
    for k in range(6):
        v = vtep.seed_net_frame(k, bus_len=200)
        out += [gre_frame(v[14:], proto=0x0800).frame, gre_frame(v, proto=0x6558).frame]
    return out


def _gre_in_vxlan() -> list[bytes]:
    """GRE frames (the seed's) carried as VXLAN's inner frame."""
    from wirespeed.model.frames import seed_gre_frame

    mac = bytes.fromhex("020000000001")
    return [vtep.vxlan_wrap(seed_gre_frame(k), 0x1234 + k, mac, mac, bytes([10, 0, 0, 1]),
                            bytes([10, 0, 0, 2]), 0xC000 + k, ident=k) for k in range(8)]


@pytest.mark.parametrize("chain, make", [("gre, vxlan", _vxlan_in_gre),
                                         ("vxlan, gre", _gre_in_vxlan)])
def test_pipeline_decapsulates_both_layers(tmp_path: Path, chain: str, make) -> None:
    from wirespeed.model.gre import gre_decap
    from wirespeed.model.vxlan import decap as vxlan_decap

    frames = make()
    inp, out, v = tmp_path / "in.pcap", tmp_path / "out.pcap", tmp_path / "v.csv"
    pcap.write(inp, frames)
    cfg = tmp_path / "p.yaml"
    cfg.write_text(f"pipeline: [{chain}]\n")
    proc = run_ok(["run", "--in", inp, "--out", out, "--config", cfg, "--check",
                   "--verdicts", v, "--workdir", tmp_path / "wd", "--width", WIDTH])
    n = len(frames)
    assert proc.stdout.count(f"model check: {n}/{n} frames match") == 2
    # the golden models chained: every frame loses both encapsulations
    c = Config()
    want = []
    for f in frames:
        for stage in chain.split(", "):
            r = (gre_decap(f, c.gre_config()) if stage == "gre"
                 else vxlan_decap(f, c.vtep.decap_config(), keep_w=WIDTH // 8))
            f = r.output
            assert f is not None
        want.append(f)
    assert pcap.read_ethernet(out) == want
    rows = verdicts.read(v)
    first, second = chain.split(", ")
    assert [r["stage"] for r in rows] == [f"1:{first}"] * n + [f"2:{second}"] * n
    assert all(r["output_index"] == r["index"] for r in rows)
    rep = json.loads((tmp_path / "wd" / "report.json").read_text())
    assert rep["pipeline"] == [first, second] and rep["packets_out"] == n
    assert f"pipeline {first} -> {second}: {n} frames in, {n} out" in proc.stdout


def test_pipeline_needs_in_and_out(tmp_path: Path) -> None:
    cfg = tmp_path / "p.yaml"
    cfg.write_text("pipeline: [gre, vxlan]\n")
    proc = run_cli(["run", "--config", cfg, "--frames", "10"])
    assert proc.returncode == 2
    assert f"{cfg}: pipeline: [gre, vxlan] chains blocks on one capture: give --in" in proc.stderr
    cfg.write_text("pipeline: [gre, ipsec]\n")
    proc = run_cli(["run", "--config", cfg, "--in", CAPTURES / "gre-sample.pcap", "--out",
                    tmp_path / "o.pcap"])
    assert proc.returncode == 2 and f"{cfg}: pipeline[1]: 'ipsec' is not one of gre, vxlan" \
        in proc.stderr


@pytest.mark.skipif(shutil.which("editcap") is None, reason="editcap (tshark) not installed")
def test_harness_reads_pcapng_itself(tmp_path: Path) -> None:
    """ws_sim run directly on a pcapng (editcap's conversion of gre-sample.pcap) gives the
    output of the classic pcap, the golden model's."""
    binary = ensure_harness(WIDTH, verbose=False)
    src = CAPTURES / "gre-sample.pcap"
    frames = pcap.read_ethernet(src)
    ng = tmp_path / "g.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", str(src), str(ng)], check=True)
    outs = {}
    for name, inp in (("pcap", src), ("pcapng", ng)):
        out = tmp_path / f"{name}.out.pcap"
        subprocess.run([str(binary), "--in", str(inp), "--out", str(out), "--json",
                        str(tmp_path / f"{name}.json")], check=True)
        outs[name] = pcap.read_ethernet(out)
    assert outs["pcapng"] == outs["pcap"] == expected(frames, Config().gre_config()).outputs
    # a broken pcapng: exit 2 and the file named
    bad = tmp_path / "bad.pcapng"
    bad.write_bytes(ng.read_bytes()[:-7])
    p = subprocess.run([str(binary), "--in", str(bad), "--out", str(tmp_path / "x.pcap"),
                        "--json", str(tmp_path / "x.json")], capture_output=True, text=True)
    assert p.returncode == 2 and f"{bad}: truncated pcapng" in p.stderr

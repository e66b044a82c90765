"""Unit tests of the command line as users meet it (issue 28): pcapng input, per-frame
verdicts, one meaning of loss, rates from few frames, the notes beside VTEP figures, the YAML
base-60 MAC, the build's progress, fuzz's frames per second, bench's default output and the
merged progress line of two harness processes."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from wirespeed import cli, pcap, paths, report, verdicts, vtep
from wirespeed.build import build_stage
from wirespeed.config import Config, ConfigError, load
from wirespeed.progress import MergedProgress

FRAMES = [bytes(range(60)), b"\xff" * 64, bytes(range(256)) * 6]
CAPTURES = paths.CAPTURES


# ----------------------------------------------------------------------------- pcapng

def _block(endian: str, btype: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack(endian + "II", btype, n) + body + struct.pack(endian + "I", n)


def _opt(endian: str, code: int, value: bytes) -> bytes:
    return struct.pack(endian + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def pcapng(frames: list[bytes], endian: str = "<", tsresol: int | None = 9,
           fcslen: int | None = None, linktypes: tuple[int, ...] = (1,)) -> bytes:
    """A pcapng file: a section header, one interface per link type, one enhanced packet block
    per frame (on interface i % n), timestamps 1 s + i * 2 us."""
    shb = _block(endian, 0x0A0D0D0A, struct.pack(endian + "IHHq", 0x1A2B3C4D, 1, 0, -1))
    idbs = b""
    for lt in linktypes:
        opts = b""
        if tsresol is not None:
            opts += _opt(endian, 9, bytes([tsresol]))
        if fcslen is not None:
            opts += _opt(endian, 13, bytes([fcslen]))
        idbs += _block(endian, 1, struct.pack(endian + "HHI", lt, 0, 0) + opts
                       + (_opt(endian, 0, b"") if opts else b""))
    per_sec = 10 ** (tsresol if tsresol is not None else 6)
    epbs = b""
    for i, f in enumerate(frames):
        ts = per_sec + i * 2 * per_sec // 1_000_000
        epbs += _block(endian, 6, struct.pack(endian + "IIIII", i % len(linktypes), ts >> 32,
                                              ts & 0xFFFFFFFF, len(f), len(f)) + f)
    return shb + idbs + epbs


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize("tsresol", [9, 6, None])
def test_pcapng_read(tmp_path: Path, endian: str, tsresol: int | None) -> None:
    p = tmp_path / "x.pcapng"
    p.write_bytes(pcapng(FRAMES, endian, tsresol))
    got = pcap.read(p)
    assert got.frames == FRAMES and got.linktype == 1 and got.nanosecond
    # frame 1 is 2 microseconds after 1 s, in nanoseconds at every resolution
    assert (got.records[1].ts_sec, got.records[1].ts_frac) == (1, 2000)
    assert pcap.read_ethernet(p) == FRAMES


def test_pcapng_fcs_removed_and_link_types_checked(tmp_path: Path) -> None:
    p = tmp_path / "fcs.pcapng"
    p.write_bytes(pcapng([f + b"FCS!" for f in FRAMES], fcslen=4))
    assert pcap.read_ethernet(p) == FRAMES
    p.write_bytes(pcapng(FRAMES, linktypes=(113,)))
    with pytest.raises(pcap.PcapError, match=r"fcs.pcapng: link type 113 .*Linux cooked"):
        pcap.read_ethernet(p)
    p.write_bytes(pcapng(FRAMES, linktypes=(1, 101)))
    with pytest.raises(pcap.PcapError, match="different link types"):
        pcap.read(p)


def test_pcapng_broken_files_name_the_problem(tmp_path: Path) -> None:
    p = tmp_path / "bad.pcapng"
    blob = pcapng(FRAMES)
    p.write_bytes(blob[:-10])
    with pytest.raises(pcap.PcapError, match=r"bad.pcapng: truncated"):
        pcap.read(p)
    bad_bom = bytearray(blob)
    bad_bom[8:12] = b"\1\2\3\4"
    p.write_bytes(bytes(bad_bom))
    with pytest.raises(pcap.PcapError, match="byte-order magic"):
        pcap.read(p)


@pytest.mark.skipif(shutil.which("editcap") is None, reason="editcap (tshark) not installed")
@pytest.mark.parametrize("name", ["gre-sample", "vxlan-sample"])
def test_pcapng_from_editcap_equals_the_pcap(tmp_path: Path, name: str) -> None:
    src = CAPTURES / f"{name}.pcap"
    if not src.is_file():
        pytest.skip(f"{src} is not there")
    ng = tmp_path / f"{name}.pcapng"
    subprocess.run(["editcap", "-F", "pcapng", str(src), str(ng)], check=True)
    assert ng.read_bytes()[:4] == b"\x0a\x0d\x0d\x0a"
    a, b = pcap.read(src), pcap.read(ng)
    assert a.frames == b.frames
    unit = 1 if a.nanosecond else 1000
    assert [(r.ts_sec, r.ts_frac * unit) for r in a.records] == \
        [(r.ts_sec, r.ts_frac) for r in b.records]


# ----------------------------------------------------------------------------- verdicts

def test_verdicts_place_outputs_and_late_drops() -> None:
    names = ("PASS", "DROP_X", "DECAP")
    stat = [(0, 0), (1, 1), (2, 2), (3, 1), (4, 0)]
    # output order: frames 0, 2, 3 (aborted: a late drop) and 4 began on the output
    lat = [(0, 5), (2, 7), (3, 9), (4, 5)]
    rows = verdicts.build(stat, lat, names, lambda o: not o.startswith("DROP_"), 3)
    assert [(v.index, v.outcome, v.output_index, v.latency_cycles) for v in rows] == [
        (0, "PASS", 0, 5), (1, "DROP_X", None, None), (2, "DECAP", 1, 7),
        (3, "DROP_X", None, 9), (4, "PASS", 2, 5)]
    with pytest.raises(verdicts.VerdictError, match="place 3 frames in the output, which has 4"):
        verdicts.build(stat, lat, names, lambda o: not o.startswith("DROP_"), 4)


def test_verdicts_file(tmp_path: Path) -> None:
    rows = [verdicts.Verdict(0, "PASS", 0, 2), verdicts.Verdict(1, "DROP_X", None, None)]
    p = tmp_path / "v.csv"
    verdicts.write(p, ((None, v) for v in rows))
    assert p.read_text() == ("index,outcome,output_index,latency_cycles\n0,PASS,0,2\n"
                             "1,DROP_X,none,none\n")
    verdicts.write(p, [("decap", rows[0]), ("encap", rows[1])])
    assert verdicts.read(p)[1] == {"direction": "encap", "index": "1", "outcome": "DROP_X",
                                   "output_index": "none", "latency_cycles": "none"}


def test_gre_written_follows_the_malformed_policy() -> None:
    assert not cli._gre_written(Config())("DROP_IP_HEADER")
    fwd = Config(policy_malformed="forward")
    assert cli._gre_written(fwd)("DROP_IP_HEADER") and not cli._gre_written(fwd)("DROP_ECN")
    assert cli._gre_written(fwd)("PASS")


# ----------------------------------------------------------------------------- loss, rates

def _harness(n_in: int, n_out: int, drops: dict[str, int], first_in: int, last_out: int,
             rate: float = 10.0) -> dict[str, Any]:
    outcomes = {name: {"packets": 0, "bytes": 0} for name in report.OUTCOMES}
    outcomes["PASS"] = {"packets": n_out, "bytes": 88 * n_out}
    for k, v in drops.items():
        outcomes[k] = {"packets": v, "bytes": 88 * v}
    return {"data_width": 256, "clock_mhz": 250.0, "line_rate_gbps": rate,
            "packets_in": n_in, "bytes_in": 88 * n_in, "packets_out": n_out,
            "bytes_out": 88 * n_out, "aborted": 0, "cycles": last_out - first_in + 1,
            "first_in_cycle": first_in, "last_in_cycle": last_out - 2,
            "first_out_cycle": first_in + 2, "last_out_cycle": last_out,
            "latency_cycles": {"min": 2, "max": 2, "mean": 2.0, "count": n_out},
            "outcomes": outcomes, "stat_outcomes": outcomes, "tx_packets": n_out,
            "tx_bytes": 88 * n_out, "wall_seconds": 0.5, "sim_packets_per_second": 2 * n_in,
            "idle_skipped_cycles": 123}


def test_loss_is_uncounted_and_drops_are_apart() -> None:
    h = _harness(10, 7, {"DROP_IP_CHECKSUM": 3}, 100, 100 + 10 * 90)
    rep = report.build(h, Config(), [88] * 10, [88] * 7)
    assert rep["dropped"] == 3 and rep["loss"] == 0
    s = report.summary(rep)
    assert "counted drops 3, loss (uncounted) 0" in s
    t2 = report.table2(rep).splitlines()
    assert [ln.split()[-2:] for ln in t2 if ln.startswith("  counted drops")] == [["3", "0"]]
    assert [ln.split()[-2:] for ln in t2 if ln.startswith("  loss packets")] == [["0", "0"]]
    assert "123 idle cycles skipped" in s and "20 frames per wall second" in s
    # a frame neither written nor counted is loss, and fails the balance check
    rep = report.build(_harness(10, 6, {"DROP_IP_CHECKSUM": 3}, 100, 1000), Config(),
                       [88] * 10, [88] * 6)
    assert rep["loss"] == 1 and report.balance_errors(rep)


def test_few_paced_frames_never_exceed_the_pacing() -> None:
    # 11 frames of 112 wire bytes paced at 10 Gb/s: 10 gaps of 89.6 ns = 22.4 cycles; the
    # last output 2 cycles after the last input. Measured over first-in..last-out alone this
    # is 11 frames in ~230 cycles: more than the line rate.
    n = 11
    h = _harness(n, n, {}, 100, 100 + 224 + 4)
    rep = report.build(h, Config(), [88] * n, [88] * n)
    assert rep["elapsed_cycles"] == 229
    assert rep["rate_cycles"] == 247  # 11 slots of 22.4 cycles, rounded up
    assert rep["line_rate_fraction"] <= 1.0 and rep["few_frames"]
    assert "(from only 11 frames: indicative)" in report.summary(rep)
    many = report.build(_harness(2000, 2000, {}, 100, 100 + 44800 + 30), Config(),
                        [88] * 2000, [88] * 2000)
    assert not many["few_frames"] and "from only" not in report.summary(many)


def _vtep_dir(direction: str, n: int, outcomes: dict[str, int], out_len: int,
              rate: float = 10.0) -> dict[str, Any]:
    names = vtep.OUTCOMES[direction]
    hd = {"outcomes": {k: {"packets": outcomes.get(k, 0), "bytes": 0} for k in names},
          "first_in_cycle": 100, "last_in_cycle": 100 + 22 * (n - 1),
          "last_out_cycle": 130 + 22 * (n - 1), "latency_cycles": {"count": 0}}
    n_out = sum(v for k, v in outcomes.items() if k in vtep.DELIVERED[direction])
    return vtep.direction_report(direction, hd, [60] * n, [out_len] * n_out, 250.0, rate)


def test_vtep_notes() -> None:
    # a capture from a host with TX checksum offload: every frame DROP_UDP_CHECKSUM
    de = _vtep_dir("decap", 11, {"DROP_UDP_CHECKSUM": 10, "DECAP": 1}, 10)
    en = _vtep_dir("encap", 11, {"ENCAP": 11}, 110)
    rep = {"decap": de, "encap": en, "line_rate_gbps": 10.0}
    text = "\n".join(vtep.notes(rep))
    assert "10 of 11 frames were dropped for a wrong outer UDP checksum" in text
    assert "ethtool -K DEV tx off" in text
    assert "rates from only decap 11, encap 11 frames" in text
    # the encapsulated output is 50 bytes longer per frame: said, not hidden
    assert "note: encap: the output leaves at" in text and "more than a 10 Gb/s port" in text
    assert "each frame grows by 50 bytes" in text
    assert en["tx_gbps"] <= 10.0 and en["line_rate_fraction"] <= 1.0
    de_ok = _vtep_dir("decap", 11, {"DECAP": 10, "DROP_UDP_CHECKSUM": 1}, 10)
    assert not vtep.udp_checksum_hint(de_ok)


# ----------------------------------------------------------------------------- config

def test_unquoted_mac_read_as_base_60(tmp_path: Path) -> None:
    p = tmp_path / "vtep.yaml"
    p.write_text("vtep:\n  tunnels:\n    - {inner_dst: \"192.168.1.2\", vni: 42, "
                 "outer_dst_mac: 12:34:56:00:00:02, outer_src_mac: \"02:00:00:00:00:01\", "
                 "outer_src: \"10.0.0.1\", outer_dst: \"10.0.0.2\"}\n")
    with pytest.raises(ConfigError) as e:
        load(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}: vtep.tunnels[0].outer_dst_mac: ")
    assert "base-60" in msg and 'quote the MAC address: "12:34:56:00:00:02"' in msg


# ----------------------------------------------------------------------------- build, fuzz

def test_build_stage_from_the_log() -> None:
    assert build_stage("+ verilator --cc ...\n") == "verilating"
    log = ("sim/build.sh: compiling build/sim/w64/ws_sim\nccache g++ -O2 -c -o a.o a.cpp\n"
           "ccache g++ -O2 -c -o b.o b.cpp\n")
    assert build_stage(log) == "compiling C++ (2 files started)"


def test_fuzz_summary_rate_agrees_with_its_totals() -> None:
    from wirespeed import fuzz

    s = {"frames": 20000, "wall_seconds": 37.5, "frames_per_second": round(20000 / 37.5, 1),
         "setup_seconds": 33.5, "run_seconds": 4.0, "run_frames_per_second": 5000.0,
         "harness_frames_per_second": 9000.0, "frames_by_block_width": {"gre": {"64": 20000}},
         "outcomes": {}, "classes": {}, "failures": [], "out_dir": "x"}
    import io

    buf = io.StringIO()
    fuzz.print_summary(s, buf)
    line = buf.getvalue().splitlines()[0]
    assert "20000 frames (gre 20000) in 37.5 s: 533.3 frames/s (33.5 s of setup" in line
    src = Path(fuzz.__file__).read_text()
    assert '"frames_per_second": round(frames / wall, 1)' in src


def test_bench_writes_to_build_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    monkeypatch.setattr(cli, "_bench_width", lambda cfg, *a: {
        "frames": 4, "wall_seconds": 1.0, "sim_packets_per_second": 4.0, "cycles": 10,
        "elapsed_cycles": 9, "mpps_at_clock": 1.0, "offered_gbps_at_clock": 1.0,
        "latency_cycles": {}})
    docs = paths.ROOT / "docs" / "bench" / "sim_speed.json"
    before = docs.read_bytes() if docs.is_file() else None
    assert cli.main(["bench", "--frames", "4", "--widths", "64", "-q"]) == 0
    doc = json.loads((tmp_path / "build" / "bench" / "sim_speed.json").read_text())
    assert list(doc["widths"]) == ["64"]
    assert (docs.read_bytes() if docs.is_file() else None) == before
    make = (paths.ROOT / "Makefile").read_text()
    assert "wirespeed bench --output docs/bench/sim_speed.json" in make
    assert "wirespeed bench --block vtep --output docs/bench/vtep_linerate.json" in make


# ----------------------------------------------------------------------------- progress

def test_two_processes_one_progress_line() -> None:
    def fake(direction: str, total: int) -> "subprocess.Popen[str]":
        other = "encap" if direction == "decap" else "decap"
        script = (
            "import sys, time\n"
            f"for k in (0, {total}):\n"
            f"    print(f'ws_vtep: cycle 9 (0 idle skipped)  {direction} in {{k}}/{total} "
            f"(50.0%)  out 0  aborted 0  {other} in 0/0 (100.0%)  out 0  aborted 0  "
            "0.001 Mpkt/s', file=sys.stderr, flush=True)\n"
            "    time.sleep(0.3)\n"
            "print('ws_vtep: error: something real', file=sys.stderr)\n")
        return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    import io

    buf = io.StringIO()
    mp = MergedProgress("ws_vtep x 2", {"decap": fake("decap", 40), "encap": fake("encap", 30)},
                        stream=buf)
    done = mp.wait(every=0.2)
    assert mp.line().startswith("ws_vtep x 2: decap 40/40 (100%), encap 30/30 (100%); ")
    assert done["decap"][0] == 0 and "something real" in done["decap"][2]
    assert "0/0" not in done["encap"][2]


def test_build_says_what_it_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A first build names the block and width at once, then its stage while it runs."""
    from wirespeed import build

    sim = tmp_path / "sim"
    sim.mkdir()
    (sim / "build.sh").write_text(
        "set -e\necho '+ verilator --cc'\nsleep 0.6\n"
        "echo 'sim/build.sh: compiling'\necho 'ccache g++ -O2 -c -o a.o a.cpp'\nsleep 0.6\n"
        "D=${WS_SIM_MDIR:-build/sim/w$1}\nmkdir -p \"$D\"\nprintf x > \"$D/ws_sim\"\n")
    monkeypatch.setattr(paths, "ROOT", tmp_path)
    monkeypatch.setattr(paths, "SIM", sim)
    monkeypatch.setattr(paths, "RTL", tmp_path / "rtl")
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    monkeypatch.setattr(paths, "verilator_env", lambda: dict(__import__("os").environ))
    monkeypatch.setattr(build, "PROGRESS_EVERY", 0.25)
    binary = build.ensure_harness(64)
    assert binary.read_text() == "x"
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("building the Verilator harness for gre_decap, 64-bit data")
    stages = [ln for ln in err if ln.startswith("  ... ")]
    assert any(ln.endswith(": verilating") for ln in stages)
    assert any(ln.endswith(": compiling C++ (1 files started)") for ln in stages)
    assert err[-1].startswith(f"built {binary} in ")
    build.ensure_harness(64)  # up to date: nothing built, nothing said
    assert capsys.readouterr().err == ""

"""The fuzz campaign through the real harnesses (wirespeed/fuzz.py, docs/fuzzing.md).

* A short fixed-seed campaign: 62 500 frames over every block (GRE decap, VXLAN decap and
  encap, Geneve decap) at 64 and 256 bits (every width with `make test-full`; `make fuzz` runs every width),
  every frame checked against the golden models; no failure allowed. The harnesses at 128 and
  512 bits are the slowest builds of `make test` and no other test of it needs them.
* The checker catches failures: a model result corrupted on purpose (the RTL untouched) must be
  reported as a mismatch with the failing chunk and the first failing frame written to pcaps and
  replay commands given; a watchdog set below what the traffic needs must be reported as a stall
  with the chunk's seed.
* The CLI: `wirespeed fuzz` prints frames per second and exits 0 / 1 / 2.
* The harnesses a campaign snapshots are the one build of each top (checked here without
  building).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tb.common.sweep import full_sweep
from wirespeed import build, fuzz, paths, pcap
from wirespeed.paths import ROOT

SHORT_SEED = 20261121
SHORT_COUNT = 62_500  # gre 17 500, VTEP 30 000 (both directions), Geneve 15 000
# Widths the harness-driven tests build (the short campaign, the replay of a chunk).
WIDTHS = fuzz.WIDTHS if full_sweep() else (64, 256)


def test_short_campaign_finds_no_failure(tmp_path: Path) -> None:
    camp = fuzz.Campaign(seed=SHORT_SEED, count=SHORT_COUNT, widths=WIDTHS, out_dir=tmp_path,
                         chunk=2500, quiet=True)
    s = fuzz.run_campaign(camp)
    msgs = [f"{f['block']} w{f['width']} chunk {f['chunk']}: {f['messages'][:3]} replay: "
            f"{f['replay'][:1]}" for f in s["failures"]]
    assert not msgs, "fuzz failures:\n" + "\n".join(msgs)
    assert s["frames"] == SHORT_COUNT
    for block in fuzz.BLOCKS:  # every block at every width built
        per = s["frames_by_block_width"][block]
        assert all(per[str(w)] > 0 for w in WIDTHS), (block, per)
        assert {"random", "plain", "capture:gre-sample", "capture:vxlan-sample"} <= \
            set(s["families"][block])
        assert {"none", "bitflip", "byte", "trunc", "lie", "csum"} <= set(s["mutations"][block])
    # Outcomes the campaign must reach (pcaps carry no RX error; giants are rare).
    never = {b: set(o["never"]) for b, o in s["outcomes"].items()}
    assert never["gre"] <= {"DROP_RX_ERROR"}, never["gre"]
    assert never["vxlan-decap"] <= {"DROP_RX_ERROR"}, never["vxlan-decap"]
    assert never["vxlan-encap"] <= {"DROP_RX_ERROR", "DROP_OVERSIZE"}, never["vxlan-encap"]
    assert never["geneve-decap"] <= {"DROP_RX_ERROR"}, never["geneve-decap"]
    assert {"geneve", "geneve-case", "capture:geneve"} <= set(s["families"]["geneve-decap"])
    assert json.loads((tmp_path / "summary.json").read_text())["frames"] == SHORT_COUNT
    assert "frames/s" in (tmp_path / "summary.md").read_text()


def test_a_wrong_model_result_is_reported_with_pcaps(tmp_path: Path) -> None:
    """Corrupt one expected output frame (the model's, not the RTL's): the campaign must fail,
    name the output and input frame, and write the chunk and that frame to pcaps."""
    camp = fuzz.Campaign(seed=3, count=600, blocks=("vxlan-decap",), widths=(256,),
                         out_dir=tmp_path, chunk=600, quiet=True)
    hit: dict[str, int] = {}

    def tamper(direction: str, exp) -> None:
        k = len(exp.outputs) // 2
        b = bytearray(exp.outputs[k])
        b[len(b) // 2] ^= 0x40
        exp.outputs[k] = bytes(b)
        hit["source"] = exp.sources[k]
        hit["output"] = k

    s = fuzz.run_campaign(camp, tamper=tamper)
    assert len(s["failures"]) == 1
    f = s["failures"][0]
    assert f["kind"] == "mismatch" and f["block"] == "vxlan-decap" and f["width"] == 256
    assert any(f"output frame {hit['output']} (model: from input frame {hit['source']})" in m
               for m in f["messages"]), f["messages"]
    assert f["culprit"] == hit["source"]
    chunk = pcap.read_ethernet(f["files"]["chunk"])
    first = pcap.read_ethernet(f["files"]["first"])
    assert len(chunk) == 600 and first == [chunk[hit["source"]]]
    assert f["culprit_alone_fails"] is False  # the RTL is right: alone, the frame passes
    assert any("--only-chunk 0" in c for c in f["replay"])
    assert any(c.startswith("wirespeed run --block vtep --net-in") and "--check" in c
               for c in f["replay"])
    fail_dir = Path(f["files"]["chunk"]).parent
    assert (fail_dir / "replay.txt").read_text().splitlines() == f["replay"]
    assert json.loads((fail_dir / "failure.json").read_text())["chunk_seed"] == f["chunk_seed"]


def test_a_wrong_geneve_result_is_reported(tmp_path: Path) -> None:
    """The same through ws_geneve: a corrupted expected output frame and a corrupted expected VNI
    (m_axis_tvni) are both reported against the Geneve chunk, with the frame located."""
    camp = fuzz.Campaign(seed=4, count=300, blocks=("geneve-decap",), widths=(WIDTHS[0],),
                         out_dir=tmp_path, chunk=300, quiet=True)
    hit: dict[str, int] = {}

    def tamper(direction: str, exp) -> None:
        assert direction == "geneve" and exp.outputs and exp.vnis
        k = len(exp.outputs) // 3
        b = bytearray(exp.outputs[k])
        b[-1] ^= 0x01
        exp.outputs[k] = bytes(b)
        hit["source"] = exp.sources[k]
        exp.vnis[-1] ^= 0x800000

    s = fuzz.run_campaign(camp, tamper=tamper)
    assert len(s["failures"]) == 1
    f = s["failures"][0]
    assert f["kind"] == "mismatch" and f["block"] == "geneve-decap" and f["culprit"] == hit["source"]
    assert any("m_axis_tvni" in m for m in f["messages"]), f["messages"]
    assert f["culprit_alone_fails"] is False
    assert any("ws_geneve" in c and "--regs" in c for c in f["replay"])
    assert s["frames_by_block_width"] == {"geneve-decap": {str(WIDTHS[0]): 300}}


def test_a_stall_is_reported_with_the_chunk_seed(tmp_path: Path) -> None:
    """A watchdog of 2 cycles under 90 % output backpressure fires: a stall failure with the
    chunk's seed, its frames in a pcap and the first frame located."""
    camp = fuzz.Campaign(seed=5, count=120, blocks=("gre",), widths=(64,), out_dir=tmp_path,
                         chunk=120, quiet=True)
    pool = fuzz.build_pool(camp.seed)
    (kind, width, sizes), = fuzz.schedule(camp.blocks, camp.widths, camp.count, camp.chunk)
    plan, rng = fuzz.plan_chunk(pool, camp.seed, 0, kind, width, sizes, camp.max_idle_cycles)
    plan = dataclasses.replace(plan, opts=dataclasses.replace(
        plan.opts, stall_prob=0.9, idle_prob=0.0, line_rate_gbps=0.0, max_idle_cycles=2))
    frames = {"gre": fuzz.generate(pool, rng, "gre", 120)}
    bins = fuzz._snapshot_harnesses(camp, [(kind, width)], None)
    r = fuzz.run_chunk(camp, plan, frames, bins[(kind, width)])
    assert len(r.failures) == 1
    f = r.failures[0]
    assert f.kind == "stall" and f.chunk_seed == plan.seed
    assert any("watchdog" in m for m in f.messages), f.messages
    assert len(pcap.read_ethernet(f.files["chunk"])) == 120
    assert f.culprit is not None and Path(f.files["first"]).is_file()
    assert any(f"--seed {plan.seed}" in c for c in f.replay)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wirespeed.cli", "fuzz", *args], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=600)


def test_cli_prints_frames_per_second(tmp_path: Path) -> None:
    p = _cli("--seed", "9", "--count", "400", "--block", "vxlan-encap", "--widths", "256",
             "--chunk", "200", "--out-dir", str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert "frames/s" in p.stdout and "no failures" in p.stdout
    assert "fuzz: 400/400 frames (100%)" in p.stderr  # one progress line per chunk
    s = json.loads((tmp_path / "summary.json").read_text())
    assert s["frames_by_block_width"] == {"vxlan-encap": {"256": 400}}
    bad = _cli("--count", "0", "--out-dir", str(tmp_path))
    assert bad.returncode == 2 and "--count" in bad.stderr
    bad = _cli("--only-chunk", "5", "--count", "10", "--chunk", "10", "--block", "gre",
               "--out-dir", str(tmp_path))
    assert bad.returncode == 2 and "--only-chunk 5: this campaign has chunks 0..0" in bad.stderr


def test_only_chunk_replays_the_campaigns_chunk(tmp_path: Path) -> None:
    """`--only-chunk K` regenerates chunk K exactly: same setup, same simulated cycles and
    outcome counts as in the whole campaign, and the campaign's summary is kept."""
    kw = dict(seed=12, count=900, widths=(WIDTHS[0], WIDTHS[-1]), chunk=150, out_dir=tmp_path,
              quiet=True)
    full = fuzz.run_campaign(fuzz.Campaign(**kw))
    for k in (1, 2):
        one = fuzz.run_campaign(fuzz.Campaign(only_chunk=k, **kw))
        same = ("index", "seed", "plan", "cycles", "failed")
        assert [{x: c[x] for x in same} for c in one["chunks"]] == \
            [{x: full["chunks"][k][x] for x in same}]
        assert one["frames"] == {1: 300, 2: 150}[k]  # a ws_vtep chunk feeds both directions
        assert one["files"][0].endswith(f"summary-chunk{k}.json")
    assert json.loads((tmp_path / "summary.json").read_text())["frames"] == 900


def test_campaign_snapshots_the_one_build_of_each_harness(tmp_path: Path, monkeypatch) -> None:
    """Every top has one build: the campaign builds each harness in its default directory with no
    top-level parameters (sim/build.sh is replaced by a stand-in that records its -G flags), and
    its replay command names no build option."""
    monkeypatch.setattr(paths, "BUILD", tmp_path / "build")
    calls: list[tuple[list[str], str, str]] = []

    class FakeBuild:  # subprocess.Popen's part that wirespeed.build uses
        def __init__(self, cmd, cwd, env, stdout, stderr):  # noqa: ANN001 - Popen's signature
            calls.append((cmd, env.get("WS_SIM_VFLAGS", ""), env.get("WS_SIM_MDIR", "")))
            out = Path(env.get("WS_SIM_MDIR") or build.harness_path(64, "vtep" if "vtep" in cmd
                                                                    else "gre").parent)
            (out / ("ws_vtep" if "vtep" in cmd else "ws_sim")).write_bytes(b"")

        def wait(self, timeout: float | None = None) -> int:
            return 0

    monkeypatch.setattr(build.subprocess, "Popen", FakeBuild)
    camp = fuzz.Campaign(widths=(64,), out_dir=tmp_path / "fuzz", quiet=True)
    assert camp.fuzz_command() == (
        f"wirespeed fuzz --seed 1 --count {fuzz.DEFAULT_COUNT} --block all --widths 64 "
        f"--chunk {fuzz.DEFAULT_CHUNK} --max-idle-cycles {fuzz.DEFAULT_MAX_IDLE_CYCLES} "
        f"--out-dir {tmp_path / 'fuzz'}")
    bins = fuzz._snapshot_harnesses(camp, [("gre", 64), ("vtep", 64)], None)
    assert set(bins) == {("gre", 64), ("vtep", 64)}
    assert len(calls) == 2 and all(vflags == "" for _, vflags, _ in calls)
    assert build.harness_path(64, "vtep").parent.name == "vtep_w64"
    assert build.harness_path(64, "gre").parent.name == "w64"

"""`wirespeed bench --block vtep` (docs/bench/vtep_linerate.json) on a few frames per size: the
cycles per frame, the idle-pipeline latency per direction and size, and the simulation speed
it records. Cycle counts are deterministic, so they are compared with exact values."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from vtep_util import run_ok
from wirespeed import vtep
from wirespeed.model import vxlan as vxlan_model
from wirespeed.model import vxlan_frames as VF


def _beats(n: int, w: int) -> int:
    return -(-n // (w // 8))


def _decap_latency(size: int, w: int) -> int:
    """The decap's idle-pipeline cycles (wirespeed.model.vxlan.latency_cycles) for the bench's
    frame of `size` (an inner frame of size - 4 bus bytes in IPv4/UDP/VXLAN, no VLAN push)."""
    rng = random.Random(size)
    frame = VF.vxlan_frame(0x1000, VF.inner_frame(rng, size - 4, "udp4")).frame
    assert len(frame) == size + 46
    return vxlan_model.latency_cycles(frame, w // 8)


@pytest.fixture(scope="module")
def bench_doc(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("vtep_bench") / "vtep_linerate.json"
    proc = run_ok(["bench", "--block", "vtep", "--widths", "64", "256", "--frames", "8",
                   "--no-large-table", "--output", out, "-q"])
    return json.loads(out.read_text()), proc.stdout


def test_cycles_per_frame_is_the_network_frames_beats(bench_doc: tuple[dict, str]) -> None:
    doc, stdout = bench_doc
    assert doc["sizes"] == list(vtep.BENCH_SIZES) and doc["frames_per_size"] == 8
    # vtep_top has one build: the widths asked, no other build's runs
    assert list(doc["widths"]) == ["64", "256"] and "pipelined" not in doc
    assert "pipelined" not in stdout
    for w in (64, 256):
        for d in vtep.DIRECTIONS:
            for size in doc["sizes"]:
                e = doc["widths"][str(w)][d][str(size)]
                # one beat per cycle, bound by the larger side: the VXLAN frame (size + 50
                # with FCS, size + 46 on the bus); the encap's edit engine ends each frame in
                # the slot of its last output beat (axis_edit FOLD_LAST)
                assert e["cycles_per_frame"] == e["beats_bound"] == _beats(size + 46, w), (
                    w, d, size)
    # the seed's 804-byte network frames at 256 bits: 25 beats, 10 Mpps at 250 MHz
    e = doc["widths"]["256"]["decap"]["754"]
    assert e["cycles_per_frame"] == 25 and e["mpps_at_clock"] == pytest.approx(10.0)


def test_idle_latency_per_direction_and_size(bench_doc: tuple[dict, str]) -> None:
    doc, stdout = bench_doc
    assert "latency" in doc and "idle pipeline" in doc["latency"]
    assert doc["latency_frames_per_size"] == vtep.LATENCY_FRAMES
    assert doc["latency_pacing_gbps"] == pytest.approx(0.5)     # 250 MHz, 4 cycles per byte
    for w in (64, 256):
        lat = doc["widths"][str(w)]["latency"]
        assert set(lat) == set(vtep.DIRECTIONS)
        for d in vtep.DIRECTIONS:
            assert set(lat[d]) == {str(s) for s in doc["sizes"]}
        # decap is cut-through: its contract's exact cycles at every size (docs/vxlan.md,
        # "Structure and latency"), from the beat that completes the 128-byte window
        for size in doc["sizes"]:
            assert lat["decap"][str(size)] == _decap_latency(size, w), (w, size)
        # encap stores the whole host frame first: its contract's exact cycles at every size
        # (docs/vxlan.md, "Encap"): the input beats, the input registers' and the FIFO's 5, the beat
        # completing the classifier's window, 12 and the edit engine's latency
        enc = [lat["encap"][str(s)] for s in doc["sizes"]]
        assert enc == sorted(enc) and enc[-1] > enc[0]
        for size in doc["sizes"]:
            want = vxlan_model.encap_latency_cycles(bytes(size - 4), w // 8)
            assert lat["encap"][str(size)] == want, (w, size)
    # 256 bits, the seed's 804-byte network frames (754-byte host frames, no VLAN push): decap
    # 26 cycles (window beat 3 + 11 + the engine's 11 + slot 1), encap 53 (24 input beats - 1
    # + 5 + window beat 2 + 12 + the engine's 11)
    lat = doc["widths"]["256"]["latency"]
    assert lat["decap"]["754"] == 26 and lat["encap"]["754"] == 53
    assert doc["widths"]["64"]["latency"]["decap"]["754"] == 42
    assert lat["encap"]["64"] == 30 and lat["encap"]["9000"] == 311
    assert "idle-pipeline latency" in stdout


def test_simulation_speed_is_recorded(bench_doc: tuple[dict, str]) -> None:
    doc, _ = bench_doc
    assert "sim_speed" in doc
    for w in (64, 256):
        r = doc["widths"][str(w)]
        assert r["frames"] == 2 * len(doc["sizes"]) * doc["frames_per_size"]
        assert r["wall_seconds"] > 0 and r["cycles"] > 0
        # recorded to 0.1 frame/s (wirespeed/vtep.py): a slow, loaded machine's rate is under
        # 50 frames/s, where that rounding alone is more than 0.1 %
        assert r["sim_frames_per_second"] == pytest.approx(r["frames"] / r["wall_seconds"],
                                                           rel=1e-3, abs=0.05)
        assert r["sim_cycles_per_second"] > 0


def test_idle_latency_flags_a_spread() -> None:
    rows = [(0, 10, 15), (1, 100, 105), (2, 200, 209), (3, 300, 311)]
    res, problems = vtep.idle_latency(rows, [0, 0, 1, 1], [64, 128])
    assert res == {"64": 5, "128": 11}
    assert problems == ["size 128: 9..11 cycles"]
    res, problems = vtep.idle_latency(rows[:2], [0, 0], [64, 128])
    assert res == {"64": 5} and problems == ["size 128: no output frame"]

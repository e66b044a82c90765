"""`wirespeed run` on scapy-built pcaps: the output equals the golden model, frame by frame.

Every frame of the contract's directed cases and a few hundred random ones go through the real
Verilator harness via the CLI; RX-error cases are left out because a pcap cannot carry tuser.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from e2e_util import run_ok, run_vs_model, write_pcap
from wirespeed.model.frames import contract_cases, random_gre_case, seed_gre_frame
from wirespeed.model.gre import GreConfig, gre_decap


def _contract_frames() -> list[bytes]:
    return [c.frame for c in contract_cases() if not c.bad]


def _random_frames(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out: list[bytes] = []
    while len(out) < n:
        c = random_gre_case(rng, max_len=4000, big=0.03)
        if not c.bad:
            out.append(c.frame)
    return out


@pytest.mark.parametrize("width", [64, 256])
def test_contract_cases_match_model(tmp_path: Path, width: int) -> None:
    frames = _contract_frames()
    rep = run_vs_model(frames, tmp_path, width, name="contract")
    assert rep["decapsulated"] > 100 and rep["punted"] > 5
    # Cut-through: late drops whose output had begun are aborted (tuser=1), the others never
    # start; which is which depends on the bus width, exactly as the model predicts.
    aborted = sum(gre_decap(f, GreConfig(), keep_w=width // 8).aborted for f in frames)
    assert rep["aborted"] == aborted and aborted > 0


@pytest.mark.parametrize("width", [64, 256])
def test_random_cases_with_backpressure_match_model(tmp_path: Path, width: int) -> None:
    frames = _random_frames(400, seed=width)
    run_vs_model(frames, tmp_path, width, name="random",
                 extra=["--stall-prob", "0.3", "--idle-prob", "0.1", "--seed", "7",
                        "--line-rate-gbps", "0"])


POLICIES = {
    "allow_list": """
allow_list:
  enabled: true
  entries:
    - {src: 10.0.0.1, dst: 10.0.0.2}
    - {src: 192.0.2.1, dst: 198.51.100.7}
""",
    "drop_pass_punt_forward_malformed": """
policy: {pass: drop, punt: drop, malformed: forward}
""",
    "everything": """
data_width: 128
allow_list: {enabled: true, entries: [{src: 10.0.0.1, dst: 10.0.0.2}]}
policy: {pass: forward, punt: drop, malformed: forward}
""",
}


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_config_register_writes_match_model(tmp_path: Path, policy: str) -> None:
    frames = _contract_frames()[:200] + _random_frames(150, seed=3)
    width = 256 if policy != "everything" else 64
    rep = run_vs_model(frames, tmp_path, width, config_text=POLICIES[policy], name=policy)
    o = rep["outcomes"]
    if policy == "allow_list":
        assert o["DROP_NOT_ALLOWED"]["packets"] > 0 and o["DECAP_L3"]["packets"] > 0
    if policy == "drop_pass_punt_forward_malformed":
        assert o["DROP_POLICY"]["packets"] > 0 and rep["forwarded_malformed"] > 0
        assert rep["drops"]["DROP_POLICY"] == o["DROP_POLICY"]["packets"]


def test_cli_check_flag_reports_agreement(tmp_path: Path) -> None:
    inp = write_pcap(tmp_path / "in.pcap", [seed_gre_frame(i) for i in range(20)])
    rep = tmp_path / "r.json"
    proc = run_ok(["run", "--in", inp, "--out", tmp_path / "out.pcap", "--report", rep,
                   "--check"])
    assert "DECAP_L3 20" in proc.stdout
    r = json.loads(rep.read_text())
    assert r["model_check"] == {"frames": 20, "ok": True, "differences": []}
    assert r["latency_by_outcome"]["DECAP_L3"]["count"] == 20

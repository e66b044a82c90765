"""`wirespeed run --block vtep --check` on pcaps: the decap and encap contract cases and random
frames of the golden model's builders, one direction at a time and both at once; the output
pcaps equal the golden model frame for frame (checked by --check and again here)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from vtep_util import run_vtep, tunnels_yaml
from wirespeed.model.vxlan_frames import (decap_contract_cases, encap_contract_cases,
                                          random_host_frame, random_tunnels, random_vxlan_case)

VNIS = (42, 0x123456, 7)
VNI_CFG = ("  port2: 8472\n  vni_table:\n    enabled: true\n    entries:\n"
           "      - {vni: 42, vlan: 100}\n      - {vni: 1193046}\n      - {vni: 7, vlan: 0}\n")


def _net_frames(seed: int, n: int) -> list[bytes]:
    rng = random.Random(seed)
    cases = [c for c in decap_contract_cases(seed, VNIS) if not c.bad]
    while len(cases) < n:
        c = random_vxlan_case(rng, max_len=3000, vnis=VNIS)
        if not c.bad:  # a pcap carries no RX error
            cases.append(c)
    return [c.frame for c in cases]


def _host_frames(seed: int, tunnels: dict, n: int) -> list[bytes]:
    rng = random.Random(seed)
    cases = [c for c in encap_contract_cases(tunnels, seed) if not c.bad]
    while len(cases) < n:
        c = random_host_frame(rng, tunnels, max_len=3000)
        if not c.bad:
            cases.append(c)
    return [c.frame for c in cases]


def test_decap_pcap(tmp_path: Path) -> None:
    frames = _net_frames(1, 400)
    rep, _, got = run_vtep(tmp_path, 256, net=frames, config_text="vtep:\n" + VNI_CFG,
                           name="decap")
    assert "encap" not in rep
    d = rep["decap"]
    assert d["tx_packets"] == len(frames)
    # the cases cover the contract: decapsulation, PASS and several drop reasons
    counts = {k: v["packets"] for k, v in d["outcomes"].items() if v["packets"]}
    for name in ("DECAP", "PASS", "DROP_UNKNOWN_VNI", "DROP_IP_CHECKSUM", "DROP_VXLAN_FLAGS",
                 "DROP_UDP_CHECKSUM", "DROP_TRUNCATED", "DROP_ECN"):
        assert counts.get(name), f"no {name} frame among the cases: {counts}"


def test_encap_pcap(tmp_path: Path) -> None:
    tunnels = random_tunnels(random.Random(3), 64)
    frames = _host_frames(3, tunnels, 300)
    rep, _, _ = run_vtep(tmp_path, 256, host=frames, config_text="vtep:\n" + tunnels_yaml(tunnels),
                         name="encap")
    assert "decap" not in rep
    counts = {k: v["packets"] for k, v in rep["encap"]["outcomes"].items() if v["packets"]}
    for name in ("ENCAP", "PASS_MISS", "PASS_NOT_IPV4"):
        assert counts.get(name), f"no {name} frame among the cases: {counts}"


@pytest.mark.parametrize("width", [256])
def test_both_directions_strict_drop(tmp_path: Path, width: int) -> None:
    """Both directions at once, with strict reserved bits, PASS dropped and tunnel misses
    dropped; random input gaps and output back-pressure."""
    tunnels = random_tunnels(random.Random(9), 32)
    text = ("vtep:\n  strict: true\n  drop_pass: true\n  miss: drop\n" + VNI_CFG
            + tunnels_yaml(tunnels))
    rep, _, _ = run_vtep(tmp_path, width, net=_net_frames(4, 200),
                         host=_host_frames(4, tunnels, 150), config_text=text, name="both",
                         extra=["--idle-prob", "0.2", "--stall-prob", "0.3", "--seed", "7"])
    dc = {k: v["packets"] for k, v in rep["decap"]["outcomes"].items() if v["packets"]}
    ec = {k: v["packets"] for k, v in rep["encap"]["outcomes"].items() if v["packets"]}
    assert dc.get("DROP_POLICY") and dc.get("DROP_VXLAN_RESERVED") and not dc.get("PASS")
    assert ec.get("DROP_MISS") and not ec.get("PASS_MISS")

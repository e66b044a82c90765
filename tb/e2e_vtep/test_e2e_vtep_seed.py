"""`wirespeed run --scenario vxlan-seed` (the Lanner/Ethernity VXLAN offload test) with a small
frame count: balance, zero loss, every decap and every encap output equal to the golden
model, the rates of a 10G port; once more at 64 bits with both inputs paced at 10 Gb/s in one
ws_vtep process (--host-rate line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vtep_util import assert_same_frames, expect_decap, expect_encap, run_ok
from wirespeed import pcap, vtep
from wirespeed.config import Config


@pytest.mark.parametrize("width, host_rate, n", [(256, "loopback", 600), (64, "line", 300)])
def test_seed_scenario(tmp_path: Path, width: int, host_rate: str, n: int) -> None:
    proc = run_ok(["run", "--scenario", "vxlan-seed", "--frames", n, "--width", width,
                   "--host-rate", host_rate, "--check", "--workdir", tmp_path])
    rep = json.loads((tmp_path / "report.json").read_text())
    de, en = rep["decap"], rep["encap"]
    # balance and zero loss, all frames of the seed's traffic decapsulated / encapsulated
    assert rep["balance_errors"] == [] and rep["model_check"]["ok"]
    assert de["tx_packets"] == de["rx_packets"] == en["tx_packets"] == en["rx_packets"] == n
    assert de["loss"] == en["loss"] == de["dropped"] == en["dropped"] == 0
    assert de["outcomes"]["DECAP"]["packets"] == n and en["outcomes"]["ENCAP"]["packets"] == n
    # 804-byte frames on the network wire both ways, 754-byte host frames
    assert de["tx_bytes"] == en["rx_bytes"] == 804 * n
    assert de["rx_bytes"] == en["tx_bytes"] == 754 * n
    # the network input at 10 GbE: 804 / (804 + 20) x 10 Gb/s of L2 bits (a short run's window
    # ends one frame early, so a little above)
    ideal = 10 * 804 / 824
    assert ideal - 0.01 < de["tx_gbps"] < ideal * (n + 1) / (n - 1)
    if host_rate == "loopback":  # the encapsulated output fills the port's 10 Gb/s too
        assert ideal - 0.01 < en["rx_gbps"] < ideal * (n + 1) / (n - 1)
        assert abs(rep["scenario"]["two_ports"]["l2_tx_gbps"] - 2 * de["tx_gbps"]) < 1e-9
    else:  # host port at 10 Gb/s of 754-byte frames: 824/774 of the network's frame rate
        assert en["tx_mpps"] > de["tx_mpps"] * 1.05
    # independently of --check: the pcaps equal the golden model frame for frame
    cfg = vtep.seed_config(Config(data_width=width))
    net = pcap.read_ethernet(tmp_path / "net_in.pcap")
    host = pcap.read_ethernet(tmp_path / "host_in.pcap")
    assert all(len(f) == 800 for f in net) and all(len(f) == 750 for f in host)
    want_d, counts_d, vnis = expect_decap(net, cfg, width)
    want_e, counts_e = expect_encap(host, cfg)
    assert dict(counts_d) == {"DECAP": n} and dict(counts_e) == {"ENCAP": n}
    assert_same_frames(pcap.read_ethernet(tmp_path / "host_out.pcap"), want_d, "decap")
    assert_same_frames(pcap.read_ethernet(tmp_path / "net_out.pcap"), want_e, "encap")
    assert len(set(vnis)) == min(n, 4096)
    # the printed table beside the seed's
    assert "19.5 Gbit/s" in proc.stdout and "wirespeed x 2 ports" in proc.stdout
    assert "every output frame matches" in proc.stdout


def test_seed_frames_and_tables() -> None:
    """The generator: correct checksums (the model decapsulates every frame and finds each host
    frame's tunnel), 4K distinct VNIs and 4K distinct tunnels spread over the 16K table."""
    net, host = vtep.seed_frames(4096 + 10, show_progress=False)
    cfg = vtep.seed_config()
    assert len(cfg.vtep.tunnels) == 16384 and len(cfg.vtep.vni_entries) == 4096
    assert cfg.vtep.vni_enabled and cfg.vtep.tunnel_slots == 32768
    want_d, counts_d, vnis = expect_decap(net, cfg, 256)
    assert dict(counts_d) == {"DECAP": len(net)}
    assert len(set(vnis)) == 4096
    assert all(o == f[50:] for o, f in zip(want_d, net))
    want_e, counts_e = expect_encap(host, cfg)
    assert dict(counts_e) == {"ENCAP": len(host)}
    outer_vnis = {int.from_bytes(o[46:49], "big") for o in want_e}
    assert len(outer_vnis) == 4096
    tunnels = sorted(v - vtep.TUNNEL_VNI_BASE for v in outer_vnis)
    assert tunnels[0] == 0 and tunnels[-1] == 16380  # every 4th tunnel of 16K
    assert all(len(o) == 800 for o in want_e)
    # frames differ per index (IP ID and payload sequence), not only per stream
    assert net[0] != net[4096] and host[0] != host[4096]

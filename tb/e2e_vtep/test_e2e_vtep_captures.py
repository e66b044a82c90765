"""Real VXLAN captures (suricata-verify, MIT; /work/shared/captures/SOURCES.md) through the
decap direction of vtep_top, via `wirespeed run --block vtep --check`.

What they hold (inspected with the golden model and tshark); every one uses UDP port 4789:
- vxlan-arp.pcap: 2 frames, VNI 100, inner ARP -> DECAP.
- vxlan-aws-traffic-mirror.pcap: 100 frames, VNI 5569041 (AWS traffic mirroring) -> DECAP.
- vxlan-icmp.pcap: 3 frames: one VXLAN (VNI 37) -> DECAP; two plain UDP (ports 12345, 32021)
  -> PASS, unchanged.
- vxlan-reserved-bits-set.pcap: 10 frames, VNI 11, reserved VXLAN bits set -> DECAP (RFC 7348:
  ignored), DROP_VXLAN_RESERVED with `strict: true`.
- vxlan-sample.pcap: 10 frames, VNI 100 -> DECAP.
With the VNI table on (100 -> push VLAN 7, 11, 37) the AWS mirror's VNI is unknown
(DROP_UNKNOWN_VNI) and VNI 100's inner frames get an 802.1Q tag.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vtep_util import run_vtep
from wirespeed import pcap
from wirespeed.paths import CAPTURES

DEFAULT = {
    "vxlan-arp.pcap": {"DECAP": 2},
    "vxlan-aws-traffic-mirror.pcap": {"DECAP": 100},
    "vxlan-icmp.pcap": {"DECAP": 1, "PASS": 2},
    "vxlan-reserved-bits-set.pcap": {"DECAP": 10},
    "vxlan-sample.pcap": {"DECAP": 10},
}
CONFIGS = {
    "default": ("", {}),
    "strict": ("vtep: {strict: true}\n",
               {"vxlan-reserved-bits-set.pcap": {"DROP_VXLAN_RESERVED": 10}}),
    "vni_table": ("vtep:\n  vni_table:\n    enabled: true\n    entries:\n"
                  "      - {vni: 100, vlan: 7}\n      - {vni: 11}\n      - {vni: 37}\n",
                  {"vxlan-aws-traffic-mirror.pcap": {"DROP_UNKNOWN_VNI": 100}}),
}


@pytest.mark.parametrize("cfg_name", sorted(CONFIGS))
@pytest.mark.parametrize("capture", sorted(DEFAULT))
def test_capture_decap_matches_model(tmp_path: Path, capture: str, cfg_name: str) -> None:
    src = CAPTURES / capture
    assert src.is_file(), f"{src} is missing (the shared captures folder, wirespeed.paths.CAPTURES)"
    frames = pcap.read_ethernet(src)
    text, overrides = CONFIGS[cfg_name]
    rep, _, got = run_vtep(tmp_path, 256, net=frames, config_text=text or None,
                           name=f"{capture.removesuffix('.pcap')}_{cfg_name}", net_in=src)
    want = overrides.get(capture, DEFAULT[capture])
    counted = {k: v["packets"] for k, v in rep["decap"]["outcomes"].items() if v["packets"]}
    assert counted == want
    d = rep["decap"]
    assert d["tx_packets"] == len(frames) and d["loss"] == 0
    assert d["rx_packets"] == want.get("DECAP", 0) + want.get("PASS", 0)
    if cfg_name == "vni_table" and capture in ("vxlan-sample.pcap", "vxlan-arp.pcap"):
        # VNI 100 pushes VLAN 7: every inner frame carries 81 00 00 07 after its MACs
        assert all(f[12:16] == b"\x81\x00\x00\x07" for f in got["decap"])

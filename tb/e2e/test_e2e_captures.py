"""Real captures (suricata-verify, MIT; see /work/shared/captures/SOURCES.md) through the CLI.

What they hold (inspected with tshark):
- gre-sample.pcap: 40 frames Ether/IPv4/GRE(0x0800)/IPv4 (SSH, NTP, ICMP incl. two ICMP errors
  quoting a UDP packet) -> all DECAP_L3, 24 bytes removed each.
- gre-udp.pcap: 3 frames Ether/802.1Q/IPv4/GRE/IPv4/UDP syslog -> DECAP_L3, the VLAN tag kept.
- erspan-type1.pcap: 42 frames Ether/802.1Q?/IPv4/GRE(0x88BE, ERSPAN I) -> PUNT, unchanged.
- erspan-type2.pcap: 6 frames Ether/IPv4/GRE(S=1, 0x88BE, ERSPAN II) -> PUNT, unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_util import run_vs_model, tshark_fields
from wirespeed import pcap
from wirespeed.paths import CAPTURES

EXPECTED = {
    "gre-sample.pcap": {"DECAP_L3": 40},
    "gre-udp.pcap": {"DECAP_L3": 3},
    "erspan-type1.pcap": {"PUNT": 42},
    "erspan-type2.pcap": {"PUNT": 6},
}


@pytest.mark.parametrize("width", [64, 256])
@pytest.mark.parametrize("capture", sorted(EXPECTED))
def test_capture_matches_model(tmp_path: Path, capture: str, width: int, tshark: str) -> None:
    src = CAPTURES / capture
    assert src.is_file(), f"{src} is missing (the shared captures folder, wirespeed.paths.CAPTURES)"
    frames = pcap.read_ethernet(src)
    rep = run_vs_model(frames, tmp_path, width, name=capture.removesuffix(".pcap"), in_path=src)
    counted = {k: v["packets"] for k, v in rep["outcomes"].items() if v["packets"]}
    assert counted == EXPECTED[capture]
    assert rep["loss"] == 0

    # tshark dissects our output: decapsulated frames show the inner packet and no GRE layer;
    # punted ERSPAN frames are byte-identical and still dissect as GRE/ERSPAN.
    out = Path(rep["_out_path"])
    fields = ("frame.protocols", "ip.src", "ip.dst", "gre.proto")
    before = tshark_fields(tshark, src, *fields)
    after = tshark_fields(tshark, out, *fields)
    assert len(before) == len(after) == len(frames)
    for i, (b, a) in enumerate(zip(before, after)):
        b_proto, b_src, b_dst, b_gre = b
        a_proto, a_src, a_dst, a_gre = a
        if "DECAP_L3" in EXPECTED[capture]:
            assert ":gre:" not in a_proto and a_gre == "", f"frame {i}: {a_proto}"
            assert a_proto == b_proto.replace("ip:gre:", "", 1), f"frame {i}"
            # The outer addresses are gone; the inner (and any quoted) ones remain.
            assert a_src.split(",") == b_src.split(",")[1:], f"frame {i}"
            assert a_dst.split(",") == b_dst.split(",")[1:], f"frame {i}"
        else:
            assert a == b and a_gre == "0x88be" and ":gre:erspan:" in a_proto, f"frame {i}"

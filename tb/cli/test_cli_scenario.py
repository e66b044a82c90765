"""Unit tests of the default scenario generator (wirespeed.scenario)."""

from __future__ import annotations

import logging

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.layers.inet import IP, TCP  # noqa: E402
from scapy.layers.l2 import GRE, Ether  # noqa: E402

from wirespeed import scenario  # noqa: E402
from wirespeed.model.gre import GreConfig, Outcome, gre_decap  # noqa: E402


def _checksums_ok(frame: bytes) -> bool:
    """Let scapy recompute every IPv4 and TCP checksum; the bytes must not change."""
    pkt = Ether(frame)
    for layer in (IP, TCP):
        for k in (1, 2):
            lay = pkt.getlayer(layer, nb=k)
            if lay is not None:
                del lay.chksum
    return bytes(Ether(bytes(pkt))) == frame


def test_templates_are_the_seed_frames() -> None:
    gre, tcp = scenario.templates()
    assert len(gre) == len(tcp) == scenario.SEED_BUS_BYTES == 88
    assert Ether(gre).haslayer(GRE) and not Ether(tcp).haslayer(GRE)
    assert scenario.locate(gre) == scenario.Slots(ip=38, tcp=58)
    assert scenario.locate(tcp) == scenario.Slots(ip=14, tcp=34)


def test_generate_alternates_and_varies_with_valid_checksums() -> None:
    frames = scenario.generate(2000, show_progress=False)
    assert len(frames) == 2000 and {len(f) for f in frames} == {88}
    assert len(set(frames)) == 2000  # every frame differs
    for i in (0, 1, 2, 3, 1234, 1235, 1998, 1999):
        f = frames[i]
        assert Ether(f).haslayer(GRE) == (i % 2 == 0)
        assert _checksums_ok(f), i
        inner = Ether(f).getlayer(IP, nb=2 if i % 2 == 0 else 1)
        assert inner.id == (i >> 1) & 0xFFFF and inner[TCP].seq == 1000 * (i >> 1)


def test_wraparound_keeps_checksums_valid() -> None:
    gre, tcp = scenario.templates()
    for v in (scenario.Variants(gre), scenario.Variants(tcp)):
        for i in (65535, 65536, 65537, 4_294_967, 4_294_968, 10_000_000):
            assert _checksums_ok(v.frame(i)), i


def test_model_sees_the_seed_mix() -> None:
    frames = scenario.generate(100, show_progress=False)
    cfg = GreConfig()
    res = [gre_decap(f, cfg) for f in frames]
    assert [r.outcome for r in res] == [Outcome.DECAP_L3, Outcome.PASS] * 50
    out = [len(r.output) for r in res]
    assert out == [64, 88] * 50  # 68 and 92 bytes with FCS: ratio 160/184


def test_wire_bytes_and_timestamps() -> None:
    assert scenario.wire_bytes(88) == 112  # 92 + preamble/SFD 8 + IFG 12
    assert scenario.wire_bytes(20) == 84   # padded to the 64-byte minimum
    ts = scenario.timestamps_ns([b"\0" * 88] * 3, 10.0)
    assert ts == [0, 89, 179]  # 89.6 ns per 92-byte frame at 10 Gb/s

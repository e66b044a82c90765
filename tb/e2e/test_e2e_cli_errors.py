"""CLI errors: bad configs and bad pcaps give a non-zero exit and a message naming the file and
the field, before any simulation starts."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from e2e_util import run_cli, write_pcap
from wirespeed.model.frames import seed_gre_frame
from wirespeed.paths import CAPTURES

EXIT_INPUT = 2


def _fails(args: list, *needles: str) -> str:
    proc = run_cli(args, timeout=120)
    assert proc.returncode == EXIT_INPUT, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr.startswith("wirespeed: error: "), proc.stderr
    for n in needles:
        assert n in proc.stderr, f"{n!r} not in {proc.stderr!r}"
    assert "Traceback" not in proc.stderr
    return proc.stderr


@pytest.mark.parametrize("text, needle", [
    ("polcy: {punt: drop}\n", "polcy: unknown key (known: data_width, clock_mhz, line_rate_gbps, "
                              "allow_list, policy)"),
    ("policy: {punt: dorp}\n", "policy.punt: 'dorp' is not one of forward, drop"),
    ("data_width: 100\n", "data_width: 100 is not one of 64, 128, 256, 512"),
    ("allow_list: {entries: [{src: 1.2.3, dst: 10.0.0.1}]}\n",
     "allow_list.entries[0].src: '1.2.3' is not an IPv4 address"),
])
def test_bad_config(tmp_path: Path, text: str, needle: str) -> None:
    cfg = tmp_path / "config.yaml"
    cfg.write_text(text)
    _fails(["run", "--config", cfg, "--frames", "10", "--workdir", tmp_path], f"{cfg}: {needle}")
    inp = write_pcap(tmp_path / "in.pcap", [seed_gre_frame(0)])
    _fails(["run", "--config", cfg, "--in", inp, "--out", tmp_path / "o.pcap"], f"{cfg}: {needle}")
    _fails(["config", cfg], f"{cfg}: {needle}")


def _pcap_bytes(linktype: int, frames: list[bytes]) -> bytes:
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype)]
    for f in frames:
        out += [struct.pack("<IIII", 0, 0, len(f), len(f)), f]
    return b"".join(out)


@pytest.mark.parametrize("linktype, name", [(101, "raw IP"), (113, "Linux cooked (SLL)"),
                                            (0, "NULL (BSD loopback)")])
def test_non_ethernet_link_type(tmp_path: Path, linktype: int, name: str) -> None:
    bad = tmp_path / "raw.pcap"
    bad.write_bytes(_pcap_bytes(linktype, [seed_gre_frame(0)[14:]]))
    _fails(["run", "--in", bad, "--out", tmp_path / "o.pcap"],
           f"{bad}: link type {linktype} ({name}) is not supported", "Ethernet")


def test_truncated_pcap(tmp_path: Path) -> None:
    blob = (CAPTURES / "gre-sample.pcap").read_bytes()
    bad = tmp_path / "cut.pcap"
    bad.write_bytes(blob[: len(blob) - 50])
    _fails(["run", "--in", bad, "--out", tmp_path / "o.pcap"], f"{bad}: truncated: record 40")
    bad.write_bytes(blob[:30])
    _fails(["run", "--in", bad, "--out", tmp_path / "o.pcap"], f"{bad}: truncated: record 1 header")
    bad.write_bytes(blob[:10])
    _fails(["run", "--in", bad, "--out", tmp_path / "o.pcap"], f"{bad}: truncated pcap header")


def test_not_a_pcap_and_broken_pcapng(tmp_path: Path) -> None:
    txt = tmp_path / "notes.pcap"
    txt.write_text("this is not a capture\n")
    _fails(["run", "--in", txt, "--out", tmp_path / "o.pcap"], f"{txt}: not a pcap file")
    ng = tmp_path / "x.pcapng"
    ng.write_bytes(b"\x0a\x0d\x0d\x0a" + bytes(60))  # pcapng is read; this one is broken
    _fails(["run", "--in", ng, "--out", tmp_path / "o.pcap"], f"{ng}: broken pcapng",
           "byte-order magic")
    _fails(["run", "--in", tmp_path / "missing.pcap", "--out", tmp_path / "o.pcap"],
           "missing.pcap: cannot read")


def test_snapped_frames(tmp_path: Path) -> None:
    f = seed_gre_frame(0)
    blob = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 64, 1)
    blob += struct.pack("<IIII", 0, 0, 64, len(f)) + f[:64]
    bad = tmp_path / "snap.pcap"
    bad.write_bytes(blob)
    _fails(["run", "--in", bad, "--out", tmp_path / "o.pcap"],
           f"{bad}: frame 1 was cut by the capture's snap length (64 of 88 bytes")


def test_argument_errors(tmp_path: Path) -> None:
    inp = write_pcap(tmp_path / "in.pcap", [seed_gre_frame(0)])
    _fails(["run", "--in", inp], "--in needs --out")
    _fails(["run", "--in", inp, "--out", tmp_path / "o.pcap", "--frames", "5"],
           "--frames applies to the default scenario only")
    _fails(["run", "--frames", "1", "--workdir", tmp_path], "--frames must be at least 2")
    proc = run_cli(["run", "--width", "100"], timeout=60)
    assert proc.returncode == 2 and "invalid choice: 100" in proc.stderr

"""Unit tests of wirespeed.pcap: both byte orders, µs/ns, and every error names the file."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from wirespeed import pcap
from wirespeed.pcap import PcapError

FRAMES = [bytes(range(60)), b"\xff" * 64, bytes(range(256)) * 6]


def raw_pcap(frames: list[bytes], endian: str = "<", magic: int = 0xA1B2C3D4,
             linktype: int = 1, snaplen: int = 65535, orig_extra: int = 0) -> bytes:
    out = [struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)]
    for i, f in enumerate(frames):
        out.append(struct.pack(endian + "IIII", 1000 + i, 7, len(f), len(f) + orig_extra))
        out.append(f)
    return b"".join(out)


@pytest.mark.parametrize("endian", ["<", ">"])
@pytest.mark.parametrize("magic", [0xA1B2C3D4, 0xA1B23C4D])
def test_read_both_orders_and_units(tmp_path: Path, endian: str, magic: int) -> None:
    p = tmp_path / "x.pcap"
    p.write_bytes(raw_pcap(FRAMES, endian, magic))
    got = pcap.read(p)
    assert got.frames == FRAMES
    assert got.big_endian == (endian == ">")
    assert got.nanosecond == (magic == 0xA1B23C4D)
    assert got.records[1].ts_sec == 1001 and got.records[1].ts_frac == 7
    assert pcap.read_ethernet(p) == FRAMES


def test_write_roundtrip(tmp_path: Path) -> None:
    p = tmp_path / "w.pcap"
    assert pcap.write(p, FRAMES, timestamps_ns=[0, 1_500_000_123, 2_000_000_000]) == 3
    got = pcap.read(p)
    assert got.frames == FRAMES and got.nanosecond and got.linktype == 1
    assert (got.records[1].ts_sec, got.records[1].ts_frac) == (1, 500_000_123)
    q = tmp_path / "us.pcap"
    pcap.write(q, FRAMES, nanosecond=False, timestamps_ns=[0, 1_500_000_123, 5])
    assert pcap.read(q).records[1].ts_frac == 500_000


def test_empty_capture_is_fine(tmp_path: Path) -> None:
    p = tmp_path / "e.pcap"
    pcap.write(p, [])
    assert pcap.read_ethernet(p) == []


def test_fcs_declared_in_header_is_removed(tmp_path: Path) -> None:
    p = tmp_path / "fcs.pcap"
    lt = 1 | 0x04000000 | (2 << 28)  # P bit, FCS length 2 words = 4 bytes
    p.write_bytes(raw_pcap([f + b"\xde\xad\xbe\xef" for f in FRAMES], linktype=lt))
    assert pcap.read_ethernet(p) == FRAMES


def _err(tmp_path: Path, blob: bytes, name: str = "bad.pcap") -> str:
    p = tmp_path / name
    p.write_bytes(blob)
    with pytest.raises(PcapError) as exc:
        pcap.read_ethernet(p)
    msg = str(exc.value)
    assert msg.startswith(str(p) + ":"), msg
    return msg


def test_other_link_type(tmp_path: Path) -> None:
    msg = _err(tmp_path, raw_pcap(FRAMES, linktype=101))
    assert "link type 101 (raw IP) is not supported" in msg and "Ethernet" in msg
    assert "Linux cooked (SLL)" in _err(tmp_path, raw_pcap(FRAMES, linktype=113))


def test_truncated_record_data(tmp_path: Path) -> None:
    msg = _err(tmp_path, raw_pcap(FRAMES)[:-10])
    assert "truncated: record 3 has" in msg


def test_truncated_record_header(tmp_path: Path) -> None:
    blob = raw_pcap(FRAMES[:1]) + b"\x00" * 7
    assert "truncated: record 2 header" in _err(tmp_path, blob)


def test_truncated_global_header(tmp_path: Path) -> None:
    assert "truncated pcap header" in _err(tmp_path, raw_pcap([])[:20])


def test_not_a_pcap(tmp_path: Path) -> None:
    assert "not a pcap file" in _err(tmp_path, b"hello world, this is text\n")
    assert "too short" in _err(tmp_path, b"")


def test_broken_pcapng_named(tmp_path: Path) -> None:
    # pcapng is read (tb/cli/test_cli_issue28.py); a broken one is named as such
    assert "broken pcapng" in _err(tmp_path, b"\x0a\x0d\x0d\x0a" + b"\0" * 40)


def test_snaplen_cut_frames_refused(tmp_path: Path) -> None:
    assert "cut by the capture's snap length" in _err(tmp_path, raw_pcap(FRAMES, orig_extra=4))


def test_absurd_length(tmp_path: Path) -> None:
    blob = raw_pcap([]) + struct.pack("<IIII", 0, 0, 0x7FFFFFFF, 0x7FFFFFFF)
    assert "claims 2147483647 bytes" in _err(tmp_path, blob)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PcapError, match="nothere.pcap: cannot read"):
        pcap.read(tmp_path / "nothere.pcap")

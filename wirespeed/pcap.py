"""A small, fast reader and writer for classic libpcap files.

Only what wirespeed needs: both byte orders, microsecond and nanosecond timestamps, and
checks that turn every malformed file into a :class:`PcapError` naming the file and the
problem (never a bare ``struct.error``). pcapng is recognised and refused with a hint.

Frames in a pcap are Ethernet frames *without* FCS, exactly as they travel on the
AXI4-Stream bus. A file whose header declares an FCS (the FCS-length field of the link-type
word) has those bytes removed by :func:`read_ethernet`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

LINKTYPE_ETHERNET = 1

_MAGIC_US = 0xA1B2C3D4
_MAGIC_NS = 0xA1B23C4D
_PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
_GLOBAL_HDR = 24
_REC_HDR = 16
# Largest frame we accept; a record longer than this is a sign of a broken file.
MAX_FRAME = 65535

_LINKTYPE_NAMES = {
    0: "NULL (BSD loopback)",
    1: "Ethernet",
    101: "raw IP",
    105: "IEEE 802.11",
    113: "Linux cooked (SLL)",
    127: "802.11 radiotap",
    228: "raw IPv4",
    229: "raw IPv6",
    276: "Linux cooked v2 (SLL2)",
}


class PcapError(ValueError):
    """A pcap file that cannot be used; the message names the file and the problem."""


@dataclass
class Record:
    """One captured frame: timestamp (seconds, fraction in ``ts_unit``), bytes, wire length."""

    ts_sec: int
    ts_frac: int
    data: bytes
    orig_len: int


@dataclass
class Pcap:
    """A whole classic pcap file in memory."""

    path: str
    linktype: int
    nanosecond: bool
    big_endian: bool
    snaplen: int
    fcs_len: int
    records: list[Record] = field(default_factory=list)

    @property
    def frames(self) -> list[bytes]:
        return [r.data for r in self.records]


def linktype_name(linktype: int) -> str:
    return _LINKTYPE_NAMES.get(linktype, f"link type {linktype}")


def read(path: str | Path) -> Pcap:
    """Parse a classic pcap file completely; raise :class:`PcapError` on any defect."""
    name = str(path)
    try:
        blob = Path(path).read_bytes()
    except OSError as exc:
        raise PcapError(f"{name}: cannot read: {exc.strerror or exc}") from exc
    if len(blob) < 4:
        raise PcapError(f"{name}: not a pcap file: {len(blob)} bytes, too short for a header")
    if blob[:4] == _PCAPNG_MAGIC:
        raise PcapError(
            f"{name}: pcapng is not supported; convert it with `editcap -F pcap {name} out.pcap`"
        )
    magic_le = struct.unpack_from("<I", blob)[0]
    magic_be = struct.unpack_from(">I", blob)[0]
    if magic_le in (_MAGIC_US, _MAGIC_NS):
        endian, magic = "<", magic_le
    elif magic_be in (_MAGIC_US, _MAGIC_NS):
        endian, magic = ">", magic_be
    else:
        raise PcapError(f"{name}: not a pcap file (magic 0x{magic_le:08x})")
    if len(blob) < _GLOBAL_HDR:
        raise PcapError(f"{name}: truncated pcap header ({len(blob)} of {_GLOBAL_HDR} bytes)")
    major, minor, _tz, _sig, snaplen, lt_word = struct.unpack_from(endian + "HHiIII", blob, 4)
    if major != 2:
        raise PcapError(f"{name}: unsupported pcap version {major}.{minor}")
    linktype = lt_word & 0x0FFFFFFF
    fcs_len = 0
    if lt_word & 0x04000000:  # "F" bit: the FCS-length field is valid
        fcs_len = 2 * ((lt_word >> 28) & 0xF)
        linktype = lt_word & 0x03FFFFFF
    pcap = Pcap(name, linktype, magic == _MAGIC_NS, endian == ">", snaplen, fcs_len)
    rec = struct.Struct(endian + "IIII")
    off, n, size = _GLOBAL_HDR, 0, len(blob)
    records = pcap.records
    while off < size:
        n += 1
        if off + _REC_HDR > size:
            raise PcapError(
                f"{name}: truncated: record {n} header at byte {off} has "
                f"{size - off} of {_REC_HDR} bytes"
            )
        ts_sec, ts_frac, incl, orig = rec.unpack_from(blob, off)
        off += _REC_HDR
        if incl > MAX_FRAME:
            raise PcapError(f"{name}: broken: record {n} claims {incl} bytes (max {MAX_FRAME})")
        if off + incl > size:
            raise PcapError(
                f"{name}: truncated: record {n} has {size - off} of its {incl} bytes"
            )
        records.append(Record(ts_sec, ts_frac, blob[off : off + incl], orig))
        off += incl
    return pcap


def read_ethernet(path: str | Path) -> list[bytes]:
    """Read a pcap for the dataplane: Ethernet only, whole frames, FCS removed.

    Raises :class:`PcapError` for another link type, frames cut short by the capture's
    snap length, or empty / too-short records.
    """
    pcap = read(path)
    if pcap.linktype != LINKTYPE_ETHERNET:
        raise PcapError(
            f"{pcap.path}: link type {pcap.linktype} ({linktype_name(pcap.linktype)}) is not "
            f"supported; wirespeed needs Ethernet (link type 1)"
        )
    frames: list[bytes] = []
    fcs = pcap.fcs_len
    for i, r in enumerate(pcap.records, 1):
        if len(r.data) < r.orig_len:
            raise PcapError(
                f"{pcap.path}: frame {i} was cut by the capture's snap length "
                f"({len(r.data)} of {r.orig_len} bytes captured); whole frames are needed"
            )
        data = r.data[: len(r.data) - fcs] if fcs else r.data
        if len(data) < 1:
            raise PcapError(f"{pcap.path}: frame {i} is empty")
        frames.append(data)
    return frames


def write(
    path: str | Path,
    frames: Iterable[bytes],
    *,
    linktype: int = LINKTYPE_ETHERNET,
    timestamps_ns: Sequence[int] | None = None,
    nanosecond: bool = True,
) -> int:
    """Write ``frames`` as a little-endian classic pcap; return the number written.

    ``timestamps_ns`` (one per frame, nanoseconds since the epoch) default to 0, 1, 2, ... µs.
    """
    hdr = struct.pack(
        "<IHHiIII", _MAGIC_NS if nanosecond else _MAGIC_US, 2, 4, 0, 0, MAX_FRAME, linktype
    )
    rec = struct.Struct("<IIII").pack
    parts = [hdr]
    append = parts.append
    unit = 1 if nanosecond else 1000
    n = 0
    for n, data in enumerate(frames, 1):
        ts = timestamps_ns[n - 1] if timestamps_ns is not None else (n - 1) * 1000
        sec, frac = divmod(ts, 1_000_000_000)
        append(rec(sec, frac // unit, len(data), len(data)))
        append(data)
    try:
        Path(path).write_bytes(b"".join(parts))
    except OSError as exc:
        raise PcapError(f"{path}: cannot write: {exc.strerror or exc}") from exc
    return n

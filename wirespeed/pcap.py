"""A small, fast reader and writer for classic libpcap files, and a reader for pcapng.

Only what wirespeed needs: both byte orders, microsecond and nanosecond timestamps, and
checks that turn every malformed file into a :class:`PcapError` naming the file and the
problem (never a bare ``struct.error``). pcapng files (what Wireshark and dumpcap write by
default) are read too: their packets (enhanced, simple and obsolete packet blocks) of every
section and interface, timestamps at each interface's resolution (``if_tsresol``), the FCS
length of ``if_fcslen``; every other block is skipped. Output is always classic pcap.

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
        return _read_pcapng(name, blob)
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


_NG_SHB, _NG_IDB, _NG_OPB, _NG_SPB, _NG_EPB = 0x0A0D0D0A, 1, 2, 3, 6


@dataclass
class _Interface:
    linktype: int
    snaplen: int
    ts_per_sec: int = 1_000_000
    fcs_len: int = 0


def _ng_options(blob: bytes, off: int, end: int, endian: str) -> dict[int, bytes]:
    """The options (code -> value) of a pcapng block from ``off`` to ``end``."""
    opts: dict[int, bytes] = {}
    while off + 4 <= end:
        code, length = struct.unpack_from(endian + "HH", blob, off)
        off += 4
        if code == 0:
            break
        opts[code] = blob[off : off + length]
        off += (length + 3) & ~3
    return opts


def _read_pcapng(name: str, blob: bytes) -> Pcap:
    """Parse a pcapng file into the classic structure (timestamps in nanoseconds)."""
    size = len(blob)
    off, endian = 0, "<"
    ifaces: list[_Interface] = []
    records: list[Record] = []
    linktypes: set[int] = set()
    nblock = 0
    while off < size:
        nblock += 1
        if off + 12 > size:
            raise PcapError(f"{name}: truncated pcapng: block {nblock} at byte {off} has "
                            f"{size - off} bytes, less than a block header")
        if blob[off : off + 4] == _PCAPNG_MAGIC:  # a section header: its own byte order
            bom = blob[off + 8 : off + 12]
            if bom == b"\x4d\x3c\x2b\x1a":
                endian = "<"
            elif bom == b"\x1a\x2b\x3c\x4d":
                endian = ">"
            else:
                raise PcapError(f"{name}: broken pcapng: section header at byte {off} has the "
                                f"byte-order magic {bom.hex()}")
            ifaces = []  # interface numbers restart in every section
        btype, blen = struct.unpack_from(endian + "II", blob, off)
        if blen < 12 or blen % 4 or off + blen > size:
            raise PcapError(f"{name}: truncated or broken pcapng: block {nblock} at byte {off} "
                            f"claims {blen} bytes, {size - off} are left")
        body, end = off + 8, off + blen - 4
        if btype == _NG_SHB:
            major = struct.unpack_from(endian + "H", blob, body + 4)[0]
            if major != 1:
                raise PcapError(f"{name}: unsupported pcapng version {major}")
        elif btype == _NG_IDB:
            lt, _res, snap = struct.unpack_from(endian + "HHI", blob, body)
            opts = _ng_options(blob, body + 8, end, endian)
            iface = _Interface(lt, snap)
            if 9 in opts and opts[9]:  # if_tsresol
                r = opts[9][0]
                iface.ts_per_sec = 2 ** (r & 0x7F) if r & 0x80 else 10 ** r
            if 13 in opts and opts[13]:  # if_fcslen
                iface.fcs_len = opts[13][0]
            ifaces.append(iface)
        elif btype in (_NG_EPB, _NG_OPB, _NG_SPB):
            if btype == _NG_SPB:
                iid, ts = 0, 0
                (orig,) = struct.unpack_from(endian + "I", blob, body)
                data_off = body + 4
                incl = min(orig, end - data_off)
                if ifaces and ifaces[0].snaplen:
                    incl = min(incl, ifaces[0].snaplen)
            elif btype == _NG_EPB:
                iid, hi, lo, incl, orig = struct.unpack_from(endian + "IIIII", blob, body)
                ts, data_off = hi << 32 | lo, body + 20
            else:
                iid, _drops, hi, lo, incl, orig = struct.unpack_from(endian + "HHIIII", blob,
                                                                      body)
                ts, data_off = hi << 32 | lo, body + 20
            if iid >= len(ifaces):
                raise PcapError(f"{name}: broken pcapng: packet {len(records) + 1} names "
                                f"interface {iid}, the section describes {len(ifaces)}")
            if incl > MAX_FRAME:
                raise PcapError(f"{name}: broken: record {len(records) + 1} claims {incl} bytes "
                                f"(max {MAX_FRAME})")
            if data_off + incl > end:
                raise PcapError(f"{name}: truncated: record {len(records) + 1} has "
                                f"{max(end - data_off, 0)} of its {incl} bytes")
            iface = ifaces[iid]
            linktypes.add(iface.linktype)
            sec, frac = divmod(ts * 1_000_000_000 // iface.ts_per_sec, 1_000_000_000)
            data = blob[data_off : data_off + incl]
            if iface.fcs_len and incl == orig and incl > iface.fcs_len:
                # Whole frame with its FCS (if_fcslen): the FCS goes, as in classic files.
                data, orig = data[: -iface.fcs_len], orig - iface.fcs_len
            records.append(Record(sec, frac, data, orig))
        off += blen
    if len(linktypes) > 1:
        raise PcapError(f"{name}: the pcapng's packets come from interfaces of different link "
                        f"types ({', '.join(linktype_name(t) for t in sorted(linktypes))}); "
                        "one link type (Ethernet) is needed")
    linktype = linktypes.pop() if linktypes else (ifaces[0].linktype if ifaces
                                                  else LINKTYPE_ETHERNET)
    snap = max((i.snaplen for i in ifaces), default=MAX_FRAME)
    return Pcap(name, linktype, True, endian == ">", snap, 0, records)


def read_ethernet(path: str | Path) -> list[bytes]:
    """Read a pcap (or pcapng) for the dataplane: Ethernet only, whole frames, FCS removed.

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

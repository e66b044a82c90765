"""Golden model of the packed DMA ring writer ``rtl/host/dma_ring_writer.sv`` (docs/host.md).

A frame becomes a *record*: a 16-byte header, the frame, zeros up to a multiple of
``ALIGN`` = 8 bytes at every bus width (records are packed: a record starts at any 8-byte
lane of a bus beat). A queue's records go back to back into its ring, a power
of two of bytes, at the position of the producer counter PROD (a free-running 32-bit byte
counter; the ring position is PROD mod size) and may wrap from the ring's end to its start.
A record is written only if ``PROD + len(record) <= CONS + size`` (CONS: the host's consumer
counter), so nothing unconsumed is overwritten; otherwise the frame is dropped and counted.

Header (little-endian)::

    0x0 u16 length   0x2 u8 queue   0x3 u8 info: [2:0] hash type, [3] RX error, [5:4] port,
    [7:6] flags      0x4 u32 hash   0x8 u64 timestamp (ns)

The model decides per frame in order, as the RTL does when its frame buffer never overflows
(a frame dropped for the buffer is the RTL's call, counted in Q_DROP_BUF, and is the one
thing the model cannot predict: it depends on the AXI side's timing).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

HDR_BYTES = 16
ALIGN = 8          # record alignment in the ring (INFO.LOG2_ALIGN = 3), whatever the bus width
M32 = (1 << 32) - 1


@dataclass(frozen=True)
class Desc:
    """A frame's descriptor: its queue and the header fields (sampled with its last beat)."""

    queue: int
    ts: int = 0
    hash: int = 0
    htype: int = 0
    port: int = 0
    flags: int = 0
    err: int = 0     # the frame's tuser (RX error)

    @property
    def info(self) -> int:
        return (self.htype & 7) | (self.err & 1) << 3 | (self.port & 3) << 4 | (self.flags & 3) << 6


def header(length: int, d: Desc) -> bytes:
    return struct.pack("<HBBIQ", length, d.queue & 0xFF, d.info, d.hash & M32, d.ts & (2**64 - 1))


@dataclass(frozen=True)
class Header:
    length: int
    queue: int
    htype: int
    err: int
    port: int
    flags: int
    hash: int
    ts: int

    @classmethod
    def parse(cls, b: bytes) -> "Header":
        length, queue, info, h, ts = struct.unpack("<HBBIQ", b[:HDR_BYTES])
        return cls(length, queue, info & 7, info >> 3 & 1, info >> 4 & 3, info >> 6 & 3, h, ts)

    def matches(self, frame: bytes, d: Desc) -> bool:
        return (self.length, self.queue, self.htype, self.err, self.port, self.flags, self.hash,
                self.ts) == (len(frame), d.queue & 0xFF, d.htype, d.err, d.port, d.flags,
                             d.hash, d.ts)


def record_len(n: int, align: int = ALIGN) -> int:
    """Bytes a frame of n bytes takes in a ring."""
    return -(-(HDR_BYTES + n) // align) * align


def record(frame: bytes, d: Desc, align: int = ALIGN) -> bytes:
    r = header(len(frame), d) + frame
    return r + bytes(record_len(len(frame), align) - len(r))


@dataclass
class Ring:
    """One queue's ring: its bytes, PROD, CONS and counters."""

    size: int
    align: int = ALIGN
    enabled: bool = True
    prod: int = 0
    cons: int = 0
    mem: bytearray = field(default_factory=bytearray)
    frames: int = 0
    byte_count: int = 0
    drop_full: int = 0
    drop_off: int = 0

    def __post_init__(self) -> None:
        if not self.mem:
            self.mem = bytearray(self.size)

    def offer(self, frame: bytes, d: Desc) -> bool:
        """Write the frame's record if it fits; count it either way. True if written."""
        if not self.enabled:
            self.drop_off += 1
            return False
        rec = record(frame, d, self.align)
        if ((self.cons + self.size - (self.prod + len(rec))) & M32) >= 1 << 31:
            self.drop_full += 1
            return False
        put(self.mem, self.prod % self.size, rec)
        self.prod = (self.prod + len(rec)) & M32
        self.frames += 1
        self.byte_count = (self.byte_count + len(frame)) & M32
        return True


def put(mem: bytearray, off: int, data: bytes) -> None:
    """Write ``data`` into a ring's bytes at ``off``, wrapping at its end."""
    n = len(mem)
    first = min(len(data), n - off)
    mem[off:off + first] = data[:first]
    mem[:len(data) - first] = data[first:]


def get(mem: bytes | bytearray, off: int, n: int) -> bytes:
    size = len(mem)
    off %= size
    first = min(n, size - off)
    return bytes(mem[off:off + first]) + bytes(mem[:n - first])


def parse_ring(mem: bytes | bytearray, cons: int, prod: int,
               align: int = ALIGN) -> list[tuple[Header, bytes]]:
    """The records between CONS and PROD (as the host reads them)."""
    out = []
    pos = cons
    while (prod - pos) & M32:
        h = Header.parse(get(mem, pos, HDR_BYTES))
        n = record_len(h.length, align)
        if n > ((prod - pos) & M32):
            raise ValueError(f"record at {pos} ({n} bytes) runs past PROD {prod}")
        out.append((h, get(mem, pos + HDR_BYTES, h.length)))
        pos = (pos + n) & M32
    return out

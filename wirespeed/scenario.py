"""The built-in default scenario: the seed's Table 2 traffic.

A 1:1 interleave of GRE-encapsulated TCP (Ether/IPv4/GRE/IPv4/TCP) and plain TCP frames,
92 bytes on the wire including FCS (88 bytes on the bus and in the pcap), offered at 10 GbE.

The two templates come from :mod:`wirespeed.model.frames` (built with scapy once); every
frame then differs from its template in the innermost IPv4 ID and TCP sequence number, with
both checksums updated incrementally (RFC 1624), so 200 000 frames take about a second.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from wirespeed import pcap
from wirespeed.progress import Progress

SEED_FRAME_BYTES = 92  # on the wire, incl. FCS
FCS_BYTES = 4
SEED_BUS_BYTES = SEED_FRAME_BYTES - FCS_BYTES
DEFAULT_FRAMES = 200_000
# Ethernet overhead on the wire besides the frame itself: preamble + SFD (8) + IFG (12).
WIRE_OVERHEAD = 20
MIN_FRAME_NO_FCS = 60


def wire_bytes(bus_len: int) -> int:
    """Bytes a frame of ``bus_len`` bus bytes occupies on an Ethernet wire.

    Padding to the 64-byte minimum, FCS, preamble/SFD and inter-frame gap included.
    """
    return max(bus_len, MIN_FRAME_NO_FCS) + FCS_BYTES + WIRE_OVERHEAD


@dataclass(frozen=True)
class Slots:
    """Byte offsets of the fields a variant rewrites (innermost IPv4 and its TCP header)."""

    ip: int
    tcp: int


def locate(frame: bytes) -> Slots:
    """Find the innermost IPv4 header and its TCP header (through up to 2 VLAN tags and GRE)."""
    off = 12
    et = struct.unpack_from("!H", frame, off)[0]
    tags = 0
    while et in (0x8100, 0x88A8) and tags < 2:
        off += 4
        tags += 1
        et = struct.unpack_from("!H", frame, off)[0]
    ip = off + 2
    while True:
        if et != 0x0800 or frame[ip] >> 4 != 4:
            raise ValueError("template is not IPv4")
        ihl = (frame[ip] & 0xF) * 4
        proto = frame[ip + 9]
        if proto == 6:
            return Slots(ip, ip + ihl)
        if proto != 47:
            raise ValueError(f"template carries IP protocol {proto}, not TCP or GRE")
        g = ip + ihl
        flags, et = struct.unpack_from("!HH", frame, g)
        ip = g + 4 + 4 * (bin(flags & 0xB000).count("1"))


def _csum_update(hc: int, old: int, new: int) -> int:
    """RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), 16-bit one's complement."""
    s = (~hc & 0xFFFF) + (~old & 0xFFFF) + new
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


class Variants:
    """Cheap per-frame variants of one template frame (IP ID and TCP sequence differ)."""

    def __init__(self, template: bytes) -> None:
        self.template = bytes(template)
        self.slots = locate(self.template)
        ip, tcp = self.slots.ip, self.slots.tcp
        self.ip_id, = struct.unpack_from("!H", self.template, ip + 4)
        self.ip_ck, = struct.unpack_from("!H", self.template, ip + 10)
        self.seq, = struct.unpack_from("!I", self.template, tcp + 4)
        self.tcp_ck, = struct.unpack_from("!H", self.template, tcp + 16)

    def frame(self, i: int) -> bytes:
        ip, tcp = self.slots.ip, self.slots.tcp
        new_id = (self.ip_id + i) & 0xFFFF
        new_seq = (self.seq + 1000 * i) & 0xFFFFFFFF
        ip_ck = _csum_update(self.ip_ck, self.ip_id, new_id)
        tcp_ck = _csum_update(self.tcp_ck, self.seq >> 16, new_seq >> 16)
        tcp_ck = _csum_update(tcp_ck, self.seq & 0xFFFF, new_seq & 0xFFFF)
        b = bytearray(self.template)
        struct.pack_into("!H", b, ip + 4, new_id)
        struct.pack_into("!H", b, ip + 10, ip_ck)
        struct.pack_into("!I", b, tcp + 4, new_seq)
        struct.pack_into("!H", b, tcp + 16, tcp_ck)
        return bytes(b)


def templates() -> tuple[bytes, bytes]:
    """The seed's GRE and plain TCP frames (88 bus bytes each), from the model's frames.py."""
    from wirespeed.model.frames import seed_gre_frame, seed_tcp_frame

    return bytes(seed_gre_frame(0)), bytes(seed_tcp_frame(0))


def generate(n: int, gre: bytes | None = None, tcp: bytes | None = None,
             show_progress: bool = True) -> list[bytes]:
    """``n`` frames alternating GRE, TCP, GRE, ... (frame 0 is GRE)."""
    if gre is None or tcp is None:
        gre, tcp = templates()
    vg, vt = Variants(gre), Variants(tcp)
    prog = Progress("generating frames", n, enabled=show_progress)
    out: list[bytes] = []
    append = out.append
    step = max(n // 100, 1)
    for i in range(n):
        append(vg.frame(i >> 1) if i % 2 == 0 else vt.frame(i >> 1))
        if i % step == 0:
            prog.update(i)
    prog.done()
    return out


def timestamps_ns(frames: list[bytes], line_rate_gbps: float) -> list[int]:
    """Wire-time timestamps for a pcap: frames back to back at the line rate (10 G if 0)."""
    rate = line_rate_gbps or 10.0
    t, ts = 0.0, []
    for f in frames:
        ts.append(int(t))
        t += wire_bytes(len(f)) * 8 / rate
    return ts


def write_default(path: str | Path, n: int = DEFAULT_FRAMES, line_rate_gbps: float = 10.0,
                  show_progress: bool = True) -> list[bytes]:
    """Generate the default scenario into ``path``; return the frames."""
    frames = generate(n, show_progress=show_progress)
    pcap.write(path, frames, timestamps_ns=timestamps_ns(frames, line_rate_gbps))
    return frames

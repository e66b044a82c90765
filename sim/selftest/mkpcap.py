#!/usr/bin/env python3
"""Writes the pcaps the harness self-test feeds to the stand-in DUT (standard library only).

usage: mkpcap.py KIND OUT [--count N] [--seed S] [--len L]
KIND:
  mixed       random lengths 1..1600 plus a few jumbo frames; byte 0 chosen so that some frames
              are dropped (odd byte 0) and some aborted (byte 0 = 0x02) by the stand-in
  fixed       every frame --len bytes, byte 0 = 0x00 (all PASS)
  bigendian   like mixed, written big-endian with the nanosecond magic
  badmagic    a file whose magic number is wrong
  truncated   a good file whose last record is cut short
  linktype    a good file with link type 101 (raw IP)
  empty-rec   a file with a zero-length record
  nsec        like fixed, little-endian nanosecond magic
"""

from __future__ import annotations

import argparse
import random
import struct


def frames_mixed(n: int, rng: random.Random) -> list[bytes]:
    out = []
    for i in range(n):
        r = rng.random()
        if r < 0.02:
            length = rng.randint(9000, 9600)
        elif r < 0.10:
            length = rng.randint(1, 64)
        else:
            length = rng.randint(14, 1600)
        body = bytearray(rng.randbytes(length))
        k = rng.random()
        if k < 0.15:
            body[0] = 0xFF if rng.random() < 0.5 else 0x01  # group address: dropped, emit=0
        elif k < 0.25:
            body[0] = 0x02  # aborted by the stand-in
        else:
            body[0] &= 0xFE  # unicast: forwarded (PASS) unless it became 0x02
            if body[0] == 0x02:
                body[0] = 0x00
        out.append(bytes(body))
    return out


def frames_fixed(n: int, length: int, rng: random.Random) -> list[bytes]:
    out = []
    for _ in range(n):
        body = bytearray(rng.randbytes(length))
        body[0] = 0x00
        out.append(bytes(body))
    return out


def write(path: str, frames: list[bytes], *, big: bool = False, nsec: bool = False,
          linktype: int = 1, magic: int | None = None, cut_last: int = 0) -> None:
    e = ">" if big else "<"
    if magic is None:
        magic = 0xA1B23C4D if nsec else 0xA1B2C3D4
    data = bytearray(struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, 65535, linktype))
    for i, f in enumerate(frames):
        data += struct.pack(e + "IIII", 1000 + i, (i * 1000) % 1000000, len(f), len(f))
        data += f
    if cut_last:
        del data[-cut_last:]
    with open(path, "wb") as fh:
        fh.write(data)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("kind")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--len", type=int, default=88)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if a.kind == "mixed":
        write(a.out, frames_mixed(a.count, rng))
    elif a.kind == "bigendian":
        write(a.out, frames_mixed(a.count, rng), big=True, nsec=True)
    elif a.kind == "fixed":
        write(a.out, frames_fixed(a.count, a.len, rng))
    elif a.kind == "nsec":
        write(a.out, frames_fixed(a.count, a.len, rng), nsec=True)
    elif a.kind == "badmagic":
        write(a.out, frames_fixed(3, 60, rng), magic=0x12345678)
    elif a.kind == "truncated":
        write(a.out, frames_fixed(3, 60, rng), cut_last=10)
    elif a.kind == "linktype":
        write(a.out, frames_fixed(3, 60, rng), linktype=101)
    elif a.kind == "empty-rec":
        write(a.out, [b"\x00" * 60, b"", b"\x00" * 60])
    else:
        ap.error(f"unknown kind {a.kind}")


if __name__ == "__main__":
    main()

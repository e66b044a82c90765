"""pkt_gen's frame format (rtl/host/pkt_gen.sv's header comment) built independently of the RTL,
for tb/capture_gen's checks: the IPv4 checksum computed the textbook way."""

from __future__ import annotations

import struct

from wirespeed.regmap import CAPTURE_GEN_PORT


def ipv4_checksum(hdr: bytes) -> int:
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def gen_frame(seq: int, length: int, flows: int, ts: int) -> bytes:
    """pkt_gen's frame ``seq`` of ``length`` bus bytes: Ethernet 02:00:00:00:00:01 -> :02,
    IPv4 10.0.F.F -> 10.1.0.1 (ID = seq's low 16 bits, TTL 64, UDP), UDP 1024 + F -> 0x5753
    (checksum 0), the sequence number and the send time ``ts`` (big-endian u64), then zeros.
    F = seq mod flows (flows 0 or 1: 0)."""
    flow = seq % flows if flows > 1 else 0
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, length - 14, seq & 0xFFFF, 0, 64, 17, 0,
                               bytes([10, 0, flow >> 8, flow & 0xFF]), bytes([10, 1, 0, 1])))
    ip[10:12] = struct.pack("!H", ipv4_checksum(bytes(ip)))
    udp = struct.pack("!HHHH", 1024 + flow, CAPTURE_GEN_PORT, length - 34, 0)
    head = (bytes.fromhex("020000000002" "020000000001" "0800") + bytes(ip) + udp
            + struct.pack("!QQ", seq, ts))
    return head + bytes(length - len(head))


def sweep_length(seq: int, lmin: int, lmax: int) -> int:
    """The length of frame ``seq`` when pkt_gen sweeps lmin..lmax (one more each frame)."""
    return lmin + seq % (lmax - lmin + 1)

"""The VXLAN VTEP (``vtep_top``, docs/vxlan.md) from the command line.

* :func:`simulate`: run ``ws_vtep`` on a network-port and/or a host-port pcap (one process for
  both directions; two processes at once when the directions need different pacing).
* :func:`direction_report` / :func:`balance_errors`: per-direction numbers (tx/rx packets, MAC
  bytes, L2 Gbit/s, Mpps, loss, latency) and the balance checks.
* :func:`model_check`: every output frame (and decap outcome count and VNI) against the golden
  model, :mod:`wirespeed.model.vxlan`.
* The seed's test (:func:`seed_config`, :func:`seed_frames`, :func:`seed_table`): the Lanner /
  Ethernity ACE-NIC VXLAN offload test, 16K tunnels, 4K VNIs per direction, 804-byte frames.
* :func:`bench`: line-rate fraction and idle-pipeline latency across frame sizes and
  widths, table lookup rate.

Frames are built here from byte templates (no scapy): headers packed with ``struct``,
checksums computed in full with one big-integer remainder per block (the one's-complement sum
of 16-bit words equals the value modulo 0xFFFF), so 20 000 frames take well under a second.
"""

from __future__ import annotations

import csv
import ipaddress
import json
import os
import platform
import struct
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from wirespeed import pcap
from wirespeed.model.common import beats, ipv4_checksum, ones_sum
from wirespeed.config import Config, TunnelSpec, VtepConfig
from wirespeed.progress import Progress, note
from wirespeed.report import FEW_FRAMES, few_frames_note, rate_window
from wirespeed.scenario import FCS_BYTES, WIRE_OVERHEAD, wire_bytes
from wirespeed.regmap import VTEP_MAP, VXLAN_DECAP, VXLAN_ENCAP, WINDOW_SIZE
from wirespeed.sim import SimOptions

if TYPE_CHECKING:
    from wirespeed.check import Expected

# From the one source, wirespeed/regmap.py.
DECAP_OUTCOMES = VXLAN_DECAP.outcome_names()
ENCAP_OUTCOMES = VXLAN_ENCAP.outcome_names()
DIRECTIONS = ("decap", "encap")
OUTCOMES = {"decap": DECAP_OUTCOMES, "encap": ENCAP_OUTCOMES}
DELIVERED = {"decap": ("PASS", "DECAP"), "encap": ("ENCAP", "PASS_MISS", "PASS_NOT_IPV4")}
DROPS = {d: tuple(n for n in OUTCOMES[d] if n not in DELIVERED[d]) for d in DIRECTIONS}
# Which port a direction enters and leaves by (names of the CLI options).
PORTS = {"decap": ("net", "host"), "encap": ("host", "net")}
ENCAP_OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8

# Register windows of each direction (docs/vxlan.md): a direction's own writes only.
_DECAP_WINDOWS = tuple((w.base, w.base + WINDOW_SIZE) for w in VTEP_MAP.windows
                       if w.label in ("decap", "vni_table"))
_ENCAP_WINDOWS = tuple((w.base, w.base + WINDOW_SIZE) for w in VTEP_MAP.windows
                       if w.label in ("encap", "tunnel_table"))


class VtepError(Exception):
    """A failure of a VTEP run, with the CLI's exit code (see wirespeed.cli)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# ================================================================================ frames

def ip_checksum(header: bytes) -> int:
    """The IPv4 header checksum of ``header`` (its checksum field taken as zero)."""
    return ipv4_checksum(header)


def _mac(text: str) -> bytes:
    return bytes(int(p, 16) for p in text.split(":"))


def _ip(v: int | str) -> bytes:
    return (v if isinstance(v, int) else int(ipaddress.IPv4Address(v))).to_bytes(4, "big")


def ipv4_udp(src: bytes, dst: bytes, sport: int, dport: int, payload: bytes, *, ident: int = 0,
             ttl: int = 64, tos: int = 0, udp_checksum: bool = True) -> bytes:
    """An IPv4 header (no options, DF clear) + UDP header + payload, checksums correct."""
    ulen = 8 + len(payload)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + ulen, ident & 0xFFFF, 0, ttl,
                               17, 0, src, dst))
    struct.pack_into("!H", ip, 10, ip_checksum(ip))
    udp = bytearray(struct.pack("!HHHH", sport, dport, ulen, 0)) + payload
    if udp_checksum:
        c = ~ones_sum(src + dst + struct.pack("!HH", 17, ulen) + bytes(udp)) & 0xFFFF
        struct.pack_into("!H", udp, 6, c or 0xFFFF)
    return bytes(ip) + bytes(udp)


def udp_frame(dst_mac: bytes, src_mac: bytes, src: bytes, dst: bytes, sport: int, dport: int,
              bus_len: int, seq: int, *, ident: int = 0, pattern: bytes = b"") -> bytes:
    """Ether/IPv4/UDP of ``bus_len`` bytes (no FCS); payload = 4-byte ``seq`` + ``pattern``."""
    pay_len = bus_len - 42
    if pay_len < 0:
        raise ValueError(f"an Ether/IPv4/UDP frame needs 42 bytes, not {bus_len}")
    body = seq.to_bytes(4, "big") + pattern
    payload = (body * (pay_len // len(body) + 1))[:pay_len]
    return dst_mac + src_mac + b"\x08\x00" + ipv4_udp(src, dst, sport, dport, payload,
                                                        ident=ident)


def vxlan_wrap(inner: bytes, vni: int, dst_mac: bytes, src_mac: bytes, src: bytes, dst: bytes,
               sport: int, *, ident: int = 0, dport: int = 4789, udp_checksum: bool = True
               ) -> bytes:
    """Ether/IPv4/UDP/VXLAN(I flag, ``vni``) around ``inner`` (50 bytes added)."""
    vx = b"\x08\0\0\0" + vni.to_bytes(3, "big") + b"\0"
    return dst_mac + src_mac + b"\x08\x00" + ipv4_udp(src, dst, sport, dport, vx + inner,
                                                        ident=ident, udp_checksum=udp_checksum)


# ================================================================================ the seed

SEED_WIRE_BYTES = 804             # VXLAN frames on the network wire incl. FCS, both directions
SEED_BUS_BYTES = SEED_WIRE_BYTES - FCS_BYTES            # 800 on the bus and in the pcaps
SEED_INNER_WIRE_BYTES = SEED_WIRE_BYTES - ENCAP_OVERHEAD  # 754: host-side frames incl. FCS
SEED_INNER_BUS_BYTES = SEED_INNER_WIRE_BYTES - FCS_BYTES  # 750
SEED_TUNNELS = 16384
SEED_VNIS = 4096                  # per direction: 4K VNIs decapsulated, 4K tunnels hit
SEED_FRAMES = 20000               # per direction
SEED_L2_GBPS = 19.5               # TRex L2 TX = L2 RX over the 2 x 10G ports, zero loss
SEED_PORTS = 2
SEED_LINE_RATE_GBPS = 10.0
DECAP_VNI_BASE = 0x001000         # the network -> host VNIs: 0x001000 .. 0x001FFF
TUNNEL_VNI_BASE = 0x002000        # tunnel t carries VNI 0x002000 + t
NIC_MAC, PEER_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
NIC_VTEP = "10.0.0.1"             # this SmartNIC's VTEP address
_PATTERN = bytes(range(256))


def seed_remote_vtep(t: int) -> int:
    """Outer address of the remote VTEP of tunnel/stream ``t``: 10.1.x.y."""
    return 0x0A010000 | (t & 0xFFFF)


def seed_inner_dst(t: int) -> int:
    """Tunnel ``t``'s key: the remote VM's address 172.16.0.1 + t."""
    return 0xAC100001 + t


def seed_local_vm(s: int) -> int:
    """The local VM of stream ``s``: 48.0.x.y."""
    return 0x30000000 | (s & 0xFFFF)


def seed_config(base: Config | None = None, tunnels: int = SEED_TUNNELS, vnis: int = SEED_VNIS,
                tunnel_slots: int = 32768) -> Config:
    """The seed's VTEP setup: ``tunnels`` tunnels (tunnel t: inner dst 172.16.0.1 + t, VNI
    0x002000 + t, remote VTEP 10.1.x.y), the VNI table on with the ``vnis`` network -> host VNIs
    (0x001000 + s, no VLAN push: host frames stay 754 bytes)."""
    specs = tuple(
        TunnelSpec(inner_dst=str(ipaddress.IPv4Address(seed_inner_dst(t))),
                   vni=TUNNEL_VNI_BASE + t,
                   outer_dst_mac=f"02:00:5e:01:{t >> 8 & 255:02x}:{t & 255:02x}",
                   outer_src_mac=NIC_MAC, outer_src=NIC_VTEP,
                   outer_dst=str(ipaddress.IPv4Address(seed_remote_vtep(t))))
        for t in range(tunnels))
    vt = VtepConfig(vni_enabled=True, vni_entries=tuple((DECAP_VNI_BASE + s, None)
                                                        for s in range(vnis)),
                    tunnels=specs, tunnel_slots=tunnel_slots, source="<vxlan-seed>")
    return (base or Config()).replace(vtep=vt)


def seed_tunnel_of(s: int, vnis: int = SEED_VNIS, tunnels: int = SEED_TUNNELS) -> int:
    """The tunnel of stream ``s``: every (tunnels / vnis)-th one, so the 4K streams spread
    over the whole 16K-tunnel table."""
    return (s * max(tunnels // vnis, 1)) % tunnels


def _stream_macs(s: int) -> tuple[bytes, bytes]:
    """(local VM MAC, remote VM MAC) of stream ``s``."""
    return (bytes((2, 0, 0, 1, s >> 8 & 255, s & 255)), bytes((2, 0, 0, 2, s >> 8 & 255, s & 255)))


def seed_net_frame(k: int, bus_len: int = SEED_BUS_BYTES, vnis: int = SEED_VNIS,
                   tunnels: int = SEED_TUNNELS) -> bytes:
    """Network-port frame k of stream s = k % vnis: Ether/IPv4/UDP(4789)/VXLAN(0x001000 + s)/
    Ether/IPv4/UDP from the remote VM (the address of tunnel ``seed_tunnel_of(s)``) to the
    local VM 48.0.x.y, ``bus_len`` bytes, every checksum correct; IP IDs and the first 4
    payload bytes carry k."""
    s = k % vnis
    local_mac, remote_mac = _stream_macs(s)
    inner = udp_frame(local_mac, remote_mac, _ip(seed_inner_dst(seed_tunnel_of(s, vnis, tunnels))),
                      _ip(seed_local_vm(s)), 5001, 1024 + s, bus_len - ENCAP_OVERHEAD, k,
                      ident=k, pattern=_PATTERN)
    return vxlan_wrap(inner, DECAP_VNI_BASE + s, _mac(NIC_MAC), _mac(PEER_MAC),
                      _ip(seed_remote_vtep(s)), _ip(NIC_VTEP), 0xC000 | (s & 0x3FFF), ident=k)


def seed_host_frame(k: int, bus_len: int = SEED_INNER_BUS_BYTES, vnis: int = SEED_VNIS,
                    tunnels: int = SEED_TUNNELS) -> bytes:
    """Host-port frame k of stream s = k % vnis: the local VM's reply, untagged
    Ether/IPv4/UDP to tunnel ``seed_tunnel_of(s)``'s inner destination, ``bus_len`` bytes."""
    s = k % vnis
    local_mac, remote_mac = _stream_macs(s)
    return udp_frame(remote_mac, local_mac, _ip(seed_local_vm(s)),
                     _ip(seed_inner_dst(seed_tunnel_of(s, vnis, tunnels))), 1024 + s, 5001,
                     bus_len, k, ident=k, pattern=_PATTERN)


def seed_frames(n: int, show_progress: bool = True) -> tuple[list[bytes], list[bytes]]:
    """``n`` network-port and ``n`` host-port frames of the seed's test."""
    prog = Progress("generating frames", 2 * n, enabled=show_progress)
    net: list[bytes] = []
    host: list[bytes] = []
    step = max(n // 50, 1)
    for k in range(n):
        net.append(seed_net_frame(k))
        host.append(seed_host_frame(k))
        if k % step == 0:
            prog.update(2 * k)
    prog.done()
    return net, host


# ================================================================================ running

@dataclass
class Port:
    """One direction's files: the input pcap (holding ``frames``) and the output pcap."""

    frames: list[bytes]
    in_path: Path
    out_path: Path


@dataclass
class Outputs:
    """What a simulation produced."""

    harness: dict[str, Any]                              # the (merged) ws_vtep JSON
    frames: dict[str, list[bytes]] = field(default_factory=dict)   # direction -> output
    vni_csv: Path | None = None
    latency_csv: dict[str, Path] = field(default_factory=dict)
    stat_csv: dict[str, Path] = field(default_factory=dict)


def write_verdicts(out: Outputs, paths_: Sequence[Path]) -> None:
    """Write both directions' per-frame verdicts (wirespeed.verdicts) to each of ``paths_``
    (the simulation must have run with ``stat=True``)."""
    from wirespeed import verdicts

    rows = verdict_rows(out) if paths_ else []
    for p in paths_:
        verdicts.write(p, rows)


def verdict_rows(out: Outputs) -> list[tuple[str | None, Any]]:
    """(direction, wirespeed.verdicts.Verdict) of every input frame, decap first."""
    from wirespeed import verdicts

    rows: list[tuple[str | None, Any]] = []
    for d, stat_path in out.stat_csv.items():
        try:
            rows += [(d, v) for v in verdicts.build(
                verdicts.read_stat_csv(stat_path), verdicts.read_latency_csv(out.latency_csv[d]),
                OUTCOMES[d], DELIVERED[d].__contains__, len(out.frames[d]))]
        except (OSError, ValueError, verdicts.VerdictError) as exc:
            raise VtepError(f"{d}: per-frame verdicts: {exc}", 3) from exc
    return rows


def split_writes(writes: Sequence[tuple[int, int]], direction: str) -> list[tuple[int, int]]:
    """The register writes that concern one direction (its CSR window and its table)."""
    wins = _DECAP_WINDOWS if direction == "decap" else _ENCAP_WINDOWS
    return [(a, v) for a, v in writes if any(lo <= a < hi for lo, hi in wins)]


def _regs_text(writes: Sequence[tuple[int, int]]) -> str:
    return "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in writes)


def simulate(binary: Path, cfg: Config, work: Path, opts: SimOptions, *,
             decap: Port | None = None, encap: Port | None = None,
             host_line_rate_gbps: float | None = None, latency: bool = False,
             quiet: bool = False, stat: bool = False) -> Outputs:
    """Run ``ws_vtep`` on the given directions, both at once.

    ``host_line_rate_gbps``: pace the host port's input at another rate than the network
    port's (``opts.line_rate_gbps``). ``ws_vtep`` has one pacing rate for both inputs, so the
    two directions then run as two ``ws_vtep`` processes side by side (each gets only its own
    register writes); the report merges them.
    """
    from wirespeed.sim import SimError, finish, start_vtep

    writes = cfg.vtep_register_writes()
    vni_csv = work / "host_vni.csv" if decap is not None else None
    lat = {d: work / f"{d}_latency.csv" for d, p in (("decap", decap), ("encap", encap))
           if p is not None and (latency or stat)}
    stat_csv = {d: work / f"{d}_stat.csv" for d, p in (("decap", decap), ("encap", encap))
                if p is not None and stat}
    split = (host_line_rate_gbps is not None and decap is not None and encap is not None
             and host_line_rate_gbps != opts.line_rate_gbps)
    runs: list[tuple[str, dict[str, Any], SimOptions, str]] = []
    if split:
        import dataclasses

        host_opts = dataclasses.replace(opts, line_rate_gbps=host_line_rate_gbps,
                                        seed=opts.seed + 1)
        runs.append(("decap", dict(net_in=decap.in_path, host_out=decap.out_path,
                                   host_vni_csv=vni_csv, decap_latency_csv=lat.get("decap"),
                                   decap_stat_csv=stat_csv.get("decap")),
                     opts, _regs_text(split_writes(writes, "decap"))))
        runs.append(("encap", dict(host_in=encap.in_path, net_out=encap.out_path,
                                   encap_latency_csv=lat.get("encap"),
                                   encap_stat_csv=stat_csv.get("encap")),
                     host_opts, _regs_text(split_writes(writes, "encap"))))
    else:
        kw: dict[str, Any] = {}
        if decap is not None:
            kw.update(net_in=decap.in_path, host_out=decap.out_path, host_vni_csv=vni_csv,
                      decap_latency_csv=lat.get("decap"), decap_stat_csv=stat_csv.get("decap"))
        if encap is not None:
            kw.update(host_in=encap.in_path, net_out=encap.out_path,
                      encap_latency_csv=lat.get("encap"), encap_stat_csv=stat_csv.get("encap"))
        runs.append(("both", kw, opts, _regs_text(writes)))
    procs = []
    merged = split and opts.progress  # two processes: one merged progress line
    for name, kw, o, regs_text in runs:
        regs = work / f"regs_{name}.txt"
        regs.write_text(regs_text)
        json_path = work / f"harness_{name}.json"
        procs.append((name, json_path, start_vtep(binary, json_path, capture=merged, regs=regs,
                                                  opts=o, **kw)))
    results: dict[str, dict[str, Any]] = {}
    errors: list[str] = []
    if merged:
        from wirespeed.progress import MergedProgress
        from wirespeed.sim import check_result

        done = MergedProgress("ws_vtep x 2", {n: p for n, _, p in procs}).wait()
        for name, json_path, proc in procs:
            try:
                results[name] = check_result(binary, proc, json_path, done[name][1],
                                             done[name][2])
            except SimError as exc:
                errors.append(str(exc))
    for name, json_path, proc in ([] if merged else procs):
        try:
            results[name] = finish(binary, proc, json_path)
        except SimError as exc:
            errors.append(str(exc))
    if errors:
        raise VtepError("\n".join(errors), 3)
    if split:
        h = dict(results["decap"])
        h["encap"] = results["encap"]["encap"]
        h["runs"] = {"decap": {k: v for k, v in results["decap"].items() if k != "encap"},
                     "encap": {k: v for k, v in results["encap"].items() if k != "decap"}}
        h["host_line_rate_gbps"] = host_line_rate_gbps
        h["wall_seconds"] = max(r.get("wall_seconds") or 0 for r in results.values())
    else:
        h = results["both"]
    out = Outputs(h, vni_csv=vni_csv, latency_csv=lat, stat_csv=stat_csv)
    for d, p in (("decap", decap), ("encap", encap)):
        if p is None:
            continue
        try:
            out.frames[d] = pcap.read_ethernet(p.out_path)
        except pcap.PcapError as exc:
            raise VtepError(f"the harness's output is unusable: {exc}", 3) from exc
    return out


# ================================================================================ report

def direction_report(direction: str, hd: Mapping[str, Any], in_lengths: Sequence[int],
                     out_lengths: Sequence[int], clock_mhz: float, line_rate_gbps: float
                     ) -> dict[str, Any]:
    """One direction's numbers from its harness JSON object and the frame lengths (bus bytes).

    bytes are MAC bytes (bus + FCS); ``tx_gbps``/``rx_gbps`` = MAC bytes x 8 / elapsed time
    (the seed's TRex "L2" figure), over ``elapsed_cycles`` = first input handshake to last
    output handshake (to the last input handshake when nothing came out). ``loss`` = frames
    in - frames out - counted drops: frames neither delivered nor counted (must be 0).
    """
    names = OUTCOMES[direction]
    outcomes = {n: {"packets": int(hd.get("outcomes", {}).get(n, {}).get("packets", 0)),
                    "bytes": int(hd.get("outcomes", {}).get(n, {}).get("bytes", 0))}
                for n in names}
    drops = {n: outcomes[n]["packets"] for n in DROPS[direction]}
    n_in, n_out = len(in_lengths), len(out_lengths)
    first_in, last_in, last_out = (hd.get("first_in_cycle"), hd.get("last_in_cycle"),
                                   hd.get("last_out_cycle"))
    if n_in == 0 or first_in is None:
        elapsed = 0
    else:
        end = last_out if (n_out and last_out) else last_in
        elapsed = int(end) - int(first_in) + 1
    bytes_in = sum(in_lengths) + FCS_BYTES * n_in
    bytes_out = sum(out_lengths) + FCS_BYTES * n_out
    wire_in = 8 * sum(wire_bytes(n) for n in in_lengths)
    # Rates over at least the input's pacing slots (wirespeed.report.rate_window): N paced
    # frames over N slots, so no tx rate exceeds the pacing.
    window = rate_window(elapsed, wire_in, clock_mhz, line_rate_gbps)
    elapsed_us = window / clock_mhz if clock_mhz else 0.0
    ns_per = 1000.0 / clock_mhz if clock_mhz else 0.0
    lat = dict(hd.get("latency_cycles", {}))

    def per_us(x: float) -> float:
        return x / elapsed_us if elapsed_us else 0.0

    offered = per_us(wire_in) / 1000.0
    return {
        "direction": direction,
        "in_port": PORTS[direction][0],
        "out_port": PORTS[direction][1],
        "tx_packets": n_in,
        "rx_packets": n_out,
        "tx_bytes": bytes_in,
        "rx_bytes": bytes_out,
        "tx_gbps": per_us(8 * bytes_in) / 1000.0,
        "rx_gbps": per_us(8 * bytes_out) / 1000.0,
        "tx_mpps": per_us(n_in),
        "rx_mpps": per_us(n_out),
        "offered_wire_gbps": offered,
        "line_rate_gbps": line_rate_gbps,
        "line_rate_fraction": offered / line_rate_gbps if line_rate_gbps else None,
        "drops": drops,
        "dropped": sum(drops.values()),
        "aborted": int(hd.get("aborted", 0)),
        "loss": n_in - n_out - sum(drops.values()),
        "outcomes": outcomes,
        "elapsed_cycles": elapsed,
        "rate_cycles": window,
        "elapsed_us": elapsed_us,
        "few_frames": 0 < n_in < FEW_FRAMES,
        "offered_out_wire_gbps": per_us(8 * sum(wire_bytes(n) for n in out_lengths)) / 1000.0,
        "latency_cycles": {k: lat.get(k) for k in ("min", "max", "mean", "count")},
        "latency_ns": {k: lat[k] * ns_per for k in ("min", "max", "mean")
                       if lat.get(k) is not None},
    }


def balance_errors(direction: str, r: Mapping[str, Any], hd: Mapping[str, Any],
                   bus_in: int) -> list[str]:
    """Every inconsistency of one direction: loss, pcaps vs harness, counters vs statuses."""
    errs: list[str] = []
    p = f"{direction}: "
    if r["loss"] != 0:
        errs.append(f"{p}{r['tx_packets']} frames in != {r['rx_packets']} out + "
                    f"{r['dropped']} counted drops (loss {r['loss']})")
    if hd.get("packets_in") != r["tx_packets"]:
        errs.append(f"{p}the harness read {hd.get('packets_in')} frames, the input pcap has "
                    f"{r['tx_packets']}")
    if hd.get("packets_out") != r["rx_packets"]:
        errs.append(f"{p}the harness reports {hd.get('packets_out')} output frames, the output "
                    f"pcap has {r['rx_packets']}")
    if hd.get("bytes_in") is not None and hd["bytes_in"] != bus_in:
        errs.append(f"{p}the harness read {hd['bytes_in']} bus bytes, the pcap has {bus_in}")
    total = sum(o["packets"] for o in r["outcomes"].values())
    if total != r["tx_packets"]:
        errs.append(f"{p}outcome counters sum to {total}, not {r['tx_packets']} frames in")
    stat = hd.get("stat_outcomes")
    if stat is not None:
        for n, a in r["outcomes"].items():
            b = stat.get(n, {})
            if (a["packets"], a["bytes"]) != (b.get("packets", 0), b.get("bytes", 0)):
                errs.append(f"{p}{n}: the block's counters say {a['packets']} frames / "
                            f"{a['bytes']} bytes, its status stream {b.get('packets', 0)} / "
                            f"{b.get('bytes', 0)}")
    if hd.get("tx_packets") is not None and hd["tx_packets"] != r["rx_packets"]:
        errs.append(f"{p}the block's TX counter says {hd['tx_packets']} frames, the output pcap "
                    f"has {r['rx_packets']}")
    return errs


def build_report(out: Outputs, cfg: Config, ports: Mapping[str, Port]) -> dict[str, Any]:
    """The run's report: per direction (:func:`direction_report`) plus the setup."""
    h = out.harness
    clock = float(h.get("clock_mhz", cfg.clock_mhz))
    rep: dict[str, Any] = {
        "block": "vtep",
        "data_width": int(h.get("data_width", cfg.data_width)),
        "clock_mhz": clock,
        "line_rate_gbps": float(h.get("line_rate_gbps", cfg.line_rate_gbps)),
        "cycles": int(h.get("cycles", 0)),
    }
    errs: list[str] = []
    for d, port in ports.items():
        rate = float(h.get("host_line_rate_gbps") or rep["line_rate_gbps"]) \
            if d == "encap" and h.get("host_line_rate_gbps") is not None \
            else rep["line_rate_gbps"]
        hd = h.get(d, {})
        r = direction_report(d, hd, [len(f) for f in port.frames],
                             [len(f) for f in out.frames[d]], clock, rate)
        r["input"], r["output"] = str(port.in_path), str(port.out_path)
        rep[d] = r
        errs += balance_errors(d, r, hd, sum(len(f) for f in port.frames))
    rep["config"] = {"source": cfg.source, **cfg.vtep.summary()}
    rep["balance_errors"] = errs
    rep["harness"] = dict(h)
    return rep


def read_vni_csv(path: Path) -> list[tuple[int, int]]:
    """``--host-vni-csv`` rows: (index in HOST_OUT.pcap, VNI)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [(int(a), int(b)) for a, b in rows[1:]]


# ================================================================================ model check

def expected_direction(direction: str, frames: Sequence[bytes], cfg: Config,
                       keep_w: int | None = None) -> "Expected":
    """The golden model (:mod:`wirespeed.model.vxlan`) over one direction's input ``frames``
    with ``cfg``'s ``vtep:`` section: outputs in order, outcome counts, the input index of
    each output, the emitted/aborted frames (decap: exact for ``keep_w`` bytes per beat) and,
    for decap, the VNI of each decapsulated output frame."""
    from wirespeed.check import Expected
    from wirespeed.model.vxlan import decap as m_decap
    from wirespeed.model.vxlan import encap as m_encap

    exp = Expected()
    if direction == "decap":
        mcfg = cfg.vtep.decap_config()
        for i, f in enumerate(frames):
            r = m_decap(f, mcfg, keep_w=keep_w)
            exp.add(i, r)
            if r.output is not None and r.decapsulated:
                exp.vnis.append(r.vni)  # type: ignore[arg-type]
    elif direction == "encap":
        ecfg = cfg.vtep.encap_config()
        for i, f in enumerate(frames):
            exp.add(i, m_encap(f, ecfg))
    else:
        raise ValueError(f"unknown direction {direction!r} (known: {', '.join(DIRECTIONS)})")
    return exp


def model_check(cfg: Config, ports: Mapping[str, Port], out: Outputs, rep: dict[str, Any],
                quiet: bool = False) -> list[str]:
    """Compare every output frame, outcome count and (decap) VNI with the golden model; adds
    ``model_check`` to the report; returns the differences."""
    from wirespeed.check import differences

    errs: list[str] = []
    summary: dict[str, Any] = {}
    keep_w = rep["data_width"] // 8
    for d, port in ports.items():
        note(f"checking {len(port.frames)} {d} frames against the golden model ...", not quiet)
        exp = expected_direction(d, port.frames, cfg, keep_w)
        derrs = [f"{d}: {e}" for e in differences(out.frames[d], exp.outputs)]
        for n in OUTCOMES[d]:
            got, want = rep[d]["outcomes"][n]["packets"], exp.outcomes.get(n, 0)
            if got != want:
                derrs.append(f"{d}: {n}: {got} frames, the model expects {want}")
        if d == "decap" and out.vni_csv is not None and out.vni_csv.is_file():
            derrs += vni_differences(read_vni_csv(out.vni_csv), exp.vnis)
        summary[d] = {"frames": len(port.frames), "outputs": len(exp.outputs),
                      "outcomes": dict(exp.outcomes), "ok": not derrs}
        errs += derrs
    rep["model_check"] = {"ok": not errs, "differences": errs, **summary}
    if not errs and not quiet:
        n = sum(len(p.frames) for p in ports.values())
        print(f"model check: {n}/{n} frames match ("
              + ", ".join(f"{d} {len(p.frames)}" for d, p in ports.items())
              + "; outputs byte for byte, outcome counts"
              + (", VNIs" if "decap" in ports else "") + ")")
    return errs


def vni_differences(rows: Sequence[tuple[int, int]], want: Sequence[int]) -> list[str]:
    """The decap check of ``m_host_axis_tvni``: the VNIs of ``--host-vni-csv`` (``rows``)
    against the model's VNIs of the decapsulated output frames (``want``)."""
    got_vni = [v for _, v in rows]
    if got_vni == list(want):
        return []
    bad = next((i for i, (a, b) in enumerate(zip(got_vni, want)) if a != b),
               min(len(got_vni), len(want)))
    return [f"decap: m_host_axis_tvni: {len(got_vni)} decapsulated frames carried a VNI, the "
            f"model expects {len(want)}; first difference at decapsulated frame {bad}"]


# ================================================================================ printing

def _fmt_lat(r: Mapping[str, Any], clock: float) -> str:
    lat = r["latency_cycles"]
    if not lat.get("count"):
        return "-"
    ns = 1000.0 / clock
    if lat["min"] == lat["max"]:
        return f"{lat['min']} cycles = {lat['min'] * ns:.0f} ns"
    return (f"{lat['min']}..{lat['max']} cycles (mean {lat['mean']:.1f}) = "
            f"{lat['min'] * ns:.0f}..{lat['max'] * ns:.0f} ns")


def direction_rows(rep: Mapping[str, Any], dirs: Sequence[str]) -> list[list[str]]:
    rows = []

    def row(label: str, f: Callable[[Mapping[str, Any]], str]) -> None:
        rows.append([label, *(f(rep[d]) for d in dirs)])

    row("tx packets (in)", lambda r: str(r["tx_packets"]))
    row("rx packets (out)", lambda r: str(r["rx_packets"]))
    row("tx bytes (L2, incl. FCS)", lambda r: str(r["tx_bytes"]))
    row("rx bytes (L2, incl. FCS)", lambda r: str(r["rx_bytes"]))
    row("tx Gbit/s (L2)", lambda r: f"{r['tx_gbps']:.3f}")
    row("rx Gbit/s (L2)", lambda r: f"{r['rx_gbps']:.3f}")
    row("tx Mpps", lambda r: f"{r['tx_mpps']:.4f}")
    row("rx Mpps", lambda r: f"{r['rx_mpps']:.4f}")
    row("counted drops", lambda r: str(r["dropped"]))
    row("loss (uncounted)", lambda r: str(r["loss"]))
    row("latency", lambda r: _fmt_lat(r, rep["clock_mhz"]))
    return rows


def _label(d: str) -> str:
    return {"decap": "decap (network -> host)", "encap": "encap (host -> network)"}[d]


def summary(rep: Mapping[str, Any]) -> str:
    """Per-direction table and outcome counts of any VTEP run."""
    from wirespeed.report import grid

    dirs = [d for d in DIRECTIONS if d in rep]
    rate = rep["line_rate_gbps"]
    host_rate = rep.get("harness", {}).get("host_line_rate_gbps")
    if not rate:
        pacing = "inputs back-to-back"
    elif host_rate is not None and "decap" in rep and "encap" in rep:
        pacing = (f"network input paced at {rate:g} Gb/s, host input at {host_rate:.4g} Gb/s "
                  f"(two ws_vtep processes)")
    else:
        pacing = f"inputs paced at {rate:g} Gb/s"
    lines = [f"wirespeed run --block vtep: {rep['data_width']}-bit bus @ {rep['clock_mhz']:g} MHz, "
             + pacing]
    lines.append(grid(direction_rows(rep, dirs), ["", *(_label(d) for d in dirs)]))
    for d in dirs:
        counted = [(n, o["packets"]) for n, o in rep[d]["outcomes"].items() if o["packets"]]
        lines.append(f"  {d} outcomes: " + (", ".join(f"{n} {c}" for n, c in counted) or "-"))
    lines += [f"  {n}" for n in notes(rep)]
    return "\n".join(lines)


def notes(rep: Mapping[str, Any]) -> list[str]:
    """What a VTEP run's figures need said beside them: rates from few frames, an encap
    output faster than the pacing, UDP checksum drops from a capture with TX offload."""
    out: list[str] = []
    dirs = [d for d in DIRECTIONS if d in rep]
    few = [f"{d} {rep[d]['tx_packets']}" for d in dirs if rep[d].get("few_frames")]
    if few:
        out.append(f"note: rates from only {', '.join(few)} frames (under {FEW_FRAMES}): "
                   "indicative, the measuring window is a few frames' slots plus the latency")
    # The ports' line rate: --line-rate-gbps (vxlan-seed's loop-back paces the host input
    # slower, so that the encapsulated output fills the network port exactly).
    line = rep.get("line_rate_gbps") or 0
    for d in dirs:
        r = rep[d]
        wire_out = r.get("offered_out_wire_gbps") or 0
        if line and wire_out > line * 1.001:
            out.append(f"note: {d}: the output leaves at {wire_out:.2f} Gb/s on the wire, more "
                       f"than a {line:g} Gb/s port carries"
                       + (f" (each frame grows by {ENCAP_OVERHEAD} bytes; the simulated bus has "
                          "no line to hold it back, a real port would queue)"
                          if d == "encap" else ""))
    if "decap" in rep:
        hint = udp_checksum_hint(rep["decap"])
        if hint:
            out.append(hint)
    return out


def udp_checksum_hint(r: Mapping[str, Any]) -> str:
    """When DROP_UDP_CHECKSUM is most of a decap run's frames, say why and what to do."""
    n = r["outcomes"].get("DROP_UDP_CHECKSUM", {}).get("packets", 0)
    if not n or 2 * n < r["tx_packets"]:
        return ""
    return (f"note: {n} of {r['tx_packets']} frames were dropped for a wrong outer UDP checksum "
            "(DROP_UDP_CHECKSUM). A capture taken on the sending Linux host with transmit "
            "checksum offload holds partial checksums (the NIC fills them in after the "
            "capture point): capture with the offload off (`ethtool -K DEV tx off`), on the "
            "receiving side, or rewrite the checksums (e.g. zero them: RFC 7348 allows UDP "
            "checksum 0 over IPv4, which the decapsulator accepts)")


def seed_table(rep: Mapping[str, Any]) -> str:
    """The seed's result (TRex L2 over 2 x 10G ports) beside ours (one port, x 2)."""
    from wirespeed.report import grid

    de, en = rep["decap"], rep["encap"]
    ports = SEED_PORTS
    clean = de["loss"] == en["loss"] == 0 and de["dropped"] == en["dropped"] == 0
    rows = [
        ["L2 TX into the NIC (network in)", f"{SEED_L2_GBPS:g} Gbit/s", f"{de['tx_gbps']:.3f}",
         f"{ports * de['tx_gbps']:.2f} Gbit/s"],
        ["L2 RX from the NIC (network out)", f"{SEED_L2_GBPS:g} Gbit/s", f"{en['rx_gbps']:.3f}",
         f"{ports * en['rx_gbps']:.2f} Gbit/s"],
        ["frames into the NIC", "-", str(de["tx_packets"]),
         str(ports * de["tx_packets"])],
        ["frames out of the NIC", "-", str(en["rx_packets"]), str(ports * en["rx_packets"])],
        ["Mpps in / out (network)", "-", f"{de['tx_mpps']:.4f} / {en['rx_mpps']:.4f}",
         f"{ports * de['tx_mpps']:.4f} / {ports * en['rx_mpps']:.4f}"],
        ["loss", "0", str(de["loss"] + en["loss"]) + (" (no drops)" if clean else
                                                     f" ({de['dropped'] + en['dropped']} "
                                                     f"counted drops)"),
         str(ports * (de["loss"] + en["loss"]))],
    ]
    title = ("Seed (Lanner FX-3230 + Ethernity ACE-NIC, TRex): 2 x 10G ports bidirectional, "
             "804-byte VXLAN frames, 16K tunnels, 4K VNIs per port direction")
    note_ = ("  ours: one vtep_top port simulated, both directions; the second port is an "
             "identical, independent vtep_top, so x 2 ports = 2 x one port.")
    return title + "\n" + grid(rows, ["", "seed (2 ports)", "wirespeed, 1 port",
                                      "wirespeed x 2 ports"]) + "\n" + note_


# ================================================================================ bench

BENCH_SIZES = (64, 128, 256, 512, 754, 804, 1024, 1518, 4096, 9000)
BENCH_RATES = (10, 25, 100)
BENCH_VNIS = 256
BENCH_TUNNELS_DEFAULT = 16384
# Idle-pipeline latency: this many frames per size and direction, paced so that a frame of L
# bus bytes is followed by (L + 24) x LATENCY_GAP_CYCLES_PER_BYTE cycles before the next one
# may start (the input pacing rate follows from the clock): far more than any frame needs to
# leave the block, even the store-and-forward encap's 9000-byte frames at 64 bits.
LATENCY_FRAMES = 3
LATENCY_GAP_CYCLES_PER_BYTE = 4
LARGE_TUNNEL_SLOTS = 524288
LARGE_TUNNELS = 262144


def bench_config(clock_mhz: float, tunnels: int, tunnel_slots: int, width: int) -> Config:
    """The bench's setup: the seed's tables scaled (``tunnels`` tunnels, 256 VNIs)."""
    return seed_config(Config(data_width=width, clock_mhz=clock_mhz, line_rate_gbps=0.0),
                       tunnels=tunnels, vnis=BENCH_VNIS, tunnel_slots=tunnel_slots)


def _bench_frames(sizes: Sequence[int], per_size: int, tunnels: int
                  ) -> tuple[list[bytes], list[bytes], list[int]]:
    """Decap frames (inner ``size`` bytes incl. FCS, so ``size + 50`` on the network wire)
    and encap host frames (``size`` bytes incl. FCS), ``per_size`` of each size in turn."""
    net, host, group = [], [], []
    step = max(tunnels // BENCH_VNIS, 1)
    k = 0
    for gi, size in enumerate(sizes):
        bus = size - FCS_BYTES
        for _ in range(per_size):
            s = k % BENCH_VNIS
            inner = udp_frame(_mac(NIC_MAC), _mac(PEER_MAC), _ip(seed_inner_dst(s * step)),
                              _ip(seed_local_vm(s)), 5001, 1024 + s, bus, k, ident=k,
                              pattern=_PATTERN)
            net.append(vxlan_wrap(inner, DECAP_VNI_BASE + s, _mac(NIC_MAC), _mac(PEER_MAC),
                                  _ip(seed_remote_vtep(s)), _ip(NIC_VTEP), 0xC000 | s, ident=k))
            host.append(udp_frame(_mac(PEER_MAC), _mac(NIC_MAC), _ip(seed_local_vm(s)),
                                  _ip(seed_inner_dst(s * step)), 1024 + s, 5001, bus, k,
                                  ident=k, pattern=_PATTERN))
            group.append(gi)
            k += 1
    return net, host, group


def _lookup_frames(n: int, tunnels: int) -> tuple[list[bytes], list[bytes]]:
    """64-byte frames on each input: VXLAN frames of 60 bus bytes whose VNI is in the table
    (looked up, then DROP_TRUNCATED: a 10-byte inner frame, no output), and 60-byte host
    frames that hit a tunnel (looked up, encapsulated to 110 bus bytes)."""
    net, host = [], []
    for k in range(n):
        s = k % BENCH_VNIS
        net.append(vxlan_wrap(bytes(10), DECAP_VNI_BASE + s, _mac(NIC_MAC), _mac(PEER_MAC),
                              _ip(seed_remote_vtep(s)), _ip(NIC_VTEP), 0xC000 | s, ident=k))
        host.append(udp_frame(_mac(PEER_MAC), _mac(NIC_MAC), _ip(seed_local_vm(s)),
                              _ip(seed_inner_dst((k * 7919) % tunnels)), 1024 + s, 5001, 60, k,
                              ident=k))
    return net, host


def _read_latency(path: Path) -> list[tuple[int, int, int]]:
    """(index_in, first_in_cycle, first_out_cycle) per emitted frame, in output order."""
    rows = []
    with open(path) as f:
        next(f, None)
        for line in f:
            a, b, c, _ = line.split(",")
            rows.append((int(a), int(b), int(c)))
    return rows


def cycles_per_frame(rows: Sequence[tuple[int, int, int]], group: Sequence[int], g: int,
                     skip: int = 4) -> float | None:
    """Steady-state cycles per frame of group ``g``: the spacing of consecutive output first
    beats of its frames (the first ``skip`` left out: pipeline fill, the previous size)."""
    outs = [c for i, _, c in rows if group[i] == g]
    outs = outs[skip:]
    if len(outs) < 2:
        return None
    return (outs[-1] - outs[0]) / (len(outs) - 1)


def latency_pacing_gbps(clock_mhz: float) -> float:
    """The input rate that spaces frames by ``LATENCY_GAP_CYCLES_PER_BYTE`` cycles per wire
    byte at ``clock_mhz`` (0.5 Gb/s at 250 MHz)."""
    return 8.0 * clock_mhz / (1000.0 * LATENCY_GAP_CYCLES_PER_BYTE)


def idle_latency(rows: Sequence[tuple[int, int, int]], group: Sequence[int], sizes: Sequence[int]
                 ) -> tuple[dict[str, int], list[str]]:
    """Per size: cycles from a frame's first input beat to its first output beat, from the
    latency CSV ``rows`` of a run whose frames each found the pipeline idle. Returns ({size:
    cycles}, problems): every frame of a size must take the same number of cycles (a spread
    would mean the pipeline was not idle); the largest is kept."""
    per: dict[int, list[int]] = {}
    for i, first_in, first_out in rows:
        per.setdefault(group[i], []).append(first_out - first_in)
    res: dict[str, int] = {}
    problems: list[str] = []
    for gi, size in enumerate(sizes):
        lat = per.get(gi)
        if not lat:
            problems.append(f"size {size}: no output frame")
            continue
        if min(lat) != max(lat):
            problems.append(f"size {size}: {min(lat)}..{max(lat)} cycles")
        res[str(size)] = max(lat)
    return res, problems


@dataclass
class _BenchInputs:
    """The bench's frames, written once as pcaps under ``work``, shared by every build."""
    work: Path
    sizes: Sequence[int]
    per_size: int
    net: list[bytes]
    host: list[bytes]
    group: list[int]
    lat_net: list[bytes]
    lat_host: list[bytes]
    lat_group: list[int]
    opts: SimOptions
    lat_opts: SimOptions
    clock_mhz: float


def _bench_run(binary: Path, cfg: Config, w: int, wd: Path, opts: SimOptions,
               net: list[bytes], host: list[bytes], prefix: str) -> Outputs:
    """Both directions at once, from the pcaps ``{prefix}net.pcap`` and ``{prefix}host.pcap``
    written next to ``wd``, with latency CSVs; every frame must be decapsulated or
    encapsulated."""
    wd.mkdir()
    out = simulate(binary, cfg, wd, opts, latency=True,
                   decap=Port(net, wd.parent / f"{prefix}net.pcap", wd / "host_out.pcap"),
                   encap=Port(host, wd.parent / f"{prefix}host.pcap", wd / "net_out.pcap"))
    _bench_sanity(out, len(net), w)
    return out


def _bench_build(binary: Path, cfg: Config, w: int, tag: str, what: str, ins: _BenchInputs,
                 quiet: bool) -> dict[str, Any]:
    """One build at one width: the back-to-back run (cycles per frame per direction and size,
    simulation speed) and the idle-pipeline latency run; ``tag`` names its work directories,
    ``what`` the build in progress lines."""
    work, sizes = ins.work, ins.sizes
    note(f"bench: {w}-bit {what}, {len(sizes)} sizes x {ins.per_size} frames per "
         f"direction, back-to-back ...", not quiet)
    out = _bench_run(binary, cfg, w, work / f"{tag}_w{w}", ins.opts, ins.net, ins.host, "")
    per_dir: dict[str, Any] = {}
    for d in DIRECTIONS:
        rows = _read_latency(out.latency_csv[d])
        res = {}
        for gi, size in enumerate(sizes):
            cpf = cycles_per_frame(rows, ins.group, gi)
            net_bytes = size + ENCAP_OVERHEAD  # the network wire's frame incl. FCS
            in_bus = (net_bytes if d == "decap" else size) - FCS_BYTES
            out_bus = (size if d == "decap" else net_bytes) - FCS_BYTES
            bound = max(beats(in_bus, w // 8), beats(out_bus, w // 8))
            entry: dict[str, Any] = {
                "inner_frame_bytes": size, "network_frame_bytes": net_bytes,
                "cycles_per_frame": cpf, "beats_bound": bound,
                "mpps_at_clock": ins.clock_mhz / cpf if cpf else None,
            }
            for rate in BENCH_RATES:
                need = rate * 1e3 / ((net_bytes + WIRE_OVERHEAD) * 8)  # Mpps at line rate
                ratio = (ins.clock_mhz / cpf) / need if cpf else None
                entry[f"capacity_vs_{rate}g"] = round(ratio, 4) if ratio else None
                entry[f"fraction_{rate}g"] = round(min(1.0, ratio), 4) if ratio else None
            res[str(size)] = entry
        per_dir[d] = res
    wall = out.harness.get("wall_seconds")
    frames = len(ins.net) + len(ins.host)
    note(f"bench: {w}-bit {what}, idle-pipeline latency, {len(sizes)} sizes x "
         f"{LATENCY_FRAMES} frames per direction at {ins.lat_opts.line_rate_gbps:g} Gb/s ...",
         not quiet)
    lat_out = _bench_run(binary, cfg, w, work / f"{tag}_lat_w{w}", ins.lat_opts, ins.lat_net,
                         ins.lat_host, "lat_")
    latency: dict[str, Any] = {}
    for d in DIRECTIONS:
        latency[d], problems = idle_latency(_read_latency(lat_out.latency_csv[d]),
                                            ins.lat_group, sizes)
        if problems:
            raise VtepError(f"{w}-bit bench of {what}: {d} latency differs between frames of "
                            f"one size, so the pipeline was not idle: "
                            + "; ".join(problems), 1)
    return {"wall_seconds": wall, "cycles": out.harness.get("cycles"), "frames": frames,
            "sim_frames_per_second": round(frames / wall, 1) if wall else None,
            "sim_cycles_per_second": round(out.harness["cycles"] / wall)
            if wall and out.harness.get("cycles") else None,
            **per_dir, "latency": latency,
            "latency_wall_seconds": lat_out.harness.get("wall_seconds")}


def bench(widths: Sequence[int], clock_mhz: float, per_size: int, output: Path,
          large: bool = True, lookup_frames: int = 2000, quiet: bool = False,
          ensure: Callable[..., Path] | None = None) -> dict[str, Any]:
    """Line-rate fractions (decap and encap, every size and width, frames back to back),
    idle-pipeline latency (a second run per width, :data:`LATENCY_FRAMES` frames per size and
    direction paced at :func:`latency_pacing_gbps`) and table lookup rates. Writes ``output``
    (JSON) and returns the document."""
    from wirespeed.build import ensure_harness

    ensure = ensure or ensure_harness
    t_start = time.monotonic()
    load_before = os.getloadavg()[0]
    sizes = BENCH_SIZES
    net, host, group = _bench_frames(sizes, per_size, BENCH_TUNNELS_DEFAULT)
    lat_net, lat_host, lat_group = _bench_frames(sizes, LATENCY_FRAMES, BENCH_TUNNELS_DEFAULT)
    doc_widths: dict[str, Any] = {}
    lookups: list[dict[str, Any]] = []
    lat_gbps = latency_pacing_gbps(clock_mhz)
    with tempfile.TemporaryDirectory(prefix="wirespeed-vtep-bench-") as tmp:
        work = Path(tmp)
        ins = _BenchInputs(work, sizes, per_size, net, host, group, lat_net, lat_host,
                           lat_group,
                           SimOptions(clock_mhz=clock_mhz, line_rate_gbps=0.0, progress=False),
                           SimOptions(clock_mhz=clock_mhz, line_rate_gbps=lat_gbps,
                                      progress=False),
                           clock_mhz)
        for name, frames in (("net", net), ("host", host), ("lat_net", lat_net),
                             ("lat_host", lat_host)):
            pcap.write(work / f"{name}.pcap", frames)
        for w in widths:
            cfg = bench_config(clock_mhz, BENCH_TUNNELS_DEFAULT, 32768, w)
            binary = ensure(w, verbose=not quiet, block="vtep")
            doc_widths[str(w)] = _bench_build(binary, cfg, w, "base", "vtep_top", ins, quiet)
        lk_runs = [(w, 32768, BENCH_TUNNELS_DEFAULT) for w in widths]
        if large:
            lk_runs.append((max(widths), LARGE_TUNNEL_SLOTS, LARGE_TUNNELS))
        for w, slots, tunnels in lk_runs:
            lookups.append(_lookup_run(w, slots, tunnels, clock_mhz, work, lookup_frames, quiet,
                                       ensure))
    doc = {
        "what": "vtep_top line-rate fraction and table lookup rate, Verilator, back-to-back "
                "inputs (--line-rate-gbps 0), both directions at once",
        "frame_sizes": "inner (tenant) Ethernet frame incl. FCS; the network wire carries it "
                       "+ 50 bytes (VXLAN): decap takes size+50 in, size out; encap size in, "
                       "size+50 out. 754 = the seed's 804-byte VXLAN frames",
        "line_rate_basis": "the network port: frames of size+50 bytes + 20 bytes preamble/IFG "
                           "at 10/25/100 Gb/s; fraction = min(1, achieved Mpps / line-rate "
                           "Mpps), capacity = the unclipped ratio",
        "cycles_per_frame": "spacing of consecutive output first beats of one size, in steady "
                            "state (first 4 frames of each size left out); beats_bound = "
                            "max(input beats, output beats) per frame",
        "latency": "idle pipeline: widths[W].latency[direction][size] = cycles from the "
                   "handshake of a frame's first input beat to that of its first output beat; "
                   f"{LATENCY_FRAMES} frames per size and direction (every one took the same), "
                   f"inputs paced at {lat_gbps:g} Gb/s ({LATENCY_GAP_CYCLES_PER_BYTE} cycles "
                   "per wire byte of the previous frame), so each frame finds the block empty. "
                   "decap is cut-through; encap stores the whole frame in its frame FIFO first, "
                   "so its latency grows with the frame",
        "sim_speed": "widths[W]: frames = both directions of the line-rate run (2 x sizes x "
                     "frames_per_size), sim_frames_per_second = frames / wall_seconds, "
                     "sim_cycles_per_second = cycles / wall_seconds; wall_seconds is the "
                     "ws_vtep process's own time, including reset and the AXI-Lite writes of "
                     "the tables (16K tunnels)",
        "clock_mhz": clock_mhz,
        "frames_per_size": per_size,
        "latency_frames_per_size": LATENCY_FRAMES,
        "latency_pacing_gbps": lat_gbps,
        "sizes": list(sizes),
        "widths": doc_widths,
        "lookup_rate": lookups,
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "load_average_1min_before": round(load_before, 2)},
        "date": time.strftime("%Y-%m-%d"),
        "bench_wall_seconds": round(time.monotonic() - t_start, 1),
    }
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(doc, indent=2) + "\n")
    return doc


def _bench_sanity(out: Outputs, n: int, w: int) -> None:
    h = out.harness
    for d, want in (("decap", "DECAP"), ("encap", "ENCAP")):
        got = h.get(d, {}).get("outcomes", {}).get(want, {}).get("packets")
        if got != n or len(out.frames[d]) != n:
            raise VtepError(f"{w}-bit bench: {d} decided {got} of {n} frames as {want} and "
                            f"output {len(out.frames[d])}", 1)


def _lookup_run(w: int, slots: int, tunnels: int, clock_mhz: float, work: Path, n: int,
                quiet: bool, ensure: Callable[..., Path]) -> dict[str, Any]:
    note(f"bench: lookup rate, {w}-bit vtep_top, {slots} tunnel slots ({tunnels} tunnels) ...",
         not quiet)
    t0 = time.monotonic()
    cfg = bench_config(clock_mhz, tunnels, slots, w)
    cfg.vtep_register_writes()
    place_s = time.monotonic() - t0
    binary = ensure(w, verbose=not quiet, block="vtep", tunnel_slots=slots)
    wd = work / f"lookup_w{w}_t{slots}"
    wd.mkdir()
    ln_net, ln_host = _lookup_frames(n, tunnels)
    pcap.write(wd / "lk_net.pcap", ln_net)
    pcap.write(wd / "lk_host.pcap", ln_host)
    t1 = time.monotonic()
    out = simulate(binary, cfg, wd, SimOptions(clock_mhz=clock_mhz, line_rate_gbps=0.0),
                   decap=Port(ln_net, wd / "lk_net.pcap", wd / "host_out.pcap"),
                   encap=Port(ln_host, wd / "lk_host.pcap", wd / "net_out.pcap"))
    sim_s = time.monotonic() - t1
    h = out.harness
    res: dict[str, Any] = {"data_width": w, "tunnel_slots": slots, "tunnels": tunnels,
                           "vnis": BENCH_VNIS, "frames": n,
                           "register_writes": len(cfg.vtep_register_writes()),
                           "placement_seconds": round(place_s, 2),
                           "sim_seconds": round(sim_s, 2)}
    for d, want, out_bus in (("decap", "DROP_TRUNCATED", 0), ("encap", "ENCAP", 110)):
        hd = h.get(d, {})
        got = hd.get("outcomes", {}).get(want, {}).get("packets")
        if got != n:
            raise VtepError(f"lookup bench ({w} bit, {slots} slots): {d}: {got} of {n} frames "
                            f"{want}", 1)
        first, last = hd.get("first_in_cycle"), hd.get("last_in_cycle")
        end = max(last, hd.get("last_out_cycle") or 0)
        span = end - first + 1
        bound = max(beats(60, w // 8), beats(out_bus, w // 8) if out_bus else 0)
        res[d] = {"outcome": want, "cycles": span, "lookups_per_cycle": round(n / span, 4),
                  "beats_bound_per_cycle": round(1 / bound, 4),
                  "lookups_per_second_at_clock": round(n / span * clock_mhz * 1e6)}
    return res


def bench_tables(doc: Mapping[str, Any]) -> str:
    """The bench's results as text: per direction, fraction of 10/25/100G per size and width;
    then the lookup rates."""
    from wirespeed.report import grid

    widths = list(doc["widths"])
    parts = [f"vtep bench: back-to-back, {doc['clock_mhz']:g} MHz, {doc['frames_per_size']} "
             f"frames per size; sizes = inner frame incl. FCS (network frame = size + 50); "
             f"cell = cycles/frame -> fraction of 10/25/100G on the network port"]
    for d in DIRECTIONS:
        rows = []
        for size in doc["sizes"]:
            row = [f"{size} ({size + ENCAP_OVERHEAD})"]
            for w in widths:
                e = doc["widths"][w][d][str(size)]
                cpf = e["cycles_per_frame"]
                row.append("-" if cpf is None else
                           f"{cpf:.2f} -> {e['fraction_10g']:.2f}/{e['fraction_25g']:.2f}/"
                           f"{e['fraction_100g']:.2f}")
            rows.append(row)
        parts.append(f"\n{_label(d)}")
        parts.append(grid(rows, ["size (network)", *(f"{w} bit" for w in widths)]))
    if all("latency" in doc["widths"][w] for w in widths):
        rows = []
        for size in doc["sizes"]:
            rows.append([f"{size} ({size + ENCAP_OVERHEAD})",
                         *(" / ".join(str(doc["widths"][w]["latency"][d].get(str(size), "-"))
                                      for d in DIRECTIONS) for w in widths)])
        parts.append("\nidle-pipeline latency, cycles from a frame's first input beat to its "
                     "first output beat: decap / encap (encap stores the whole frame first)")
        parts.append(grid(rows, ["size (network)", *(f"{w} bit" for w in widths)]))
    rows = []
    for r in doc["lookup_rate"]:
        rows.append([f"{r['data_width']} bit", f"{r['tunnel_slots']} ({r['tunnels']} tunnels)",
                     f"{r['decap']['lookups_per_cycle']:.3f} (bound "
                     f"{r['decap']['beats_bound_per_cycle']:.3f})",
                     f"{r['encap']['lookups_per_cycle']:.3f} (bound "
                     f"{r['encap']['beats_bound_per_cycle']:.3f})"])
    parts.append("\ntable lookups per cycle, back-to-back 64-byte input frames (decap: VNI "
                 "table; encap: tunnel table; bound = 1 / bus beats per frame)")
    parts.append(grid(rows, ["width", "tunnel slots", "decap (VNI table)",
                             "encap (tunnel table)"]))
    return "\n".join(parts)

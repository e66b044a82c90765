"""``wirespeed tap``: a block's Verilator model live between Linux TAP devices (docs/tap.md).

The harnesses are C++ (``sim/tap_vtep.cpp`` → ``ws_tap_vtep``, ``sim/tap_gre.cpp`` →
``ws_tap_gre``; no Python per frame). This module builds them (``sim/build.sh W tap-vtep``,
cached on the same source hash as the other harnesses), turns a config file into the register
writes they apply after reset, and execs them.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from wirespeed import paths
from wirespeed.build import DEFAULT_TUNNEL_SLOTS, BuildError, _wait_showing_progress, ensure_harness, source_hash
from wirespeed.config import Config
from wirespeed.progress import note

BLOCKS = {"vtep": ("tap-vtep", "ws_tap_vtep"), "gre": ("tap-gre", "ws_tap_gre")}
# Default TAP names (at most 15 characters, the kernel's limit).
DEFAULT_TAPS = {"vtep": ("wsnet", "wshost"), "gre": ("wsgin", "wsgout")}


class TapError(RuntimeError):
    """Something the user must fix before the harness can run (root, /dev/net/tun, a build)."""


# The optimized build (issue 30): the TAP harness with a model of its own compiled with GCC
# profile feedback (sim/build.sh W tap-vtep, trained on iperf-like traffic: about 1.1-1.2x the
# cycles per second), minutes per source change instead of the seconds of a link on ws_vtep's
# model. Asked for by ``optimized=True`` or WS_TAP_PGO=1 in the environment (tapbench sets it;
# `wirespeed tap` and the demo follow the environment). The VTEP only.
PGO_ENV = "WS_TAP_PGO"
SOURCES_ENV = "WS_TAP_SOURCES"


def want_optimized(block: str, optimized: bool | None = None) -> bool:
    if optimized is None:
        optimized = os.environ.get(PGO_ENV, "") not in ("", "0")
    return bool(optimized) and block == "vtep"


def harness_path(block: str, width: int, optimized: bool = False) -> Path:
    target, binary = BLOCKS[block]
    sub = f"{target.replace('-', '_')}{'_pgo' if optimized else ''}_w{width}"
    return paths.BUILD / "sim" / sub / binary


TOPS = {"vtep": "vtep_top", "gre": "gre_decap"}
SOURCES = {"vtep": "tap_vtep.cpp", "gre": "tap_gre.cpp"}


def _link_on_model(block: str, width: int, binary: Path, verbose: bool) -> bool:
    """Compile the TAP harness alone and link it with the verilated model that ws_vtep / ws_sim
    already built (wirespeed.build's cached build of the same RTL): seconds instead of the
    minutes of a model of its own. False when that build lacks a piece (then sim/build.sh)."""
    base = ensure_harness(width, verbose=verbose, block=block)
    mdir = base.parent
    pieces = [mdir / "verilated.o", mdir / "verilated_threads.o", mdir / f"V{TOPS[block]}__ALL.a"]
    if not all(p.is_file() for p in pieces) or not (mdir / f"V{TOPS[block]}.h").is_file():
        return False
    vroot = paths.verilator_root()
    # The flags of Verilator's own makefile for a harness file (see the build logs).
    defines = ["-DVERILATOR=1"] + [f"-DVM_{k}=0" for k in ("COVERAGE", "SC", "TIMING", "TRACE", "TRACE_FST",
                                                         "TRACE_VCD", "TRACE_SAIF")]
    cmd = ["g++", "-O2", "-std=gnu++20", "-w", f"-I{mdir}", f"-I{vroot / 'include'}",
           f"-I{vroot / 'include' / 'vltstd'}", f"-I{paths.SIM}", *defines, str(paths.SIM / SOURCES[block]),
           *map(str, pieces), "-pthread", "-lpthread", "-latomic", "-o", str(binary)]
    note(f"linking {binary.name} with the model of {base} ...", verbose)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"compiling sim/{SOURCES[block]} failed:\n{r.stderr[-3000:]}")
    return True


def ensure_tap_harness(block: str, width: int, verbose: bool = True, optimized: bool | None = None) -> Path:
    """The ``ws_tap_*`` binary of ``block`` at ``width``, built first when its sources changed
    (the key of wirespeed.build: every file under rtl/ and sim/, and the Verilator version):
    linked with ws_vtep's / ws_sim's model when that is built, else by ``sim/build.sh``;
    ``optimized`` (default: WS_TAP_PGO=1 in the environment): the profile-feedback build."""
    if block not in BLOCKS:
        raise TapError(f"unknown block {block!r} (known: {', '.join(BLOCKS)})")
    optimized = want_optimized(block, optimized)
    binary = harness_path(block, width, optimized)
    out = binary.parent
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / ".sources.sha256"
    with open(out.parent / f".lock-{out.name}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        key = source_hash()
        # WS_TAP_SOURCES: a source hash the caller built for and keeps to (tapbench: the tree may
        # change under a bench of several minutes; its figures are of the build it made)
        keys = {key, *filter(None, os.environ.get(SOURCES_ENV, "").split(","))}
        if binary.is_file() and stamp.is_file() and stamp.read_text().strip() in keys:
            return binary
        if not optimized and _link_on_model(block, width, binary, verbose):
            stamp.write_text(key + "\n")
            return binary
        log = out.parent / f"build-{out.name}.log"
        note(f"building {binary.name} ({block}, {width}-bit{', profile feedback' if optimized else ''}; "
             f"once per source change, {'5 to 15' if optimized else 'about 2'} min) ... log: {log}", verbose)
        t0 = time.monotonic()
        env = paths.verilator_env()
        env["WS_SIM_MDIR"] = str(out)
        env["WS_SIM_PGO"] = "1" if optimized else "0"
        with open(log, "w") as f:
            proc = subprocess.Popen(["bash", str(paths.SIM / "build.sh"), str(width), BLOCKS[block][0]],
                                    cwd=paths.ROOT, env=env, stdout=f, stderr=subprocess.STDOUT)
            rc = _wait_showing_progress(proc, log, t0, verbose)
        if rc != 0 or not binary.is_file():
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
            raise BuildError(f"building {binary.name} failed (sim/build.sh exit {rc}); last lines of {log}:\n{tail}")
        stamp.write_text(key + "\n")
        note(f"built {binary} in {time.monotonic() - t0:.0f} s", verbose)
        return binary


def _csum(b: bytes) -> int:
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def _mac(text: str) -> bytes:
    return bytes.fromhex(text.replace(":", ""))


def _ipv4(src: str, dst: str, proto: int, payload: bytes, ident: int) -> bytes:
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident & 0xFFFF, 0x4000, 64, proto, 0,
                    socket.inet_aton(src), socket.inet_aton(dst))
    return h[:10] + struct.pack("!H", _csum(h)) + h[12:] + payload


def _tcp(seq: int, ack: int, payload: bytes) -> bytes:
    return struct.pack("!HHIIBBHHH", 40000, 5001, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, 0x10, 65535, 0,
                       0) + payload


def training_frames(n: int) -> tuple[list[bytes], list[bytes]]:
    """(network-port frames, host-port frames) like the TAP lab's traffic (wirespeed.taplab):
    VXLAN-encapsulated TCP segments from the cloud (1514-byte outer frames, every 16th a 9014-byte
    jumbo, every 32nd a 98-byte inner frame, a ping's size) and, on the host port, an ACK for
    every second segment plus full-size segments the other way (the bench runs iperf2 both ways)."""
    from wirespeed import taplab as t

    eth = lambda dst, src: _mac(t.MAC[dst]) + _mac(src) + b"\x08\x00"  # noqa: E731
    net, host = [], []
    for i in range(n):
        size = 98 - 54 if i % 32 == 31 else (9000 - 50 - 40 if i % 16 == 15 else 1500 - 50 - 40)
        inner = eth("wshost", t.MAC["vx0"]) + _ipv4(t.INNER_CLOUD, t.INNER_ONPREM, 6, _tcp(i * 1410, 1, bytes(size)), i)
        udp_payload = struct.pack("!BBHI", 0x08, 0, 0, t.VNI << 8) + inner
        udp = struct.pack("!HHHH", 49152 + (i % 512), 4789, 8 + len(udp_payload), 0) + udp_payload
        net.append(eth("nic", t.MAC["wsnet"]) + _ipv4(t.UNDER_CLOUD, t.UNDER_NIC, 17, udp, i))
        if i % 2:
            host.append(eth("vx0", t.MAC["wshost"]) + _ipv4(t.INNER_ONPREM, t.INNER_CLOUD, 6, _tcp(1, i * 1410, b""), i))
        if i % 3 == 0:
            host.append(eth("vx0", t.MAC["wshost"]) +
                        _ipv4(t.INNER_ONPREM, t.INNER_CLOUD, 6, _tcp(i * 1410, 1, bytes(1500 - 40)), i))
    return net, host


def write_training(directory: str | Path, width: int, n: int = 12000) -> None:
    """The profile-feedback training input of ``sim/build.sh W tap-vtep``: net.pcap, host.pcap
    (training_frames) and regs.txt (the TAP lab's tunnel) in ``directory``."""
    from wirespeed import config, pcap, taplab

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    net, host = training_frames(n)
    pcap.write(d / "net.pcap", net)
    pcap.write(d / "host.pcap", host)
    cfg = config.from_mapping(taplab.lab_config(width), "taplab")
    (d / "regs.txt").write_text(cfg.vtep_register_file_text())


def preflight() -> None:
    """The checks the harness makes too, before spending minutes on a build."""
    if sys.platform != "linux":
        raise TapError("TAP devices are Linux only")
    if os.geteuid() != 0:
        raise TapError("creating TAP devices needs root (CAP_NET_ADMIN): run as root, e.g. "
                       "`sudo .venv/bin/wirespeed tap ...`")
    if not Path("/dev/net/tun").exists():
        raise TapError("/dev/net/tun is missing: load the tun module (`modprobe tun`) or, in a "
                       "container, pass the device in (e.g. docker --device /dev/net/tun)")


def regs_file(cfg: Config, block: str) -> Path:
    """The config's register writes for ``block`` as a ``--regs`` file under build/tap/."""
    text = cfg.vtep_register_file_text() if block == "vtep" else cfg.register_file_text()
    d = paths.BUILD / "tap"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"regs-{block}-{hashlib.sha1(text.encode()).hexdigest()[:12]}.txt"
    if not path.is_file():
        path.write_text(text)
    return path


def harness_argv(binary: Path, block: str, taps: Sequence[str], netns: Sequence[str | None],
                 regs: Path | None, extra: Sequence[str]) -> list[str]:
    """The harness's command line: ports' TAPs (and namespaces), registers, the rest as given."""
    names = ("net", "host") if block == "vtep" else ("in", "out")
    argv = [str(binary)]
    for port, tap, ns in zip(names, taps, netns):
        argv += [f"--{port}-tap", tap]
        if ns:
            argv += [f"--{port}-netns", ns]
    if regs is not None:
        argv += ["--regs", str(regs)]
    return argv + list(extra)


def exec_harness(argv: list[str]) -> None:
    """Replace this process with the harness (signals then reach it directly)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(argv[0], argv)

"""Helpers of the VXLAN VTEP end-to-end tests: they drive the real `wirespeed` CLI and ws_vtep."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Sequence

from wirespeed import config as wconfig
from wirespeed import pcap
from wirespeed.model.vxlan import decap as model_decap
from wirespeed.model.vxlan import encap as model_encap
from wirespeed.paths import ROOT


def run_cli(args: Sequence[str | Path], timeout: float = 900) -> subprocess.CompletedProcess:
    """`wirespeed ARGS` in a subprocess (what a user runs); never raises on the exit code."""
    return subprocess.run([sys.executable, "-m", "wirespeed.cli", *map(str, args)], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


def run_ok(args: Sequence[str | Path], timeout: float = 900) -> subprocess.CompletedProcess:
    proc = run_cli(args, timeout)
    assert proc.returncode == 0, (
        f"wirespeed {' '.join(map(str, args))} exited {proc.returncode}\n"
        f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def expect_decap(frames: Sequence[bytes], cfg: wconfig.Config, width: int
                 ) -> tuple[list[bytes], Counter[str], list[int]]:
    """The model's (output frames, outcome counts, VNIs of the decapsulated outputs)."""
    mcfg = cfg.vtep.decap_config()
    outs, counts, vnis = [], Counter(), []
    for f in frames:
        r = model_decap(f, mcfg, keep_w=width // 8)
        counts[r.outcome.name] += 1
        if r.output is not None:
            outs.append(r.output)
            if r.decapsulated:
                vnis.append(r.vni)
    return outs, counts, vnis


def expect_encap(frames: Sequence[bytes], cfg: wconfig.Config) -> tuple[list[bytes], Counter[str]]:
    ecfg = cfg.vtep.encap_config()
    outs, counts = [], Counter()
    for f in frames:
        r = model_encap(f, ecfg)
        counts[r.outcome.name] += 1
        if r.output is not None:
            outs.append(r.output)
    return outs, counts


def counted(rep_dir: dict) -> dict[str, int]:
    return {k: v["packets"] for k, v in rep_dir["outcomes"].items() if v["packets"]}


def assert_same_frames(got: Sequence[bytes], want: Sequence[bytes], what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} output frames, the model expects {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{what}: output frame {i} differs from the model"


def run_vtep(tmp_path: Path, width: int, *, net: Sequence[bytes] | None = None,
             host: Sequence[bytes] | None = None, config_text: str | None = None,
             name: str = "case", net_in: Path | None = None, extra: Sequence[str] = ()
             ) -> tuple[dict, wconfig.Config, dict[str, list[bytes]]]:
    """`wirespeed run --block vtep --check` on the given frames; asserts exit 0 and that every
    output equals the model (again, independently of --check); returns (report, config,
    outputs by direction)."""
    args: list[str | Path] = ["run", "--block", "vtep", "--width", str(width), "--check",
                              "--quiet", "--report", tmp_path / f"{name}_report.json", *extra]
    cfg = wconfig.Config()
    if config_text is not None:
        cp = tmp_path / f"{name}.yaml"
        cp.write_text(config_text)
        cfg = wconfig.load(cp)
        args += ["--config", cp]
    outs: dict[str, Path] = {}
    if net is not None:
        src = net_in or tmp_path / f"{name}_net.pcap"
        if net_in is None:
            pcap.write(src, [bytes(f) for f in net])
        outs["decap"] = tmp_path / f"{name}_host_out.pcap"
        args += ["--net-in", src, "--host-out", outs["decap"]]
    if host is not None:
        src = tmp_path / f"{name}_host.pcap"
        pcap.write(src, [bytes(f) for f in host])
        outs["encap"] = tmp_path / f"{name}_net_out.pcap"
        args += ["--host-in", src, "--net-out", outs["encap"]]
    run_ok(args)
    rep = json.loads((tmp_path / f"{name}_report.json").read_text())
    got = {d: pcap.read_ethernet(p) for d, p in outs.items()}
    assert rep["model_check"]["ok"], rep["model_check"]["differences"]
    assert rep["balance_errors"] == []
    if net is not None:
        want, counts, _ = expect_decap([bytes(f) for f in net], cfg, width)
        assert_same_frames(got["decap"], want, f"{width} bit decap")
        assert counted(rep["decap"]) == dict(counts)
        assert rep["decap"]["loss"] == 0
    if host is not None:
        want, counts = expect_encap([bytes(f) for f in host], cfg)
        assert_same_frames(got["encap"], want, f"{width} bit encap")
        assert counted(rep["encap"]) == dict(counts)
        assert rep["encap"]["loss"] == 0
    return rep, cfg, got


def tunnels_yaml(tunnels: dict) -> str:
    """The `vtep.tunnels` YAML list of a model tunnel table {(vid|None, dst): Tunnel}."""
    lines = ["  tunnels:"]
    for (vid, dst), t in tunnels.items():
        ip = ".".join(str(dst >> s & 255) for s in (24, 16, 8, 0))
        mac = lambda b: ":".join(f"{x:02x}" for x in b)  # noqa: E731
        ipx = lambda v: ".".join(str(v >> s & 255) for s in (24, 16, 8, 0))  # noqa: E731
        lines.append(f"    - {{inner_dst: \"{ip}\", " + (f"vlan: {vid}, " if vid is not None else "")
                     + f"vni: {t.vni}, outer_dst_mac: \"{mac(t.dst_mac)}\", "
                     f"outer_src_mac: \"{mac(t.src_mac)}\", outer_src: \"{ipx(t.src_ip)}\", "
                     f"outer_dst: \"{ipx(t.dst_ip)}\", udp_port: {t.udp_port}, ttl: {t.ttl}, "
                     f"dscp: {t.dscp}}}")
    return "\n".join(lines) + "\n"

"""The ``wirespeed`` command line.

``wirespeed run`` with no arguments runs the built-in default scenario (the seed's Table 2)
through the cycle-accurate Verilator model and prints the seed's tables beside ours.
``wirespeed run --in IN.pcap --out OUT.pcap`` runs any Ethernet pcap. See docs/config.md.
``wirespeed run --block vtep --net-in/--host-in ...`` runs the VXLAN VTEP (``vtep_top``) on
either direction or both; ``wirespeed run --scenario vxlan-seed`` runs the Lanner/Ethernity
VXLAN offload test (wirespeed.vtep).

Exit codes: 0 success; 1 the run is inconsistent (balance) or differs from the golden model;
2 bad input (config, pcap, arguments); 3 the harness could not be built or failed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Sequence

from wirespeed import __version__, pcap, paths, report, scenario
from wirespeed.build import BuildError, ensure_harness
from wirespeed.config import WIDTHS, Config, ConfigError
from wirespeed.config import load as load_config
from wirespeed.progress import note
from wirespeed.sim import SimError, SimOptions
from wirespeed.sim import run as run_sim

EXIT_OK, EXIT_MISMATCH, EXIT_INPUT, EXIT_SIM = 0, 1, 2, 3


class CliError(Exception):
    """A failure to report in one message with an exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------------------- helpers

def _config(args: argparse.Namespace) -> Config:
    try:
        cfg = load_config(args.config) if args.config else Config()
        over: dict[str, Any] = {}
        if args.width is not None:
            over["data_width"] = args.width
        if args.clock_mhz is not None:
            over["clock_mhz"] = args.clock_mhz
        if args.line_rate_gbps is not None:
            over["line_rate_gbps"] = args.line_rate_gbps
        return cfg.replace(**over) if over else cfg
    except ConfigError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc


def _harness(width: int, quiet: bool) -> Path:
    try:
        return ensure_harness(width, verbose=not quiet)
    except BuildError as exc:
        raise CliError(str(exc), EXIT_SIM) from exc


def _simulate(cfg: Config, frames: list[bytes], in_path: Path, out_path: Path, work: Path,
              opts: SimOptions, quiet: bool, latency_csv: Path | None = None,
              stat_csv: Path | None = None, binary: Path | None = None
              ) -> tuple[dict[str, Any], list[bytes]]:
    """Run the harness (``binary``, default this tree's) on ``in_path`` (holding ``frames``);
    return its JSON and the output."""
    binary = binary or _harness(cfg.data_width, quiet)
    regs = work / "regs.txt"
    regs.write_text(cfg.register_file_text())
    json_path = work / "harness.json"
    note(f"simulating {len(frames)} frames on the {cfg.data_width}-bit pipeline ...", not quiet)
    try:
        h = run_sim(binary, in_path, out_path, json_path, regs, opts, latency_csv, stat_csv)
    except SimError as exc:
        raise CliError(str(exc), EXIT_SIM) from exc
    try:
        out = pcap.read_ethernet(out_path)
    except pcap.PcapError as exc:
        raise CliError(f"the harness's output is unusable: {exc}", EXIT_SIM) from exc
    return h, out


def _model_check(cfg: Config, frames: list[bytes], out: list[bytes], rep: dict[str, Any],
                 quiet: bool) -> tuple[list[str], list[str]]:
    """Compare with the golden model; return (differences, outcome name of every frame)."""
    from wirespeed.check import differences, expected

    note(f"checking {len(frames)} frames against the golden model ...", not quiet)
    exp = expected(frames, cfg.gre_config())
    errs = differences(out, exp.outputs)
    for name in report.OUTCOMES:
        got, want = rep["outcomes"][name]["packets"], exp.outcomes.get(name, 0)
        if got != want:
            errs.append(f"{name}: {got} frames, the model expects {want}")
    rep["model_check"] = {"frames": len(frames), "ok": not errs, "differences": errs}
    if not errs and not quiet:
        print(f"model check: {len(frames)}/{len(frames)} frames match (outputs byte for byte, "
              "outcome counts)")
    return errs, exp.per_frame


def _gre_written(cfg: Config) -> Any:
    """Whether a GRE frame of an outcome whose output began ends up in the output pcap: all
    but the late drops (aborted), with malformed frames forwarded by policy written."""
    def written(outcome: str) -> bool:
        if cfg.policy_malformed == "forward" and outcome in report.MALFORMED:
            return True
        return not outcome.startswith("DROP_")
    return written


def _gre_verdicts(cfg: Config, stat_csv: Path, lat_csv: Path, n_out: int,
                  paths_: Sequence[Path]) -> list[Any]:
    """The per-frame verdicts of a GRE run, also written to each of ``paths_``."""
    from wirespeed import verdicts

    try:
        rows = verdicts.build(verdicts.read_stat_csv(stat_csv), verdicts.read_latency_csv(lat_csv),
                              report.OUTCOMES, _gre_written(cfg), n_out)
    except (OSError, ValueError, verdicts.VerdictError) as exc:
        raise CliError(f"per-frame verdicts: {exc}", EXIT_SIM) from exc
    for p in paths_:
        verdicts.write(p, ((None, v) for v in rows))
    return rows


def _finish(rep: dict[str, Any], report_path: Path | None, check_errs: list[str]) -> None:
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(rep, indent=2) + "\n")
    errs = report.balance_errors(rep)
    msgs = []
    if errs:
        msgs.append("balance check failed (frames unaccounted for):\n  " + "\n  ".join(errs))
    if check_errs:
        msgs.append("the output differs from the golden model:\n  " + "\n  ".join(check_errs))
    if msgs:
        where = f" (report: {report_path})" if report_path is not None else ""
        raise CliError("\n".join(msgs) + where, EXIT_MISMATCH)


# ---------------------------------------------------------------------------- commands

def _block(args: argparse.Namespace) -> str:
    """The block a `run` drives: --block, else vtep when a VTEP option or scenario is given."""
    vtep_opts = [f"--{n.replace('_', '-')}" for n in ("net_in", "net_out", "host_in", "host_out")
                 if getattr(args, n) is not None]
    scen = getattr(args, "scenario", None)
    block = args.block
    if block is None:
        block = "vtep" if (vtep_opts or scen == "vxlan-seed") else "gre"
    if block == "gre":
        if vtep_opts:
            raise CliError(f"{', '.join(vtep_opts)} belong to --block vtep (the GRE block "
                           "takes --in/--out)", EXIT_INPUT)
        if scen == "vxlan-seed":
            raise CliError("--scenario vxlan-seed runs the VXLAN VTEP, not --block gre",
                           EXIT_INPUT)
        if args.host_rate is not None:
            raise CliError("--host-rate applies to --scenario vxlan-seed only", EXIT_INPUT)
    else:
        if args.in_path is not None or args.out_path is not None:
            raise CliError("--block vtep has two ports: use --net-in/--net-out (decap) and "
                           "--host-in/--host-out (encap) instead of --in/--out", EXIT_INPUT)
        if scen == "gre-seed":
            raise CliError("--scenario gre-seed runs the GRE block, not --block vtep",
                           EXIT_INPUT)
        if scen is None and args.host_rate is not None:
            raise CliError("--host-rate applies to --scenario vxlan-seed only", EXIT_INPUT)
    if scen is not None and args.in_path is not None:
        raise CliError(f"--scenario {scen} generates its own input: leave out --in",
                       EXIT_INPUT)
    if scen == "vxlan-seed" and (args.net_in is not None or args.host_in is not None):
        raise CliError("--scenario vxlan-seed generates its own input: leave out --net-in and "
                       "--host-in", EXIT_INPUT)
    return block


def cmd_run(args: argparse.Namespace) -> int:
    if getattr(args, "scenario", None) == "capture-seed":
        from wirespeed import capture_seed

        return capture_seed.cmd(args)
    if getattr(args, "rtl_gen", False):
        raise CliError("--rtl-gen selects the RTL generator of --scenario capture-seed; "
                       "add --scenario capture-seed or drop --rtl-gen", EXIT_INPUT)
    block = _block(args)
    cfg = _config(args)
    opts = SimOptions(clock_mhz=cfg.clock_mhz, line_rate_gbps=cfg.line_rate_gbps,
                      idle_prob=args.idle_prob, stall_prob=args.stall_prob, seed=args.seed,
                      progress=not args.quiet)
    if cfg.pipeline:
        return _run_pipeline(args, cfg, opts)
    if block == "vtep":
        return _run_vtep(args, cfg, opts)
    if args.in_path is None:
        return _run_default(args, cfg, opts)
    if args.out_path is None:
        raise CliError("--in needs --out (where to write the output pcap)", EXIT_INPUT)
    if args.frames is not None:
        raise CliError("--frames applies to the default scenario only, not to --in", EXIT_INPUT)
    try:
        frames = pcap.read_ethernet(args.in_path)
    except pcap.PcapError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    with _workdir(args.workdir) as work:
        norm = work / "in.pcap"  # one plain little-endian pcap, FCS removed, for the harness
        pcap.write(norm, frames)
        args.out_path.parent.mkdir(parents=True, exist_ok=True)
        lat_csv, stat_csv = work / "latency.csv", work / "stat.csv"
        h, out = _simulate(cfg, frames, norm, args.out_path, work, opts, args.quiet, lat_csv,
                           stat_csv)
        rep = report.build(h, cfg, [len(f) for f in frames], [len(f) for f in out])
        rep["input"], rep["output"] = str(args.in_path), str(args.out_path)
        verdict_paths = [p for p in (args.verdicts, args.workdir and work / "verdicts.csv")
                         if p]
        _gre_verdicts(cfg, stat_csv, lat_csv, len(out), verdict_paths)
        if args.verdicts:
            rep["verdicts"] = str(args.verdicts)
        check_errs: list[str] = []
        if args.check:
            check_errs, per_frame = _model_check(cfg, frames, out, rep, args.quiet)
            rep["latency_by_outcome"] = report.latency_by(lat_csv, per_frame.__getitem__)
    if not args.quiet:
        print(report.summary(rep))
        if args.verdicts:
            print(f"verdicts: {args.verdicts}")
    report_path = args.report or (args.workdir / "report.json" if args.workdir else None)
    _finish(rep, report_path, check_errs)
    return EXIT_OK


def _run_pipeline(args: argparse.Namespace, cfg: Config, opts: SimOptions) -> int:
    """``pipeline:`` in the config: the blocks in turn on --in, each stage's output the next
    one's input, the last one's to --out (docs/config.md, "pipeline")."""
    from wirespeed import verdicts, vtep

    chain = " -> ".join(cfg.pipeline)
    if args.in_path is None or args.out_path is None or args.block is not None or \
            args.scenario is not None:
        raise CliError(f"{cfg.source}: pipeline: [{', '.join(cfg.pipeline)}] chains blocks on "
                       "one capture: give --in IN.pcap --out OUT.pcap (and no --block, "
                       "--net-in/--host-in or --scenario)", EXIT_INPUT)
    if args.frames is not None:
        raise CliError("--frames applies to the default scenario only, not to --in", EXIT_INPUT)
    try:
        frames = pcap.read_ethernet(args.in_path)
    except pcap.PcapError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    stages: list[dict[str, Any]] = []
    rows: list[tuple[str | None, Any]] = []
    errs: list[str] = []
    cur = frames
    with _workdir(args.workdir) as work:
        for k, stage in enumerate(cfg.pipeline, 1):
            name = f"{k}:{stage}"
            sdir = work / f"stage{k}_{stage}"
            sdir.mkdir(parents=True, exist_ok=True)
            in_path = sdir / "in.pcap"
            pcap.write(in_path, cur)
            last = k == len(cfg.pipeline)
            out_path = args.out_path if last else sdir / "out.pcap"
            out_path.parent.mkdir(parents=True, exist_ok=True)
            if not args.quiet:
                print(f"pipeline {chain}: stage {k}, {stage}: {len(cur)} frames")
            if stage == "gre":
                lat_csv, stat_csv = sdir / "latency.csv", sdir / "stat.csv"
                h, out = _simulate(cfg, cur, in_path, out_path, sdir, opts, args.quiet,
                                   lat_csv, stat_csv)
                rep = report.build(h, cfg, [len(f) for f in cur], [len(f) for f in out])
                rows += [(name, v) for v in _gre_verdicts(cfg, stat_csv, lat_csv, len(out), ())]
                serrs = report.balance_errors(rep)
                if args.check:
                    serrs += _model_check(cfg, cur, out, rep, args.quiet)[0]
                text = report.summary(rep)
            else:
                port = vtep.Port(cur, in_path, out_path)
                rep, res = _vtep_simulate(cfg, sdir, opts, args.quiet, {"decap": port},
                                          verdict_paths=[sdir / "verdicts.csv"])
                rows += [(name, v) for _, v in vtep.verdict_rows(res)]
                out = res.frames["decap"]
                serrs = list(rep["balance_errors"])
                if args.check:
                    serrs += vtep.model_check(cfg, {"decap": port}, res, rep, args.quiet)
                text = vtep.summary(rep)
            rep["stage"] = name
            stages.append(rep)
            errs += [f"stage {name}: {e}" for e in serrs]
            if not args.quiet:
                print(text)
            cur = out
        if args.verdicts:
            verdicts.write(args.verdicts, rows, label="stage")
        if args.workdir:
            verdicts.write(work / "verdicts.csv", rows, label="stage")
    dropped = [sum((s["decap"] if "decap" in s else s)["drops"].values()) for s in stages]
    rep_all = {"pipeline": list(cfg.pipeline), "input": str(args.in_path),
               "output": str(args.out_path), "packets_in": len(frames), "packets_out": len(cur),
               "dropped_by_stage": dict(zip((s["stage"] for s in stages), dropped)),
               "stages": stages}
    if args.verdicts:
        rep_all["verdicts"] = str(args.verdicts)
    if not args.quiet:
        print(f"pipeline {chain}: {len(frames)} frames in, {len(cur)} out, counted drops "
              + ", ".join(f"{s['stage']} {d}" for s, d in zip(stages, dropped)))
        if args.verdicts:
            print(f"verdicts: {args.verdicts}")
    report_path = args.report or (args.workdir / "report.json" if args.workdir else None)
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(rep_all, indent=2) + "\n")
    if errs:
        where = f" (report: {report_path})" if report_path is not None else ""
        raise CliError("the pipeline's checks failed:\n  " + "\n  ".join(errs) + where,
                       EXIT_MISMATCH)
    return EXIT_OK


@contextlib.contextmanager
def _workdir(workdir: Path | None) -> Iterator[Path]:
    """--workdir (created, kept) or a temporary directory removed afterwards."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="wirespeed-") as tmp:
            yield Path(tmp)
        return
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"--workdir {workdir}: cannot create it: {exc.strerror or exc}",
                       EXIT_INPUT) from exc
    yield workdir


def _run_default(args: argparse.Namespace, cfg: Config, opts: SimOptions) -> int:
    n = scenario.DEFAULT_FRAMES if args.frames is None else args.frames
    if n < 2:
        raise CliError("--frames must be at least 2 (one GRE and one TCP frame)", EXIT_INPUT)
    workdir = args.workdir or paths.BUILD / "run" / "default"
    workdir.mkdir(parents=True, exist_ok=True)
    in_path = workdir / "in.pcap"
    out_path = args.out_path or workdir / "out.pcap"
    report_path = args.report or workdir / "report.json"
    if not args.quiet:
        print(f"default scenario (the seed's Table 2): {n} frames of 92 bytes incl. FCS, "
              f"GRE-in-IPv4 TCP and plain TCP 1:1, offered at "
              + (f"{cfg.line_rate_gbps:g} GbE" if cfg.line_rate_gbps else "back-to-back"))
    frames = scenario.generate(n, show_progress=not args.quiet)
    pcap.write(in_path, frames, timestamps_ns=scenario.timestamps_ns(frames, cfg.line_rate_gbps))
    lat_csv, stat_csv = workdir / "latency.csv", workdir / "stat.csv"
    h, out = _simulate(cfg, frames, in_path, out_path, workdir, opts, args.quiet, lat_csv,
                       stat_csv)
    rep = report.build(h, cfg, [len(f) for f in frames], [len(f) for f in out])
    _gre_verdicts(cfg, stat_csv, lat_csv, len(out),
                  [workdir / "verdicts.csv", *([args.verdicts] if args.verdicts else [])])
    rep["verdicts"] = str(args.verdicts or workdir / "verdicts.csv")
    rep["scenario"] = {"name": "seed-table2", "frames": n, "frame_bytes_with_fcs":
                       scenario.SEED_FRAME_BYTES, "mix": "GRE:TCP 1:1 (even input index = GRE)"}
    rep["input"], rep["output"] = str(in_path), str(out_path)
    # Frame i is GRE when i is even (scenario.generate).
    rep["latency_by_class"] = report.latency_by(lat_csv, lambda i: "TCP" if i % 2 else "GRE")
    check_errs = _model_check(cfg, frames, out, rep, args.quiet)[0] if args.check else []
    if not args.quiet:
        print()
        print(report.table2(rep))
        print()
        print(report.table1(rep, rep["latency_by_class"]))
        print()
        print(report.summary(rep))
        print(report.clock_note(rep, [len(f) for f in frames], "gre_decap",
                                report.measured_fmax("gre_decap", cfg.data_width)))
        print(f"\nreport: {report_path}")
    _finish(rep, report_path, check_errs)
    return EXIT_OK


# ---------------------------------------------------------------------------- the VTEP

def _vtep_harness(cfg: Config, quiet: bool) -> Path:
    try:
        return ensure_harness(cfg.data_width, verbose=not quiet, block="vtep",
                              tunnel_slots=cfg.vtep.tunnel_slots)
    except BuildError as exc:
        raise CliError(str(exc), EXIT_SIM) from exc


def _vtep_simulate(cfg: Config, work: Path, opts: SimOptions, quiet: bool,
                   ports: dict[str, Any], host_line_rate_gbps: float | None = None,
                   verdict_paths: Sequence[Path] = ()) -> tuple[dict[str, Any], Any]:
    from wirespeed import vtep

    binary = _vtep_harness(cfg, quiet)
    what = " and ".join(f"{len(p.frames)} {d}" for d, p in ports.items())
    note(f"simulating {what} frames on the {cfg.data_width}-bit vtep_top "
         f"({len(cfg.vtep_register_writes())} register writes first) ...", not quiet)
    try:
        out = vtep.simulate(binary, cfg, work, opts, decap=ports.get("decap"),
                            encap=ports.get("encap"), host_line_rate_gbps=host_line_rate_gbps,
                            quiet=quiet, stat=bool(verdict_paths))
        vtep.write_verdicts(out, verdict_paths)
    except vtep.VtepError as exc:
        raise CliError(str(exc), exc.code) from exc
    return vtep.build_report(out, cfg, ports), out


def _vtep_finish(rep: dict[str, Any], report_path: Path | None, check_errs: list[str]) -> None:
    if report_path is not None:
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(json.dumps(rep, indent=2) + "\n")
    msgs = []
    if rep["balance_errors"]:
        msgs.append("balance check failed (frames unaccounted for):\n  "
                    + "\n  ".join(rep["balance_errors"]))
    if check_errs:
        msgs.append("the output differs from the golden model:\n  " + "\n  ".join(check_errs))
    if msgs:
        where = f" (report: {report_path})" if report_path is not None else ""
        raise CliError("\n".join(msgs) + where, EXIT_MISMATCH)


def _run_vtep(args: argparse.Namespace, cfg: Config, opts: SimOptions) -> int:
    from wirespeed import vtep

    if args.scenario == "vxlan-seed":
        return _run_vxlan_seed(args, cfg, opts)
    pairs = {"decap": (args.net_in, args.host_out, "--net-in", "--host-out"),
             "encap": (args.host_in, args.net_out, "--host-in", "--net-out")}
    for d, (i, o, fi, fo) in pairs.items():
        if i is not None and o is None:
            raise CliError(f"{fi} needs {fo} (where to write the {d} output pcap)", EXIT_INPUT)
        if o is not None and i is None:
            raise CliError(f"{fo} is the output of {fi}, which is missing", EXIT_INPUT)
    if all(i is None for i, *_ in pairs.values()):
        raise CliError("--block vtep needs --net-in NET.pcap --host-out OUT.pcap (decap), "
                       "--host-in HOST.pcap --net-out OUT.pcap (encap), or both; or "
                       "--scenario vxlan-seed", EXIT_INPUT)
    if args.frames is not None:
        raise CliError("--frames applies to scenarios only, not to pcap inputs", EXIT_INPUT)
    frames: dict[str, list[bytes]] = {}
    for d, (i, *_rest) in pairs.items():
        if i is not None:
            try:
                frames[d] = pcap.read_ethernet(i)
            except pcap.PcapError as exc:
                raise CliError(str(exc), EXIT_INPUT) from exc
    with _workdir(args.workdir) as work:
        ports = {}
        for d, f in frames.items():
            norm = work / f"{d}_in.pcap"  # one plain pcap, FCS removed, for the harness
            pcap.write(norm, f)
            out_path = pairs[d][1]
            out_path.parent.mkdir(parents=True, exist_ok=True)
            ports[d] = vtep.Port(f, norm, out_path)
        verdict_paths = [p for p in (args.verdicts, args.workdir and work / "verdicts.csv")
                         if p]
        rep, out = _vtep_simulate(cfg, work, opts, args.quiet, ports,
                                  verdict_paths=verdict_paths)
        for d in ports:
            rep[d]["input"] = str(pairs[d][0])
        if args.verdicts:
            rep["verdicts"] = str(args.verdicts)
        check_errs = vtep.model_check(cfg, ports, out, rep, args.quiet) if args.check else []
    if not args.quiet:
        print(vtep.summary(rep))
        if args.verdicts:
            print(f"verdicts: {args.verdicts}")
    report_path = args.report or (args.workdir / "report.json" if args.workdir else None)
    _vtep_finish(rep, report_path, check_errs)
    return EXIT_OK


def _run_vxlan_seed(args: argparse.Namespace, cfg: Config, opts: SimOptions) -> int:
    from wirespeed import vtep

    n = vtep.SEED_FRAMES if args.frames is None else args.frames
    if n < 1:
        raise CliError("--frames must be at least 1", EXIT_INPUT)
    if args.config is not None and (cfg.vtep.tunnels or cfg.vtep.vni_entries):
        raise CliError("--scenario vxlan-seed brings its own tables (16K tunnels, 4K VNIs); "
                       "leave vtep.tunnels and vtep.vni_table out of --config", EXIT_INPUT)
    workdir = args.workdir or paths.BUILD / "run" / "vxlan-seed"
    workdir.mkdir(parents=True, exist_ok=True)
    report_path = args.report or workdir / "report.json"
    host_rate = args.host_rate or "loopback"
    rate = cfg.line_rate_gbps
    # The seed's host traffic is the decapsulated traffic looped back: the host port offers
    # as many frames per second as the network port. Its 754-byte frames at that frame rate
    # are (754 + 20) / (804 + 20) of the network port's bit rate.
    host_gbps = (rate * (vtep.SEED_INNER_WIRE_BYTES + 20) / (vtep.SEED_WIRE_BYTES + 20)
                 if host_rate == "loopback" and rate else None)
    if not args.quiet:
        print(f"VXLAN seed scenario (Lanner/Ethernity ACE-NIC): {n} frames per direction; "
              f"network frames {vtep.SEED_WIRE_BYTES} bytes incl. FCS both ways "
              f"({vtep.SEED_BUS_BYTES} on the bus), host frames "
              f"{vtep.SEED_INNER_WIRE_BYTES} ({vtep.SEED_INNER_BUS_BYTES}); "
              f"{vtep.SEED_TUNNELS} tunnels, {vtep.SEED_VNIS} VNIs per direction")
        if rate == 0:
            print("inputs offered back-to-back")
        elif host_gbps is not None:
            print(f"network input paced at {rate:g} Gb/s; host input at the same frame rate "
                  f"({host_gbps:.4f} Gb/s of 754-byte frames: the seed's loop-back), so the "
                  f"encapsulated output fills the network port's {rate:g} Gb/s")
        else:
            print(f"both inputs paced at {rate:g} Gb/s of their own frames (--host-rate line)")
    seed_cfg = vtep.seed_config(cfg, tunnel_slots=cfg.vtep.tunnel_slots)
    seed_cfg = seed_cfg.replace(vtep=_seed_vtep_with_user_bits(seed_cfg, cfg))
    try:
        seed_cfg.vtep_register_writes()
    except ConfigError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    net, host = vtep.seed_frames(n, show_progress=not args.quiet)
    net_in, host_in = workdir / "net_in.pcap", workdir / "host_in.pcap"
    pcap.write(net_in, net, timestamps_ns=scenario.timestamps_ns(net, rate))
    pcap.write(host_in, host, timestamps_ns=scenario.timestamps_ns(host, host_gbps or rate))
    (workdir / "regs.txt").write_text(seed_cfg.vtep_register_file_text())
    ports = {"decap": vtep.Port(net, net_in, args.host_out or workdir / "host_out.pcap"),
             "encap": vtep.Port(host, host_in, args.net_out or workdir / "net_out.pcap")}
    rep, out = _vtep_simulate(seed_cfg, workdir, opts, args.quiet, ports, host_gbps,
                              [workdir / "verdicts.csv", *([args.verdicts] if args.verdicts
                                                           else [])])
    rep["verdicts"] = str(args.verdicts or workdir / "verdicts.csv")
    rep["scenario"] = {
        "name": "vxlan-seed", "frames_per_direction": n,
        "network_frame_bytes_with_fcs": vtep.SEED_WIRE_BYTES,
        "host_frame_bytes_with_fcs": vtep.SEED_INNER_WIRE_BYTES,
        "tunnels": vtep.SEED_TUNNELS, "vnis_per_direction": vtep.SEED_VNIS,
        "host_rate": host_rate, "network_line_rate_gbps": rate,
        "host_line_rate_gbps": host_gbps if host_gbps is not None else rate,
        "ports": vtep.SEED_PORTS,
        "two_ports": {"l2_tx_gbps": vtep.SEED_PORTS * rep["decap"]["tx_gbps"],
                      "l2_rx_gbps": vtep.SEED_PORTS * rep["encap"]["rx_gbps"],
                      "loss": vtep.SEED_PORTS * (rep["decap"]["loss"] + rep["encap"]["loss"])},
        "seed": {"l2_tx_gbps": vtep.SEED_L2_GBPS, "l2_rx_gbps": vtep.SEED_L2_GBPS, "loss": 0},
    }
    check_errs = vtep.model_check(seed_cfg, ports, out, rep, args.quiet) if args.check else []
    if not args.quiet:
        print()
        print(vtep.summary(rep))
        print()
        print(vtep.seed_table(rep))
        if args.check and not check_errs:
            print(f"\ngolden model: every output frame matches ({len(out.frames['decap'])} "
                  f"decap + {len(out.frames['encap'])} encap frames compared byte for byte)")
        print(f"\nreport: {report_path}")
    _vtep_finish(rep, report_path, check_errs)
    return EXIT_OK


def _seed_vtep_with_user_bits(seed_cfg: Config, user: Config) -> Any:
    """The seed's tables with the user's port/strict/miss/drop_pass settings (--config)."""
    import dataclasses

    u = user.vtep
    return dataclasses.replace(seed_cfg.vtep, port=u.port, port2=u.port2, strict=u.strict,
                               miss=u.miss, drop_pass=u.drop_pass)


def _cmd_bench_vtep(args: argparse.Namespace) -> int:
    from wirespeed import vtep

    per_size = 40 if args.frames is None else args.frames
    if per_size < 8:
        raise CliError("--frames (per size and direction) must be at least 8", EXIT_INPUT)
    output = args.output or paths.BUILD / "bench" / "vtep_linerate.json"
    try:
        doc = vtep.bench(args.widths, args.clock_mhz, per_size, output,
                         large=not args.no_large_table, quiet=args.quiet)
    except vtep.VtepError as exc:
        raise CliError(str(exc), exc.code) from exc
    except BuildError as exc:
        raise CliError(str(exc), EXIT_SIM) from exc
    print(vtep.bench_tables(doc))
    print(f"written: {output}")
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    if args.block == "vtep" and args.baseline:
        raise CliError("--baseline applies to --block gre", EXIT_INPUT)
    if args.block == "vtep":
        return _cmd_bench_vtep(args)
    if args.no_large_table:
        raise CliError("--no-large-table applies to --block vtep", EXIT_INPUT)
    if args.repeat < 1:
        raise CliError("--repeat must be at least 1", EXIT_INPUT)
    baselines = []
    if args.baseline:
        from wirespeed import baseline
        try:
            baselines = [baseline.describe(rev) for rev in args.baseline]
        except BuildError as exc:
            raise CliError(str(exc), EXIT_INPUT) from exc
    n = scenario.DEFAULT_FRAMES if args.frames is None else args.frames
    args.output = args.output or paths.BUILD / "bench" / "sim_speed.json"
    cfg = Config(line_rate_gbps=0.0, clock_mhz=args.clock_mhz)
    frames = scenario.generate(n, show_progress=not args.quiet)
    lengths = [len(f) for f in frames]
    load_before = os.getloadavg()[0]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="wirespeed-bench-") as tmp:
        workdir = Path(tmp)
        in_path = workdir / "in.pcap"
        pcap.write(in_path, frames)
        for w in args.widths:
            wcfg = cfg.replace(data_width=w)
            # The baselines' harnesses are built before any run is timed (the current one by
            # _bench_width, before its CPU time is taken).
            binaries = []
            for b in baselines:
                try:
                    binaries.append(baseline.harness(b["commit"], w, not args.quiet))
                except BuildError as exc:
                    raise CliError(str(exc), EXIT_SIM) from exc
            # Each baseline right after the current RTL at the same width, on the same input;
            # with --repeat N the whole round N times, each binary's fastest run (by CPU time)
            # reported, every run's times beside it.
            runs: list[list[dict[str, Any]]] = [[] for _ in range(1 + len(baselines))]
            for _ in range(args.repeat):
                runs[0].append(_bench_width(wcfg, frames, lengths, in_path, workdir, args.quiet))
                for i, binary in enumerate(binaries):
                    runs[i + 1].append(_bench_width(wcfg, frames, lengths, in_path, workdir,
                                                    args.quiet, binary))
            results[str(w)] = _best_run(runs[0])
            for b, r in zip(baselines, runs[1:]):
                b.setdefault("widths", {})[str(w)] = _best_run(r)
    doc = {
        "what": "Verilator harness speed on the default scenario (seed Table 2 mix, 88-byte "
                "frames), offered back-to-back; sim_packets_per_second = frames simulated per "
                "wall-clock second, mpps_at_clock = output frames per simulated us",
        "clock_mhz": cfg.clock_mhz,
        "frames": n,
        "host": {"machine": platform.machine(), "processor": _cpu_name(),
                 "python": platform.python_version(), "cpus": os.cpu_count(),
                 "load_average_1min_before": round(load_before, 2)},
        "date": time.strftime("%Y-%m-%d"),
        "repeat": args.repeat,
        "target_sim_packets_per_second_256": 1_000_000,
        "widths": results,
    }
    doc["host"]["load_average_1min_after"] = round(os.getloadavg()[0], 2)
    if baselines:
        doc["baselines"] = baselines
        doc["baselines_how"] = ("rtl/ of each revision built by this tree's sim/build.sh and "
                                "harness without profile feedback (WS_SIM_SOURCES), measured "
                                "right after the current RTL at each width on the same input")
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(doc, indent=2) + "\n")
    rows = [[f"{w} bit", f"{r['sim_packets_per_second'] / 1e6:.2f} M/s" if
             r["sim_packets_per_second"] else "-", f"{r['wall_seconds']:.2f} s"
             if r["wall_seconds"] is not None else "-", f"{r['mpps_at_clock']:.2f} Mpps",
             f"{r['offered_gbps_at_clock']:.1f} Gb/s"] for w, r in results.items()]
    print(f"bench: {n} frames back-to-back, clock {cfg.clock_mhz:g} MHz")
    print(report.grid(rows, ["width", "sim speed", "wall", "Mpps @ clock", "wire Gb/s @ clock"]))
    for b in baselines:
        print(f"baseline {b['rev']} ({b['commit'][:12]}): " + ", ".join(
            f"{w} bit {r['sim_packets_per_second'] / 1e6:.3f} M/s "
            f"(current {results[w]['sim_packets_per_second'] / r['sim_packets_per_second']:.2f}x; "
            f"CPU {results[w]['cpu_seconds'] and r['cpu_seconds'] / results[w]['cpu_seconds']:.2f}x)"
            for w, r in b["widths"].items() if r["sim_packets_per_second"]))
    print(f"written: {args.output}")
    r256 = results.get("256")
    if r256 and (r256["sim_packets_per_second"] or 0) < 1_000_000:
        print(f"note: 256-bit simulation speed {r256['sim_packets_per_second']:.0f} packets/s is "
              "below the 1 M/s target", file=sys.stderr)
    return EXIT_OK


def _bench_width(cfg: Config, frames: list[bytes], lengths: list[int], in_path: Path,
                 workdir: Path, quiet: bool, binary: Path | None = None) -> dict[str, Any]:
    opts = SimOptions(clock_mhz=cfg.clock_mhz, line_rate_gbps=0.0, progress=not quiet)
    if binary is None:
        _harness(cfg.data_width, quiet)  # built before the CPU time is taken
    cpu0 = _children_cpu()
    h, out = _simulate(cfg, frames, in_path, workdir / f"out_w{cfg.data_width}.pcap", workdir,
                       opts, quiet, binary=binary)
    cpu = _children_cpu() - cpu0
    rep = report.build(h, cfg, lengths, [len(f) for f in out])
    errs = report.balance_errors(rep)
    if errs:
        raise CliError(f"{cfg.data_width}-bit bench run is unbalanced:\n  " + "\n  ".join(errs),
                       EXIT_MISMATCH)
    return {
        "frames": len(frames),
        "wall_seconds": h.get("wall_seconds"),
        "sim_packets_per_second": h.get("sim_packets_per_second"),
        # The harness process's CPU time (start-up included): on a shared machine steadier
        # than the wall time.
        "cpu_seconds": round(cpu, 3),
        "sim_packets_per_cpu_second": len(frames) / cpu if cpu > 0 else None,
        "cycles": rep["cycles"],
        "elapsed_cycles": rep["elapsed_cycles"],
        "mpps_at_clock": rep["mpps"],
        "offered_gbps_at_clock": rep["offered_gbps"],
        "latency_cycles": rep["latency_cycles"],
    }


def _best_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run of least CPU time, with every run's CPU and wall seconds when there were more."""
    if len(runs) == 1:
        return runs[0]
    best = dict(min(runs, key=lambda r: r.get("cpu_seconds") or float("inf")))
    best["cpu_seconds_runs"] = [r.get("cpu_seconds") for r in runs]
    best["wall_seconds_runs"] = [r.get("wall_seconds") for r in runs]
    return best


def _children_cpu() -> float:
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cmd_build(args: argparse.Namespace) -> int:
    for w in args.widths:
        print(_harness(w, quiet=False))
    return EXIT_OK


def cmd_config(args: argparse.Namespace) -> int:
    from wirespeed import regs

    try:
        cfg = load_config(args.file)
    except ConfigError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    ignored = cfg.ignored_sections(args.block)
    if ignored:  # a section for the other block: say so rather than ignore it silently
        other = "gre" if args.block == "vtep" else "vtep"
        they = "they configure" if len(ignored) > 1 else "it configures"
        how = " --block vtep" if other == "vtep" else ""
        print(f"wirespeed: warning: {args.file}: {', '.join(ignored)}: not used by "
              f"{regs.lookup(args.block).top} (--block {args.block}): {they} "
              f"{regs.lookup(other).top}; see those writes with "
              f"`wirespeed config{how} {args.file}`", file=sys.stderr)
    # The writes in the harness's --regs format, each named in a comment (wirespeed regs).
    if args.block == "vtep":
        v = cfg.vtep
        print(f"# {args.file}: valid; vtep_top AXI4-Lite writes (address value  # register: "
              f"fields): decap CONTROL=0x{v.decap_control:x}, encap "
              f"CONTROL=0x{v.encap_control:x}, {len(v.vni_entries)} VNI table entries, "
              f"{len(v.tunnels)} tunnels")
        sys.stdout.write(regs.annotated(regs.lookup("vtep"), cfg.vtep_register_writes()))
        return EXIT_OK
    print(f"# {args.file}: valid; gre_decap AXI4-Lite writes (address value  # register: "
          f"fields), CONTROL=0x{cfg.control:x}")
    sys.stdout.write(regs.annotated(regs.lookup("gre"), cfg.register_writes()))
    return EXIT_OK


def cmd_regs(args: argparse.Namespace) -> int:
    from wirespeed import regs

    for i, choice in enumerate(args.block or ("gre", "vtep")):
        if i:
            print()
        sys.stdout.write(regs.render(regs.lookup(choice), expand=args.expand))
    return EXIT_OK


def cmd_fuzz(args: argparse.Namespace) -> int:
    from wirespeed import fuzz

    try:
        camp = fuzz.Campaign(seed=args.seed, count=args.count, blocks=fuzz.blocks_of(args.block),
                             widths=tuple(args.widths),
                             out_dir=args.out_dir or paths.BUILD / "fuzz",
                             chunk=args.chunk, max_idle_cycles=args.max_idle_cycles,
                             only_chunk=args.only_chunk, quiet=args.quiet)
        summary = fuzz.run_campaign(camp)
    except fuzz.FuzzError as exc:
        raise CliError(str(exc), exc.code) from exc
    fuzz.print_summary(summary)
    print(f"summary: {', '.join(summary['files'])}")
    return EXIT_MISMATCH if summary["failures"] else EXIT_OK


def cmd_lint(args: argparse.Namespace) -> int:
    from wirespeed.lint import LintError, targets
    from wirespeed.lint import main as lint_main

    try:
        targets(args.files, [])
    except LintError as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    return lint_main([str(f) for f in args.files])


# ---------------------------------------------------------------------------- parser

def _float_in(lo: float, hi: float, lo_open: bool = False, hi_open: bool = False):
    """An argparse type: a float in [lo, hi] (open ends where asked)."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if v != v or v < lo or v > hi or (lo_open and v == lo) or (hi_open and v == hi):
            raise argparse.ArgumentTypeError(
                f"{text} is not in {'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}")
        return v
    return parse


def _int_at_least(lo: int):
    """An argparse type: an integer >= lo."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{v} is below {lo}")
        return v
    return parse


def cmd_tap(args: argparse.Namespace) -> int:
    """Build the live TAP harness of a block and exec it (wirespeed.tap, docs/tap.md)."""
    from wirespeed import tap

    try:
        tap.preflight()
        cfg = load_config(args.config) if args.config else Config()
    except (tap.TapError, ConfigError) as exc:
        raise CliError(str(exc), EXIT_INPUT) from exc
    width = args.width or cfg.data_width
    if args.block == "vtep" and cfg.vtep.tunnel_slots != tap.DEFAULT_TUNNEL_SLOTS:
        raise CliError(f"{args.config}: vtep.tunnel_slots {cfg.vtep.tunnel_slots}: wirespeed tap runs the "
                       f"default table ({tap.DEFAULT_TUNNEL_SLOTS} slots); leave tunnel_slots out", EXIT_INPUT)
    try:
        binary = tap.ensure_tap_harness(args.block, width, verbose=True)
    except (BuildError, tap.TapError) as exc:
        raise CliError(str(exc), EXIT_SIM) from exc
    names = tap.DEFAULT_TAPS[args.block]
    if args.block == "vtep":
        taps = (args.net_tap or names[0], args.host_tap or names[1])
        netns = (args.net_netns, args.host_netns)
    else:
        taps = (args.in_tap or names[0], args.out_tap or names[1])
        netns = (args.in_netns, args.out_netns)
    extra = ["--interval", str(args.interval)]
    extra += ["--json"] if args.json else []
    extra += ["--quiet"] if args.quiet else []
    extra += ["--duration", str(args.duration)] if args.duration else []
    extra += ["--loss", str(args.loss), "--reorder", str(args.reorder)] if args.loss or args.reorder else []
    argv = tap.harness_argv(binary, args.block, taps, netns, tap.regs_file(cfg, args.block), extra)
    tap.exec_harness(argv)
    return EXIT_OK  # not reached


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="wirespeed",
        description="wirespeed: GRE decapsulation and VXLAN VTEP SmartNIC dataplane, "
                    "cycle-accurate model",
        epilog="Run `wirespeed run` for the seed's Table 2 scenario. Docs: docs/config.md.")
    ap.add_argument("--version", action="version", version=f"wirespeed {__version__}")
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="simulate a pcap (or the default scenario) through the RTL",
                         description="Without --in: the seed's Table 2 scenario. With --in/--out: "
                                     "any Ethernet pcap.")
    run.add_argument("--in", dest="in_path", type=Path, metavar="IN.pcap",
                     help="input pcap (Ethernet, frames without FCS)")
    run.add_argument("--out", dest="out_path", type=Path, metavar="OUT.pcap",
                     help="output pcap (aborted and dropped frames are not written)")
    run.add_argument("--config", type=Path, metavar="FILE", help="YAML config (docs/config.md)")
    run.add_argument("--report", type=Path, metavar="REPORT.json", help="write the JSON report")
    run.add_argument("--width", type=int, choices=WIDTHS, help="data width in bits (overrides "
                     "the config; default 256)")
    run.add_argument("--clock-mhz", type=_float_in(0, 5000, lo_open=True), metavar="F", help="clock for ns and Mpps (default 250)")
    run.add_argument("--line-rate-gbps", type=_float_in(0, 1600), metavar="F",
                     help="offered line rate, 0 = back-to-back (default 10)")
    run.add_argument("--frames", type=int, metavar="N", help=f"default scenario size "
                     f"(default {scenario.DEFAULT_FRAMES}); vxlan-seed: frames per direction "
                     f"(default 20000)")
    run.add_argument("--workdir", type=Path, metavar="DIR",
                     help="where the run's files are kept (input as simulated, register "
                          "writes, harness JSON, CSVs, verdicts.csv, report.json); default "
                          "scenario: build/run/default, vxlan-seed: build/run/vxlan-seed; "
                          "pcap runs: a temporary directory")
    run.add_argument("--check", action="store_true",
                     help="also compare every output frame with the golden model")
    run.add_argument("--verdicts", type=Path, metavar="FILE.csv",
                     help="write one row per input frame: index, outcome, output index (or "
                          "none), latency in cycles (VTEP: both directions, with a direction "
                          "column); the default scenario always writes WORKDIR/verdicts.csv")
    run.add_argument("--idle-prob", type=_float_in(0, 1, hi_open=True), default=0.0,
                     metavar="P", help="probability that the input offers no beat in a cycle (default 0)")
    run.add_argument("--stall-prob", type=_float_in(0, 1, hi_open=True), default=0.0,
                     metavar="P", help="probability that the output is not ready in a cycle (default 0)")
    run.add_argument("--seed", type=int, default=1, help="random seed for idle/stall")
    run.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    vt = run.add_argument_group("VXLAN VTEP (--block vtep; docs/config.md)")
    vt.add_argument("--block", choices=("gre", "vtep"), help="the block to simulate: gre "
                    "(gre_decap, the default) or vtep (vtep_top: VXLAN decap and encap)")
    vt.add_argument("--net-in", type=Path, metavar="NET.pcap",
                    help="network-port input: decapsulated to --host-out")
    vt.add_argument("--host-out", type=Path, metavar="OUT.pcap",
                    help="host-port output of the decap direction")
    vt.add_argument("--host-in", type=Path, metavar="HOST.pcap",
                    help="host-port input: encapsulated to --net-out")
    vt.add_argument("--net-out", type=Path, metavar="OUT.pcap",
                    help="network-port output of the encap direction")
    vt.add_argument("--scenario", choices=("gre-seed", "vxlan-seed", "capture-seed"),
                    help="gre-seed: the default GRE scenario (the seed's Table 2); vxlan-seed: "
                         "the Lanner/Ethernity VXLAN offload test (16K tunnels, 4K VNIs per "
                         "direction, 804-byte frames, both directions); capture-seed: the "
                         "CESNET 2x100G capture (capture_top per port, 64..1518 bytes and "
                         "IMIX, --frames per port and length, default 20000; docs/host.md)")
    vt.add_argument("--host-rate", choices=("loopback", "line"),
                    help="vxlan-seed: the host input's pacing: loopback (default) = the network "
                         "port's frame rate, as the seed's looped-back traffic; line = "
                         "--line-rate-gbps of its own frames")
    vt.add_argument("--rtl-gen", action="store_true",
                    help="capture-seed: the traffic from the RTL generator (capture_gen_top: "
                         "pkt_gen looped back into each port's capture, pkt_chk's counts and "
                         "latency printed); the IMIX row stays Python-only")
    run.set_defaults(func=cmd_run)

    bench = sub.add_parser("bench", help="simulation speed at every width (build/bench/; "
                           "`make bench` refreshes docs/bench/); --block vtep: VXLAN line-rate "
                           "fractions, latency and lookup rate")
    bench.add_argument("--block", choices=("gre", "vtep"), default="gre",
                       help="gre (default): simulation speed on the default scenario -> "
                            "build/bench/sim_speed.json; vtep: line-rate fraction of decap and "
                            "encap per frame size and width, idle-pipeline latency, table "
                            "lookup rate -> build/bench/vtep_linerate.json")
    bench.add_argument("--frames", type=int, metavar="N",
                       help=f"gre: frames of the default scenario (default "
                            f"{scenario.DEFAULT_FRAMES}); vtep: frames per size and direction "
                            f"(default 40)")
    bench.add_argument("--no-large-table", action="store_true",
                       help="vtep: skip the lookup-rate run with a 524288-slot tunnel table "
                            "(256K tunnels; its own Verilator build)")
    bench.add_argument("--widths", type=int, nargs="+", choices=WIDTHS, default=list(WIDTHS),
                       metavar="W", help="data widths to measure (default: 64 128 256 512)")
    bench.add_argument("--clock-mhz", type=_float_in(0, 5000, lo_open=True), default=250.0,
                       metavar="F", help="clock for Mpps (default 250)")
    bench.add_argument("--output", type=Path, metavar="FILE",
                       help="JSON results (default build/bench/sim_speed.json, with --block "
                            "vtep build/bench/vtep_linerate.json; `make bench` passes "
                            "docs/bench/...)")
    bench.add_argument("--repeat", type=int, default=1, metavar="N",
                       help="gre: measure the current RTL and every baseline N times, "
                            "interleaved, and report each one's run of least CPU time "
                            "(default 1)")
    bench.add_argument("--baseline", action="append", metavar="REV",
                       help="gre: also measure rtl/ of git revision REV (built by this tree's "
                            "harness) at each width, right after the current RTL, on the same "
                            "input; repeatable; results under \"baselines\"")
    bench.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    bench.set_defaults(func=cmd_bench)

    build = sub.add_parser("build", help="build (or reuse) the Verilator harness")
    build.add_argument("--widths", type=int, nargs="+", choices=WIDTHS, default=[256],
                       metavar="W", help="data widths (default 256)")
    build.set_defaults(func=cmd_build)

    cfg = sub.add_parser("config", help="validate a config and print its register writes by "
                         "name; warns about the sections the block ignores")
    cfg.add_argument("file", type=Path, help="YAML config file")
    cfg.add_argument("--block", choices=("gre", "vtep"), default="gre",
                     help="whose writes to print: gre_decap's (default) or vtep_top's "
                          "(the vtep: section)")
    cfg.set_defaults(func=cmd_config)

    from wirespeed.regs import CHOICES as REG_CHOICES

    rg = sub.add_parser("regs", help="the register maps by name (address, access, reset, "
                        "meaning) and the outcome codes, from wirespeed/regmap.py",
                        description="Print the AXI4-Lite register maps from the one source the "
                                    "RTL packages, the harnesses and the docs are generated "
                                    "from (wirespeed/regmap.py).")
    rg.add_argument("--block", choices=REG_CHOICES, action="append",
                    help="gre (gre_decap's space), vtep (vtep_top's four windows) or one block's "
                         "own window; repeat for several (default: gre and vtep)")
    rg.add_argument("--expand", action="store_true",
                    help="list every element of the arrays (the counters by outcome name, "
                         "every allow-list entry)")
    rg.set_defaults(func=cmd_regs)

    fz = sub.add_parser("fuzz", help="fuzzing campaign: random and mutated frames through "
                        "the RTL, checked against the golden models (docs/fuzzing.md)",
                        description="Feed --count frames (random bytes, mutated GRE/VXLAN/Geneve/host "
                                    "frames, the real captures) through the harnesses in chunks "
                                    "with random idle and backpressure, and check every frame "
                                    "against the golden model. Exit 1 when a chunk fails; its "
                                    "frames, config and replay commands go to --out-dir.")
    fz.add_argument("--seed", type=int, default=1, help="campaign seed (default 1); every "
                    "chunk derives its own seed from it")
    fz.add_argument("--count", type=_int_at_least(1), default=1_000_000, metavar="N",
                    help="frames to feed, all blocks together (default 1000000)")
    fz.add_argument("--block", choices=("gre", "vxlan-decap", "vxlan-encap", "geneve-decap", "all"),
                    default="all", help="gre (ws_sim), vxlan-decap / vxlan-encap (ws_vtep), "
                                        "geneve-decap (ws_geneve), or all (default; the VTEP's "
                                        "two directions run at once)")
    fz.add_argument("--widths", type=int, nargs="+", choices=WIDTHS, default=list(WIDTHS),
                    metavar="W", help="bus widths, taken in turn chunk by chunk (default: "
                                      "64 128 256 512)")
    fz.add_argument("--out-dir", type=Path, metavar="DIR",
                    help="summary.json/.md, harness copies and failing chunks (default "
                         "build/fuzz)")
    fz.add_argument("--chunk", type=_int_at_least(1), default=5000, metavar="N",
                    help="frames per harness run and direction (default 5000)")
    fz.add_argument("--max-idle-cycles", type=_int_at_least(1), default=10000, metavar="N",
                    help="stall watchdog: a run in which frames are pending but nothing moves "
                         "for N cycles fails (default 10000)")
    fz.add_argument("--only-chunk", type=_int_at_least(0), metavar="K",
                    help="run chunk K of the campaign alone (what a failure's replay "
                         "command does)")
    fz.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    fz.set_defaults(func=cmd_fuzz)

    lint = sub.add_parser("lint", help="Verilator -Wall lint of every RTL file")
    lint.add_argument("files", nargs="*", type=Path, help="RTL files (default: all of rtl/)")
    lint.set_defaults(func=cmd_lint)

    tp = sub.add_parser("tap", help="run a block live between Linux TAP devices (root; docs/tap.md)",
                        description="The block's Verilator model in real time, each port bound to a "
                                    "TAP device; Ctrl-C stops it with its final counters.")
    tp.add_argument("--block", choices=("vtep", "gre"), default="vtep",
                    help="vtep: vtep_top (network and host port); gre: gre_decap (in, out)")
    tp.add_argument("--width", type=int, choices=WIDTHS, help="bus width (default: the config's, 256)")
    tp.add_argument("--config", type=Path, help="config file (vtep: tunnels, VNI table; gre: allow list, policy)")
    for port, what in (("net", "vtep network port"), ("host", "vtep host port"), ("in", "gre input"),
                       ("out", "gre output")):
        tp.add_argument(f"--{port}-tap", metavar="NAME", help=f"TAP of the {what}")
        tp.add_argument(f"--{port}-netns", metavar="NS", help=f"create the {what}'s TAP in this namespace")
    tp.add_argument("--json", action="store_true", help="JSON lines instead of the table")
    tp.add_argument("--quiet", action="store_true", help="only the final counters")
    tp.add_argument("--interval", type=float, default=1.0, help="seconds between views (default 1)")
    tp.add_argument("--duration", type=float, default=0, help="stop after this many seconds")
    tp.add_argument("--loss", type=float, default=0, help="lose frames into the network-side port (0..1)")
    tp.add_argument("--reorder", type=float, default=0, help="reorder frames into the network-side port (0..1)")
    tp.set_defaults(func=cmd_tap)

    from wirespeed.capture import add_parser as add_capture_parser

    add_capture_parser(sub)   # wirespeed capture (wirespeed/capture.py, docs/host.md)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except CliError as exc:
        print(f"wirespeed: error: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("wirespeed: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

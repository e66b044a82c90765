"""``wirespeed capture``: a pcap through the capture path (``capture_top``: timestamps, RSS,
packed DMA rings) into the modelled host memory; one pcap per queue plus a JSON report
(docs/host.md, "ws_capture"; docs/config.md, "wirespeed capture").

:func:`ensure_capture_harness` builds ``sim/build.sh W capture`` (cached like the other
harnesses: by the hash of rtl/ and sim/), :func:`run_capture` runs it, :func:`summary` is the
table the CLI prints, :func:`cmd_capture` the subcommand. With ``gen=True`` it builds
``sim/build.sh W capture-gen`` (``ws_capture_gen``: ``capture_gen_top``, the RTL generator
looped back into the capture), which :func:`run_gen_ports` runs on each port.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wirespeed import pcap, paths
from wirespeed.build import BuildError, _wait_showing_progress, source_hash
from wirespeed.capture_check import check
from wirespeed.capture_config import CaptureConfig, CaptureConfigError, load
from wirespeed.progress import note

EXIT_OK, EXIT_MISMATCH, EXIT_INPUT, EXIT_SIM = 0, 1, 2, 3

# ws_capture's exit codes (sim/README.md), anything else is a crash
HARNESS_EXITS = {
    2: "ws_capture could not use its input, options or output directory",
    3: "the watchdog fired: the capture path stopped moving",
    4: "a check failed: frames in != captured + counted drops, or the rings/DMA broke a rule",
    5: "an AXI4-Lite register access failed",
}


class CaptureError(RuntimeError):
    """A capture that could not run; ``code`` is the CLI's exit code."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def harness_path(width: int, gen: bool = False) -> Path:
    if gen:
        return paths.BUILD / "sim" / f"capture_gen_w{width}" / "ws_capture_gen"
    return paths.BUILD / "sim" / f"capture_w{width}" / "ws_capture"


def ensure_capture_harness(width: int, verbose: bool = True, gen: bool = False) -> Path:
    """The ws_capture binary for ``width`` (``gen``: ws_capture_gen), built first when rtl/ or
    sim/ changed."""
    binary = harness_path(width, gen)
    outdir = binary.parent
    outdir.mkdir(parents=True, exist_ok=True)
    stamp = outdir / ".sources.sha256"
    with open(outdir.parent / f".lock-{outdir.name}", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            note(f"waiting for another process building {outdir} ...", verbose)
            fcntl.flock(lock, fcntl.LOCK_EX)
        key = source_hash()
        if binary.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
            return binary
        log = outdir.parent / f"build-{outdir.name}.log"
        top = "capture_gen_top" if gen else "capture_top"
        note(f"building the capture harness ({top}, {width}-bit data; once per source "
             f"change, about a minute) ... log: {log}", verbose)
        t0 = time.monotonic()
        env = paths.verilator_env()
        if outdir.resolve() != (paths.ROOT / "build" / "sim" / outdir.name).resolve():
            env["WS_SIM_MDIR"] = str(outdir)
        with open(log, "w") as out:
            proc = subprocess.Popen(["bash", str(paths.SIM / "build.sh"), str(width),
                                     "capture-gen" if gen else "capture"],
                                    cwd=paths.ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
            rc = _wait_showing_progress(proc, log, t0, verbose)
        if rc != 0 or not binary.is_file():
            tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-25:])
            raise BuildError(f"building {binary.name} failed (sim/build.sh exit {rc}); last lines "
                             f"of {log}:\n{tail}")
        stamp.write_text(key + "\n")
        note(f"built {binary} in {time.monotonic() - t0:.0f} s", verbose)
        return binary


@dataclass
class CaptureRun:
    report: dict[str, Any]
    out_dir: Path
    errors: list[str]          # the model check's findings (empty when agreed or not asked)


def _check_input(in_pcap: Path) -> None:
    if not in_pcap.is_file():
        raise CaptureError(f"{in_pcap}: no such file", EXIT_INPUT)
    try:
        pcap.read_ethernet(in_pcap)   # a clear message for a file that is not an Ethernet pcap
    except pcap.PcapError as exc:
        raise CaptureError(str(exc), EXIT_INPUT) from exc


def _prepare_out(out_dir: Path) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CaptureError(f"{out_dir}: cannot create the output directory: "
                           f"{exc.strerror or exc}", EXIT_INPUT) from exc
    if not os.access(out_dir, os.W_OK):
        raise CaptureError(f"{out_dir}: the output directory is not writable", EXIT_INPUT)


def _command(binary: Path, in_pcap: Path, out_dir: Path, cfg: CaptureConfig, report: Path,
             tag: str, seed: int, idle_prob: float, extra: list[str] | None,
             progress: bool) -> list[str]:
    cmd = [str(binary), "--in", str(in_pcap), "--out-dir", str(out_dir), "--json", str(report),
           "--seed", str(seed), "--idle-prob", repr(float(idle_prob)), *cfg.harness_flags(),
           *_regs_flags(cfg, out_dir, tag), *(extra or [])]
    if progress:
        cmd.append("--progress")
    return cmd


def _regs_flags(cfg: CaptureConfig, out_dir: Path, tag: str) -> list[str]:
    """The config's register writes as a --regs file in ``out_dir`` (none: no flag)."""
    writes = cfg.register_writes()
    if not writes:
        return []
    regs = out_dir / f"regs{tag}.txt"
    regs.write_text("# wirespeed capture: the config's register writes\n" +
                    "".join(f"0x{a:04x} 0x{v:08x}\n" for a, v in writes))
    return ["--regs", str(regs)]


def _run_side_by_side(cmds: list[list[str]], progress: bool) -> None:
    """The ports' harnesses as parallel processes (port 0's stderr shown when ``progress``);
    a CaptureError for the first that failed."""
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE,
                              stderr=None if progress and p == 0 else subprocess.PIPE, text=True)
             for p, cmd in enumerate(cmds)]
    outs = [pr.communicate() for pr in procs]
    for pr, cmd, (o, e) in zip(procs, cmds, outs):
        if pr.returncode != 0:
            raise _failed(pr.returncode, cmd, o, e)


def _failed(rc: int, cmd: list[str], out: str | None, err: str | None) -> CaptureError:
    what = HARNESS_EXITS.get(rc, "the harness crashed")
    detail = "\n".join(x.strip() for x in (out, err) if x and x.strip())
    code = EXIT_MISMATCH if rc == 4 else EXIT_INPUT if rc == 2 else EXIT_SIM
    return CaptureError(f"ws_capture exit {rc}: {what}\ncommand: {' '.join(cmd)}"
                        + (f"\n{detail}" if detail else ""), code)


def run_capture(in_pcap: Path, out_dir: Path, cfg: CaptureConfig, *, progress: bool = False,
                verbose: bool = True, check_model: bool = False, seed: int = 1,
                idle_prob: float = 0.0, extra: list[str] | None = None) -> CaptureRun:
    """Capture ``in_pcap`` into ``out_dir`` (queue-NN.pcap, report.json); raise
    :class:`CaptureError` on a failure a user can act on."""
    _check_input(in_pcap)
    _prepare_out(out_dir)
    try:
        binary = ensure_capture_harness(cfg.data_width, verbose)
    except BuildError as exc:
        raise CaptureError(str(exc), EXIT_SIM) from exc
    report = out_dir / "report.json"
    cmd = _command(binary, in_pcap, out_dir, cfg, report, "", seed, idle_prob, extra, progress)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise _failed(proc.returncode, cmd, proc.stdout, proc.stderr)
    rep = json.loads(report.read_text())
    errors = check(in_pcap, out_dir, rep, cfg.model()) if check_model else []
    return CaptureRun(rep, out_dir, errors)


def port_config(cfg: CaptureConfig, port: int, ports: int) -> CaptureConfig:
    """Port ``port``'s capture_top when the queues are split over ``ports`` ports, as the seed's
    card splits its DMA channels between its two PCIe Gen3 x16 interfaces (one per CPU): each
    port has cfg.queues / ports queues of its own (port p's are p * that .. ), its own link and
    host memory, and writes its number into the records' port field."""
    if ports == 1:
        return cfg
    if cfg.queues % ports:
        raise CaptureError(f"queues {cfg.queues}: two ports split the queues evenly; use an "
                           "even number", EXIT_INPUT)
    try:
        pc = cfg.replace(queues=cfg.queues // ports, port=port)
        pc.validate(f"port {port}")
    except CaptureConfigError as exc:
        raise CaptureError(str(exc), EXIT_INPUT) from exc
    return pc


def run_capture_ports(inputs: list[Path], out_dir: Path, cfg: CaptureConfig, *,
                      progress: bool = False, verbose: bool = True, check_model: bool = False,
                      seed: int = 1, idle_prob: float = 0.0,
                      extra: list[str] | None = None) -> CaptureRun:
    """One capture port per input pcap (1 or 2), each its own capture_top, PCIe Gen3 x16 link
    and host driver, run side by side (two processes: the ports share nothing but the clock);
    port p's queues are numbered from p * queues / ports (its files queue-NN.pcap in
    ``out_dir``); report.json holds both ports' reports and the totals (:func:`merge`)."""
    if len(inputs) == 1:
        return run_capture(inputs[0], out_dir, cfg, progress=progress, verbose=verbose,
                           check_model=check_model, seed=seed, idle_prob=idle_prob, extra=extra)
    if len(inputs) != 2:
        raise CaptureError(f"{len(inputs)} inputs: give one pcap per port, one or two",
                           EXIT_INPUT)
    for p in inputs:
        _check_input(p)
    _prepare_out(out_dir)
    cfgs = [port_config(cfg, p, 2) for p in range(2)]
    try:
        binary = ensure_capture_harness(cfg.data_width, verbose)
    except BuildError as exc:
        raise CaptureError(str(exc), EXIT_SIM) from exc
    reports = [out_dir / f"report-port{p}.json" for p in range(2)]
    _run_side_by_side([_command(binary, inp, out_dir, pc, report, f"-port{p}", seed + p,
                                idle_prob, (extra or []) + ["--queue-base", str(p * pc.queues)],
                                progress and p == 0)
                       for p, (inp, pc, report) in enumerate(zip(inputs, cfgs, reports))],
                      progress)
    reps = [json.loads(r.read_text()) for r in reports]
    errors: list[str] = []
    if check_model:
        for p, (inp, pc, rep) in enumerate(zip(inputs, cfgs, reps)):
            errors += [f"port {p}: {e}" for e in check(inp, out_dir, rep, pc.model())]
    rep = merge(reps)
    (out_dir / "report.json").write_text(json.dumps(rep, indent=2) + "\n")
    return CaptureRun(rep, out_dir, errors)


@dataclass(frozen=True)
class GenRun:
    """One run of pkt_gen on each port (ws_capture_gen): frame bytes on the bus (no FCS)."""

    len_min: int
    len_max: int
    count: int
    flows: int = 256
    rate_gbps: float | None = None     # None: the config's line rate; 0: back to back

    def flags(self) -> list[str]:
        f = ["--gen-len-min", str(self.len_min), "--gen-len-max", str(self.len_max),
             "--gen-count", str(self.count), "--gen-flows", str(self.flows)]
        if self.rate_gbps is not None:
            f += ["--gen-rate-gbps", repr(float(self.rate_gbps))]
        return f


def run_gen_ports(gen: GenRun, out_dir: Path, cfg: CaptureConfig, *, ports: int = 2,
                  progress: bool = False, verbose: bool = True, seed: int = 1,
                  extra: list[str] | None = None) -> CaptureRun:
    """The seed's demo on the RTL: on each of ``ports`` ports (1 or 2) capture_gen_top's
    generator loops back into its capture (ws_capture_gen: its own PCIe link model and host
    cores, the queues split as :func:`run_capture_ports` splits them); report.json merges the
    ports' reports (:func:`merge`), each with its ``generator`` and ``checker``."""
    if ports not in (1, 2):
        raise CaptureError(f"{ports} ports: one or two", EXIT_INPUT)
    _prepare_out(out_dir)
    cfgs = [port_config(cfg, p, ports) for p in range(ports)]
    try:
        binary = ensure_capture_harness(cfg.data_width, verbose, gen=True)
    except BuildError as exc:
        raise CaptureError(str(exc), EXIT_SIM) from exc
    reports = [out_dir / f"report-port{p}.json" for p in range(ports)]
    cmds = []
    for p, (pc, report) in enumerate(zip(cfgs, reports)):
        cmd = [str(binary), "--out-dir", str(out_dir), "--json", str(report),
               "--seed", str(seed + p), *pc.harness_flags(), *gen.flags(),
               "--queue-base", str(p * pc.queues), *_regs_flags(pc, out_dir, f"-port{p}"),
               *(extra or [])]
        if progress and p == 0:
            cmd.append("--progress")
        cmds.append(cmd)
    _run_side_by_side(cmds, progress)
    reps = [json.loads(r.read_text()) for r in reports]
    rep = merge(reps)
    (out_dir / "report.json").write_text(json.dumps(rep, indent=2) + "\n")
    return CaptureRun(rep, out_dir, [])


def merge(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """The ports' reports as one: totals, the queues by their global number (each with its
    port), each port's own report under ``ports``."""
    first = reps[0]
    out: dict[str, Any] = {k: first[k] for k in ("data_width", "clock_mhz", "line_rate_gbps",
                                                 "ring_bytes")}
    out["port_count"] = len(reps)
    out["queues"] = sum(r["queues"] for r in reps)
    for k in ("packets_in", "bytes_in", "captured", "captured_bytes", "dropped",
              "offered_gbps"):
        out[k] = sum(r[k] for r in reps)
    out["balanced"] = int(all(r["balanced"] for r in reps))
    out["queue"] = {}
    for p, r in enumerate(reps):
        for qs, q in r["queue"].items():
            out["queue"][str(r.get("queue_base", 0) + int(qs))] = dict(q, port=p)
    counters: dict[str, int] = {}
    for r in reps:
        for k, v in r["counters"].items():
            counters[k] = counters.get(k, 0) + v
    out["counters"] = counters
    for q in out["queue"].values():
        q["share"] = q["frames_in"] / out["packets_in"] if out["packets_in"] else 0.0
    shares = [q["share"] for q in out["queue"].values()]
    out["rss_spread"] = {"min_share": min(shares, default=0.0),
                         "max_share": max(shares, default=0.0),
                         "imbalance": max(shares, default=0.0) * out["queues"]}
    out["pcie"] = dict(first["pcie"])
    for k in ("tlps", "payload_bytes", "wire_bytes", "busy_ns"):
        out["pcie"][k] = sum(r["pcie"][k] for r in reps)
    out["pcie"]["payload_gbps"] = sum(r["pcie"]["payload_gbps"] for r in reps)
    out["pcie"]["utilisation"] = max(r["pcie"]["utilisation"] for r in reps)
    out["pcie"]["links"] = len(reps)
    out["dma"] = {"bursts": sum(r["dma"]["bursts"] for r in reps),
                  "beats": sum(r["dma"]["beats"] for r in reps)}
    out["dma"]["frame_bytes_per_beat"] = (out["captured_bytes"] / out["dma"]["beats"]
                                          if out["dma"]["beats"] else 0.0)
    out["ports"] = reps
    return out


def summary(r: dict[str, Any], in_pcap: Path | list[Path], out_dir: Path) -> str:
    """The short table the CLI prints."""
    ins = in_pcap if isinstance(in_pcap, list) else [in_pcap]
    ports = r.get("ports", [r])
    lines = [
        f"capture: {' + '.join(map(str, ins))} -> {out_dir}/ ({r['data_width']}-bit bus at "
        f"{r['clock_mhz']:g} MHz, {r['line_rate_gbps']:g} Gbit/s offered per port, "
        f"{len(ports)} port{'s' if len(ports) > 1 else ''}, {r['queues']} queues, "
        f"{r['ring_bytes'] // 1024} KiB rings)",
        f"  {'queue':>5} {'frames in':>10} {'captured':>10} {'dropped':>8} "
        f"{'(full/buf/off)':>15} {'share':>7}  file",
    ]
    for q, s in r["queue"].items():
        lines.append(f"  {q:>5} {s['frames_in']:>10} {s['frames']:>10} {s['drops']:>8} "
                     f"{'(%d/%d/%d)' % (s['drop_full'], s['drop_buf'], s['drop_off']):>15} "
                     f"{100 * s['share']:>6.1f}%  {s.get('file', '-')}")
    lines.append(f"  {'total':>5} {r['packets_in']:>10} {r['captured']:>10} {r['dropped']:>8}")
    c = r["counters"]
    lines.append(f"  hostile/unparsed: {c['rss_default']} to the default queue (runts "
                 f"{c['runts']}, giants {c['giants']}); RSS imbalance (max share x queues) "
                 f"{r['rss_spread']['imbalance']:.2f}")
    for i, pr in enumerate(ports):
        p = pr["pcie"]
        who = f"port {i}: " if len(ports) > 1 else ""
        lines.append(f"  {who}PCIe Gen3 x{p['lanes']} ({p['raw_gbps']:.1f} Gbit/s raw, "
                     f"{p['max_payload_gbps']:.1f} at {p['max_payload_bytes']}-byte TLPs): "
                     f"{p['payload_gbps']:.1f} Gbit/s of payload, link "
                     f"{100 * p['utilisation']:.1f}% busy; offered {pr['offered_gbps']:.1f} "
                     f"Gbit/s of frames")
    lines.append("  frames in = captured + counted drops: "
                 + ("yes" if r["balanced"] and r["captured"] + r["dropped"] == r["packets_in"]
                    else "NO"))
    return "\n".join(lines)


def config_from_args(args: argparse.Namespace) -> CaptureConfig:
    try:
        cfg = load(args.config) if args.config else CaptureConfig()
        over: dict[str, Any] = {}
        for k in ("width", "queues", "ring_bytes", "clock_mhz", "line_rate_gbps"):
            v = getattr(args, k, None)
            if v is not None:
                over["data_width" if k == "width" else k] = v
        if over:
            cfg = cfg.replace(**over)
            cfg.validate("command line")
        return cfg
    except CaptureConfigError as exc:
        raise CaptureError(str(exc), EXIT_INPUT) from exc


def cmd_capture(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    verbose = not args.quiet
    inputs = list(args.in_path)
    run = run_capture_ports(inputs, args.out_dir, cfg, progress=verbose, verbose=verbose,
                            check_model=args.check, seed=args.seed)
    if verbose:
        print(summary(run.report, inputs, args.out_dir))
        print(f"  report: {args.out_dir / 'report.json'}")
    for e in run.errors:
        print(f"wirespeed: check: {e}")
    if args.check and verbose and not run.errors:
        print("  check: every frame in the queue the RSS model gives it, byte for byte")
    if run.errors or not run.report["balanced"]:
        return EXIT_MISMATCH
    return EXIT_OK


def add_parser(sub: Any) -> None:
    """The ``capture`` subcommand (wirespeed.cli)."""
    cp = sub.add_parser("capture", help="capture a pcap into per-queue host rings through the "
                        "RTL (timestamps, RSS, packed DMA, PCIe model); one pcap per queue",
                        description="Run IN.pcap through capture_top (ts_clock, rss_hash, "
                                    "dma_ring_writer) and the harness's PCIe Gen3 x16 and host "
                                    "driver model; write DIR/queue-NN.pcap (nanosecond "
                                    "timestamps) and DIR/report.json. docs/host.md.")
    cp.add_argument("--in", dest="in_path", type=Path, required=True, nargs="+",
                    metavar="IN.pcap", help="input pcap or pcapng (Ethernet, no FCS); two "
                    "files: two ports, each its own capture_top and PCIe Gen3 x16 link, the "
                    "queues split between them (port 1's numbered from queues / 2)")
    cp.add_argument("--out", dest="out_dir", type=Path, required=True, metavar="DIR",
                    help="output directory (created)")
    cp.add_argument("--config", type=Path, metavar="FILE",
                    help="capture YAML config (docs/config.md, \"wirespeed capture\")")
    cp.add_argument("--width", type=int, choices=(64, 128, 256, 512),
                    help="bus width (default 512)")
    cp.add_argument("--queues", type=int, metavar="N", help="queues used, 1..16 (default 16); "
                    "with two ports, in all (each port has N / 2)")
    cp.add_argument("--ring-bytes", type=int, metavar="B",
                    help="bytes per ring, a power of two (default 1048576)")
    cp.add_argument("--clock-mhz", type=float, metavar="F", help="clock (default 322.265625)")
    cp.add_argument("--line-rate-gbps", type=float, metavar="F",
                    help="input pacing, 0 = back to back (default 100)")
    cp.add_argument("--check", action="store_true",
                    help="also check every frame against the RSS and DMA models (exit 1 if not)")
    cp.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    cp.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    cp.set_defaults(func=_cmd)


def _cmd(args: argparse.Namespace) -> int:
    import sys

    try:
        return cmd_capture(args)
    except CaptureError as exc:
        print(f"wirespeed: error: {exc}", file=sys.stderr)
        return exc.code

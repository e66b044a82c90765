"""Run the Verilator harnesses (``ws_sim``: gre_decap; ``ws_vtep``: vtep_top, both directions)
on pcaps and read their JSON reports."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# ws_sim exit codes (sim/): anything else non-zero is a crash.
EXIT_MEANINGS = {
    2: "the harness could not use its input file",
    3: "the stall watchdog fired: the pipeline stopped making progress",
    4: "the harness's balance check failed (frames in != frames out + counted drops)",
    5: "an AXI4-Lite access answered an error",
}


class SimError(RuntimeError):
    """The harness failed; the message says how and quotes its stderr."""


@dataclass(frozen=True)
class SimOptions:
    """Traffic shaping and clock options passed to the harness."""

    clock_mhz: float = 250.0
    line_rate_gbps: float = 10.0
    idle_prob: float = 0.0
    stall_prob: float = 0.0
    seed: int = 1
    max_idle_cycles: int | None = None
    progress: bool = False


def command(binary: Path, in_pcap: Path, out_pcap: Path, json_path: Path,
            regs: Path | None = None, opts: SimOptions = SimOptions(),
            latency_csv: Path | None = None, stat_csv: Path | None = None) -> list[str]:
    """The ``ws_sim`` command line (sim/README.md, "Run")."""
    cmd = [str(binary), "--in", str(in_pcap), "--out", str(out_pcap), "--json", str(json_path),
           *_common_flags(opts)]
    if regs is not None:
        cmd += ["--regs", str(regs)]
    if latency_csv is not None:
        cmd += ["--latency-csv", str(latency_csv)]
    if stat_csv is not None:
        cmd += ["--stat-csv", str(stat_csv)]
    if opts.max_idle_cycles is not None:
        cmd += ["--max-idle-cycles", str(opts.max_idle_cycles)]
    if opts.progress:
        cmd.append("--progress")
    return cmd


def run(binary: Path, in_pcap: Path, out_pcap: Path, json_path: Path,
        regs: Path | None = None, opts: SimOptions = SimOptions(),
        latency_csv: Path | None = None, stat_csv: Path | None = None) -> dict[str, Any]:
    """Run ``binary`` and return its JSON report; raise :class:`SimError` on failure."""
    cmd = command(binary, in_pcap, out_pcap, json_path, regs, opts, latency_csv, stat_csv)
    return _execute(binary, cmd, json_path, opts.progress)


def _common_flags(opts: SimOptions) -> list[str]:
    return ["--clock-mhz", repr(float(opts.clock_mhz)),
            "--line-rate-gbps", repr(float(opts.line_rate_gbps)),
            "--idle-prob", repr(float(opts.idle_prob)),
            "--stall-prob", repr(float(opts.stall_prob)),
            "--seed", str(opts.seed)]


def vtep_command(binary: Path, json_path: Path, *, net_in: Path | None = None,
                 net_out: Path | None = None, host_in: Path | None = None,
                 host_out: Path | None = None, regs: Path | None = None,
                 opts: SimOptions = SimOptions(), decap_latency_csv: Path | None = None,
                 encap_latency_csv: Path | None = None, host_vni_csv: Path | None = None,
                 decap_stat_csv: Path | None = None, encap_stat_csv: Path | None = None
                 ) -> list[str]:
    """The ``ws_vtep`` command line (sim/README.md, "ws_vtep")."""
    cmd = [str(binary), "--json", str(json_path), *_common_flags(opts)]
    for flag, path in (("--net-in", net_in), ("--net-out", net_out), ("--host-in", host_in),
                       ("--host-out", host_out), ("--regs", regs),
                       ("--decap-latency-csv", decap_latency_csv),
                       ("--encap-latency-csv", encap_latency_csv),
                       ("--host-vni-csv", host_vni_csv),
                       ("--decap-stat-csv", decap_stat_csv),
                       ("--encap-stat-csv", encap_stat_csv)):
        if path is not None:
            cmd += [flag, str(path)]
    if opts.max_idle_cycles is not None:
        cmd += ["--max-idle-cycles", str(opts.max_idle_cycles)]
    if opts.progress:
        cmd.append("--progress")
    return cmd


def run_vtep(binary: Path, json_path: Path, **kwargs: Any) -> dict[str, Any]:
    """Run ``ws_vtep`` (arguments as :func:`vtep_command`); return its JSON report or raise
    :class:`SimError`."""
    cmd = vtep_command(binary, json_path, **kwargs)
    opts = kwargs.get("opts", SimOptions())
    return _execute(binary, cmd, json_path, opts.progress)


def start_vtep(binary: Path, json_path: Path, capture: bool = False,
               **kwargs: Any) -> "subprocess.Popen[str]":
    """Start ``ws_vtep`` without waiting (progress and errors go to a pipe unless
    ``opts.progress`` and not ``capture``); finish it with :func:`finish`."""
    cmd = vtep_command(binary, json_path, **kwargs)
    opts = kwargs.get("opts", SimOptions())
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=None if opts.progress and
                            not capture else subprocess.PIPE, text=True)
    proc.args = cmd  # type: ignore[misc]
    return proc


def finish(binary: Path, proc: "subprocess.Popen[str]", json_path: Path) -> dict[str, Any]:
    """Wait for a harness started by :func:`start_vtep`; its JSON report or :class:`SimError`."""
    out, err = proc.communicate()
    return _check(binary, list(proc.args), proc.returncode, out, err, json_path)


def check_result(binary: Path, proc: "subprocess.Popen[str]", json_path: Path, stdout: str,
                 stderr: str) -> dict[str, Any]:
    """The JSON report of a finished :func:`start_vtep` process whose pipes were read
    elsewhere (wirespeed.progress.MergedProgress), or :class:`SimError`."""
    return _check(binary, list(proc.args), proc.returncode, stdout, stderr, json_path)


def _execute(binary: Path, cmd: list[str], json_path: Path, progress: bool) -> dict[str, Any]:
    # stdout is not used for data; stderr carries progress (shown live) and errors.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if progress else
                          subprocess.PIPE, text=True)
    return _check(binary, cmd, proc.returncode, proc.stdout, proc.stderr, json_path)


def _check(binary: Path, cmd: list[str], returncode: int, stdout: str | None,
           stderr: str | None, json_path: Path) -> dict[str, Any]:
    if returncode != 0:
        meaning = EXIT_MEANINGS.get(returncode, "the harness crashed")
        if returncode < 0:
            meaning = f"the harness was killed by signal {-returncode}"
        detail = "\n".join(x for x in (stdout, stderr) if x and x.strip())
        raise SimError(f"{binary.name} exit {returncode}: {meaning}\n"
                       f"command: {' '.join(cmd)}" + (f"\n{detail.strip()}" if detail else ""))
    try:
        return json.loads(json_path.read_text())
    except (OSError, ValueError) as exc:
        raise SimError(f"{json_path}: the harness's report is unreadable: {exc}") from exc

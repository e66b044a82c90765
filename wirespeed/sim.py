"""Run the Verilator harness (``ws_sim``) on a pcap and read its JSON report."""

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


def run(binary: Path, in_pcap: Path, out_pcap: Path, json_path: Path,
        regs: Path | None = None, opts: SimOptions = SimOptions(),
        latency_csv: Path | None = None) -> dict[str, Any]:
    """Run ``binary`` and return its JSON report; raise :class:`SimError` on failure."""
    cmd = [str(binary), "--in", str(in_pcap), "--out", str(out_pcap), "--json", str(json_path),
           "--clock-mhz", repr(float(opts.clock_mhz)),
           "--line-rate-gbps", repr(float(opts.line_rate_gbps)),
           "--idle-prob", repr(float(opts.idle_prob)),
           "--stall-prob", repr(float(opts.stall_prob)),
           "--seed", str(opts.seed)]
    if regs is not None:
        cmd += ["--regs", str(regs)]
    if latency_csv is not None:
        cmd += ["--latency-csv", str(latency_csv)]
    if opts.max_idle_cycles is not None:
        cmd += ["--max-idle-cycles", str(opts.max_idle_cycles)]
    if opts.progress:
        cmd.append("--progress")
    # stdout is not used for data; stderr carries progress (shown live) and errors.
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None if opts.progress else
                          subprocess.PIPE, text=True)
    if proc.returncode != 0:
        meaning = EXIT_MEANINGS.get(proc.returncode, "the harness crashed")
        if proc.returncode < 0:
            meaning = f"the harness was killed by signal {-proc.returncode}"
        detail = "\n".join(x for x in (proc.stdout, proc.stderr or "") if x and x.strip())
        raise SimError(f"{binary.name} exit {proc.returncode}: {meaning}\n"
                       f"command: {' '.join(cmd)}" + (f"\n{detail.strip()}" if detail else ""))
    try:
        return json.loads(json_path.read_text())
    except (OSError, ValueError) as exc:
        raise SimError(f"{json_path}: the harness's report is unreadable: {exc}") from exc

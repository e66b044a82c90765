"""The Python API: run a block of the RTL on a list of frames (docs/api.md).

The golden models work on bytes directly (``wirespeed.model.gre.gre_decap``,
``wirespeed.model.vxlan.decap``/``encap``); the functions here run the cycle-accurate Verilator
model of the same block on a list of frames and return what came out, frame by frame::

    from wirespeed.api import run_gre
    result = run_gre(frames)            # frames: list[bytes], Ethernet without FCS
    result.outputs                      # list[bytes], in output order
    result.verdicts                     # one wirespeed.verdicts.Verdict per input frame
    result.report                       # the report of `wirespeed run` (docs/config.md)

The harness is built on first use (per width), as for the command line.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from wirespeed import pcap, report, vtep
from wirespeed.build import ensure_harness
from wirespeed.config import Config
from wirespeed.sim import SimOptions
from wirespeed.sim import run as run_sim
from wirespeed.verdicts import Verdict, build, read_latency_csv, read_stat_csv


class RunError(RuntimeError):
    """The harness failed or its results do not balance; the message says how."""


@dataclass
class RunResult:
    """What a block made of a list of frames."""

    outputs: list[bytes]
    verdicts: list[Verdict]
    report: dict[str, Any] = field(default_factory=dict)


def _opts(cfg: Config, back_to_back: bool) -> SimOptions:
    return SimOptions(clock_mhz=cfg.clock_mhz,
                      line_rate_gbps=0.0 if back_to_back else cfg.line_rate_gbps)


def run_gre(frames: Sequence[bytes], config: Config | None = None, width: int | None = None,
            back_to_back: bool = False) -> RunResult:
    """Run ``gre_decap`` (its allow list and policy from ``config``) on ``frames``.

    ``width`` overrides the config's data width; ``back_to_back`` offers a beat every cycle
    instead of pacing at the config's line rate."""
    cfg = config or Config()
    if width is not None:
        cfg = cfg.replace(data_width=width)
    binary = ensure_harness(cfg.data_width, verbose=False)
    with tempfile.TemporaryDirectory(prefix="wirespeed-api-") as tmp:
        work = Path(tmp)
        inp, out, js = work / "in.pcap", work / "out.pcap", work / "h.json"
        pcap.write(inp, [bytes(f) for f in frames])
        regs = work / "regs.txt"
        regs.write_text(cfg.register_file_text())
        lat, stat = work / "lat.csv", work / "stat.csv"
        try:
            h = run_sim(binary, inp, out, js, regs, _opts(cfg, back_to_back), lat, stat)
        except Exception as exc:  # SimError and friends: one error type for API users
            raise RunError(str(exc)) from exc
        outputs = pcap.read_ethernet(out) if out.stat().st_size > 24 else []
        rep = report.build(h, cfg, [len(f) for f in frames], [len(f) for f in outputs])
        errs = report.balance_errors(rep)
        if errs:
            raise RunError("balance check failed: " + "; ".join(errs))

        def written(o: str) -> bool:
            return (cfg.policy_malformed == "forward" and o in report.MALFORMED) or \
                not o.startswith("DROP_")

        v = build(read_stat_csv(stat), read_latency_csv(lat), report.OUTCOMES, written,
                  len(outputs))
    return RunResult(outputs, v, rep)


def _run_vtep(direction: str, frames: Sequence[bytes], config: Config | None,
              width: int | None, back_to_back: bool) -> RunResult:
    cfg = config or Config()
    if width is not None:
        cfg = cfg.replace(data_width=width)
    binary = ensure_harness(cfg.data_width, verbose=False, block="vtep",
                            tunnel_slots=cfg.vtep.tunnel_slots)
    with tempfile.TemporaryDirectory(prefix="wirespeed-api-") as tmp:
        work = Path(tmp)
        port = vtep.Port([bytes(f) for f in frames], work / "in.pcap", work / "out.pcap")
        pcap.write(port.in_path, port.frames)
        try:
            res = vtep.simulate(binary, cfg, work, _opts(cfg, back_to_back), quiet=True,
                                stat=True, **{direction: port})
            rows = vtep.verdict_rows(res)
        except vtep.VtepError as exc:
            raise RunError(str(exc)) from exc
        rep = vtep.build_report(res, cfg, {direction: port})
        if rep["balance_errors"]:
            raise RunError("balance check failed: " + "; ".join(rep["balance_errors"]))
    return RunResult(res.frames[direction], [v for _, v in rows], rep)


def run_vxlan_decap(frames: Sequence[bytes], config: Config | None = None,
                    width: int | None = None, back_to_back: bool = False) -> RunResult:
    """Run the VTEP's decapsulator (``vtep_top``, network port -> host port; its ``vtep:``
    settings from ``config``) on ``frames``."""
    return _run_vtep("decap", frames, config, width, back_to_back)


def run_vxlan_encap(frames: Sequence[bytes], config: Config | None = None,
                    width: int | None = None, back_to_back: bool = False) -> RunResult:
    """Run the VTEP's encapsulator (host port -> network port; its tunnel table from
    ``config``'s ``vtep:`` section) on ``frames``."""
    return _run_vtep("encap", frames, config, width, back_to_back)

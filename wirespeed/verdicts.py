"""Per-frame verdicts: what happened to each input frame of a run.

One row per input frame, in input order: its index in the input pcap (0-based), its outcome
(the block's status stream, ``--stat-csv`` of the harness), the index of the frame it became in
the output pcap (``none`` when it was dropped, or aborted after its output had begun) and its
latency in cycles (first input beat to first output beat; ``none`` when nothing was output).
Built from the harness's ``--stat-csv`` (every input frame, in input order) and
``--latency-csv`` (every frame whose output began, in output order).

``wirespeed run --verdicts FILE.csv`` writes them (docs/config.md); a VTEP run writes both
directions into one file, with a ``direction`` column first.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

HEADER = ("index", "outcome", "output_index", "latency_cycles")


class VerdictError(RuntimeError):
    """The harness's CSVs do not fit together (a harness bug, not bad input)."""


@dataclass(frozen=True)
class Verdict:
    """What became of one input frame."""

    index: int
    outcome: str
    output_index: int | None
    latency_cycles: int | None


def read_stat_csv(path: Path) -> list[tuple[int, int]]:
    """``--stat-csv`` rows: (input index, outcome code), in input order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [(int(r[0]), int(r[1])) for r in rows[1:] if r]


def read_latency_csv(path: Path) -> list[tuple[int, int]]:
    """``--latency-csv`` rows: (input index, latency in cycles), in output order."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return [(int(r[0]), int(r[3])) for r in rows[1:] if r]


def build(stat: Sequence[tuple[int, int]], latency: Sequence[tuple[int, int]],
          names: Sequence[str], written: Callable[[str], bool], packets_out: int
          ) -> list[Verdict]:
    """The verdict of every input frame.

    ``names``: outcome names by code; ``written(outcome)``: whether a frame of that outcome
    whose output began is in the output pcap (False for a late drop: the frame was aborted);
    ``packets_out``: frames in the output pcap, checked against the count this gives."""
    outcome = {}
    for idx, code in stat:
        if not 0 <= code < len(names):
            raise VerdictError(f"input frame {idx}: outcome code {code} is not one of the "
                               f"{len(names)} known")
        outcome[idx] = names[code]
    out_index: dict[int, int] = {}
    lat: dict[int, int] = {}
    n = 0
    for idx, cycles in latency:
        lat[idx] = cycles
        if written(outcome.get(idx, "")):
            out_index[idx] = n
            n += 1
    if n != packets_out:
        raise VerdictError(f"the verdicts place {n} frames in the output, which has "
                           f"{packets_out}")
    return [Verdict(i, outcome[i], out_index.get(i), lat.get(i)) for i in sorted(outcome)]


def _cell(v: int | None) -> str:
    return "none" if v is None else str(v)


def write(path: Path, rows: Iterable[tuple[str | None, Verdict]], label: str = "direction"
          ) -> int:
    """Write (direction, verdict) rows; the direction column (named ``label``: a pipeline's
    is "stage") is there when any row has one. Returns the number of rows."""
    rows = list(rows)
    with_dir = any(d is not None for d, _ in rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(((label,) if with_dir else ()) + HEADER)
        for d, v in rows:
            w.writerow(((d,) if with_dir else ()) + (v.index, v.outcome, _cell(v.output_index),
                                                     _cell(v.latency_cycles)))
    return len(rows)


def read(path: Path) -> list[dict[str, str]]:
    """A verdicts file as dictionaries (for tests and scripts)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))

"""Compare a run's output with the golden model (``wirespeed.model.gre``)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from wirespeed.model.gre import GreConfig


@dataclass
class Expected:
    """What the model says a list of input frames becomes."""

    outputs: list[bytes] = field(default_factory=list)   # frames written, in order
    outcomes: Counter[str] = field(default_factory=Counter)
    per_frame: list[str] = field(default_factory=list)    # outcome name of each input frame


def expected(frames: Sequence[bytes], cfg: "GreConfig") -> Expected:
    """Run the golden model over ``frames`` (no RX errors: a pcap cannot carry them)."""
    from wirespeed.model.gre import gre_decap

    exp = Expected()
    for f in frames:
        r = gre_decap(f, cfg)
        name = r.outcome.name
        exp.outcomes[name] += 1
        exp.per_frame.append(name)
        if r.output is not None:  # transmitted whole (not dropped, not aborted)
            exp.outputs.append(bytes(r.output))
    return exp


def differences(actual: Sequence[bytes], want: Sequence[bytes], limit: int = 5) -> list[str]:
    """Human-readable differences between two frame lists (first ``limit``)."""
    msgs: list[str] = []
    if len(actual) != len(want):
        msgs.append(f"{len(actual)} output frames, the model expects {len(want)}")
    for i, (a, b) in enumerate(zip(actual, want)):
        if a != b:
            at = next((k for k in range(min(len(a), len(b))) if a[k] != b[k]), min(len(a), len(b)))
            msgs.append(f"output frame {i + 1}: {len(a)} bytes vs the model's {len(b)}, first "
                        f"difference at byte {at}")
            if len(msgs) >= limit:
                break
    return msgs

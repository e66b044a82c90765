"""Compare a run's output with the golden models (``wirespeed.model.gre``, and through
:func:`wirespeed.vtep.expected_direction` ``wirespeed.model.vxlan``)."""

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
    sources: list[int] = field(default_factory=list)      # input index of each output frame
    emitted: list[int] = field(default_factory=list)      # input index of every frame put on
    #                                                       the output bus, aborted ones included
    aborted: int = 0                                      # emitted frames ending with tuser=1
    vnis: list[int] = field(default_factory=list)         # VXLAN decap: VNI of each output
    #                                                       frame that was decapsulated

    def add(self, index: int, result: object) -> None:
        """Account for the model's ``result`` (any model Result) of input frame ``index``."""
        name = result.outcome.name  # type: ignore[attr-defined]
        self.outcomes[name] += 1
        self.per_frame.append(name)
        if getattr(result, "emit", False):
            self.emitted.append(index)
            if getattr(result, "aborted", False):
                self.aborted += 1
        output = getattr(result, "output", None)
        if output is not None:  # transmitted whole (not dropped, not aborted)
            self.outputs.append(bytes(output))
            self.sources.append(index)


def expected(frames: Sequence[bytes], cfg: "GreConfig", keep_w: int | None = None) -> Expected:
    """Run the GRE golden model over ``frames`` (no RX errors: a pcap cannot carry them).

    ``keep_w`` (bytes per bus beat) makes ``emitted``/``aborted`` exact for that bus width;
    the outputs and outcomes do not depend on it."""
    from wirespeed.model.gre import gre_decap

    exp = Expected()
    for i, f in enumerate(frames):
        exp.add(i, gre_decap(f, cfg, keep_w=keep_w))
    return exp


def first_difference(actual: Sequence[bytes], want: Sequence[bytes]) -> int | None:
    """Index of the first output frame that differs between two ordered frame lists (where
    one list ends early counts), or None when they are equal."""
    for i, (a, b) in enumerate(zip(actual, want)):
        if a != b:
            return i
    if len(actual) != len(want):
        return min(len(actual), len(want))
    return None


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

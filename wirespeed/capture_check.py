"""Check a capture run (``ws_capture`` / ``wirespeed capture``) against the golden models:
which queue each input frame goes to (:mod:`wirespeed.model.rss`, with capture_top's rule that
a frame longer than ``max_len`` is not parsed), and that each queue's pcap holds exactly the
frames sent to that queue, byte for byte and in order, less the frames the report counts as
dropped for that queue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirespeed import pcap
from wirespeed.model import rss

DEFAULT_MAX_LEN = 9600
RSS_TABLE_ENTRIES = 128


@dataclass
class CaptureModel:
    """The RSS set-up of a capture run: what ws_capture programs (the table spread over the
    used queues, round robin), plus the config file's changes."""

    queues: int
    key: bytes = rss.MS_KEY
    enables: int = rss.ALL_TYPES
    symmetric: bool = False
    default_queue: int = 0
    max_len: int = DEFAULT_MAX_LEN
    table: list[int] = field(default_factory=list)
    inner: bool = False      # capture_top's PARSE_CTRL.INNER: GRE/VXLAN inner headers hashed

    def config(self) -> rss.RssConfig:
        table = self.table or [i % self.queues for i in range(RSS_TABLE_ENTRIES)]
        return rss.RssConfig(key=self.key, enables=self.enables, symmetric=self.symmetric,
                             table=table, default_queue=self.default_queue)

    def result(self, frame: bytes) -> rss.RssResult:
        """Hash, type and queue of one frame as capture_top decides them."""
        cfg = self.config()
        if len(frame) > self.max_len:
            return rss.rss(rss.FlowTuple(), cfg)
        return rss.rss_frame(frame, cfg, self.inner)

    def queue_of(self, frame: bytes) -> int:
        return self.result(frame).queue


def expected_by_queue(frames: list[bytes], model: CaptureModel) -> dict[int, list[bytes]]:
    """The input frames each queue is sent, in input order."""
    out: dict[int, list[bytes]] = {}
    for f in frames:
        out.setdefault(model.queue_of(f), []).append(f)
    return out


def is_subsequence(sub: list[bytes], seq: list[bytes]) -> bool:
    it = iter(seq)
    return all(any(x == y for y in it) for x in sub)


def check(in_pcap: Path, out_dir: Path, report: dict[str, Any], model: CaptureModel
          ) -> list[str]:
    """Every way the run differs from the model (empty when it agrees)."""
    errors: list[str] = []
    frames = pcap.read_ethernet(in_pcap)
    want = expected_by_queue(frames, model)
    queues = report["queue"]
    if report["packets_in"] != len(frames):
        errors.append(f"packets_in {report['packets_in']} != {len(frames)} input frames")
    total = 0
    for qs, q in queues.items():
        total += q["frames_in"]
        sent = want.get(int(qs), [])
        if q["frames_in"] != len(sent):
            errors.append(f"queue {qs}: {q['frames_in']} frames in, the RSS model sends "
                          f"{len(sent)}")
        if q["frames"] + q["drops"] != q["frames_in"]:
            errors.append(f"queue {qs}: frames {q['frames']} + drops {q['drops']} != "
                          f"frames in {q['frames_in']}")
        if "file" not in q:
            continue
        got = pcap.read_ethernet(out_dir / q["file"])
        if len(got) != q["frames"]:
            errors.append(f"queue {qs}: {len(got)} frames in {q['file']}, the report says "
                          f"{q['frames']}")
        if q["drops"] == 0 and got != sent:
            errors.append(f"queue {qs}: the captured frames differ from the frames sent")
        elif not is_subsequence(got, sent):
            errors.append(f"queue {qs}: the captured frames are not the frames sent, in order, "
                          "less some")
    for q in want:
        if str(q) not in queues:
            errors.append(f"queue {q}: the model sends {len(want[q])} frames, the report has no "
                          "such queue")
    if total != len(frames):
        errors.append(f"frames in over the queues {total} != {len(frames)} input frames")
    return errors


def load_report(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())

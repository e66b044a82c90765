"""Progress lines on stderr for the long steps (frame generation, builds, simulation)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A percentage counter that redraws one line on a terminal and stays quiet elsewhere.

    On a non-terminal stream only the final line is written, so logs stay short.
    """

    def __init__(self, label: str, total: int, stream: TextIO | None = None,
                 enabled: bool = True) -> None:
        self.label = label
        self.total = max(total, 1)
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and self.stream.isatty()
        self.start = time.monotonic()
        self._last_pct = -1

    def update(self, done: int) -> None:
        if not self.tty:
            return
        pct = done * 100 // self.total
        if pct != self._last_pct:
            self._last_pct = pct
            self.stream.write(f"\r{self.label}: {pct:3d}% ({done}/{self.total})")
            self.stream.flush()

    def done(self, note: str = "") -> None:
        if not self.enabled:
            return
        secs = time.monotonic() - self.start
        end = f" {note}" if note else ""
        prefix = "\r" if self.tty else ""
        self.stream.write(f"{prefix}{self.label}: done, {self.total} in {secs:.1f} s{end}\n")
        self.stream.flush()


def note(msg: str, enabled: bool = True) -> None:
    """One status line on stderr."""
    if enabled:
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()

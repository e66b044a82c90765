"""Progress lines on stderr for the long steps (frame generation, builds, simulation)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from typing import Any, TextIO


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


class MergedProgress:
    """One progress line for several harness processes run side by side (the vxlan-seed
    scenario's two ws_vtep): each process's stderr is read here; its progress lines
    (``ws_vtep: cycle ...  decap in a/b ...``) are merged into one line per second, the other
    lines are kept for the error message. ``procs``: name -> Popen with stderr and stdout
    piped (text); the name is the direction its progress lines report."""

    _RE = re.compile(r"\b(decap |encap )?in (\d+)/(\d+)")

    def __init__(self, label: str, procs: dict[str, "subprocess.Popen[str]"],
                 stream: TextIO | None = None, enabled: bool = True) -> None:
        self.label = label
        self.procs = procs
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.done_total = {n: (0, 0) for n in procs}
        self.other = {n: [] for n in procs}
        self.stdout = {n: [] for n in procs}
        self.start = time.monotonic()
        self._threads = []
        for n, p in procs.items():
            for pipe, sink in ((p.stderr, None), (p.stdout, self.stdout[n])):
                t = threading.Thread(target=self._read, args=(n, pipe, sink), daemon=True)
                t.start()
                self._threads.append(t)

    def _read(self, name: str, pipe: Any, sink: list[str] | None) -> None:
        for line in pipe:
            if sink is not None:
                sink.append(line)
                continue
            if line.startswith("ws_") and ": cycle " in line:
                for m in self._RE.finditer(line):
                    if (m.group(1) or "").strip() in ("", name):
                        self.done_total[name] = (int(m.group(2)), int(m.group(3)))
            else:
                self.other[name].append(line)

    def line(self) -> str:
        parts = [f"{n} {d}/{t} ({100 * d / t if t else 100:.0f}%)"
                 for n, (d, t) in self.done_total.items()]
        el = time.monotonic() - self.start
        done = sum(d for d, _ in self.done_total.values())
        return (f"{self.label}: " + ", ".join(parts)
                + f"; {done / el if el else 0:.0f} frames per wall second")

    def _print(self) -> None:
        self.stream.write(self.line() + "\n")
        self.stream.flush()

    def wait(self, every: float = 1.0) -> dict[str, tuple[int, str, str]]:
        """Wait for every process, printing the merged line every ``every`` seconds and once
        at the end; name -> (exit code, stdout, non-progress stderr)."""
        last = time.monotonic()
        while any(p.poll() is None for p in self.procs.values()):
            time.sleep(0.1)
            if self.enabled and time.monotonic() - last >= every:
                last = time.monotonic()
                self._print()
        for t in self._threads:
            t.join()
        if self.enabled:
            self._print()
        return {n: (p.returncode, "".join(self.stdout[n]), "".join(self.other[n]))
                for n, p in self.procs.items()}

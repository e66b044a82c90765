"""docs/api.md's example, run as written: the Python API (golden models on bytes, a block of
the RTL on a list of frames) does what the page says, printed lines included."""

from __future__ import annotations

import contextlib
import io
import re

from wirespeed.paths import ROOT


def _example() -> str:
    text = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/api.md has one Python example"
    return blocks[0]


def test_api_example_runs_and_prints_what_it_says() -> None:
    code = _example()
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "docs/api.md", "exec"), {"__name__": "docs_api_example"})
    printed = buf.getvalue().splitlines()
    # Every "# ..." comment line right after a print(...) line is that print's output, and
    # every print's "# expected" comment on the same line too.
    want = []
    lines = code.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("print("):
            m = re.search(r"\)\s+# (.*)$", line)
            if m:
                want.append(m.group(1).strip())
            elif i + 1 < len(lines) and lines[i + 1].startswith("# "):
                want.append(lines[i + 1][2:].strip())
    assert printed == want

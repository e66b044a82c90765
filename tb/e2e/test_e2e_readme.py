"""README's sample output of `make run` holds only figures a run prints every time: its
Table 2 lines are checked against a real (smaller) default-scenario run, and it quotes no
figure that depends on the RTL of the day (latency cycles, the synthesized clock)."""

from __future__ import annotations

import re
from pathlib import Path

from e2e_util import run_ok
from wirespeed.paths import ROOT


def _sample() -> list[str]:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"```\n\$ make run\n(.*?)```", text, re.S)
    assert m, "README.md has the `$ make run` sample"
    return m.group(1).splitlines()


def test_readme_sample_is_what_a_run_prints(tmp_path: Path) -> None:
    sample = _sample()
    proc = run_ok(["run", "--frames", "2000", "--workdir", tmp_path])
    out = proc.stdout.splitlines()
    table2 = [ln for ln in sample if ln.startswith(("  92-byte", "  rx / tx", "  rx pps",
                                                     "  loss packets"))]
    assert len(table2) == 4
    for line in table2:
        assert line in out, f"README line not printed by the run: {line!r}"
    assert any(ln.startswith("  FPGA   ") and ln in out for ln in sample)
    # nothing that goes stale: no measured MHz (only the configured 250 MHz), no latency
    assert not re.search(r"≈|\d+\.\d+ MHz|\d+ cycles? =", "\n".join(sample))

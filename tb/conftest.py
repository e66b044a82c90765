"""pytest configuration shared by every test folder under tb/."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tb"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


def full_sweep() -> bool:
    """True when WIRESPEED_FULL=1: run every parameter set, not only the quick subset.

    `make test` keeps one Verilator build per distinct case worth a build; the extra
    configurations of the control blocks (odd address widths, tiny tables) run with
    `make test-full`.
    """
    import os

    return os.environ.get("WIRESPEED_FULL", "") == "1"

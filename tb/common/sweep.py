"""Which parameter sets a test run covers."""

import os


def full_sweep() -> bool:
    """True when WIRESPEED_FULL=1: run every parameter set, not only the quick subset.

    `make test` keeps one Verilator build per distinct case worth a build; the extra
    configurations of the control blocks (odd address widths, tiny tables) run with
    `make test-full`.
    """
    return os.environ.get("WIRESPEED_FULL", "") == "1"

"""Fixtures of the Linux kernel VXLAN interop tests: a two-namespace lab per variant, its
captures, and the engines (golden model, RTL) that decapsulate / encapsulate frames."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for p in (HERE, HERE.parent / "vtep"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import vxlan_lab  # noqa: E402


@pytest.fixture(scope="session")
def lab_available():
    try:
        vxlan_lab.check_available()
    except vxlan_lab.LabUnavailable as e:
        pytest.skip(f"Linux VXLAN interop lab unavailable: {e}")
    return True


@pytest.fixture(scope="session")
def linux_workdir():
    from wirespeed.paths import BUILD

    d = BUILD / "linux"
    d.mkdir(parents=True, exist_ok=True)
    return d

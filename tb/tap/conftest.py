"""Fixtures of the live TAP tests (wirespeed.taplab): skipped with the reason where network
namespaces, TUN/TAP, kernel VXLAN or iperf2 are missing; the harnesses built once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from wirespeed import paths, taplab
from wirespeed.tap import ensure_tap_harness

WIDTH = 256


@pytest.fixture(scope="session")
def tap_available() -> bool:
    try:
        taplab.check_available(need_iperf=False)
    except taplab.LabUnavailable as e:
        pytest.skip(f"live TAP lab unavailable: {e}")
    return True


@pytest.fixture(scope="session")
def iperf_available(tap_available: bool) -> bool:
    if not shutil.which("iperf"):
        pytest.skip("iperf2 is not installed (apt-get install -y iperf)")
    return True


@pytest.fixture(scope="session")
def vtep_binary(tap_available: bool) -> Path:
    return ensure_tap_harness("vtep", WIDTH, verbose=False)


@pytest.fixture(scope="session")
def gre_binary(tap_available: bool) -> Path:
    return ensure_tap_harness("gre", WIDTH, verbose=False)


@pytest.fixture(scope="session")
def tap_workdir() -> Path:
    d = paths.BUILD / "tap" / "tests"
    d.mkdir(parents=True, exist_ok=True)
    return d

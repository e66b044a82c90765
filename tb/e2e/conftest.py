"""Fixtures of the end-to-end tests (helpers live in e2e_util.py)."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="session")
def tshark() -> str:
    """The tshark binary; a missing one fails the test (it is part of the set-up)."""
    exe = shutil.which("tshark")
    if exe is None:
        pytest.fail("tshark is not installed: run `make venv` (scripts/setup.sh installs it "
                    "with apt-get), then re-run the tests")
    return exe

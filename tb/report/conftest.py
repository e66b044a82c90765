"""Tests of scripts/report and scripts/synth (no synthesis, no simulation)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for p in (ROOT / "scripts" / "report", ROOT / "scripts" / "synth"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

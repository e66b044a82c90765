"""pytest configuration shared by every test folder under tb/."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "tb"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))


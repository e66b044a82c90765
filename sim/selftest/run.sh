#!/usr/bin/env bash
# Self-test of the Verilator harness against the stand-in DUT in this folder.
#   sim/selftest/run.sh            all widths (64 128 256 512)
#   WIDTHS="64" sim/selftest/run.sh
#   REAL=1 sim/selftest/run.sh     also build the real rtl/ at 256 bits and run gre-sample.pcap
# Builds into build/sim/selftest/, works in build/sim/selftest/work/. Ends with "N passed, N failed"
# and exits non-zero when anything failed.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
HERE=sim/selftest
WIDTHS=${WIDTHS:-"64 128 256 512"}
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
WORK=build/sim/selftest/work
rm -rf "$WORK"
mkdir -p "$WORK"
pass=0
fail=0

ok() { echo "PASS  $*"; pass=$((pass + 1)); }
bad() { echo "FAIL  $*"; fail=$((fail + 1)); }

build() {  # build W MDIR [extra verilator flags]
  local w=$1 mdir=$2
  shift 2
  if WS_SIM_SOURCES="$HERE/gre_decap_stub.sv" WS_SIM_MDIR="$mdir" WS_SIM_VFLAGS="$*" \
      bash sim/build.sh "$w" >"$mdir.log" 2>&1; then
    ok "build w$w ${*:-}"
    return 0
  fi
  bad "build w$w ${*:-} (see $mdir.log)"
  tail -20 "$mdir.log"
  return 1
}

# run NAME EXPECTED_EXIT -- ws_sim args... ; the run's stderr is kept in $WORK/NAME.err
run() {
  local name=$1 want=$2
  shift 3
  "$@" 2>"$WORK/$name.err" >"$WORK/$name.out"
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    bad "$name: exit $rc, expected $want"
    sed 's/^/      /' "$WORK/$name.err" | head -20
    return 1
  fi
  return 0
}

# check NAME check.py-args... : run check.py, report
check() {
  local name=$1
  shift
  if $PY $HERE/check.py "$@" 2>"$WORK/$name.check"; then
    ok "$name"
  else
    bad "$name"
    sed 's/^/      /' "$WORK/$name.check" | head -20
  fi
}

# expect_err NAME EXIT PATTERN -- cmd... : command must exit EXIT and say PATTERN on stderr
expect_err() {
  local name=$1 want=$2 pat=$3
  shift 4
  run "$name" "$want" -- "$@" || return
  if grep -q -- "$pat" "$WORK/$name.err"; then
    ok "$name (exit $want: $(head -1 "$WORK/$name.err"))"
  else
    bad "$name: stderr lacks '$pat':"
    sed 's/^/      /' "$WORK/$name.err" | head -5
  fi
}

W=$WORK
$PY $HERE/mkpcap.py mixed $W/mixed.pcap --count 600 --seed 11
$PY $HERE/mkpcap.py bigendian $W/be.pcap --count 300 --seed 12
$PY $HERE/mkpcap.py fixed $W/fixed88.pcap --count 400 --len 88 --seed 13
$PY $HERE/mkpcap.py nsec $W/nsec.pcap --count 50 --len 64 --seed 14
$PY $HERE/mkpcap.py badmagic $W/badmagic.pcap
$PY $HERE/mkpcap.py truncated $W/truncated.pcap
$PY $HERE/mkpcap.py linktype $W/linktype.pcap
$PY $HERE/mkpcap.py empty-rec $W/emptyrec.pcap
$PY $HERE/mkpcap.py fixed $W/none.pcap --count 0
printf '# drop every PASS frame\n0x0008 0x00000002   # CONTROL.POLICY_DROP_PASS\n\n' >$W/policy.txt
printf '0x1000 0xc0a80001\n0x1004 0x0a000001\n0x1008 1\n' >$W/allow.txt
printf '0x0000 0x1\n' >$W/ro.txt
printf '0x0008 zzz\n' >$W/badregs.txt

first=""
for w in $WIDTHS; do
  B=build/sim/selftest/w$w
  build "$w" "$B" || continue
  S=$B/ws_sim
  [ -z "$first" ] && first=$S

  run w$w-mixed 0 -- $S --in $W/mixed.pcap --out $W/w$w-mixed.pcap --json $W/w$w-mixed.json \
    --latency-csv $W/w$w-mixed.csv --line-rate-gbps 0 &&
    check w$w-mixed $W/mixed.pcap $W/w$w-mixed.pcap $W/w$w-mixed.json --csv $W/w$w-mixed.csv \
      --latency 1 1 --no-backpressure --width "$w"

  run w$w-random 0 -- $S --in $W/mixed.pcap --out $W/w$w-random.pcap --json $W/w$w-random.json \
    --latency-csv $W/w$w-random.csv --line-rate-gbps 0 --idle-prob 0.3 --stall-prob 0.4 --seed 3 &&
    check w$w-random $W/mixed.pcap $W/w$w-random.pcap $W/w$w-random.json --csv $W/w$w-random.csv \
      --latency 1 100000 --width "$w"

  run w$w-paced 0 -- $S --in $W/fixed88.pcap --out $W/w$w-paced.pcap --json $W/w$w-paced.json \
    --latency-csv $W/w$w-paced.csv --line-rate-gbps 10 --clock-mhz 250 &&
    check w$w-paced $W/fixed88.pcap $W/w$w-paced.pcap $W/w$w-paced.json --csv $W/w$w-paced.csv \
      --latency 1 1 --no-backpressure --pacing 10 250

  run w$w-paced-mixed 0 -- $S --in $W/mixed.pcap --out $W/w$w-pm.pcap --json $W/w$w-pm.json \
    --latency-csv $W/w$w-pm.csv --line-rate-gbps 40 --clock-mhz 322.265625 &&
    check w$w-paced-mixed $W/mixed.pcap $W/w$w-pm.pcap $W/w$w-pm.json --csv $W/w$w-pm.csv \
      --latency 1 1 --pacing 40 322.265625

  # The idle fast-forward must not change anything but the wall time.
  run w$w-noskip 0 -- $S --in $W/mixed.pcap --out $W/w$w-ns.pcap --json $W/w$w-ns.json \
    --latency-csv $W/w$w-ns.csv --line-rate-gbps 3 --idle-prob 0.2 --no-skip-idle &&
  run w$w-skip 0 -- $S --in $W/mixed.pcap --out $W/w$w-sk.pcap --json $W/w$w-sk.json \
    --latency-csv $W/w$w-sk.csv --line-rate-gbps 3 --idle-prob 0.2 &&
  if cmp -s $W/w$w-ns.pcap $W/w$w-sk.pcap && cmp -s $W/w$w-ns.csv $W/w$w-sk.csv &&
      diff <(grep -v 'wall_seconds\|sim_packets_per_second\|idle_skipped_cycles' $W/w$w-ns.json) \
           <(grep -v 'wall_seconds\|sim_packets_per_second\|idle_skipped_cycles' $W/w$w-sk.json) >/dev/null; then
    ok "w$w-skip-idle (same pcap, CSV and report as --no-skip-idle)"
  else
    bad "w$w-skip-idle: results differ from --no-skip-idle"
  fi

  # One eval() per cycle and the direct root eval (sim/clock.hpp, where ws_model.h allows them)
  # must give what two model eval() calls per cycle give.
  run w$w-plain 0 -- env WS_SIM_PLAIN_EVAL=1 $S --in $W/mixed.pcap --out $W/w$w-pl.pcap \
    --json $W/w$w-pl.json --latency-csv $W/w$w-pl.csv --stat-csv $W/w$w-pls.csv \
    --line-rate-gbps 3 --idle-prob 0.2 --stall-prob 0.3 --seed 5 &&
  run w$w-fast 0 -- $S --in $W/mixed.pcap --out $W/w$w-fa.pcap --json $W/w$w-fa.json \
    --latency-csv $W/w$w-fa.csv --stat-csv $W/w$w-fas.csv --line-rate-gbps 3 --idle-prob 0.2 \
    --stall-prob 0.3 --seed 5 &&
  if cmp -s $W/w$w-pl.pcap $W/w$w-fa.pcap && cmp -s $W/w$w-pl.csv $W/w$w-fa.csv &&
      cmp -s $W/w$w-pls.csv $W/w$w-fas.csv &&
      diff <(grep -v 'wall_seconds\|sim_packets_per_second' $W/w$w-pl.json) \
           <(grep -v 'wall_seconds\|sim_packets_per_second' $W/w$w-fa.json) >/dev/null; then
    ok "w$w-eval (same pcap, CSVs and report as WS_SIM_PLAIN_EVAL=1; $(grep -c define $B/ws_model.h) of 2 shortcuts on)"
  else
    bad "w$w-eval: results differ from WS_SIM_PLAIN_EVAL=1"
  fi

  run w$w-bigendian 0 -- $S --in $W/be.pcap --out $W/w$w-be.pcap --json $W/w$w-be.json \
    --line-rate-gbps 0 --stall-prob 0.2 &&
    check w$w-bigendian $W/be.pcap $W/w$w-be.pcap $W/w$w-be.json

  run w$w-policy 0 -- $S --in $W/mixed.pcap --out $W/w$w-pol.pcap --json $W/w$w-pol.json \
    --regs $W/policy.txt --line-rate-gbps 0 &&
    check w$w-policy $W/mixed.pcap $W/w$w-pol.pcap $W/w$w-pol.json --policy-drop
done

if [ -n "$first" ]; then
  S=$first
  run nsec 0 -- $S --in $W/nsec.pcap --out $W/nsec-o.pcap --json $W/nsec.json --regs $W/allow.txt &&
    check nsec $W/nsec.pcap $W/nsec-o.pcap $W/nsec.json
  run empty-capture 0 -- $S --in $W/none.pcap --out $W/none-o.pcap --json $W/none.json &&
    check empty-capture $W/none.pcap $W/none-o.pcap $W/none.json
  if [ -f /work/shared/captures/gre-sample.pcap ]; then
    run gre-sample 0 -- $S --in /work/shared/captures/gre-sample.pcap --out $W/gs.pcap --json $W/gs.json \
      --progress &&
      check gre-sample /work/shared/captures/gre-sample.pcap $W/gs.pcap $W/gs.json
  fi
  O="--out $W/x.pcap --json $W/x.json"
  expect_err bad-magic 2 "badmagic.pcap: bad magic" -- $S --in $W/badmagic.pcap $O
  expect_err truncated 2 "truncated.pcap: truncated record 2" -- $S --in $W/truncated.pcap $O
  expect_err linktype 2 "linktype.pcap: link type 101" -- $S --in $W/linktype.pcap $O
  expect_err empty-record 2 "emptyrec.pcap: record 1 .* is empty" -- $S --in $W/emptyrec.pcap $O
  expect_err missing-file 2 "nonexistent.pcap: cannot open" -- $S --in $W/nonexistent.pcap $O
  expect_err bad-flag 2 "unknown option '--bogus'" -- $S --in $W/fixed88.pcap $O --bogus
  expect_err bad-number 2 "\-\-idle-prob: 'x' is not a number" -- $S --in $W/fixed88.pcap $O --idle-prob x
  expect_err bad-prob 2 "\-\-stall-prob: must be in" -- $S --in $W/fixed88.pcap $O --stall-prob 1.5
  expect_err missing-in 2 "missing --in" -- $S $O
  expect_err missing-value 2 "option --json needs a value" -- $S --in $W/fixed88.pcap --out $W/x.pcap --json
  expect_err bad-regs 2 "badregs.txt:1: 'zzz' is not a number" -- $S --in $W/fixed88.pcap $O --regs $W/badregs.txt
  expect_err missing-regs 2 "nothere.txt: cannot open" -- $S --in $W/fixed88.pcap $O --regs $W/nothere.txt
  expect_err unwritable-out 2 "no/such/dir/x.pcap: cannot open for writing" -- $S --in $W/fixed88.pcap --out $W/no/such/dir/x.pcap --json $W/x.json
  expect_err regs-slverr 5 "ro.txt:1: AXI4-Lite write 0x00000001 to 0x0000 answered SLVERR" -- $S --in $W/fixed88.pcap $O --regs $W/ro.txt
  expect_err watchdog 3 "watchdog: frames are pending but nothing moved" -- $S --in $W/fixed88.pcap $O --stall-prob 1 --max-idle-cycles 500
fi

# The balance check must catch a DUT whose counters lose frames.
BB=build/sim/selftest/w64bug
if build 64 "$BB" +define+SELFTEST_BUG_COUNTERS; then
  expect_err balance 4 "BALANCE: frames in" -- $BB/ws_sim --in $W/mixed.pcap --out $W/bug.pcap --json $W/bug.json --line-rate-gbps 0
  [ -s $W/bug.json ] && ok "balance failure still writes the report" || bad "balance failure wrote no report"
fi

# Optional: the real RTL (rtl/), built like the CLI builds it, on the shared GRE sample.
if [ "${REAL:-0}" = 1 ] && [ -f rtl/tunnel/gre_decap.sv ]; then
  RB=build/sim/selftest/real-w256
  if WS_SIM_MDIR=$RB bash sim/build.sh 256 >"$RB.log" 2>&1; then
    ok "build real RTL w256"
    if run real-gre-sample 0 -- $RB/ws_sim --in /work/shared/captures/gre-sample.pcap \
        --out $W/real-gs.pcap --json $W/real-gs.json --latency-csv $W/real-gs.csv; then
      if $PY - "$W/real-gs.json" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["packets_in"] == 40 and r["packets_out"] == 40 and r["aborted"] == 0, r
assert r["outcomes"]["DECAP_L3"]["packets"] == 40, r["outcomes"]
assert r["bytes_in"] - r["bytes_out"] == 40 * 24, (r["bytes_in"], r["bytes_out"])
assert r["latency_cycles"]["min"] == r["latency_cycles"]["max"] == 2, r["latency_cycles"]
PYEOF
      then ok "real-gre-sample (40 DECAP_L3, 24 bytes removed each, latency 2)"
      else bad "real-gre-sample report"; fi
    fi
    # The real RTL, one eval() per cycle against two, with random idle and stall cycles.
    run real-plain 0 -- env WS_SIM_PLAIN_EVAL=1 $RB/ws_sim --in $W/mixed.pcap --out $W/real-pl.pcap \
      --json $W/real-pl.json --latency-csv $W/real-pl.csv --stat-csv $W/real-pls.csv \
      --line-rate-gbps 3 --idle-prob 0.2 --stall-prob 0.3 --seed 5 &&
    run real-fast 0 -- $RB/ws_sim --in $W/mixed.pcap --out $W/real-fa.pcap --json $W/real-fa.json \
      --latency-csv $W/real-fa.csv --stat-csv $W/real-fas.csv --line-rate-gbps 3 --idle-prob 0.2 \
      --stall-prob 0.3 --seed 5 &&
    if grep -q WS_CLK_PREV $RB/ws_model.h && cmp -s $W/real-pl.pcap $W/real-fa.pcap &&
        cmp -s $W/real-pl.csv $W/real-fa.csv && cmp -s $W/real-pls.csv $W/real-fas.csv &&
        diff <(grep -v 'wall_seconds\|sim_packets_per_second' $W/real-pl.json) \
             <(grep -v 'wall_seconds\|sim_packets_per_second' $W/real-fa.json) >/dev/null; then
      ok "real-eval (one eval() per cycle: same pcap, CSVs and report as WS_SIM_PLAIN_EVAL=1)"
    else
      bad "real-eval: one eval() per cycle is off or differs from WS_SIM_PLAIN_EVAL=1"
    fi
  else
    bad "build real RTL w256 (see $RB.log)"
  fi
fi

echo "selftest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# tests/fuzz/run.sh SECONDS TARGET...: replays every input in tests/fuzz/regress/TARGET (each crash ever
# found, kept as a regression test), then fuzzes each target for SECONDS, two at a time (this machine
# has two cores), from tests/fuzz/corpus/TARGET plus what earlier runs found (build/fuzz/corpus/TARGET).
# Prints one line per target: runs, executions per second, coverage. Exits 1 on any crash, leak,
# timeout or sanitizer report; the input that did it is left as build/fuzz/crash-TARGET-*.
set -u
cd "$(dirname "$0")/../.."
seconds=$1; shift
root=$(pwd)
status=0
for t in "$@"; do
  if [ -d "tests/fuzz/regress/$t" ] && [ -n "$(ls "tests/fuzz/regress/$t")" ]; then
    if ! build/fuzz/fuzz_$t tests/fuzz/regress/$t/* > "build/fuzz/regress-$t.log" 2>&1; then
      echo "fuzz $t: a regression input fails again:"; tail -30 "build/fuzz/regress-$t.log"; status=1
    else
      echo "fuzz $t: $(ls tests/fuzz/regress/$t | wc -l) regression inputs pass"
    fi
  fi
done
one() {
  t=$1
  mkdir -p "build/fuzz/corpus/$t"
  dict=""
  [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
  build/fuzz/fuzz_$t $dict -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
    -artifact_prefix="$root/build/fuzz/crash-$t-" "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" > "build/fuzz/$t.log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/$t.log" | grep -o '[0-9]*$')
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "build/fuzz/$t.log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "build/fuzz/$t.log" | tail -1)
  if [ $rc -ne 0 ]; then
    echo "fuzz $t: FAILED after ${runs:-?} runs (build/fuzz/$t.log):"; grep -m1 -A25 'ERROR\|==ERROR\|runtime error\|deadly signal\|timeout' "build/fuzz/$t.log"
    return 1
  fi
  reached=$(grep -o 'fuzz_cli: [0-9]* of [0-9]* runs reached their report' "build/fuzz/$t.log" | tail -1 | sed 's/^fuzz_cli: /; /')
  echo "fuzz $t: ${runs:-?} runs in ${seconds} s (${speed:-?}/s), $cov, corpus $(ls "build/fuzz/corpus/$t" | wc -l) new inputs$reached"
}
set -- "$@"
while [ $# -gt 0 ]; do
  a=$1; shift
  if [ $# -gt 0 ]; then
    b=$1; shift
    one "$a" & pa=$!
    one "$b" || status=1
    wait $pa || status=1
  else
    one "$a" || status=1
  fi
done
exit $status

#!/bin/sh
# valgrind.sh: the release build (-O2 -g, no sanitizers: what users run) under valgrind's memcheck,
# the path a user takes through it: imports of real traces (gzip, plain JSON, --append, one cut short),
# every report with the options that take their own code paths, exports, the HTML page, diff's gate,
# merge, ranks, ad-hoc SQL, and `tracedb record` of the NVTX sample (through the injection library).
# Every command must finish with no memcheck error and no leak valgrind calls definite; the command's
# own exit status must be what it is without valgrind. Usage: sh tests/valgrind.sh [BUILD_DIR]
# (`make valgrind` builds what it needs first.) The unit tests run under ASan+UBSan instead (make test).
set -u
cd "$(dirname "$0")/.."
B=${1:-build}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
K=tests/data/kineto
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no"
runs=0 bad=0

# check WANT_STATUS CMD...: runs CMD under valgrind; memcheck's errors exit 99 (and print)
check() {
  want=$1
  shift
  runs=$((runs + 1))
  $VG "$@" >"$T/out" 2>"$T/err" </dev/null
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    bad=$((bad + 1))
    echo "valgrind: exit $rc, not $want: $*" >&2
    grep -E "^==[0-9]+==" "$T/err" | head -40 >&2
    [ "$rc" -eq 99 ] || tail -5 "$T/err" >&2
  fi
}

db=$T/alex.db
check 0 "$B/tracedb" import "$K/critical_path_alexnet_trace.json.gz" -o "$db"
check 0 "$B/tracedb" import "$K/call_stack_backward_thread.json" -o "$T/stack.db"
check 0 "$B/tracedb" import samples/resnet18_inference.json.gz -o "$T/resnet.db"
check 0 "$B/tracedb" import "$K/trace_diff_control_control.json.gz" -o "$T/control.db"
check 0 "$B/tracedb" import "$K/trace_diff_test_test.json.gz" -o "$T/test.db"
check 0 "$B/tracedb" import "$K/cupti_profiler_trace.json.gz" -o "$T/append.db"
check 0 "$B/tracedb" import --append "$K/ns_resolution_trace_rank-0.json.gz" -o "$T/append.db"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},{"ph":"X","name":"b","pid":1,' >"$T/cut.json"
check 1 "$B/tracedb" import "$T/cut.json" -o "$T/cut.db" # cut short: the whole events kept, marked partial

for args in "summary" "ops" "ops --by-step" "ops --group-by shape --with-flops" "ops --from 1ms --to 20ms" \
  "kernels" "kernels --by-type" "kernels --by-step" "kernels --group-by launch" "api" "memops" \
  "memops --bandwidth --drop-last-step" "memops --bandwidth --timeline" "kernels --patterns aten::" "latency" \
  "device" "idle" "launches" "queue" "overlap" "critical-path" "critical-path --drop-last-step" "memory" \
  "memory --timeline" "ranks" "summary --format json" "ops --format csv"; do
  # (word splitting of $args is wanted)
  # shellcheck disable=SC2086
  check 0 "$B/tracedb" $args "$db"
done
check 0 "$B/tracedb" ops --group-by stack "$T/stack.db"
check 0 "$B/tracedb" report "$T/resnet.db" -o "$T/resnet.html"
check 0 "$B/tracedb" export chrome "$db" -o "$T/alex.json.gz"
check 0 "$B/tracedb" import "$T/alex.json.gz" -o "$T/round.db"
check 0 "$B/tracedb" export csv "$db" --table events -o "$T/events.csv"
check 0 "$B/tracedb" export csv "$db" --report kernels -o "$T/kernels.csv"
check 0 "$B/tracedb" diff "$T/control.db" "$T/test.db"
check 3 "$B/tracedb" diff "$T/control.db" "$T/test.db" --fail-above 0.001 --metric kernel_total
check 0 "$B/tracedb" merge "$T/control.db" "$T/test.db" -o "$T/job.db"
check 0 "$B/tracedb" ranks "$T/job.db"
check 0 "$B/tracedb" sql "$db" "SELECT name, count(*) FROM events GROUP BY name ORDER BY 2 DESC LIMIT 5"
check 1 "$B/tracedb" sql "$db" "DELETE FROM event" # read-only unless --write
check 0 "$B/tracedb" summary "$T/cut.json"          # a trace: imported beside it (partial), then reported
check 0 "$B/tracedb" summary "$T/cut.json"          # again: the kept database, no import
echo hello >"$T/notes.txt"
check 1 "$B/tracedb" summary "$T/notes.txt"         # neither a trace nor a database
if [ -x "$B/nvtx_sample" ] && [ -f "$B/libtracedb_inject.so" ]; then
  # valgrind follows the program tracedb starts: its NVTX ranges go through the injection library
  VG="$VG --trace-children=yes"
  check 0 "$B/tracedb" record -o "$T/nvtx.db" -- "$B/nvtx_sample"
  check 0 "$B/tracedb" summary "$T/nvtx.db"
fi

echo "valgrind: $runs commands, $bad with errors"
[ "$bad" -eq 0 ]

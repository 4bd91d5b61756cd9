#!/bin/bash
# check.sh: `tracedb record` on a real GPU, checked against what is known independently (check.py).
# Runs on a machine with an NVIDIA GPU and its driver, from the bundle `make gpu-bundle` builds
# (tracedb, its injection library, tests/gpu's programs, and the shared libraries they need):
#   bash tests/gpu/check.sh BUNDLE OUTDIR   (or make gpu-check); exits 1 when a check fails
# SCALE_N=10000000 adds a recording of that many launches (minutes), its memory against 1 M launches.
# Prints PASS/FAIL lines and the timings; leaves the small databases and the log in OUTDIR.
set -u
B=$(cd "${1:-.gpu}" && pwd)
O=${2:-/tmp/gpu_out}
mkdir -p "$O"
W=$(mktemp -d)
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# CUPTI: the system's when the injection library finds one, else the bundle's own copy
if ldd "$B/bin/libtracedb_inject.so" | grep -q "libcupti.*not found"; then
    export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$B/cupti"
fi
T="$B/bin/tracedb"
export TRACEDB="$T" TRACEDB_LIBS="$LD_LIBRARY_PATH"   # check.py runs reports with them
PY="env -u LD_LIBRARY_PATH python3"   # Python and torch with their own libraries; tracedb with the bundle's
HERE=$(cd "$(dirname "$0")" && pwd)
TIMEFORMAT='%R s wall, %U s user, %S s sys'
fails=0
step() { echo; echo "== $*"; }
run() { # run CMD..., its output kept; a failure counted
    timeout "${STEP_SECONDS:-90}" "$@"
    local rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL (exit $rc): $*"; fails=$((fails + 1)); fi
}

step "machine"
nvidia-smi -L; uname -r; ldd --version | head -1
ldd "$B/bin/libtracedb_inject.so" | grep -E "cupti|sqlite|not found"
cd "$W"

step "mixed program: plain, under CUPTI's own count, recorded"
time run "$B/bin/cuda_counts" > app.txt; cat app.txt
time CUPTI_COUNT_OUT=$W/cupti.txt CUDA_INJECTION64_PATH=$B/bin/libcupti_count.so run "$B/bin/cuda_counts" > /dev/null
cat cupti.txt
time run "$T" record -o mixed.db -- "$B/bin/cuda_counts" > /dev/null 2> rec_mixed.err; cat rec_mixed.err
run $PY "$HERE/check.py" counts mixed.db "$(cat app.txt)" cupti.txt
run $PY "$HERE/check.py" launches mixed.db
for r in summary kernels api launches queue overlap idle device memops; do
    echo "-- tracedb $r"; run "$T" $r mixed.db
done
run "$T" export chrome mixed.db -o mixed.json
run "$T" import mixed.json -o mixed_rt.db
run "$T" sql mixed_rt.db "SELECT kind, count(*) FROM events GROUP BY kind"
gzip -c mixed.db > "$O/mixed.db.gz"

step "four host threads, each launching on its own stream"
run "$B/bin/cuda_counts" --threads 4 > threads.txt; cat threads.txt
CUPTI_COUNT_OUT=$W/cupti_threads.txt CUDA_INJECTION64_PATH=$B/bin/libcupti_count.so run "$B/bin/cuda_counts" --threads 4 > /dev/null
run "$T" record -o threads.db -- "$B/bin/cuda_counts" --threads 4 > /dev/null 2> rec_threads.err; cat rec_threads.err
run $PY "$HERE/check.py" threads threads.db "$(cat threads.txt)" cupti_threads.txt

step "a recording whose program is killed mid-run (SIGKILL after 3 s), then tracedb finish"
run "$T" record -o killed.db -- sh -c '"$0" --burst 5000000 & p=$!; sleep 3; kill -9 $p; wait $p; exit 0' "$B/bin/cuda_counts"
ls -la killed.db* 2>&1
time run "$T" finish killed.db
run $PY "$HERE/check.py" killed killed.db 5000000
run "$T" summary killed.db --limit 5

for lv in 2 1; do
    N=1000000
    step "burst of $N empty kernels, level $lv: plain, CUPTI's count, recorded"
    time run "$B/bin/cuda_counts" --burst $N > burst.txt
    time CUPTI_COUNT_LEVEL=$lv CUPTI_COUNT_OUT=$W/cupti_burst.txt CUDA_INJECTION64_PATH=$B/bin/libcupti_count.so \
        run "$B/bin/cuda_counts" --burst $N > /dev/null
    cat cupti_burst.txt
    time TRACEDB_TIMING=1 run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$T" record --level $lv -o burst$lv.db -- "$B/bin/cuda_counts" --burst $N > /dev/null 2> rec_burst$lv.err
    cat rec_burst$lv.err
    run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$B/bin/cuda_counts" --burst $N > /dev/null
    ls -la burst$lv.db
    run "$T" sql burst$lv.db "SELECT kind, count(*), min(dur_ns), max(dur_ns), count(launch_id) FROM events GROUP BY kind"
    run $PY "$HERE/check.py" burst burst$lv.db "$(cat burst.txt)" cupti_burst.txt
    time run "$T" kernels burst$lv.db
    cp cupti_burst.txt "cupti_burst$lv.txt"
done

if [ -n "${SCALE_N:-}" ]; then # optional (minutes): SCALE_N launches at level 2, memory against the 1 M recording's
    step "scale: burst of $SCALE_N empty kernels, level 2, recorded; peak RSS against 1 M launches"
    time run "$B/bin/cuda_counts" --burst "$SCALE_N" > scale.txt; cat scale.txt
    time TRACEDB_TIMING=1 run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$T" record -o scale.db -- "$B/bin/cuda_counts" --burst "$SCALE_N" > /dev/null 2> rec_scale.err
    cat rec_scale.err
    ls -la scale.db
    run $PY "$HERE/check.py" scale scale.db "$(cat scale.txt)" rec_burst2.err rec_scale.err
    time run "$T" kernels scale.db
    rm -f scale.db
fi

if ! env -u LD_LIBRARY_PATH python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
    echo; echo "== PyTorch with CUDA not found: its checks are skipped"; SKIP_TORCH=1
fi
if [ -z "${SKIP_TORCH:-}" ]; then
step "PyTorch: plain, recorded, under its profiler, recorded under emit_nvtx"
time run $PY "$HERE/torch_app.py"
time run "$T" record -o torch.db -- python3 "$HERE/torch_app.py" 2> rec_torch.err; cat rec_torch.err
time run $PY "$HERE/torch_app.py" --profile kineto.json
run "$T" import kineto.json -o kineto.db
time run "$T" record -o torch_nvtx.db -- python3 "$HERE/torch_app.py" --nvtx 2> rec_torch_nvtx.err; cat rec_torch_nvtx.err
run $PY "$HERE/check.py" kineto torch.db kineto.db
run $PY "$HERE/check.py" nvtx_ops torch_nvtx.db kineto.db
run $PY "$HERE/check.py" launches torch.db
for r in summary kernels launches; do echo "-- tracedb $r torch.db"; run "$T" $r torch.db --limit 15; done
for r in queue critical-path api; do echo "-- tracedb $r torch.db"; run "$T" $r torch.db; done
echo "-- tracedb ops torch_nvtx.db"; run "$T" ops torch_nvtx.db --limit 15
# the import's pack (event_pack.h) against the rows: the profiler's own GPU trace, its path edge by edge
for db in kineto.db mixed_rt.db; do
    [ -f $db ] || continue
    cp $db edited_$db
    $PY -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)'); c.commit()" edited_$db
    for f in $db edited_$db; do
        TRACEDB_TIMING=1 "$T" critical-path $f --format csv > cp_$f.txt 2> cp_$f.err && "$T" critical-path $f --each --format csv >> cp_$f.txt
    done
    if grep -q "import's pack" cp_$db.err && ! grep -q "import's pack" cp_edited_$db.err && cmp -s cp_$db.txt cp_edited_$db.txt; then
        echo "PASS critical-path on $db: from the import's pack as from the rows ($(wc -l < cp_$db.txt) lines)"
    else echo "FAIL critical-path on $db: the pack and the rows differ, or the pack was not read"; fails=$((fails + 1)); fi
done
[ -f kineto.json ] && gzip -c kineto.json > "$O/kineto.json.gz"
fi

step "a program that exits with its kernels still running (no synchronize)"
run "$B/bin/cuda_counts" --nosync > nosync.txt; cat nosync.txt
time run "$T" record -o nosync.db -- "$B/bin/cuda_counts" --nosync > /dev/null 2> rec_nosync.err; cat rec_nosync.err
run $PY "$HERE/check.py" nosync nosync.db "$(cat nosync.txt)"

if [ -z "${SKIP_TORCH:-}" ]; then
step "a program that runs torch.profiler itself under tracedb record: one of them must say it lost"
run "$T" record -o both.db -- python3 "$HERE/torch_app.py" --profile both.json 2> rec_both.err; cat rec_both.err
if grep -q "took over CUDA activity" rec_both.err; then echo "PASS the recording says another CUPTI client took over"
else echo "FAIL the recording does not say another CUPTI client took over"; fails=$((fails + 1)); fi
fi
if grep -l "took over\|still running" rec_mixed.err rec_threads.err rec_burst*.err rec_nosync.err $(ls rec_torch*.err rec_scale.err 2>/dev/null); then
    echo "FAIL a recording with no other profiler warned of one (files above)"; fails=$((fails + 1))
else echo "PASS no warning of another profiler or of running GPU work where there was none"; fi

for f in torch.db torch_nvtx.db; do [ -f $f ] && gzip -c $f > "$O/$f.gz"; done
tar czf "$O/counts.tgz" $(ls app.txt cupti*.txt burst.txt threads.txt 2>/dev/null)

step "done: $fails failed steps"
ls -la "$O"
exit $((fails > 0))

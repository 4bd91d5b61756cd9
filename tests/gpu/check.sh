#!/bin/bash
# check.sh: `tracedb record` on a real GPU, checked against what is known independently (check.py).
# Runs on a machine with an NVIDIA GPU and its driver, from the bundle `make gpu-bundle` builds
# (tracedb, its injection library, tests/gpu's programs, and the shared libraries they need):
#   bash tests/gpu/check.sh BUNDLE OUTDIR   (or make gpu-check); exits 1 when a check fails
# A missing piece (no nvidia-smi, no GPU, a bundle file, PyTorch with CUDA, a count) is a FAIL with its
# reason; SKIP_TORCH=1 leaves PyTorch's checks out on purpose, and the end says so.
# The whole check keeps within TOTAL_SECONDS (570): each command within STEP_SECONDS (90) and what is
# left; a step the budget no longer holds is a FAIL. Each step's time is printed as it ends.
# SCALE_N=10000000 adds a recording of that many launches (minutes: raise TOTAL_SECONDS and STEP_SECONDS
# with it), its memory against 1 M launches.
# Prints PASS/FAIL lines and the timings; leaves the small databases and the log in OUTDIR.
set -u
t_start=$(date +%s)
t_step=$t_start
fails=0
exec 3>&1   # FAIL lines to the log, whatever a command's output is redirected to
fail() { echo "FAIL $*" >&3; fails=$((fails + 1)); }
B=$(cd "${1:-.gpu}" 2>/dev/null && pwd) || { fail "the bundle: no directory ${1:-.gpu} (make gpu-bundle builds it)"; exit 1; }
O=${2:-/tmp/gpu_out}
mkdir -p "$O"
W=$(mktemp -d)
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
T="$B/bin/tracedb"
export TRACEDB="$T" TRACEDB_LIBS="$LD_LIBRARY_PATH"   # check.py runs reports with them
PY="env -u LD_LIBRARY_PATH python3"   # Python and torch with their own libraries; tracedb with the bundle's
TIMEFORMAT='%R s wall, %U s user, %S s sys'
TOTAL=${TOTAL_SECONDS:-570}
left() { echo $((TOTAL - ($(date +%s) - t_start))); }
step() {
    local now; now=$(date +%s)
    echo; echo "== (the step before: $((now - t_step)) s; $((now - t_start)) s of $TOTAL s so far) $*"
    t_step=$now
}
run() { # run CMD..., its output kept; a failure counted; within the step's and the whole check's time
    local limit; limit=$(left)
    if [ "$limit" -le 0 ]; then fail "not run, the check's $TOTAL s are spent: $*"; return 1; fi
    [ "$limit" -gt "${STEP_SECONDS:-90}" ] && limit=${STEP_SECONDS:-90}
    timeout -k 10 "$limit" "$@"
    local rc=$?
    if [ $rc -eq 124 ]; then fail "(timed out after $limit s): $*"
    elif [ $rc -ne 0 ]; then fail "(exit $rc): $*"; fi
    return $rc
}
show() { for f; do if [ -s "$f" ]; then cat "$f"; else echo "($f: missing or empty)"; fi; done; }
cupti_run() { # OUT CMD...: CMD under CUPTI's own counter (cupti_count.c), its counts to OUT, none kept from before
    local out=$1; shift
    rm -f "$out"
    CUPTI_COUNT_OUT=$out CUDA_INJECTION64_PATH=$B/bin/libcupti_count.so run "$@" > /dev/null
    show "$out"
}

step "machine and bundle"
ready=1
for f in bin/tracedb bin/libtracedb_inject.so bin/cuda_counts bin/libcupti_count.so; do
    [ -f "$B/$f" ] || { fail "the bundle: no $B/$f (make gpu-bundle builds it)"; ready=0; }
done
if ! command -v python3 > /dev/null || ! command -v gzip > /dev/null || ! command -v c++filt > /dev/null; then
    echo "python3, gzip or c++filt missing: tools/deps.sh gpu-check installs them (as root)"
    sh "$HERE/../../tools/deps.sh" gpu-check || fail "tools to run the check: python3, gzip, c++filt (tools/deps.sh gpu-check)"
fi
if ! command -v nvidia-smi > /dev/null; then fail "no nvidia-smi: no NVIDIA driver on this machine"; ready=0
elif ! nvidia-smi -L | grep '^GPU'; then fail "no GPU: nvidia-smi lists none ($(nvidia-smi -L 2>&1 | head -1))"; ready=0
fi
uname -r; ldd --version | head -1
[ -f "$B/built_for.txt" ] && echo "cuda_counts built for: $(cat "$B/built_for.txt")"
if [ -f "$B/bin/libtracedb_inject.so" ]; then
    # CUPTI: the system's when the injection library finds one, else the bundle's own copy
    if ldd "$B/bin/libtracedb_inject.so" | grep -q "libcupti.*not found"; then
        export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$B/cupti"
        export TRACEDB_LIBS="$LD_LIBRARY_PATH"
    fi
    ldd "$B/bin/libtracedb_inject.so" | grep -E "cupti|sqlite|not found"
fi
torch_why=$(env -u LD_LIBRARY_PATH python3 -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else
    'torch ' + torch.__version__ + ': torch.cuda.is_available() is False')" 2>&1)
torch=$?
torch_why=$(echo "$torch_why" | tail -1)
if [ "${SKIP_TORCH:-}" = 1 ]; then echo "PyTorch's checks left out (SKIP_TORCH=1)"; torch=skip
elif [ $torch -ne 0 ]; then fail "PyTorch with CUDA: ${torch_why:-not found} (SKIP_TORCH=1 leaves its checks out)"
else echo "PyTorch with CUDA: $(env -u LD_LIBRARY_PATH python3 -c 'import torch; print(torch.__version__, torch.version.cuda)')"; fi
if [ $ready = 0 ]; then echo; echo "== done: $fails failed (nothing run without the GPU and the bundle)"; exit 1; fi
cd "$W" || exit 1

step "mixed program: plain, under CUPTI's own count, recorded"
time run "$B/bin/cuda_counts" > app.txt; show app.txt
time cupti_run "$W/cupti.txt" "$B/bin/cuda_counts"
time run "$T" record -o mixed.db -- "$B/bin/cuda_counts" > /dev/null 2> rec_mixed.err; cat rec_mixed.err
run $PY "$HERE/check.py" counts mixed.db "$(cat app.txt)" cupti.txt
run $PY "$HERE/check.py" launches mixed.db
for r in summary kernels api launches queue overlap idle device memops; do
    echo "-- tracedb $r"; run "$T" $r mixed.db
done
run "$T" export chrome mixed.db -o mixed.json
run "$T" import mixed.json -o mixed_rt.db
run "$T" sql mixed_rt.db "SELECT kind, count(*) FROM events GROUP BY kind"
[ -f mixed.db ] && gzip -c mixed.db > "$O/mixed.db.gz"

step "four host threads, each launching on its own stream"
run "$B/bin/cuda_counts" --threads 4 > threads.txt; show threads.txt
cupti_run "$W/cupti_threads.txt" "$B/bin/cuda_counts" --threads 4
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
    rm -f burst.txt
    time run "$B/bin/cuda_counts" --burst $N > burst.txt
    time CUPTI_COUNT_LEVEL=$lv cupti_run "$W/cupti_burst$lv.txt" "$B/bin/cuda_counts" --burst $N
    time TRACEDB_TIMING=1 run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$T" record --level $lv -o burst$lv.db -- "$B/bin/cuda_counts" --burst $N > /dev/null 2> rec_burst$lv.err
    cat rec_burst$lv.err
    run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$B/bin/cuda_counts" --burst $N > /dev/null
    ls -la burst$lv.db
    run "$T" sql burst$lv.db "SELECT kind, count(*), min(dur_ns), max(dur_ns), count(launch_id) FROM events GROUP BY kind"
    run $PY "$HERE/check.py" burst burst$lv.db "$(cat burst.txt)" cupti_burst$lv.txt
    time run "$T" kernels burst$lv.db
done

if [ -n "${SCALE_N:-}" ]; then # optional (minutes): SCALE_N launches at level 2, memory against the 1 M recording's
    step "scale: burst of $SCALE_N empty kernels, level 2, recorded; peak RSS against 1 M launches"
    time run "$B/bin/cuda_counts" --burst "$SCALE_N" > scale.txt; show scale.txt
    time TRACEDB_TIMING=1 run $PY "$HERE/check.py" maxrss "$LD_LIBRARY_PATH" "$T" record -o scale.db -- "$B/bin/cuda_counts" --burst "$SCALE_N" > /dev/null 2> rec_scale.err
    cat rec_scale.err
    ls -la scale.db
    run $PY "$HERE/check.py" scale scale.db "$(cat scale.txt)" rec_burst2.err rec_scale.err
    time run "$T" kernels scale.db
    rm -f scale.db
fi

if [ "$torch" = 0 ]; then
step "PyTorch: plain, under CUPTI's own count, recorded, under its profiler, recorded under emit_nvtx"
time run $PY "$HERE/torch_app.py"
# CUPTI's count with the libraries the recording's run has (the bundle's CUPTI among them)
time cupti_run "$W/cupti_torch.txt" python3 "$HERE/torch_app.py"
time run "$T" record -o torch.db -- python3 "$HERE/torch_app.py" 2> rec_torch.err; cat rec_torch.err
time run $PY "$HERE/torch_app.py" --profile kineto.json
run "$T" import kineto.json -o kineto.db
time run "$T" record -o torch_nvtx.db -- python3 "$HERE/torch_app.py" --nvtx 2> rec_torch_nvtx.err; cat rec_torch_nvtx.err
run $PY "$HERE/check.py" kineto torch.db kineto.db cupti_torch.txt
run $PY "$HERE/check.py" nvtx_ops torch_nvtx.db kineto.db
run $PY "$HERE/check.py" launches torch.db
for r in summary kernels launches; do echo "-- tracedb $r torch.db"; run "$T" $r torch.db --limit 15; done
for r in queue critical-path api; do echo "-- tracedb $r torch.db"; run "$T" $r torch.db; done
echo "-- tracedb ops torch_nvtx.db"; run "$T" ops torch_nvtx.db --limit 15
fi
# the import's pack (event_pack.h) against the rows: the profiler's own GPU trace, its path edge by edge
for db in kineto.db mixed_rt.db; do
    if [ ! -f $db ]; then
        [ $db = mixed_rt.db ] || [ "$torch" = 0 ] && fail "critical-path on $db: no $db (a step above failed)"
        continue
    fi
    cp $db edited_$db
    $PY -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)'); c.commit()" edited_$db
    for f in $db edited_$db; do
        TRACEDB_TIMING=1 run "$T" critical-path $f --format csv > cp_$f.txt 2> cp_$f.err && run "$T" critical-path $f --each --format csv >> cp_$f.txt
    done
    if grep -q "import's pack" cp_$db.err && ! grep -q "import's pack" cp_edited_$db.err && cmp -s cp_$db.txt cp_edited_$db.txt; then
        echo "PASS critical-path on $db: from the import's pack as from the rows ($(wc -l < cp_$db.txt) lines)"
    else fail "critical-path on $db: the pack and the rows differ, or the pack was not read"; fi
done
[ -f kineto.json ] && gzip -c kineto.json > "$O/kineto.json.gz"

step "a program that exits with its kernels still running (no synchronize)"
run "$B/bin/cuda_counts" --nosync > nosync.txt; show nosync.txt
time run "$T" record -o nosync.db -- "$B/bin/cuda_counts" --nosync > /dev/null 2> rec_nosync.err; cat rec_nosync.err
run $PY "$HERE/check.py" nosync nosync.db "$(cat nosync.txt)"

if [ "$torch" = 0 ]; then
step "a program that runs torch.profiler itself under tracedb record: one of them must say it lost"
run "$T" record -o both.db -- python3 "$HERE/torch_app.py" --profile both.json 2> rec_both.err; cat rec_both.err
if grep -q "took over CUDA activity" rec_both.err; then echo "PASS the recording says another CUPTI client took over"
else fail "the recording does not say another CUPTI client took over"; fi
fi
step "warnings"
if grep -l "took over\|still running" $(ls rec_mixed.err rec_threads.err rec_burst*.err rec_nosync.err rec_torch*.err rec_scale.err 2>/dev/null) < /dev/null; then
    fail "a recording with no other profiler warned of one (files above)"
else echo "PASS no warning of another profiler or of running GPU work where there was none"; fi

for f in torch.db torch_nvtx.db; do [ -f $f ] && gzip -c $f > "$O/$f.gz"; done
tar czf "$O/counts.tgz" $(ls app.txt cupti*.txt burst.txt threads.txt nosync.txt 2>/dev/null)

step "done: $fails failed (commands and checks of this script; check.py's own FAIL lines are above), in $(($(date +%s) - t_start)) s"
[ "$torch" = skip ] && echo "PyTorch's checks were NOT run (SKIP_TORCH=1): Kineto, emit_nvtx and CUPTI on PyTorch unchecked"
ls -la "$O"
exit $((fails > 0))

#!/bin/sh
# bench/run.sh: `make bench`. Measures tracedb against baselines side by side, in the same run, on a
# generated Kineto-shaped trace (bench/gen_trace.c; BENCH_MB sets its size, default 300):
#   - a streaming tokenizer pass over the same file (yajl, values discarded): the floor for any parser,
#     run in turn with the import, 3 rounds, the ratio each round's (the median printed);
#   - Python json.load + pandas groupby, what users write today (when python3-pandas is installed);
#   - tracedb import: wall time, peak RSS, events/s; database size against the JSON;
#   - a gzip copy of the trace, imported with its inflating on a thread of its own and on the parser's
#     (TRACEDB_READ_AHEAD=on/off, bench/read_ahead.sh), and the plain file both ways, in turn;
#   - the same events in the orders real traces show (gen_trace --kineto-order: PyTorch's profiler's, CPU
#     tracks as sorted runs far apart, kernels before their launches; --real-order: that with the GPU
#     section as CUPTI's buffers, out of time order; --flows-apart: the device's activity before all the
#     runtime calls, each flow's halves a section apart), each beside the tokenizer on its own file, with
#     the rows the import rewrote at the end (TRACEDB_TIMING=1) and a check that its database holds the
#     time order's rows (bench/order_rows.sql, hashed; the bench fails where they differ);
#   - tracedb import of a 1 GB trace (BENCH_BIG_MB), in both orders: peak RSS at a second size, to show it flat;
#   - tracedb import of the shapes whose memory grew with nesting or names (BENCH_SHAPES events each): peak RSS;
#   - every report on the database, HTA's analyses also on a ~2 M-event one (BENCH_HTA_MB), the three
#     slowest beside SQLite alone reading the same rows' columns (the floor under a pass over them);
#   - the reports that go up the parents on 1 M operators nested on one thread (BENCH_DEEP);
#   - the recorder's benchmark (bench/recorder_bench.c).
# Ratios are what to read: these machines are noisy, so each tool runs in the same minute.
set -eu
cd "$(dirname "$0")/.."
sh tools/deps.sh bench
MB=${BENCH_MB:-300}
dir=build/bench
mkdir -p "$dir"
trace=$dir/trace-$MB.json
[ -s "$trace" ] || build/gen_trace "$MB" > "$trace"
bytes=$(stat -c %s "$trace")

# timed NAME CMD...: CMD's wall time and peak RSS into $dir/time.out; its error output shown, and the
# bench stopped, when it fails
timed() {
  t_name=$1; shift
  /usr/bin/time -f "%e %M" -o "$dir/time.out" "$@" > /dev/null 2> "$dir/$t_name.err" || { cat "$dir/$t_name.err"; exit 1; }
}

# measure NAME CMD...: best wall time of 3 runs and the peak RSS, into $dir/NAME.{s,kb}
measure() {
  name=$1; shift
  best=""; kb=0
  for i in 1 2 3; do
    [ "$name" = import ] && rm -f "$dir/bench.db"
    timed "$name" "$@"
    read -r s k < "$dir/time.out"
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
    [ "$k" -gt "$kb" ] && kb=$k
  done
  echo "$best" > "$dir/$name.s"; echo "$kb" > "$dir/$name.kb"
}

# in_turn BASE NAME [ARG...]: 3 rounds of base_cmd (the baseline, timed as BASE) then main_prep (untimed)
# and main_cmd ARG... (timed as NAME), each round's ratio taken within the same seconds (these machines
# change speed from one minute to the next: best times taken a minute apart once read 1.96x where the
# rounds read 1.45-1.56x); the best wall times and peak RSS into $dir/BASE.* and $dir/NAME.*, the median
# of the rounds' ratios into $dir/NAME.ratio. The caller defines the three functions; each command runs
# through timed.
in_turn() {
  r_base=$1; r_name=$2; shift 2
  bbest=""; best=""; bkb=0; kb=0; ratios=""
  for i in 1 2 3; do
    base_cmd; read -r bs bk < "$dir/time.out"
    main_prep
    main_cmd "$@"; read -r s k < "$dir/time.out"
    if [ -z "$bbest" ] || [ "$(echo "$bs < $bbest" | bc)" = 1 ]; then bbest=$bs; fi
    if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s; fi
    [ "$bk" -gt "$bkb" ] && bkb=$bk
    [ "$k" -gt "$kb" ] && kb=$k
    ratios="$ratios $(echo "scale=4; $s / $bs" | bc)"
  done
  echo "$bbest" > "$dir/$r_base.s"; echo "$bkb" > "$dir/$r_base.kb"
  echo "$best" > "$dir/$r_name.s"; echo "$kb" > "$dir/$r_name.kb"
  echo $ratios | tr ' ' '\n' | sort -n | sed -n 2p > "$dir/$r_name.ratio"
}
# paired TOK IMP FILE DB: a tokenizer pass then an import of FILE into DB, in turn
paired() {
  p_tok=$1; p_imp=$2; p_file=$3; p_db=$4
  base_cmd() { timed "$p_tok" build/tokenize "$p_file"; }
  main_prep() { rm -f "$p_db"; }
  main_cmd() { timed "$p_imp" build/tracedb import -q "$p_file" -o "$p_db"; }
  in_turn "$p_tok" "$p_imp"
}
# beside_floor NAME FLOOR SQL CMD...: sqlite3 running SQL on the 2 M-event database (or $floor_db: FLOOR)
# then CMD (NAME), in turn
beside_floor() {
  b_name=$1; b_floor=$2; b_sql=$3; shift 3
  base_cmd() { timed "$b_floor" sqlite3 "${floor_db:-$dir/hta.db}" "$b_sql"; }
  main_prep() { :; }
  main_cmd() { timed "$b_name" "$@"; }
  in_turn "$b_floor" "$b_name" "$@"
}
paired tokenize import "$trace" "$dir/bench.db"
# order_check NAME FILE DB: one more import of FILE into DB with TRACEDB_TIMING=1, its "rows to rewrite"
# line into $dir/NAME.rewrite; the hash of DB's rows that do not depend on the order (order_rows.sql)
# into $dir/NAME.rows
order_check() {
  rm -f "$3"
  TRACEDB_TIMING=1 build/tracedb import -q "$2" -o "$3" 2> "$dir/$1.timing" || { cat "$dir/$1.timing"; exit 1; }
  sed -n 's/^tracedb: \([0-9]*\) rows to rewrite of \([0-9]*\).*/\1 of \2/p' "$dir/$1.timing" > "$dir/$1.rewrite"
  sqlite3 -bail "$3" < bench/order_rows.sql | md5sum > "$dir/$1.rows"
}
order_check import "$trace" "$dir/bench.db"
# the same events in the orders of real traces (gen_trace's header): PyTorch's (--kineto-order), CUPTI's
# buffers out of time order (--real-order), the device's activity before the runtime calls
# (--flows-apart), each beside the tokenizer on its own file, its rows checked against the time order's
orders="kineto real flows"
for o in $orders; do
  case $o in kineto) opt=--kineto-order ;; real) opt=--real-order ;; *) opt=--flows-apart ;; esac
  f=$dir/trace-$MB-$o.json
  [ -s "$f" ] || build/gen_trace "$MB" $opt > "$f"
  paired "tokenize_$o" "import_$o" "$f" "$dir/$o.db"
  order_check "import_$o" "$f" "$dir/$o.db"
  rm -f "$dir/$o.db"
done
# one_run FILE TOK IMP: a tokenizer pass and an import of FILE, one run each (a big file), into $dir/TOK.*, IMP.*
one_run() {
  run_file=$1; run_tok=$2; run_imp=$3
  cat "$run_file" > /dev/null # both runs read it from the page cache, as the 300 MB runs do
  for what in "$run_tok" "$run_imp"; do
    rm -f "$dir/big.db"
    if [ "$what" = "$run_tok" ]; then set -- build/tokenize "$run_file"; else set -- build/tracedb import -q "$run_file" -o "$dir/big.db"; fi
    timed "$what" "$@"
    read -r s k < "$dir/time.out"; echo "$s" > "$dir/$what.s"; echo "$k" > "$dir/$what.kb"
  done
}
# memory at a second size (BENCH_BIG_MB, default 1000; 0 skips): peak RSS must not grow with the trace
BIG=${BENCH_BIG_MB:-1000}
if [ "$BIG" -gt 0 ]; then
  big=$dir/trace-$BIG.json
  [ -s "$big" ] || build/gen_trace "$BIG" > "$big"
  one_run "$big" tokenize_big import_big
  big_events=$(sqlite3 "$dir/big.db" "SELECT value FROM meta WHERE key = 'event_count'")
  bigk=$dir/trace-$BIG-kineto.json # and in PyTorch's order: later runs merged with the earlier, operators fixed
  [ -s "$bigk" ] || build/gen_trace "$BIG" --kineto-order > "$bigk"
  one_run "$bigk" tokenize_bigk import_bigk
  rm -f "$dir/big.db"
fi
# memory at any nesting and any number of names (issue 50 #13, issue 56): BENCH_SHAPES events (default
# 1,000,000; 0 skips) of each shape gen_trace writes: nested B events never ended, one name
# (--never-ended); the same, each its own name (--never-ended-distinct); complete events, each its own
# name (--distinct-names). A tokenizer pass and an import of each, one run each: peak RSS, and the ratio
SHAPES=${BENCH_SHAPES:-1000000}
if [ "$SHAPES" -gt 0 ]; then
  for sh in never-ended never-ended-distinct distinct-names; do
    f=$dir/shape-$sh-$SHAPES.json
    [ -s "$f" ] || build/gen_trace --$sh "$SHAPES" > "$f"
    one_run "$f" "tok_$sh" "imp_$sh"
  done
  rm -f "$dir/big.db"
fi
# #13: 8 copies of the bench trace as 8 ranks (links to one file, read from the page cache), imported
# into one database by tracedb, into a shard each by tracedb-mpi on 1 process and on 2 (BENCH_MPI=0 skips)
if [ "${BENCH_MPI:-1}" != 0 ] && [ -x build/tracedb-mpi ] && command -v mpirun > /dev/null 2>&1; then
  mkdir -p "$dir/copies"
  for i in 0 1 2 3 4 5 6 7; do ln -sf "$(realpath "$trace")" "$dir/copies/rank$i.json"; done
  root=""; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
  rm -rf "$dir/one8.db" "$dir/shards8"
  t0=$(date +%s.%N); build/tracedb import -q --allow-duplicate --rank 0 "$dir"/copies/rank*.json -o "$dir/one8.db"; t1=$(date +%s.%N)
  mpirun $root --oversubscribe -n 1 build/tracedb-mpi import -q --rank 0 "$dir"/copies/rank*.json -o "$dir/shards8"; t2=$(date +%s.%N)
  mpirun $root --oversubscribe -n 2 build/tracedb-mpi import -q --force --rank 0 "$dir"/copies/rank*.json -o "$dir/shards8"; t3=$(date +%s.%N)
  mpi_one=$(echo "$t1 - $t0" | bc); mpi_n1=$(echo "$t2 - $t1" | bc); mpi_n2=$(echo "$t3 - $t2" | bc)
  t0=$(date +%s.%N); build/tracedb ops "$dir/one8.db" --by-rank > /dev/null; t1=$(date +%s.%N)
  mpirun $root --oversubscribe -n 2 build/tracedb-mpi ops "$dir/shards8" --by-rank > /dev/null; t2=$(date +%s.%N)
  mpi_ops_one=$(echo "$t1 - $t0" | bc); mpi_ops_n2=$(echo "$t2 - $t1" | bc)
  rm -rf "$dir/one8.db" "$dir/shards8"
fi
measure summary build/tracedb summary "$dir/bench.db"
reports="ops kernels api memops latency device memory"
for r in $reports; do measure "$r" build/tracedb "$r" "$dir/bench.db"; done
measure ops_window build/tracedb ops "$dir/bench.db" --range 'ProfilerStep#3'
measure kernels_launch build/tracedb kernels "$dir/bench.db" --group-by launch
for r in overlap idle launches queue; do measure "$r" build/tracedb "$r" "$dir/bench.db" --drop-last-step; done
measure kernels_by_type build/tracedb kernels "$dir/bench.db" --by-type --drop-last-step
measure critical_path build/tracedb critical-path "$dir/bench.db" --drop-last-step
# HTA's memory bandwidth counters over the whole trace (the generated memcpys have no launch call: HTA's window drops them)
measure memops_bw build/tracedb memops "$dir/bench.db" --bandwidth
# HTA's frequent kernel sequences (each generated operator launches one kernel: --min-kernels 1 lists them)
measure kernels_patterns build/tracedb kernels "$dir/bench.db" --patterns aten:: --min-kernels 1
# HTA's analyses where #11 sets their target: a ~2 M-event database (BENCH_HTA_MB, default 650; 0 skips)
HTA_MB=${BENCH_HTA_MB:-650}
if [ "$HTA_MB" -gt 0 ]; then
  hta_trace=$dir/trace-$HTA_MB.json
  [ -s "$hta_trace" ] || build/gen_trace "$HTA_MB" > "$hta_trace"
  rm -f "$dir/hta.db"; build/tracedb import -q "$hta_trace" -o "$dir/hta.db"
  hta_events=$(sqlite3 "$dir/hta.db" "SELECT value FROM meta WHERE key = 'event_count'")
  for r in overlap idle launches queue; do measure "${r}_2m" build/tracedb "$r" "$dir/hta.db" --drop-last-step; done
  # every other report on it too, as a user runs it (no option), and diff of it with itself
  for r in summary ops kernels api memops latency device memory; do measure "every_${r}_2m" build/tracedb "$r" "$dir/hta.db"; done
  measure every_diff_2m build/tracedb diff "$dir/hta.db" "$dir/hta.db"
  measure kernels_by_type_2m build/tracedb kernels "$dir/hta.db" --by-type --drop-last-step
  measure memops_bw_2m build/tracedb memops "$dir/hta.db" --bandwidth
  measure kernels_patterns_one_2m build/tracedb kernels "$dir/hta.db" --patterns aten::linear --min-kernels 1
  # the per-operator table from the events (a window, a step each), and kernels by step
  measure kernels_by_step_2m build/tracedb kernels "$dir/hta.db" --by-step
  measure kernels_launch_2m build/tracedb kernels "$dir/hta.db" --group-by launch
  # the three slowest beside their floor: SQLite alone (its shell, one thread) reading the columns of the
  # rows each reads (critical_path_rows.sql; ops_event_rows.sql, with the start for --by-step), summed;
  # in turn, 3 rounds, each round's ratio (the median printed), as the imports beside the tokenizer
  cp_kinds="kind NOT BETWEEN (SELECT id FROM kind WHERE name = 'memory') AND (SELECT id FROM kind WHERE name = 'async')"
  cp_floor="SELECT count(*), total(id), total(thread_id), total(start_ns), total(dur_ns), total(stream), total(device),
    total(launch_id), total(name_id), total(cat_id), total(kind), total(correlation),
    total(CASE WHEN kind = (SELECT id FROM kind WHERE name = 'sync') THEN length(args) END) FROM event WHERE $cp_kinds"
  ops_cols="count(*), total(id), total(kind), total(name_id), total(dur_ns), total(self_ns), total(launch_id), total(parent_id), total(bytes)"
  beside_floor critical_path_2m cp_floor_2m "$cp_floor" build/tracedb critical-path "$dir/hta.db" --drop-last-step
  beside_floor ops_from_2m ops_floor_2m "SELECT $ops_cols FROM event" build/tracedb ops "$dir/hta.db" --from 0
  beside_floor ops_by_step_2m ops_step_floor_2m "SELECT $ops_cols, total(start_ns) FROM event" build/tracedb ops "$dir/hta.db" --by-step
  # HTA's frequent kernel sequences, every operator a candidate, beside the columns its pass reads (kernels_pattern_rows.sql)
  beside_floor kernels_patterns_2m patterns_floor_2m "SELECT count(*), total(id), total(kind), total(name_id), total(thread_id),
    total(start_ns), total(dur_ns), total(depth), total(parent_id), total(launch_id), total(stream) FROM event" \
    build/tracedb kernels "$dir/hta.db" --patterns aten:: --min-kernels 1
  # critical-path where the database has no pack (edited since its import: the trigger took it away):
  # the rows read. Last, and after sync, so that writing the 200 MB copy back to disk runs under no
  # other measurement (a precaution: by hand, a copy just before kernels --patterns changed nothing)
  cp "$dir/hta.db" "$dir/hta-edited.db"
  sqlite3 "$dir/hta-edited.db" "UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)"
  sync
  measure critical_path_rows_2m build/tracedb critical-path "$dir/hta-edited.db" --drop-last-step
  rm -f "$dir/hta-edited.db"
fi
# deep nesting: BENCH_DEEP operators nested on one thread (default 1,000,000; 0 skips), every tenth
# launching a kernel (gen_trace --nested): the reports that go up the parents (the Python stacks, the
# device totals, HTA's call stacks), the first two beside SQLite reading the columns the stacks' scan
# reads (in turn, 3 rounds).
DEEP=${BENCH_DEEP:-1000000}
if [ "$DEEP" -gt 0 ]; then
  deep_trace=$dir/deep-$DEEP.json
  [ -s "$deep_trace" ] || build/gen_trace --nested "$DEEP" > "$deep_trace"
  rm -f "$dir/deep.db"; build/tracedb import -q "$deep_trace" -o "$dir/deep.db"
  floor_db=$dir/deep.db
  deep_floor="SELECT count(*), total(id), total(parent_id), total(depth), total(kind), total(name_id) FROM event"
  beside_floor deep_stack deep_floor "$deep_floor" build/tracedb ops "$dir/deep.db" --group-by stack
  beside_floor deep_from deep_floor_from "$deep_floor" build/tracedb ops "$dir/deep.db" --from 0
  measure deep_patterns build/tracedb kernels "$dir/deep.db" --patterns aten::
  floor_db=""
  rm -f "$dir/deep.db"
fi
measure csv_tracedb build/tracedb export csv "$dir/bench.db" --table event -o "$dir/event.csv" --force
measure csv_sqlite3 sh -c "sqlite3 -csv -header '$dir/bench.db' 'SELECT * FROM event' > '$dir/event-sqlite3.csv'"
measure export_chrome build/tracedb export chrome "$dir/bench.db" -o "$dir/export.json" --force
measure report build/tracedb report "$dir/bench.db" -o "$dir/report.html" --force
events=$(sqlite3 "$dir/bench.db" "SELECT value FROM meta WHERE key = 'event_count'")
flows=$(sqlite3 "$dir/bench.db" "SELECT count(*) FROM flow")
dbbytes=$(stat -c %s "$dir/bench.db")
pandas=no
if /usr/bin/python3 -c "import pandas" 2>/dev/null; then
  pandas=yes
  cat > "$dir/pandas_baseline.py" <<'PY'
import json, sys
import pandas as pd
with open(sys.argv[1]) as f:
    doc = json.load(f)
df = pd.DataFrame(e for e in doc["traceEvents"] if e.get("ph") == "X")
print(df.groupby("name")["dur"].agg(["count", "sum"]).sort_values("sum").tail(3))
PY
  measure pandas /usr/bin/python3 "$dir/pandas_baseline.py" "$trace"
fi

tok=$(cat $dir/tokenize.s); imp=$(cat $dir/import.s)
echo
echo "tracedb bench on $trace: $((bytes / 1000000)) MB, $events events + $flows flow halves"
printf '%-34s %10s %12s %s\n' "what" "wall (s)" "peak RSS" "vs tokenizer"
row() { printf '%-34s %10s %9s MB %s\n' "$1" "$(cat $dir/$2.s)" "$(($(cat $dir/$2.kb) / 1024))" "$3"; }
row "tokenizer pass (yajl, baseline)" tokenize "1.00x"
# ratio NAME TOK: the median of the paired rounds' ratios, and the ratio of the best times
ratio() { echo "$(printf '%.2f' "$(cat $dir/$1.ratio)")x (median of 3 rounds, each beside its own tokenizer pass; best times $(echo "scale=2; $(cat $dir/$1.s) / $(cat $dir/$2.s)" | bc)x)"; }
row "tracedb import" import "$(ratio import tokenize)"
echo "  (time order: $(cat $dir/import.rewrite) rows rewritten at the end)"
same=yes
for o in $orders; do
  case $o in kineto) what="PyTorch's order" ;; real) what=--real-order ;; *) what=--flows-apart ;; esac
  row "tokenizer pass, $what" "tokenize_$o" "1.00x"
  row "tracedb import, $what" "import_$o" "$(ratio "import_$o" "tokenize_$o")"
  if cmp -s "$dir/import.rows" "$dir/import_$o.rows"; then rows="the time order's rows"; else rows="ROWS DIFFER from the time order's"; same=no; fi
  echo "  ($(cat "$dir/import_$o.rewrite") rows rewritten at the end; $rows)"
done
if [ "$BIG" -gt 0 ]; then
  row "tokenizer pass, $BIG MB (one run)" tokenize_big "1.00x"
  row "tracedb import, $BIG MB (one run)" import_big "$(echo "scale=2; $(cat $dir/import_big.s) / $(cat $dir/tokenize_big.s)" | bc)x ($big_events events; RSS target < 64 MB at any size)"
  row "tokenizer pass, $BIG MB, PyTorch's order" tokenize_bigk "1.00x"
  row "tracedb import, $BIG MB, PyTorch's order" import_bigk "$(echo "scale=2; $(cat $dir/import_bigk.s) / $(cat $dir/tokenize_bigk.s)" | bc)x"
fi
if [ "$SHAPES" -gt 0 ]; then
  for sh in never-ended never-ended-distinct distinct-names; do
    case $sh in
      never-ended) what="$SHAPES nested B never ended, one name" ;;
      never-ended-distinct) what="  the same, each its own name" ;;
      *) what="$SHAPES complete events, each its own name" ;;
    esac
    row "$what" "imp_$sh" "$(echo "scale=2; $(cat $dir/imp_$sh.s) / $(cat $dir/tok_$sh.s)" | bc)x its tokenizer pass (one run; RSS target < 64 MB)"
  done
fi
[ $pandas = yes ] && row "python json.load + pandas groupby" pandas "$(echo "scale=2; $(cat $dir/pandas.s) / $tok" | bc)x; tracedb import is $(echo "scale=1; $(cat $dir/pandas.s) / $imp" | bc)x faster (target 10x)"
row "tracedb summary" summary ""
for r in $reports; do row "tracedb $r" "$r" ""; done
row "tracedb ops --range ProfilerStep#3" ops_window ""
row "tracedb kernels --group-by launch" kernels_launch ""
for r in overlap idle launches queue; do row "tracedb $r --drop-last-step (HTA)" "$r" "(target < 1 s)"; done
row "tracedb kernels --by-type --drop-last-step" kernels_by_type "(target < 1 s)"
row "tracedb critical-path --drop-last-step" critical_path "(target < 1 s)"
row "tracedb memops --bandwidth (HTA)" memops_bw "(target <= 0.5 s)"
row "tracedb kernels --patterns aten:: (HTA)" kernels_patterns "(target <= 0.5 s)"
if [ "$HTA_MB" -gt 0 ]; then
  for r in overlap idle launches queue; do row "  the same on $hta_events events: $r" "${r}_2m" "(target < 1 s)"; done
  for r in summary ops kernels api memops latency device memory diff; do
    row "  on $hta_events events: $r" "every_${r}_2m" "(no option; target <= 0.5 s)"
  done
  row "  the same on $hta_events events: kernels --by-type" kernels_by_type_2m "(target < 1 s)"
  row "  the same on $hta_events events: memops --bandwidth" memops_bw_2m "(target <= 0.5 s)"
  # floor NAME: NAME's median ratio to the floor below, round by round
  floor() { echo "$(printf '%.2f' "$(cat $dir/$1.ratio)")x the floor below, median of 3 rounds in turn"; }
  row "  the same on $hta_events events: critical-path" critical_path_2m "(target <= 0.5 s; the import's pack read; $(floor critical_path_2m))"
  row "    SQLite reading its rows' columns" cp_floor_2m "(sqlite3, one thread: the floor of a pass that reads the rows)"
  row "    critical-path reading the rows" critical_path_rows_2m "(the database edited since its import: no pack; on two threads)"
  row "  on $hta_events events: ops --from 0" ops_from_2m "(target <= 0.5 s; 7.07 s before the C pass; $(floor ops_from_2m))"
  row "    floor: SQLite reading its rows' columns" ops_floor_2m "(sqlite3, one thread)"
  row "  on $hta_events events: ops --by-step" ops_by_step_2m "(target <= 0.5 s; 130 s before the indexed steps; $(floor ops_by_step_2m))"
  row "    floor: SQLite reading its rows' columns" ops_step_floor_2m "(sqlite3, one thread)"
  row "  on $hta_events events: kernels --by-step" kernels_by_step_2m "(247 s before the indexed steps)"
  row "  on $hta_events events: kernels --group-by launch" kernels_launch_2m "(target <= 0.5 s)"
  row "  on $hta_events events: kernels --patterns aten::" kernels_patterns_2m "(target <= 0.5 s; 7.40 s in SQL; $(floor kernels_patterns_2m))"
  row "    floor: SQLite reading its rows' columns" patterns_floor_2m "(sqlite3, one thread; tracedb reads them on two)"
  row "  on $hta_events events: kernels --patterns aten::linear" kernels_patterns_one_2m "(target <= 0.5 s; 2.2-3.1 s in SQL)"
fi
if [ "$DEEP" -gt 0 ]; then
  deep_ratio() { echo "$(printf '%.2f' "$(cat $dir/$1.ratio)")x the floor below, median of 3 rounds in turn"; }
  row "  $DEEP nested: ops --group-by stack" deep_stack "(55 s on 10,000 walking up from each; $(deep_ratio deep_stack))"
  row "    floor: SQLite reading the parents' columns" deep_floor "(sqlite3, one thread)"
  row "  $DEEP nested: ops --from 0" deep_from "(a launch in every tenth: device totals; $(deep_ratio deep_from))"
  row "  $DEEP nested: kernels --patterns aten::" deep_patterns "(a minute on 400,000 looking down the whole stack)"
fi
row "tracedb export chrome (whole trace)" export_chrome ""
# HTA itself beside tracedb on one real trace, where HTA's source is at hand (tests/oracle/*.py's way):
# each analysis in the same minute, HTA's pandas against tracedb's database (imported once, timed apart)
real=tests/data/kineto/trace_diff_control_control.json.gz
if /usr/bin/python3 bench/hta_time.py "$real" > "$dir/hta_times" 2>/dev/null; then
  rm -f "$dir/real.db"
  t0=$(date +%s.%N); build/tracedb import -q "$real" -o "$dir/real.db"; t1=$(date +%s.%N)
  echo "HTA beside tracedb on $(basename "$real") (HTA load $(awk '$1 == "load" {print $2}' "$dir/hta_times") s;" \
       "tracedb import $(printf '%.3f' "$(echo "$t1 - $t0" | bc)") s):"
  for pair in "overlap:overlap" "idle:idle" "launches:launches" "queue:queue" "kernels_by_type:kernels --by-type" \
              "device:device" "memops_bw:memops --bandwidth" "critical_path:critical-path"; do
    name=${pair%%:*}; cmd=${pair#*:}
    t0=$(date +%s.%N); build/tracedb $cmd "$dir/real.db" --drop-last-step > /dev/null; t1=$(date +%s.%N)
    hta=$(awk -v n="$name" '$1 == n {print $2}' "$dir/hta_times")
    tdb=$(echo "$t1 - $t0" | bc)
    printf '  %-34s HTA %8.3f s   tracedb %6.3f s   %6.1fx\n' "$cmd" "$hta" "$tdb" "$(echo "$hta / $tdb" | bc -l)"
  done
else
  echo "HTA beside tracedb: skipped (HTA's source not at \${HTA_SRC:-/tmp/hta}, or its Python dependencies missing)"
fi
# the Python package and the reports as SQL table functions beside the commands (bench/python_bench.py)
if [ "$HTA_MB" -gt 0 ] && /usr/bin/python3 -c "import pandas" 2>/dev/null; then
  echo "Python and SQL beside the command (median of 3 rounds in turn, best seconds: Python or SQL / command):"
  /usr/bin/python3 bench/python_bench.py build/tracedb "$trace" "$dir/hta.db" "$dir" | while read -r n r p c u; do
    case $n in
      load) what="tracedb.load($MB MB trace) / tracedb import"; target="target <= 1.1x" ;;
      ops) what="t.ops() on $hta_events events / tracedb ops"; target="target <= 1.3x" ;;
      ops_from0) what="t.ops(from_=0) / tracedb ops --from 0"; target="target <= 1.3x" ;;
      table_*) what="SELECT * FROM tracedb_${n#table_}(...)"; target="target <= 1.05x" ;;
      *) what=$n; target="" ;;
    esac
    printf '  %-52s %5sx  %7s s / %7s s  CPU %5sx  (%s)\n' "$what" "$r" "$p" "$c" "$u" "$target"
  done
fi
row "tracedb report (HTML page)" report "$(($(stat -c %s "$dir/report.html") / 1000)) KB page (targets: < 2 s, < 5 MB)"
row "sqlite3 -csv of table event (baseline)" csv_sqlite3 ""
row "tracedb export csv --table event" csv_tracedb "$(echo "scale=2; $(cat $dir/csv_tracedb.s) / $(cat $dir/csv_sqlite3.s)" | bc)x sqlite3"
if [ -n "${mpi_n2:-}" ]; then
  echo "8 ranks (8 x $MB MB): tracedb import into one database $(printf '%.2f' "$mpi_one") s; tracedb-mpi import, a shard each:" \
       "1 process $(printf '%.2f' "$mpi_n1") s, mpirun -n 2 $(printf '%.2f' "$mpi_n2") s" \
       "($(printf '%.2f' "$(echo "$mpi_n1 / $mpi_n2" | bc -l)")x; $(printf '%.2f' "$(echo "$mpi_one / $mpi_n2" | bc -l)")x one database)"
  echo "  ops --by-rank: one database $(printf '%.3f' "$mpi_ops_one") s; mpirun -n 2 over the shards $(printf '%.3f' "$mpi_ops_n2") s"
fi
echo
echo "gzip input, inflated on a thread of its own or on the parser's (bench/read_ahead.sh, gzip -1 of the $MB MB trace):"
bash bench/read_ahead.sh build/tracedb "$trace" 3
echo "import: $(echo "$events / $imp" | bc) events/s; $(echo "$bytes / 1000000 / $imp" | bc) MB/s of JSON"
echo "database: $((dbbytes / 1000000)) MB = $(echo "scale=2; $dbbytes / $bytes" | bc) of the JSON"
echo "targets: import <= 1.5x tokenizer (never above 2x) and >= 10x pandas, >= 1M events/s, RSS < 64 MB; summary < 0.5 s; each report < 1 s;"
echo "         database <= 0.5 of the JSON"
echo
build/recorder_bench_shared "$dir" hot libtracedb.so
build/recorder_bench "$dir"

# closing a CUDA recording (bench/cupti_stage.c: 1 M launches as CUPTI hands them over, 3 M events):
# `tracedb finish` of its staging file converts it (a live recording does that while the program runs)
# and then closes it: nesting, launch links, sums, indexes, what a program's exit waits for
if [ -x build/cupti_stage ]; then
  rm -f "$dir/cuda.db" "$dir/cuda.db-stage"
  build/cupti_stage "$dir/cuda.db-stage" 1000000
  TRACEDB_TIMING=1 build/tracedb finish "$dir/cuda.db" 2> "$dir/cuda_close.txt" || cat "$dir/cuda_close.txt"
  awk '/^tracedb: [a-z +]+ +[0-9.]+ s$/ { t = $(NF - 1); sub(/^tracedb: /, ""); sub(/ +[0-9.]+ s$/, "");
         if ($0 == "insert") conv += t; else if ($0 != "open") { after += t; parts = parts sprintf(" %s %.2f", $0, t) } }
       END { printf "CUDA recording, 1 M launches (3 M events): converting %.2f s; closing after that %.2f s (%s )\n", conv, after, parts }' \
      "$dir/cuda_close.txt"
  rm -f "$dir/cuda.db" "$dir/cuda.db-stage"
fi
if [ "$same" != yes ]; then
  echo "bench: a trace's order changed the rows its import wrote (above)" >&2
  exit 1
fi

#!/bin/bash
# compare_close.sh: on a GPU machine, the full check (check.sh) of the bundle `make gpu-bundle` built,
# then closing a recording compared with another build's tracedb and injection library (OLD_DIR, e.g.
# the previous commit's build/tracedb and build/libtracedb_inject.so copied into .gpu/old) in the same
# run: a killed recording finished by both from copies of one staging file (row values and event_stats
# compared by checksum), and N launches (default 10 M) recorded by each, with TRACEDB_TIMING's phases;
# the new build's rows checked by SQL (parents enclose their children, self times, launch links).
#   bash tests/gpu/compare_close.sh BUNDLE OLD_DIR OUTDIR
set -u
B=$(cd "${1:-.gpu}" && pwd)
OLD=$(cd "${2:-.gpu/old}" && pwd)
O=$(mkdir -p "${3:-/tmp/gpu_out}" && cd "${3:-/tmp/gpu_out}" && pwd)
N=${SCALE_N:-10000000}
cd "$(dirname "$0")/../.."
t0=$(date +%s)
bash tests/gpu/check.sh "$B" "$O/check" > "$O/check.log" 2>&1
echo "check rc=$? in $(( $(date +%s) - t0 )) s" >> "$O/check.log"
tail -3 "$O/check.log"
export LD_LIBRARY_PATH="$B/lib"
if ldd "$B/bin/libtracedb_inject.so" | grep -q "libcupti.*not found"; then export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$B/cupti"; fi
W=$(mktemp -d)
cd "$W"
bin_of() { if [ "$1" = old ]; then echo "$OLD/tracedb"; else echo "$B/bin/tracedb"; fi; }
# one killed recording (new build), finished by each build from the same staging file
"$B/bin/tracedb" record -o k.db -- sh -c '"$0" --burst 5000000 & p=$!; sleep 3; kill -9 $p; wait $p; exit 0' "$B/bin/cuda_counts" > /dev/null 2>&1
ls -la k.db* > "$O/killed.txt"
for v in old bin; do
  mkdir -p $v && cp k.db* $v/
  ( cd $v && TRACEDB_TIMING=1 "$(bin_of $v)" finish k.db ) >> "$O/killed.txt" 2>&1
  echo "finish $v rc=$?" >> "$O/killed.txt"
  "$B/bin/tracedb" sql $v/k.db "SELECT count(*), count(parent_id), count(launch_id), total(self_ns), total(depth), total(parent_id), total(launch_id), total(launch_ns) FROM event" --format csv >> "$O/killed.txt" 2>&1
  "$B/bin/tracedb" sql $v/k.db "SELECT id, coalesce(parent_id, -1), depth, self_ns, coalesce(launch_id, -1), coalesce(launch_ns, -1) FROM event ORDER BY id" --format csv 2>&1 | md5sum >> "$O/killed.txt"
  "$B/bin/tracedb" sql $v/k.db "SELECT * FROM event_stats ORDER BY 1, 2, 3, 4" --format csv 2>&1 | md5sum >> "$O/killed.txt"
done
echo "killed done at $(( $(date +%s) - t0 )) s" >> "$O/killed.txt"
rm -rf old bin k.db*
# N launches, each build, one run each, the new first
for v in bin old; do
  /usr/bin/time -f "wall %e s, peak RSS %M kB" env TRACEDB_TIMING=1 "$(bin_of $v)" record -o s_$v.db -- "$B/bin/cuda_counts" --burst "$N" > out_$v.txt 2> "$O/scale_$v.err"
  echo "rc=$? at $(( $(date +%s) - t0 )) s" >> "$O/scale_$v.err"
  cat out_$v.txt >> "$O/scale_$v.err"
  "$B/bin/tracedb" sql s_$v.db "SELECT kind, count(*), count(parent_id), count(launch_id), max(depth) FROM event GROUP BY kind" --format csv >> "$O/scale_$v.err" 2>&1
  if [ $v = bin ]; then # the new build's rows against their own nesting, by SQL
    "$B/bin/tracedb" sql s_$v.db "SELECT count(*) AS bad_parents FROM event e JOIN event p ON p.id = e.parent_id WHERE p.thread_id != e.thread_id OR e.start_ns < p.start_ns OR e.start_ns + e.dur_ns > p.start_ns + p.dur_ns OR e.depth != p.depth + 1" --format csv >> "$O/scale_$v.err" 2>&1
    "$B/bin/tracedb" sql s_$v.db "SELECT count(*) AS bad_self FROM event p LEFT JOIN (SELECT parent_id, sum(dur_ns) AS s FROM event WHERE parent_id IS NOT NULL GROUP BY parent_id) c ON c.parent_id = p.id WHERE p.self_ns != p.dur_ns - coalesce(c.s, 0)" --format csv >> "$O/scale_$v.err" 2>&1
    "$B/bin/tracedb" sql s_$v.db "SELECT count(*) AS bad_links FROM event k JOIN event a ON a.id = k.launch_id WHERE a.correlation != k.correlation OR k.launch_ns != a.start_ns" --format csv >> "$O/scale_$v.err" 2>&1
    echo "checked at $(( $(date +%s) - t0 )) s" >> "$O/scale_$v.err"
  fi
  rm -f s_$v.db*
done
echo "all done at $(( $(date +%s) - t0 )) s"

#!/bin/bash
# read_ahead.sh TRACEDB TRACE [ROUNDS]: imports TRACE (plain JSON) and a gzip copy of it with the input
# read ahead on its own thread (TRACEDB_READ_AHEAD=on) and on the parser's thread (=off), in turn, ROUNDS
# rounds (default 5); prints each way's best and median wall time and their ratios. The gzip copy
# (gzip -1) is made next to the trace once.
set -eu
T=$1; F=$2; N=${3:-5}
G=$F.gz
[ -s "$G" ] || gzip -1 -c "$F" > "$G"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for i in $(seq "$N"); do
  for input in plain gz; do
    for mode in off on; do
      src=$F; [ $input = gz ] && src=$G
      rm -f "$W/run.db"
      s=$(date +%s.%N)
      TRACEDB_READ_AHEAD=$mode "$T" import -q "$src" -o "$W/run.db"
      e=$(date +%s.%N)
      echo "$input $mode $(awk -v s="$s" -v e="$e" 'BEGIN {print e - s}')" >> "$W/times"
    done
  done
done
stat() { grep "^$1 $2 " "$W/times" | awk '{print $3}' | sort -n | awk '{v[NR]=$1} END {printf "%.3f %.3f", v[1], v[int((NR+1)/2)]}'; }
for input in plain gz; do
  read -r off_best off_med <<< "$(stat $input off)"
  read -r on_best on_med <<< "$(stat $input on)"
  printf '  %-5s read on the parser'"'"'s thread: best %s s, median %s s; read ahead: best %s s, median %s s (%.2fx, %.2fx)\n' \
    "$input" "$off_best" "$off_med" "$on_best" "$on_med" "$(awk "BEGIN {print $off_best / $on_best}")" "$(awk "BEGIN {print $off_med / $on_med}")"
done
echo "  ($(nproc) CPUs; $N rounds in turn; ratios above 1: reading ahead is faster)"

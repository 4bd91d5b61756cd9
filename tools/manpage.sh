#!/bin/sh
# tools/manpage.sh TRACEDB > tracedb.1: the man page tracedb(1), written from `tracedb help` and each
# command's --help output: the same option tables the command parses with, so the two never disagree.
set -eu
t=$1
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'; }
ver=$("$t" --version | awk '{print $2}')
cat <<EOF
.TH TRACEDB 1 "" "tracedb $ver" "User Commands"
.SH NAME
tracedb \\- trace analysis for machine-learning workloads, in C over SQLite
.SH SYNOPSIS
.B tracedb
.I COMMAND
.RI [ ARGS ]
.br
.B tracedb help
.I COMMAND
.SH DESCRIPTION
tracedb turns profiler traces (PyTorch/Kineto Chrome trace JSON, RAF, Furiosa; plain or gzip) and its own
recordings into one SQLite database, and answers from it: per operator with PyTorch's key_averages()
semantics, per kernel and API call as nsys stats, per step, device time, memory, and the difference of
two runs with a regression gate. Every report takes \\fB\\-\\-format table|csv|json\\fR.
.SH COMMANDS
EOF
# tracedb help: a heading line per group of commands ("reports (...):"), then "    NAME  what it does"
"$t" help | tail -n +2 | while IFS= read -r line; do
  case "$line" in
  "") ;;
  "    "*)
    name=$(echo "$line" | awk '{print $1}')
    rest=$(echo "$line" | sed 's/^ *[^ ]* *//')
    echo ".SS $name"
    echo "$rest" | esc
    echo ".PP"
    echo ".nf"
    "$t" "$name" --help | esc
    echo ".fi"
    ;;
  *)
    echo ".PP"
    echo "$line" | sed 's/:$//' | esc | sed 's/^/.B /'
    ;;
  esac
done
cat <<'EOF'
.SH SQL
A database is plain SQLite. \fBtracedb sql\fR adds median(x), percentile(x, p), stddev(x),
interval_union(start, end) and every report as a table function, tracedb_REPORT('options'):
tracedb_ops, tracedb_kernels, tracedb_api, tracedb_memops, tracedb_latency, tracedb_device,
tracedb_memory, tracedb_ranks, tracedb_overlap, tracedb_idle, tracedb_launches, tracedb_queue,
tracedb_critical_path. Their rows and columns are those of \fBtracedb REPORT DB \-\-format csv\fR; the
argument is the command's options as one text. Options that change the columns go through
CREATE VIRTUAL TABLE temp.t USING tracedb_REPORT('options'). libtracedb.so is a SQLite extension:
\fB.load libtracedb\fR in the sqlite3 shell gives the same. Three examples:
.PP
.nf
# filter: the NCCL kernels' total time
tracedb sql run.db "SELECT name, total_ns FROM tracedb_kernels() WHERE name LIKE 'nccl%'"
# join: each kernel name's report row beside its median from the events
tracedb sql run.db "SELECT k.name, k.total_ns, median(r.dur_ns) FROM tracedb_kernels() k
    JOIN kernels r ON r.name = k.name GROUP BY k.name ORDER BY k.total_ns DESC LIMIT 5"
# group: GPU time per kernel type
tracedb sql run.db "SELECT kernel_type(name) AS type, sum(total_ns) FROM tracedb_kernels()
    GROUP BY type ORDER BY 2 DESC"
.fi
.SH PYTHON
\fBmake install\fR also installs the Python package: \fBimport tracedb\fR; t = tracedb.load("trace.json.gz")
(a database, a trace or a directory of traces); every report a pandas DataFrame with the command's options
as keywords: t.ops(group_by="shape", limit=20), t.kernels(), t.api(), t.memops(), t.latency(), t.device(),
t.memory(), t.ranks(), t.overlap(), t.idle(), t.launches(), t.queue(), t.critical_path(), t.summary();
t.sql(query); t.report("report.html"); tracedb.diff(base, new, fail_above=5);
tracedb.torch.trace_handler("run.db") for torch.profiler's on_trace_ready; with tracedb.profile("run.db")
as p: with p.record("label"): ... (docs/python.md).
EOF
cat <<EOF
.SH EXIT STATUS
0 on success; 1 on an error or damaged input (every whole event is kept); 2 on a usage error;
3 when \\fBtracedb diff \\-\\-fail\\-above\\fR finds a regression.
.SH SEE ALSO
The README and docs/ (commands, recording, database, sql, python, performance), and the database's schema: schema/schema.sql and schema/views.sql in the source.
EOF

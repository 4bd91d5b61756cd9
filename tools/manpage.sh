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
"$t" help | sed -n '/^commands:/,$p' | tail -n +2 | while read -r name rest; do
  echo ".SS $name"
  echo "$rest" | esc
  echo ".PP"
  echo ".nf"
  "$t" "$name" --help | esc
  echo ".fi"
done
cat <<EOF
.SH EXIT STATUS
0 on success; 1 on an error or damaged input (every whole event is kept); 2 on a usage error;
3 when \\fBtracedb diff \\-\\-fail\\-above\\fR finds a regression.
.SH SEE ALSO
The README and docs/ (commands, recording, database, sql, performance), and the database's schema: schema/schema.sql and schema/views.sql in the source.
EOF

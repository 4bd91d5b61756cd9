#!/bin/sh
# tools/manpage.sh TRACEDB > tracedb.1: the man page tracedb(1): its commands from `tracedb help` and each
# command's --help output (the same option tables the command parses with, so the two never disagree),
# the rest from docs/tracedb.1.md (markdown: its first section before the commands, the others after).
set -eu
t=$1
doc=$(dirname "$0")/../docs/tracedb.1.md
esc() { sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" -e 's/-/\\-/g'; }
# docs/tracedb.1.md's sections (first: the first; rest: the others) in roff: "## Name" a heading,
# paragraphs, ``` blocks as they are, "- `TERM`: text" a tagged paragraph (its next lines indented),
# `code` and **bold** in bold
sections() {
  awk -v part="$1" '
  function escape(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
  function bold(s, mark,    n, at) {
    n = length(mark)
    while ((at = index(s, mark)) > 0 && index(substr(s, at + n), mark) > 0) {
      rest = substr(s, at + n)
      s = substr(s, 1, at - 1) "\\fB" substr(rest, 1, index(rest, mark) - 1) "\\fR" substr(rest, index(rest, mark) + n)
    }
    return s
  }
  function inline(s) { return bold(bold(escape(s), "`"), "**") }
  function out(s) { if (s ~ /^[.\047]/) s = "\\&" s; print s }
  /^## / { sec++; if ((part == "first") == (sec == 1)) print ".SH " toupper(substr($0, 4)); para = 0; next }
  sec == 0 || (part == "first") != (sec == 1) { next }
  /^```/ { code = !code; print (code ? ".PP\n.RS 4\n.nf" : ".fi\n.RE"); para = 1; next }
  code { out(escape($0)); next }
  /^$/ { para = 1; next }
  /^- / {
    s = substr($0, 3)
    if ((at = index(s, ": ")) > 0) { print ".TP"; out(inline(substr(s, 1, at - 1))); s = substr(s, at + 2) }
    else print ".IP \\(bu 2"
    out(inline(s)); para = 0; next
  }
  { if (para) print ".PP"; para = 0; sub(/^ +/, ""); out(inline($0)) }
  ' "$doc"
}
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
EOF
sections first
cat <<EOF
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
sections rest

#!/bin/sh
# tools/schemapage.sh [--markdown] TRACEDB SQL... > tracedb-schema.7: the page tracedb-schema(7), every
# table, view and column of a database TRACEDB has just made (in the order it made them), each described
# by the comments of the schema files SQL... (schema/*.sql; their conventions are in schema.sql and
# views.sql); with --markdown the same as docs/schema.md. A column with no description is an error naming
# it: the page leaves none out.
set -eu
md=0
if [ "$1" = --markdown ]; then
  md=1
  shift
fi
t=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{"traceEvents":[{"ph":"X","name":"a","cat":"cpu_op","ts":1,"dur":1,"pid":1,"tid":1}]}\n' |
  "$t" import - -o "$tmp/new.db" --quiet
# one line a column: type|object|column|declared type|primary key|references
"$t" sql "$tmp/new.db" "SELECT l.type || '|' || l.name || '|' || i.name || '|' || i.type || '|' || i.pk || '|' ||
    coalesce((SELECT f.\"table\" || '.' || coalesce(f.\"to\", 'rowid') FROM pragma_foreign_key_list(l.name) f
              WHERE f.\"from\" = i.name), '') AS c
  FROM sqlite_schema l, pragma_table_info(l.name) i
  WHERE l.type IN ('table', 'view') AND l.name NOT LIKE 'sqlite_%'
  ORDER BY l.type, l.rowid, i.cid" --format csv | tr -d '\r' | tail -n +2 > "$tmp/columns"
ver=$("$t" --version | awk '{print $2}')

if [ $md = 1 ]; then
  cat <<'EOF'
# The tracedb schema

A tracedb database (made by `tracedb import`, `record` or `merge`) is a plain SQLite file: read it with
`tracedb sql`, `sqlite3` or any SQLite library. The views give each kind of event its plain name and are
what ad-hoc SQL reads; the tables hold the rows. Each column is listed with its declared type, its key,
and what it holds, in its unit. This page is made from the comments in `schema/*.sql`
(`sh tools/schemapage.sh --markdown build/tracedb schema/*.sql`), as `man tracedb-schema` is, and a test
checks that it is current.
EOF
else
cat <<EOF
.TH TRACEDB-SCHEMA 7 "" "tracedb $ver" "tracedb"
.SH NAME
tracedb-schema \\- the tables, views and columns of a tracedb database
.SH DESCRIPTION
A tracedb database (made by \\fBtracedb import\\fR, \\fBrecord\\fR or \\fBmerge\\fR) is a plain SQLite
file: read it with \\fBtracedb sql\\fR, \\fBsqlite3\\fR(1) or any SQLite library. The views give each
kind of event its plain name and are what ad-hoc SQL reads; the tables hold the rows. Each column
below is listed with its declared type, its key, and what it holds, in its unit.
EOF
fi
awk -v columns="$tmp/columns" -v md=$md '
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function add(map, key, text,    had) { had = key in map; map[key] = had ? map[key] " " text : text }
function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
function line(s) { if (s ~ /^[.\047]/) s = "\\&" s; print s }
function cell(s) { gsub(/\|/, "\\|", s); return s }
# the comment block above a CREATE: its description, and for a view its own columns ("  col: text")
function take_block(obj, view,    i, s, col) {
    col = ""
    for (i = 1; i <= nblock; i++) {
        s = block[i]
        if ((view || obj == "") && match(s, /^  [a-z_]+: /)) {
            col = substr(s, 3, RLENGTH - 4)
            if (obj == "") add(common, col, substr(s, RLENGTH + 1))
            else add(own, obj "." col, substr(s, RLENGTH + 1))
        } else if (col != "" && s ~ /^    /) {
            if (obj == "") add(common, col, trim(s))
            else add(own, obj "." col, trim(s))
        } else if (obj != "")
            add(about, obj, trim(s))
    }
    nblock = 0
}
FILENAME != columns && /^--/ {
    s = $0; sub(/^-- ?/, "", s)
    block[++nblock] = s
    next
}
FILENAME != columns && /^CREATE (TABLE|VIEW) / {
    name = $3
    if (name == "IF") name = $6
    sub(/\($/, "", name)
    take_block(name, $2 == "VIEW")
    table = $2 == "TABLE" ? name : ""
    last = ""
    next
}
FILENAME != columns && table != "" {
    if ($0 ~ /^\)/) { table = ""; next }
    def = $0; com = ""
    if ((k = index(def, "--")) > 0) { com = trim(substr(def, k + 2)); def = substr(def, 1, k - 1) }
    if (trim(def) == "") {
        if (com != "" && last != "") { n = split(last, cs, " "); for (j = 1; j <= n; j++) add(own, table "." cs[j], com) }
        next
    }
    gsub(/\([^)]*\)/, "", def)
    n = split(def, parts, ",")
    last = ""
    for (j = 1; j <= n; j++) {
        p = trim(parts[j])
        if (p == "" || p ~ /^(PRIMARY|UNIQUE|FOREIGN|CHECK|CONSTRAINT) /) continue
        split(p, w, " ")
        last = last (last == "" ? "" : " ") w[1]
        if (com != "") add(own, table "." w[1], com)
    }
    next
}
FILENAME != columns {
    if (nblock && $0 !~ /^CREATE/) take_block("", 0)
    nblock = 0
    next
}
# the columns of the new database, tables first, each in the order the database made them
{
    split($0, f, "|")
    type = f[1]; obj = f[2]; col = f[3]
    if (obj != cur) {
        if (!(obj in about)) { print "schemapage: " obj " has no description (the comment above its CREATE)" > "/dev/stderr"; bad = 1 }
        if (type != cur_type) print md ? "\n## " (type == "table" ? "Tables" : "Views") : ".SH " (type == "table" ? "TABLES" : "VIEWS")
        cur = obj; cur_type = type
        if (md) printf "\n### `%s`\n\n%s\n\n| column | type, key | meaning |\n|---|---|---|\n", obj, about[obj]
        else {
            print ".SS " obj
            line(esc(about[obj]))
        }
        if (type == "table") tables[++ntables] = obj
    }
    text = own[obj "." col]
    if (text == "" && type == "view") {
        text = common[col]
        # a column a view takes from a table: the event table'"'"'s, else the first table'"'"'s that has it
        for (k = 0; text == "" && k <= ntables; k++) text = own[(k ? tables[k] : "event") "." col]
    }
    if (text == "") { print "schemapage: " obj "." col " has no description (a comment on its line)" > "/dev/stderr"; bad = 1 }
    key = f[5] > 0 ? "primary key" : ""
    if (f[6] != "") key = key (key == "" ? "" : ", ") "references " f[6]
    if (md) {
        printf "| `%s` | %s | %s |\n", col, cell((f[4] != "" ? f[4] : "") (key != "" ? (f[4] != "" ? ", " : "") key : "")), cell(text)
        next
    }
    print ".TP"
    print ".B " esc(col)
    line(esc((f[4] != "" ? f[4] : "") (key != "" ? (f[4] != "" ? ", " : "") key : "") (f[4] != "" || key != "" ? ": " : "") text))
}
END { exit bad }
' "$@" "$tmp/columns"

[ $md = 1 ] || cat <<'EOF'
.SH SEE ALSO
\fBtracedb\fR(1), \fBsqlite3\fR(1)
EOF

#!/usr/bin/python3
"""sql_reports_check.py: each report's table function, tracedb_<report>(), through the sqlite3 shell after
`.load LIB` (csv mode, headers) gives the rows, column names and order of `tracedb REPORT DB --format csv`,
with no options and with two option sets per report (options that change the columns through CREATE
VIRTUAL TABLE temp.t USING tracedb_<report>('...'), and the function form refused, naming it); a report
that fails fails the query with the command's message. Usage: sql_reports_check.py TRACEDB LIB DB..."""
import csv
import io
import sqlite3
import subprocess
import sys

tracedb, lib, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
OPTIONS = {  # two option sets a report
    "ops": ["--group-by shape", "--by-rank --limit 5"],
    "kernels": ["--kinds kernel,memcpy,memset --sort instances", "--by-type"],
    "api": ["--limit 3", "--by-rank"],
    "memops": ["--bandwidth", "--limit 2"],
    "latency": ["--each", "--name aten::mm"],
    "device": ["--by-rank", "--range 'ProfilerStep*'"],
    "memory": ["--by-op --limit 10", "--timeline"],
    "ranks": ["--limit 2", "--by-rank"],
    "overlap": ["--drop-last-step", "--hta-rounding"],
    "idle": ["--drop-last-step", "--negative-gaps"],
    "launches": ["--each", "--drop-last-step"],
    "queue": ["--timeline", "--drop-last-step"],
    "critical-path": ["--each", "--range 'ProfilerStep*'"],
}
failures, compared = [], {"rows": 0, "queries": 0, "refused": 0, "failed alike": 0}


def rows_of(text):
    return [r for r in csv.reader(io.StringIO(text)) if r]


def same_cell(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return abs(x - y) <= 1e-12 * max(1.0, abs(x), abs(y))


def shell(db, sql):
    return subprocess.run(["sqlite3", "-bail", "-csv", "-header", db, ".load " + lib, sql], capture_output=True, text=True)


def columns_in_python(db, sql):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.enable_load_extension(True)
    con.load_extension(lib)
    con.enable_load_extension(False)
    try:
        cur = con.execute(sql.split(";")[-1] if "CREATE" not in sql else "SELECT 1")
        return [d[0] for d in cur.description]
    finally:
        con.close()


for db in dbs:
    for report, sets in OPTIONS.items():
        fn = "tracedb_" + report.replace("-", "_")
        default_cols = None
        for opts in [""] + sets:
            where = "%s %s [%s]" % (db, report, opts)
            cmd = subprocess.run("'%s' %s '%s' %s --format csv" % (tracedb, report, db, opts), shell=True,
                                 capture_output=True, text=True)
            want = rows_of(cmd.stdout)
            if opts == "":
                default_cols = want[0] if want else None
            quoted = opts.replace("'", "''")
            if cmd.returncode == 0 and opts and want and want[0] != default_cols:  # other columns: CREATE
                refused = shell(db, "SELECT * FROM %s('%s')" % (fn, quoted))
                if refused.returncode == 0 or "CREATE VIRTUAL TABLE temp.t USING %s" % fn not in refused.stderr:
                    failures.append("%s: the function form was not refused: %s" % (where, refused.stderr))
                compared["refused"] += 1
                sql = "CREATE VIRTUAL TABLE temp.t USING %s('%s'); SELECT * FROM t" % (fn, quoted)
            else:
                sql = "SELECT * FROM %s(%s)" % (fn, "'%s'" % quoted if opts else "")
            got = shell(db, sql)
            if cmd.returncode != 0:
                first = (cmd.stderr.strip().splitlines() or [""])[0].split(": ", 1)[-1]
                if got.returncode == 0 or first not in got.stderr:
                    failures.append("%s: the command failed (%s), the query said %r" % (where, first, got.stderr))
                compared["failed alike"] += 1
                continue
            if got.returncode != 0:
                failures.append("%s: %s: %s" % (where, sql, got.stderr.strip()))
                continue
            compared["queries"] += 1
            have = rows_of(got.stdout)
            if not have:  # no rows: the shell prints no header; Python's cursor names the columns
                if "CREATE" not in sql and columns_in_python(db, sql) != want[0]:
                    failures.append("%s: columns %s != %s" % (where, columns_in_python(db, sql), want[0]))
                have = [want[0]]
            if have[0] != want[0]:
                failures.append("%s: header %s != %s" % (where, have[0], want[0]))
            if len(have) != len(want):
                failures.append("%s: %d rows, the command %d" % (where, len(have) - 1, len(want) - 1))
                continue
            for i, (h, w) in enumerate(zip(have[1:], want[1:])):
                if len(h) != len(w) or not all(same_cell(a, b) for a, b in zip(h, w)):
                    failures.append("%s: row %d: %s != %s" % (where, i, h, w))
                    break
                compared["rows"] += 1
for f in failures[:40]:
    print(f, file=sys.stderr)
print("sql_reports_check: %d databases, %s, %d failures" % (len(dbs), compared, len(failures)))
sys.exit(1 if failures else 0)

#!/usr/bin/python3
"""sql_reports_kept_check.py: a report table function keeps its rows for the next query only while the
database file holds what it held: after the file changes (a commit in place, in rollback and in WAL mode,
and the file replaced under its name), the same query on the same connection gives the new file's rows,
counted independently with plain SQL over the kernels view. Usage: sql_reports_kept_check.py TRACEDB LIB DB
MORE_TRACE (DB is changed)."""
import sqlite3
import subprocess
import sys

tracedb, lib, db, more = sys.argv[1:5]
failures = []


def counted():
    """The kernels' instances and total time, by plain SQL on a connection of its own."""
    with sqlite3.connect(db) as plain:
        return tuple(plain.execute("SELECT count(*), sum(dur_ns) FROM kernels").fetchone())


con = sqlite3.connect(db)
con.enable_load_extension(True)
con.load_extension(lib)
con.enable_load_extension(False)
QUERY = "SELECT sum(instances), sum(total_ns) FROM tracedb_kernels('--kinds kernel')"


def check(when):
    got, want = tuple(con.execute(QUERY).fetchone()), counted()
    if got != want:
        failures.append(f"{when}: tracedb_kernels() says {got}, the kernels view {want}")
    return want


first = check("at first")
check("asked again, nothing changed")
# a commit in place (rollback journal): another trace's events appended
subprocess.run([tracedb, "import", "-q", more, "-o", db, "--append"], check=True)
if check("after an append in rollback mode") == first:
    failures.append("the append changed no count: the check proves nothing")
# WAL mode: a commit that stays in the -wal file while this connection holds it open
with sqlite3.connect(db) as w:
    w.execute("PRAGMA journal_mode=WAL")
con.execute("SELECT count(*) FROM meta").fetchone()  # this connection now reads the WAL database too
before = check("in WAL mode")
w = sqlite3.connect(db)
w.execute("PRAGMA wal_autocheckpoint=0")
w.execute("DELETE FROM event WHERE id IN (SELECT id FROM kernels ORDER BY id LIMIT 7)")
w.commit()
if check("after a commit into the WAL") == before:
    failures.append("the delete changed no count: the check proves nothing")
w.close()
# the file replaced under its name (a new inode): the first trace alone again
con.execute("SELECT 1").fetchone()
subprocess.run([tracedb, "import", "-q", more, "-o", db, "--force"], check=True)
check("after the file was replaced")
print(f"{len(failures)} failures")
for f in failures:
    print(" ", f)
sys.exit(1 if failures else 0)

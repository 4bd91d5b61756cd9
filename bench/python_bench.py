#!/usr/bin/python3
"""python_bench.py: the Python package beside the command, in turn (3 rounds; these machines change speed
from one minute to the next, so each round's ratio is taken within the same seconds, and the median
printed): tracedb.load of a trace (db=) against `tracedb import`; t.ops() and t.ops(from_=0) on a database
against `tracedb ops --format csv` (with --from 0). The Python side is timed inside the interpreter, from
the call to the DataFrame (a fresh Trace each round: its connection and the extension's load included);
the command's as a program, start to exit. And the reports as SQL table functions (CREATE VIRTUAL
TABLE temp.t USING tracedb_critical_path('--drop-last-step'); SELECT * FROM t ..., through Python's sqlite3 on a fresh connection with the
extension loaded) beside their commands. Usage: python_bench.py TRACEDB TRACE DB SCRATCH_DIR
Prints one line per measure: NAME median_ratio best_python_s best_command_s median_cpu_ratio (CPU time,
user and system: the Python side's own, the command's as a child; steadier than wall time on a shared
machine)."""
import os
import resource
import subprocess
import sys
import time

tracedb_cmd, trace, db, scratch = sys.argv[1:5]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import tracedb  # noqa: E402
import tracedb.frames  # noqa: E402

tracedb.frames.pandas()  # imported before the clock starts: pandas' own start is not the report's


def cpu(who):
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime


def command(*args):
    t0 = time.perf_counter()
    subprocess.run([tracedb_cmd, *args], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def in_turn(name, py, cmd, prep=lambda: None):
    ratios, cpu_ratios, best_py, best_cmd = [], [], None, None
    for _ in range(3):
        prep()
        c0 = cpu(resource.RUSAGE_CHILDREN)
        c = cmd()
        cc = cpu(resource.RUSAGE_CHILDREN) - c0
        prep()
        p0 = cpu(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        py()
        p = time.perf_counter() - t0
        pc = cpu(resource.RUSAGE_SELF) - p0
        ratios.append(p / c)
        cpu_ratios.append(pc / cc if cc > 0 else float("nan"))
        best_py = p if best_py is None else min(best_py, p)
        best_cmd = c if best_cmd is None else min(best_cmd, c)
    print(f"{name} {sorted(ratios)[1]:.2f} {best_py:.3f} {best_cmd:.3f} {sorted(cpu_ratios)[1]:.2f}", flush=True)


out = os.path.join(scratch, "python-load.db")


def fresh():
    for suffix in ("", "-journal"):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)


in_turn("load", lambda: tracedb.load(trace, db=out), lambda: command("import", "-q", trace, "-o", out), fresh)
in_turn("ops", lambda: tracedb.Trace(db).ops(), lambda: command("ops", db, "--format", "csv"))
in_turn("ops_from0", lambda: tracedb.Trace(db).ops(from_=0), lambda: command("ops", db, "--from", "0", "--format", "csv"))


def table(function, options):
    import sqlite3
    con = sqlite3.connect(db)
    con.enable_load_extension(True)
    con.load_extension(tracedb._native.extension_path())
    con.execute(f"CREATE VIRTUAL TABLE temp.t USING {function}('{options}')")  # its columns, any options
    con.execute("SELECT * FROM temp.t").fetchall()
    con.close()


for name, report, options in (("critical_path", "critical-path", "--drop-last-step"),
                              ("ops_from0", "ops", "--from 0"),
                              ("kernels_patterns", "kernels", "--patterns aten:: --min-kernels 1"),
                              ("launches", "launches", "--drop-last-step")):
    fn = "tracedb_" + report.replace("-", "_")
    in_turn("table_" + name, lambda: table(fn, options),
            lambda: command(report, db, *options.split(), "--format", "csv"))

#!/usr/bin/python3
"""sql_extension_check.py: README's SQL examples that use tracedb's functions (median, percentile,
interval_union) run unchanged through the sqlite3 shell after `.load LIB` and through Python's sqlite3
after load_extension(LIB); each figure is checked against pandas/numpy over the same rows read with
plain SQL. Usage: sql_extension_check.py README LIB DB... (exit 0 when every check holds)."""
import io
import re
import sqlite3
import subprocess
import sys

import numpy as np
import pandas as pd

readme_path, lib, dbs = sys.argv[1], sys.argv[2], sys.argv[3:]
readme = open(readme_path, encoding="utf-8").read()
uses = re.compile(r"\b(median|percentile|interval_union)\(")
examples = [q for q in re.findall(r'tracedb sql run\.db "([^"]+)"', readme) if uses.search(q)]
# whole one-line statements over the tables (the report functions' examples: tests/sql_reports_check.py)
examples += [l.strip() for l in readme.splitlines()
             if l.startswith("SELECT") and uses.search(l) and " FROM " in l and "tracedb_" not in l]
examples = list(dict.fromkeys(examples))  # each once, in the README's order
assert len(examples) >= 3, examples
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def close(a, b):
    return a is not None and b is not None and abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))


def union_length(rows):
    """Covered length of [start, end) intervals, overlaps once: sorted and merged here."""
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(rows):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + (cur_e - cur_s if cur_e is not None else 0)


def shell_rows(db, sql):
    p = subprocess.run(["sqlite3", "-bail", "-csv", "-header", db, ".load " + lib, sql],
                       capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("sqlite3 shell on %s: %s: %s" % (db, sql, p.stderr.strip()))
        return None
    if not p.stdout:  # no rows: the shell prints no header either
        return pd.DataFrame()
    return pd.read_csv(io.StringIO(p.stdout), keep_default_na=False, na_values=[""])


def python_rows(db, sql):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    con.enable_load_extension(True)
    con.load_extension(lib)
    con.enable_load_extension(False)
    df = pd.read_sql(sql, con)
    con.close()
    return df


checked = {q: 0 for q in examples}
for db in dbs:
    plain = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    kernels = pd.read_sql("SELECT name, dur_ns, device, start_ns, end_ns FROM kernels", plain)
    steps = pd.read_sql("SELECT dur_ns FROM steps", plain)
    plain.close()
    for q in examples:
        for how, got in (("shell", shell_rows(db, q)), ("python", python_rows(db, q))):
            if got is None:
                continue
            where = "%s, %s: %s" % (how, db, q)
            cols = [c.lower() for c in got.columns]
            if "from kernels group by name" in q.lower():  # name, count(*), median(dur_ns), top 5 medians
                g = kernels.groupby("name").dur_ns
                want = sorted(g.median().tolist(), reverse=True)[:5]
                check(len(got) == min(5, g.ngroups), "%s: %d rows" % (where, len(got)))
                for i, row in enumerate(got.itertuples(index=False)):
                    name, n, med = row[0], row[1], row[2]
                    check(n == g.count()[name], "%s: count of %s %s != %s" % (where, name, n, g.count()[name]))
                    check(close(med, g.median()[name]), "%s: median of %s %s != %s" % (where, name, med, g.median()[name]))
                    check(close(med, want[i]), "%s: row %d median %s, the %dth largest is %s" % (where, i, med, i + 1, want[i]))
                    checked[q] += 1
            elif "interval_union" in q:  # device, busy_ns
                for row in got.itertuples(index=False):
                    part = kernels[kernels.device == row[0]]
                    want = union_length(list(zip(part.start_ns, part.end_ns)))
                    check(close(row[1], want), "%s: device %s busy %s != %s" % (where, row[0], row[1], want))
                    checked[q] += 1
                check(len(got) == kernels.device.nunique(), "%s: %d devices" % (where, len(got)))
            elif "from steps" in q.lower():  # count(*), median(dur_ns), percentile(dur_ns, 99)
                check(cols[0] == "count(*)" and len(got) == 1, "%s: %s" % (where, got))
                x = steps.dur_ns.to_numpy()
                row = got.iloc[0].tolist()
                check(row[0] == len(x), "%s: count %s != %d" % (where, row[0], len(x)))
                if len(x):
                    check(close(row[1], float(np.median(x))), "%s: median %s != %s" % (where, row[1], np.median(x)))
                    check(close(row[2], float(np.percentile(x, 99))), "%s: p99 %s != %s" % (where, row[2], np.percentile(x, 99)))
                    checked[q] += 1
                else:
                    check(pd.isna(row[1]) and pd.isna(row[2]), "%s: no steps, yet %s" % (where, row))
            else:
                failures.append("an example this check does not know: " + q)
for q, n in checked.items():
    check(n > 0, "no rows were checked for: " + q)
for f in failures:
    print(f, file=sys.stderr)
print("sql_extension_check: %d examples on %d databases, %d rows checked, %d failures"
      % (len(examples), len(dbs), sum(checked.values()), len(failures)))
sys.exit(1 if failures else 0)

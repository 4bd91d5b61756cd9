#!/usr/bin/python3
"""pandas_check.py DB DIR: reads what `tracedb export csv` wrote into DIR back with pandas and
compares it with the database read by pandas.read_sql (the standard library's sqlite3): every value
of the events view, and the kernels report against a pandas groupby of the kernels view.
Exits 1 with the first difference. Run by tests/unit/test_export.c."""
import sqlite3, sys
import pandas as pd

db, d = sys.argv[1], sys.argv[2]
con = sqlite3.connect(db)
want = pd.read_sql("SELECT * FROM events ORDER BY id", con)
got = pd.read_csv(d + "/events.csv", keep_default_na=False, na_values=[""])
assert list(got.columns) == list(want.columns), (list(got.columns), list(want.columns))
assert len(got) == len(want), (len(got), len(want))
for c in want.columns:
    a, b = got[c], want[c]
    if b.dtype == object:
        a = a.astype(object).where(a.notna(), None)
        b = b.where(b.notna(), None)
        # CSV has no NULL: an empty text and NULL both read back as missing
        bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if ("" if x is None else str(x)) != ("" if y is None else str(y))]
    else:
        bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if not (pd.isna(x) and pd.isna(y)) and x != y]
    assert not bad, (c, bad[:3])
k = pd.read_sql("SELECT name, dur_ns FROM kernels", con)
g = k.groupby("name").dur_ns.agg(["count", "sum", "median", "min", "max"])
rep = pd.read_csv(d + "/kernels.csv").set_index("name")
assert len(rep) == len(g), (len(rep), len(g))
for name, r in g.iterrows():
    x = rep.loc[name]
    assert (x.instances, x.total_ns, x.min_ns, x.max_ns) == (r["count"], r["sum"], r["min"], r["max"]), name
    assert abs(x.med_ns - r["median"]) <= 0.5, name
print("pandas reads %d events and %d kernel rows back unchanged" % (len(got), len(rep)))

#!/usr/bin/python3
"""pandas_expected.py: latency percentiles, kernel statistics (per name, and per name and launch
configuration) and runtime call statistics computed by pandas (the tool users would otherwise reach
for) straight from a real trace's JSON. Writes tests/data/pandas_expected.json
for tests/unit/test_reports.c. Run: /usr/bin/python3 tests/oracle/pandas_expected.py
"""
import gzip, json, os
from decimal import Decimal
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = "df_index_resolver_df_index_resolver.json.gz"


def main():
    with gzip.open(os.path.join(HERE, "..", "data", "kineto", TRACE), "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    def launch(e):
        a = e.get("args", {})
        if e.get("cat") != "kernel" or "grid" not in a:
            return None
        return "%s|%s|%s|%s" % (",".join(map(str, a["grid"])), ",".join(map(str, a["block"])),
                                a.get("registers per thread"), a.get("shared memory"))
    x = pd.DataFrame([{"name": e["name"], "cat": e.get("cat"), "dur": int(Decimal(str(e["dur"])) * 1000),
                       "launch": launch(e)}
                      for e in events if e.get("ph") == "X"])
    out = {"trace": TRACE, "latency": {}, "kernels": {}, "kernels_by_launch": {}, "api": {}}
    qs = [0.5, 0.9, 0.95, 0.97, 0.99, 0.999]
    for label, sel in [("aten::mm", x[(x.name == "aten::mm") & (x.cat == "cpu_op")]),
                       ("ProfilerStep*", x[x.name.str.startswith("ProfilerStep#")]),
                       ("aten::add*", x[x.name.str.startswith("aten::add") & x.cat.isin(["cpu_op", "user_annotation"])])]:
        d = sel.dur
        out["latency"][label] = {"count": int(d.count()), "min": int(d.min()), "max": int(d.max()),
                                 "mean": float(d.mean()),
                                 **{"p%g" % (q * 100): float(d.quantile(q)) for q in qs}}
    def stats_of(sel, by, key, into):
        k = sel.groupby(by).dur
        stats = pd.DataFrame({"instances": k.count(), "total": k.sum(), "median": k.median(), "std": k.std(),
                              "mean": k.mean(), "min": k.min(), "max": k.max()}).sort_values("total", ascending=False)
        for name, r in stats.head(10).iterrows():
            out[into][key(name)] = {c: (None if pd.isna(v) else float(v)) for c, v in r.items()}
    kernels = x[x.cat == "kernel"]
    stats_of(kernels, "name", lambda n: n, "kernels")
    # name|grid|block|registers|shared memory, as `tracedb kernels --group-by launch` prints them
    stats_of(kernels, ["name", "launch"], lambda n: "%s|%s" % n, "kernels_by_launch")
    stats_of(x[x.cat.isin(["cuda_runtime", "cuda_driver"])], "name", lambda n: n, "api")
    with open(os.path.join(HERE, "..", "data", "pandas_expected.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()

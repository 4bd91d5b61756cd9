#!/usr/bin/python3
"""by_step_expected.py: per ProfilerStep#N of a real Kineto trace, computed by Python from its JSON: the calls
of aten::mm (CPU operators starting inside the step) and the kernels whose launch (the runtime call with
the same correlation) starts inside the step, with their total device time. Writes
tests/data/by_step_expected.json for test_reports.c's --by-step test."""
import gzip, json, os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "df_index_resolver_df_index_resolver.json.gz"
with gzip.open(os.path.join(HERE, "..", "data", "kineto", NAME)) as f:
    ev = json.load(f, parse_float=Decimal)["traceEvents"]
ns = lambda us: int(Decimal(us) * 1000)
steps = [(e["name"], ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
         if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")]
def step_of(t):
    inside = [s for s in steps if s[1] <= t < s[2]]
    return max(inside, key=lambda s: s[1])[0] if inside else None
mm, kernels = {}, {}
launch = {e["args"]["correlation"]: ns(e["ts"]) for e in ev
          if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
for e in ev:
    if e.get("ph") != "X":
        continue
    if e.get("cat") == "cpu_op" and e.get("name") == "aten::mm":
        s = step_of(ns(e["ts"]))
        mm[s] = mm.get(s, 0) + 1
    if e.get("cat") == "kernel":
        t = launch.get(e["args"].get("correlation"), ns(e["ts"]))
        s = step_of(t)
        k = kernels.setdefault(s, [0, 0])
        k[0] += 1
        k[1] += ns(e["dur"])
out = {"steps": [s[0] for s in steps], "aten_mm_calls": {str(k): v for k, v in mm.items()},
       "kernels": {str(k): v for k, v in kernels.items()}}
with open(os.path.join(HERE, "..", "data", "by_step_expected.json"), "w") as f:
    json.dump(out, f, indent=1)
print(out)

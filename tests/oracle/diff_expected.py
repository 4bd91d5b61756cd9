#!/usr/bin/python3
"""diff_expected.py: per-kernel device time and calls in the two real runs trace_diff_control and
trace_diff_test, summed by Python from the JSON: {name: [control_ns, test_ns, control_calls, test_calls]}.
Writes tests/data/diff_expected.json for tests/unit/test_export.c."""
import collections, gzip, json, os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
out = collections.defaultdict(lambda: [0, 0, 0, 0])
for i, f in enumerate(["trace_diff_control_control.json.gz", "trace_diff_test_test.json.gz"]):
    with gzip.open(os.path.join(HERE, "..", "data", "kineto", f), "rt") as fh:
        for e in json.load(fh, parse_float=Decimal)["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") == "kernel":
                out[e["name"]][i] += int(Decimal(str(e["dur"])) * 1000)
                out[e["name"]][2 + i] += 1
with open(os.path.join(HERE, "..", "data", "diff_expected.json"), "w") as fh:
    json.dump(out, fh, indent=1, sort_keys=True)
print(sum(v[0] for v in out.values()), sum(v[1] for v in out.values()))

#!/usr/bin/python3
"""ops_merge_check.py: `tracedb ops` against PyTorch's own key_averages() on the same run
(tests/oracle/torch_merge.py wrote the trace from the profiler's raw events and the expected figures
after PyTorch's merge of an operator's only child of its own name): calls, self CPU and CPU total of every
row, by name (from the import's sums, and from the events with --from 0), by input shape and by step;
PyTorch's CPU memory and self CPU memory by name (cpu_memory_usage: every [memory] event of the run within
an event's [start, end], both ends included, whatever its thread);
then --group-by stack and --by-rank, whose calls per name equal the by-name rows, the summary's top
operators, diff's operators by name and shape, and memory --by-op (PyTorch's memory per name, and the bytes allocated and freed directly
inside each operator, walked here over the trace). Prints each mismatch and
"N failures". Usage: ops_merge_check.py TRACEDB DB EXPECTED.json [COPIES] (COPIES: the database holds
the run that many times, as traces of their own at the same times: every figure that many times).
"""
import csv
import gzip
import io
import json
import os
import subprocess
import sys

tracedb, db, expected_path = sys.argv[1:4]
copies = int(sys.argv[4]) if len(sys.argv) > 4 else 1
want = json.load(open(expected_path))
us = 1000
failures = []


def ops(*opts):
    out = subprocess.run([tracedb, "ops", db, "--format", "csv", "--limit", "100000", *opts], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def figures(row):
    return (int(row["calls"]), int(row["self_cpu_ns"]), int(row["cpu_total_ns"]))


def check(what, got, expected):
    for key in sorted(set(got) | set(expected)):
        if got.get(key) != expected.get(key):
            failures.append(f"{what} {key}: tracedb {got.get(key)}, PyTorch {expected.get(key)}")


by_name = {k: (copies * c, copies * round(s * us), copies * round(t * us)) for k, (c, s, t) in want["by_name"].items()}
merged = [k for k, (c, _, _) in want["by_name"].items() if k in want["raw_counts"] and want["raw_counts"][k] != c]
if len(merged) < 3:
    failures.append(f"the oracle's run merges too few names to test: {merged}")
memory = {k: tuple(copies * x for x in v) for k, v in want["memory"].items()}
for opts in ((), ("--from", "0")):
    rows = ops(*opts)
    check("by name" + " ".join(opts), {r["name"]: figures(r) for r in rows}, by_name)
    check("memory" + " ".join(opts), {r["name"]: (int(r["cpu_mem_bytes"]), int(r["self_cpu_mem_bytes"])) for r in rows},
          memory)
if sum(1 for v in memory.values() if v[0]) < 10:
    failures.append("the oracle's run allocates in too few operators to test memory")


def shapes(text):
    return text.replace(" ", "")


by_shape = {(k, shapes(s)): (copies * c, copies * round(st * us), copies * round(t * us))
            for k, s, c, st, t in want["by_shape"]}
check("by shape", {(r["name"], shapes(r["input_shapes"] or "[]")): figures(r) for r in ops("--group-by", "shape")},
      by_shape)


def step_name(name):
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


by_step = {}
for step, name, c, s, t in want["by_step"]:
    a = by_step.get((step, step_name(name)), (0, 0, 0))
    by_step[(step, step_name(name))] = (a[0] + copies * c, a[1] + copies * round(s * us), a[2] + copies * round(t * us))
check("by step", {(r["step"], r["name"]): figures(r) for r in ops("--by-step") if r["step"]}, by_step)

calls = {k: v[0] for k, v in by_name.items()}
for opts in (("--group-by", "stack"), ("--by-rank",)):
    got = {}
    for r in ops(*opts):
        got[r["name"]] = got.get(r["name"], 0) + int(r["calls"])
    check("calls " + " ".join(opts), got, calls)
# the summary's top operators and the HTML report's table are the same rows
summary = json.loads(subprocess.run([tracedb, "summary", db, "--format", "json", "--limit", "100"], check=True,
                                    capture_output=True, text=True).stdout)
check("summary", {r["name"]: figures(r) for r in summary["ops"]}, by_name)

# diff's operators (a database against itself): calls and self CPU time by name and by shape, PyTorch's
def diff(*opts):
    out = subprocess.run([tracedb, "diff", db, db, "--section", "ops", "--format", "csv", "--limit", "100000",
                          "--kinds", "op,range,runtime,driver", *opts], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


for r in diff():
    if r["base_calls"] != r["new_calls"] or r["base_total_ns"] != r["new_total_ns"]:
        failures.append(f"diff {r['name']}: a database against itself differs")
check("diff", {r["name"]: (int(r["base_calls"]), int(r["base_total_ns"])) for r in diff()},
      {k: v[:2] for k, v in by_name.items()})
check("diff --by-shape", {(r["name"], shapes(r["input_shapes"] or "[]")): (int(r["base_calls"]), int(r["base_total_ns"]))
                          for r in diff("--by-shape")}, {k: v[:2] for k, v in by_shape.items()})

# memory --by-op: PyTorch's memory per name as ops gives it, and where each [memory] event was allocated or
# freed: the innermost operator or range of its own thread whose [start, end) holds its time, walked here
# over the trace itself
out = subprocess.run([tracedb, "memory", db, "--by-op", "--format", "csv", "--limit", "100000"], check=True,
                     capture_output=True, text=True).stdout
rows = list(csv.DictReader(io.StringIO(out)))
got = {r["name"]: (int(r["cpu_mem_bytes"]), int(r["self_cpu_mem_bytes"])) for r in rows}
check("memory --by-op", {k: v for k, v in got.items() if v != (0, 0)}, {k: v for k, v in memory.items() if v != (0, 0)})
trace = json.load(gzip.open(os.path.join(os.path.dirname(expected_path), "torch_merge.json.gz")))["traceEvents"]
spans = [e for e in trace if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")]
site = {}
for e in trace:
    if e.get("name") != "[memory]" or e["args"].get("Device Type", 0) != 0:
        continue
    holders = [o for o in spans if (o["pid"], o["tid"]) == (e["pid"], e["tid"]) and o["ts"] <= e["ts"] < o["ts"] + o["dur"]]
    if not holders:
        continue
    owner = step_name(max(holders, key=lambda o: (o["ts"], -o["dur"]))["name"])
    b = e["args"]["Bytes"]
    a = site.get(owner, (0, 0))
    site[owner] = (a[0] + copies * max(b, 0), a[1] + copies * max(-b, 0))
if len(site) < 8:
    failures.append(f"the oracle's run allocates directly inside too few operators to test: {sorted(site)}")
check("memory --by-op allocated and freed", {r["name"]: (int(r["self_cpu_allocated_bytes"]), int(r["self_cpu_freed_bytes"]))
                                           for r in rows if r["self_cpu_allocated_bytes"] != "0" or r["self_cpu_freed_bytes"] != "0"},
      site)
for f in failures:
    print(f)
print(f"{len(by_name)} names, {len(by_shape)} shapes, {len(by_step)} step rows: {len(failures)} failures")

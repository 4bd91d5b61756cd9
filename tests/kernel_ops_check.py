#!/usr/bin/python3
"""kernel_ops_check.py: the docs' "operators that launched the most GPU time" query (docs/database.md,
run as written but for its LIMIT) against the GPU time per operator worked out from the trace's JSON
alone: each kernel's launch call found by its correlation id, and the innermost operator (cpu_op) of the
launch call's thread whose time holds the call (latest start; the shorter on a tie). Kernels with no
launch call, and launches under no operator, are their own rows. Every kernel's time is in the query's
rows, and each operator's time is the JSON's. Usage: kernel_ops_check.py DB TRACE.json.gz DOCS.md"""
import bisect
import gzip
import json
import re
import sqlite3
import sys

db, trace, docs = sys.argv[1:4]
text = open(docs).read()
query = re.search(r"-- operators that launched the most GPU time.*?\n(SELECT.*?;)", text, re.S).group(1)
query = re.sub(r"\s+LIMIT \d+;", ";", query)

events = json.load(gzip.open(trace))["traceEvents"]
us = 1000
launches = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
ops = {}
for e in events:
    if e.get("cat") == "cpu_op" and e.get("ph") == "X":
        ops.setdefault((e["pid"], e["tid"]), []).append(e)
starts = {}
for key, v in ops.items():
    v.sort(key=lambda e: e["ts"])
    starts[key] = [e["ts"] for e in v]
want, total = {}, 0
for k in events:
    if k.get("cat") != "kernel" or k.get("ph") != "X":
        continue
    dur = round(k["dur"] * us)
    total += dur
    call = launches.get(k["args"].get("correlation"))
    if call is None:
        name = "(no launch call)"
    else:
        key = (call["pid"], call["tid"])
        best = None
        for op in ops.get(key, [])[:bisect.bisect_right(starts.get(key, []), call["ts"])]:
            if op["ts"] <= call["ts"] and op["ts"] + op["dur"] >= call["ts"] + call["dur"]:
                if best is None or op["ts"] > best["ts"] or (op["ts"] == best["ts"] and op["dur"] < best["dur"]):
                    best = op
        name = best["name"] if best else "(no operator)"
    want[name] = want.get(name, 0) + dur

con = sqlite3.connect(db)
got = {r[0]: r[2] for r in con.execute(query)}
failures = []
if sum(got.values()) != total:
    failures.append(f"the query's rows hold {sum(got.values())} ns of GPU time, the trace's kernels {total} ns")
for name in sorted(set(want) | set(got)):
    if want.get(name) != got.get(name):
        failures.append(f"{name}: query {got.get(name)} ns, the JSON {want.get(name)} ns")
print(f"{len(want)} operators, {total} ns of kernels, {len(failures)} failures")
for f in failures[:20]:
    print("  " + f)
sys.exit(1 if failures else 0)

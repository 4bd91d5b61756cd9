#!/usr/bin/python3
"""device_rows_check.py: `tracedb ops`'s device rows against the trace's JSON alone. PyTorch's
key_averages() lists every device event (Kineto's kernel, gpu_memcpy and gpu_memset activities,
DeviceType.CUDA) under its name as a row of its own: count = how many, Self CUDA = CUDA total = their
summed durations, CPU time and memory 0 (profiler_util.py: FunctionEvent's cpu_time_total and
self_cpu_time_total are 0 off the CPU, its memory is only looked up for CPU events); Self CUDA % is of
the device rows' sum ("Self CUDA time total", _build_table). Here each name's count and nanoseconds are
summed from the JSON's events, and compared with the rows `ops` adds to its --no-device-rows output (the
CPU-side rows must be those, unchanged): by name (from the import's sums and from the events), by shape
and by stack (the device rows' empty), by rank (the trace's distributedInfo rank), by step (the
latest-starting ProfilerStep#N holding the launch call's start, found by correlation id, else the
work's own start) and in one step's window (--range: the work starting inside it).
Prints each mismatch and "N failures". Usage: device_rows_check.py TRACEDB DB TRACE.json.gz"""
import csv
import decimal
import gzip
import io
import json
import subprocess
import sys
from collections import Counter
from decimal import Decimal

tracedb, db, trace = sys.argv[1:4]
doc = json.load(gzip.open(trace), parse_float=Decimal)
events = doc["traceEvents"]
rank = doc.get("distributedInfo", {}).get("rank")


def ns(us):  # the JSON's microseconds as whole nanoseconds, half away from zero
    return int(Decimal(us * 1000).quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP))


device = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
calls = {e["args"]["correlation"]: e for e in events
         if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
steps = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]) for e in events
               if e.get("ph") == "X" and e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))


def step_of(t):
    holding = [s for s in steps if s[0] <= t < s[1]]
    return min(holding, key=lambda s: (-s[0], s[2]))[2] if holding else ""


def expected(key, keep=lambda e: True):
    """Per (key, name): [count, ns]."""
    want = {}
    for e in device:
        if keep(e):
            row = want.setdefault((key(e), e["name"]), [0, 0])
            row[0] += 1
            row[1] += ns(e["dur"])
    return want


def launch_start(e):
    call = calls.get(e.get("args", {}).get("correlation"))
    return ns(call["ts"]) if call else ns(e["ts"])


def ops(*opts):
    out = subprocess.run([tracedb, "ops", db, "--format", "csv", "--limit", "1000000", *opts], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


failures = []
cases = [((), lambda e: "", None), (("--from", "0"), lambda e: "", None), (("--group-by", "shape"), lambda e: "", None),
         (("--group-by", "stack"), lambda e: "", None), (("--by-rank",), lambda e: str(rank), None)]
if steps:
    cases.append((("--by-step",), lambda e: step_of(launch_start(e)), None))
    first, end, name = steps[-1]
    cases.append((("--range", name), lambda e: "", lambda e: first <= ns(e["ts"]) < end))
for opts, key, keep in cases:
    what = " ".join(opts) or "by name"
    rows, cpu = ops(*opts), ops(*opts, "--no-device-rows")
    group = "step" if "--by-step" in opts else "rank" if "--by-rank" in opts else None
    left = Counter(tuple(r.items()) for r in rows)
    left.subtract(Counter(tuple(r.items()) for r in cpu))
    if any(n < 0 for n in left.values()):
        failures.append(f"{what}: --no-device-rows rows not among the default's: {[k for k, n in left.items() if n < 0][:2]}")
    added = [dict(k) for k, n in left.items() for _ in range(max(n, 0))]
    want = expected(key, keep or (lambda e: True))
    totals = Counter()
    for (k, _), (_, t) in want.items():
        totals[k] += t
    got = {}
    for r in added:
        k = (r[group] if group else "", r["name"])
        if k in got:
            failures.append(f"{what}: two device rows for {k}")
        got[k] = r
    for k in sorted(set(want) | set(got)):
        if k not in got or k not in want:
            failures.append(f"{what} {k}: tracedb {'has' if k in got else 'lacks'} a device row, the JSON {'has' if k in want else 'has none'}")
            continue
        r, (n, t) = got[k], want[k]
        figures = {c: int(r[c]) for c in ("calls", "self_device_ns", "device_total_ns", "device_avg_ns", "self_cpu_ns",
                                          "cpu_total_ns", "cpu_avg_ns", "cpu_mem_bytes", "self_cpu_mem_bytes",
                                          "device_mem_bytes", "self_device_mem_bytes")}
        exact = {"calls": n, "self_device_ns": t, "device_total_ns": t,
                 "device_avg_ns": int((Decimal(t) / n).quantize(Decimal(1), rounding=decimal.ROUND_HALF_UP)),
                 "self_cpu_ns": 0, "cpu_total_ns": 0, "cpu_avg_ns": 0, "cpu_mem_bytes": 0, "self_cpu_mem_bytes": 0,
                 "device_mem_bytes": 0, "self_device_mem_bytes": 0}
        for c in exact:
            if figures[c] != exact[c]:
                failures.append(f"{what} {k} {c}: tracedb {figures[c]}, the JSON {exact[c]}")
        pct = 100.0 * t / totals[k[0]]
        if abs(float(r["self_device_pct"]) - pct) > 0.006:
            failures.append(f"{what} {k} self_device_pct: tracedb {r['self_device_pct']}, the JSON {pct:.4f}")
        if r["flops"] or r["input_shapes"] or r["stack"]:
            failures.append(f"{what} {k}: FLOPs, shapes or stack not empty: {r['flops']!r} {r['input_shapes']!r} {r['stack']!r}")
print(f"{len(device)} device events, {len(cases)} ways, {len(failures)} failures")
for f in failures[:20]:
    print("  " + f)
sys.exit(1 if failures else 0)

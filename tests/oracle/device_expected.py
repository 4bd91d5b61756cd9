#!/usr/bin/python3
"""device_expected.py: HTA's temporal breakdown computed by Python from real traces' JSON, per GPU
device: span (first GPU event start to last end), busy (union of kernel, memcpy and memset
intervals), computation (union of kernels of HTA's kernel type COMPUTATION, utils.get_kernel_type, with
tracedb's two differences: rccl* is communication, hip(Memcpy|Memset)* memory), in ns. Writes
tests/data/device_expected.json for test_reports.c."""
import gzip, json, os, re
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = ["critical_path_alexnet_trace.json.gz", "nccl_parser_config_nccl_data.json.gz",
         "df_index_resolver_df_index_resolver.json.gz", "trace_diff_test_test.json.gz"]
COMM = re.compile(r"^nccl|^rccl|^hccl|ncclKernel|ncclDevKernel")
MEM = re.compile(r"^(hip)?Memcpy|^(hip)?Memset|^dma")
NOT_COMP = re.compile(r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|"
                      r"(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|"
                      r"(^collective_subgraph_execution)")


def computation(name):
    return not COMM.search(name) and not MEM.search(name) and not NOT_COMP.match(name)


def union(iv):
    total, cs, ce = 0, None, None
    for s, e in sorted(iv):
        if ce is None or s > ce:
            if ce is not None:
                total += ce - cs
            cs, ce = s, e
        elif e > ce:
            ce = e
    return total + (ce - cs if ce is not None else 0)


out = {}
for name in FILES:
    with gzip.open(os.path.join(HERE, "..", "data", "kineto", name), "rt") as f:
        events = json.load(f, parse_float=Decimal)["traceEvents"]
    dev = {}
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        d = e.get("args", {}).get("device")
        if d is None:
            continue
        s = int(Decimal(str(e["ts"])) * 1000)
        t = s + int(Decimal(str(e["dur"])) * 1000)
        if t <= s:
            continue
        compute = e["cat"] == "kernel" and computation(e["name"])
        dev.setdefault(int(d), []).append((s, t, compute))
    out[name] = {str(d): {"span_ns": max(t for _, t, _ in iv) - min(s for s, _, _ in iv),
                          "busy_ns": union([(s, t) for s, t, _ in iv]),
                          "run_ns": union([(s, t) for s, t, c in iv if c])} for d, iv in dev.items()}
with open(os.path.join(HERE, "..", "data", "device_expected.json"), "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print(out)

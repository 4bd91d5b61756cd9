#!/usr/bin/python3
"""kineto_expected.py: independent expectations for the real Kineto traces in tests/data/kineto/.

Reads each trace with Python's json module (not tracedb's parser) and counts what the reference
(shared formats.md, sections 1-2) says each phase and category is. Writes tests/data/kineto_expected.json,
which tests/unit/test_kineto.c compares against the databases tracedb builds. Run:
    python3 tests/oracle/kineto_expected.py
"""
import glob, gzip, json, os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "kineto")
CATS = {"cpu_op": "op", "operator": "op", "user_annotation": "range", "gpu_user_annotation": "gpu_range",
        "python_function": "python", "cuda_runtime": "runtime", "runtime": "runtime", "cuda_driver": "driver",
        "driver": "driver", "kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy",
        "gpu_memset": "memset", "memset": "memset", "cuda_sync": "sync", "trace": "trace",
        "cpu_instant_event": "instant"}


def kind(e):
    cat = (e.get("cat") or "").lower()
    ph = e["ph"]
    if not cat:
        return "instant" if ph in "iI" else "op"
    k = CATS.get(cat)
    if k == "instant" and e.get("name") == "[memory]":
        return "memory"
    if k:
        return k
    return "instant" if ph in "iI" else cat


def ns(text):
    return int((Decimal(text) * 1000).to_integral_value())


def main():
    out = {}
    for path in sorted(glob.glob(os.path.join(DATA, "*.json*"))):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            raw = f.read()
        doc = json.loads(raw, parse_float=Decimal, parse_int=Decimal)
        events = doc["traceEvents"] if isinstance(doc, dict) else doc
        kinds, flows, kernel_total = {}, 0, 0
        for e in events:
            ph = e.get("ph")
            if ph in ("X", "i", "I"):
                k = kind(e)
                kinds[k] = kinds.get(k, 0) + 1
                if k == "kernel":
                    kernel_total += ns(str(e["dur"]))
            elif ph in ("s", "t", "f"):
                flows += 1
        launches = {}
        for e in events:
            if e.get("ph") == "X" and kind(e) in ("runtime", "driver") and "correlation" in e.get("args", {}):
                launches.setdefault(int(e["args"]["correlation"]), e)
        linked = sum(1 for e in events if e.get("ph") == "X" and kind(e) in ("kernel", "memcpy", "memset", "sync")
                     and int(e.get("args", {}).get("correlation", -1)) in launches)
        out[os.path.basename(path)] = {"kinds": kinds, "flows": flows, "kernel_total_ns": kernel_total,
                                       "gpu_linked": linked}
    with open(os.path.join(HERE, "..", "data", "kineto_expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

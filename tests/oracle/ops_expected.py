#!/usr/bin/python3
"""ops_expected.py: independent per-operator device time and memory for real Kineto traces.

Builds each thread's event tree in Python from the raw JSON (sorted by start, longer first, file
order; a child must end inside its parent, PyTorch's rule), then gives each kernel/memcpy/memset to
the event enclosing the runtime call with the same correlation ("self") and to all its ancestors
("total"), with PyTorch's merge of an operator's only child of its own name into it (the child's holdings
are the parent's own, and count once in its total); memory as PyTorch attributes it: every [memory]
event of the trace inside an event's [start, end], both ends included. Writes tests/data/ops_expected.json, which
tests/unit/test_reports.c compares with `tracedb ops --format json`. Run:
    python3 tests/oracle/ops_expected.py
"""
import bisect, collections, gzip, json, os
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "kineto")
FILES = ["critical_path_alexnet_trace.json.gz", "nccl_parser_config_nccl_data.json.gz",
         "df_index_resolver_df_index_resolver.json.gz"]
CPU = {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver"}


def ns(x):
    return int((Decimal(str(x)) * 1000).to_integral_value())


def main():
    out = {}
    for name in FILES:
        with gzip.open(os.path.join(DATA, name), "rt") as f:
            events = json.load(f, parse_float=Decimal)["traceEvents"]
        timed = []
        for i, e in enumerate(events):
            if e.get("ph") in ("X", "i", "I"):
                tid = e.get("tid", e.get("pid"))
                timed.append({"i": i, "e": e, "track": (str(e.get("pid")), str(tid)),
                              "start": ns(e["ts"]), "dur": ns(e.get("dur", 0)) if e.get("ph") == "X" else 0})
        parent = {}
        by_track = collections.defaultdict(list)
        for t in timed:
            by_track[t["track"]].append(t)
        for evs in by_track.values():
            evs.sort(key=lambda t: (t["start"], -t["dur"], t["i"]))
            stack = []
            for t in evs:
                end = t["start"] + t["dur"]
                while stack and (stack[-1]["start"] + stack[-1]["dur"] <= t["start"]
                                 or stack[-1]["start"] + stack[-1]["dur"] < end):
                    stack.pop()
                parent[t["i"]] = stack[-1]["i"] if stack else None
                if t["dur"] > 0:
                    stack.append(t)
        launch = {}
        for t in timed:
            e = t["e"]
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
                launch.setdefault(e["args"]["correlation"], t["i"])
        rows = collections.defaultdict(lambda: collections.Counter())

        def key(i):
            n = events[i]["name"]
            return "ProfilerStep*" if n.startswith("ProfilerStep#") else n

        # PyTorch's merge (EventList._remove_dup_nodes): a CPU-side event whose parent has its name and
        # no other CPU-side child is no event of its own; what it holds counts as the parent's
        cpu_ev = {t["i"] for t in timed if t["e"].get("cat") in CPU}
        nchild = collections.Counter(parent[i] for i in cpu_ev if parent[i] in cpu_ev)
        merged = {i for i in cpu_ev if parent[i] in cpu_ev and nchild[parent[i]] == 1
                  and events[parent[i]]["name"] == events[i]["name"]}

        def top(i):
            while i in merged:
                i = parent[i]
            return i

        def ancestors(i):
            while i is not None:
                if i not in merged:
                    yield i
                i = parent[i]

        for t in timed:
            e = t["e"]
            if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                l = launch.get(e.get("args", {}).get("correlation"))
                if l is None or parent[l] is None:
                    continue
                rows[key(top(parent[l]))]["self_device_ns"] += t["dur"]
                for a in ancestors(parent[l]):
                    rows[key(a)]["device_total_ns"] += t["dur"]

        # memory as PyTorch attributes it (torch/autograd/profiler.py, _parse_kineto_results): each
        # [memory] event of the trace, of any thread, whose time lies in a CPU-side event's [start, end],
        # both ends included, counts in that event's total; its self is its total less the totals of its
        # CPU-side children (after the merge: a merged event counts nowhere, its children are its top's)
        mem = sorted((t["start"], int(t["e"]["args"]["Bytes"]), int(t["e"]["args"].get("Device Type", 0)) != 0)
                     for t in timed if t["e"].get("name") == "[memory]")
        times = [m[0] for m in mem]
        acc = [[0], [0]]
        for _, b, on_device in mem:
            acc[0].append(acc[0][-1] + (0 if on_device else b))
            acc[1].append(acc[1][-1] + (b if on_device else 0))
        start = {t["i"]: (t["start"], t["start"] + t["dur"]) for t in timed}

        def held(i):
            lo, hi = bisect.bisect_left(times, start[i][0]), bisect.bisect_right(times, start[i][1])
            return acc[0][hi] - acc[0][lo], acc[1][hi] - acc[1][lo]

        def cpu_parent(i):
            p = parent[i]
            while p is not None and (p not in cpu_ev or p in merged):
                p = parent[p]
            return p

        for i in cpu_ev - merged:
            h = held(i)
            p = cpu_parent(i)
            for k, kind in enumerate(("cpu", "device")):
                rows[key(i)]["%s_mem_bytes" % kind] += h[k]
                rows[key(i)]["self_%s_mem_bytes" % kind] += h[k]
                if p is not None:
                    rows[key(p)]["self_%s_mem_bytes" % kind] -= h[k]
        cpu_names = {key(t["i"]) for t in timed if t["e"].get("cat") in CPU}
        out[name] = {n: {k: v for k, v in c.items() if v} for n, c in rows.items() if n in cpu_names}
        out[name] = {n: c for n, c in out[name].items() if c}
    with open(os.path.join(HERE, "..", "data", "ops_expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

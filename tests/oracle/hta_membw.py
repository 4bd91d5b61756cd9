# tests/oracle/hta_membw.py: regenerates tests/data/hta_membw_expected.json (run once; tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_membw.py tests/data/kineto/X.json.gz ... > out.json  (HTA checked out at /tmp/hta)
# HTA as the oracle for `tracedb memops --bandwidth`, in HTA's default window (the last ProfilerStep dropped):
#   "hta": HTA's own get_memory_bw_summary per rank and memory type: describe() of the concurrent bandwidth,
#          one sample per step (+bw at an op's start, -bw at its end, sorted by ts with numpy's unstable
#          sort), the positive ones; and "hta_steps_tied": how many of the type's steps share a timestamp
#          with another (where HTA's order, and so its samples, are arbitrary).
#   "exact": the same rows (HTA's window and kernel types) with tracedb's rules, computed here with pandas:
#          times in ns as written (HTA rounds ns-resolution traces to whole us; here its rounding is
#          turned off and the times are read back in ns), a zero duration counting 1 us as in HTA, every
#          step at one time applied at once (one sample per time at which the bandwidth changes, the
#          value after them; no float residue: the value is 0 when no op runs), describe() over the
#          positive samples; the time-weighted mean over the time some op runs (busy_ns).
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
import numpy as np
import pandas as pd
import hta.common.trace_parser as tp
from hta.trace_analysis import TraceAnalysis
from hta.utils.utils import get_kernel_type, get_memory_kernel_type

STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def clean(v):
    return None if v is None or v != v else float(v)


def load(trace, rounding):
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    saved = tp.round_down_time_stamps
    if not rounding:
        tp.round_down_time_stamps = lambda df: None
    try:
        return TraceAnalysis(trace_dir=d)
    finally:
        tp.round_down_time_stamps = saved


def memory_rows(ta, rank):
    df = ta.t.get_trace(rank)
    sym = ta.t.symbol_table.get_sym_table()
    g = df[df["stream"].ne(-1)].copy()
    if len(g) == 0:
        return g.assign(op=pd.Series(dtype=object))
    g = g[g["name"].apply(lambda x: get_kernel_type(sym[x]) == "MEMORY").astype(bool)].copy()
    if len(g) == 0:
        return g.assign(op=pd.Series(dtype=object))
    g["op"] = g["name"].apply(lambda x: get_memory_kernel_type(sym[x]))
    return g


def exact(g):
    # ts and dur in us as HTA holds them (fractions of a us for ns-resolution traces): back to ns
    g = g[g["memory_bw_gbps"].notna()].copy()
    ts = np.rint(g["ts"].astype(float) * 1000).astype(np.int64)
    dur = np.rint(g["dur"].astype(float) * 1000).astype(np.int64)
    dur = np.where(dur == 0, 1000, dur)
    out = {}
    for op in sorted(set(g["op"])):
        m = g["op"].eq(op).to_numpy()
        s, e, bw = ts[m], ts[m] + dur[m], g["memory_bw_gbps"].to_numpy(dtype=float)[m]
        steps = pd.DataFrame({"t": np.concatenate([s, e]), "bw": np.concatenate([bw, -bw]),
                              "n": np.concatenate([np.ones(len(s), int), -np.ones(len(s), int)])})
        per_t = steps.groupby("t", sort=True).sum()
        running = per_t["n"].cumsum()
        value = per_t["bw"].cumsum().where(running > 0, 0.0)
        times = per_t.index.to_numpy()
        dt = np.diff(times)
        busy = float(dt[(running.to_numpy()[:-1] > 0)].sum())
        area = float((value.to_numpy()[:-1] * dt).sum())
        d = value[value > 0].describe()
        row = {k: clean(d.get(k)) for k in STATS}
        row["busy_ns"] = busy
        row["weighted_mean"] = area / busy if busy > 0 else None
        row["changes"] = int(len(per_t))
        out[op] = row
    return out


out = {}
for trace in sys.argv[1:]:
    res = {}
    ta = load(trace, True)
    for rank in ta.t.traces:
        s = ta.get_memory_bw_summary(ranks=[rank])
        if s is None:
            continue
        g = memory_rows(ta, rank)
        for (rk, op), row in s.iterrows():
            h = {k[1]: clean(v) for k, v in row.items()}
            x = g[g["op"].eq(op) & g["memory_bw_gbps"].notna()]
            dur = np.where(x["dur"] == 0, 1, x["dur"])
            t = pd.Series(np.concatenate([x["ts"].to_numpy(), x["ts"].to_numpy() + dur]))
            h["hta_steps_tied"] = int(t.duplicated(keep=False).sum())
            res.setdefault(str(rk), {}).setdefault(op, {})["hta"] = h
    ta = load(trace, False)
    for rank in ta.t.traces:
        for op, row in exact(memory_rows(ta, rank)).items():
            res.setdefault(str(rank), {}).setdefault(op, {})["exact"] = row
    out[os.path.basename(trace)] = res

print(json.dumps({"_provenance": "HTA (github.com/facebookresearch/HolisticTraceAnalysis, commit "
                  "f4d0062c382f42bd8a74838bcdad1916c7d5d2da) run by tests/oracle/hta_membw.py on the traces in "
                  "tests/data/kineto (Debian's python3-pandas 1.5.3, numpy 1.24.2): get_memory_bw_summary per "
                  "rank and memory type in HTA's default window (hta), and the same rows with tracedb's rules "
                  "computed with pandas (exact); see the script's header.",
                  "traces": out}, indent=1, sort_keys=True))

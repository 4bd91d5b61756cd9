# tests/oracle/hta_overlap.py: regenerates tests/data/hta_overlap_expected.json (run once; tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_overlap.py tests/data/kineto/X.json.gz ... > out.json  (HTA checked out at /tmp/hta)
# HTA as the oracle for tracedb overlap: per rank, HTA's own comp/comm overlap percentage, and the merged
# communication and computation time computed with HTA's own helpers on HTA's filtered trace (its window).
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
from hta.trace_analysis import TraceAnalysis
from hta.utils.utils import get_kernel_type, merge_kernel_intervals
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    ta = TraceAnalysis(trace_dir=d)
    ov = ta.get_comm_comp_overlap(visualize=False)
    sym = ta.t.symbol_table.get_sym_table()
    res = {}
    for rank, df in ta.t.traces.items():
        g = df[df["stream"].ne(-1)].copy()
        g["kernel_type"] = g["name"].apply(lambda x: get_kernel_type(sym[x]))
        sums = {}
        for kt in ("COMMUNICATION", "COMPUTATION"):
            m = merge_kernel_intervals(g[g["kernel_type"].eq(kt)].copy())
            sums[kt] = int((m["end"] - m["ts"]).sum()) if len(m) else 0
        pct = ov[ov["rank"] == rank]["comp_comm_overlap_pctg"]
        p = float(pct.iloc[0]) if len(pct) else None
        res[str(rank)] = {"comm_us": sums["COMMUNICATION"], "compute_us": sums["COMPUTATION"],
                          "overlap_pct": None if p is None or p != p else p,
                          "gpu_rows": int(len(g))}
    out[os.path.basename(trace)] = res
print(json.dumps(out, indent=1, sort_keys=True))

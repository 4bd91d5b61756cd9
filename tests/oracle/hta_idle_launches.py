# tests/oracle/hta_idle_launches.py: regenerates tests/data/hta_idle_launches_expected.json (run once; tests never
# need HTA):  /usr/bin/python3 tests/oracle/hta_idle_launches.py tests/data/kineto/X.json.gz ... > out.json
# (HTA's source at /tmp/hta). Per trace and rank, in HTA's default window:
#   idle: HTA's get_idle_time_breakdown (consecutive_kernel_delay 30 us): per stream and category, idle time (us);
#   launches: HTA's get_cuda_kernel_launch_stats (runtime cutoff 50 us, launch delay cutoff 100 us), its
#     per-launch rows summed per GPU kernel name (the name found by correlation in HTA's own trace table).
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
from hta.trace_analysis import TraceAnalysis
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    ta = TraceAnalysis(trace_dir=d)
    sym = ta.t.symbol_table.get_sym_table()
    res = {}
    for rank in ta.t.traces:
        r = {"idle": {}, "launches": {}}
        idle, _ = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)
        for _, row in idle.iterrows():
            r["idle"].setdefault(str(int(row["stream"])), {})[row["idle_category"]] = float(row["idle_time"])
        stats = ta.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)[rank]
        df = ta.t.get_trace(rank)
        gpu = df[df["stream"].ne(-1)][["correlation", "name"]].drop_duplicates("correlation")
        m = stats.merge(gpu, on="correlation", how="left")
        for name, g in m.groupby("name"):
            r["launches"][sym[name]] = {
                "launches": int(len(g)), "cpu_us": int(g["cpu_duration"].sum()), "gpu_us": int(g["gpu_duration"].sum()),
                "delay_us": int(g["launch_delay"].sum()), "delay_max_us": int(g["launch_delay"].max()),
                "short": int(((g["cpu_duration"] <= 50) & (g["gpu_duration"] < g["cpu_duration"])).sum()),
                "runtime_outliers": int((g["cpu_duration"] > 50).sum()),
                "delay_outliers": int((g["launch_delay"] > 100).sum())}
        res[str(rank)] = r
    out[os.path.basename(trace)] = res
print(json.dumps(out, indent=1, sort_keys=True))

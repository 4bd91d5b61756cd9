# bench/hta_time.py: HTA's own time for each analysis tracedb matches, on one real trace, for make bench to
# print beside tracedb's (only where HTA's source is at $HTA_SRC, default /tmp/hta, with its Python
# dependencies: pandas, networkx, plotly, psutil, yaml). Prints "name seconds" lines: HTA's load first.
import sys, os, shutil, tempfile, logging, time
sys.path.insert(0, os.environ.get("HTA_SRC", "/tmp/hta"))
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
d = tempfile.mkdtemp()
shutil.copy(sys.argv[1], d)
t0 = time.perf_counter()
ta = TraceAnalysis(trace_dir=d)
print(f"load {time.perf_counter() - t0:.3f}")
rank = list(ta.t.traces)[0]
runs = [
    ("overlap", lambda: ta.get_comm_comp_overlap(visualize=False)),
    ("idle", lambda: ta.get_idle_time_breakdown(ranks=[rank], visualize=False)),
    ("launches", lambda: ta.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)),
    ("queue", lambda: ta.get_queue_length_summary(ranks=[rank])),
    ("kernels_by_type", lambda: ta.get_gpu_kernel_breakdown(visualize=False)),
    ("device", lambda: ta.get_temporal_breakdown(visualize=False)),
    ("memops_bw", lambda: ta.get_memory_bw_summary(ranks=[rank])),
    ("critical_path", lambda: ta.critical_path_analysis(rank=rank, annotation="", instance_id=None)),
]
for name, run in runs:
    t0 = time.perf_counter()
    run()
    print(f"{name} {time.perf_counter() - t0:.3f}")
shutil.rmtree(d)

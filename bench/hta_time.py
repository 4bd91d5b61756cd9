# bench/hta_time.py: HTA's own time for its critical path analysis on one real trace, for make bench to
# print beside tracedb's (only where HTA's source is at $HTA_SRC, default /tmp/hta, with its Python
# dependencies: pandas, networkx, plotly, psutil, yaml). Prints "load_s analysis_s".
import sys, os, shutil, tempfile, logging, time
sys.path.insert(0, os.environ.get("HTA_SRC", "/tmp/hta"))
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
d = tempfile.mkdtemp()
shutil.copy(sys.argv[1], d)
t0 = time.perf_counter()
ta = TraceAnalysis(trace_dir=d)
t1 = time.perf_counter()
ta.critical_path_analysis(rank=list(ta.t.traces)[0], annotation="", instance_id=None)
t2 = time.perf_counter()
shutil.rmtree(d)
print(f"{t1 - t0:.2f} {t2 - t1:.2f}")

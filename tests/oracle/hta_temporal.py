# tests/oracle/hta_temporal.py: regenerates tests/data/hta_temporal_expected.json (run once; tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_temporal.py tests/data/kineto/X.json.gz ... > out.json   (HTA's source at /tmp/hta)
# HTA's get_temporal_breakdown per rank (idle, compute, non-compute and kernel time in us) in its default window.
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
from hta.trace_analysis import TraceAnalysis
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    ta = TraceAnalysis(trace_dir=d)
    df = ta.get_temporal_breakdown(visualize=False)
    out[os.path.basename(trace)] = {str(int(r["rank"])): {"idle_us": int(r["idle_time(us)"]), "compute_us": int(r["compute_time(us)"]),
                                     "non_compute_us": int(r["non_compute_time(us)"]), "kernel_us": int(r["kernel_time(us)"])}
                                    for _, r in df.iterrows()}
print(json.dumps(out, indent=1, sort_keys=True))

# tests/oracle/hta_kernel_types.py: regenerates tests/data/hta_kernel_types_expected.json (run once; tests never need
# HTA):  /usr/bin/python3 tests/oracle/hta_kernel_types.py tests/data/kineto/X.json.gz ... > out.json  (HTA at /tmp/hta)
# HTA's get_gpu_kernel_breakdown kernel type table (its default: computation and communication, memory
# left out), summed over the trace's ranks as HTA sums them, in HTA's default window.
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
from hta.trace_analysis import TraceAnalysis
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    ta = TraceAnalysis(trace_dir=d)
    types, _ = ta.get_gpu_kernel_breakdown(visualize=False)
    out[os.path.basename(trace)] = {r["kernel_type"]: {"sum_us": int(r["sum"]), "percentage": float(r["percentage"])}
                                    for _, r in types.iterrows()}
print(json.dumps(out, indent=1, sort_keys=True))

# tests/oracle/hta_queue.py: regenerates tests/data/hta_queue_expected.json (run once; tests never need HTA):
#   /usr/bin/python3 tests/oracle/hta_queue.py tests/data/kineto/X.json.gz ... > out.json   (HTA's source at /tmp/hta)
# HTA's get_queue_length_summary per rank and stream (pandas describe() over the event samples), in HTA's
# default window.
import sys, json, os, shutil, tempfile
sys.path.insert(0, "/tmp/hta")
from hta.trace_analysis import TraceAnalysis
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    ta = TraceAnalysis(trace_dir=d)
    res = {}
    for rank in ta.t.traces:
        s = ta.get_queue_length_summary(ranks=[rank])
        if s is None:
            continue
        for (rk, stream), row in s.iterrows():
            res.setdefault(str(rk), {})[str(int(stream))] = {k[1]: float(v) for k, v in row.items()}
    out[os.path.basename(trace)] = res
print(json.dumps(out, indent=1, sort_keys=True))

# tests/oracle/hta_kernel_patterns.py: regenerates tests/data/hta_kernel_patterns_expected.json (run once; tests
# never need HTA):
#   /usr/bin/python3 tests/oracle/hta_kernel_patterns.py tests/data/kineto/X.json.gz ... > out.json  (HTA at /tmp/hta)
# HTA as the oracle for `tracedb kernels --patterns NAME --drop-last-step`: get_frequent_cuda_kernel_sequences
# (min_pattern_len 3) per rank for six common operators, in HTA's default window (the last step dropped):
# each pattern's text, count, GPU kernel time and CPU op time (us), in HTA's order (count down, then the
# pattern). Where HTA raises (its call stacks' "Unexpected case" on some traces) the error is kept.
import sys, json, os, shutil, tempfile, logging
sys.path.insert(0, "/tmp/hta")
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis

OPERATORS = ["aten::linear", "aten::conv2d", "aten::addmm", "aten::mm", "aten::layer_norm", "aten::batch_norm"]
out = {}
for trace in sys.argv[1:]:
    d = tempfile.mkdtemp()
    shutil.copy(trace, d)
    res = {}
    try:
        ta = TraceAnalysis(trace_dir=d)
    except Exception as e:
        out[os.path.basename(trace)] = {"error": repr(e)[:200]}
        continue
    for rank in ta.t.traces:
        for op in OPERATORS:
            try:
                df = ta.get_frequent_cuda_kernel_sequences(operator_name=op, output_dir=tempfile.mkdtemp(), rank=rank,
                                                           visualize=False)
            except Exception as e:
                res.setdefault(str(rank), {})[op] = {"error": repr(e)[:200]}
                continue
            if len(df) == 0:
                continue
            res.setdefault(str(rank), {})[op] = [
                {"pattern": r["pattern"], "count": int(r["count"]), "gpu_us": float(r["GPU kernel duration (us)"]),
                 "cpu_us": float(r["CPU op duration (us)"])} for _, r in df.iterrows()]
    out[os.path.basename(trace)] = res
print(json.dumps({"_provenance": "HTA (github.com/facebookresearch/HolisticTraceAnalysis, commit "
                  "f4d0062c382f42bd8a74838bcdad1916c7d5d2da) run by tests/oracle/hta_kernel_patterns.py on the "
                  "traces in tests/data/kineto (Debian's python3-pandas 1.5.3, numpy 1.24.2, networkx 2.8.8): "
                  "get_frequent_cuda_kernel_sequences per rank and operator in HTA's default window.",
                  "traces": out}, indent=1, sort_keys=True))

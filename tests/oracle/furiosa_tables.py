#!/usr/bin/python3
"""furiosa_tables.py SDK_PROFILER_PY OUTDIR: Furiosa's own profiler code as the oracle for tracedb's
Furiosa tables. Writes OUTDIR/records.csv (Furiosa's record format: a hand-made run of 6 inferences under
the labels "warm up" and "trace", host operators, NPU executions on two PEs with their instructions),
then runs the `profile` class of furiosa-sdk's python/furiosa-runtime/furiosa/runtime/legacy/profiler.py
(the file given, read from the public repository; its native library and pydantic stubbed out) on it:
its DataFrame exactly as its __exit__ reads the records, its print_summary, print_inferences,
print_npu_executions, print_npu_operators and print_external_operators (what they print, captured as
data), and its export_chrome_trace, which writes OUTDIR/trace.json (the process id fixed at 4242).
Writes OUTDIR/expected.json with every table."""
import ast, io, json, os, sys
import pandas as pd

sdk, out = sys.argv[1], sys.argv[2]

# ---- the records: times in ns since the epoch, as the runtime writes them
T0 = 1690000000000000000
rows = []
ids = {"n": 0}
def span_id():
    ids["n"] += 1
    return "%016x" % (0x3e1e4a7652000000 + ids["n"])
def trace_id(k):
    return "%032x" % (0x8f6fce6c0e52b4735cae337900000000 + k)
def add(tid, parent, sid, start, end, cat, name, thread, pe="", ex="", instr="", op=""):
    rows.append([tid, parent, sid, T0 + start, T0 + end, cat, name, thread, "", pe, ex, instr, op])
ROOT = "0" * 16
# label spans (profiler.record), the inferences inside them, each with its host operators and one
# NPU execution (PE 0 for even inferences, PE 1 for odd ones)
inferences = [(0, 2100000), (2500000, 3900000), (5000000, 6584494), (7000000, 10027309), (11000000, 12824769),
              (13000000, 15111363)]
labels = [("warm up", 0, 4000000, [0, 1]), ("trace", 4500000, 16000000, [2, 3, 4, 5])]
for k, (lname, ls, le, members) in enumerate(labels):
    lt = trace_id(100 + k)
    lsid = span_id()
    add(lt, ROOT, lsid, ls, le, "Runtime", lname, 1)
    for i in members:
        s, e = inferences[i]
        t = trace_id(i)
        isid = span_id()
        add(t, lsid, isid, s, e, "Nux", "Inference", 1)
        # host operators on thread 40: Quantize, Lower, Unlower, Dequantize (operator_index 0..3)
        at = s + 1000
        for j, (oname, d) in enumerate([("Quantize", 136285 + 111 * i), ("Lower", 133350 + 97 * i),
                                        ("Unlower", 44775 + 31 * i), ("Dequantize", 14682 + 7 * i)]):
            add(t, isid, span_id(), at, at + d, "Nux", oname, 40, op=str(j))
            at += d + 500
        # the NPU execution after Lower: Load, instructions, Store
        pe = str(i % 2)
        xs = s + 300000
        xsid = span_id()
        instr = [("Load", 9000), ("LowLevelConv2d", 53278 + 10 * i), ("LowLevelPad", 5757), ("LowLevelConv2d", 41000),
                 ("LowLevelReshape", 2), ("LowLevelDepthwiseConv2d", 14122 + i), ("Store", 7000)]
        at = xs + 500
        for n, (iname, d) in enumerate(instr):
            add(t, xsid, span_id(), at, at + d, "NPU", iname, 77, pe=pe, ex="0", instr=str(n))
            at += d + 300 + 50 * n
        add(t, isid, xsid, xs, at + 400, "NPU", "Execution", 77, pe=pe, ex="0")
cols = ["trace_id", "parent_span_id", "span_id", "start", "end", "cat", "name", "thread.id", "dram_base",
        "pe_index", "execution_index", "instruction_index", "operator_index"]
rows.sort(key=lambda r: (r[3], -r[4]))
csv_text = ",".join(cols) + "\n" + "".join(",".join(str(v) for v in r) + "\n" for r in rows)
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "records.csv"), "w") as f:
    f.write(csv_text)

# ---- Furiosa's profile class, from its own source, on those records
tree = ast.parse(open(sdk).read())
cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "profile")
printed = []
fake_os = type(sys)("fake_os")
fake_os.__dict__.update({k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
fake_os.getpid = lambda: 4242
ns = {"pd": pd, "io": io, "json": json, "os": fake_os, "contextmanager": __import__("contextlib").contextmanager,
      "print": lambda *a, **k: printed.append(a[0] if len(a) == 1 else " ".join(str(x) for x in a)),
      "Any": object, "Type": type, "TracebackType": object, "BaseException": BaseException,
      "Resource": type("Resource", (), {"ALL": None}), "RecordFormat": type("RecordFormat", (), {"ChromeTrace": 0})}
exec(compile(ast.Module(body=[cls], type_ignores=[]), sdk, "exec"), ns)
p = ns["profile"].__new__(ns["profile"])
# what __exit__ does with the records (the same read_csv call and dtypes)
p.df = pd.read_csv(io.StringIO(csv_text), dtype={"cat": "string", "dram_base": "Int64", "pe_index": "Int64",
                   "execution_index": "Int64", "instruction_index": "Int64", "operator_index": "Int64"},
                   keep_default_na=False)
p.df["dur"] = p.df["end"] - p.df["start"]
src = open(sdk).read()
assert 'pd.read_csv(' in src and '"instruction_index": "Int64"' in src and "self.df['dur'] = self.df['end'] - self.df['start']" in src

def frame(df):
    return json.loads(df.to_json(orient="records"))

expected = {"source": "furiosa-sdk legacy/profiler.py, class profile, run on records.csv"}
printed.clear(); p.print_summary()
lines = [x for x in printed if isinstance(x, str) and ":" in x]
expected["summary"] = {l.split(":")[0].strip(): int(l.split(":")[1]) for l in lines}
printed.clear(); p.print_inferences(); expected["inferences"] = frame(printed[0])
printed.clear(); p.print_npu_executions(); expected["npu_executions"] = frame(printed[0])
printed.clear(); p.print_npu_operators(); expected["npu_operators"] = json.loads(printed[0].reset_index().to_json(orient="records"))
printed.clear(); p.print_external_operators(); expected["external_operators"] = frame(printed[0])
printed.clear(); p.export_chrome_trace(os.path.join(out, "trace.json"))
with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote records.csv (%d spans), trace.json and expected.json to %s" % (len(rows), out))

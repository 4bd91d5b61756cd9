#!/usr/bin/python3
"""torch_merge.py: writes tests/data/torch_merge.json.gz and tests/data/torch_merge_expected.json: a model
profiled by Debian's python3-torch (1.13, CPU) with record_shapes, profile_memory and a schedule of three
steps, whose operators call children of their own name (aten::mean, aten::std, in-place division,
aten::sum, aten::zeros), which PyTorch's EventList._remove_dup_nodes merges into their parent when they are
its only child. The trace is written by tracedb.torch.events_trace from the profiler's raw events
(kineto_results.events(): every child kept, as a Kineto trace holds them); the expected file holds what
PyTorch itself makes of the same run, after its merge:
  - "by_name": key_averages(): count, self_cpu_time_total, cpu_time_total (us) per name;
  - "by_shape": key_averages(group_by_input_shape=True), keyed by name and str(input_shapes);
  - "by_step": prof.events() (PyTorch's merged events) summed per step, an event in the step whose
    ProfilerStep#N range holds its start (the latest-starting one);
  - "raw_counts": how many events of each name the profiler recorded (before its merge);
  - "memory": key_averages()'s cpu_memory_usage and self_cpu_memory_usage per name.
Run once: /usr/bin/python3 tests/oracle/torch_merge.py (from the repository root)."""
import gzip
import json
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tracedb.torch  # noqa: E402


def model_step(x, w):
    y = torch.mm(x, w)
    y.div_(2.0)                    # aten::div_ -> aten::div_ (a wrapped scalar)
    m = y.mean(dim=0)              # aten::mean -> aten::mean
    s = y.std(dim=0)               # aten::std -> aten::std
    z = (y - m) / s
    z.div_(torch.tensor(3.0))
    t = torch.zeros(8, 8)          # aten::zeros -> aten::zeros
    return z.sum() + t.sum() + y.mean()


torch.manual_seed(0)
x, w = torch.randn(32, 16), torch.randn(16, 24)
cycles = []
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True,
             schedule=schedule(wait=0, warmup=0, active=3, repeat=1),
             on_trace_ready=lambda p: cycles.append(1)) as prof:
    for _ in range(3):
        model_step(x, w)
        prof.step()
assert cycles == [1]

raw = {}
for e in prof.profiler.kineto_results.events():
    raw[e.name()] = raw.get(e.name(), 0) + 1

by_name = {e.key: [e.count, e.self_cpu_time_total, e.cpu_time_total] for e in prof.key_averages()}
memory = {e.key: [e.cpu_memory_usage, e.self_cpu_memory_usage] for e in prof.key_averages()}
by_shape = [[e.key, str(e.input_shapes), e.count, e.self_cpu_time_total, e.cpu_time_total]
            for e in prof.key_averages(group_by_input_shape=True)]
events = list(prof.events())
# PyTorch names its merged step events ProfilerStep*: their names are the raw events', in time order
step_names = [e.name() for e in sorted(prof.profiler.kineto_results.events(), key=lambda e: e.start_us())
              if e.name().startswith("ProfilerStep#")]
step_events = sorted((e.time_range.start, e.time_range.end) for e in events if e.name == "ProfilerStep*")
assert len(step_names) == len(step_events)
steps = [(s, t, name) for (s, t), name in zip(step_events, step_names)]
by_step = {}
for e in events:
    holding = [s for s in steps if s[0] <= e.time_range.start < s[1]]
    if not holding:
        continue
    step = max(holding)[2]  # the latest-starting step holding its start
    c, s, t = by_step.get((step, e.name), (0, 0, 0))
    by_step[(step, e.name)] = (c + 1, s + e.self_cpu_time_total, t + e.cpu_time_total)
expected = {"torch": torch.__version__, "by_name": by_name, "memory": memory, "by_shape": by_shape,
            "by_step": [[k[0], k[1], *v] for k, v in sorted(by_step.items())], "raw_counts": raw}
merged = {k: (raw[k], v[0]) for k, v in by_name.items() if k in raw and raw[k] != v[0]}
print("merged by PyTorch (raw, key_averages):", merged)
trace = tracedb.torch.events_trace(prof)
trace["traceName"] = "tests/oracle/torch_merge.py (torch %s)" % torch.__version__
with gzip.GzipFile(os.path.join(ROOT, "tests", "data", "torch_merge.json.gz"), "wb", mtime=0) as f:
    f.write(json.dumps(trace).encode())
with open(os.path.join(ROOT, "tests", "data", "torch_merge_expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)

#!/usr/bin/python3
"""torch_flops.py: writes tests/data/torch_flops.json.gz, a Kineto-shaped trace of a small model profiled by
Debian's python3-torch (1.13, CPU) with record_shapes and with_flops, written by tracedb.torch.events_trace
from the profiler's own events, each operator event carrying PyTorch's own FLOPs for it in its args as
"torch_flops" (the profiler's e.flops(): torch/csrc/profiler/util.cpp's computeFlops). The model calls
every operator PyTorch computes FLOPs for (aten::mm, addmm, bmm, baddbmm, mul, add) with broadcasting and
scalars, and in-place and other ones it has no formula for (aten::mul_, add_, div, matmul, linear).
aten::conv2d is not here: this torch's events carry no "Concrete Inputs" (make_flops_trace.py checks
conv2d). Run once: /usr/bin/python3 tests/oracle/torch_flops.py (from the repository root)."""
import gzip
import json
import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import tracedb.torch  # noqa: E402

torch.manual_seed(0)
a, b = torch.randn(16, 64), torch.randn(64, 32)
x, y, bias = torch.randn(4, 16, 8), torch.randn(4, 8, 12), torch.randn(4, 16, 12)
col, scalar = torch.randn(16, 1), torch.tensor(3.0)
linear = torch.nn.Linear(64, 10)
with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_flops=True) as prof:
    torch.mm(a, b)
    linear(a)                      # aten::linear -> aten::addmm
    torch.addmm(torch.randn(32), a, b)
    torch.bmm(x, y)
    torch.baddbmm(bias, x, y)
    torch.matmul(a, b)             # aten::matmul -> aten::mm
    a * a                          # aten::mul, same shapes
    col * a                        # aten::mul, broadcast: PyTorch counts input 0's elements
    a * col
    a * 2.0                        # aten::mul with a Scalar
    scalar * a                     # a 0-dim tensor first
    a + a
    col + a
    a + 1.0
    a.clone().mul_(2.0)            # in place: no formula in PyTorch
    a.clone().add_(a)
    a / 3.0
trace = tracedb.torch.events_trace(prof)
flops = {}
for e in prof.profiler.kineto_results.events():
    flops[(e.name(), e.start_us(), e.start_thread_id())] = e.flops()
for ev in trace["traceEvents"]:
    if ev.get("ph") == "X":
        ev["args"]["torch_flops"] = flops[(ev["name"], ev["ts"], ev["tid"])]
trace["traceName"] = "tests/oracle/torch_flops.py (torch %s)" % torch.__version__
with gzip.open(os.path.join(ROOT, "tests", "data", "torch_flops.json.gz"), "wt") as f:
    json.dump(trace, f)

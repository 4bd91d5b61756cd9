#!/usr/bin/python3
"""make_flops_trace.py: writes tests/data/resnet18_flops.json, a Kineto-shaped trace of resnet18's
forward pass on input (5, 3, 224, 224) as newer Kineto records it with record_shapes: one aten::conv2d
per convolution with "Input Dims" and "Concrete Inputs" (stride, padding, dilation, groups as
strings), and the classifier's aten::addmm. Shapes and conv settings are read from torchvision's
model with forward hooks (Debian's torch has no Kineto to write them itself).
PyTorch's own figures for this model and input: aten::conv2d 18,135,613,440 FLOPs and aten::addmm
5,120,000 (shared reference, section 3); tests/unit/test_reports.c checks tracedb gives them.
"""
import json, os
import torch
import torchvision.models as models

HERE = os.path.dirname(os.path.abspath(__file__))
events, clock = [], [1000]


def add(name, dims, concrete):
    events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": clock[0], "dur": 10,
                   "args": {"Input Dims": dims, "Concrete Inputs": concrete}})
    clock[0] += 20


def conv_hook(mod, inp, out):
    x = inp[0]
    add("aten::conv2d", [list(x.shape), list(mod.weight.shape), [] if mod.bias is None else list(mod.bias.shape),
                         [], [], [], []],
        ["", "", "", str(list(mod.stride)), str(list(mod.padding)), str(list(mod.dilation)), str(mod.groups)])


def fc_hook(mod, inp, out):
    x = inp[0]
    add("aten::addmm", [list(mod.bias.shape), list(x.shape), [mod.in_features, mod.out_features], [], []],
        ["", "", "", "1", "1"])


model = models.resnet18().eval()
for m in model.modules():
    if isinstance(m, torch.nn.Conv2d):
        m.register_forward_hook(conv_hook)
    if isinstance(m, torch.nn.Linear):
        m.register_forward_hook(fc_hook)
with torch.no_grad():
    model(torch.randn(5, 3, 224, 224))
with open(os.path.join(HERE, "..", "data", "resnet18_flops.json"), "w") as f:
    json.dump({"schemaVersion": 1, "traceEvents": events}, f)

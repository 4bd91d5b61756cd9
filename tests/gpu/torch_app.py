"""torch_app.py: a small PyTorch training loop on the GPU, for checking `tracedb record` against
PyTorch's own profiler (Kineto, which reads the same CUPTI records) on a real GPU (tests/gpu/check.sh).

  python3 torch_app.py                 the work alone (run under `tracedb record`)
  python3 torch_app.py --profile OUT   the same work under torch.profiler, its Chrome trace to OUT
  python3 torch_app.py --nvtx          the same work inside torch.autograd.profiler.emit_nvtx()

The work is deterministic (fixed seed, cuDNN's benchmark mode off), so each run launches the same
kernels; a DataLoader with two worker processes (forked after CUDA is up) is part of it."""
import contextlib
import sys

import torch
import torch.nn as nn


def model():
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))


def main():
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = True
    dev = torch.device("cuda")
    net = model().to(dev)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    data = torch.utils.data.TensorDataset(torch.randn(64, 3, 32, 32), torch.randint(0, 10, (64,)))
    loader = torch.utils.data.DataLoader(data, batch_size=16, num_workers=2)
    warm_x = torch.randn(16, 3, 32, 32, device=dev)
    net(warm_x).sum().backward()  # cuDNN and cuBLAS set up before anything is measured
    opt.zero_grad(set_to_none=True)
    torch.cuda.synchronize()

    prof = None
    ctx = contextlib.nullcontext()
    if len(sys.argv) == 3 and sys.argv[1] == "--profile":
        prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                  torch.profiler.ProfilerActivity.CUDA])
        ctx = prof
    elif len(sys.argv) == 2 and sys.argv[1] == "--nvtx":
        ctx = torch.autograd.profiler.emit_nvtx()
    torch.cuda.nvtx.range_push("measured")  # the window compared with the profiler's (warm-up left out)
    with ctx:
        for step, (x, y) in enumerate(loader):
            x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            if prof:
                prof.step()
        torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    if prof:
        prof.export_chrome_trace(sys.argv[2])
    print("steps", step + 1, "loss", float(loss))


if __name__ == "__main__":
    main()

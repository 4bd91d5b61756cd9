#!/usr/bin/python3
"""make_samples.py: makes the bundled sample traces with Debian's python3-torch (CPU, legacy profiler)
and saves PyTorch's own key_averages() beside each one: the oracle tracedb's tests compare against.

    /usr/bin/python3 samples/make_samples.py      # rewrites samples/*.json.gz and *.key_averages.json

resnet18_inference: the PyTorch profiler recipe (resnet18, input (5, 3, 224, 224), record_function
"model_inference"). train_schedule: a short training loop under torch.profiler.schedule(wait=1, warmup=1,
active=3) with record_function labels, so the trace has ProfilerStep#N ranges.
"""
import gzip, json, os, shutil
import torch
import torchvision.models as models
from torch.profiler import profile, record_function, ProfilerActivity, schedule

HERE = os.path.dirname(os.path.abspath(__file__))


def save(prof, name, trace_path):
    with open(trace_path, "rb") as src, gzip.open(os.path.join(HERE, name + ".json.gz"), "wb", 9) as dst:
        shutil.copyfileobj(src, dst)
    rows = [{"name": e.key, "calls": e.count, "self_cpu_us": e.self_cpu_time_total,
             "cpu_total_us": e.cpu_time_total} for e in prof.key_averages()]
    with open(os.path.join(HERE, name + ".key_averages.json"), "w") as f:
        json.dump({"torch": torch.__version__, "rows": rows,
                   "self_cpu_time_total_us": sum(r["self_cpu_us"] for r in rows)}, f, indent=1)
    with open(os.path.join(HERE, name + ".key_averages.txt"), "w") as f:
        f.write(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=-1) + "\n")


def resnet18_inference(tmp):
    torch.manual_seed(0)
    model = models.resnet18().eval()
    inputs = torch.randn(5, 3, 224, 224)
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    path = os.path.join(tmp, "resnet18_inference.json")
    prof.export_chrome_trace(path)
    save(prof, "resnet18_inference", path)


def train_schedule(tmp):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                torch.nn.Linear(8 * 30 * 30, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(16, 3, 32, 32)
    target = torch.randint(0, 10, (16,))
    path = os.path.join(tmp, "train_schedule.json")
    done = []

    def on_trace_ready(p):
        p.export_chrome_trace(path)
        done.append(p)

    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=on_trace_ready, record_shapes=True) as prof:
        for _ in range(6):
            with record_function("forward"):
                loss = torch.nn.functional.cross_entropy(model(data), target)
            with record_function("backward"):
                opt.zero_grad()
                loss.backward()
            with record_function("optimizer_step"):
                opt.step()
            prof.step()
    save(done[-1], "train_schedule", path)


if __name__ == "__main__":
    tmp = os.path.join(HERE, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    resnet18_inference(tmp)
    train_schedule(tmp)
    shutil.rmtree(tmp)

#!/usr/bin/python3
"""mwu_expected.py: two-sided Mann-Whitney U p-values from scipy.stats.mannwhitneyu (Debian's
python3-scipy, method "auto", continuity correction on) for hand-made step-time series, and the step
times of the two real HTA trace_diff traces. Writes tests/data/mwu_expected.json for test_diff.c."""
import gzip, json, os, random
from scipy.stats import mannwhitneyu
import scipy

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(7)
noisy_base = [round(rng.gauss(100000, 15000)) for _ in range(20)]
noisy_new = [round(rng.gauss(112000, 15000)) for _ in range(20)]
series = {
    "small_change_under_limit": ([100, 101, 99, 102, 100, 98], [101, 100, 102, 99, 101, 100]),
    "clear_shift": ([100, 101, 99, 103, 97, 98], [150, 151, 149, 153, 147, 148]),
    "noisy_real_shift": (noisy_base, noisy_new),
    "too_few_steps": ([100, 110], [150, 160, 170]),
    "ties": ([100, 100, 100, 101, 101], [101, 101, 102, 102, 102]),
    "one_small_sample_exact": ([100, 104, 99, 101, 98], [rng.randint(95, 140) * 1000 / 1000 + i / 100 for i in range(30)]),
    "large_samples": ([round(rng.gauss(50000, 5000)) for _ in range(60)], [round(rng.gauss(51500, 5000)) for _ in range(45)]),
}


def steps(name):
    with gzip.open(os.path.join(HERE, "..", "data", "kineto", name)) as f:
        doc = json.load(f)
    return [e["dur"] for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("name", "").startswith("ProfilerStep#")]


series["real_trace_diff"] = (steps("trace_diff_control_control.json.gz"), steps("trace_diff_test_test.json.gz"))
out = {"scipy": scipy.__version__, "cases": []}
for name, (x, y) in series.items():
    r = mannwhitneyu(x, y, alternative="two-sided")
    out["cases"].append({"name": name, "x": x, "y": y, "u1": float(r.statistic), "p": float(r.pvalue)})
with open(os.path.join(HERE, "..", "data", "mwu_expected.json"), "w") as f:
    json.dump(out, f, indent=1)
for c in out["cases"]:
    print(c["name"], len(c["x"]), len(c["y"]), c["u1"], c["p"])

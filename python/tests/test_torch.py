"""test_torch.py: PyTorch's profiler (Debian's python3-torch, CPU) with a schedule and
tracedb.torch.trace_handler: every cycle lands in one database, no JSON file is left behind, its steps
are the profiler's, and its ops (calls, self and total CPU time) equal the sums of the profiler's own
key_averages() over the cycles (its operators; the ProfilerStep* ranges are checked as steps);
tracedb.torch.load(prof) the same for a finished profiler."""
import os

import pytest
from conftest import need

import tracedb
import tracedb.torch


def small_model(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    return model, torch.randn(16, 64)


def profiled(torch, handler, steps=10, **schedule):
    """Profiles `steps` steps of the model; the profiler's own view of each cycle: {name: (calls, self us,
    total us)} from key_averages() and the step names."""
    from torch.profiler import ProfilerActivity, profile, schedule as make_schedule
    model, x = small_model(torch)
    cycles = []

    def on_trace_ready(prof):
        ka = {e.key: (e.count, e.self_cpu_time_total, e.cpu_time_total) for e in prof.key_averages()}
        events = prof.profiler.kineto_results.events()
        names = [e.name() for e in events if e.name().startswith("ProfilerStep#")]
        cycles.append((ka, names, raw_counts(events)))
        handler(prof)

    with profile(activities=[ProfilerActivity.CPU], schedule=make_schedule(**schedule), record_shapes=True,
                 on_trace_ready=on_trace_ready) as prof:
        for _ in range(steps):
            model(x).sum().backward()
            prof.step()
    return cycles, prof


def raw_counts(events):
    """How many events of each name the profiler recorded (before key_averages merges any)."""
    counts = {}
    for e in events:
        counts[e.name()] = counts.get(e.name(), 0) + 1
    return counts


def expected_ops(cycles):
    want, raw = {}, {}
    for ka, _, counts in cycles:
        for name, n in counts.items():
            raw[name] = raw.get(name, 0) + n
        for key, (calls, self_us, total_us) in ka.items():
            c, s, t = want.get(key, (0, 0, 0))
            want[key] = (c + calls, s + self_us, t + total_us)
    return want, raw


def compare(ops, expected):
    """tracedb's ops against key_averages(): every operator's calls, self and total CPU ns exact (the
    profiler's times are whole us), those PyTorch merged into a parent of their own name (aten::sum in
    aten::sum) included, where a run has them (a live run need not: tests/unit/test_ops_merge.c checks a
    recorded run that merges)."""
    want, _ = expected
    got = {r["name"]: (r["calls"], r["self_cpu_ns"], r["cpu_total_ns"]) for r in ops.to_dict("records")}
    for name, (calls, self_us, total_us) in want.items():
        if name == "ProfilerStep*":  # a range, not an operator: tracedb ops lists operators (the steps are
            continue                 # compared by name above)
        assert name in got, (name, sorted(got))
        assert got[name] == (calls, round(self_us * 1000), round(total_us * 1000)), (name, got[name], want[name])
    assert len(want) >= 10, len(want)


def test_trace_handler_appends_every_cycle_and_ops_equal_key_averages(tmp_path):
    torch = need("torch")
    db = tmp_path / "run.db"
    handler = tracedb.torch.trace_handler(db)
    cycles, _ = profiled(torch, handler, steps=10, wait=1, warmup=1, active=2, repeat=2)
    assert len(cycles) == 2 and handler.cycles == 2
    assert sorted(os.listdir(tmp_path)) == ["run.db"], "a cycle's JSON was left behind"
    t = tracedb.load(db)
    steps = t.sql("SELECT s.value AS name FROM event JOIN string s ON s.id = event.name_id "
                  "WHERE s.value LIKE 'ProfilerStep#%' ORDER BY start_ns")["name"]
    assert list(steps) == [n for _, names, _ in cycles for n in names]
    assert len(t.sql("SELECT * FROM trace")) == 2
    compare(t.ops(), expected_ops(cycles))


def test_an_existing_database_is_refused_unless_forced(tmp_path):
    torch = need("torch")
    db = tmp_path / "run.db"
    db.write_text("mine")
    with pytest.raises(tracedb.Error, match="already exists"):
        profiled(torch, tracedb.torch.trace_handler(db), steps=4, wait=1, warmup=1, active=2, repeat=1)
    assert db.read_text() == "mine"
    cycles, _ = profiled(torch, tracedb.torch.trace_handler(db, force=True), steps=4, wait=1, warmup=1,
                         active=2, repeat=1)
    compare(tracedb.load(db).ops(), expected_ops(cycles))


def test_load_takes_a_finished_profiler(tmp_path):
    torch = need("torch")
    from torch.profiler import ProfilerActivity, profile
    model, x = small_model(torch)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(3):
            model(x)
    ka = {e.key: (e.count, e.self_cpu_time_total, e.cpu_time_total) for e in prof.key_averages()}
    expected = (ka, raw_counts(prof.profiler.kineto_results.events()))
    t = tracedb.torch.load(prof)
    compare(t.ops(), expected)
    t2 = tracedb.torch.load(prof, db=tmp_path / "p.db")
    compare(t2.ops(), expected)
    # by input shape: the profiler's own groups (key_averages(group_by_input_shape=True)) and counts
    by_shape = {(e.key, str(e.input_shapes).replace(" ", "")): e.count
                for e in prof.key_averages(group_by_input_shape=True) if e.key in expected[1]}
    got = {(r["name"], r["input_shapes"]): r["calls"] for r in t.ops(group_by="shape").to_dict("records")}
    merged = {k for k, v in expected[0].items() if expected[1].get(k) != v[0]}
    for (name, shapes), calls in by_shape.items():
        if name not in merged:
            assert got.get((name, shapes)) == calls, (name, shapes, got.get((name, shapes)), calls)
    assert len([k for k in by_shape if k[0] not in merged]) >= 10

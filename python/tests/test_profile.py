"""test_profile.py: tracedb.profile over the C recorder, as Furiosa's and RAF's profilers are used: labels
nested and from two Python threads, each section a range of its own thread inside its parent; the
schedule's steps; print_summary's figures against numpy on the recorded durations."""
import os
import subprocess
import sys
import threading
import time

import numpy
import pytest

import tracedb


def work(p, label, n, inner=None):
    for _ in range(n):
        with p.record(label):
            time.sleep(0.001)
            if inner:
                with p.record(inner):
                    time.sleep(0.0005)


def test_labels_from_two_threads_nest_and_count(tmp_path, capsys):
    db = tmp_path / "run.db"
    with tracedb.profile(db) as p:
        with p.record("warm up"):
            work(p, "load", 3)
        threads = [threading.Thread(target=work, args=(p, "infer", 20, "kernel")),
                   threading.Thread(target=work, args=(p, "infer", 15, "kernel"))]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    t = p.trace
    rows = t.sql("SELECT s.value AS name, e.thread_id, e.depth, e.dur_ns, ps.value AS parent "
                 "FROM event e JOIN string s ON s.id = e.name_id "
                 "LEFT JOIN event pe ON pe.id = e.parent_id LEFT JOIN string ps ON ps.id = pe.name_id")
    counts = rows["name"].value_counts().to_dict()
    assert counts == {"warm up": 1, "load": 3, "infer": 35, "kernel": 35}
    assert set(rows[rows.name == "load"]["parent"]) == {"warm up"}
    assert set(rows[rows.name == "kernel"]["parent"]) == {"infer"}
    assert rows[rows.name == "infer"]["parent"].isna().all()
    assert rows[rows.name == "infer"]["thread_id"].nunique() == 2
    # every kernel lies on its parent's thread
    kernels = rows[rows.name == "kernel"]
    assert (kernels["dur_ns"] >= 500_000).all()
    # the summary: count, min, max, mean, median, p90..p99.9 in ns, as numpy computes them
    summary = p.summary().set_index("name")
    assert list(summary.index) == ["warm up", "load", "infer", "kernel"]
    for label in summary.index:
        d = numpy.sort(rows[rows.name == label]["dur_ns"].to_numpy())
        row = summary.loc[label]
        assert row["count"] == len(d)
        assert row["min_ns"] == d.min() and row["max_ns"] == d.max()
        assert abs(row["mean_ns"] - d.mean()) <= 1
        assert abs(row["median_ns"] - numpy.median(d)) <= 1
    p.print_summary()
    out = capsys.readouterr().out
    for field in ("count", "min_ns", "max_ns", "mean_ns", "median_ns", "p90_ns", "p95_ns", "p97_ns", "p99_ns",
                  "p999_ns"):
        assert field in out
    assert out.startswith("warm up:\n")


def test_a_schedule_keeps_the_active_steps(tmp_path):
    db = tmp_path / "run.db"
    with tracedb.profile(db, wait=1, warmup=1, active=2, repeat=1) as p:
        for i in range(6):
            with p.record(f"step body {i}"):
                time.sleep(0.001)
            p.step()
    names = set(p.trace.sql("SELECT s.value AS name FROM event e JOIN string s ON s.id = e.name_id")["name"])
    bodies = sorted(n for n in names if n.startswith("step body"))
    assert bodies == ["step body 2", "step body 3"], names


def test_misuse_is_an_error_not_a_crash(tmp_path):
    db = tmp_path / "run.db"
    db.write_text("mine")
    with pytest.raises(tracedb.Error, match="already exists"):
        with tracedb.profile(db):
            pass
    assert db.read_text() == "mine"
    p = tracedb.profile(tmp_path / "other.db")
    with pytest.raises(tracedb.Error, match="not recording"):
        with p.record("x"):
            pass
    with tracedb.profile(tmp_path / "a.db"):
        with pytest.raises(tracedb.Error, match="already open"):
            with tracedb.profile(tmp_path / "b.db"):
                pass


def test_a_recording_that_cannot_start_says_why_in_the_error(tmp_path, capfd):
    """The recorder's reason is in the Error itself (a notebook shows no C stderr): a staging file left by a
    recording that never closed, named with what to do; a folder that does not exist, named."""
    stage = tmp_path / "run.db-stage"
    stage.write_bytes(b"left by a killed run")
    with pytest.raises(tracedb.Error) as e:
        with tracedb.profile(tmp_path / "run.db"):
            pass
    assert f"{stage}: a recording that never closed left it: run tracedb finish" in str(e.value), str(e.value)
    assert stage.read_bytes() == b"left by a killed run" and not (tmp_path / "run.db").exists()
    missing = tmp_path / "no such folder" / "run.db"
    with pytest.raises(tracedb.Error) as e:
        with tracedb.profile(missing):
            pass
    assert f"{missing}: No such file or directory" in str(e.value), str(e.value)
    assert capfd.readouterr().err == "", "said in the Error, not also on stderr"
    with tracedb.profile(tmp_path / "fine.db") as p:  # stderr is the process's own again
        with p.record("x"):
            pass
    assert p.trace.sql("SELECT count(*) AS n FROM events")["n"][0] == 1


def test_a_process_whose_stderr_is_closed_records(tmp_path):
    """A process may run with file descriptor 2 closed (a daemon, `2>&-`): profile records all the same, and
    a recording that cannot start still says why in its Error."""
    child = (
        "import os, sys, tracedb\n"
        "with tracedb.profile(sys.argv[1]) as p:\n"
        "    with p.record('x'):\n"
        "        pass\n"
        "print(p.trace.sql('SELECT count(*) AS n FROM events')['n'][0])\n"
        "try:\n"
        "    tracedb.profile(os.path.join(sys.argv[2], 'run.db')).__enter__()\n"
        "except tracedb.Error as e:\n"
        "    print('Error:', e)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(tracedb.__file__)))
    missing = tmp_path / "no such folder"
    p = subprocess.run(["/bin/sh", "-c", 'exec "$0" -c "$1" "$2" "$3" 2>&-', sys.executable, child,
                        str(tmp_path / "run.db"), str(missing)],
                       capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": root})
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "1", p.stdout
    assert lines[1].startswith(f"Error: cannot record into {missing}/run.db: ") and "No such file or directory" in lines[1], p.stdout
    assert len(lines) == 2, p.stdout

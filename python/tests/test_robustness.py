"""test_robustness.py: what a newcomer and an attacker tried (each failed before its fix): --help ending
the interpreter, close() racing queries, a stale cached import, relative paths after chdir, a file replaced
under an open Trace, loads of one trace at once, CPU memory taken for a GPU's, keywords that are not
options, a handler told late that its database exists, a view in a table's place."""
import os
import shutil
import subprocess
import sys
import threading
import time

import pytest
from conftest import KINETO, ROOT, command, need

import tracedb

ALEX = os.path.join(KINETO, "critical_path_alexnet_trace.json.gz")
CONTROL = os.path.join(KINETO, "trace_diff_control_control.json.gz")


def events_of(db):
    import sqlite3
    with sqlite3.connect(db) as con:
        return con.execute("SELECT count(*) FROM event").fetchone()[0]


def in_python(code):
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_help_is_an_error_not_the_end_of_the_interpreter(dbs):
    db = dbs["critical_path_alexnet_trace.json.gz"]
    p = in_python("import tracedb\n"
                  f"t = tracedb.load({db!r})\n"
                  "for call in (lambda: t.summary(help=True), lambda: tracedb.diff(t, t, help=True),\n"
                  "             lambda: t.ops(h=True), lambda: tracedb.diff('-h', t)):\n"
                  "    try:\n        call()\n    except tracedb.Error as e:\n        print('Error:', e)\n"
                  "print('after')\n")
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("Error:") == 4 and p.stdout.endswith("after\n"), p.stdout


def test_close_while_other_threads_query_does_not_crash(dbs):
    db = dbs["critical_path_alexnet_trace.json.gz"]
    p = in_python("import threading, tracedb\n"
                  f"t = tracedb.load({db!r})\n"
                  "stop = False\n"
                  "def work():\n"
                  "    while not stop:\n"
                  "        assert len(t.kernels()) > 0 and t.sql('SELECT count(*) AS n FROM event')['n'][0] == 870\n"
                  "ths = [threading.Thread(target=work) for _ in range(4)]\n"
                  "[th.start() for th in ths]\n"
                  "for _ in range(200):\n    t.close()\n"
                  "stop = True\n[th.join() for th in ths]\nprint('ok')\n")
    assert p.returncode == 0 and p.stdout == "ok\n", (p.returncode, p.stderr[-2000:])


def test_a_trace_replaced_by_an_older_file_is_imported_again(tmp_path):
    trace = tmp_path / "run.json.gz"
    shutil.copy(CONTROL, trace)
    assert events_of(tracedb.load(trace).path) == events_of(command_db(CONTROL, tmp_path / "a.db"))
    shutil.copy(ALEX, trace)
    os.utime(trace, ns=(1, 1))  # as cp -p, rsync -t or tar x leave it: older than the cached import
    assert events_of(tracedb.load(trace).path) == 870


def command_db(trace, db):
    command("import", "-q", trace, "-o", db)
    return str(db)


def test_a_trace_keeps_its_file_when_the_process_changes_folder(tmp_path, monkeypatch):
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    command_db(ALEX, one / "run.db")
    command_db(CONTROL, two / "run.db")
    monkeypatch.chdir(one)
    t = tracedb.Trace("run.db")
    monkeypatch.chdir(two)
    assert t.sql("SELECT count(*) AS n FROM event")["n"][0] == 870
    assert t.summary()["trace"]["events"][0] == 870
    assert t.path == str(one / "run.db")


def test_sql_and_reports_read_one_file_after_it_is_replaced(tmp_path):
    db = tmp_path / "run.db"
    command_db(ALEX, db)
    t = tracedb.load(db)
    assert t.sql("SELECT count(*) AS n FROM event")["n"][0] == 870
    command("import", "-q", CONTROL, "-o", db, "--force")  # a new file under the name
    n = events_of(db)
    assert t.sql("SELECT count(*) AS n FROM event")["n"][0] == n
    assert t.summary()["trace"]["events"][0] == n


def test_loads_of_one_trace_at_once_all_succeed(tmp_path):
    trace = tmp_path / "run.json.gz"
    shutil.copy(CONTROL, trace)
    results, errors = [], []

    def load():
        try:
            results.append(events_of(tracedb.load(trace).path))
        except Exception as e:  # noqa: BLE001 - the test reports any
            errors.append(e)
    threads = [threading.Thread(target=load) for _ in range(4)]
    [th.start() for th in threads]
    [th.join() for th in threads]
    assert not errors, errors
    assert len(set(results)) == 1 and len(results) == 4
    assert sorted(os.listdir(tmp_path)) == ["run.json.gz", "run.json.gz.tracedb"]


def test_keywords_that_are_not_options(dbs):
    t = tracedb.load(dbs["critical_path_alexnet_trace.json.gz"])
    for call in (lambda: t.summary(format="csv"), lambda: tracedb.diff(t, t, section="steps"),
                 lambda: tracedb.diff(t, t, format="csv"), lambda: t.kernels(format="json")):
        with pytest.raises(tracedb.Error, match="not an option here"):
            call()
    with pytest.raises(tracedb.Error, match="not tracedb's"):
        import sqlite3
        other = os.path.join(os.path.dirname(t.path), "other.db")
        sqlite3.connect(other).execute("CREATE TABLE x(y)").connection.close()
        tracedb.load(other)
    with pytest.raises(tracedb.Error, match="a path is a str"):
        tracedb.load(123)


def test_cpu_memory_is_the_hosts(tmp_path):
    torch = need("torch")
    from torch.profiler import ProfilerActivity, profile
    model, x = torch.nn.Linear(64, 32), torch.randn(16, 64)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        model(x)
    t = tracedb.torch.load(prof)
    ops = t.ops()
    assert (ops["self_cpu_mem_bytes"] != 0).any(), ops[["name", "self_cpu_mem_bytes"]]
    assert (ops["device_mem_bytes"] == 0).all() and (ops["self_device_mem_bytes"] == 0).all()
    assert t.sql("SELECT count(*) AS n FROM memory_events WHERE device >= 0")["n"][0] == 0


def test_the_handler_says_at_once_that_its_database_exists(tmp_path):
    need("torch")
    import tracedb.torch
    db = tmp_path / "run.db"
    db.write_text("mine")
    with pytest.raises(tracedb.Error, match="already exists"):
        tracedb.torch.trace_handler(db)
    with pytest.raises(tracedb.Error, match="not a folder"):
        tracedb.torch.trace_handler(tmp_path / "no" / "run.db")


def test_profile_labels_and_the_final_drop_count(tmp_path):
    with tracedb.profile(tmp_path / "run.db") as p:
        with p.record(b"bytes label"):
            time.sleep(0.001)
        with pytest.raises(tracedb.Error, match="no NUL"):
            with p.record("a\0b"):
                pass
    assert p.dropped == 0
    assert list(p.summary()["name"]) == ["bytes label"]


def _view_in_place_of(db, table):
    """db's table renamed away and a view that never ends in its place (a stranger's database)."""
    import sqlite3
    con = sqlite3.connect(db)
    con.executescript(
        "DROP TRIGGER IF EXISTS event_pack_stale_insert; DROP TRIGGER IF EXISTS event_pack_stale_delete; "
        "DROP TRIGGER IF EXISTS event_pack_stale_update; "
        f"ALTER TABLE {table} RENAME TO {table}_kept; CREATE VIEW {table} AS WITH RECURSIVE r(n) AS "
        f"(SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT t.* FROM {table}_kept t, r WHERE r.n = 0")
    con.close()


def test_a_view_in_a_tables_place_is_refused_at_once(dbs, tmp_path):
    """A stranger's database whose meta or event table is a view of a query that never ends: load and the
    reports raise at once with what is wrong (they used to run that query for ever; a child process, so
    that a hang fails the test instead of stopping the run)."""
    for table in ("meta", "event"):
        db = tmp_path / f"{table}.db"
        shutil.copy(dbs["critical_path_alexnet_trace.json.gz"], db)
        _view_in_place_of(db, table)
        child = ("import sys, tracedb\n"
                 "try:\n    tracedb.load(sys.argv[1]).kernels()\nexcept tracedb.Error as e:\n    print(e)\n")
        done = subprocess.run([sys.executable, "-c", child, str(db)], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
        said = f"{table} is a view, not a table" if table == "event" else "not tracedb's"
        assert done.returncode == 0 and said in done.stdout, (table, done.stdout, done.stderr)

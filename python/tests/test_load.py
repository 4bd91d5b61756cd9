"""test_load.py: tracedb.load of a database, a trace, a directory of traces: the database beside the
trace reused while the trace is unchanged, a temporary one where the folder cannot be written, db= naming
it; the import's warnings as Python warnings; and the errors (missing file, not a trace, a bad option or
value, pandas missing) raised as tracedb.Error with the command's message, never a crash."""
import gzip
import os
import shutil
import subprocess
import sys
import time
import warnings

import pytest
from conftest import KINETO, ROOT, command

import tracedb


def kernels_of(db):
    """Kernel instances by plain SQL, the oracle for what an import holds."""
    import sqlite3
    with sqlite3.connect(db) as con:
        return con.execute("SELECT count(*) FROM kernels").fetchone()[0]


def test_a_trace_is_imported_beside_it_and_reused_while_unchanged(trace_copy):
    trace = trace_copy()
    t = tracedb.load(trace)
    assert t.path == trace + ".tracedb"
    assert kernels_of(t.path) == 79  # AlexNet's trace: HTA's own count of its kernels
    first = os.stat(t.path).st_mtime_ns
    time.sleep(0.01)
    assert tracedb.load(trace).path == t.path
    assert os.stat(t.path).st_mtime_ns == first, "the unchanged trace was imported again"
    os.utime(trace)  # the trace changed: imported again
    t3 = tracedb.load(trace)
    assert os.stat(t3.path).st_mtime_ns != first
    assert kernels_of(t3.path) == 79


def test_the_database_beside_the_trace_is_the_one_the_command_reads(trace_copy):
    trace = trace_copy()
    t = tracedb.load(trace)
    first = os.stat(t.path).st_mtime_ns
    _, _, err = command("summary", trace)  # the command's own: no import, nothing said
    assert err == "" and os.stat(t.path).st_mtime_ns == first
    os.utime(trace)
    _, _, err = command("summary", trace)  # the command imports the changed trace: load uses that
    assert "importing" in err
    second = os.stat(t.path).st_mtime_ns
    assert second != first and tracedb.load(trace).path == t.path and os.stat(t.path).st_mtime_ns == second


def test_a_file_of_that_name_not_ours_is_left_alone(trace_copy, tmp_path):
    trace = trace_copy()
    with open(trace + ".tracedb", "w") as f:
        f.write("my notes\n")
    t = tracedb.load(trace)
    assert t.path != trace + ".tracedb"
    assert open(trace + ".tracedb").read() == "my notes\n"
    assert kernels_of(t.path) == 79


def test_a_folder_of_that_name_gets_a_temporary_database(trace_copy):
    trace = trace_copy()
    os.mkdir(trace + ".tracedb")
    t = tracedb.load(trace)
    assert not t.path.startswith(trace) and kernels_of(t.path) == 79
    assert os.listdir(trace + ".tracedb") == []


def test_db_names_the_database_and_a_directory_imports_its_traces(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    for name in ("trace_diff_control_control.json.gz", "trace_diff_test_test.json.gz"):
        shutil.copy(os.path.join(KINETO, name), folder / name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the two traces' clocks differ: said, as the command says it
        t = tracedb.load(folder, db=tmp_path / "both.db")
    assert t.path == str(tmp_path / "both.db")
    each = 0
    for name in sorted(os.listdir(folder)):
        command("import", "-q", folder / name, "-o", tmp_path / (name + ".db"))
        each += kernels_of(tmp_path / (name + ".db"))
    assert kernels_of(t.path) == each
    assert len(t.sql("SELECT * FROM trace")) == 2
    # db= exists: refused in Python's words (force=True), then replaced with it
    with pytest.raises(tracedb.Error, match=r"both.db already exists; force=True replaces it$") as e:
        tracedb.load(folder, db=tmp_path / "both.db")
    assert "--" not in str(e.value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert kernels_of(tracedb.load(folder / "trace_diff_test_test.json.gz", db=tmp_path / "both.db", force=True).path) == \
            kernels_of(tmp_path / "trace_diff_test_test.json.gz.db")


def test_the_imports_warnings_are_python_warnings(tmp_path):
    src = os.path.join(KINETO, "critical_path_alexnet_trace.json.gz")
    text = gzip.open(src, "rt").read()
    damaged = tmp_path / "damaged.json"
    cut = text.index('"traceEvents"') + 2000
    damaged.write_text(text[:cut] + "\x01garbage" + text[cut:])
    with pytest.warns(UserWarning, match="damaged"):
        t = tracedb.load(damaged)
    assert t.sql("SELECT status FROM trace")["status"][0] == "partial"


def test_errors_are_tracedb_errors_with_the_commands_message(tmp_path, dbs):
    with pytest.raises(tracedb.Error, match="no such file"):
        tracedb.load(tmp_path / "missing.json")
    notes = tmp_path / "notes.json"
    notes.write_text("these are my notes, not a trace\n")
    with pytest.raises(tracedb.Error) as e:
        tracedb.load(notes)
    _, _, err = command("import", notes, "-o", tmp_path / "x.db", check=False)
    assert err.strip().splitlines()[0] in str(e.value)
    t = tracedb.load(next(iter(dbs.values())))
    with pytest.raises(tracedb.Error, match=r"tracedb ops: unknown --group-by 'colour'"):
        t.ops(group_by="colour")
    with pytest.raises(tracedb.Error, match=r"--limit wants a non-negative integer"):
        t.ops(limit="ten")
    with pytest.raises(tracedb.Error, match=r"tracedb kernels: unknown option '--colour'"):
        t.kernels(colour="blue")
    with pytest.raises(tracedb.Error, match="no such table: no_such_table"):
        t.sql("SELECT * FROM no_such_table")


def test_without_pandas_the_dataframe_methods_name_the_package(dbs):
    db = next(iter(dbs.values()))
    code = ("import sys; sys.modules['pandas'] = None\n"
            "import tracedb\n"
            f"t = tracedb.load({db!r})\n"
            "try:\n    t.ops()\nexcept tracedb.Error as e:\n    print('Error:', e)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "python")})
    assert p.returncode == 0, p.stderr
    assert "Error: the DataFrame methods need pandas: apt-get install python3-pandas" in p.stdout

"""test_readme.py: the README's "From Python" example runs as written, in a folder holding the files it
names (trace.json.gz: AlexNet's real trace; base.db and new.db: the trace_diff pair); and make install
puts a package that finds its own library, with no LD_LIBRARY_PATH."""
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys

from conftest import KINETO, ROOT, command, need


def readme_python():
    text = open(os.path.join(ROOT, "README.md")).read()
    section = text[text.index("## From Python"):]
    section = section[:section.index("\n## ", 1)]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_as_written(tmp_path, monkeypatch):
    need("torch")
    shutil.copy(os.path.join(KINETO, "critical_path_alexnet_trace.json.gz"), tmp_path / "trace.json.gz")
    command("import", "-q", os.path.join(KINETO, "trace_diff_control_control.json.gz"), "-o", tmp_path / "base.db")
    command("import", "-q", os.path.join(KINETO, "trace_diff_test_test.json.gz"), "-o", tmp_path / "new.db")
    monkeypatch.chdir(tmp_path)
    code = readme_python()
    scope = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), scope)
    printed = out.getvalue()
    assert "fail 0.0021645021645021645" in printed  # the line the README shows
    assert "warm up:" in printed and "inference:" in printed
    assert os.path.getsize(tmp_path / "report.html") > 10000
    assert scope["tracedb"].load("run.db").sql("SELECT count(*) AS n FROM trace")["n"][0] == 1


def test_make_install_gives_a_package_that_finds_its_library(tmp_path):
    prefix = tmp_path / "prefix"
    p = subprocess.run(["make", "-s", "-C", ROOT, "install", f"PREFIX={prefix}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    minor = sys.version_info[1]
    site = prefix / "lib" / f"python3.{minor}" / "dist-packages"
    assert (site / "tracedb" / "__init__.py").exists()
    code = ("import tracedb, tracedb._native as n; print(n.library_path()); "
            f"print(len(tracedb.load({os.path.join(KINETO, 'critical_path_alexnet_trace.json.gz')!r}, "
            f"db={str(tmp_path / 'x.db')!r}).kernels()))")
    env = {k: v for k, v in os.environ.items() if k not in ("LD_LIBRARY_PATH", "TRACEDB_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = str(site)
    run = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split()
    assert lines[0] == str(prefix / "lib" / "libtracedb.so")
    assert int(lines[1]) > 0

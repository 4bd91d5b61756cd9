"""conftest.py: what the package's tests share: the repository's paths, the tracedb command (the oracle
the DataFrames are compared with), databases imported from tests/data, and a module that is missing
failing the run under CI=true rather than skipping (the project's rule)."""
import importlib
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
TRACEDB = os.environ.get("TRACEDB") or os.path.join(ROOT, "build", "tracedb")
KINETO = os.path.join(ROOT, "tests", "data", "kineto")
THREE = ["nccl_parser_config_nccl_data.json.gz", "trace_diff_control_control.json.gz",
         "critical_path_alexnet_trace.json.gz"]


def need(module):
    """module (scipy.stats: the submodule), imported; its absence skips the test, or fails it under CI=true."""
    if os.environ.get("CI") == "true":
        return importlib.import_module(module)
    return pytest.importorskip(module)


def command(*args, check=True):
    """`tracedb ARGS...` as a program: (status, stdout, stderr)."""
    p = subprocess.run([TRACEDB, *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"tracedb {' '.join(map(str, args))}: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="session")
def dbs(tmp_path_factory):
    """The three real traces, imported by the tracedb command."""
    folder = tmp_path_factory.mktemp("dbs")
    out = {}
    for name in THREE:
        db = folder / (name.split(".")[0] + ".db")
        command("import", "-q", os.path.join(KINETO, name), "-o", db)
        out[name] = str(db)
    return out


@pytest.fixture
def trace_copy(tmp_path):
    """A copy of one real trace in a folder of the test's own."""
    def copy(name="critical_path_alexnet_trace.json.gz"):
        dst = tmp_path / name
        shutil.copy(os.path.join(KINETO, name), dst)
        return str(dst)
    return copy

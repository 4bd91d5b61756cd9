"""tracedb: trace analysis for machine-learning workloads, in Python, over libtracedb (C over SQLite).

    import tracedb
    t = tracedb.load("trace.json.gz")      # a database, a trace or a directory of traces
    t.ops(group_by="shape", limit=20)       # every report a DataFrame, the command's options as keywords
    t.sql("SELECT name, median(dur_ns) FROM kernels GROUP BY name")
    d = tracedb.diff("base.db", "new.db", fail_above=5); d.verdict
    with tracedb.profile("run.db") as p:    # record this program
        with p.record("warm up"): ...
    torch.profiler.profile(..., on_trace_ready=tracedb.torch.trace_handler("run.db"))
"""
from ._native import version as _version
from .diff import Diff, diff
from .errors import Error
from .profile import profile
from .trace import REPORTS, Page, Trace, load

__all__ = ["Diff", "Error", "Page", "REPORTS", "Trace", "diff", "load", "profile", "torch", "version"]


def version():
    """libtracedb's version."""
    return _version()


def __getattr__(name):
    if name == "torch":  # imported on first use: importing torch takes seconds
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(name)

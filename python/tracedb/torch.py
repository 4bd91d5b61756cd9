"""torch.py: PyTorch's profiler into tracedb databases: trace_handler(db) for
torch.profiler.profile(on_trace_ready=...) appends each cycle to one database (steps keep their numbers,
the rank comes from the trace), and load(prof) takes a finished profiler. A cycle goes through a
temporary Chrome trace, removed once imported: PyTorch's own export where it has Kineto; where it has not
(a CPU-only build, whose export is the legacy format, whole microseconds with no shapes), one written from
the profiler's events with the fields Kineto gives them (category, input shapes and types, sequence
numbers, memory instants)."""
import json
import os
import tempfile

from .errors import Error
from .trace import Trace, _path, import_traces

_USER_SCOPE = 7  # torch.autograd.RecordScope.USER_SCOPE: record_function and ProfilerStep#N


def _kineto_available():
    import torch.autograd
    return bool(torch.autograd.kineto_available())


def _rank():
    try:
        import torch.distributed as dist
        if dist.is_available() and dist.is_initialized():
            return {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "backend": dist.get_backend()}
    except Exception:  # the distributed package is optional
        pass
    return None


def events_trace(prof):
    """A Kineto-shaped trace (a dict) of a profiler's events (prof.profiler.kineto_results)."""
    results = prof.profiler.kineto_results
    pid = os.getpid()
    events = []
    for e in results.events():
        start, dur, tid = e.start_us(), e.duration_us(), e.start_thread_id()
        if e.name() == "[memory]":  # Kineto's fields: device type 0 and id -1 on the host
            on_cpu = str(e.device_type()).endswith("CPU")
            events.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": pid,
                           "tid": tid, "ts": start,
                           "args": {"Bytes": e.nbytes(), "Device Type": 0 if on_cpu else 1,
                                    "Device Id": -1 if on_cpu else e.device_index()}})
            continue
        args = {"External id": e.correlation_id()}
        shapes = e.shapes()
        if shapes:
            args["Input Dims"] = [list(s) for s in shapes]
            args["Input type"] = list(e.dtypes())
        if e.sequence_nr() >= 0:
            args["Sequence number"] = e.sequence_nr()
            args["Fwd thread id"] = e.fwd_thread_id()
        events.append({"ph": "X", "cat": "user_annotation" if e.scope() == _USER_SCOPE else "cpu_op",
                       "name": e.name(), "pid": pid, "tid": tid, "ts": start, "dur": dur, "args": args})
    trace = {"schemaVersion": 1, "traceEvents": events, "displayTimeUnit": "ms",
             "traceName": "torch.profiler (tracedb.torch)"}
    rank = _rank()
    if rank:
        trace["distributedInfo"] = rank
    return trace


def _write(prof, path):
    if _kineto_available():
        prof.export_chrome_trace(path)
    else:
        with open(path, "w") as f:
            json.dump(events_trace(prof), f)


def _import_cycle(prof, db, append):
    folder = os.path.dirname(os.path.abspath(db))
    try:
        fd, path = tempfile.mkstemp(prefix=".tracedb-cycle-", suffix=".json", dir=folder)
    except OSError:
        fd, path = tempfile.mkstemp(prefix="tracedb-cycle-", suffix=".json")
    os.close(fd)
    try:
        _write(prof, path)
        import_traces([path], db, append=append)
    finally:
        os.remove(path)


class trace_handler:
    """on_trace_ready=tracedb.torch.trace_handler("run.db"): each cycle of the schedule appended to run.db
    (made by the first; an existing file is refused unless force=True, which replaces it)."""

    def __init__(self, db, force=False):
        self.db = _path(db)
        self.force = force
        self.cycles = 0
        # said now, before the model runs: at the first cycle it would come after the work, and PyTorch
        # hides an exception of on_trace_ready behind one of its own
        folder = os.path.dirname(self.db)
        if os.path.exists(self.db) and not force:
            raise Error(f"{self.db} already exists (trace_handler(..., force=True) replaces it)")
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise Error(f"{folder}: not a folder this process can write into")

    def __call__(self, prof):
        if self.cycles == 0 and os.path.exists(self.db):
            if not self.force:
                raise Error(f"{self.db} already exists (trace_handler(..., force=True) replaces it)")
            os.remove(self.db)
        _import_cycle(prof, self.db, append=self.cycles > 0)
        self.cycles += 1

    @property
    def trace(self):
        """The database written so far."""
        return Trace(self.db)


def load(prof, db=None):
    """A Trace of a finished profiler's events (the last cycle's, as prof.key_averages() has them): into
    db (refused when it exists), or a temporary database."""
    if db is not None:
        db = _path(db)
        if os.path.exists(db):
            raise Error(f"{db} already exists")
        _import_cycle(prof, db, append=False)
        return Trace(db)
    scratch = tempfile.TemporaryDirectory(prefix="tracedb-")
    db = os.path.join(scratch.name, "profile.db")
    _import_cycle(prof, db, append=False)
    t = Trace(db)
    t._temporary = scratch
    return t

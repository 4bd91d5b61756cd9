"""profile.py: recording a Python program with the C recorder, the way Furiosa's and RAF's profilers are
used: `with tracedb.profile("run.db") as p:`, labelled sections `with p.record("warm up"):` (nested, from
any thread), `p.step()` for schedules; after the block p.trace is the database and p.print_summary()
prints each label's latency (count, min, max, mean, median, p90 ... p99.9 in ns)."""
import contextlib
import ctypes
import os
import sys
import tempfile
import threading

from . import _native
from .errors import Error
from .trace import Trace, _path


class _Options(ctypes.Structure):  # struct tdb_options (include/tracedb.h)
    _fields_ = [("level", ctypes.c_int), ("kinds", ctypes.c_char_p), ("skip_first", ctypes.c_int),
                ("wait", ctypes.c_int), ("warmup", ctypes.c_int), ("active", ctypes.c_int),
                ("repeat", ctypes.c_int), ("on_cycle", ctypes.c_void_p), ("on_cycle_arg", ctypes.c_void_p)]


def _typed(lib):
    lib.tdb_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Options)]
    lib.tdb_open.restype = ctypes.c_void_p
    lib.tdb_close.argtypes = [ctypes.c_void_p]
    lib.tdb_current.restype = ctypes.c_void_p
    lib.tdb_range_push.argtypes = [ctypes.c_char_p]
    lib.tdb_range_push_args.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.tdb_instant.argtypes = [ctypes.c_char_p]
    lib.tdb_counter.argtypes = [ctypes.c_char_p, ctypes.c_double]
    lib.tdb_dropped.restype = ctypes.c_int64
    return lib


@contextlib.contextmanager
def _stderr_caught(said):
    """What the C recorder prints on file descriptor 2 while the block runs, appended to the list `said` (a
    notebook shows Python's sys.stderr, not the process's descriptor): the caller raises it in its Error,
    or passes it on to sys.stderr. A process whose descriptor 2 is closed (sys.stderr is then None) has it
    closed again after."""
    if sys.stderr is not None:
        sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:
        saved = None
    with tempfile.TemporaryFile() as caught:  # (descriptor 2 itself where it was closed)
        os.dup2(caught.fileno(), 2)
        try:
            yield
        finally:
            caught.seek(0)
            said.append(caught.read().decode("utf-8", "replace").strip())
            if saved is not None:
                os.dup2(saved, 2)
                os.close(saved)
            elif caught.fileno() != 2:
                os.close(2)


def _pass_on(text):
    if text and sys.stderr is not None:
        print(text, file=sys.stderr)


class profile:
    """Records this process into a new database at path (refused when it exists, unless force=True).
    skip_first, wait, warmup, active and repeat are PyTorch's schedule: p.step() ends a step, as
    prof.step() does, and the code before the first p.step() is the schedule's first step."""

    def __init__(self, path, force=False, skip_first=0, wait=0, warmup=0, active=0, repeat=0):
        self.path = _path(path)
        self.force = force
        self.schedule = (skip_first, wait, warmup, active, repeat)
        self.trace = None
        self._rec = None
        self._labels = {}  # label: None, in the order first recorded
        self._labels_lock = threading.Lock()
        self._lib = None
        self._dropped = 0

    def __enter__(self):
        lib = _typed(_native.lib())
        if lib.tdb_current():
            raise Error("a recording is already open in this process (one at a time)")
        if os.path.exists(self.path):
            if not self.force:
                raise Error(f"{self.path} already exists (force=True replaces it)")
            for suffix in ("", "-stage", "-journal", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(self.path + suffix)
        skip_first, wait, warmup, active, repeat = self.schedule
        opts = _Options(level=2, kinds=None, skip_first=skip_first, wait=wait, warmup=warmup, active=active,
                        repeat=repeat)
        said = []
        with _stderr_caught(said):
            rec = lib.tdb_open(os.fsencode(self.path), ctypes.byref(opts))
        if not rec:
            raise Error(f"cannot record into {self.path}: {said[0] or 'the recorder gave no reason'}")
        _pass_on(said[0])
        self._lib, self._rec = lib, rec
        if active > 0:  # PyTorch counts the steps from the block's start: the first is the schedule's first
            lib.tdb_step()
        return self

    def __exit__(self, *exc):
        rec, self._rec = self._rec, None
        if rec is None:
            return False
        self._dropped = self._lib.tdb_dropped()
        said = []
        with _stderr_caught(said):
            closed = self._lib.tdb_close(rec)
        if closed != 0:
            raise Error(said[0] or f"{self.path}: the recording could not be completed")
        _pass_on(said[0])
        self.trace = Trace(self.path)
        return False

    def _open(self):
        if self._rec is None:
            raise Error("not recording: use the profile inside its `with` block")
        return self._lib

    @contextlib.contextmanager
    def record(self, label):
        """A labelled section of this thread, nested in the open ones."""
        lib = self._open()
        if isinstance(label, bytes):
            label = label.decode("utf-8", "replace")
        label = str(label)
        if label not in self._labels:
            text = label.encode()
            if b"\0" in text or len(text) > 1024:
                raise Error(f"a label is text of up to 1024 bytes with no NUL: {label[:40]!r}...")
            with self._labels_lock:
                self._labels.setdefault(label, None)
        lib.tdb_range_push(label.encode())
        try:
            yield
        finally:
            lib.tdb_range_pop()

    def step(self):
        """A step boundary (ProfilerStep#N; the schedule counts these)."""
        self._open().tdb_step()

    def mark(self, name):
        """An instant event."""
        self._open().tdb_instant(str(name).encode())

    def counter(self, name, value):
        """A counter's value now."""
        self._open().tdb_counter(str(name).encode(), float(value))

    @property
    def dropped(self):
        """Events dropped (a ring was full): so far, or in the whole recording after the block."""
        return self._lib.tdb_dropped() if self._rec is not None else self._dropped

    def summary(self):
        """Per label recorded, its latency (tracedb latency --name LABEL): a DataFrame, one row a label."""
        if self.trace is None:
            raise Error("the summary is there after the `with` block")
        from . import frames
        rows, columns = [], None
        for label in self._labels:
            df = self.trace.latency(name=label)
            columns = list(df.columns)
            rows += [list(r) for r in df.itertuples(index=False, name=None)]
        return frames.frame(columns or [], rows)

    def print_summary(self):
        """Furiosa's summary: for each label, count, min, max, mean, median, p90, p95, p97, p99, p99.9 (ns)."""
        df = self.summary()
        for row in df.to_dict("records"):
            print(f"{row['name']}:")
            for key in df.columns[1:]:
                print(f"    {key:<10} {row[key]}")

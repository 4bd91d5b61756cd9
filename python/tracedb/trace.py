"""trace.py: tracedb.load and Trace: a database (imported from traces when given them) whose reports are
methods returning DataFrames. Each report runs as its SQL table function (tracedb_ops(), ... from the
libtracedb SQLite extension): the command itself, its rows typed as SQLite holds them; summary and the
HTML page run as their commands (tdb_run)."""
import itertools
import json
import threading
import os
import re
import sqlite3
import tempfile
import urllib.parse
import warnings
import weakref

from . import _native, frames
from .errors import Error

REPORTS = ("ops", "kernels", "api", "memops", "latency", "device", "memory", "ranks", "overlap", "idle",
           "launches", "queue", "critical_path")
NOT_OPTIONS = ("format", "help", "h")  # the DataFrame is the format; --help is the command line's
_tables = itertools.count(1)


def option_args(options):
    """Keyword arguments as the command's options: group_by="shape" -> --group-by shape, a True flag ->
    --flag (False and None: left out), a list -> a,b; a trailing _ goes (from_="2s": --from, a Python word)."""
    args = []
    for key, value in options.items():
        if key.rstrip("_") in NOT_OPTIONS:
            raise Error(f"{key}= is not an option here: the result is a DataFrame (tracedb COMMAND --help lists "
                        "a command's options)")
        if type(value).__name__ == "bool_":  # numpy's
            value = bool(value)
        if value is None or value is False:
            continue
        flag = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            args.append(flag)
            continue
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        args += [flag, str(value)]
    return args


def _options_text(args):
    """The options as one text for a table function (blanks separate; quotes keep a value's blanks)."""
    words = []
    for a in args:
        if a and not re.search(r"[\s'\"]", a):
            words.append(a)
        elif "'" not in a:
            words.append("'" + a + "'")
        elif '"' not in a:
            words.append('"' + a + '"')
        else:
            raise Error(f"an option value holds both kinds of quote: {a!r}")
    return " ".join(words)


def _message(error):
    """A table function's error as the command line says it: without "tracedb_ops('...'): "."""
    text = str(error)
    m = re.match(r"tracedb_\w+\('(?:[^']|'')*'\): ", text)
    return text[m.end():] if m else text


def is_database(path):
    with open(path, "rb") as f:
        return f.read(16) == b"SQLite format 3\0"


def _passed_on(messages, stacklevel=4):
    """The import's warnings, as Python warnings (at the caller of load())."""
    for line in messages.splitlines():
        if line.strip():
            warnings.warn(line, stacklevel=stacklevel)


def _in_python_words(messages):
    """The command's messages as a Python caller reads them: an output that exists is replaced with
    force=True, not --force (the command's --append is not a choice such a caller has)."""
    return re.sub(r"use --force to replace it(?: or --append to add to it)?", "force=True replaces it", messages)


def import_traces(traces, db, force=False, append=False, stacklevel=4):
    """tracedb import TRACES -o DB, in this process (a directory: the traces in it, as the command lists
    them); its warnings passed on, a failure raised."""
    mode = ["--force"] if force else ["--append"] if append else []
    status, _, messages = _native.run("import", "-q", "-o", db, *mode, "--", *traces)
    if status == 0 or (status == 1 and os.path.exists(db) and "partial" in _meta(db, "import_status", "")):
        _passed_on(messages, stacklevel + 1)
        return
    raise Error(_in_python_words(messages).strip() or f"tracedb import failed (status {status})")


def _cache(path, stacklevel=5):
    """The traces' database beside them, as a report given them reads it: `tracedb import PATH --cache`
    (the command's definition: PATH.tracedb, imported again when the traces changed); None where it cannot
    be kept there."""
    status, out, messages = _native.run("import", "--cache", "-q", "--", path)
    if status == 3:
        return None
    db = os.fsdecode(out.rstrip(b"\n"))
    if db and (status == 0 or (status == 1 and "partial" in _meta(db, "import_status", ""))):
        _passed_on(messages, stacklevel)
        return _path(db)
    raise Error(messages.strip() or f"tracedb import --cache failed (status {status})")


def _meta(db, key, default=None):
    """meta's value for key in db; default where db has no meta table (a view in its place, whose query
    could run for ever, is none: the command refuses such a database by name)."""
    try:
        con = sqlite3.connect(_readonly_uri(db), uri=True)
        try:
            kind = con.execute("SELECT type FROM sqlite_schema WHERE name = 'meta' COLLATE NOCASE").fetchone()
            row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone() if kind == ("table",) else None
        finally:
            con.close()
        return row[0] if row else default
    except sqlite3.Error:
        return default


def _readonly_uri(path):
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


def _path(path):
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise Error(f"a path is a str or os.PathLike, not {type(path).__name__}")
    return os.path.abspath(os.fspath(path))


def load(path, db=None, force=False):
    """A Trace: path is a tracedb database, a trace (.json, .json.gz) or a directory of traces. Traces are
    imported into db (refused when it exists, unless force=True), by default into the database a report
    given them reads, PATH.tracedb beside them, reused while they are unchanged (tracedb import --cache),
    or a temporary one where that cannot be kept there."""
    path = _path(path)
    if not os.path.exists(path):
        raise Error(f"{path}: no such file or directory")
    if os.path.isfile(path) and is_database(path):
        if db is not None:
            raise Error(f"{path} is a database already: db= names where traces are imported")
        if _meta(path, "schema_version") is None:
            raise Error(f"{path}: an SQLite database, but not tracedb's (its meta table has no schema_version)")
        return Trace(path)
    temporary = None
    if db is not None:
        db = _path(db)
        import_traces([path], db, force=force)
    else:
        db = _cache(path)
        if db is None:  # the folder cannot be written, or a file of that name is not a tracedb database
            temporary = tempfile.TemporaryDirectory(prefix="tracedb-")
            db = os.path.join(temporary.name, os.path.basename(path.rstrip(os.sep)) + ".tracedb")
            import_traces([path], db)
    t = Trace(db)
    t._temporary = temporary  # removed with the Trace (close(), or when it is collected)
    return t


class Trace:
    """A tracedb database. Its reports are methods returning DataFrames, with the command's options as
    keyword arguments (t.ops(group_by="shape", limit=20)); sql() runs a query."""

    def __init__(self, db):
        self.path = _path(db)  # the file, wherever the process goes
        self._con = None
        self._ident = None
        self._lock = threading.RLock()  # the connection, one query at a time (close() included)
        self._temporary = None

    def __repr__(self):
        return f"tracedb.Trace({self.path!r})"

    def _connection(self):
        """This Trace's connection: read-only, views and triggers of the database limited to innocuous
        functions (no report runs from one), tracedb's functions and report tables loaded; opened again
        when the file under the path was replaced (an import since), so that SQL and reports read one file.
        Called with the lock held."""
        try:
            st = os.stat(self.path)
        except OSError as e:
            raise Error(f"{self.path}: {e.strerror}") from None
        ident = (st.st_dev, st.st_ino)
        if self._con is not None and ident != self._ident:
            self._con.close()
            self._con = None
        if self._con is None:
            try:
                con = sqlite3.connect(_readonly_uri(self.path), uri=True, check_same_thread=False)
                con.enable_load_extension(True)
                con.load_extension(_native.extension_path())
                con.enable_load_extension(False)
                con.execute("PRAGMA trusted_schema = OFF")
                con.execute("PRAGMA cell_size_check = ON")
                own = [r[0] for r in con.execute(
                    "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view') AND "
                    "name LIKE 'tracedb\\_%' ESCAPE '\\' ORDER BY name")]
            except sqlite3.Error as e:
                raise Error(f"{self.path}: {e}") from None
            for name in own:  # as tracedb sql says it: rows a database carries are never taken for tracedb's
                warnings.warn(f"{self.path} has its own {name}, which hides tracedb's report of that name in sql()",
                              stacklevel=4)
            self._con, self._ident = con, ident
            weakref.finalize(self, con.close)
        return self._con

    def close(self):
        """Closes the connection (a later call opens it again) and removes a temporary database."""
        with self._lock:
            if self._con is not None:
                self._con.close()
                self._con = None
            if self._temporary is not None:
                self._temporary.cleanup()
                self._temporary = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _report(self, name, options):
        """Report name's rows as a DataFrame: a temporary table of its function with these options (its
        columns those the options give), read once."""
        text = _options_text(option_args(options))
        table = f"temp.tracedb_report_{next(_tables)}"
        literal = "'" + text.replace("'", "''") + "'"
        with self._lock:
            con = self._connection()
            try:
                con.execute(f"CREATE VIRTUAL TABLE {table} USING tracedb_{name}({literal})")
                try:
                    return frames.from_cursor(con.execute(f"SELECT * FROM {table}"))
                finally:
                    con.execute(f"DROP TABLE {table}")
            except sqlite3.Error as e:
                raise Error(_message(e)) from None

    def ops(self, **options):
        """PyTorch's key_averages() table (tracedb ops): group_by, limit, sort, range, by_step, ..."""
        return self._report("ops", options)

    def kernels(self, **options):
        """GPU kernels per name (tracedb kernels; nsys cuda_gpu_kern_sum)."""
        return self._report("kernels", options)

    def api(self, **options):
        """Runtime and driver API calls per name (tracedb api)."""
        return self._report("api", options)

    def memops(self, **options):
        """memcpy and memset by operation (tracedb memops)."""
        return self._report("memops", options)

    def latency(self, **options):
        """Step or range latency percentiles (tracedb latency)."""
        return self._report("latency", options)

    def device(self, **options):
        """Per step and device: busy, run, IO-wait and idle time (tracedb device)."""
        return self._report("device", options)

    def memory(self, **options):
        """Memory high-water marks, leaks, per-operator bytes (tracedb memory)."""
        return self._report("memory", options)

    def ranks(self, **options):
        """Per-rank step latency and stragglers (tracedb ranks)."""
        return self._report("ranks", options)

    def overlap(self, **options):
        """Communication and computation overlap per rank (tracedb overlap; HTA)."""
        return self._report("overlap", options)

    def idle(self, **options):
        """GPU idle time by cause (tracedb idle; HTA)."""
        return self._report("idle", options)

    def launches(self, **options):
        """Kernel launch delays and outliers (tracedb launches; HTA)."""
        return self._report("launches", options)

    def queue(self, **options):
        """The launch queue's length (tracedb queue; HTA)."""
        return self._report("queue", options)

    def critical_path(self, **options):
        """The critical path per rank (tracedb critical-path; HTA)."""
        return self._report("critical_path", options)

    def summary(self, **options):
        """tracedb summary's sections: a dict of DataFrames (trace, kinds, devices, ops, kernels, ...)."""
        status, out, messages = _native.run("summary", "--format", "json", *option_args(options), "--", self.path)
        if status != 0:
            raise Error(messages.strip())
        return {name: frames.from_records(rows) for name, rows in json.loads(out).items()}

    def sql(self, query, params=()):
        """The rows of one SQL statement (read-only; tracedb's functions and report tables loaded)."""
        with self._lock:
            try:
                return frames.from_cursor(self._connection().execute(query, params))
            except sqlite3.Error as e:
                raise Error(_message(e)) from None

    def report(self, path=None, baseline=None, force=False):
        """The HTML report: written to path; with no path, the page (displayed inline in Jupyter)."""
        target = path
        scratch = None
        if target is None:
            scratch = tempfile.TemporaryDirectory(prefix="tracedb-")
            target = os.path.join(scratch.name, "report.html")
        args = ["report", "-o", os.path.abspath(target)]
        if baseline is not None:
            args += ["--baseline", baseline.path if isinstance(baseline, Trace) else _path(baseline)]
        if force:
            args.append("--force")
        args += ["--", self.path]
        status, _, messages = _native.run(*args)
        if status != 0:
            raise Error(_in_python_words(messages).strip())
        if scratch is None:
            return path
        with open(target, encoding="utf-8") as f:
            page = Page(f.read())
        scratch.cleanup()
        return page

    def _repr_html_(self):
        import html
        parts = [f"<p><b>tracedb</b> {html.escape(self.path)}</p>"]
        for name, df in self.summary().items():
            parts.append(f"<h4>{html.escape(name)}</h4>" + df.to_html(index=False))
        return "\n".join(parts)


class Page(str):
    """An HTML page, shown inline by Jupyter."""

    def _repr_html_(self):
        import html
        return f'<iframe srcdoc="{html.escape(self)}" style="width:100%;height:640px;border:0"></iframe>'

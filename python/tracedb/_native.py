"""_native.py: libtracedb.so through ctypes: where the library is, and tdb_run (a tracedb command in this
process, its output and messages caught), the recorder's functions and the SQLite extension's path."""
import ctypes
import os
import tempfile
import threading

from .errors import Error

_lock = threading.Lock()
_lib = None


def library_path():
    """libtracedb.so: $TRACEDB_LIBRARY; else the one installed with this package (make install writes its
    path into _where.py); else the build tree's (python/tracedb/ beside build/)."""
    given = os.environ.get("TRACEDB_LIBRARY")
    if given:
        return given
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        from ._where import LIBRARY  # written by make install
        return LIBRARY
    except ImportError:
        pass
    return os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libtracedb.so")


def extension_path():
    """The path sqlite3's load_extension takes: the library without its .so (SQLite finds the entry point
    sqlite3_tracedb_init from the name libtracedb)."""
    path = library_path()
    return path[:-3] if path.endswith(".so") else path


def lib():
    """The loaded library, its functions typed."""
    global _lib
    with _lock:
        if _lib is None:
            path = library_path()
            try:
                loaded = ctypes.CDLL(path)
            except OSError as e:
                raise Error(f"cannot load {path}: {e} (build it with make, or set TRACEDB_LIBRARY)") from None
            loaded.tdb_run.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int, ctypes.c_int]
            loaded.tdb_run.restype = ctypes.c_int
            loaded.tdb_version.restype = ctypes.c_char_p
            _lib = loaded
        return _lib


def _arg(a):
    if isinstance(a, bytes):
        return a
    return os.fsencode(a) if isinstance(a, os.PathLike) else str(a).encode()


def run(*args):
    """Runs `tracedb ARGS...` in this process: (status, output bytes, messages text)."""
    raw = [_arg(a) for a in args]
    if any(b"\0" in a for a in raw):
        raise Error("an argument holds a NUL byte")
    argv = (ctypes.c_char_p * len(raw))(*raw)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        status = lib().tdb_run(len(raw), argv, out.fileno(), err.fileno())
        out.seek(0)
        err.seek(0)
        return status, out.read(), err.read().decode("utf-8", "replace")


def version():
    return lib().tdb_version().decode()

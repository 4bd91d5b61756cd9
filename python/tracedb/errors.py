"""errors.py: tracedb.Error, what every failure of the package raises, with the command line's message."""


class Error(Exception):
    """A tracedb failure: a missing file, not a trace, a bad option or value (the message is the tracedb
    command's own)."""

"""frames.py: rows into pandas DataFrames with the csv's column names and honest dtypes: a column of
integers (ns, bytes, counts) is int64 (pandas' Int64 when some values are NULL), one of numbers float64,
text object; pandas itself is imported only here, when a DataFrame is asked for."""
from .errors import Error


def pandas():
    try:
        import pandas as pd
    except ImportError:
        raise Error("the DataFrame methods need pandas: apt-get install python3-pandas "
                    "(or pip install pandas)") from None
    return pd


def _dtype(values):
    kinds = {type(v) for v in values if v is not None}
    nulls = any(v is None for v in values)
    if kinds and kinds <= {int, bool}:
        return "Int64" if nulls else "int64"
    if kinds and kinds <= {int, float}:
        return "float64"
    return None


def frame(columns, rows):
    """A DataFrame of rows (sequences in the order of columns)."""
    pd = pandas()
    rows = list(rows)
    data = {}
    for i, name in enumerate(columns):
        values = [r[i] for r in rows]
        dtype = _dtype(values)
        if dtype == "float64":
            values = [float("nan") if v is None else float(v) for v in values]
        data[i] = pd.Series(values, dtype=dtype if dtype else object)
    df = pd.DataFrame(data)
    df.columns = list(columns)  # names as given, duplicates kept
    return df


def from_cursor(cursor):
    """The rows of an executed sqlite3 cursor."""
    columns = [d[0] for d in cursor.description] if cursor.description else []
    return frame(columns, cursor.fetchall())


def from_records(records, columns=None):
    """JSON objects (one a row) into a DataFrame; columns name them when there are no rows."""
    if records:
        columns = list(records[0].keys())
    columns = columns or []
    return frame(columns, [[r.get(c) for c in columns] for r in records])

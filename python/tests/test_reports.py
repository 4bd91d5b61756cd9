"""test_reports.py: every report method's DataFrame equals `tracedb REPORT DB --format csv` (column names
and order, every row and cell; integers as int64) on three real traces, with no options and with two
option sets each; summary's sections equal the command's json."""
import csv
import io
import json
import math

import pytest
from conftest import THREE, command

import tracedb

OPTIONS = {  # keyword arguments, and the same as command-line options
    "ops": [dict(group_by="shape"), dict(by_rank=True, limit=5), dict(from_=0, to="1s")],
    "kernels": [dict(kinds="kernel,memcpy,memset", sort="instances"), dict(by_type=True)],
    "api": [dict(limit=3), dict(by_rank=True)],
    "memops": [dict(bandwidth=True), dict(limit=2)],
    "latency": [dict(each=True), dict(name="aten::mm")],
    "device": [dict(by_rank=True), dict(range="ProfilerStep*")],
    "memory": [dict(by_op=True, limit=10), dict(timeline=True)],
    "ranks": [dict(limit=2), dict(by_rank=True)],
    "overlap": [dict(drop_last_step=True), dict(hta_rounding=True)],
    "idle": [dict(drop_last_step=True), dict(negative_gaps=True)],
    "launches": [dict(each=True), dict(drop_last_step=True)],
    "queue": [dict(timeline=True), dict(drop_last_step=True)],
    "critical_path": [dict(each=True), dict(range="ProfilerStep*", hta_launch_edges=True)],
}


def as_args(options):
    args = []
    for k, v in options.items():
        args.append("--" + k.rstrip("_").replace("_", "-"))
        if v is not True:
            args.append(str(v))
    return args


def same(cell, text):
    """A DataFrame cell against the csv's text."""
    if cell is None or (isinstance(cell, float) and math.isnan(cell)) or str(cell) == "<NA>":
        return text == ""
    if isinstance(cell, (int,)) or type(cell).__name__.startswith("int"):
        return text != "" and int(text) == int(cell)
    if isinstance(cell, float) or type(cell).__name__.startswith("float"):
        return text != "" and math.isclose(float(text), float(cell), rel_tol=1e-12, abs_tol=1e-12)
    return str(cell) == text


@pytest.mark.parametrize("trace", THREE)
@pytest.mark.parametrize("report", sorted(OPTIONS))
def test_report_method_equals_the_commands_csv(dbs, trace, report):
    db = dbs[trace]
    t = tracedb.load(db)
    compared = 0
    for options in [{}] + OPTIONS[report]:
        status, out, err = command(report.replace("_", "-"), db, *as_args(options), "--format", "csv", check=False)
        if status != 0:
            with pytest.raises(tracedb.Error) as e:
                getattr(t, report)(**options)
            assert err.strip().splitlines()[0] in str(e.value)
            continue
        want = [r for r in csv.reader(io.StringIO(out)) if r]
        df = getattr(t, report)(**options)
        assert list(df.columns) == want[0], (report, options)
        assert len(df) == len(want) - 1, (report, options)
        for i, row in enumerate(df.itertuples(index=False, name=None)):
            for name, cell, text in zip(want[0], row, want[i + 1]):
                assert same(cell, text), (report, options, i, name, cell, text)
        for name in df.columns:  # times, bytes and counts are integers (a NULL in the column: Int64)
            texts = [r[want[0].index(name)] for r in want[1:]]
            integral = name.endswith(("_ns", "_bytes")) or name in ("calls", "count", "instances", "kernels")
            if integral and texts and all(x.lstrip("-").isdigit() for x in texts):
                assert str(df[name].dtype) == "int64", (report, options, name, df[name].dtype)
        compared += 1
    assert compared >= 1


@pytest.mark.parametrize("trace", THREE)
def test_summary_sections_equal_the_commands_json(dbs, trace):
    db = dbs[trace]
    _, out, _ = command("summary", db, "--format", "json")
    want = json.loads(out)
    got = tracedb.load(db).summary()
    assert list(got) == list(want)
    for name, rows in want.items():
        df = got[name]
        assert len(df) == len(rows)
        if rows:
            assert list(df.columns) == list(rows[0])
        for i, row in enumerate(rows):
            for key, value in row.items():
                cell = df[key].iloc[i]
                if value is None:
                    assert cell is None or str(cell) in ("nan", "<NA>"), (name, key, cell)
                elif isinstance(value, float):
                    assert math.isclose(cell, value, rel_tol=1e-12), (name, key)
                else:
                    assert cell == value, (name, key, cell, value)


def test_the_html_page_and_jupyters_view(dbs, tmp_path):
    db = dbs["critical_path_alexnet_trace.json.gz"]
    t = tracedb.load(db)
    out = tmp_path / "r.html"
    assert t.report(out) == out
    command("report", db, "-o", tmp_path / "cli.html")
    assert out.stat().st_size > 10000 and abs(out.stat().st_size - (tmp_path / "cli.html").stat().st_size) < 200
    with pytest.raises(tracedb.Error, match=r"already exists; force=True replaces it$"):
        t.report(out)
    page = t.report()
    assert page.startswith("<!DOCTYPE html>") or page.lstrip().lower().startswith("<!doctype html>")
    assert "srcdoc=" in page._repr_html_()
    shown = t._repr_html_()
    for name in t.summary()["ops"]["name"]:
        assert name in shown

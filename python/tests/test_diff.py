"""test_diff.py: tracedb.diff: the verdict and p value of the gate against scipy's Mann-Whitney U test on
the two runs' step times (read with plain SQL), the verdict line the command's, each section the command's
csv; and t.sql's sandbox: a database's own view cannot run a report, nothing is written."""
import csv
import io
import math
import os
import sqlite3

import pytest
from conftest import KINETO, command, need

import tracedb


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diff")
    out = []
    for name in ("trace_diff_control_control.json.gz", "trace_diff_test_test.json.gz"):
        db = folder / (name.split(".")[0] + ".db")
        command("import", "-q", os.path.join(KINETO, name), "-o", db)
        out.append(str(db))
    return out


def step_times(db):
    with sqlite3.connect(db) as con:
        return [r[0] for r in con.execute("SELECT dur_ns FROM event e JOIN string s ON s.id = e.name_id "
                                          "WHERE s.value GLOB 'ProfilerStep#*'")]


def test_the_gate_agrees_with_scipy(runs):
    stats = need("scipy.stats")
    base, new = runs
    d = tracedb.diff(base, new, fail_above=5)
    u = stats.mannwhitneyu(step_times(base), step_times(new), alternative="two-sided", method="exact")
    assert math.isclose(d.p_value, u.pvalue, rel_tol=1e-9), (d.p_value, u.pvalue)
    assert d.verdict == "fail" and d.passed is False
    status, _, err = command("diff", base, new, "--fail-above", "5", "--format", "json", check=False)
    assert status == 3
    assert d.text == [ln for ln in err.splitlines() if "FAIL" in ln][-1]
    assert tracedb.diff(base, base, fail_above=5).verdict in ("pass", "inconclusive")
    assert tracedb.diff(base, new).verdict is None
    assert d.warnings and "base ran on 1 x NVIDIA A100-PG509-200" in d.warnings[0] \
        and "new on 1 x Tesla V100-SXM2-16GB" in d.warnings[0]
    assert tracedb.diff(base, base).warnings == []


@pytest.mark.parametrize("section", ["ops", "steps", "device", "memory"])
def test_each_section_equals_the_commands_csv(runs, section):
    base, new = runs
    _, out, _ = command("diff", base, new, "--section", section, "--format", "csv")
    want = [r for r in csv.reader(io.StringIO(out)) if r]
    df = getattr(tracedb.diff(tracedb.load(base), new), section)
    if len(want) <= 1:
        assert len(df) == 0
        return
    assert list(df.columns) == want[0]
    assert len(df) == len(want) - 1
    for i, row in enumerate(df.itertuples(index=False, name=None)):
        for cell, text in zip(row, want[i + 1]):
            if text == "":
                assert cell is None or str(cell) in ("nan", "<NA>")
            elif isinstance(cell, str):
                assert cell == text
            else:
                assert math.isclose(float(cell), float(text), rel_tol=1e-12), (cell, text)


def test_sql_reads_and_a_databases_view_cannot_run_a_report(tmp_path, runs):
    db = tmp_path / "hostile.db"
    command("import", "-q", os.path.join(KINETO, "critical_path_alexnet_trace.json.gz"), "-o", db)
    with sqlite3.connect(db) as con:
        con.execute("CREATE VIEW innocent AS SELECT * FROM tracedb_ops()")
    t = tracedb.load(db)
    with pytest.raises(tracedb.Error, match="unsafe use of virtual table"):
        t.sql("SELECT * FROM innocent")
    with pytest.raises(tracedb.Error, match="readonly"):
        t.sql("DELETE FROM event")
    assert t.sql("SELECT count(*) AS n FROM event")["n"][0] == 870
    got = t.sql("SELECT name, total_ns FROM tracedb_kernels() ORDER BY total_ns DESC LIMIT 1")
    want = t.sql("SELECT name, sum(dur_ns) AS total_ns FROM kernels GROUP BY name ORDER BY 2 DESC LIMIT 1")
    assert got.values.tolist() == want.values.tolist()
    assert str(want["total_ns"].dtype) == "int64"

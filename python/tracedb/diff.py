"""diff.py: tracedb.diff(base, new): the tracedb diff command in this process, its sections as
DataFrames (ops, steps, device, memory) and, with fail_above, its gate's verdict."""
import json
import re

from . import _native, frames
from .errors import Error
from .trace import Trace, _path, option_args

SECTIONS = ("ops", "steps", "device", "memory")


def _run_path(run):
    return run.path if isinstance(run, Trace) else _path(run)


class Diff:
    """A comparison of two runs: the sections as DataFrames (d.ops, d.steps, d.device, d.memory); with
    fail_above, d.verdict ("pass", "fail" or "inconclusive"), d.passed, d.p_value (the Mann-Whitney U test's
    on the steps, when the metric is a step metric) and d.text (the command's verdict line); d.warnings,
    what the command warned of (the runs used different GPUs, ...)."""

    def __init__(self, sections, text, status, warnings=()):
        self.sections = sections
        self.warnings = list(warnings)
        self.text = text
        self.status = status
        self.verdict = None
        self.p_value = None
        if text:
            head = text.split(": ", 2)[1] if text.startswith("tracedb diff: ") else text
            self.verdict = ("inconclusive" if head.startswith("INCONCLUSIVE") else
                            "fail" if head.startswith("FAIL") else "pass")
            m = re.search(r"\bp = ([0-9.eE+-]+)", text)
            self.p_value = float(m.group(1)) if m else None

    @property
    def passed(self):
        """Whether the gate passed (its exit status 0); None without fail_above."""
        return None if self.verdict is None else self.status == 0

    def __getattr__(self, name):
        if name in SECTIONS:
            return self.sections[name]
        raise AttributeError(name)

    def __repr__(self):
        return f"tracedb.Diff(verdict={self.verdict!r}, p_value={self.p_value!r})"


def diff(base, new, fail_above=None, metric=None, alpha=None, on_inconclusive=None, **options):
    """Compares two runs (Traces or database paths) as `tracedb diff BASE NEW` does; the options are the
    command's (kinds, by_shape, tolerance, limit)."""
    a, b = _run_path(base), _run_path(new)
    if "section" in options:
        raise Error("section= is not an option here: every section is there (d.ops, d.steps, d.device, d.memory)")
    common = option_args(options)
    gate = option_args({"fail_above": fail_above, "metric": metric, "alpha": alpha,
                        "on_inconclusive": on_inconclusive})
    sections, text, status, said = {}, None, 0, []
    for section in SECTIONS:
        extra = gate if section == "ops" else []
        code, out, messages = _native.run("diff", "--format", "json", "--section", section, *common, *extra, "--", a, b)
        if code not in (0, 3) or (code == 3 and not gate):
            raise Error(messages.strip() or f"tracedb diff failed (status {code})")
        if section == "ops":
            said = [ln.split("warning: ", 1)[1] for ln in messages.splitlines() if ": warning: " in ln]
        if extra and fail_above is not None:
            status = code
            lines = [ln for ln in messages.splitlines() if "PASS" in ln or "FAIL" in ln or "INCONCLUSIVE" in ln]
            text = lines[-1] if lines else messages.strip()
        sections[section] = frames.from_records(json.loads(out) if out.strip() else [])
    d = Diff(sections, text, status, said)
    steps = sections["steps"]
    if d.verdict is not None and d.p_value is not None and "p_value" in steps and len(steps) == 2:
        d.p_value = float(steps["p_value"].iloc[1])  # the test's own figure, not the line's rounding
    return d

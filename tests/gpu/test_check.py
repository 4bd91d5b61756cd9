"""test_check.py: check.py's comparisons, with no GPU: small databases made with tracedb's own schema
(schema/schema.sql and views.sql, the kinds from util/kinds.h) shaped like a recording, and counts files
shaped like cupti_count.c's. A recording that matches CUPTI's counts passes; one that lacks a kernel name,
or whose per-name counts differ with the same total, fails; so do an empty or missing counts file, one
without its dropped line, one without a kind, and a recording compared with a CUPTI run that differs
from it where Kineto agrees (no self-comparison).

  /usr/bin/python3 tests/gpu/test_check.py      (or /usr/bin/python3 -m pytest tests/gpu/test_check.py)"""
import contextlib
import io
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import check as gpu_check  # noqa: E402  (tests/gpu/check.py)

# kernels as CUPTI names them (mangled) and as the recording holds them (demangled)
EMPTY = ("_Z12empty_kernelv", "empty_kernel()")
FILL = ("_Z4fillPffi", "fill(float*, float, int)")
TMPL = ("_Z11tmpl_kernelILi3EEvPfi", "void tmpl_kernel<3>(float*, int)")


def read(path):
    with open(path) as f:
        return f.read()


def edit(path, change):
    """The file rewritten by change(its text)."""
    text = change(read(path))
    with open(path, "w") as f:
        f.write(text)


def schema_sql():
    """schema.sql and views.sql with their {sql:NAME} (queries/parts/NAME.sql), {kind_rows} and {kind:NAME}
    written in, as tools/embed.c does."""
    kinds = {name: int(i) for i, name in re.findall(r'X\(\w+, (\d+), "(\w+)"\)', read(os.path.join(ROOT, "util/kinds.h")))}
    rows = ", ".join(f"({i}, '{n}')" for n, i in sorted(kinds.items(), key=lambda kv: kv[1]))
    sql = "".join(read(os.path.join(ROOT, "schema", f)) for f in ("schema.sql", "views.sql"))
    sql = re.sub(r"\{sql:(\w+)\}", lambda m: read(os.path.join(ROOT, "queries", "parts", m.group(1) + ".sql")).rstrip("\n"), sql)
    return re.sub(r"\{kind:(\w+)\}", lambda m: str(kinds[m.group(1)]), sql.replace("{kind_rows}", rows)), kinds


class Recording:
    """A database shaped like `tracedb record`'s: a CPU thread with its calls (and NVTX ranges), a stream
    with the GPU work each call launched (linked by correlation and launch_id)."""

    def __init__(self, path):
        sql, self.kinds = schema_sql()
        self.c = sqlite3.connect(path)
        self.c.execute("PRAGMA synchronous = OFF")
        self.c.executescript(sql)
        self.c.execute("INSERT INTO meta VALUES ('import_status', 'complete')")
        self.c.execute("INSERT INTO trace (id, source_format, status, skipped_events) VALUES (1, 'recorder', 'complete', 0)")
        self.c.execute("INSERT INTO process (id, trace_id, pid) VALUES (1, 1, 4000), (2, 1, 0)")
        self.c.execute("INSERT INTO thread (id, process_id, tid) VALUES (1, 1, 4001), (2, 2, 7)")
        self.t, self.corr = 1000, 0

    def row(self, kind, name, thread, start, dur, **cols):
        sid = self.c.execute("SELECT id FROM string WHERE value = ?", (name,)).fetchone()
        sid = sid[0] if sid else self.c.execute("INSERT INTO string (value) VALUES (?)", (name,)).lastrowid
        names = ", ".join(["kind", "name_id", "thread_id", "start_ns", "dur_ns", "self_ns"] + list(cols))
        values = [self.kinds[kind], sid, thread, start, dur, dur] + list(cols.values())
        return self.c.execute(f"INSERT INTO event ({names}) VALUES ({', '.join('?' * len(values))})", values).lastrowid

    def launch(self, kind, name, call):
        """A call on the CPU thread and the GPU row it launched."""
        self.t += 100
        self.corr += 1
        cid = self.row("runtime", call, 1, self.t, 10, correlation=self.corr)
        self.row(kind, name, 2, self.t + 50, 20, correlation=self.corr, launch_id=cid, launch_ns=self.t)

    def fill(self, kernels=(), memcpy=0, memset=0, memory=0, driver=0, window=None):
        """kernels: (demangled name, count) pairs; window: an NVTX range of that name around them all."""
        start = self.t
        for name, n in kernels:
            for _ in range(n):
                self.launch("kernel", name, "cudaLaunchKernel")
        for _ in range(memcpy):
            self.launch("memcpy", "Memcpy HtoD (Pageable -> Device)", "cudaMemcpy")
        for _ in range(memset):
            self.launch("memset", "Memset (Device)", "cudaMemset")
        for i in range(memory):
            self.row("memory", "[memory]", 1, self.t + i, 0, bytes=4096)
        for i in range(driver):
            self.row("driver", "cuCtxGetCurrent", 1, self.t + i, 1)
        if window:
            self.row("range", window, 1, start, self.t + 200 - start)
        self.c.commit()
        return self

    def calls(self):
        return self.c.execute("SELECT count(*) FROM event WHERE kind = ?", (self.kinds["runtime"],)).fetchone()[0]


def cupti_file(path, kernels=(), memcpy=0, memset=0, memory=0, runtime=0, driver=0, dropped=0,
               leave_out=(), mangled_only=False):
    """A counts file as cupti_count.c writes it. kernels: ((mangled, demangled), count) pairs."""
    counts = {"level": 2, "kernel": sum(n for _, n in kernels), "memcpy": memcpy, "memset": memset, "memory": memory,
              "runtime": runtime, "driver": driver, "other": 0, "memory_other": 0, "dropped": dropped}
    with open(path, "w") as f:
        for k, v in counts.items():
            if k not in leave_out and v is not None:
                f.write(f"{k} {v}\n")
        for (mangled, demangled), n in kernels:
            f.write(f"name {n} {mangled}" + ("" if mangled_only else f" {demangled}") + "\n")
    return path


class CheckTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test_check.")
        self.n = 0

    def tearDown(self):
        shutil.rmtree(self.dir)

    def path(self, what):
        self.n += 1
        return os.path.join(self.dir, f"{self.n}_{what}")

    def run_check(self, fn, *args):
        """fn's PASS/FAIL lines and how many failed."""
        before, out = gpu_check.failed, io.StringIO()
        with contextlib.redirect_stdout(out):
            fn(*args)
        return gpu_check.failed - before, out.getvalue()

    def assertFails(self, fn, *args, line=None):
        failed, out = self.run_check(fn, *args)
        self.assertGreater(failed, 0, out)
        if line:
            self.assertRegex(out, r"(?m)^FAIL " + re.escape(line), out)
        return out

    def assertPasses(self, fn, *args):
        failed, out = self.run_check(fn, *args)
        self.assertEqual(failed, 0, out)
        self.assertIn("PASS ", out)
        return out

    def burst(self, recorded, counted):
        """cmd_burst on a recording of `recorded` kernels, with CUPTI's count of `counted`."""
        rec = self.path("burst.db")
        r = Recording(rec).fill([(name[1], n) for name, n in recorded], memcpy=2, memset=1, memory=3, driver=4,
                                window="burst")
        cupti = cupti_file(self.path("cupti.txt"), counted, memcpy=2, memset=1, memory=3, runtime=r.calls(), driver=4)
        empty = sum(n for name, n in recorded if name == EMPTY)
        return gpu_check.cmd_burst, rec, f"empty_kernel={empty} nvtx=1", cupti

    def test_matching_recording_passes(self):
        kernels = [(EMPTY, 5), (FILL, 3), (TMPL, 2)]
        out = self.assertPasses(*self.burst(kernels, kernels))
        self.assertIn("PASS kernels name by name = CUPTI's", out)
        self.assertIn("PASS kernel rows = CUPTI's kernel records: 10 vs 10", out)

    def test_a_kernel_name_missing_from_the_recording_fails(self):
        self.assertFails(*self.burst([(EMPTY, 5)], [(EMPTY, 5), (FILL, 3)]), line="kernels name by name")

    def test_a_kernel_name_missing_from_cupti_fails(self):
        self.assertFails(*self.burst([(EMPTY, 5), (FILL, 3)], [(EMPTY, 5)]), line="kernels name by name")

    def test_per_name_counts_differ_with_the_same_total_fails(self):
        out = self.assertFails(*self.burst([(EMPTY, 5), (FILL, 3)], [(EMPTY, 4), (FILL, 4)]),
                               line="kernels name by name")
        self.assertIn("PASS kernel rows = CUPTI's kernel records: 8 vs 8", out)  # the totals alone agree

    def test_an_empty_cupti_file_fails(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        edit(cupti, lambda text: "")
        out = self.assertFails(fn, rec, line, cupti, line="CUPTI's own counts (a separate run) read")
        self.assertIn("is empty", out)

    def test_a_missing_cupti_file_fails(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        os.remove(cupti)
        self.assertFails(fn, rec, line, cupti, line="CUPTI's own counts (a separate run) read")

    def test_cupti_refused_fails_with_its_reason(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        edit(cupti, lambda text: "error CUPTI refused to count (CUPTI_ERROR_NOT_INITIALIZED, 15)\n")
        out = self.assertFails(fn, rec, line, cupti)
        self.assertIn("CUPTI_ERROR_NOT_INITIALIZED", out)

    def test_no_dropped_line_fails(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        edit(cupti, lambda text: "".join(x for x in text.splitlines(True) if not x.startswith("dropped ")))
        out = self.assertFails(fn, rec, line, cupti, line="CUPTI dropped nothing in its own run")
        self.assertIn("no dropped line", out)

    def test_records_dropped_fail(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        edit(cupti, lambda text: text.replace("dropped 0", "dropped 12"))
        self.assertFails(fn, rec, line, cupti, line="CUPTI dropped nothing in its own run: 12")

    def test_a_kind_missing_from_the_cupti_file_fails(self):
        for kind in gpu_check.CUPTI_KINDS:
            fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
            edit(cupti, lambda text: "".join(x for x in text.splitlines(True) if not x.startswith(kind + " ")))
            self.assertFails(fn, rec, line, cupti, line=f"{kind} rows = CUPTI's {kind} records: CUPTI's file holds no")

    def test_a_kind_counted_differently_fails(self):
        fn, rec, line, cupti = self.burst([(EMPTY, 5)], [(EMPTY, 5)])
        edit(cupti, lambda text: text.replace("memset 1", "memset 2"))
        self.assertFails(fn, rec, line, cupti, line="memset rows = CUPTI's memset records: 1 vs 2")

    def test_no_kernels_at_all_fails(self):
        self.assertFails(*self.burst([], []), line="kernel rows = CUPTI's kernel records")

    @unittest.skipUnless(shutil.which("c++filt"), "c++filt (binutils) not installed")
    def test_mangled_names_alone_are_demangled_by_cxxfilt(self):
        fn, rec, line, _ = self.burst([(EMPTY, 5), (TMPL, 2)], [])
        cupti = cupti_file(self.path("old.txt"), [(EMPTY, 5), (TMPL, 2)], memcpy=2, memset=1, memory=3,
                           runtime=7 + 3, driver=4, mangled_only=True)
        self.assertPasses(fn, rec, line, cupti)

    def test_the_program_printing_nothing_is_an_error(self):
        with self.assertRaises(ValueError):
            gpu_check.app_counts("")

    def kineto(self, recorded, kineto, counted):
        """cmd_kineto: a recording (all its kernels in the window 'measured'), Kineto's kernels, CUPTI's."""
        rec = self.path("torch.db")
        r = Recording(rec).fill([(name[1], n) for name, n in recorded], memcpy=2, memory=3, window="measured")
        kin = self.path("kineto.db")
        Recording(kin).fill([(name[1], n) for name, n in kineto], memcpy=2)
        cupti = cupti_file(self.path("cupti_torch.txt"), counted, memcpy=2, memory=3, runtime=r.calls())
        return gpu_check.cmd_kineto, rec, kin, cupti

    def test_kineto_matching_passes(self):
        k = [(FILL, 4), (TMPL, 2)]
        out = self.assertPasses(*self.kineto(k, k, k))
        self.assertIn("PASS kernel names and counts in the window = Kineto's", out)
        self.assertIn("PASS kernels name by name = CUPTI's", out)

    def test_kineto_agreeing_does_not_hide_cupti_disagreeing(self):
        k = [(FILL, 4), (TMPL, 2)]
        out = self.assertFails(*self.kineto(k, k, [(FILL, 4), (TMPL, 3)]), line="kernels name by name = CUPTI's")
        self.assertIn("PASS kernel names and counts in the window = Kineto's", out)

    def test_kineto_disagreeing_fails(self):
        k = [(FILL, 4), (TMPL, 2)]
        self.assertFails(*self.kineto(k, [(FILL, 3), (TMPL, 3)], k),
                         line="kernel names and counts in the window = Kineto's")

    def test_kineto_without_a_cupti_run_fails(self):
        k = [(FILL, 4)]
        fn, rec, kin, cupti = self.kineto(k, k, k)
        self.assertFails(fn, rec, kin, cupti + ".missing", line="CUPTI's own counts (a separate run) read")


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""check.py: compares a `tracedb record` database made on a real GPU with what is known independently:
the program's own count of what it launched (tests/gpu/cuda_counts.cu counts as it goes and prints it),
CUPTI's own count of its activity records in a separate run of the same program (tests/gpu/cupti_count.c:
per kind and per kernel name), and PyTorch's profiler (Kineto) on the same work. Never the recording
with itself. Prints one PASS/FAIL line per check (a count that cannot be had is a FAIL with its reason)
and exits 1 when any fails. tests/gpu/test_check.py checks these comparisons on made-up databases.

  check.py counts   DB "APP LINE" CUPTI_COUNTS     the mixed program (cuda_counts)
  check.py burst    DB "APP LINE" CUPTI_COUNTS     cuda_counts --burst N
  check.py kineto   RECORDED_DB KINETO_DB CUPTI_COUNTS  torch_app.py recorded vs its Kineto trace imported
                                                   and vs CUPTI's count of another run of it
  check.py nvtx_ops NVTX_DB KINETO_DB              torch_app.py --nvtx (emit_nvtx) ops vs Kineto's
  check.py launches RECORDED_DB                    tracedb launches ($TRACEDB) on a recording
  check.py threads  DB "APP LINE" CUPTI_COUNTS     cuda_counts --threads T
  check.py killed   DB LAUNCHES                     a burst killed mid-run, then tracedb finish
  check.py nosync   DB "APP LINE"                   cuda_counts --nosync: kernels running at exit"""
import collections
import csv
import io
import os
import re
import sqlite3
import subprocess
import sys

failed = 0


def check(ok, what, detail=""):
    global failed
    print(("PASS " if ok else "FAIL ") + what + (": " + str(detail) if detail != "" else ""))
    if not ok:
        failed += 1


def db(path):
    """A database to read; a missing file is an error, never a new empty database."""
    if not os.path.isfile(path):
        raise sqlite3.OperationalError(f"no database {path}")
    return sqlite3.connect("file:" + path + "?mode=ro", uri=True)


def one(c, sql, *args):
    return c.execute(sql, args).fetchone()[0]


def app_counts(line):
    """The program's own counts: its one line of name=count pairs."""
    if not line.strip():
        raise ValueError("the program printed no counts (it failed before its end?)")
    return {k: int(v) for k, v in (p.split("=") for p in line.split())}


# the kinds CUPTI counts that become rows of the same kind; where calls may differ from run to run (a
# Python program's), only the GPU's
CUPTI_KINDS = ("kernel", "memcpy", "memset", "memory", "runtime", "driver")
GPU_KINDS = ("kernel", "memcpy", "memset", "memory")


def demangle(mangled):
    """Demangled names by c++filt (binutils), for a counts file that gives only CUPTI's mangled ones."""
    out = subprocess.run(["c++filt"], input="\n".join(mangled) + "\n", capture_output=True, text=True,
                         check=True).stdout.split("\n")
    return dict(zip(mangled, out))


def cupti_counts(path):
    """CUPTI's own counts as cupti_count.c writes them: ({kind: n}, Counter of kernels by demangled name),
    or None after a FAIL line saying why there are none."""
    what = "CUPTI's own counts (a separate run) read"
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        check(False, what, f"{path}: {e.strerror}")
        return None
    if not text.strip():
        check(False, what, f"{path} is empty (the counted run never reached its exit?)")
        return None
    kinds, names, mangled = {}, collections.Counter(), collections.Counter()
    for line in text.splitlines():
        parts = line.split(" ", 3)
        if parts[0] == "error":
            check(False, what, line)
            return None
        if parts[0] == "name" and len(parts) >= 3 and parts[1].isdigit():
            if len(parts) == 4:
                names[parts[3]] += int(parts[1])
            else:
                mangled[parts[2]] += int(parts[1])
        elif len(parts) == 2 and parts[1].isdigit():
            kinds[parts[0]] = int(parts[1])
        else:
            check(False, what, f"{path}: a line not in cupti_count's form: {line[:80]!r}")
            return None
    if mangled:  # an older counts file: the names as CUPTI gave them
        try:
            readable = demangle(sorted(mangled))
        except (OSError, subprocess.CalledProcessError) as e:
            check(False, what, f"its kernel names are mangled and c++filt (binutils) failed: {e}")
            return None
        for name, n in mangled.items():
            names[readable[name] or name] += n
    return kinds, names


def kernel_names(c):
    return collections.Counter(dict(c.execute("SELECT name, count(*) FROM kernels GROUP BY name").fetchall()))


def cupti_compare(c, cupti, kinds):
    """The recording's rows of each kind, and its kernels name by name, against CUPTI's count of another run."""
    rows = kernel_names(c)
    if cupti is None:
        check(False, "the recording against CUPTI's own counts", "no counts to compare with (above)")
        return rows
    counts, names = cupti
    for kind in kinds:
        if kind not in counts:
            check(False, f"{kind} rows = CUPTI's {kind} records", f"CUPTI's file holds no count of {kind}")
            continue
        n = kind_count(c, kind)
        seen = counts[kind] > 0 or kind != "kernel"
        check(n == counts[kind] and seen, f"{kind} rows = CUPTI's {kind} records",
              f"{n} vs {counts[kind]}" + ("" if seen else " (CUPTI saw no kernel)"))
    check(counts.get("dropped") == 0, "CUPTI dropped nothing in its own run",
          counts["dropped"] if "dropped" in counts else "CUPTI's file has no dropped line")
    check(sum(names.values()) == counts.get("kernel"), "CUPTI's kernels by name add up to its kernel count",
          f"{sum(names.values())} vs {counts.get('kernel', 'none')}")
    diff = {n: (rows[n], names[n]) for n in sorted(set(rows) | set(names)) if rows[n] != names[n]}
    check(names and not diff, "kernels name by name = CUPTI's (recorded, CUPTI)",
          dict(list(diff.items())[:8]) if diff else f"{len(names)} names")
    return rows


def kind_count(c, kind):
    return one(c, "SELECT count(*) FROM event e JOIN kind k ON k.id = e.kind WHERE k.name = ?", kind)


def common(c, cupti, kinds=CUPTI_KINDS):
    """What every recording must hold: CUPTI's records (kinds, and kernels name by name), each GPU row
    linked to its launch, sane times. Returns the recording's kernels by name."""
    rows = cupti_compare(c, cupti, kinds)
    skipped = one(c, "SELECT coalesce(sum(skipped_events), 0) FROM trace")
    check(skipped == 0, "the recording dropped nothing (trace.skipped_events)", skipped)
    status = one(c, "SELECT value FROM meta WHERE key = 'import_status'")
    check(status == "complete", "the recording was closed (meta import_status)", status)
    calls = kind_count(c, "runtime") + kind_count(c, "driver")
    unlinked = [] if calls == 0 else c.execute("SELECT k.name, count(*) FROM event e JOIN kind k ON k.id = e.kind "
                         "WHERE k.name IN ('kernel', 'memcpy', 'memset') AND e.launch_id IS NULL GROUP BY 1").fetchall()
    check(not unlinked, "every kernel, memcpy and memset is linked to its launch call" +
          ("" if calls else " (no calls recorded: not checked)"), unlinked)
    versioned = [r[0] for r in c.execute("SELECT DISTINCT name FROM api_calls WHERE api = 'runtime' "
                                         "AND name GLOB '*_v[0-9]*'").fetchall()]
    check(not versioned, "runtime calls named as Kineto and nsys name them (no CUPTI _vNNNN)", versioned[:5])
    # calls are on their thread's system id (gettid, as NVTX ranges are), not pthread_self()'s address
    # (CUPTI's default): every call track's tid is a Linux thread id, and the program's main thread
    # holds its NVTX ranges and its calls on one track
    odd = one(c, "SELECT count(DISTINCT e.thread_id) FROM event e JOIN thread t ON t.id = e.thread_id "
                 "WHERE e.kind IN (SELECT id FROM kind WHERE name IN ('runtime', 'driver')) AND t.tid > 4194304")
    check(odd == 0, "calls on system thread ids (<= pid_max), not pthread_self()", odd)
    if one(c, "SELECT count(*) FROM ranges") and calls:
        apart = one(c, "SELECT count(DISTINCT r.thread_id) FROM ranges r "
                       "WHERE NOT EXISTS (SELECT 1 FROM api_calls a WHERE a.thread_id = r.thread_id)")
        check(apart == 0, "each thread's NVTX ranges and calls share its track", f"{apart} tracks of ranges alone")
    return rows


def by_base(rows, base):
    """Kernels whose demangled name is BASE(...) or void BASE<...>(...)."""
    pat = re.compile(r"^(void )?" + re.escape(base) + r"[<(]")
    return sum(n for name, n in rows.items() if pat.match(name))


def cmd_counts(path, line, cupti_path):
    c, want = db(path), app_counts(line)
    rows = common(c, cupti_counts(cupti_path))
    k = kind_count(c, "kernel")
    check(k == want["kernels"], "kernels = the program's count of the kernels it ran", f"{k} vs {want['kernels']}")
    for base in ("fill", "axpy", "scale", "tmpl_kernel", "graph_step"):
        check(by_base(rows, base) == want[base], f"{base} kernels = launched", f"{by_base(rows, base)} vs {want[base]}")
    copies = dict(c.execute("SELECT CASE WHEN name LIKE 'Memcpy HtoD%' THEN 'htod' WHEN name LIKE 'Memcpy DtoH%' "
                            "THEN 'dtoh' WHEN name LIKE 'Memcpy DtoD%' THEN 'dtod' ELSE name END, count(*) "
                            "FROM events WHERE kind = 'memcpy' GROUP BY 1").fetchall())
    for k in ("htod", "dtoh", "dtod"):
        check(copies.get(k, 0) == want[k], f"memcpy {k} = issued", f"{copies.get(k, 0)} vs {want[k]}")
    check(kind_count(c, "memset") == want["memset"], "memsets = issued", kind_count(c, "memset"))
    api = dict(c.execute("SELECT name, count(*) FROM api_calls GROUP BY name").fetchall())
    for name in ("cudaLaunchKernel", "cudaGraphLaunch"):
        check(api.get(name, 0) == want[name], f"{name} calls = made", f"{api.get(name, 0)} vs {want[name]} "
              f"({sorted(k for k in api if k.startswith(name))})")
    # each fill kernel's launch call nests in the compute range (the same thread's track)
    n = one(c, "SELECT count(*) FROM kernels k JOIN event l ON l.id = k.launch_id JOIN ranges r ON r.id = l.parent_id "
               "WHERE r.name = 'compute' AND k.name LIKE 'fill%'")
    check(n == want["fill"], "fill's launch calls nest in the compute range", f"{n} vs {want['fill']}")
    ranges = dict(c.execute("SELECT name, count(*) FROM ranges GROUP BY name").fetchall())
    check(sum(ranges.values()) == want["nvtx"] and all(ranges.get(r) == 1 for r in
          ("setup", "copy_in", "compute", "graph", "copy_out")), "NVTX ranges", ranges)
    # each fill kernel's launch lies inside the compute range, each graph kernel's inside the graph range
    for base, rng in (("fill", "compute"), ("graph_step", "graph")):
        n = one(c, "SELECT count(*) FROM kernels k JOIN event l ON l.id = k.launch_id, ranges r "
                   "WHERE r.name = ? AND l.start_ns >= r.start_ns AND l.start_ns < r.end_ns AND k.name LIKE ?",
                rng, "%" + base + "%")
        check(n == want[base], f"{base} launches inside the {rng} range", f"{n} vs {want[base]}")
    graph_launches = one(c, "SELECT count(DISTINCT launch_id) FROM kernels WHERE name LIKE '%graph_step%'")
    check(graph_launches == want["cudaGraphLaunch"], "graph kernels: one launch link per cudaGraphLaunch",
          f"{graph_launches} vs {want['cudaGraphLaunch']}")
    geo = c.execute("SELECT DISTINCT grid_x, grid_y, grid_z, block_x, block_y, block_z FROM kernels "
                    "WHERE name LIKE 'fill%'").fetchall()
    check(geo == [(4096, 1, 1, 256, 1, 1)], "fill's launch geometry (4096 blocks of 256)", geo)
    streams = one(c, "SELECT count(DISTINCT stream) FROM kernels WHERE name NOT LIKE '%graph_step%'")
    check(streams == 3, "kernels on three streams (s1, s2, default)", streams)


def cmd_burst(path, line, cupti_path):
    c, want = db(path), app_counts(line)
    rows = common(c, cupti_counts(cupti_path))
    check(by_base(rows, "empty_kernel") == want["empty_kernel"], "every empty kernel recorded",
          f"{by_base(rows, 'empty_kernel')} vs {want['empty_kernel']}")


def cmd_threads(path, line, cupti_path):
    """cuda_counts --threads T: each thread's range holds the launches it counted, on its own track."""
    c, want = db(path), app_counts(line)
    rows = common(c, cupti_counts(cupti_path))
    check(by_base(rows, "fill") == want["fill"], "fill kernels = launched", f"{by_base(rows, 'fill')} vs {want['fill']}")
    per = dict(c.execute("SELECT r.name, count(*) FROM kernels k JOIN event l ON l.id = k.launch_id "
                         "JOIN ranges r ON r.id = l.parent_id WHERE k.name LIKE 'fill%' GROUP BY r.name").fetchall())
    launched = {f"thread {i}": want.get(f"fill_thread_{i}") for i in range(want["threads"])}
    check(per == launched, "each thread's launch calls nest in its own range, as many as it counted",
          f"{per} vs {launched}")
    tracks = one(c, "SELECT count(DISTINCT r.thread_id) FROM ranges r WHERE r.name LIKE 'thread %'")
    check(tracks == want["threads"], "a track per thread", tracks)


def cmd_nosync(path, line):
    """cuda_counts --nosync: the kernels still running when main returned are recorded, whole."""
    c, want = db(path), app_counts(line)
    rows = kernel_names(c)
    check(by_base(rows, "spin") == want["spin"], "kernels still running at exit recorded", f"{by_base(rows, 'spin')} vs {want['spin']}")
    check(one(c, "SELECT count(*) FROM kernels WHERE dur_ns <= 0 OR launch_id IS NULL") == 0,
          "each whole and linked to its launch", "")
    ours = one(c, "SELECT count(*) FROM api_calls WHERE name IN ('cuCtxSynchronize', 'cuDevicePrimaryCtxRetain')")
    check(ours == 0, "the recorder's own driver calls at exit are not in the recording", ours)


def cmd_killed(path, launched):
    """A recording whose program was killed, built by tracedb finish: what was staged, whole."""
    c = db(path)
    status = one(c, "SELECT value FROM meta WHERE key = 'import_status'")
    check(status in ("complete", "partial"), "tracedb finish built the database", status)
    k = kind_count(c, "kernel")
    check(0 < k < int(launched), "some kernels kept, fewer than the program would have launched", k)
    nonpos = one(c, "SELECT count(*) FROM kernels WHERE dur_ns <= 0")
    check(nonpos == 0, "every kept kernel is whole (a positive duration)", nonpos)
    linked = one(c, "SELECT count(*) FROM kernels WHERE launch_id IS NOT NULL")
    check(linked > 0, "kept kernels linked to their launch calls", f"{linked} of {k}")


def peak_rss(err_path):
    """The peak RSS cmd_maxrss wrote into a recording's stderr (MiB)."""
    m = re.findall(r"peak RSS of the largest process: (\d+) MiB", open(err_path).read())
    return int(m[-1]) if m else None


def cmd_scale(path, line, small_err, big_err):
    """cuda_counts --burst N at a larger N: every kernel kept, nothing dropped, closed, linked; and the
    recorded program's peak RSS within 1.25x of the 1 M-launch recording's (the recorder's memory does
    not grow with the trace: its sorts spill, its maps drop matched entries)."""
    c, want = db(path), app_counts(line)
    k = one(c, "SELECT count(*) FROM kernels WHERE name LIKE '%empty_kernel%'")
    check(k == want["empty_kernel"], "every empty kernel recorded", f"{k} vs {want['empty_kernel']}")
    skipped = one(c, "SELECT coalesce(sum(skipped_events), 0) FROM trace")
    check(skipped == 0, "the recording dropped nothing (trace.skipped_events)", skipped)
    status = one(c, "SELECT value FROM meta WHERE key = 'import_status'")
    check(status == "complete", "the recording was closed (meta import_status)", status)
    unlinked = one(c, "SELECT count(*) FROM kernels WHERE launch_id IS NULL")
    check(unlinked == 0, "every kernel linked to its launch call", unlinked)
    small, big = peak_rss(small_err), peak_rss(big_err)
    check(small is not None and big is not None and big <= 1.25 * small,
          "peak RSS of the recorded program flat in the trace's size", f"{big} MiB vs {small} MiB at 1 M launches")


def cmd_maxrss(libs, *cmd):
    """Runs CMD (with LD_LIBRARY_PATH=libs), then prints the peak RSS of its largest process."""
    import resource
    rc = subprocess.run(list(cmd), env=dict(os.environ, LD_LIBRARY_PATH=libs)).returncode
    print("peak RSS of the largest process: %.0f MiB" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
          file=sys.stderr)
    sys.exit(rc)


def kernel_counts(c, window):
    """Kernel counts by name; in a tracedb recording only those launched inside the NVTX range 'measured'."""
    sql = "SELECT k.name, count(*) FROM kernels k"
    if window:
        sql += (" JOIN event l ON l.id = k.launch_id, ranges r WHERE r.name = 'measured' "
                "AND l.start_ns >= r.start_ns AND l.start_ns < r.end_ns")
    return collections.Counter(dict(c.execute(sql + " GROUP BY k.name").fetchall()))


def cmd_kineto(recorded, kineto, cupti_path):
    """torch_app.py recorded: its measured window against Kineto's trace of another run (kernels name by
    name), the whole run against CUPTI's count of a third (GPU kinds, kernels name by name), and the
    recording's own soundness. PyTorch's calls are not compared by count: its threads' device queries
    need not repeat from run to run."""
    c = db(recorded)
    r, k = kernel_counts(c, True), kernel_counts(db(kineto), False)
    check(sum(r.values()) > 0 and sum(r.values()) == sum(k.values()), "kernels in the measured window = Kineto's",
          f"{sum(r.values())} vs {sum(k.values())}")
    diff = {n: (r[n], k[n]) for n in sorted(set(r) | set(k)) if r[n] != k[n]}
    check(k and not diff, "kernel names and counts in the window = Kineto's (recorded, Kineto)",
          dict(list(diff.items())[:8]) if diff else f"{len(k)} names")
    common(c, cupti_counts(cupti_path), GPU_KINDS)


def report_rows(path, *args):
    env = dict(os.environ)
    if os.environ.get("TRACEDB_LIBS"):  # the bundle's libraries, for tracedb alone (not this Python)
        env["LD_LIBRARY_PATH"] = os.environ["TRACEDB_LIBS"]
    out = subprocess.run([os.environ.get("TRACEDB", "tracedb")] + list(args) + [path, "--format", "csv"],
                         capture_output=True, text=True, check=True, env=env).stdout
    return list(csv.DictReader(io.StringIO(out)))


def cmd_launches(recorded):
    """tracedb launches --each on a recording: one row per GPU row launched by a launch call."""
    c = db(recorded)
    want = one(c, "SELECT count(*) FROM event e JOIN api_calls a ON a.id = e.launch_id WHERE a.name IN "
                  "('cudaLaunchKernel', 'cudaLaunchKernelExC', 'cudaMemcpyAsync', 'cudaMemsetAsync')")
    rows = report_rows(recorded, "launches", "--each")
    check(want > 0 and len(rows) == want, "launches --each: a row per GPU row its launch call made",
          f"{len(rows)} vs {want}")


def op_device(c):
    return {r[0] for r in c.execute("SELECT s.value FROM event_stats es JOIN string s ON s.id = es.name_id "
                                    "JOIN kind k ON k.id = es.kind WHERE k.name = 'op' AND s.value LIKE 'aten::%' "
                                    "GROUP BY 1 HAVING sum(es.self_device_ns) > 0").fetchall()}


def cmd_nvtx_ops(nvtx, kineto):
    ops = lambda c: collections.Counter(dict(c.execute(
        "SELECT name, count(*) FROM ops WHERE name LIKE 'aten::%' GROUP BY name").fetchall()))
    a, b = ops(db(nvtx)), ops(db(kineto))
    check(sum(a.values()) > 0, "emit_nvtx ranges became aten operators", sum(a.values()))
    diff = {n: (a[n], b[n]) for n in set(a) | set(b) if a[n] != b[n]}
    check(not diff, "aten operator counts = Kineto's", dict(list(diff.items())[:8]))
    a, b = op_device(db(nvtx)), op_device(db(kineto))
    check(a and a == b, "the aten operators with GPU time of their own = Kineto's", sorted(a ^ b)[:8])


COMMANDS = {"counts": cmd_counts, "burst": cmd_burst, "kineto": cmd_kineto, "nvtx_ops": cmd_nvtx_ops,
            "launches": cmd_launches, "threads": cmd_threads, "killed": cmd_killed, "nosync": cmd_nosync,
            "maxrss": cmd_maxrss, "scale": cmd_scale}


if __name__ == "__main__":
    try:
        COMMANDS[sys.argv[1]](*sys.argv[2:])
    except (sqlite3.Error, OSError, KeyError, ValueError, TypeError, subprocess.CalledProcessError) as e:
        check(False, "check.py " + " ".join(sys.argv[1:2]), f"stopped: {type(e).__name__}: {e}")
    sys.exit(1 if failed else 0)

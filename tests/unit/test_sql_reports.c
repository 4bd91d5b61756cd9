/* test_sql_reports.c: the reports as SQL table functions (tracedb_kernels() ...) give the rows of the
 * reports' own --format csv, through the sqlite3 shell with `.load build/libtracedb` and `tracedb sql`. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tests/sql_reports_check.py: 13 reports, no options and two option sets each, on three real traces. */
Test(sql_reports, every_report_table_function_equals_its_csv, .timeout = 600)
{
    if (run("command -v sqlite3 >/dev/null") != 0)
        skip_for_missing("the sqlite3 shell (sh tools/deps.sh test installs it)");
    static const char *const traces[] = {
        "tests/data/kineto/nccl_parser_config_nccl_data.json.gz",
        "tests/data/kineto/trace_diff_control_control.json.gz",
        "tests/data/kineto/critical_path_alexnet_trace.json.gz",
    };
    char *dirs[3], *dbs[3];
    for (int i = 0; i < 3; i++)
        dbs[i] = imported(traces[i], &dirs[i]);
    char lib[1024];
    snprintf(lib, sizeof lib, "%s", src_path("build/libtracedb"));
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' '%s' '%s' 2>&1", src_path("tests/sql_reports_check.py"),
                            tracedb(), lib, dbs[0], dbs[1], dbs[2]);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, " 0 failures") && !strstr(out, "'queries': 0,"), "%s", out);
    free(out);
    for (int i = 0; i < 3; i++)
        cleanup(dirs[i], dbs[i]);
}

/* tests/sql_reports_kept_check.py: a report's rows are kept for the next query only while the file is
 * unchanged: after an append (rollback journal), a commit into the WAL and the file replaced, the same query
 * on the same connection counts what the kernels view counts. */
Test(sql_reports, kept_rows_follow_the_file_as_it_changes, .timeout = 300)
{
    char *dir;
    char *db = imported("tests/data/kineto/nccl_parser_config_nccl_data.json.gz", &dir);
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' '%s' 2>&1", src_path("tests/sql_reports_kept_check.py"),
                            tracedb(), src_path("build/libtracedb"), db,
                            src_path("tests/data/kineto/trace_diff_control_control.json.gz"));
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "0 failures"), "%s", out);
    free(out);
    cleanup(dir, db);
}

/* `tracedb sql` has them: a filter over tracedb_kernels() gives the NCCL kernels' names and total time that
 * plain SQL over the kernels view counts; a view cannot make a report run (SQLITE_VTAB_DIRECTONLY; a view in the database file, as one sent to you would hold). */
Test(sql_reports, tracedb_sql_filters_a_report_and_views_cannot_run_one, .timeout = 120)
{
    char *dir;
    char *db = imported("tests/data/kineto/nccl_parser_config_nccl_data.json.gz", &dir);
    int64_t names = file_int(db, "SELECT count(DISTINCT name) FROM kernels WHERE name LIKE 'nccl%'");
    int64_t total = file_int(db, "SELECT sum(dur_ns) FROM kernels WHERE name LIKE 'nccl%'");
    cr_assert_gt(names, 0);
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' \"SELECT count(*), sum(total_ns) FROM tracedb_kernels() WHERE name LIKE "
                                 "'nccl%%'\" --format csv", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    long long n = -1, t = -1;
    cr_assert_eq(sscanf(strstr(out, "\n") + 1, "%lld,%lld", &n, &t), 2, "%s", out);
    cr_assert_eq(n, names, "%s", out);
    cr_assert_eq(t, total, "%s", out);
    free(out);
    out = run_capture(&st, "sqlite3 '%s' '.load %s' 'CREATE VIEW v AS SELECT * FROM tracedb_ops(); SELECT count(*) FROM v' 2>&1",
                      db, src_path("build/libtracedb"));
    cr_assert_neq(st, 0, "%s", out);
    cr_assert(strstr(out, "unsafe use of virtual table"), "%s", out);
    free(out);
    cleanup(dir, db);
}

/* Hosts and databases an attacker picks. A main database on another VFS (memdb under the name "--help", a
 * deserialized one) is not a file: refused, the host goes on (a name read as --help once ended the host
 * with status 0; the deserialized database's name once read a file of that name in the directory). A
 * report table a database file carries (CREATE VIRTUAL TABLE x USING tracedb_ops, no options) is refused
 * at its creation; `tracedb sql` says when the database's own table hides a report's name. Two threads of
 * one host, each with its own connection, run reports at once and each gets its own report's columns. */
/* An options text of megabytes is not said back whole: the message holds its first few hundred bytes and
 * its length, then what the command said (its own echo held the same way). */
Test(sql_reports, megabytes_of_options_are_not_said_back_whole, .timeout = 120)
{
    char *dir;
    char *db = imported("tests/data/kineto/cpu_only_rank-34.json.gz", &dir);
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 - '%s' '%s' 2>&1 <<'PY'\n"
                                 "import sqlite3, sys\n"
                                 "c = sqlite3.connect(sys.argv[2]); c.enable_load_extension(True); c.load_extension(sys.argv[1])\n"
                                 "for opt in ('--group-by ' + 'x' * 4000000, '--range ' + 'a' * 4000000 + ' --bogus'):\n"
                                 "    try: c.execute('SELECT * FROM tracedb_ops(?)', (opt,)).fetchall(); print('ran')\n"
                                 "    except sqlite3.Error as e: print(len(str(e)), str(e)[:40], str(e)[-60:])\n"
                                 "PY",
                            src_path("build/libtracedb"), db);
    cr_assert_eq(st, 0, "%.2000s", out);
    long first, second;
    char *nl = strchr(out, '\n');
    cr_assert(nl && sscanf(out, "%ld", &first) == 1 && sscanf(nl + 1, "%ld", &second) == 1, "%.2000s", out);
    cr_expect_lt(first, 2000, "a 4 MB --group-by said back in %ld bytes", first);
    cr_expect_lt(second, 2000, "a 4 MB --range said back in %ld bytes", second);
    cr_expect(strstr(out, "tracedb_ops('--group-by xxxx") && strstr(out, "bytes in all"), "%.2000s", out);
    cr_expect(strstr(out, "unknown option '--bogus'"), "what the command said is kept: %.2000s", out);
    free(out);
    cleanup(dir, db);
}

Test(sql_reports, hostile_hosts_and_databases, .timeout = 300)
{
    char *dir;
    char *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    const char *lib = src_path("build/libtracedb");
    int st;
    char *out = run_capture(&st, "cd '%s' && cp '%s' x && /usr/bin/python3 - '%s' '%s' 2>&1 <<'PY'\n"
                                 "import sqlite3, sys, threading\n"
                                 "lib, db = sys.argv[1], sys.argv[2]\n"
                                 "def con(name, **kw):\n"
                                 "    c = sqlite3.connect(name, check_same_thread=False, **kw)\n"
                                 "    c.enable_load_extension(True); c.load_extension(lib); return c\n"
                                 "for name in ('file:--help?vfs=memdb', 'file:-h?vfs=memdb'):\n"
                                 "    try:\n"
                                 "        con(name, uri=True).execute('SELECT * FROM tracedb_kernels()').fetchall(); print('ran on', name)\n"
                                 "    except sqlite3.Error as e: print('refused:', e)\n"
                                 "c = con(':memory:'); c.deserialize(open(db, 'rb').read())\n"
                                 "try: print('deserialized ran:', c.execute('SELECT count(*) FROM tracedb_ops()').fetchone())\n"
                                 "except sqlite3.Error as e: print('refused:', e)\n"
                                 "got = {}\n"
                                 "def run(report, opts, n):\n"
                                 "    c = con(db)\n"
                                 "    for i in range(n):\n"
                                 "        c.execute('CREATE VIRTUAL TABLE temp.t%%d USING %%s(%%s)' %% (i, report, opts))\n"
                                 "        cur = c.execute('SELECT * FROM t%%d' %% i)\n"
                                 "        got.setdefault((report, cur.description[0][0]), 0); got[(report, cur.description[0][0])] += 1\n"
                                 "ts = [threading.Thread(target=run, args=a) for a in (('tracedb_ops', \"'--by-step'\", 40), ('tracedb_kernels', \"'--by-rank'\", 40))]\n"
                                 "[t.start() for t in ts]; [t.join() for t in ts]\n"
                                 "print('columns', sorted(got.items()))\n"
                                 "print('host alive')\n"
                                 "PY",
                            dir, db, lib, db);
    cr_assert_eq(st, 0, "%s", out);
    cr_expect(strstr(out, "host alive"), "the host went on: %s", out);
    cr_expect(!strstr(out, "ran on") && !strstr(out, "deserialized ran"), "nothing ran off a file: %s", out);
    /* by hand: ops --by-step's first column is step, kernels --by-rank's is rank, in every run */
    cr_expect(strstr(out, "columns [(('tracedb_kernels', 'rank'), 40), (('tracedb_ops', 'step'), 40)]"), "%s", out);
    free(out);
    out = run_capture(&st, "cd '%s' && cp '%s' vt.db && sqlite3 vt.db '.load %s' 'CREATE VIRTUAL TABLE x USING tracedb_ops' 2>&1; "
                           "sqlite3 vt.db \"SELECT count(*) FROM sqlite_schema WHERE name = 'x'\"",
                      dir, db, lib);
    cr_expect(strstr(out, "made in temp") && strstr(out, "\n0\n"), "refused, nothing stored: %s", out);
    free(out);
    out = run_capture(&st, "cd '%s' && cp '%s' own.db && sqlite3 own.db 'CREATE TABLE tracedb_kernels(name, total_ns)' && "
                           "'%s' sql own.db 'SELECT count(*) FROM tracedb_kernels' 2>&1",
                      dir, db, tracedb());
    cr_expect(strstr(out, "has its own tracedb_kernels, which hides tracedb's report"), "%s", out);
    free(out);
    cleanup(dir, db);
}

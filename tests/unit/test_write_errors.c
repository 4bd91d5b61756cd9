/* test_write_errors.c: every writer (export csv and chrome, report, merge, an append, an import where
 * SQLite keeps no errno) meets a full disk or `ulimit -f` mid-file and says so: a non-zero exit, the
 * reason in words, and no
 * file, whole or cut, under the name asked for; an append leaves the old database as it was. Outputs
 * are never replaced without --force, and never the database or trace being read. */
#include "helpers.h"
#include "db_guard.h"
#include <signal.h>
#include <sys/resource.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fresh dir holding a.db (alexnet's trace: its csv of events is 80 KB, its Chrome JSON 250 KB). */
static char *dir_with_db(void)
{
    char *dir = temp_dir();
    char db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    return dir;
}

/* Runs ARGS (a.db in dir) under ulimit -f 4 (2 KB, dash's 512-byte blocks): the output named out must
 * fail with the reason, exit 1, and leave nothing under its name (no temporary either). */
static void fails_past_file_limit(const char *dir, const char *args, const char *out)
{
    int st;
    char *text = run_capture(&st, "cd '%s' && (ulimit -f 4; '%s' %s) 2>&1; echo rc=$?", dir, tracedb(), args);
    cr_expect(strstr(text, "rc=1\n"), "%s: exit 1 (not 0, not death by SIGXFSZ): %s", args, text);
    cr_expect(strstr(text, "file too large"), "%s: the reason is said: %s", args, text);
    cr_expect(strstr(text, out), "%s: the output is named: %s", args, text);
    cr_expect_eq(count_files(dir, out), 0, "%s: nothing left under %s's name", args, out);
    free(text);
}

Test(write_errors, every_export_and_the_report_past_ulimit_f_fail_with_the_reason_and_leave_nothing)
{
    char *dir = dir_with_db();
    fails_past_file_limit(dir, "export csv a.db --table event -o t.csv", "t.csv");
    fails_past_file_limit(dir, "export csv a.db --query 'SELECT * FROM event' -o q.csv", "q.csv");
    fails_past_file_limit(dir, "export csv a.db --report ops -o r.csv", "r.csv");
    fails_past_file_limit(dir, "export chrome a.db -o c.json", "c.json");
    fails_past_file_limit(dir, "export chrome a.db -o z.json.gz", "z.json.gz");
    fails_past_file_limit(dir, "report a.db -o p.html", "p.html");
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(write_errors, a_full_disk_on_standard_output_is_an_error_with_its_reason)
{
    char *dir = dir_with_db();
    static const char *const cmds[] = {"export csv a.db --table event", "export chrome a.db -o -", "ops a.db",
                                       "sql a.db 'SELECT * FROM event'", "--help", "--version", "ops --help"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int st;
        char *text = run_capture(&st, "cd '%s' && '%s' %s 2>&1 >/dev/full; echo rc=$?", dir, tracedb(), cmds[i]);
        cr_expect(strstr(text, "rc=1\n"), "%s > /dev/full: exit 1: %s", cmds[i], text);
        cr_expect(strstr(text, "No space left on device") || strstr(text, "disk full"), "%s: the reason: %s", cmds[i],
                  text);
        cr_expect(!strstr(text, "Success"), "%s: no error said with errno 0's text: %s", cmds[i], text);
        free(text);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A small trace's import meets the limit where SQLite grows the file (zeros to its new end), which keeps
 * no errno: the reason is said all the same, not SQLite's bare "disk I/O error" (a large trace meets it
 * writing a page, with the errno: untrusted_outputs/file_size_limit_is_a_clear_error_and_leaves_no_temporary). */
Test(write_errors, a_small_import_past_ulimit_f_says_file_too_large)
{
    char *dir = temp_dir(), trace[600];
    snprintf(trace, sizeof trace, "%s/x.json", dir);
    FILE *f = fopen(trace, "w");
    cr_assert(f);
    fputs("{\"traceEvents\":[", f);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5}",
                i ? "," : "", i % 7, i * 10);
    fputs("]}", f);
    fclose(f);
    for (int blocks = 60; blocks <= 200; blocks += 70) {
        int st;
        char *out = run_capture(&st, "cd '%s' && (ulimit -f %d; '%s' import -q x.json -o s.db) 2>&1; echo rc=$?", dir,
                                blocks, tracedb());
        cr_expect(strstr(out, "rc=1") && strstr(out, "s.db") && strstr(out, "file too large"), "ulimit -f %d: %s", blocks,
                  out);
        free(out);
        cr_expect_eq(count_files(dir, "s.db"), 0, "neither the database nor a temporary is left");
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* SQLITE_FULL with no errno is a full disk as much as a write cut at ulimit -f's limit: "file too large"
 * is said only where the file ends at the limit. A database held to 2 pages (max_page_count) is full, errno
 * 0, 8 KiB into a 512 KiB limit: SQLite's own words, not "file too large" (a full disk gave that). */
Test(write_errors, a_full_database_below_the_file_size_limit_is_not_called_too_large)
{
    char *dir = temp_dir(), path[600];
    snprintf(path, sizeof path, "%s/f.db", dir);
    struct rlimit limit;
    cr_assert_eq(getrlimit(RLIMIT_FSIZE, &limit), 0);
    limit.rlim_cur = 512 << 10;
    cr_assert_eq(setrlimit(RLIMIT_FSIZE, &limit), 0); /* (this test's process alone) */
    signal(SIGXFSZ, SIG_IGN);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA page_size = 4096; CREATE TABLE t (x); PRAGMA max_page_count = 2", NULL, NULL, NULL),
                 SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "INSERT INTO t VALUES (randomblob(20000))", NULL, NULL, NULL), SQLITE_FULL);
    char why[512];
    tdb_db_errmsg(db, why, sizeof why);
    cr_expect(strstr(why, "full") && !strstr(why, "file too large"), "%s", why);
    sqlite3_close(db);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(write_errors, an_append_past_ulimit_f_leaves_the_old_database_byte_for_byte_and_readable)
{
    char *dir = dir_with_db();
    char db[600], copy[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    snprintf(copy, sizeof copy, "%s/before", dir);
    run("cp '%s' '%s'", db, copy);
    int st;
    /* the append needs a journal and pages well past 1000 blocks (500 KB) for this 12 MB trace */
    char *text = run_capture(&st, "cd '%s' && (ulimit -f 1000; '%s' import -q '%s' -o a.db --append) 2>&1; echo rc=$?",
                             dir, tracedb(), src_path("tests/data/kineto/trace_diff_test_test.json.gz"));
    cr_expect(strstr(text, "rc=1\n"), "the append fails: %s", text);
    cr_expect(strstr(text, "file too large"), "with the reason: %s", text);
    free(text);
    long n1, n2;
    char *a = read_file(db, &n1), *b = read_file(copy, &n2);
    cr_expect(n1 == n2 && memcmp(a, b, (size_t)n1) == 0, "a.db is as before the append (%ld vs %ld bytes)", n1, n2);
    free(a), free(b);
    cr_expect_eq(count_files(dir, "a.db-journal"), 0, "no hot journal left for the next reader");
    text = run_capture(&st, "'%s' sql '%s' 'SELECT count(*) FROM event' --format csv 2>&1", tracedb(), db);
    cr_expect_eq(st, 0, "a read-only reader opens it at once: %s", text);
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(write_errors, merge_past_ulimit_f_blames_its_output_not_its_inputs)
{
    char *dir = dir_with_db();
    char b[600];
    snprintf(b, sizeof b, "%s/b.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), b), 0);
    int st;
    char *text = run_capture(&st, "cd '%s' && (ulimit -f 1000; '%s' merge a.db b.db -o m.db) 2>&1; echo rc=$?", dir,
                             tracedb());
    cr_expect(strstr(text, "rc=1\n"), "the merge fails: %s", text);
    cr_expect(strstr(text, "m.db") && strstr(text, "file too large"), "the output is named, with the reason: %s", text);
    cr_expect(!strstr(text, "b.db:"), "the input is not blamed: %s", text);
    cr_expect_eq(count_files(dir, "m.db"), 0, "no m.db, whole or cut");
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(write_errors, an_existing_output_is_replaced_only_with_force_and_the_input_never)
{
    char *dir = dir_with_db();
    run("cd '%s' && echo keep > t.csv && echo keep > c.json && cp a.db before.db && cp '%s' t.json.gz && cp t.json.gz "
        "t0.json.gz && mkdir logs && cp t.json.gz logs/r0.json.gz",
        dir, src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    static const struct {
        const char *args, *says;
        int rc;
    } cases[] = {
        {"export csv a.db --table meta -o t.csv", "t.csv already exists; use --force", 2},
        {"export chrome a.db -o c.json", "c.json already exists; use --force", 2},
        {"export csv a.db --table meta -o a.db", "a.db is the database this export reads", 2},
        {"export csv a.db --table meta -o a.db --force", "a.db is the database this export reads", 2},
        {"export chrome a.db -o a.db --force", "a.db is the database this export reads", 2},
        {"export chrome a.db -o ./a.db --force", "is the database this export reads", 2},
        {"report a.db -o a.db --force", "a.db is an input of this report", 2},
        {"merge a.db before.db -o a.db --force", "a.db is an input of this merge", 2},
        {"import t.json.gz -o t.json.gz --force", "t.json.gz is a trace this import reads", 2},
        {"import before.db t.json.gz -o ./t.json.gz --force", "t.json.gz is a trace this import reads", 2},
        {"import logs -o logs/r0.json.gz --force", "logs/r0.json.gz is a trace this import reads", 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *text = run_capture(&st, "cd '%s' && '%s' %s 2>&1", dir, tracedb(), cases[i].args);
        cr_expect_eq(st, cases[i].rc, "%s: exit %d: %s", cases[i].args, cases[i].rc, text);
        cr_expect(strstr(text, cases[i].says), "%s: says '%s': %s", cases[i].args, cases[i].says, text);
        free(text);
    }
    int st;
    char *text = run_capture(&st, "cd '%s' && cat t.csv c.json && cmp a.db before.db && cmp t.json.gz t0.json.gz && "
                                 "cmp logs/r0.json.gz t0.json.gz && echo same", dir);
    cr_expect_str_eq(text, "keep\nkeep\nsame\n", "nothing was replaced");
    free(text);
    /* with --force, an existing output (not an input) is replaced by the export */
    text = run_capture(&st, "cd '%s' && '%s' export csv a.db --table meta -o t.csv --force && head -1 t.csv", dir,
                       tracedb());
    cr_expect_eq(st, 0);
    cr_expect_str_eq(text, "key,value\r\n", "t.csv is the export now (csv: RFC 4180 line ends)");
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* An import whose stderr is a pipe no one reads (`tracedb import DIR -o x.db 2>&1 | head -1` once head
 * has gone) dies of SIGPIPE at its first message, here the warning of a range never ended, said while
 * the database is being written; its temporary goes with it: no x.db, no x.db.tmp-PID left. The pipe's
 * read end is closed before tracedb starts (Python), so the first write fails every time. */
Test(write_errors, an_import_killed_by_a_closed_pipe_leaves_no_temporary)
{
    char *dir = temp_dir();
    cr_assert_eq(run("mkdir '%s/t' && echo '{\"traceEvents\": [{\"ph\": \"B\", \"name\": \"open\", \"pid\": 1, "
                     "\"tid\": 1, \"ts\": 1}]}' > '%s/t/a.json'",
                     dir, dir),
                 0);
    cr_assert_eq(run("/usr/bin/python3 -c \"import os, subprocess, sys; r, w = os.pipe(); os.close(r); "
                     "p = subprocess.run([sys.argv[1], 'import', sys.argv[2] + '/t', '-o', sys.argv[2] + '/x.db'], "
                     "stderr=w, stdout=w, restore_signals=True); sys.exit(0 if p.returncode == -13 else 1)\" '%s' '%s'",
                     tracedb(), dir),
                 0, "killed by SIGPIPE");
    cr_assert_eq(run("ls '%s' | grep -q '^x\\.db'", dir), 1, "nothing named x.db* left");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* An output that is no file (a FIFO here, or lp, a link to it; /dev/null as root, which --force renamed
 * over, leaving a plain file in /dev) is never replaced, even with --force: each writer exits non-zero naming it, and it is
 * still a FIFO. report's check that its output exists no longer opens it (a FIFO blocked there). */
Test(write_errors, an_output_that_is_no_file_is_never_replaced_even_with_force, .timeout = 120)
{
    char *dir = dir_with_db();
    run("cd '%s' && cp a.db b.db && cp '%s' t.json.gz && mkfifo p && ln -s p lp", dir,
        src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    static const char *const cmds[] = {"export csv a.db --table meta -o p --force", "export chrome a.db -o p --force",
                                       "report a.db -o p --force", "import -q t.json.gz -o p --force",
                                       "merge a.db b.db -o p --force", "export csv a.db --table meta -o lp --force",
                                       "import -q t.json.gz -o lp --force"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int st;
        char *text = run_capture(&st, "cd '%s' && timeout 60 '%s' %s 2>&1; echo rc=$?; test -p p && echo fifo", dir,
                                 tracedb(), cmds[i]);
        cr_expect(!strstr(text, "rc=0\n") && !strstr(text, "rc=124\n"), "%s: refused, not done nor hung: %s", cmds[i], text);
        cr_expect(strstr(text, "p: is not a regular file") || strstr(text, "p is not a regular file"), "%s: says why: %s",
                  cmds[i], text);
        cr_expect(strstr(text, "fifo\n"), "%s: p is still a FIFO: %s", cmds[i], text);
        cr_expect_eq(run("cd '%s' && test -L lp", dir), 0, "%s: lp is still a link", cmds[i]);
        free(text);
        run("cd '%s' && rm -f p && mkfifo p", dir);
    }
    cr_expect_eq(count_files(dir, ".tmp-"), 0, "no temporary left");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* -o '' names no file: import and merge say so before any work (they did the whole work, then failed to
 * move their temporary ".tmp-PID" to "", saying only that). */
Test(write_errors, an_empty_output_name_is_refused_before_any_work)
{
    char *dir = dir_with_db();
    run("cd '%s' && cp a.db b.db && cp '%s' t.json.gz", dir, src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    static const char *const cmds[] = {"import -q t.json.gz -o ''", "merge a.db b.db -o ''"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int st;
        char *text = run_capture(&st, "cd '%s' && '%s' %s 2>&1", dir, tracedb(), cmds[i]);
        cr_expect_eq(st, 2, "%s: exit 2: %s", cmds[i], text);
        cr_expect(strstr(text, "-o names no file") && !strstr(text, ".tmp-"), "%s: says so: %s", cmds[i], text);
        free(text);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

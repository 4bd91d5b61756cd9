/* test_readonly.c: reading a database changes nothing and creates nothing beside it. A database left in
 * WAL mode and closed (no -wal beside it) is read immutable by every reader: `sql`, the reports and the
 * exports create no -wal or -shm and leave its bytes as they were. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Puts the database at path in WAL mode with one row committed (meta k = v) by another program, closed
 * since: no -wal beside it. */
static void wal_mode_and_closed(const char *path)
{
    cr_assert_eq(run("/usr/bin/python3 -c \"import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                     "c.execute('PRAGMA journal_mode=WAL'); c.execute(\\\"INSERT INTO meta VALUES ('k', 'v')\\\"); "
                     "c.commit(); c.close()\" '%s'", path),
                 0);
}

Test(readonly, a_closed_wal_mode_database_is_read_without_a_file_made_or_changed)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/w.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    wal_mode_and_closed(db);
    int st;
    char *before = run_capture(&st, "cd '%s' && ls && cksum < w.db", dir);
    cr_assert(strstr(before, "w.db\n") && !strstr(before, "w.db-wal"), "WAL mode, closed: %s", before);
    char *out = run_capture(&st, "cd '%s' && '%s' sql w.db \"SELECT value FROM meta WHERE key = 'k'\" --format csv && "
                                 "'%s' summary w.db > /dev/null && '%s' ops w.db > /dev/null && "
                                 "'%s' export csv w.db --table events > /dev/null && '%s' export chrome w.db -o - > /dev/null",
                            dir, tracedb(), tracedb(), tracedb(), tracedb(), tracedb());
    cr_expect_eq(st, 0, "%s", out);
    cr_expect(strstr(out, "value\r\nv\r\n"), "the committed row is read: %s", out);
    free(out);
    char *after = run_capture(&st, "cd '%s' && ls && cksum < w.db", dir);
    cr_expect_str_eq(after, before, "no -wal, no -shm, the same bytes");
    free(before), free(after);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The same database as the second run of `diff` and an input of `merge`: both ATTACH it to a connection
 * of their own, and it is read immutable there too: no -wal, no -shm, the same bytes. */
Test(readonly, a_closed_wal_mode_database_attached_by_diff_or_merge_gets_no_file_beside_it)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    char w[600];
    snprintf(w, sizeof w, "%s/w.db", dir);
    cr_assert_eq(run("cp '%s' '%s'", db, w), 0);
    wal_mode_and_closed(w);
    int st;
    char *before = run_capture(&st, "cd '%s' && ls w.db* && cksum < w.db", dir);
    cr_assert(strstr(before, "w.db\n") && !strstr(before, "w.db-wal"), "WAL mode, closed: %s", before);
    static const char *const cmds[] = {"diff a.db w.db", "merge a.db w.db -o m.db"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *out = run_capture(&st, "cd '%s' && '%s' %s 2>&1 >/dev/null", dir, tracedb(), cmds[i]);
        cr_expect_eq(st, 0, "%s: %s", cmds[i], out);
        free(out);
        char *after = run_capture(&st, "cd '%s' && ls w.db* && cksum < w.db", dir);
        cr_expect_str_eq(after, before, "%s: no -wal, no -shm, the same bytes", cmds[i]);
        free(after);
        run("cd '%s' && rm -f w.db-wal w.db-shm", dir);
    }
    free(before);
    run("rm -rf '%s'", dir);
    free(dir);
}

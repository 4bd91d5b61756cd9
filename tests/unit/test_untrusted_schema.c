/* test_untrusted_schema.c: a stranger's database whose tracedb table is a view in its place (a recursive
 * one, which runs for ever however small the file) is refused at once, by name, by every command that
 * reads or appends to it, and left as it was; such a view in the place of the import's pack is no pack. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* db's table `table` renamed away, and a view of that name that never ends in its place. */
static void view_in_place_of(const char *db, const char *table)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    char sql[1200];
    snprintf(sql, sizeof sql,
             "DROP TRIGGER IF EXISTS event_pack_stale_insert; DROP TRIGGER IF EXISTS event_pack_stale_delete; "
             "DROP TRIGGER IF EXISTS event_pack_stale_update; ALTER TABLE %s RENAME TO %s_kept; "
             "CREATE VIEW \"%s\" AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
             "SELECT t.* FROM %s_kept t, r WHERE r.n = 0",
             table, table, table, table);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* `tracedb ARGS` (DB in them as %1$s, a good database as %2$s) within 10 s: exit 1, the view named, the
 * database unchanged. */
static void refused(const char *dir, const char *args, const char *table)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, args, "bad.db", "good.db");
    int st;
    char *out = run_capture(&st, "cd '%s' && cksum < bad.db > before && timeout 10 '%s' %s 2>&1 >/dev/null; echo rc=$?; "
                                 "cksum < bad.db | cmp -s - before && echo unchanged",
                            dir, tracedb(), cmd);
    char said[200];
    snprintf(said, sizeof said, "bad.db: %s is a view, not a table: not a database tracedb wrote\n", table);
    cr_expect(strstr(out, said) && strstr(out, "rc=1\n"), "%s: %s", cmd, out);
    cr_expect(strstr(out, "unchanged\n"), "%s leaves it as it was: %s", cmd, out);
    free(out);
}

Test(untrusted_schema, a_view_in_a_tables_place_is_refused_by_every_reader, .timeout = 600)
{
    static const char *const args[] = {
        "kernels %1$s", "summary %1$s", "ops %1$s", "device %1$s", "memory %1$s", "critical-path %1$s",
        "report %1$s -o r.html", "export chrome %1$s -o e.json", "export csv %1$s --report ops", "diff %2$s %1$s",
        "diff %1$s %2$s", "merge %2$s %1$s -o m.db", "import -q t.json.gz -o %1$s --append", "finish %1$s"};
    static const char *const tables[] = {"event", "meta", "thread"};
    char *dir = temp_dir(), good[600];
    snprintf(good, sizeof good, "%s/good.db", dir);
    cr_assert_eq(run("cp '%s' '%s/t.json.gz'", src_path("tests/data/kineto/trace_diff_test_test.json.gz"), dir), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), good), 0);
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        char bad[700];
        snprintf(bad, sizeof bad, "%s/bad.db", dir);
        cr_assert_eq(run("cp '%s' '%s'", good, bad), 0);
        view_in_place_of(bad, tables[t]);
        for (size_t a = 0; a < sizeof args / sizeof *args; a++)
            if (strcmp(tables[t], "event") == 0 || a < 2) /* every command on one table; two on the others */
                refused(dir, args[a], tables[t]);
        cr_expect_eq(count_files(dir, "tmp-"), 0, "no temporary left");
        cr_expect_eq(run("cd '%s' && test ! -e r.html && test ! -e e.json && test ! -e m.db", dir), 0, "no output made");
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The shards of tracedb-mpi import: one of them edited so. */
Test(untrusted_schema, a_shard_with_a_view_in_a_tables_place_is_refused, .timeout = 300)
{
    const char *mpi = getenv("TRACEDB_MPI");
    if (!mpi || !*mpi || run("test -x '%s' && command -v mpirun >/dev/null 2>&1", mpi) != 0)
        skip_for_missing("no tracedb-mpi (make mpi needs Open MPI: sh tools/deps.sh mpi)");
    char *dir = temp_dir();
    cr_assert_eq(run("cd '%s' && mkdir traces && cp '%s' '%s' traces/ && ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root "
                     "--oversubscribe -n 2 '%s' import -q -o shards traces/*.json.gz",
                     dir, src_path("tests/data/kineto/trace_diff_control_control.json.gz"),
                     src_path("tests/data/kineto/trace_diff_test_test.json.gz"), mpi),
                 0);
    int st;
    char *shard = run_capture(&st, "cd '%s/shards' && ls shard-*.db | head -1", dir);
    cr_assert(shard && strlen(shard) > 1, "%s", shard);
    shard[strcspn(shard, "\n")] = 0;
    char path[900];
    snprintf(path, sizeof path, "%s/shards/%s", dir, shard);
    cr_assert_eq(run("cd '%s' && timeout 10 '%s' kernels shards >/dev/null 2>&1", dir, tracedb()), 0, "the shards as made");
    view_in_place_of(path, "event");
    char *out = run_capture(&st, "cd '%s' && timeout 10 '%s' kernels shards 2>&1; echo rc=$?", dir, tracedb());
    char said[1000];
    snprintf(said, sizeof said, "%s: event is a view, not a table: not a database tracedb wrote\n", shard);
    cr_expect(strstr(out, said) && strstr(out, "rc=1\n"), "%s", out);
    free(out), free(shard);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The pack's tables (schema/event_pack.sql) are the import's shortcut: a view in one's place is no pack,
 * and the reports read the event rows instead, as where there is no pack. */
Test(untrusted_schema, a_view_in_a_pack_tables_place_is_no_pack, .timeout = 300)
{
    static const char *const tables[] = {"event_pack", "event_pack_fix", "event_pack_less", "event_pack_stale"};
    char *dir = temp_dir(), good[600], bad[700];
    snprintf(good, sizeof good, "%s/good.db", dir);
    snprintf(bad, sizeof bad, "%s/bad.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), good), 0);
    int st;
    char *want = run_capture(&st, "'%s' ops '%s' --format csv && '%s' critical-path '%s' --each --format csv", tracedb(), good,
                             tracedb(), good);
    cr_assert_eq(st, 0);
    for (size_t t = 0; t < sizeof tables / sizeof *tables; t++) {
        cr_assert_eq(run("cp '%s' '%s'", good, bad), 0);
        view_in_place_of(bad, tables[t]);
        char *got = run_capture(&st, "timeout 10 '%s' ops '%s' --format csv && timeout 10 '%s' critical-path '%s' --each --format csv",
                                tracedb(), bad, tracedb(), bad);
        cr_expect_eq(st, 0, "%s: %s", tables[t], got);
        cr_expect_str_eq(got, want, "%s: the rows' figures", tables[t]);
        free(got);
    }
    free(want);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The views tracedb makes that its reports could read (steps, step_ranks, flow): each replaced by one that
 * never ends. */
static void endless_views(const char *db)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d,
                              "DROP VIEW steps; DROP VIEW step_ranks; DROP VIEW flow; "
                              "CREATE VIEW steps AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                              "SELECT 0 AS id, 'ProfilerStep#1' AS name, 0 AS start_ns, 0 AS end_ns, 0 AS dur_ns, 0 AS "
                              "parent_id, 0 AS depth, 0 AS self_ns, 1 AS step, 0 AS thread_id FROM r WHERE n = 0; "
                              "CREATE VIEW step_ranks AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                              "SELECT 0 AS rank, 1 AS step, 0 AS id, 0 AS start_ns, 0 AS dur_ns, 0 AS trace_id FROM r WHERE n = 0; "
                              "CREATE VIEW flow AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                              "SELECT 0 AS id, 0 AS flow_id, 0 AS cat_id, 's' AS phase, 0 AS thread_id, 0 AS ts_ns, "
                              "0 AS bind_enclosing, NULL AS event_id FROM r WHERE n = 0",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* The reports read tracedb's tables, never a database's views: ranks, diff (its steps), report (its step
 * chart) and export (its flows) print on a database whose views never end what they print on it as made. */
Test(untrusted_schema, the_reports_never_read_a_databases_views, .timeout = 600)
{
    static const char *const args[] = {"ranks a.db", "diff c.db a.db", "diff a.db c.db", "report a.db -o out",
                                       "export chrome a.db -o out"};
    char *dir = temp_dir();
    cr_assert_eq(run("cd '%s' && cp '%s' c.json.gz && cp '%s' t.json.gz", dir,
                     src_path("tests/data/kineto/trace_diff_control_control.json.gz"),
                     src_path("tests/data/kineto/trace_diff_test_test.json.gz")),
                 0);
    cr_assert_eq(run("cd '%s' && '%s' import -q c.json.gz -o c.db && '%s' import -q t.json.gz -o t.db && "
                     "'%s' merge c.db t.db -o a.db >/dev/null",
                     dir, tracedb(), tracedb(), tracedb()),
                 0);
    for (size_t a = 0; a < sizeof args / sizeof *args; a++) /* (two ranks of 6 steps each; 36,799 flows in t) */
        cr_assert_eq(run("cd '%s' && '%s' %s > made.%zu 2>&1 && { cat out >> made.%zu 2>/dev/null; rm -f out; }", dir,
                         tracedb(), args[a], a, a),
                     0, "%s", args[a]);
    char a_db[700];
    snprintf(a_db, sizeof a_db, "%s/a.db", dir);
    endless_views(a_db);
    for (size_t a = 0; a < sizeof args / sizeof *args; a++) {
        int st;
        char *out = run_capture(&st, "cd '%s' && timeout 20 '%s' %s > edited 2>&1; echo rc=$?; cat out >> edited 2>/dev/null; "
                                     "rm -f out; cmp -s made.%zu edited && echo same",
                                dir, tracedb(), args[a], a);
        cr_expect(strstr(out, "rc=0\n") && strstr(out, "same\n"), "%s: %s", args[a], out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A database made before event.flow keeps its flow halves in the table flow, which export and merge read:
 * one whose flow is a view that never ends is refused by name. */
Test(untrusted_schema, a_view_in_place_of_an_older_databases_flow_table_is_refused, .timeout = 300)
{
    static const char *const args[] = {"export chrome %1$s -o e.json", "merge %2$s %1$s -o m.db", "kernels %1$s",
                                       "import -q t.json.gz -o %1$s --append"};
    char *dir = temp_dir(), good[600], bad[600];
    snprintf(good, sizeof good, "%s/good.db", dir);
    snprintf(bad, sizeof bad, "%s/bad.db", dir);
    cr_assert_eq(run("cp '%s' '%s/t.json.gz'", src_path("tests/data/kineto/trace_diff_test_test.json.gz"), dir), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_control_control.json.gz"), good), 0);
    cr_assert_eq(run("cp '%s' '%s'", good, bad), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(bad, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d,
                              "DROP TRIGGER IF EXISTS event_pack_stale_insert; DROP TRIGGER IF EXISTS event_pack_stale_delete; "
                              "DROP TRIGGER IF EXISTS event_pack_stale_update; DROP VIEW flow; ALTER TABLE event DROP COLUMN flow; "
                              "CREATE VIEW flow AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
                              "SELECT f.id, f.flow_id, f.cat_id, f.phase, f.thread_id, f.ts_ns, f.bind_enclosing "
                              "FROM flow_loose f, r WHERE r.n = 0",
                              NULL, NULL, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    for (size_t a = 0; a < sizeof args / sizeof *args; a++)
        refused(dir, args[a], "flow");
    cr_expect_eq(run("cd '%s' && test ! -e e.json && test ! -e m.db", dir), 0, "no output made");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* test_untrusted.c: what tracedb guarantees on input from strangers (README, "Untrusted input"):
 * defensive SQLite connections, a read-only `sql` that writes nothing anywhere, outputs claimed
 * atomically, huge strings in linear time, temporary files cleaned up, valid UTF-8 and escaped
 * terminal output, documents that hold no trace, appends of foreign traces, anomalies versus damage. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *sample_db(const char *dir)
{
    char *db = malloc(strlen(dir) + 16);
    sprintf(db, "%s/run.db", dir);
    cr_assert_eq(import_to(src_path("samples/resnet18_inference.json.gz"), db), 0);
    return db;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Runs `tracedb sql db "sql"` (sql may hold single quotes: passed through a file); stdout+stderr. */
static char *sql_run(int *status, const char *dir, const char *db, const char *flags, const char *sql)
{
    char path[512];
    snprintf(path, sizeof path, "%s/query.sql", dir);
    write_file(path, sql, (long)strlen(sql));
    return run_capture(status, "'%s' sql '%s' \"$(cat '%s')\" %s 2>&1", tracedb(), db, path, flags);
}

Test(untrusted_sql, fts3_tokenizer_is_refused_and_nothing_crashes)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    int st;
    char *out = sql_run(&st, dir, db, "", "SELECT hex(fts3_tokenizer('simple'))");
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "not authorized to use function: fts3_tokenizer"), "%s", out);
    free(out);
    /* the crash of the issue: a tokenizer at a chosen address. Refused even with --write. */
    out = sql_run(&st, dir, db, "--write",
                  "SELECT fts3_tokenizer('evil', x'4141414141414141'); "
                  "CREATE VIRTUAL TABLE temp.t USING fts3(tokenize=evil); INSERT INTO temp.t VALUES ('x')");
    cr_assert_eq(st, 1, "exit %d: %s", st, out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(untrusted_sql, a_crafted_databases_views_cannot_call_risky_functions)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    sqlite3 *d; /* a stranger adds a view that leaks a code address */
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "CREATE VIEW leak AS SELECT hex(fts3_tokenizer('simple')) AS a", NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = sql_run(&st, dir, db, "", "SELECT a FROM leak");
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(!strstr(out, "0000"), "an address was printed: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(untrusted_sql, read_only_writes_no_file_anywhere)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    char target[512], sql[1024];
    snprintf(target, sizeof target, "%s/copy.db", dir);
    const char *attempts[] = {"VACUUM INTO '%s'", "ATTACH '%s' AS x", "ATTACH '%s' AS x; CREATE TABLE x.t(a)",
                              "SELECT 1; VACUUM INTO '%s'"};
    for (size_t i = 0; i < sizeof attempts / sizeof attempts[0]; i++) {
        snprintf(sql, sizeof sql, attempts[i], target);
        int st;
        char *out = sql_run(&st, dir, db, "", sql);
        cr_assert_eq(st, 1, "%s: %s", sql, out);
        cr_assert(strstr(out, "--write"), "the refusal names --write: %s", out);
        cr_assert(!exists(target), "%s created a file", sql);
        free(out);
    }
    long before = 0, after = 0;
    free(read_file(db, &before));
    const char *writes[] = {"PRAGMA user_version=7", "DELETE FROM meta", "CREATE TEMP TABLE t(a)",
                            "PRAGMA journal_mode=WAL"};
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++) {
        int st;
        char *out = sql_run(&st, dir, db, "", writes[i]);
        cr_assert_eq(st, 1, "%s: %s", writes[i], out);
        free(out);
    }
    free(read_file(db, &after));
    cr_assert_eq(before, after);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "PRAGMA user_version"), 1);
    sqlite3_close(d);
    /* reading stays possible: queries, and the pragmas that only report */
    int st;
    char *out = sql_run(&st, dir, db, "--format csv", "PRAGMA table_info(meta)");
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "0,key,TEXT"), "%s", out);
    free(out);
    out = sql_run(&st, dir, db, "--format csv", "SELECT count(*) FROM events");
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "410"), "%s", out);
    free(out);
    /* --write is the user's explicit choice */
    snprintf(sql, sizeof sql, "VACUUM INTO '%s'", target);
    free(sql_run(&st, dir, db, "--write", sql));
    cr_assert_eq(st, 0);
    cr_assert(exists(target));
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(untrusted_sql, a_path_is_never_read_as_a_uri)
{
    char *dir = temp_dir();
    /* "file:run.db?mode=memory" would be an empty in-memory database if read as a URI */
    cr_assert_eq(run("cd '%s' && '%s' import -q '%s' -o 'file:run.db?mode=memory' 2>/dev/null", dir, tracedb(),
                     src_path("samples/resnet18_inference.json.gz")),
                 0);
    char path[512];
    snprintf(path, sizeof path, "%s/file:run.db?mode=memory", dir);
    cr_assert(exists(path), "the database is the file of that name");
    int st;
    char *out = run_capture(&st, "cd '%s' && '%s' sql 'file:run.db?mode=memory' 'SELECT count(*) FROM event' --format csv",
                            dir, tracedb());
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "410"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

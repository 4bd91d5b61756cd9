/* test_untrusted.c: what tracedb guarantees on input from strangers (docs/untrusted-input.md):
 * defensive SQLite connections, a read-only `sql` that writes nothing anywhere, outputs claimed
 * atomically, huge strings in linear time, temporary files cleaned up, valid UTF-8 and escaped
 * terminal output, documents that hold no trace, appends of foreign traces, anomalies versus damage. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <sys/resource.h>
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

Test(untrusted_sql, a_crafted_databases_schema_is_not_trusted)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    sqlite3 *d; /* a stranger's view over a virtual table: SQLite runs it only where the schema is trusted */
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "CREATE VIRTUAL TABLE docs USING fts4(x); INSERT INTO docs VALUES ('hello'); "
                                 "CREATE VIEW leak AS SELECT x AS a FROM docs",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = sql_run(&st, dir, db, "", "SELECT a FROM leak");
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "unsafe use of virtual table"), "%s", out);
    free(out);
    out = sql_run(&st, dir, db, "--format csv", "PRAGMA trusted_schema");
    cr_assert(strstr(out, "\n0"), "trusted_schema is off: %s", out);
    free(out);
    out = sql_run(&st, dir, db, "--format csv", "SELECT x FROM docs"); /* typed directly: the user's choice */
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

Test(untrusted_sql, a_strangers_view_cannot_call_a_passs_own_function, .timeout = 60)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    sqlite3 *d; /* a view calling critical-path's cp_row() in event's place: refused before it is read */
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "ALTER TABLE event RENAME TO event_rows; "
                                 "CREATE VIEW event AS SELECT *, cp_row(NULL, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13) AS x "
                                 "FROM event_rows",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = run_capture(&st, "'%s' critical-path '%s' 2>&1", tracedb(), db);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "event is a view, not a table") && !strstr(out, "cp_row"), "%s", out);
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

Test(untrusted_outputs, two_imports_racing_for_one_name_one_wins_one_fails)
{
    char *dir = temp_dir();
    const char *trace = src_path("tests/data/kineto/trace_diff_test_test.json.gz");
    for (int round = 0; round < 3; round++) {
        run("rm -f '%s/o.db'", dir);
        int st;
        /* both start before either ends (each import takes ~0.3 s): both pass any early existence check */
        char *out = run_capture(&st,
                                "cd '%s' && { '%s' import -q '%s' -o o.db 2>a.err; echo a=$?; } & "
                                "{ cd '%s' && '%s' import -q '%s' -o o.db 2>b.err; echo b=$?; }; wait",
                                dir, tracedb(), trace, dir, tracedb(), trace);
        int ok = (strstr(out, "a=0") != NULL) + (strstr(out, "b=0") != NULL);
        int lost = (strstr(out, "a=1") != NULL) + (strstr(out, "b=1") != NULL);
        cr_assert_eq(ok, 1, "exactly one import may succeed: %s", out);
        cr_assert_eq(lost, 1, "the other fails: %s", out);
        free(out);
        out = run_capture(&st, "cat '%s/a.err' '%s/b.err'", dir, dir);
        cr_assert(strstr(out, "o.db already exists"), "the loser says why: %s", out);
        free(out);
        cr_assert_eq(count_files(dir, ".tmp-"), 0, "no temporary left");
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_outputs, file_size_limit_is_a_clear_error_and_leaves_no_temporary)
{
    char *dir = temp_dir();
    int st;
    char *out = run_capture(&st, "cd '%s' && (ulimit -f 200; '%s' import -q '%s' -o o.db) 2>&1; echo rc=$?", dir,
                            tracedb(), src_path("tests/data/kineto/trace_diff_test_test.json.gz"));
    cr_assert(strstr(out, "rc=1"), "an error, not death by SIGXFSZ: %s", out);
    cr_assert(strstr(out, "file too large"), "%s", out);
    free(out);
    cr_assert_eq(count_files(dir, "o.db"), 0, "neither the database nor a temporary is left");
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_outputs, sigterm_mid_import_leaves_no_temporary)
{
    char *dir = temp_dir();
    /* the trace arrives slowly on stdin; the import is killed while its temporary exists */
    int rc = run("cd '%s' && { { gzip -dc '%s' | head -c 300000; sleep 5; } | '%s' import -q - -o o.db 2>/dev/null & "
                 "echo $! > pid; } && for i in $(seq 100); do ls | grep -q tmp- && break; sleep 0.05; done; "
                 "ls | grep -q tmp- && kill -TERM $(cat pid) && sleep 0.5 && ! kill -0 $(cat pid) 2>/dev/null",
                 dir, src_path("tests/data/kineto/trace_diff_test_test.json.gz"), tracedb());
    cr_assert_eq(rc, 0, "the import was seen working, then killed");
    cr_assert_eq(count_files(dir, "o.db"), 0, "the temporary was removed on SIGTERM");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* An output that cannot be made is said in the user's words (the name given, and why: a missing
 * directory, a directory for a file, a file for a directory), before any work: a recording does not run
 * its program, and nothing is left behind. */
Test(untrusted_outputs, an_output_that_cannot_be_made_says_why_before_any_work)
{
    char *dir = temp_dir();
    const char *trace = src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz");
    char db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(trace, db), 0);
    run("echo text > '%s/file'", dir);
    static const struct {
        const char *args, *name, *why;
    } cases[] = {
        {"import -q TRACE -o DIR/missing/o.db", "cannot create DIR/missing/o.db", "directory DIR/missing does not exist"},
        {"import -q TRACE -o DIR/new/", "cannot create DIR/new/", "is a directory; name a file in it"},
        {"import -q TRACE -o DIR", "DIR is a directory", "name a database file in it"},
        {"import -q TRACE -o DIR --force", "DIR is a directory", "name a database file in it"},
        {"import -q TRACE -o DIR/file/o.db", "cannot create DIR/file/o.db", "DIR/file is not a directory"},
        {"merge DB DB -o DIR/missing/m.db", "cannot create DIR/missing/m.db", "directory DIR/missing does not exist"},
        {"export chrome DB -o DIR/missing/t.json", "cannot write DIR/missing/t.json", "directory DIR/missing does not exist"},
        {"export csv DB --table event -o DIR/missing/t.csv", "cannot write DIR/missing/t.csv", "directory DIR/missing does not exist"},
        {"report DB -o DIR/missing/r.html", "cannot write DIR/missing/r.html", "directory DIR/missing does not exist"},
        {"report DB -o DIR/", "cannot write DIR/", "is a directory"},
        {"record -o DIR/missing/r.db -- touch DIR/ran", "cannot record to DIR/missing/r.db", "directory DIR/missing does not exist"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* DIR, TRACE and DB in the case's words become the paths */
        char cmd[4000] = "", want_name[1000] = "", want_why[1000] = "";
        const char *from[3] = {cases[i].args, cases[i].name, cases[i].why};
        char *to[3] = {cmd, want_name, want_why};
        for (int k = 0; k < 3; k++) {
            for (const char *p = from[k]; *p;) {
                const char *sub = strncmp(p, "DIR", 3) == 0 ? dir : strncmp(p, "TRACE", 5) == 0 ? trace : strncmp(p, "DB", 2) == 0 ? db : NULL;
                if (sub) {
                    strcat(to[k], sub);
                    p += strncmp(p, "TRACE", 5) == 0 ? 5 : strncmp(p, "DIR", 3) == 0 ? 3 : 2;
                } else {
                    strncat(to[k], p++, 1);
                }
            }
        }
        int st;
        char *out = run_capture(&st, "'%s' %s 2>&1; echo rc=$?", tracedb(), cmd);
        cr_expect(strstr(out, want_name) && strstr(out, want_why) && !strstr(out, "rc=0") && !strstr(out, ".tmp-"),
                  "%s: %s", cmd, out);
        free(out);
    }
    cr_expect_eq(count_files(dir, "ran"), 0, "the program was not run");
    cr_expect_eq(count_files(dir, "tmp-"), 0, "no temporary is left");
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_outputs, stale_temporaries_of_dead_processes_are_removed)
{
    char *dir = temp_dir();
    int st;
    char *pid = run_capture(&st, "sh -c 'echo $$'"); /* a process that has exited */
    pid[strcspn(pid, "\n")] = 0;
    run("cd '%s' && echo junk > 'run.db.tmp-%s' && echo mine > 'run.db.tmp-1'", dir, pid); /* pid 1 lives */
    char db[512];
    snprintf(db, sizeof db, "%s/run.db", dir);
    cr_assert_eq(import_to(src_path("samples/resnet18_inference.json.gz"), db), 0);
    cr_assert_eq(count_files(dir, pid), 0, "the dead process's temporary is gone");
    cr_assert_eq(count_files(dir, "run.db.tmp-1"), 1, "a live process's temporary is left alone");
    free(pid);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace whose second event's name is made by the shell command body (printing the name's JSON text,
 * without quotes), between two small events; piped to `tracedb import -`. */
static int import_long_name(const char *dir, const char *body, const char *flags, char **err_out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && { printf '%%s' '[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1},"
             "{\"ph\":\"X\",\"ts\":5,\"dur\":2,\"pid\":1,\"tid\":1,\"name\":\"'; %s; "
             "printf '%%s' '\"},{\"ph\":\"X\",\"name\":\"b\",\"ts\":10,\"dur\":2,\"pid\":1,\"tid\":1}]'; } | "
             "'%s' import -q - -o o.db %s 2>err; echo $?",
             dir, body, tracedb(), flags);
    int st;
    char *out = run_capture(&st, "%s", cmd);
    int rc = atoi(out);
    free(out);
    if (err_out) {
        char path[512];
        snprintf(path, sizeof path, "%s/err", dir);
        *err_out = read_file(path, NULL);
    }
    return rc;
}

static int64_t dbq(const char *dir, const char *sql)
{
    char path[512];
    snprintf(path, sizeof path, "%s/o.db", dir);
    sqlite3 *d = db_open(path);
    int64_t v = db_int(d, sql);
    sqlite3_close(d);
    return v;
}

/* 96 MB of one string: yajl alone re-lexes it from its start on every 256 KiB chunk (~20 GB of work,
 * minutes); linear, it takes seconds. Rows over the writer's 4 MiB batch used to abort the import. */
Test(untrusted_strings, a_96_mb_name_is_kept_in_linear_time, .timeout = 60)
{
    char *dir = temp_dir();
    char *err;
    cr_assert_eq(import_long_name(dir, "head -c 96000000 /dev/zero | tr '\\0' x", "--max-string 100M", &err), 0,
                 "%s", err);
    free(err);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events"), 3);
    cr_assert_eq(dbq(dir, "SELECT length(name) FROM events WHERE start_ns = 5000"), 96000000);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events WHERE start_ns = 5000 AND name GLOB 'xxx*' AND name NOT GLOB '*[^x]*'"), 1);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_strings, a_string_over_the_cap_skips_its_event_and_keeps_its_neighbours, .timeout = 60)
{
    char *dir = temp_dir();
    char *err;
    /* 300 MB: never stored whole, scanned past */
    cr_assert_eq(import_long_name(dir, "head -c 300000000 /dev/zero | tr '\\0' x", "", &err), 1);
    cr_assert(strstr(err, "event at byte 54 skipped: a string of 300000000 bytes is longer than the limit (67108864"),
              "%s", err);
    free(err);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events WHERE name IN ('a', 'b')"), 2);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events"), 2);
    cr_assert_eq(dbq(dir, "SELECT skipped_events FROM trace"), 1);
    /* a small cap applies to short strings too */
    run("rm -f '%s/o.db'", dir);
    cr_assert_eq(import_long_name(dir, "printf 0123456789", "--max-string 9", &err), 1);
    cr_assert(strstr(err, "a string of 10 bytes is longer than the limit (9 bytes"), "%s", err);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A cut can land anywhere in an escape sequence (\u00e9, \\, \"): every offset in the 10-byte unit is
 * tried by shifting the string's start; the cut string's event goes, the rest stays whole. */
Test(untrusted_strings, a_cut_inside_an_escape_keeps_the_json_valid, .timeout = 120)
{
    char *dir = temp_dir();
    for (int shift = 0; shift < 10; shift++) {
        char body[256];
        snprintf(body, sizeof body, "head -c %d /dev/zero | tr '\\0' y; yes '\\u00e9\\\\\\\"' | tr -d '\\n' | head -c 3000000",
                 shift);
        run("rm -f '%s/o.db'", dir);
        char *err;
        cr_assert_eq(import_long_name(dir, body, "--max-string 1M", &err), 1, "shift %d: %s", shift, err);
        cr_assert(strstr(err, "skipped: a string of"), "shift %d: %s", shift, err);
        cr_assert(!strstr(err, "invalid JSON"), "shift %d: %s", shift, err);
        free(err);
        cr_assert_eq(dbq(dir, "SELECT count(*) FROM events WHERE name IN ('a', 'b')"), 2, "shift %d", shift);
    }
    /* under the cap, the same escapes decode exactly: 3,000,000 bytes of \u00e9 \\ \" (10 bytes) are
     * 300,000 times the 3 characters (4 bytes of UTF-8) é \ " */
    run("rm -f '%s/o.db'", dir);
    char *err;
    cr_assert_eq(import_long_name(dir, "yes '\\u00e9\\\\\\\"' | tr -d '\\n' | head -c 3000000", "", &err), 0, "%s", err);
    free(err);
    cr_assert_eq(dbq(dir, "SELECT length(CAST(name AS BLOB)) FROM events WHERE start_ns = 5000"), 1200000);
    cr_assert_eq(dbq(dir, "SELECT length(name) FROM events WHERE start_ns = 5000"), 900000);
    cr_assert_eq(dbq(dir, "SELECT replace(name, 'é\\\"', '') = '' FROM events WHERE start_ns = 5000"), 1);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Hand-written: a name with an OSC title sequence (ESC ] 0 ; ... BEL), C1 CSI (U+009B), invalid bytes
 * FF FE, a category cut inside a 2-byte character, args with bad bytes in a key and a value. */
static const char hostile_trace[] =
    "[{\"ph\":\"X\",\"name\":\"bad\\u001b]0;pwned\\u0007 \xc2\x9b \xff\xfe name\",\"cat\":\"x\xc3\",\"ts\":1,\"dur\":2,"
    "\"pid\":1,\"tid\":1,\"args\":{\"k\xff\":\"v\xfe\xc3\xa9\"}}]";

Test(untrusted_text, invalid_utf8_is_repaired_and_control_characters_escaped)
{
    char *dir = temp_dir();
    char trace[512], db[512], out_json[512];
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    snprintf(db, sizeof db, "%s/o.db", dir);
    snprintf(out_json, sizeof out_json, "%s/export.json", dir);
    write_file(trace, hostile_trace, (long)strlen(hostile_trace));
    cr_assert_eq(import_to(trace, db), 0);
    /* stored as valid UTF-8: each bad byte is U+FFFD (EF BF BD) */
    sqlite3 *d = db_open(db);
    char *name = db_text(d, "SELECT name FROM events");
    cr_assert_str_eq(name, "bad\x1b]0;pwned\x07 \xc2\x9b \xef\xbf\xbd\xef\xbf\xbd name");
    free(name);
    char *cat = db_text(d, "SELECT cat FROM events");
    cr_assert_str_eq(cat, "x\xef\xbf\xbd");
    free(cat);
    char *args = db_text(d, "SELECT args FROM events");
    cr_assert_str_eq(args, "{\"k\xef\xbf\xbd\":\"v\xef\xbf\xbd\xc3\xa9\"}");
    free(args);
    sqlite3_close(d);
    /* the table shows escapes, never the raw control bytes */
    int st;
    char *table = run_capture(&st, "'%s' sql '%s' 'SELECT name FROM events'", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(table, "bad\\x1b]0;pwned\\x07 \\u009b \xef\xbf\xbd\xef\xbf\xbd name"), "%s", table);
    cr_assert(!strchr(table, 0x1b) && !strchr(table, 0x07) && !strstr(table, "\xc2\x9b"), "raw control bytes: %s", table);
    free(table);
    /* the edges of what prints as it is: ' ' (0x20) to '~' (0x7e); 0x1f and DEL (0x7f) escaped */
    table = run_capture(&st, "'%s' sql '%s' \"SELECT '[ ' || char(31) || '~' || char(127) || 'x]' AS v\"", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(table, "[ \\x1f~\\x7fx]"), "%s", table);
    free(table);
    /* json output and the chrome export are strict JSON (Python's json module, which rejects bad UTF-8) */
    cr_assert_eq(run("'%s' sql '%s' 'SELECT name, cat, args FROM events' --format json | /usr/bin/python3 -c "
                     "'import json,sys; r=json.loads(sys.stdin.buffer.read().decode(\"utf-8\")); "
                     "assert r[0][\"name\"].endswith(\"\\ufffd\\ufffd name\"), r'",
                     tracedb(), db),
                 0);
    cr_assert_eq(run("'%s' export chrome '%s' -o '%s'", tracedb(), db, out_json), 0);
    cr_assert_eq(run("/usr/bin/python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],\"rb\").read().decode(\"utf-8\")); "
                     "e=[x for x in d[\"traceEvents\"] if x.get(\"ph\")==\"X\"][0]; "
                     "assert e[\"args\"][\"k\\ufffd\"]==\"v\\ufffd\\u00e9\", e' '%s'",
                     out_json),
                 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_text, a_foreign_databases_bad_bytes_are_repaired_on_output)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    sqlite3 *d; /* bytes put in by hand, not by tracedb's import */
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE string SET value = CAST(x'41ff1b42' AS TEXT) WHERE id = 1", NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' 'SELECT value FROM string WHERE id = 1' --format csv", tracedb(), db);
    cr_assert(strstr(out, "A\xef\xbf\xbd\x1b" "B"), "csv: U+FFFD for the bad byte: %s", out);
    free(out);
    out = run_capture(&st, "'%s' sql '%s' 'SELECT value FROM string WHERE id = 1' --format json", tracedb(), db);
    cr_assert(strstr(out, "\"A\xef\xbf\xbd\\u001bB\""), "json: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* Runs tracedb import on the JSON text doc (in dir/d.json) into dir/o.db; exit status, stderr in *err. */
static int import_doc(const char *dir, const char *doc, const char *flags, char **err)
{
    char trace[512];
    snprintf(trace, sizeof trace, "%s/d.json", dir);
    write_file(trace, doc, (long)strlen(doc));
    run("rm -f '%s/o.db'", dir);
    int rc = run("'%s' import -q '%s' -o '%s/o.db' %s 2>'%s/err'", tracedb(), trace, dir, flags, dir);
    char path[512];
    snprintf(path, sizeof path, "%s/err", dir);
    *err = read_file(path, NULL);
    return rc;
}

Test(untrusted_documents, a_document_that_holds_no_trace_says_what_it_is)
{
    char *dir = temp_dir();
    const struct {
        const char *doc, *says;
    } cases[] = {
        {"{\"foo\":1,\"bar\":[2]}", "a JSON object with no \"traceEvents\" (its keys: foo, bar): not a Chrome trace"},
        {"{\"traceEvents\":null}", "\"traceEvents\" is null, not an array of events"},
        {"{\"traceEvents\":{\"ph\":\"X\"}}", "\"traceEvents\" is an object, not an array of events"},
        {"42", "the document is a JSON number, not a Chrome trace"},
        {"\"trace\"", "the document is a JSON string, not a Chrome trace"},
        {"", "empty file"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *err;
        cr_assert_eq(import_doc(dir, cases[i].doc, "", &err), 1, "%s: %s", cases[i].doc, err);
        cr_assert(strstr(err, cases[i].says), "%s: %s", cases[i].doc, err);
        cr_assert(strstr(err, "nothing written"), "%s: %s", cases[i].doc, err);
        free(err);
        cr_assert_eq(count_files(dir, "o.db"), 0, "%s: no database of nothing", cases[i].doc);
    }
    /* an events array with nothing in it is a trace, with a word */
    char *err;
    cr_assert_eq(import_doc(dir, "{\"traceEvents\":[]}", "", &err), 0);
    cr_assert(strstr(err, "the trace holds no events"), "%s", err);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Each anomaly kind by hand: kept where there is something to keep, flagged, counted in meta, one line
 * each, exit 0; --strict skips them and exits 1. */
Test(untrusted_documents, anomalies_are_kept_and_counted_damage_is_not)
{
    char *dir = temp_dir();
    const char *doc =
        "[{\"ph\":\"B\",\"name\":\"open\",\"pid\":0,\"tid\":0,\"ts\":1},"
        "{\"ph\":\"X\",\"name\":\"x\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":5},"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":1,\"ts\":3},"
        "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":0,\"tid\":0,\"ts\":2,\"dur\":-1,\"args\":{\"k\":1}},"
        "{\"ph\":\"B\",\"name\":\"late\",\"pid\":0,\"tid\":0,\"ts\":9},"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":0,\"ts\":8}]";
    char *err;
    cr_assert_eq(import_doc(dir, doc, "", &err), 0, "%s", err);
    cr_assert(strstr(err, "1 event(s) had a negative \"dur\": kept with dur 0 (the first at byte 136"), "%s", err);
    cr_assert(strstr(err, "1 event(s) were E events with no open B on their thread"), "%s", err);
    cr_assert(strstr(err, "1 event(s) were B events never ended"), "%s", err);
    cr_assert(strstr(err, "1 event(s) were E events before their B"), "%s", err);
    free(err);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events"), 4);
    cr_assert_eq(dbq(dir, "SELECT dur_ns FROM events WHERE name = 'neg'"), 0);
    cr_assert_eq(dbq(dir, "SELECT args = '{\"k\":1,\"tracedb.anomaly\":\"negative dur\"}' FROM events WHERE name = 'neg'"), 1);
    cr_assert_eq(dbq(dir, "SELECT dur_ns FROM events WHERE name = 'late'"), 0);
    /* open [1 us, x's end 6 us]: its thread's last timestamp (late at 9 us is a B that started later but
     * ended at 9 with dur 0; the thread's last time is 9 us) */
    cr_assert_eq(dbq(dir, "SELECT dur_ns FROM events WHERE name = 'open'"), 8000);
    cr_assert_eq(dbq(dir, "SELECT sum(value) FROM meta WHERE key GLOB 'anomalies.*'"), 4);
    cr_assert_eq(dbq(dir, "SELECT value FROM meta WHERE key = 'anomalies.end_without_begin'"), 1);
    cr_assert_eq(import_doc(dir, doc, "--strict", &err), 1);
    free(err);
    cr_assert_eq(dbq(dir, "SELECT count(*) FROM events"), 1);
    /* open, the lone E, neg, late's early E, and late itself (left open by its skipped E) */
    cr_assert_eq(dbq(dir, "SELECT skipped_events FROM trace"), 5);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(untrusted_documents, appending_the_same_trace_again_is_refused_unless_asked)
{
    char *dir = temp_dir(), *db = sample_db(dir);
    const char *trace = src_path("samples/resnet18_inference.json.gz");
    int st;
    char *out = run_capture(&st, "'%s' import -q '%s' -o '%s' --append 2>&1", tracedb(), trace, db);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "the database already holds this trace (trace 1"), "%s", out);
    free(out);
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM trace"), 1, "the database is unchanged");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), 410);
    sqlite3_close(d);
    out = run_capture(&st, "'%s' import -q '%s' -o '%s' --append --allow-duplicate 2>&1", tracedb(), trace, db);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(!strstr(out, "warning"), "the same times: no time-base warning: %s", out);
    free(out);
    d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM trace"), 2);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), 820);
    sqlite3_close(d);
    /* the same file twice in one import */
    out = run_capture(&st, "'%s' import -q '%s' '%s' -o '%s/two.db' 2>&1", tracedb(), trace, trace, dir);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "already holds this trace"), "%s", out);
    free(out);
    cr_assert_eq(count_files(dir, "two.db"), 0);
    run("rm -rf '%s'", dir);
    free(db), free(dir);
}

/* A real Kineto trace (absolute times, 2022) and a trace with times from 0: 53 years apart. */
Test(untrusted_documents, appending_a_trace_on_another_time_base_warns)
{
    char *dir = temp_dir();
    char db[512], rel[512];
    snprintf(db, sizeof db, "%s/k.db", dir);
    snprintf(rel, sizeof rel, "%s/rel.json", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), db), 0);
    const char *doc = "[{\"ph\":\"X\",\"name\":\"x\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":5}]";
    write_file(rel, doc, (long)strlen(doc));
    int st;
    char *out = run_capture(&st, "'%s' import -q '%s' -o '%s' --append 2>&1", tracedb(), rel, db);
    cr_assert_eq(st, 0, "a warning, not an error: %s", out);
    cr_assert(strstr(out, "its events lie 53 years before those already in the database"), "%s", out);
    free(out);
    /* two runs 8.5 days apart (the control and test runs of HTA's trace_diff) are told apart too */
    out = run_capture(&st, "'%s' import -q '%s' '%s' -o '%s/runs.db' 2>&1", tracedb(),
                      src_path("tests/data/kineto/trace_diff_test_test.json.gz"),
                      src_path("tests/data/kineto/trace_diff_control_control.json.gz"), dir);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "its events lie 8.5 days before"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Appending counts ids on from the database's largest: one a stranger set to 2^63 - 1 overflowed
 * (UBSan: signed overflow). It is refused by name, and the database is left as it was. */
Test(untrusted_documents, appending_to_ids_near_the_top_of_64_bits_is_refused)
{
    char *dir = temp_dir();
    char db[512], doc_path[512], before[512];
    snprintf(db, sizeof db, "%s/k.db", dir);
    snprintf(doc_path, sizeof doc_path, "%s/one.json", dir);
    snprintf(before, sizeof before, "%s/before.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    const char *doc = "[{\"ph\":\"X\",\"name\":\"x\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":5}]";
    write_file(doc_path, doc, (long)strlen(doc));
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET id = 9223372036854775807 WHERE id = (SELECT max(id) FROM event)", NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    cr_assert_eq(run("cp '%s' '%s'", db, before), 0);
    int st;
    char *out = run_capture(&st, "'%s' import -q '%s' -o '%s' --append 2>&1", tracedb(), doc_path, db);
    cr_expect_eq(st, 1, "%s", out);
    cr_expect(strstr(out, "cannot append: its event ids reach 9223372036854775807") && !strstr(out, "runtime error"), "%s", out);
    cr_expect_eq(run("cmp -s '%s' '%s'", db, before), 0, "the database is unchanged");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

static sqlite3 *db_open_rw(const char *path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK, "open %s", path);
    return db;
}

/* `ops` over a window walks parent_id up from every launch and [memory] event (analyzer/report/ops_sweep.c):
 * a foreign database whose ids lie far apart (kept in hash maps, not blocks) gives the same table, and
 * a parent cycle ends instead of hanging, in the C pass and in the SQL that stacks still take (its
 * recursion never ended on one before). */
/* Adds an instant event with id `id_sql` (SQL over the first event's row), a copy of the first event. */
static void add_instant_at(const char *db, const char *id_sql)
{
    sqlite3 *d = db_open_rw(db);
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT INTO event (id, kind, name_id, thread_id, start_ns, dur_ns, self_ns) "
             "SELECT %s, (SELECT id FROM kind WHERE name = 'instant'), name_id, thread_id, start_ns, 0, 0 "
             "FROM event WHERE id = (SELECT min(id) FROM event)",
             id_sql);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
}

/* Ids within 2^31 of each other are kept in blocks made as ids come, and ops reads them in two halves at
 * once: a gap of 2^27 ids must cost neither memory nor time for the ids it skips (making every block
 * of the span up front took 4 GB and 20 s for a gap of 2^28). */
Test(untrusted_sql, ops_over_sparse_ids_costs_nothing_for_the_gap, .timeout = 120)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    int st;
    char *before = run_capture(&st, "'%s' ops '%s' --from 0 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    add_instant_at(db, "id + 134217728");
    struct rusage ru;
    char *after = run_capture(&st, "'%s' ops '%s' --from 0 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(after, before, "an instant 2^27 ids away changed the table");
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    cr_assert_lt(ru.ru_maxrss, 1024 * 1024, "peak RSS of a child %ld KB: the gap's 2^27 slots (2 GB) were made", ru.ru_maxrss);
    free(after), free(before);
    cleanup(dir, db);
}

Test(untrusted_sql, ops_walks_a_foreign_databases_parents_safely, .timeout = 60)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    int st;
    char *before = run_capture(&st, "'%s' ops '%s' --from 0 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(before, "aten::conv2d"), "%s", before);
    add_instant_at(db, "1099511627776");
    sqlite3 *d;
    char *after = run_capture(&st, "'%s' ops '%s' --from 0 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(after, before, "an event far away changed the table");
    free(after);
    d = db_open_rw(db); /* a launch and the operator around it, each the other's parent */
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET parent_id = (SELECT a.id FROM event a JOIN event k ON k.launch_id = a.id "
                                 "WHERE a.parent_id IS NOT NULL ORDER BY a.id LIMIT 1) WHERE id = (SELECT a.parent_id "
                                 "FROM event a JOIN event k ON k.launch_id = a.id WHERE a.parent_id IS NOT NULL "
                                 "ORDER BY a.id LIMIT 1)", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_changes(d), 1);
    sqlite3_close(d);
    after = run_capture(&st, "'%s' ops '%s' --from 0 --format csv", tracedb(), db);
    cr_assert_eq(st, 0, "%s", after);
    cr_assert(strstr(after, "aten::conv2d"), "%s", after);
    free(after);
    after = run_capture(&st, "'%s' ops '%s' --group-by stack --format csv 2>&1", tracedb(), db); /* stacks */
    cr_assert_eq(st, 0, "%s", after);
    cr_assert(strstr(after, "aten::conv2d"), "%s", after);
    free(after);
    free(before);
    cleanup(dir, db);
}

/* A launch whose parent id is 2^63 - 1 in a database whose ids start at -1: the pass's difference of the
 * two overflowed int64 (UBSan stopped it; found by fuzz_db). Hand-worked: outer [0, 10) us holds inner
 * [2, 5), which holds the launch [3, 4) of K (5 us). With the launch's parent no event, K's time goes to
 * no operator, as in SQL (a join to no row); the CPU times are the rows' own. */
Test(untrusted_sql, ops_takes_a_parent_id_at_the_end_of_64_bits)
{
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}]}";
    char *dir = temp_dir(), db[600];
    import_text(dir, trace, db, sizeof db);
    sqlite3 *d = db_open_rw(db);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET parent_id = 9223372036854775807 WHERE kind = (SELECT id FROM kind WHERE name = 'runtime'); "
                                 "INSERT INTO event (id, kind, name_id, thread_id, start_ns, dur_ns, self_ns, depth) "
                                 "SELECT -1, (SELECT id FROM kind WHERE name = 'instant'), name_id, thread_id, start_ns, 0, 0, 0 "
                                 "FROM event WHERE id = 1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    /* (self device %: 0 of the kernel's 5 us, PyTorch's Self CUDA time total) */
    const char *rows[] = {"outer,1,7000,70,10000,100,10000,0,0,0,0,", "inner,1,2000,20,3000,30,3000,0,0,0,0,",
                          "cudaLaunchKernel,1,1000,10,1000,10,1000,0,0,0,0,"};
    const char *ways[] = {"--from 0", "--by-step", "--group-by shape"};
    for (int w = 0; w < 3; w++) {
        int st;
        char *out = run_capture(&st, "'%s' ops '%s' %s --format csv 2>&1", tracedb(), db, ways[w]);
        cr_assert_eq(st, 0, "%s: %s", ways[w], out);
        cr_assert(!strstr(out, "runtime error"), "%s: %s", ways[w], out);
        for (int r = 0; r < 3; r++) {
            const char *at = strstr(out, rows[r]);
            if (w == 1 && at == NULL) { /* by step: the step column first (no step: empty) */
                char stepped[128];
                snprintf(stepped, sizeof stepped, ",%s", rows[r]);
                at = strstr(out, stepped);
            }
            cr_assert(at, "%s: no row %s in\n%s", ways[w], rows[r], out);
        }
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Times past 2^62 ns either way (146 years; util/time_range.h) are no trace's: the importers refuse
 * them, but a database may be edited or crafted. A report holds each time it reads to that range and
 * saturates its sums, so that no difference or sum overflows (the sanitizers of this build abort on one:
 * `idle`, `queue`, `launches`, `kernels`, `critical-path`, the HTML report and interval_union() did),
 * and tracedb says which figures are not real. */
static const char hand_launches[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":2,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":2,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}]}";

#define HELD_MAX 4611686018427387903LL /* 2^62 - 1: where a time is held */
#define HELD_WARNING "lay beyond 2^62 ns"

/* `tracedb ARGS db TAIL --format csv`: the value of column `col` in the first data row (as an integer),
 * and stderr in *err (malloc'd). */
static long long csv_value(const char *dir, const char *args, const char *db, const char *tail, const char *col, char **err)
{
    int st;
    char errpath[512];
    snprintf(errpath, sizeof errpath, "%s/err.txt", dir);
    char *out = run_capture(&st, "'%s' %s '%s' %s --format csv 2>'%s'", tracedb(), args, db, tail, errpath);
    *err = read_file(errpath, NULL);
    cr_assert_eq(st, 0, "%s: %s", args, *err);
    char *body = strchr(out, '\n'); /* the header names the columns */
    cr_assert(body, "%s: %s", args, out);
    *body++ = 0;
    out[strcspn(out, "\r")] = 0; /* csv ends its lines with CRLF */
    int at = -1, i = 0;
    for (char *h = out, *comma; h && at < 0; h = comma ? comma + 1 : NULL, i++) {
        comma = strchr(h, ',');
        if (comma)
            *comma = 0;
        if (strcmp(h, col) == 0)
            at = i;
    }
    cr_assert_geq(at, 0, "%s: no column %s", args, col);
    char *f = body;
    for (i = 0; i < at; i++)
        f = strchr(f, ',') + 1;
    long long v = strtoll(f, NULL, 10);
    free(out);
    return v;
}

/* Hand-worked: stream 7 runs K over [20, 25) us, launched at 10 us, then K again launched at 30 us and
 * edited to start and last 2^63 - 1 ns. Held, its start is 2^62 - 1 ns and its duration 2^62 - 1 ns
 * (kernels reads durations alone; idle reads the start and the end, both held to 2^62 - 1). */
Test(untrusted_times, a_report_holds_an_impossible_time_to_2_62_ns)
{
    char *dir = temp_dir(), db[600];
    import_text(dir, hand_launches, db, sizeof db);
    sqlite3 *d = db_open_rw(db);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET start_ns = 9223372036854775807, dur_ns = 9223372036854775807 "
                                 "WHERE id = (SELECT max(id) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'kernel'))",
                              NULL, NULL, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_changes(d), 1);
    sqlite3_close(d);
    char *err;
    /* the gap from the first kernel's end (25,000 ns) to the second's start (held): the host had not
     * launched it by then (its launch at 30,000 ns) */
    cr_expect_eq(csv_value(dir, "idle", db, "", "idle_ns", &err), HELD_MAX - 25000);
    cr_expect(strstr(err, HELD_WARNING) && strstr(err, db), "the warning names no file: %s", err);
    free(err);
    cr_expect_eq(csv_value(dir, "idle", db, "", "host_wait_ns", &err), HELD_MAX - 25000);
    free(err);
    cr_expect_eq(csv_value(dir, "kernels", db, "", "total_ns", &err), HELD_MAX + 5000);
    free(err);
    cr_expect_eq(csv_value(dir, "kernels", db, "", "max_ns", &err), HELD_MAX);
    free(err);
    cr_expect_eq(csv_value(dir, "kernels", db, "", "min_ns", &err), 5000);
    cr_expect(strstr(err, HELD_WARNING), "%s", err);
    free(err);
    /* the delay: the start (2^63 - 1) minus the launch's end (32,000 ns), held */
    cr_expect_eq(csv_value(dir, "launches", db, "", "delay_max_ns", &err), HELD_MAX);
    free(err);
    /* the union of [-2^63, 2^63 - 1): [-(2^62 - 1), 2^62 - 1) held */
    cr_expect_eq(csv_value(dir, "sql", db, "'SELECT interval_union(-9223372036854775807 - 1, 9223372036854775807) AS u'", "u", &err), 2 * HELD_MAX);
    free(err);
    /* HTA's kernel-type unions the same way: computation's (the first of the JSON array) */
    cr_expect_eq(csv_value(dir, "sql", db, "'SELECT json_extract(type_unions('\\''computation'\\'', "
                                           "-9223372036854775807 - 1, 9223372036854775807), '\\''$[0]'\\'') AS c'", "c", &err), 2 * HELD_MAX);
    free(err);
    /* a table shows 2^63 - 1 ns as 9,223,372,036.854775807 s to three places (its double rounded back to
     * an integer wrapped to -2^63: "-9223372036.855s") */
    int st;
    char *table = run_capture(&st, "'%s' sql '%s' 'SELECT start_ns FROM event WHERE start_ns > 4611686018427387903'",
                              tracedb(), db);
    cr_expect(st == 0 && strstr(table, "9223372036.855s") && !strstr(table, "-9223372036"), "%s", table);
    free(table);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Every report, on a real trace (no warning) and on copies edited as a stranger might: impossible times
 * (GPU work at +-2^63, durations or starts near 2^63, a trace's first and last times swapped to the extremes,
 * a duration of -2^63), processes naming no trace, ranks that are empty text (the passes keyed by rank
 * refuse them), no events. Each report exits 0, or 1 with tracedb's own message and nothing else on stderr
 * (the sanitizers abort on an overflow or a NULL argument); edited times make tracedb warn it held them. */
Test(untrusted_times, every_report_survives_a_databases_edits, .timeout = 300)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    static const struct {
        const char *sql;
        int held; /* tracedb must warn that it held times */
    } edits[] = {
        {"", 0}, /* as imported */
        {"UPDATE event SET start_ns = 9223372036854775802 WHERE id = (SELECT min(id) FROM event WHERE kind = {kernel}); "
         "UPDATE event SET start_ns = -9223372036854775807 WHERE id = (SELECT max(id) FROM event WHERE kind = {kernel})", 1},
        {"UPDATE event SET dur_ns = 9223372036854775807 - id, self_ns = 9223372036854775807", 1},
        {"UPDATE event SET start_ns = 9223372036854775807 - id * 3", 1},
        {"UPDATE event SET start_ns = -9223372036854775807 + id * 3, launch_ns = -9223372036854775807", 1},
        {"UPDATE trace SET first_ns = 9223372036854775807, last_ns = -9223372036854775807", 1},
        {"UPDATE event SET dur_ns = -9223372036854775807 WHERE id = (SELECT min(id) FROM event WHERE kind = {kernel})", 1},
        {"UPDATE process SET trace_id = 99", 0},
        {"UPDATE trace SET rank = ''", 0},
        {"DELETE FROM event", 0},
    };
    const char *script =
        "for c in summary ops 'ops --from 0' 'ops --by-step' kernels 'kernels --by-type' 'kernels --by-step' "
        "'kernels --group-by launch' api device 'device --from 1ms' idle launches queue overlap critical-path "
        "'critical-path --drop-last-step' latency memops memory 'memory --timeline' ranks 'overlap --drop-last-step' "
        "'queue --drop-last-step' 'idle --by-rank'; do "
        "  \"$T\" $c \"$V\" >/dev/null 2>\"$D/err\"; rc=$?; "
        "  if [ $rc -gt 1 ] || grep -qv '^tracedb' \"$D/err\"; then echo \"$c: exit $rc: $(head -c 400 \"$D/err\")\"; fi; "
        "  grep -q '" HELD_WARNING "' \"$D/err\" && echo \"$c: held\"; "
        "  grep -q 'trace.rank holds a non-integer value (trace id 1): not a database' \"$D/err\" && echo \"$c: refused $rc\"; "
        "done; rm -f \"$D/r.html\" \"$D/c.json\"; "
        "for c in \"report -o $D/r.html\" \"export chrome -o $D/c.json\"; do "
        "  $T $c \"$V\" >/dev/null 2>\"$D/err\"; rc=$?; "
        "  if [ $rc -gt 1 ] || grep -qv '^tracedb' \"$D/err\"; then echo \"$c: exit $rc: $(head -c 400 \"$D/err\")\"; fi; "
        "  grep -q '" HELD_WARNING "' \"$D/err\" && echo \"$c: held\"; "
        "done";
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char v[600], sql[600];
        snprintf(v, sizeof v, "%s/v%zu.db", dir, i);
        cr_assert_eq(run("cp '%s' '%s'", db, v), 0);
        const char *e = edits[i].sql;
        size_t o = 0;
        for (; *e && o + 40 < sizeof sql; e++) /* {kernel}: the kernel kind's id */
            if (strncmp(e, "{kernel}", 8) == 0)
                o += (size_t)snprintf(sql + o, sizeof sql - o, "(SELECT id FROM kind WHERE name = 'kernel')"), e += 7;
            else
                sql[o++] = *e;
        sql[o] = 0;
        sqlite3 *d = db_open_rw(v);
        cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
        cr_assert(i == 0 || sqlite3_changes(d) > 0, "%s", sql);
        sqlite3_close(d);
        int st;
        char *out = run_capture(&st, "T='%s' V='%s' D='%s'; %s", tracedb(), v, dir, script);
        cr_expect(!strstr(out, ": exit "), "edit %zu (%s): %s", i, edits[i].sql, out);
        if (edits[i].held)
            cr_expect(strstr(out, "held"), "edit %zu (%s): no report said it held a time: %s", i, edits[i].sql, out);
        else
            cr_expect(!strstr(out, "held"), "edit %zu (%s): times were held: %s", i, edits[i].sql, out);
        cr_expect(!strstr(out, "idle: refused 1") + !strstr(out, "launches: refused 1") + !strstr(out, "overlap: refused 1") ==
                      (strstr(edits[i].sql, "rank = ''") ? 0 : 3), "edit %zu (%s): refused: %s", i, edits[i].sql, out);
        free(out);
    }
    cleanup(dir, db);
}

/* Hand-worked: device 0 allocates 1000 bytes at address 100 and 2000 at 200, then frees the 1000; the
 * database is edited so that each allocation is 2^63 - 1 bytes and the free -2^63. The sums saturate at
 * 2^63 - 1 (allocated: two of them; freed: minus -2^63; leaked: the one at 200, never freed) where they
 * overflowed; the peak (from the allocator's own totals) is untouched. */
Test(untrusted_times, memory_byte_sums_saturate_instead_of_overflowing)
{
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":"
        "{\"Device Type\":1,\"Device Id\":0,\"Addr\":100,\"Bytes\":1000,\"Total Allocated\":1000,\"Total Reserved\":2048}},"
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":"
        "{\"Device Type\":1,\"Device Id\":0,\"Addr\":200,\"Bytes\":2000,\"Total Allocated\":3000,\"Total Reserved\":4096}},"
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,\"args\":"
        "{\"Device Type\":1,\"Device Id\":0,\"Addr\":100,\"Bytes\":-1000,\"Total Allocated\":2000,\"Total Reserved\":4096}}]}";
    char *dir = temp_dir(), db[600], *err;
    import_text(dir, trace, db, sizeof db);
    cr_assert_eq(csv_value(dir, "memory", db, "", "allocated_bytes", &err), 3000); /* as imported */
    free(err);
    sqlite3 *d = db_open_rw(db);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET bytes = 9223372036854775807 WHERE bytes > 0; "
                                 "UPDATE event SET bytes = -9223372036854775807 - 1 WHERE bytes < 0", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    cr_expect_eq(csv_value(dir, "memory", db, "", "allocated_bytes", &err), INT64_MAX);
    free(err);
    cr_expect_eq(csv_value(dir, "memory", db, "", "freed_bytes", &err), INT64_MAX);
    free(err);
    cr_expect_eq(csv_value(dir, "memory", db, "", "leaked_bytes", &err), INT64_MAX);
    free(err);
    cr_expect_eq(csv_value(dir, "memory", db, "", "peak_allocated_bytes", &err), 3000);
    free(err);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Sums columns self (8th) and total (10th) of `ops ARGS --format csv` over its rows, and checks each
 * row's total equals its self (*rows_equal 0 when one does not). The CPU-side rows: the device rows' names
 * (kernels') hold commas, which awk would split. */
static void ops_device_sums(const char *db, const char *args, int64_t *self, int64_t *total, int *rows_equal)
{
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' %s --no-device-rows --format csv 2>/dev/null | awk -F, 'NR > 1 {s += $8; t += $10; "
                                 "if ($8 != $10) d++} END {printf \"%%d %%d %%d\", s, t, d}'", tracedb(), db, args);
    cr_assert_eq(st, 0);
    long long s = -1, t = -1, d = -1;
    cr_assert_eq(sscanf(out, "%lld %lld %lld", &s, &t, &d), 3, "%s", out);
    *self = s, *total = t, *rows_equal = d == 0;
    free(out);
}

/* Each event its own parent (a loop of one, as an edited database may hold), then every event's parent
 * the third event, itself its own: the operator around each launch is the launch call itself (then the
 * third event), and the walk up from it meets nothing else, so each row's device total is its self
 * device time, once, and the self device times are those of the database before the edit (each
 * launch's work still lands on one event). Both ways ops reads (its C pass; SQL's walks for stacks).
 * The walks went round their loop until 65,536 steps, adding the time each time (the C pass took 9 s
 * on a 68,326-event trace so edited, SQL's a minute on this one of 870). */
Test(untrusted_sql, ops_counts_a_loop_of_parents_once, .timeout = 60)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    int64_t self0, total0, self1, total1;
    int equal;
    ops_device_sums(db, "--from 0", &self0, &total0, &equal);
    cr_assert_gt(self0, 0);
    static const char *const edits[] = {"UPDATE event SET parent_id = id", "UPDATE event SET parent_id = 3"};
    static const char *const ways[] = {"--from 0", "--group-by stack"};
    for (int e = 0; e < 2; e++) {
        sqlite3 *d = db_open_rw(db);
        cr_assert_eq(sqlite3_exec(d, edits[e], NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(d);
        for (int w = 0; w < 2; w++) {
            ops_device_sums(db, ways[w], &self1, &total1, &equal);
            cr_expect_eq(self1, self0, "%s, ops %s", edits[e], ways[w]);
            cr_expect_eq(total1, self1, "%s, ops %s: device total %lld, self %lld", edits[e], ways[w], (long long)total1,
                         (long long)self1);
            cr_expect(equal, "%s, ops %s: a row's device total is not its self device time", edits[e], ways[w]);
        }
    }
    cleanup(dir, db);
}

/* test_hta_critical_path_rows.c: critical-path reads what it is given: the import's pack or the table's
 * rows alike, rows in any order or repeated, ids anywhere in int64, times moved far, names that are
 * no integer; and --each's listing limited. */
#include "hta_helpers.h"
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

/* A database whose event rows do not come in id order (a stranger's, where event is a table without its
 * key): the pass must sort them back, and the path edge by edge is the same as from the plain database.
 * (The pass reads id ranges, so an index no longer reorders the scan; such a table still can.) */
Test(hta, critical_path_does_not_depend_on_the_scan_order, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], idx[1300];
    import_with_event_table(dir, "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz",
                           "SELECT * FROM event_rows ORDER BY thread_id DESC, id DESC", db, sizeof db, idx, sizeof idx);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(idx, &d), SQLITE_OK);
    sqlite3_stmt *q;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT id FROM event WHERE id BETWEEN 0 AND 1e18", -1, &q, NULL), SQLITE_OK);
    int64_t prev = -1, out_of_order = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        out_of_order += sqlite3_column_int64(q, 0) < prev;
        prev = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    sqlite3_close(d);
    cr_assert(out_of_order > 10, "the rows come in id order: the test would not test the sort");
    int st1, st2;
    char *a = run_capture(&st1, "'%s' critical-path '%s' --each --format csv", tracedb(), db);
    char *b = run_capture(&st2, "'%s' critical-path '%s' --each --format csv", tracedb(), idx);
    cr_expect(st1 == 0 && st2 == 0 && strcmp(a, b) == 0 && strlen(a) > 1000, "%s\n---\n%s", a, b);
    free(a), free(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* On every real trace, critical-path's path, edge by edge, read from the import's pack (event_pack.h)
 * equals the one read from the event table's rows, after an edit that changes no value took the pack
 * away (its trigger: any UPDATE of a packed column). Imports whose end linked launches late hold fixes
 * in the pack, and the traces with sync rows send their waits through the args. */
struct pack_check {
    char *dir;
    int64_t fixes, syncs;
    int compared;
};

/* One real trace: its pack's listing against its rows' (see the test below). */
static void pack_against_rows(const char *path, void *ctx)
{
    static const char *const windows[] = {"", "--drop-last-step"};
    struct pack_check *c = ctx;
    char db[1200];
    snprintf(db, sizeof db, "%s/%s.db", c->dir, strrchr(path, '/') + 1);
    cr_assert_eq(import_to(path, db), 0, "%s", path);
    cr_assert_eq(file_int(db, "SELECT value FROM meta WHERE key = 'event_pack_v2'"), file_int(db, "SELECT count(*) FROM event"), "%s",
                 path);
    c->fixes += file_int(db, "SELECT count(*) FROM event_pack_fix");
    c->syncs += file_int(db, "SELECT count(*) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'sync') AND args LIKE '%wait_on%'");
    char *packed[2];
    int from_pack;
    for (int w = 0; w < 2; w++) {
        packed[w] = cp_listing(db, windows[w], &from_pack);
        cr_assert(from_pack, "%s: the pack was not read", path);
    }
    file_exec(db, "UPDATE event SET start_ns = start_ns WHERE id = (SELECT min(id) FROM event)");
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event_pack"), 0, "%s: the trigger left the pack", path);
    for (int w = 0; w < 2; w++) {
        char *rows = cp_listing(db, windows[w], &from_pack);
        cr_assert(!from_pack, "%s: a pack was read after the edit", path);
        cr_expect_str_eq(packed[w], rows, "%s %s: the pack and the rows differ", path, windows[w]);
        c->compared += strlen(rows) > 200;
        free(rows), free(packed[w]);
    }
}

Test(hta, critical_path_from_the_imports_pack_equals_the_tables_rows, .timeout = 300)
{
    struct pack_check c = {.dir = temp_dir()};
    cr_assert_geq(each_real_trace(pack_against_rows, &c), 16);
    cr_expect_gt(c.fixes, 100, "no import's end linked a launch late: the fixes are not tested");
    cr_expect_gt(c.syncs, 0, "no sync row waits: their lookup is not tested");
    cr_expect_geq(c.compared, 20);
    run("rm -rf '%s'", c.dir);
    free(c.dir);
}

/* A trace holding rows critical_path_rows.sql leaves out (an async span, an instant), over operators
 * that launch kernels, gives the same sums and path from the pack as from the rows (none of the 16 real
 * traces holds an async span). Such rows, kept by mistake, would not change this graph either (checked:
 * HTA's graph takes no node from them here), so the kind filter itself is held only by its being the
 * same range as the SQL's. */
Test(hta, critical_path_pack_equals_the_rows_with_async_spans_and_instants, .timeout = 60)
{
    char *dir = temp_dir(), db[1100];
    const char *trace =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10,"
        "\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":40,"
        "\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}},"
        "{\"ph\":\"b\",\"cat\":\"cpu_op\",\"name\":\"aten::async_span\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":90,\"args\":{}},"
        "{\"ph\":\"e\",\"cat\":\"cpu_op\",\"name\":\"aten::async_span\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":300,\"args\":{}},"
        "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"aten::instant\",\"pid\":1,\"tid\":1,\"ts\":120,\"s\":\"t\"},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":205,\"dur\":10,"
        "\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add\",\"pid\":0,\"tid\":7,\"ts\":220,\"dur\":60,"
        "\"args\":{\"correlation\":8,\"device\":0,\"stream\":7}}"
        "]}";
    import_text(dir, trace, db, sizeof db);
    cr_assert_gt(file_int(db, "SELECT count(*) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'async')"), 0,
                 "the trace holds no async span: the test would test nothing");
    int from_pack;
    char *packed = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    file_exec(db, "UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)");
    char *rows = cp_listing(db, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_eq(packed, rows);
    cr_expect(strstr(rows, "gemm") || strstr(rows, "add"), "no kernel on the path: %s", rows);
    free(packed), free(rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The pack follows the table or goes: an edit of a value is read (the pack gone with it), an append
 * drops the earlier import's pack, a second trace's rows are kept apart, and a stranger's bytes in the
 * pack send critical-path to the rows (the listing as the table's, not a crash). */
Test(hta, critical_path_pack_goes_when_the_table_changes_and_is_not_trusted, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], two[1300];
    import_real(dir, "critical_path_alexnet_trace.json.gz", db, sizeof db);
    int from_pack;
    char *before = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    /* an edit that moves a kernel: the listing changes, and is the table's */
    file_exec(db, "UPDATE event SET dur_ns = dur_ns * 3 WHERE id = (SELECT id FROM event WHERE stream IS NOT NULL "
                "ORDER BY dur_ns DESC LIMIT 1)");
    char *edited = cp_listing(db, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_neq(before, edited, "the edit changed nothing: it tests nothing");
    free(before), free(edited);
    /* a stranger's bytes where the pack was (its meta row back, the trigger not fired) */
    char *fresh_rows;
    import_real(dir, "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", db, sizeof db);
    char *good = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    static const char *const damage[] = {
        "UPDATE event_pack SET data = randomblob(length(data)) WHERE block = 0",
        "UPDATE event_pack SET data = substr(data, 1, length(data) - 3) WHERE block = 0",
        "UPDATE event_pack SET rows = rows + 1 WHERE block = 0",
        "UPDATE event_pack SET data = zeroblob(length(data)) WHERE block = 0",
        "UPDATE meta SET value = value + 1 WHERE key = 'event_pack_v2'",
        "INSERT INTO event_pack SELECT block + 1000, rows, data FROM event_pack",
        "INSERT INTO event_pack_fix VALUES (-5, 1)",
    };
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
        char copy[1400];
        snprintf(copy, sizeof copy, "%s/damaged.db", dir);
        cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
        file_exec(copy, damage[k]);
        char *out = cp_listing(copy, "", &from_pack);
        cr_expect(!from_pack, "%s: read as a pack", damage[k]);
        cr_expect_str_eq(good, out, "%s", damage[k]);
        free(out);
    }
    /* two traces in one database: each trace's own rows from the one pack */
    snprintf(two, sizeof two, "%s/two.db", dir);
    cr_assert_eq(run("'%s' import -q --allow-duplicate '%s' '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"),
                     src_path("tests/data/kineto/critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"), two),
                 0);
    file_exec(two, "UPDATE trace SET rank = 1 WHERE id = (SELECT max(id) FROM trace)");
    char *both = cp_listing(two, "", &from_pack);
    cr_assert(from_pack);
    file_exec(two, "UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)");
    fresh_rows = cp_listing(two, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_eq(both, fresh_rows);
    cr_expect_gt(lines(both), 100);
    free(both), free(fresh_rows);
    /* an append: the first import's pack goes, and the rows are read */
    cr_assert_eq(run("'%s' import -q --append --allow-duplicate '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db),
                 0);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM meta WHERE key = 'event_pack_v2'"), 0);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'event_pack%'"), 0);
    char *appended = cp_listing(db, "", &from_pack);
    cr_expect(!from_pack);
    free(appended), free(good);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A stranger's event table (no key) that holds every row twice (more rows than ids: each half of the read
 * outgrows the room its ids gave it): every row is read, so every node of the graph comes twice. */
Test(hta, critical_path_reads_every_row_of_a_table_with_repeated_ids, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], twice[1300];
    import_with_event_table(dir, "critical_path_alexnet_trace.json.gz",
                           "SELECT * FROM event_rows UNION ALL SELECT * FROM event_rows ORDER BY id", db, sizeof db,
                           twice, sizeof twice);
    cJSON *a = critical_path_json(db, ""), *b = critical_path_json(twice, "");
    double nodes = field(cJSON_GetArrayItem(a, 0), "graph_nodes");
    cr_expect(nodes > 1000 && field(cJSON_GetArrayItem(b, 0), "graph_nodes") == 2 * nodes, "%g nodes, then %g", nodes,
              field(cJSON_GetArrayItem(b, 0), "graph_nodes"));
    cJSON_Delete(a), cJSON_Delete(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The path of b equals a's edge by edge (type, bound, weight, event name); a's has at least least edges. */
static void expect_same_path(const char *a_db, const char *b_db, const char *args, int least)
{
    cJSON *a = critical_path_json(a_db, args), *b = critical_path_json(b_db, args);
    int n = cJSON_GetArraySize(a);
    cr_assert(n >= least && n == cJSON_GetArraySize(b), "%s: %d vs %d edges", args, n, cJSON_GetArraySize(b));
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
        cr_assert(strcmp(cJSON_GetObjectItem(x, "type")->valuestring, cJSON_GetObjectItem(y, "type")->valuestring) == 0 &&
                      strcmp(cJSON_GetObjectItem(x, "bound")->valuestring, cJSON_GetObjectItem(y, "bound")->valuestring) == 0 &&
                      strcmp(cJSON_GetObjectItem(x, "name")->valuestring, cJSON_GetObjectItem(y, "name")->valuestring) == 0 &&
                      field(x, "dur_ns") == field(y, "dur_ns"),
                  "%s: edge %d differs", args, i + 1);
    }
    cJSON_Delete(a), cJSON_Delete(b);
}

/* The alexnet trace changed by sql (check, when given, looks at the changed database first) has the
 * same path, edge by edge, as the trace itself: over the whole trace and in HTA's window. */
static void expect_alexnet_path_unchanged(const char *sql, void (*check)(const char *altered))
{
    char *dir = temp_dir(), db[1200], altered[1300];
    import_and_alter(dir, "critical_path_alexnet_trace.json.gz", sql, db, sizeof db, altered, sizeof altered);
    if (check)
        check(altered);
    expect_same_path(db, altered, "--each", 100);
    expect_same_path(db, altered, "--drop-last-step --each", 100);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The path does not depend on where the trace sits in time: every event moved by 2^61 ns (so far that the
 * call stacks are ordered by comparison, twice a time no longer fitting an int64) gives the same path,
 * edge by edge (type, bound, weight, event), as the trace where it was (itself HTA's, checked above). */
Test(hta, critical_path_does_not_depend_on_the_time_origin, .timeout = 120)
{
    expect_alexnet_path_unchanged(
        "UPDATE event SET start_ns = start_ns + 2305843009213693952; "
        "UPDATE trace SET first_ns = first_ns + 2305843009213693952, last_ns = last_ns + 2305843009213693952",
        NULL);
}

/* The alexnet trace (20 sync rows with waits, ids 543-763) with the ids below 650 moved 1000 down: read
 * in two halves, the upper half's sync rows (waits on streams and recorded events, which its path
 * depends on) keep their own waits when the halves join; and launch ids below 0 are ids like any other
 * (not "no launch": a stranger's database may number events from below 0). */
/* Both halves of the read hold waits (the test would not test the join otherwise). */
static void waits_in_both_halves(const char *altered)
{
    sqlite3 *d = db_open(altered);
    const char *waits = "SELECT count(*) FROM event WHERE kind = 10 AND json_extract(args, '$.wait_on_stream') >= 0 AND id %s "
                        "((SELECT min(id) FROM event) + (SELECT max(id) FROM event)) / 2";
    char sql[400];
    snprintf(sql, sizeof sql, waits, "<=");
    int64_t lower = db_int(d, sql);
    snprintf(sql, sizeof sql, waits, ">");
    int64_t upper = db_int(d, sql);
    sqlite3_close(d);
    cr_assert(lower >= 5 && upper >= 5, "%lld and %lld waits in the halves: the test would not test the join",
              (long long)lower, (long long)upper);
}

Test(hta, critical_path_keeps_the_waits_of_both_halves, .timeout = 120)
{
    expect_alexnet_path_unchanged("UPDATE event SET launch_id = launch_id - 1000 WHERE launch_id < 650; "
                                  "UPDATE event SET parent_id = parent_id - 1000 WHERE parent_id < 650; "
                                  "UPDATE event SET id = id - 1000 WHERE id < 650",
                                  waits_in_both_halves);
}

/* A stranger's database may number its events anywhere: the first and the last at int64's ends (the
 * references to them moved too) give the same path; the ids' span no longer fits an int64. */
Test(hta, critical_path_reads_ids_at_the_ends_of_int64, .timeout = 120)
{
    expect_alexnet_path_unchanged(
        "CREATE TEMP TABLE m AS SELECT (SELECT min(id) FROM event) AS lo, (SELECT max(id) FROM event) AS hi; "
        "UPDATE event SET launch_id = -9223372036854775807 WHERE launch_id = (SELECT lo FROM m); "
        "UPDATE event SET launch_id = 9223372036854775807 WHERE launch_id = (SELECT hi FROM m); "
        "UPDATE event SET id = -9223372036854775807 WHERE id = (SELECT lo FROM m); "
        "UPDATE event SET id = 9223372036854775807 WHERE id = (SELECT hi FROM m)",
        NULL);
}

/* A stranger's event whose name id is text ('<id>abc', an existing string's id first, which SQLite
 * keeps as text): its edges have no name, as SQL's lookup through the event finds none (read as an
 * integer the id would name that other string); every other edge keeps its name. */
Test(hta, critical_path_each_names_an_event_by_sql_lookup_where_its_name_id_is_no_integer, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], altered[1300];
    import_and_alter(dir, "critical_path_alexnet_trace.json.gz", "SELECT 1", db, sizeof db, altered, sizeof altered);
    cJSON *a = critical_path_json(db, "--each");
    cr_assert_gt(cJSON_GetArraySize(a), 100);
    int64_t victim = (int64_t)field(cJSON_GetArrayItem(a, 10), "event_id");
    sqlite3 *d = db_open(db);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT min(id) FROM string WHERE id <> (SELECT name_id FROM event WHERE id = %lld)",
             (long long)victim);
    int64_t other = db_int(d, sql);
    sqlite3_close(d);
    snprintf(sql, sizeof sql, "UPDATE event SET name_id = '%lldabc' WHERE id = %lld", (long long)other, (long long)victim);
    cr_assert_eq(sqlite3_open(altered, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    snprintf(sql, sizeof sql, "SELECT typeof(name_id) = 'text' FROM event WHERE id = %lld", (long long)victim);
    cr_assert_eq(db_int(d, sql), 1, "the name id did not stay text: the test would not test the lookup");
    sqlite3_close(d);
    cJSON *b = critical_path_json(altered, "--each");
    int n = cJSON_GetArraySize(a), nameless = 0;
    cr_assert_eq(cJSON_GetArraySize(b), n);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
        const cJSON *yn = cJSON_GetObjectItem(y, "name");
        if ((int64_t)field(y, "event_id") == victim) {
            cr_expect(cJSON_IsNull(yn), "edge %d (event %lld): named %s", i + 1, (long long)victim,
                      cJSON_IsString(yn) ? yn->valuestring : "?");
            nameless++;
        } else {
            cr_expect(cJSON_IsString(yn) && strcmp(yn->valuestring, cJSON_GetObjectItem(x, "name")->valuestring) == 0,
                      "edge %d: name changed", i + 1);
        }
    }
    cr_expect_geq(nameless, 1);
    cJSON_Delete(a), cJSON_Delete(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --each -n N keeps only the first N edges of each path (the pass writes no more): the listing is the
 * first N rows of the whole one, with two traces in one database, of one rank and of two. Either way the
 * first trace's path comes whole, then the second's (seq 1, 2, ... twice): two traces of one rank do not
 * interleave by position. */
Test(hta, critical_path_each_limited_is_the_start_of_the_whole_listing, .timeout = 120)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/two.db", dir);
    cr_assert_eq(run("'%s' import -q --allow-duplicate '%s' '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"),
                     src_path("tests/data/kineto/critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"), db), 0);
    for (int ranks = 1; ranks <= 2; ranks++) {
        if (ranks == 2) {
            sqlite3 *d;
            cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 1 WHERE id = (SELECT max(id) FROM trace)", NULL, NULL, NULL),
                         SQLITE_OK);
            sqlite3_close(d);
        }
        int st;
        char *all = run_capture(&st, "'%s' critical-path '%s' --each --format csv", tracedb(), db);
        cr_assert_eq(st, 0);
        cr_assert_gt(strlen(all), 1000);
        long rows = 0, firsts = 0, prev = 0, breaks = 0, second_at = 0; /* seq, the second column */
        for (const char *line = strchr(all, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            const char *comma = strchr(line + 1, ',');
            long seq = comma ? strtol(comma + 1, NULL, 10) : -1;
            rows++;
            if (seq == 1)
                firsts++, second_at = firsts == 2 ? rows : second_at;
            else if (seq != prev + 1)
                breaks++;
            prev = seq;
        }
        cr_assert(firsts == 2 && breaks == 0 && second_at > 100 && rows - second_at >= 10,
                  "%d rank(s): %ld rows, %ld paths begin, %ld breaks in seq, the second at row %ld", ranks, rows, firsts,
                  breaks, second_at);
        for (int n = 1; n <= 400; n = n * 3 + 1) {
            char *some = run_capture(&st, "'%s' critical-path '%s' --each --limit %d --format csv", tracedb(), db, n);
            cr_assert_eq(st, 0);
            const char *end = all; /* the header and the first n rows of the whole listing */
            for (int lines = 0; lines <= n && *end; end++)
                if (*end == '\n')
                    lines++;
            cr_assert(strlen(some) == (size_t)(end - all) && strncmp(some, all, (size_t)(end - all)) == 0,
                      "%d rank(s), --limit %d: %s", ranks, n, some);
            free(some);
        }
        free(all);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* test_event_pack_rows.c: on every real trace, the import's pack (event_pack.h) holds each row's columns
 * as the event table holds them at the import's end, once each self time is less what later children took
 * (event_pack_less), but for the rows it names stale (event_pack_stale, event_pack_fix): the rows whose
 * nesting or launch the import's end rewrote. */
#include "event_pack.h"
#include "ingest.h"
#include "helpers.h"
#include "hta_helpers.h"
#include "pack_source.h"
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rows_check {
    char *dir;
    int64_t rows, stale, rewritten; /* rows compared, rows named stale, stale rows the table holds otherwise */
    int64_t less;                   /* self times made less after packing */
    int traces;
};

static int64_t column_or_null(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? TDB_NULL : sqlite3_column_int64(st, i);
}

static int is_stale(int64_t (*v)[2], size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= v[i][0] && id <= v[i][1])
            return 1;
    return 0;
}

static void pack_against_table(const char *path, void *ctx)
{
    struct rows_check *c = ctx;
    char db[1200];
    snprintf(db, sizeof db, "%s/%s.db", c->dir, strrchr(path, '/') + 1);
    cr_assert_eq(import_to(path, db), 0, "%s", path);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct pack_source src;
    cr_assert_eq(pack_source_open(d, &src), 1, "%s: no whole pack", path);
    cr_assert_eq(src.format, TDB_PACK_V2);
    int64_t(*stale)[2];
    size_t nstale;
    cr_assert_eq(pack_source_stale(d, &src, &stale, &nstale), 0);
    int64_t(*less)[2];
    size_t nless;
    cr_assert_eq(pack_source_less(d, &src, &less, &nless), 0);
    c->less += (int64_t)nless;
    /* the table's rows, each at its id's place */
    size_t n = (size_t)src.rows;
    struct tdb_pack_row *table = calloc(n, sizeof *table);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, correlation, device, "
                                       "stream, launch_id, parent_id, self_ns, launch_ns FROM event", -1, &st, NULL), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct tdb_pack_row *r = &table[sqlite3_column_int64(st, 0) - src.lo];
        int64_t *col = &r->id;
        for (int k = 0; k < 14; k++)
            col[k] = column_or_null(st, k);
    }
    sqlite3_finalize(st);
    struct tdb_pack_row *block = malloc(TDB_PACK_ROWS * sizeof *block);
    sqlite3_stmt *blocks = pack_source_blocks(d, src.first, src.last);
    cr_assert(blocks);
    int64_t seen = 0;
    while (sqlite3_step(blocks) == SQLITE_ROW) {
        int got = pack_source_block(blocks, &src, block);
        cr_assert_geq(got, 0, "%s: a block is no block", path);
        for (int i = 0; i < got; i++, seen++) {
            const struct tdb_pack_row *t = &table[block[i].id - src.lo];
            for (size_t k = 0; k < nless; k++) /* (a linear search: a test's few thousand) */
                if (less[k][0] == block[i].id)
                    block[i].self_ns -= less[k][1];
            if (is_stale(stale, nstale, block[i].id)) {
                c->stale++;
                c->rewritten += memcmp(t, &block[i], sizeof *t) != 0;
                continue;
            }
            cr_assert(memcmp(t, &block[i], sizeof *t) == 0,
                      "%s: event %lld: the pack holds parent %lld self %lld launch %lld at %lld, the table %lld %lld %lld %lld",
                      path, (long long)t->id, (long long)block[i].parent_id, (long long)block[i].self_ns,
                      (long long)block[i].launch_id, (long long)block[i].launch_ns, (long long)t->parent_id,
                      (long long)t->self_ns, (long long)t->launch_id, (long long)t->launch_ns);
            c->rows++;
        }
    }
    cr_assert_eq(seen, src.rows, "%s", path);
    sqlite3_finalize(blocks);
    free(block), free(table), free(stale), free(less);
    sqlite3_close(d);
    c->traces++;
}

Test(event_pack_rows, the_pack_holds_the_tables_rows_but_those_it_names_stale, .timeout = 300)
{
    struct rows_check c = {.dir = temp_dir()};
    cr_assert_geq(each_real_trace(pack_against_table, &c), 16);
    cr_expect_gt(c.rows, 100000);
    /* the real traces' ends rewrite rows (Kineto writes operators before the calls inside them): the
     * stale ranges are tested only where some stale row differs */
    cr_expect_gt(c.rewritten, 1000, "no stale row differs from the pack: the stale ranges are not tested");
    cr_expect_gt(c.less, 100, "no self time made less after packing: event_pack_less is not tested");
    run("rm -rf '%s'", c.dir);
    free(c.dir);
}

/* On every real trace, `ops` (three groupings) and `diff` read from the pack, but the rows it names stale
 * (read from the table), equal them read from the table's rows alone (the pack's meta row taken away). */
static void ops_pack_against_rows(const char *path, void *ctx)
{
    static const char *const cmds[] = {"ops '%s' --format csv", "ops '%s' --by-step --format csv",
                                       "ops '%s' --by-rank --format csv", "diff '%s' '%s' --format csv"};
    struct rows_check *c = ctx;
    char db[1200], rows[1300];
    snprintf(db, sizeof db, "%s/%s.db", c->dir, strrchr(path, '/') + 1);
    snprintf(rows, sizeof rows, "%s.rows.db", db);
    cr_assert_eq(import_to(path, db), 0, "%s", path);
    cr_assert_eq(run("cp '%s' '%s'", db, rows), 0);
    file_exec(rows, "DELETE FROM meta WHERE key = 'event_pack_v2'");
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char cmd[3000], *out[2], *packed;
        int st[2], sp;
        for (int w = 0; w < 2; w++) {
            const char *f = w ? rows : db;
            int n = snprintf(cmd, sizeof cmd, "TRACEDB_TIMING=1 '%s' ", tracedb());
            snprintf(cmd + n, sizeof cmd - (size_t)n, cmds[k], f, f);
            out[w] = run_capture(&st[w], "%s 2>/dev/null", cmd); /* (the timing's lines go to stderr) */
            if (!w) /* how many passes read the pack: one a side */
                packed = run_capture(&sp, "%s 2>&1 >/dev/null | grep -c 'ops: pack open'", cmd);
        }
        cr_expect(st[0] == 0 && st[1] == 0, "%s: %s", path, cmds[k]);
        cr_expect_str_eq(out[0], out[1], "%s: %s", path, cmds[k]);
        cr_expect_str_eq(packed, k == 3 ? "2\n" : "1\n", "%s: %s: the pack was not read", path, cmds[k]);
        c->rows += strlen(out[0]) > 300;
        free(out[0]), free(out[1]), free(packed);
    }
    c->traces++;
}

Test(event_pack_rows, ops_and_diff_from_the_pack_equal_them_from_the_rows, .timeout = 300)
{
    struct rows_check c = {.dir = temp_dir()};
    cr_assert_geq(each_real_trace(ops_pack_against_rows, &c), 16);
    cr_expect_geq(c.rows, 40);
    run("rm -rf '%s'", c.dir);
    free(c.dir);
}

/* A stranger's bytes where the pack was (its meta row there, no trigger fired): `ops` finds it no pack,
 * forgets what it took from it and reads the rows, and its table is the rows' own. */
Test(event_pack_rows, ops_reads_the_rows_where_the_pack_is_no_pack, .timeout = 120)
{
    static const char *const damage[] = {
        "UPDATE event_pack SET data = randomblob(length(data)) WHERE block = (SELECT max(block) FROM event_pack)",
        "UPDATE event_pack SET data = substr(data, 1, length(data) - 3) WHERE block = (SELECT max(block) FROM event_pack)",
        "UPDATE event_pack SET rows = rows + 1 WHERE block = (SELECT max(block) FROM event_pack)",
        "INSERT INTO event_pack SELECT block + 1000, rows, data FROM event_pack",
        ("UPDATE event_pack SET data = (SELECT data FROM event_pack WHERE block = (SELECT min(block) FROM event_pack)) "
         "WHERE block = (SELECT max(block) FROM event_pack)"),
        /* a pack whose blocks cannot be read: a column gone, a view that fails on a block */
        "ALTER TABLE event_pack RENAME COLUMN data TO bytes",
        ("ALTER TABLE event_pack RENAME TO blocks; CREATE VIEW event_pack (block, rows, data) AS SELECT block, rows, "
         "CASE WHEN block = (SELECT max(block) FROM blocks) THEN abs(-9223372036854775807 - 1) ELSE data END FROM blocks"),
    };
    char *dir = temp_dir(), db[1200], copy[1300];
    snprintf(db, sizeof db, "%s/trace.db", dir);
    snprintf(copy, sizeof copy, "%s/damaged.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), db), 0);
    cr_assert_gt(file_int(db, "SELECT count(*) FROM event_pack"), 1, "one block: a block's damage is the first's");
    int st;
    char *good = run_capture(&st, "'%s' ops '%s' --by-step --format csv 2>&1", tracedb(), db);
    cr_assert_eq(st, 0);
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
        cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
        file_exec(copy, damage[k]);
        char *out = run_capture(&st, "'%s' ops '%s' --by-step --format csv 2>&1", tracedb(), copy);
        cr_expect_eq(st, 0, "%s", damage[k]);
        cr_expect_str_eq(good, out, "%s", damage[k]);
        free(out);
    }
    free(good);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Sums are int64 and an overflow on the way is an error, as SQL's sum() in the rows' order makes it: the
 * pack's rows, their self times made less since, and the stale ones are taken in id order too. Here P
 * (id 1) has three children that overlap each other, each 4611686018426997000 ns long: its self time is
 * its duration less their sum saturated, 4611686018427000000 - (2^63 - 1), made less after its row left
 * the buffer (a 1.2 MB args pushes it out; 100 more rows write it), so P alone has a fix in
 * event_pack_less. In id order the self times sum to 2^63 - 1560615; the children's three alone go past
 * 2^63 - 1. */
Test(event_pack_rows, stale_rows_are_taken_in_id_order, .timeout = 120)
{
    char *dir = temp_dir(), json[1200], db[1200];
    snprintf(json, sizeof json, "%s/overlap.json", dir);
    snprintf(db, sizeof db, "%s/overlap.db", dir);
    size_t cap = 1300000, n = 0;
    char *t = malloc(cap);
    const long long start = -2300000000000000LL, dur = 4611686018427000LL; /* us */
    n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld},"
                                          "{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1,\"args\":{\"blob\":\"",
                          start, dur);
    memset(t + n, 'x', 1200000), n += 1200000;
    n += (size_t)snprintf(t + n, cap - n, "\"}}");
    for (int k = 0; k < 100; k++)
        n += (size_t)snprintf(t + n, cap - n, ",{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":1}", 2 + 2 * k);
    for (int c = 1; c <= 3; c++)
        n += (size_t)snprintf(t + n, cap - n, ",{\"ph\":\"X\",\"name\":\"c%d\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld}", c,
                              start + c, dur - 3);
    n += (size_t)snprintf(t + n, cap - n, "]}");
    write_file(json, t, (long)n);
    free(t);
    cr_assert_eq(import_to(json, db), 0);
    cr_assert_geq(file_int(db, "SELECT total(rows) FROM event_pack_less"), 1, "P's self time was not made less after packing");
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event_pack_stale"), 0);
    cr_assert_eq(file_int(db, "SELECT self_ns FROM event WHERE id = 1"), -4611686018427775807LL);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --format csv 2>&1", tracedb(), db);
    cr_expect_eq(st, 0, "%s", out);
    /* P's row: its self time, -50% of the total */
    cr_expect(strstr(out, "\nP,1,-4611686018427775807,-50,4611686018427000000,50,") != NULL, "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A parent whose row was written (and packed) before its child came: its self time, made less in the table
 * afterwards, is taken less from the pack too (event_pack_less), with no row stale. P runs 1000 us on
 * thread 1; a row on thread 2 with a 1.2 MB args and 100 more push P's row out of the import's buffer;
 * then P's child c (300 us) comes: P's self time is 700 us, c's 300 us. */
Test(event_pack_rows, a_self_time_made_less_after_packing_is_less_from_the_pack, .timeout = 120)
{
    char *dir = temp_dir(), json[1200], db[1200], rows[1300];
    snprintf(json, sizeof json, "%s/late.json", dir);
    snprintf(db, sizeof db, "%s/late.db", dir);
    snprintf(rows, sizeof rows, "%s/rows.db", dir);
    size_t cap = 1300000, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"P\",\"pid\":1,\"tid\":1,"
                                          "\"ts\":0,\"dur\":1000},{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":2,\"ts\":0,"
                                          "\"dur\":1,\"args\":{\"blob\":\"");
    memset(t + n, 'x', 1200000), n += 1200000;
    n += (size_t)snprintf(t + n, cap - n, "\"}}");
    for (int k = 0; k < 100; k++)
        n += (size_t)snprintf(t + n, cap - n, ",{\"ph\":\"X\",\"name\":\"f\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":1}", 2 + 2 * k);
    n += (size_t)snprintf(t + n, cap - n, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":100,"
                                          "\"dur\":300}]}");
    write_file(json, t, (long)n);
    free(t);
    cr_assert_eq(import_to(json, db), 0);
    cr_assert_geq(file_int(db, "SELECT total(rows) FROM event_pack_less"), 1, "P's self time was not made less after packing");
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event_pack_stale"), 0, "P was rewritten: the test tests the stale rows");
    cr_assert_eq(run("cp '%s' '%s'", db, rows), 0);
    file_exec(rows, "DELETE FROM meta WHERE key = 'event_pack_v2'");
    int st, st2;
    char *out = run_capture(&st, "'%s' ops '%s' --format csv 2>&1", tracedb(), db);
    char *from_rows = run_capture(&st2, "'%s' ops '%s' --format csv 2>&1", tracedb(), rows);
    cr_expect(st == 0 && st2 == 0);
    /* name, calls, self CPU (ns), its share, CPU total: by hand */
    cr_expect(strstr(out, "\nP,1,700000,") != NULL, "%s", out);
    cr_expect(strstr(out, "\nc,1,300000,") != NULL, "%s", out);
    cr_expect_str_eq(out, from_rows);
    free(out), free(from_rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A file damaged where the pack lies (a page of event_pack's b-tree overwritten): SQLite says the file is
 * malformed, and `ops` says so, once, and fails; a damaged file is no stranger's pack, to be read around. */
Test(event_pack_rows, a_damaged_page_of_the_pack_is_an_error_said_once, .timeout = 120)
{
    char *dir = temp_dir(), db[1200];
    snprintf(db, sizeof db, "%s/trace.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/df_index_resolver_df_index_resolver.json.gz"), db), 0);
    int64_t page = file_int(db, "SELECT pageno FROM dbstat WHERE name = 'event_pack' AND pagetype = 'leaf' ORDER BY pageno "
                                "LIMIT 1 OFFSET 2");
    int64_t size = file_int(db, "PRAGMA page_size");
    cr_assert_gt(page, 0);
    FILE *f = fopen(db, "r+b");
    cr_assert(f);
    cr_assert_eq(fseek(f, (long)((page - 1) * size), SEEK_SET), 0);
    for (int64_t i = 0; i < size; i++)
        fputc(0x5a, f);
    cr_assert_eq(fclose(f), 0);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' 2>&1 >/dev/null", tracedb(), db);
    cr_expect_neq(st, 0);
    cr_expect_str_eq(out, "tracedb ops: database disk image is malformed\n");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* test_ops_memory_read.c: `tracedb ops` reads the [memory] events of a database someone else made,
 * in two halves of memory_event's ids where the events span enough ids for a second connection:
 * ids that are texts (a table declared without types) and a lone id at INT64_MAX count as one read
 * counts them; a trace id below zero is a trace. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEMORY_EVENTS 8200 /* with X, 8,201 event ids: past SPLIT_IDS (8,192), so ops opens its second connection */

/* X [0, 10,000 us) on one thread holding MEMORY_EVENTS 1-byte CPU allocations at 1..8,200 us: PyTorch
 * counts each in X, so X's CPU memory is 8,200 bytes, its own and in total. */
static char *many_allocations_db(const char *dir, const char *name)
{
    size_t cap = 200 + (size_t)MEMORY_EVENTS * 200, n = 0;
    char *json = malloc(cap), path[1100];
    n += (size_t)snprintf(json + n, cap - n, "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"X\",\"pid\":1,"
                                             "\"tid\":1,\"ts\":0,\"dur\":10000}");
    for (int i = 1; i <= MEMORY_EVENTS; i++)
        n += (size_t)snprintf(json + n, cap - n,
                              ",{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,"
                              "\"tid\":1,\"ts\":%d,\"args\":{\"Addr\":%d,\"Bytes\":1,\"Total Allocated\":%d,"
                              "\"Total Reserved\":%d,\"Device Type\":0,\"Device Id\":-1}}",
                              i, i, i, i);
    n += (size_t)snprintf(json + n, cap - n, "]}");
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    write_file(path, json, (long)n);
    free(json);
    char *db = malloc(1100);
    snprintf(db, 1100, "%s/%s.db", dir, name);
    cr_assert_eq(import_to(path, db), 0);
    return db;
}

static void edit(const char *db, const char *sql)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* X's row after `sql` edits a fresh many_allocations_db: name, calls, then CPU memory and self CPU
 * memory (fields 1, 2, 12, 13 of ops' csv), expected to read `expected`. */
static void expect_x_row(const char *name, const char *sql, const char *expected)
{
    char *dir = temp_dir(), *db = many_allocations_db(dir, name);
    edit(db, sql);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --format csv 2>&1 | grep '^X,' | cut -d, -f1,2,12,13", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    cr_expect_str_eq(out, expected);
    free(out), free(db);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* memory_event rebuilt without types, a third of its ids texts ('123' matches event 123, as SQLite
 * compares a number with a text): every allocation still counts in X, in both halves' reads. */
Test(ops_memory_read, text_ids_of_a_table_without_types_count)
{
    expect_x_row("texts",
                 "PRAGMA legacy_alter_table = ON; DROP VIEW IF EXISTS memory_events; "
                 "CREATE TABLE m2 (event_id, addr, total_allocated, total_reserved, device_type); "
                 "INSERT INTO m2 SELECT CASE WHEN event_id % 3 = 0 THEN CAST(event_id AS TEXT) ELSE event_id END, addr, "
                 "total_allocated, total_reserved, device_type FROM memory_event; "
                 "DROP TABLE memory_event; ALTER TABLE m2 RENAME TO memory_event",
                 "X,1,8200,8200\n");
}

/* One memory event, at the largest id (an event of no [memory] record: nothing counts), the halves'
 * part computed without overflow (the sanitizers stop the test binary at one). */
Test(ops_memory_read, a_lone_id_at_int64_max_is_read_whole)
{
    expect_x_row("lone",
                 "DELETE FROM memory_event; INSERT INTO memory_event (event_id, device_type) VALUES (9223372036854775807, 0)",
                 "X,1,0,0\n");
}

/* A foreign database's trace id below zero is a trace like any other: its thread's allocations count in
 * X (its id once stood for "no trace", and they went uncounted). */
Test(ops_memory_read, a_negative_trace_id_is_a_trace)
{
    expect_x_row("negative", "PRAGMA foreign_keys = OFF; UPDATE trace SET id = -5; UPDATE process SET trace_id = -5",
                 "X,1,8200,8200\n");
}

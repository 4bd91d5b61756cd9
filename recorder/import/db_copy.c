/* db_copy.c: see db_copy.h. Each statement runs in SQL over the attached database; the temp tables smap
 * (names), kmap (kinds) and off (each table's largest id in main) carry the remapping from one to the
 * next. A side table's row comes only with its event. */
#include "db_copy.h"
#include "db_guard.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* What src's ids of a table are moved by: past main's largest id (ids from 1 up: by that id, as ever;
 * a stranger's ids at or below 0 move up as far as they reach down, else they would land on main's). */
#define OFFSET(table) \
    "((SELECT coalesce(max(id), 0) FROM main." table ") - min(0, (SELECT coalesce(min(id), 1) FROM src." table ") - 1))"

/* The maps from src's names, kinds and ids to main's: temp.smap, temp.kmap and temp.off. */
static const char *const map_sql[] = {
    "DROP TABLE IF EXISTS temp.smap",
    "DROP TABLE IF EXISTS temp.kmap",
    "DROP TABLE IF EXISTS temp.off",
    "CREATE INDEX IF NOT EXISTS main.string_value ON string(value)",
    "INSERT INTO main.string (value) SELECT DISTINCT value FROM src.string WHERE value NOT IN (SELECT value FROM main.string)",
    "CREATE TEMP TABLE smap AS SELECT s.id AS old, m.id AS new FROM src.string s JOIN main.string m ON m.value = s.value",
    "INSERT INTO main.kind (id, name) SELECT max(99, (SELECT max(id) FROM main.kind)) + row_number() OVER (ORDER BY id), name "
    "FROM src.kind WHERE name NOT IN (SELECT name FROM main.kind)",
    "CREATE TEMP TABLE kmap AS SELECT s.id AS old, m.id AS new FROM src.kind s JOIN main.kind m ON m.name = s.name",
    "CREATE TEMP TABLE off AS SELECT " OFFSET("trace") " AS tr, " OFFSET("process") " AS pr, " OFFSET("thread") " AS th, "
    OFFSET("event") " AS ev",
};

/* Each runs with ?1 = the rank a trace naming none gets (NULL: none); {E} is the events' condition, {L}
 * a GPU row's launch start (src's own column, or its launch's start where src was made before it), {W}
 * the flow half a row carries (its category's name mapped through the join {J}, a join as the names'
 * are: a subquery per row read all of smap, 80 s for 865,600 rows; NULL where src was made before
 * event.flow). */
static const char *const copy_sql[] = {
    "INSERT INTO main.trace SELECT t.id + o.tr, source_file, source_format, name, base_time_ns, coalesce(rank, ?1), "
    "device_properties, distributed_info, extra, status, skipped_events, overlaps, error, first_ns, last_ns "
    "FROM src.trace t, temp.off o ORDER BY t.id",
    "INSERT INTO main.process SELECT p.id + o.pr, p.trace_id + o.tr, pid, name, labels, sort_index FROM src.process p, temp.off o",
    "INSERT INTO main.thread SELECT t.id + o.th, t.process_id + o.pr, tid, name, sort_index FROM src.thread t, temp.off o",
    "INSERT INTO main.device SELECT d.id, d.trace_id + o.tr, name, properties FROM src.device d, temp.off o",
    "INSERT INTO main.event SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, "
    "e.parent_id + o.ev, e.depth, e.correlation, e.external_id, e.device, e.stream, e.bytes, e.launch_id + o.ev, e.args, {L}, {W} "
    "FROM src.event e JOIN temp.kmap k ON k.old = e.kind JOIN temp.smap sn ON sn.old = e.name_id "
    "LEFT JOIN temp.smap sc ON sc.old = e.cat_id {J}, temp.off o WHERE {E} ORDER BY e.id",
    "INSERT INTO main.event_stats SELECT s.trace_id + o.tr, k.new, sn.new, device, calls, total_ns, self_ns, min_ns, "
    "max_ns, self_device_ns, device_total_ns, self_cpu_mem, cpu_mem, self_device_mem, device_mem "
    "FROM src.event_stats s JOIN temp.kmap k ON k.old = s.kind JOIN temp.smap sn ON sn.old = s.name_id, temp.off o",
    ("INSERT INTO main.device_stats SELECT d.trace_id + o.tr, device, first_ns, last_ns, busy_ns, run_ns, events "
     "FROM src.device_stats d, temp.off o"), /* (parentheses: clang asks, a short list ending in a joined literal) */
    /* events inside one of their own name (ingest_checks.c), summed; -1 (not known) where src has no count */
    "INSERT INTO main.meta (key, value) SELECT 'ops.same_name_nesting', coalesce((SELECT CAST(value AS INTEGER) FROM "
    "src.meta WHERE key = 'ops.same_name_nesting'), -1) WHERE 1 ON CONFLICT (key) DO UPDATE SET value = "
    "iif(value < 0 OR excluded.value < 0, -1, value + excluded.value)",
};

/* TDB_COPY_EVENT_TABLES: {F} is "" when every event came, else the copied events' condition. */
static const char *const event_table_sql[] = {
    "INSERT INTO main.kernel_launch SELECT l.event_id + o.ev, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
    "registers, shared_mem, blocks_per_sm, warps_per_sm, occupancy_pct FROM src.kernel_launch l, temp.off o {F}",
    "INSERT INTO main.memory_event SELECT m.event_id + o.ev, addr, total_allocated, total_reserved, device_type "
    "FROM src.memory_event m, temp.off o {F}",
};

static const char *const series_sql[] = {
    "INSERT INTO main.counter (thread_id, name_id, ts_ns, value) SELECT c.thread_id + o.th, sn.new, c.ts_ns, c.value "
    "FROM src.counter c JOIN temp.smap sn ON sn.old = c.name_id, temp.off o ORDER BY c.id",
    "INSERT INTO main.flow_loose (flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing) SELECT f.flow_id, sc.new, f.phase, "
    "f.thread_id + o.th, f.ts_ns, f.bind_enclosing FROM src.{T} f LEFT JOIN temp.smap sc ON sc.old = f.cat_id, "
    "temp.off o ORDER BY f.id",
};

/* sql with its {X} replaced by with (malloc'd), or NULL when out of memory. */
static char *fill(const char *sql, const char *mark, const char *with)
{
    const char *at = strstr(sql, mark);
    if (!at)
        return strdup(sql);
    size_t a = (size_t)(at - sql), w = strlen(with), rest = strlen(at + strlen(mark));
    char *out = malloc(a + w + rest + 1);
    if (out)
        memcpy(out, sql, a), memcpy(out + a, with, w), memcpy(out + a + w, at + strlen(mark), rest + 1);
    return out;
}

/* sql with each of its n marks {X} replaced by its text (pairs: mark, text), malloc'd; NULL when out of
 * memory. */
static char *fill_all(const char *sql, const char *const pairs[][2], size_t n)
{
    char *out = strdup(sql);
    for (size_t i = 0; out && i < n; i++) {
        char *next = fill(out, pairs[i][0], pairs[i][1]);
        free(out);
        out = next;
    }
    return out;
}

static int run(sqlite3 *db, const char *sql, int position, const char *prog, const char *what, FILE *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        if (sqlite3_bind_parameter_count(st) > 0) {
            if (position >= 0)
                sqlite3_bind_int(st, 1, position);
            else
                sqlite3_bind_null(st, 1);
        }
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        char why[600];
        int code = sqlite3_errcode(db) & 0xff, e = sqlite3_system_errno(db);
        if (code == SQLITE_FULL || (code == SQLITE_IOERR && (e == ENOSPC || e == EFBIG || e == EDQUOT)))
            fprintf(err, "%s: cannot write the output while copying %s into it: %s\n", prog, what,
                    tdb_db_errmsg(db, why, sizeof why)); /* the output's disk, not the input */
        else
            fprintf(err, "%s: %s: %s\n", prog, what, sqlite3_errmsg(db));
    }
    return rc == SQLITE_OK ? 0 : -1;
}

/* After temp.off: a table of src whose ids, moved, would pass what 64 bits hold (a stranger's ids near
 * 2^63 - 1, or reaching down near -2^63), named with the range of its ids; NULL when none. */
#define ID_FITS(table, col)                                                                            \
    "WHEN typeof(o." col ") <> 'integer' OR (SELECT max(id) FROM src." table ") > 9223372036854775807 - o." col \
    " THEN '" table "s'' ids (from ' || (SELECT min(id) FROM src." table ") || ' to ' || "                  \
    "(SELECT max(id) FROM src." table ") || ')' "
static const char ids_overflow_sql[] = "SELECT CASE " ID_FITS("event", "ev") ID_FITS("thread", "th") ID_FITS("process", "pr")
    ID_FITS("trace", "tr") "END FROM temp.off o";

/* -1 (printed) when src's ids cannot be moved past main's in 64 bits; else 0. */
static int ids_fit(sqlite3 *db, const char *prog, const char *what, FILE *err)
{
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, ids_overflow_sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(err, "%s: %s: %s\n", prog, what, sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        fprintf(err, "%s: %s: its %s, moved past the ids already merged, would pass what 64 bits hold; "
                     "renumber them\n", prog, what, (const char *)sqlite3_column_text(st, 0));
        rc = -1;
    }
    sqlite3_finalize(st);
    return rc;
}

static int oom(const char *prog, const char *what, FILE *err)
{
    fprintf(err, "%s: %s: out of memory\n", prog, what);
    return -1;
}

int tdb_copy_attached(sqlite3 *db, const struct tdb_copy *c, const char *prog, const char *what, FILE *err)
{
    int all = strcmp(c->events, "1") == 0, rc = 0;
    /* src's events hold launch_ns, or were made before it */
    const char *launch_ns = tdb_db_compiles(db, "SELECT launch_ns FROM src.event LIMIT 0")
                                ? "e.launch_ns" : "(SELECT a.start_ns FROM src.event a WHERE a.id = e.launch_id)";
    /* src's rows carry flow halves (the rest in flow_loose), or it was made before: its table flow holds all */
    int carries = tdb_db_compiles(db, "SELECT flow FROM src.event LIMIT 0");
    const char *flow = carries ? "sw.new * 8 + (e.flow & 7)" : "NULL";
    const char *flow_join = carries ? "LEFT JOIN temp.smap sw ON sw.old = e.flow >> 3" : "";
    char *only = NULL; /* a side table's rows of the copied events */
    size_t n = strlen(c->events) + 96;
    if (!all && (only = malloc(n)))
        snprintf(only, n, "WHERE event_id IN (SELECT e.id FROM src.event e WHERE %s)", c->events);
    for (size_t i = 0; rc == 0 && i < sizeof map_sql / sizeof map_sql[0]; i++)
        rc = run(db, map_sql[i], c->position, prog, what, err);
    if (rc == 0)
        rc = ids_fit(db, prog, what, err);
    const char *const marks[][2] = {{"{E}", c->events}, {"{L}", launch_ns}, {"{W}", flow}, {"{J}", flow_join}};
    for (size_t i = 0; rc == 0 && i < sizeof copy_sql / sizeof copy_sql[0]; i++) {
        char *sql = fill_all(copy_sql[i], marks, sizeof marks / sizeof marks[0]);
        rc = sql ? run(db, sql, c->position, prog, what, err) : oom(prog, what, err);
        free(sql);
    }
    for (size_t i = 0; rc == 0 && (c->tables & TDB_COPY_EVENT_TABLES) && i < 2; i++) {
        char *sql = all || only ? fill(event_table_sql[i], "{F}", all ? "" : only) : NULL;
        rc = sql ? run(db, sql, c->position, prog, what, err) : oom(prog, what, err);
        free(sql);
    }
    for (size_t i = 0; rc == 0 && (c->tables & TDB_COPY_SERIES) && i < 2; i++) {
        char *sql = fill(series_sql[i], "{T}", carries ? "flow_loose" : "flow");
        rc = sql ? run(db, sql, c->position, prog, what, err) : oom(prog, what, err);
        free(sql);
    }
    if (rc == 0)
        rc = run(db, "DROP TABLE temp.smap", -1, prog, what, err) | run(db, "DROP TABLE temp.kmap", -1, prog, what, err) |
             run(db, "DROP TABLE temp.off", -1, prog, what, err);
    free(only);
    return rc;
}

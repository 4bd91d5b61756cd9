/* merge.c: tdb_merge(), several tracedb databases (one per rank, say) into one. Each input is attached
 * and copied in SQL with its ids moved past those already present: names and categories are matched
 * by value (interned once), custom kinds by name, traces keep their rank (or get the input's
 * position). The result is built beside the target and moved into place only when complete, as
 * every import is. */
#include "tracedb.h"
#include "db_guard.h"
#include "ingest.h"
#include <sqlite3.h>
#include <string.h>

/* Each statement runs with ?1 = the input's position (for a missing rank). */
static const char *const merge_sql[] = {
    "CREATE INDEX IF NOT EXISTS main.string_value ON string(value)",
    "INSERT INTO main.string (value) SELECT DISTINCT value FROM src.string WHERE value NOT IN (SELECT value FROM main.string)",
    "CREATE TEMP TABLE smap AS SELECT s.id AS old, m.id AS new FROM src.string s JOIN main.string m ON m.value = s.value",
    "INSERT INTO main.kind (id, name) SELECT max(99, (SELECT max(id) FROM main.kind)) + row_number() OVER (ORDER BY id), name "
    "FROM src.kind WHERE name NOT IN (SELECT name FROM main.kind)",
    "CREATE TEMP TABLE kmap AS SELECT s.id AS old, m.id AS new FROM src.kind s JOIN main.kind m ON m.name = s.name",
    "CREATE TEMP TABLE off AS SELECT (SELECT coalesce(max(id), 0) FROM main.trace) AS tr, "
    "(SELECT coalesce(max(id), 0) FROM main.process) AS pr, (SELECT coalesce(max(id), 0) FROM main.thread) AS th, "
    "(SELECT coalesce(max(id), 0) FROM main.event) AS ev",
    "INSERT INTO main.trace SELECT t.id + o.tr, source_file, source_format, name, base_time_ns, coalesce(rank, ?1), "
    "device_properties, distributed_info, extra, status, skipped_events, overlaps, error, first_ns, last_ns "
    "FROM src.trace t, temp.off o",
    "INSERT INTO main.process SELECT p.id + o.pr, p.trace_id + o.tr, pid, name, labels, sort_index FROM src.process p, temp.off o",
    "INSERT INTO main.thread SELECT t.id + o.th, t.process_id + o.pr, tid, name, sort_index FROM src.thread t, temp.off o",
    "INSERT INTO main.device SELECT d.id, d.trace_id + o.tr, name, properties FROM src.device d, temp.off o",
    "INSERT INTO main.event SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, "
    "e.parent_id + o.ev, e.depth, e.correlation, e.external_id, e.device, e.stream, e.bytes, e.launch_id + o.ev, e.args "
    "FROM src.event e JOIN temp.kmap k ON k.old = e.kind JOIN temp.smap sn ON sn.old = e.name_id "
    "LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o ORDER BY e.id",
    "INSERT INTO main.kernel_launch SELECT l.event_id + o.ev, grid_x, grid_y, grid_z, block_x, block_y, block_z, "
    "registers, shared_mem, blocks_per_sm, warps_per_sm, occupancy_pct FROM src.kernel_launch l, temp.off o",
    "INSERT INTO main.memory_event SELECT m.event_id + o.ev, addr, total_allocated, total_reserved, device_type "
    "FROM src.memory_event m, temp.off o",
    "INSERT INTO main.counter (thread_id, name_id, ts_ns, value) SELECT c.thread_id + o.th, sn.new, c.ts_ns, c.value "
    "FROM src.counter c JOIN temp.smap sn ON sn.old = c.name_id, temp.off o ORDER BY c.id",
    "INSERT INTO main.flow (flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing) SELECT f.flow_id, sc.new, f.phase, "
    "f.thread_id + o.th, f.ts_ns, f.bind_enclosing FROM src.flow f LEFT JOIN temp.smap sc ON sc.old = f.cat_id, "
    "temp.off o ORDER BY f.id",
    "INSERT INTO main.event_stats SELECT s.trace_id + o.tr, k.new, sn.new, device, calls, total_ns, self_ns, min_ns, "
    "max_ns, self_device_ns, device_total_ns, self_cpu_mem, cpu_mem, self_device_mem, device_mem "
    "FROM src.event_stats s JOIN temp.kmap k ON k.old = s.kind JOIN temp.smap sn ON sn.old = s.name_id, temp.off o",
    "INSERT INTO main.device_stats SELECT d.trace_id + o.tr, device, first_ns, last_ns, busy_ns, run_ns, events "
    "FROM src.device_stats d, temp.off o",
    "DROP TABLE temp.smap",
    "DROP TABLE temp.kmap",
    "DROP TABLE temp.off",
};

static int merge_exec(sqlite3 *db, const char *sql, int position, const char *input, FILE *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(err, "tracedb: %s: %s\n", input, sqlite3_errmsg(db));
        return -1;
    }
    if (sqlite3_bind_parameter_count(st) > 0)
        sqlite3_bind_int(st, 1, position);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fprintf(err, "tracedb: %s: %s\n", input, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

/* 1 when the input is a complete tracedb database of our schema, 0 when partial, -1 when unusable. */
static int merge_check(sqlite3 *db, const char *input, FILE *err)
{
    sqlite3_stmt *st;
    int version = -1, complete = 0;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM src.pragma_user_version), "
                               "(SELECT value = 'complete' FROM src.meta WHERE key = 'import_status')",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
        complete = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (version != 1) {
        fprintf(err, "tracedb: %s: not a tracedb database of schema version 1\n", input);
        return -1;
    }
    return complete;
}

int tdb_merge(const char *db_path, const char *const *inputs, int ninputs, unsigned flags, FILE *err)
{
    struct tdb_ingest *ing = tdb_ingest_open(db_path, (flags & TDB_IMPORT_FORCE) ? TDB_OPEN_FORCE : TDB_OPEN_CREATE, err);
    if (!ing)
        return -1;
    sqlite3 *db = tdb_ingest_sqlite(ing);
    int complete = 1;
    for (int i = 0; db && i < ninputs; i++) {
        sqlite3_stmt *st;
        int ok = sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &st, NULL) == SQLITE_OK;
        if (ok) {
            char literal[4096];
            sqlite3_bind_text(st, 1, tdb_db_literal_path(inputs[i], literal, sizeof literal), -1, SQLITE_TRANSIENT);
            ok = sqlite3_step(st) == SQLITE_DONE;
        }
        sqlite3_finalize(st);
        int c = ok ? merge_check(db, inputs[i], err) : -1;
        if (!ok)
            fprintf(err, "tracedb: cannot open %s: %s\n", inputs[i], sqlite3_errmsg(db));
        for (size_t k = 0; c >= 0 && k < sizeof merge_sql / sizeof merge_sql[0]; k++)
            if (merge_exec(db, merge_sql[k], i, inputs[i], err) != 0)
                c = -1;
        /* DETACH is refused inside a transaction: the new file is not in place yet, so commit here */
        if (ok && sqlite3_exec(db, "COMMIT; DETACH src; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(err, "tracedb: %s: %s\n", inputs[i], sqlite3_errmsg(db));
            c = -1;
        }
        if (c < 0) {
            tdb_ingest_abort(ing);
            fprintf(err, "tracedb: nothing written to %s\n", db_path);
            return -1;
        }
        complete &= c;
    }
    if (!db) {
        tdb_ingest_abort(ing);
        return -1;
    }
    return tdb_ingest_finish(ing, complete) == 0 ? !complete : -1;
}

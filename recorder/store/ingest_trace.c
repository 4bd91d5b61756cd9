/* ingest_trace.c: a trace's beginning and end: its row in `trace`; a recording's trace resumed from its
 * rows (tracedb finish); the end of a trace: the sweep, the links and sums written back (ingest_sweep.c),
 * device time, the trace's row completed; a live recording's indexes built meanwhile on a second
 * connection. */
#include "ingest_internal.h"
#include "db_guard.h"
#include "embedded.h"
#include "stmt_cache.h"
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdint.h>

int64_t tdb_ingest_begin_trace(struct tdb_ingest *ing, const char *source_file, const char *format)
{
    sqlite3_stmt *st;
    if (ingest_sync(ing) != 0)
        return -1;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO trace (source_file, source_format, status) VALUES (?1, ?2, 'importing')", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_text(st, 1, source_file, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    ing->trace_id = sqlite3_last_insert_rowid(ing->db);
    ing->trace_first_event = ing->next_event;
    ing->carrier = 0;
    ing->overlaps = 0;
    ing->first_ns = INT64_MAX;
    ing->last_ns = INT64_MIN;
    return ing->trace_id;
}

/* Ends the current trace, whose rows [trace_first_event, end) are written already (read back, or a
 * recording's): they may hold nesting of their own, and every one is nested and linked at the end. */
static int ingest_end_written(struct tdb_ingest *ing, int64_t end, const struct tdb_trace_info *info)
{
    ing->read_back = 1;
    ing->trace_end_event = end;
    int rc = tdb_ingest_end_trace(ing, info);
    ing->read_back = 0;
    return rc;
}

int tdb_ingest_resume_trace(struct tdb_ingest *ing, int64_t trace_id, const struct tdb_trace_info *info)
{
    sqlite3_stmt *st;
    int sync_rc = ingest_sync(ing);
    ingest_phase(ing, "insert");
    if (sync_rc != 0 ||
        sqlite3_prepare_v2(ing->db,
                           /* one scan in id order; names only where device_time_class needs them (GPU
                            * work) */
                           "SELECT e.id, e.kind, e.name_id, CASE WHEN e.kind IN (?2, ?3, ?4) THEN "
                           "(SELECT value FROM string WHERE id = e.name_id) END, e.thread_id, e.start_ns, e.dur_ns, "
                           "e.correlation, e.device, e.bytes FROM event e "
                           "WHERE (SELECT count(*) FROM trace) = 1 OR e.thread_id IN (SELECT t.id FROM thread t "
                           "JOIN process p ON p.id = t.process_id WHERE p.trace_id = ?1) ORDER BY e.id",
                           -1, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot read the trace back");
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int(st, 2, TDB_KIND_KERNEL);
    sqlite3_bind_int(st, 3, TDB_KIND_MEMCPY);
    sqlite3_bind_int(st, 4, TDB_KIND_MEMSET);
    ing->trace_id = trace_id;
    ing->overlaps = 0;
    ing->first_ns = INT64_MAX;
    ing->last_ns = INT64_MIN;
    int rc = 0;
    int64_t rows = 0, last_id = 0;
    ing->reading_back = 1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (rows++ == 0)
            ing->trace_first_event = id;
        last_id = id;
        struct tdb_event ev;
        ingest_event_of_row(st, &ev);
        size_t ord = (size_t)(id - ing->trace_first_event); /* ids ascend; gaps are kept as they are */
        int64_t launch_ns; /* rows read back are linked by the end of the trace, never as they come */
        if (ingest_keep_keys(ing, ord, &ev, sqlite3_column_int64(st, 2), &launch_ns) == -1 ||
            ingest_keep_gpu_time(ing, ord, &ev) != 0)
            rc = -1;
    }
    tdb_stmt_finalize(st);
    ing->reading_back = 0;
    if (rc != 0) {
        ingest_free_keys(ing);
        return -1;
    }
    ingest_phase(ing, "read back");
    if (rows == 0)
        ing->trace_first_event = last_id = ing->next_event - 1;
    /* the end of the trace covers [trace_first_event, last id]: for a resumed trace, exactly its rows */
    return ingest_end_written(ing, rows ? last_id + 1 : ing->trace_first_event, info);
}

/* A recording's indexes, built on a second connection while the first sorts and sweeps the keys (which
 * touches no table): two long steps of closing, on two cores at once (a recording's program waits in
 * tdb_close meanwhile). The first writes again only once this is joined (tdb_ingest_end_trace). */
static void *ingest_index_main(void *arg)
{
    struct tdb_ingest *ing = arg;
    sqlite3 *db = NULL;
    const char *sql = tdb_embedded_get("schema/indexes.sql"), *early = tdb_embedded_get("schema/indexes_early.sql");
    ing->index_rc = tdb_db_open(ing->path, SQLITE_OPEN_READWRITE, &db) == SQLITE_OK && sql && early &&
                            sqlite3_busy_timeout(db, 60000) == SQLITE_OK &&
                            sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA cache_size=-4096", NULL, NULL, NULL) == SQLITE_OK &&
                            sqlite3_exec(db, early, NULL, NULL, NULL) == SQLITE_OK &&
                            sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
                        ? 0
                        : -1;
    sqlite3_close(db);
    return NULL;
}

/* The indexer is done (its failure is no error: finishing builds what is missing); the write
 * transaction begins again. */
static int ingest_index_join(struct tdb_ingest *ing)
{
    if (!ing->indexing)
        return 0;
    pthread_join(ing->indexer, NULL);
    ing->indexing = 0;
    return ingest_exec(ing, "BEGIN");
}

int tdb_ingest_end_trace(struct tdb_ingest *ing, const struct tdb_trace_info *info)
{
    if (ing->live && !ing->resuming) { /* keys kept as rows came: end as rows read back would */
        ing->resuming = 1;
        if (ingest_sync(ing) == 0 && ingest_exec(ing, "COMMIT") == 0) {
            ing->indexing = pthread_create(&ing->indexer, NULL, ingest_index_main, ing) == 0;
            if (!ing->indexing && ingest_exec(ing, "BEGIN") != 0)
                return -1;
        }
        ingest_phase(ing, "insert");
        int rc = ingest_end_written(ing, ing->next_event, info);
        ing->resuming = 0;
        return ingest_index_join(ing) == 0 ? rc : -1;
    }
    if ((ing->stream && !ing->read_back && stream_nest_flush(ing->stream) != 0) || ingest_sync(ing) != 0)
        return -1;
    ingest_phase(ing, "parse+insert");
    if (!ing->read_back)
        ing->trace_end_event = ing->next_event;
    /* the sweep touches no table: a recording's indexes are built meanwhile (ingest_index_main, its own
     * connection, which holds the write lock until it is joined) */
    int indexing = ing->indexing, rc = ingest_sweep(ing);
    if (ingest_index_join(ing) != 0)
        rc = -1;
    if (indexing)
        ingest_phase(ing, "index wait");
    if (rc == 0 && device_time_write(&ing->devices, ing->db, ing->trace_id) != 0) {
        const char *why = device_time_error(&ing->devices);
        rc = why ? (fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why), -1) : ingest_fail(ing, "cannot write device_stats");
    }
    if (rc == 0)
        rc = ingest_write_back(ing);
    if (rc == 0)
        rc = ingest_write_stats(ing);
    if (ing->phases.on) /* what went beyond memory: keys in temporary tables (spill_map.h) */
        fprintf(stderr, "tracedb: beyond memory: %lld of %lld names; pages to a file: %llu of %lld per-name sums, "
                        "%llu of the nesting's stacks\n",
                (long long)ing->strings.spilled, (long long)(ing->next_string - 1), (unsigned long long)ing->stats.writes,
                (long long)ing->nstats,
                (unsigned long long)((ing->stream ? stream_nest_stack_pages(ing->stream) : 0) + ing->sums_file.writes -
                                     ing->stats.writes - ing->name_stats.writes));
    ingest_free_keys(ing);
    if (ing->stream)
        stream_nest_reset(ing->stream);
    if (rc != 0)
        return -1;
    ingest_phase(ing, "write nesting");
    sqlite3_stmt *st;

    if (tdb_stmt_prepare(ing->db,
                           "UPDATE trace SET name = ?2, base_time_ns = ?3, rank = ?4, device_properties = ?5, "
                           "distributed_info = ?6, extra = ?7, status = ?8, skipped_events = ?9, overlaps = ?10, "
                           "error = ?11, source_format = coalesce(?12, source_format), first_ns = coalesce(?13, first_ns), last_ns = coalesce(?14, last_ns) WHERE id = ?1", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    sqlite3_bind_text(st, 2, info->name, -1, SQLITE_STATIC);
    tdb_bind_int_or_null(st, 3, info->base_time_ns);
    tdb_bind_int_or_null(st, 4, info->rank);
    sqlite3_bind_text(st, 5, info->device_properties, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, info->distributed_info, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, info->extra, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, info->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, info->skipped_events);
    sqlite3_bind_int64(st, 10, ing->overlaps);
    sqlite3_bind_text(st, 11, info->error, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, info->source_format, -1, SQLITE_STATIC);
    tdb_bind_int_or_null(st, 13, ing->first_ns == INT64_MAX ? TDB_NULL : ing->first_ns);
    tdb_bind_int_or_null(st, 14, ing->last_ns == INT64_MIN ? TDB_NULL : ing->last_ns);
    rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot write");
}

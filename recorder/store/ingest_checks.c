/* ingest_checks.c: the end of a trace and of a load, second part (see ingest.c): a trace the database
 * holds already, or whose times lie far from the others'; the anomalies counted; meta. */
#include "ingest_internal.h"
#include "stmt_cache.h"
#include "version.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* "53 years", "2.0 days", "3.5 hours": a gap between traces in words. */
static void ingest_span_words(char *out, size_t n, double ns)
{
    double s = ns / 1e9;
    if (s >= 2 * 365.25 * 86400)
        snprintf(out, n, "%.0f years", s / (365.25 * 86400));
    else if (s >= 2 * 86400)
        snprintf(out, n, "%.1f days", s / 86400);
    else
        snprintf(out, n, "%.1f hours", s / 3600);
}

int tdb_ingest_check_trace(struct tdb_ingest *ing, int allow_duplicate, const char *file)
{
    if (ingest_sync(ing) != 0)
        return -1;
    static const char count_sql[] = "(SELECT count(*) FROM event WHERE thread_id IN (SELECT th.id FROM thread th "
                                    "JOIN process p ON p.id = th.process_id WHERE p.trace_id = %s))";
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT o.id, o.source_file, %s = %s FROM trace o, trace n WHERE n.id = ?1 AND o.id != n.id "
             "AND o.first_ns = n.first_ns AND o.last_ns = n.last_ns AND o.base_time_ns IS n.base_time_ns "
             "AND o.name IS n.name AND o.rank IS n.rank AND o.status = 'complete' LIMIT 1",
             "o.id", "n.id");
    /* the counts are compared in a second step, only for a candidate (they scan the events) */
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    int64_t dup = 0;
    char dup_file[512] = "";
    if (sqlite3_step(st) == SQLITE_ROW) {
        dup = sqlite3_column_int64(st, 0);
        snprintf(dup_file, sizeof dup_file, "%s", sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "?");
    }
    tdb_stmt_finalize(st);
    if (dup) {
        char a[256], b[256];
        snprintf(a, sizeof a, count_sql, "?1");
        snprintf(b, sizeof b, count_sql, "?2");
        snprintf(sql, sizeof sql, "SELECT %s = %s", a, b);
        if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
            return ingest_fail(ing, "cannot prepare");
        sqlite3_bind_int64(st, 1, dup);
        sqlite3_bind_int64(st, 2, ing->trace_id);
        int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        tdb_stmt_finalize(st);
        if (same && !allow_duplicate) {
            fprintf(ing->err,
                    "tracedb: %s: the database already holds this trace (trace %lld, from %s: the same span, time "
                    "base, name, rank and event count); refused, nothing written (--allow-duplicate to import it again)\n",
                    file, (long long)dup, dup_file);
            return 1;
        }
    }
    /* another time base: far from every other trace, in absolute time */
    if (tdb_stmt_prepare(ing->db,
                           "SELECT n.first_ns + coalesce(n.base_time_ns, 0), n.last_ns + coalesce(n.base_time_ns, 0), "
                           "min(o.first_ns + coalesce(o.base_time_ns, 0)), max(o.last_ns + coalesce(o.base_time_ns, 0)), "
                           "max(o.last_ns - o.first_ns) FROM trace n, trace o WHERE n.id = ?1 AND o.id != n.id "
                           "AND o.first_ns IS NOT NULL AND n.first_ns IS NOT NULL", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 2) != SQLITE_NULL) {
        double nf = sqlite3_column_double(st, 0), nl = sqlite3_column_double(st, 1);
        double of = sqlite3_column_double(st, 2), ol = sqlite3_column_double(st, 3);
        double span = fmax(nl - nf, sqlite3_column_double(st, 4));
        double gap = nf > ol ? nf - ol : of > nl ? of - nl : 0;
        if (gap > fmax(3600e9, 10 * span)) {
            char g[64], all[64];
            ingest_span_words(g, sizeof g, gap);
            ingest_span_words(all, sizeof all, fmax(nl, ol) - fmin(nf, of));
            fprintf(ing->err,
                    "tracedb: %s: warning: its events lie %s %s those already in the database (another clock or time "
                    "base?); the database now spans %s, and reports that compare times across traces will mislead\n",
                    file, g, nf > ol ? "after" : "before", all);
        }
    }
    tdb_stmt_finalize(st);
    return 0;
}

const char *const tdb_anomaly_names[TDB_ANOMALY_COUNT] = {
    [TDB_ANOMALY_NEGATIVE_DUR] = "negative_dur",
    [TDB_ANOMALY_END_WITHOUT_BEGIN] = "end_without_begin",
    [TDB_ANOMALY_NEVER_ENDED] = "begin_never_ended",
    [TDB_ANOMALY_END_BEFORE_BEGIN] = "end_before_begin",
};

void tdb_ingest_count_anomalies(struct tdb_ingest *ing, const int64_t counts[TDB_ANOMALY_COUNT])
{
    for (int a = 0; a < TDB_ANOMALY_COUNT; a++)
        ing->anomalies[a] += counts[a];
}

/* meta anomalies.<name>: added to what an appended database already counts. */
static int ingest_write_anomalies(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db,
                           "INSERT INTO meta (key, value) VALUES ('anomalies.' || ?1, ?2) "
                           "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = 0;
    for (int a = 0; a < TDB_ANOMALY_COUNT && rc == 0; a++) {
        if (!ing->anomalies[a])
            continue;
        sqlite3_bind_text(st, 1, tdb_anomaly_names[a], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ing->anomalies[a]);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    return rc;
}

int ingest_write_meta(struct tdb_ingest *ing, int complete)
{
    if (ingest_write_anomalies(ing) != 0)
        return -1;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    const char *pairs[][2] = {
        {"schema_version", TDB_SCHEMA_VERSION_STR},
        {"tool_version", TDB_VERSION},
        {"created_at", now},
        {"import_status", complete ? "complete" : "partial"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && rc == 0; i++) {
        if (i == 2 && !ing->fresh)
            continue; /* an append keeps the creation time */
        sqlite3_bind_text(st, 1, pairs[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, pairs[i][1], -1, SQLITE_STATIC);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    if (rc != 0)
        return rc;
    /* How many events sit inside one of their own name, summed over the traces (`tracedb ops` reads the
     * events for PyTorch's same-name merge unless it is 0); -1: not known (traces in the database that
     * were nested before the count was kept, or a copy of one: db_copy.c). An ingest that nested no
     * trace (tracedb merge: db_copy.c sums the inputs') leaves it. */
    if (ing->traces_nested) {
        if (tdb_stmt_prepare(ing->db, "INSERT INTO meta (key, value) SELECT 'ops.same_name_nesting', "
                                      "iif((SELECT count(*) FROM trace) = ?2, ?1, -1) WHERE 1 "
                                      "ON CONFLICT (key) DO UPDATE SET value = iif(value < 0, -1, value + ?1)",
                             -1, 0, &st, NULL) != SQLITE_OK)
            return ingest_fail(ing, "cannot prepare");
        sqlite3_bind_int64(st, 1, ing->same_name);
        sqlite3_bind_int64(st, 2, ing->traces_nested);
        rc = ingest_step(ing, st);
        tdb_stmt_finalize(st);
        if (rc != 0)
            return rc;
    }
    /* The first trace's facts, under plain keys, for users who read meta alone. */
    if (ingest_run(ing,
                   "INSERT OR REPLACE INTO meta (key, value) SELECT k, v FROM (SELECT 'source_file' k, source_file v, 1 o FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'source_format', source_format, 2 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'trace_name', name, 3 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'base_time_ns', base_time_ns, 4 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'device_properties', device_properties, 5 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'distributed_info', distributed_info, 6 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                   "SELECT 'trace_count', count(*), 7 FROM trace) ORDER BY o") != 0)
        return -1;
    /* A database this ingest made holds the rows it wrote and no other (no one had its connection):
     * their count is known. Else count(*), which reads every page of the table (23 ms of a 0.95 s
     * import of 931,602 events). */
    if (tdb_stmt_prepare(ing->db, ing->fresh && !ing->lent ? "INSERT OR REPLACE INTO meta (key, value) VALUES ('event_count', ?1)"
                                                           : "INSERT OR REPLACE INTO meta (key, value) SELECT 'event_count', count(*) FROM event",
                         -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    if (sqlite3_bind_parameter_count(st))
        sqlite3_bind_int64(st, 1, ing->events);
    rc = ingest_step(ing, st);
    tdb_stmt_finalize(st);
    return rc;
}


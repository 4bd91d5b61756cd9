/* finish.c: tdb_finish(), completing a recording that never closed (the program was killed).
 *
 * A recording keeps everything it staged in "run.db-stage" until it closes: finish builds the database
 * again from that file, with the converter a running recording uses (stage_convert.c), so it holds every
 * event staged before the crash (the writer stages every 1-10 ms), not only what the converter had
 * committed. Ranges still open end at their thread's last event (counted as anomalies.begin_never_ended). The
 * new database replaces the old one atomically, then the staging file is removed. A database with no
 * staging file beside it (an import that was killed, or a recording of an older tracedb) gets what
 * closing would have given its committed events, through the importer's own end-of-trace path. */
#define _GNU_SOURCE
#include "tracedb.h"
#include "db_guard.h"
#include "ingest.h"
#include "output_claim.h"
#include "stage_convert.h"
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The events a database holds (its committed ones, its WAL's included), or -1 when it cannot be read. */
static int64_t event_count(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (tdb_db_open(path, SQLITE_OPEN_READONLY, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM event", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

/* Builds db_path from the staging file at stage (fd open on it). */
static int finish_from_stage(const char *db_path, const char *stage, int fd, FILE *err)
{
    int64_t pid;
    char tmp[4200];
    if (stage_read_header(fd, stage, &pid, err) != 0)
        return -1;
    if (tdb_out_begin(db_path, tmp, sizeof tmp) != 0) {
        fprintf(err, "tracedb: %s: cannot name a temporary file beside it\n", db_path);
        return -1;
    }
    struct tdb_ingest *ing = tdb_ingest_open(tmp, TDB_OPEN_REBUILD, err);
    if (!ing) {
        tdb_out_discard(tmp);
        return -1;
    }
    char source[64];
    snprintf(source, sizeof source, "pid %lld", (long long)pid);
    struct stage_conv *conv = tdb_ingest_begin_trace(ing, source, "recorder") < 0 ? NULL : stage_conv_new(ing, pid);
    int64_t end = conv ? stage_conv_file(conv, fd, STAGE_HEADER_BYTES, -1, -1, err, stage) : -1, dropped = 0;
    int closed = conv && stage_conv_closed(conv, &dropped);
    int rc = end < 0 || (!closed && stage_conv_end(conv, TDB_NULL) != 0) ? -1 : 0;
    int64_t anomalies[TDB_ANOMALY_COUNT] = {0};
    anomalies[TDB_ANOMALY_NEVER_ENDED] = conv ? stage_conv_never_ended(conv) : 0;
    tdb_ingest_count_anomalies(ing, anomalies);
    char extra[96];
    snprintf(extra, sizeof extra, "{\"dropped_events\":%lld}", (long long)dropped);
    struct tdb_trace_info info = {
        .source_format = "recorder", .base_time_ns = TDB_NULL, .rank = TDB_NULL, .extra = extra,
        .status = closed && !dropped ? "complete" : "partial",
        .error = closed ? (dropped ? "events dropped: the program outran the disk (see extra.dropped_events)" : NULL)
                        : "the recording ended without closing: built afterwards by tracedb finish from its staging "
                          "file; events from its last 10 ms may be missing",
        .skipped_events = dropped,
    };
    int64_t events = conv ? stage_conv_events(conv) : 0;
    stage_conv_free(conv);
    if (rc == 0)
        rc = tdb_ingest_end_trace(ing, &info);
    if (rc != 0) {
        tdb_ingest_abort(ing);
        tdb_out_discard(tmp);
        return -1;
    }
    if (tdb_ingest_finish(ing, closed && !dropped) != 0) {
        tdb_out_discard(tmp);
        return -1;
    }
    /* never a database that holds less than the one it replaces: a staging file cut short (or damaged
     * past its first chunks) would lose what the recording had committed */
    int64_t had = event_count(db_path), has = event_count(tmp);
    if (had > has) {
        fprintf(err, "tracedb: %s: its staging file %s holds %lld events, fewer than the %lld the database already "
                     "has (the file was cut short or damaged): the database is left as it was, and the staging file "
                     "too; remove the staging file to keep the database as it is\n",
                db_path, stage, (long long)has, (long long)had);
        tdb_out_discard(tmp);
        return -1;
    }
    /* the old database's WAL must not be replayed onto the new one */
    char side[4200];
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    if (tdb_out_commit(tmp, db_path, 1, err) != 0)
        return -1;
    unlink(stage);
    fprintf(err, "tracedb: %s: built from its staging file: %lld events, %lld ranges never ended%s\n", db_path,
            (long long)events, (long long)anomalies[TDB_ANOMALY_NEVER_ENDED], closed ? "" : " (marked partial)");
    return 0;
}

/* A database whose traces were left 'importing': what closing would have given them. */
static int finish_in_place(const char *db_path, FILE *err)
{
    struct tdb_ingest *ing = tdb_ingest_open(db_path, TDB_OPEN_APPEND, err);
    if (!ing)
        return -1;
    sqlite3 *db = tdb_ingest_sqlite(ing);
    sqlite3_stmt *st;
    int64_t ids[256];
    int n = 0;
    if (!db || sqlite3_prepare_v2(db, "SELECT id FROM trace WHERE status = 'importing' ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
        tdb_ingest_abort(ing);
        return -1;
    }
    while (n < 256 && sqlite3_step(st) == SQLITE_ROW)
        ids[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n == 0) {
        fprintf(err, "tracedb: %s: every trace in it is complete; nothing to finish\n", db_path);
        tdb_ingest_abort(ing);
        return 0;
    }
    struct tdb_trace_info info = {
        .source_format = NULL, .base_time_ns = TDB_NULL, .rank = TDB_NULL, .status = "partial",
        .error = "the recording ended without closing: finished afterwards by tracedb finish; events from its last "
                 "100 ms may be missing",
    };
    for (int i = 0; i < n; i++)
        if (tdb_ingest_resume_trace(ing, ids[i], &info) != 0) {
            tdb_ingest_abort(ing);
            return -1;
        }
    if (tdb_ingest_finish(ing, 0) != 0)
        return -1;
    fprintf(err, "tracedb: %s: %d unfinished trace%s completed (marked partial)\n", db_path, n, n == 1 ? "" : "s");
    return 0;
}

int tdb_finish(const char *db_path, FILE *err)
{
    size_t n = strlen(db_path) + sizeof STAGE_SUFFIX;
    char *stage = malloc(n);
    if (!stage)
        return -1;
    snprintf(stage, n, "%s%s", db_path, STAGE_SUFFIX);
    int fd = open(stage, O_RDONLY | O_CLOEXEC);
    int rc;
    if (fd >= 0) {
        rc = finish_from_stage(db_path, stage, fd, err);
        close(fd);
    } else if (errno == ENOENT) {
        rc = finish_in_place(db_path, err);
    } else {
        fprintf(err, "tracedb: %s: %s\n", stage, strerror(errno));
        rc = -1;
    }
    free(stage);
    return rc;
}

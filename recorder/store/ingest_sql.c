/* ingest_sql.c: the ingest's connection, as every part of the store's writer uses it (ingest.c,
 * ingest_names.c, ingest_events.c, ingest_trace.c, ingest_sweep.c, ingest_checks.c): statements run
 * (through the statement cache), embedded SQL files, waiting for the row writer, what failed said
 * once, and the phases TRACEDB_TIMING times. */
#include "ingest_internal.h"
#include "db_guard.h"
#include "embedded.h"
#include "row_writer.h"
#include "stmt_cache.h"
#include <sqlite3.h>
#include <stdio.h>

int ingest_sort_failed(struct tdb_ingest *ing, struct spill_sort *s)
{
    const char *why = s ? spill_sort_error(s) : NULL;
    fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why ? why : "out of memory");
    return -1;
}

/* With TRACEDB_TIMING=1, says on stderr how long the phase that ends now took. */
void ingest_phase(struct tdb_ingest *ing, const char *done)
{
    tdb_phase_end(&ing->phases, done);
}

int ingest_fail(struct tdb_ingest *ing, const char *what)
{
    char why[512];
    fprintf(ing->err, "tracedb: %s: %s: %s\n", ing->path, what, tdb_db_errmsg(ing->db, why, sizeof why));
    return -1;
}

/* One statement, through the statement cache (see stmt_cache.h). */
int ingest_run(struct tdb_ingest *ing, const char *sql)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = ingest_step(ing, st);
    tdb_stmt_finalize(st);
    return rc;
}

int ingest_exec(struct tdb_ingest *ing, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(ing->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char why[512];
        int code = sqlite3_errcode(ing->db) & 0xff; /* a write's error: its reason (tdb_db_errmsg) */
        fprintf(ing->err, "tracedb: %s: %s\n", ing->path,
                sqlite3_system_errno(ing->db) || code == SQLITE_IOERR || code == SQLITE_FULL
                    ? tdb_db_errmsg(ing->db, why, sizeof why)
                    : msg ? msg : "SQL error");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int ingest_exec_file(struct tdb_ingest *ing, const char *file)
{
    const char *sql = tdb_embedded_get(file);
    if (!sql) {
        fprintf(ing->err, "tracedb: internal error: %s is not embedded\n", file);
        return -1;
    }
    return ingest_exec(ing, sql);
}

/* Runs a prepared statement to completion and resets it. */
int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    return 0;
}

/* Waits for the row writer so that this thread may use the database directly. */
int ingest_sync(struct tdb_ingest *ing)
{
    return row_writer_sync(ing->rows);
}

/* report.h: opening a tracedb database for reading and running the report SQL in queries/. */
#ifndef TDB_REPORT_H
#define TDB_REPORT_H
#include "report_io.h"
#include <sqlite3.h>

/* Opens path read-only (or read-write), checks it is a tracedb database, registers the SQL functions.
 * NULL on failure, with the reason on io->err. */
sqlite3 *report_open(const char *path, int writable, struct report_io *io);
/* The database a command given path reads: path itself, or where path names traces (a trace file, a
 * directory of them: recorder/import/trace_cache.c) their database beside them, imported when it does
 * not hold them as they are now (said on io->err). Into buf (n bytes) then; NULL when there is none
 * (said, with the import command to run where it cannot be kept beside them). */
const char *report_db_path(const char *path, char *buf, size_t n, int writable, struct report_io *io);
/* The database report_open noted in opened (a command's: struct report_io's), when it opened one only
 * (else NULL; NULL when opened is). */
const char *report_opened(const struct opened_db *opened);
/* A command that runs reports (a report as an SQL table, tdb_run) runs between these, one thread at a
 * time (a thread may nest them): what a run counts in the process (the times its SQL functions held,
 * util/time_range.h, which dispatch.c's warning reads as a difference) is one run's. */
void report_exclusive_begin(void);
void report_exclusive_end(void);

/* Runs SQL typed by a user, statement after statement, rendering each that has rows; read-only unless
 * writable (no statement may change a database or write a file). 0, or 1 (the error printed). */
int report_run_sql(sqlite3 *db, const char *sql, int writable, enum render_format fmt, struct report_io *io);

/* Prepares the embedded queries/NAME.sql. NULL on failure (printed). */
sqlite3_stmt *report_prepare(sqlite3 *db, const char *name, struct report_io *io);

/* Whether path is a recording that has not closed (still running, or its program was killed); says
 * so on io->err when it is (io NULL: silently): its sums, device time and launch links come when it closes. */
int report_is_recording(sqlite3 *db, const char *path, struct report_io *io);

/* Whether the database holds PyTorch's legacy export (torch.profiler without Kineto: operators with no
 * category, and so with no input shapes and no [memory] events, whatever the profiler was asked for):
 * the hints that say "profile with record_shapes=True" say what the trace lacks instead. */
int report_is_legacy_export(sqlite3 *db);
#define REPORT_LEGACY_EXPORT                                                                                    \
    "this trace is PyTorch's legacy export (torch.profiler without Kineto: no categories), which carries no " \
    "input shapes and no [memory] events whatever the profiler recorded; a Kineto trace has them, and so does " \
    "tracedb.torch.load(prof) or trace_handler from Python"

/* Copies the rows statement rows gives (on one connection) into db (another) by the INSERT ins_sql: ?1
 * first when not NULL (a run's name), then rows' columns col[0..n-1] (NULL: 0..n-1). 0, or -1 with the
 * connection whose error to say in *failed. */
int report_copy_rows(sqlite3_stmt *rows, sqlite3 *db, const char *ins_sql, const char *first, const int *col, int n,
                     sqlite3 **failed);

/* Binds an integer to the named parameter (":limit") when the query has it. */
void report_bind_int(sqlite3_stmt *st, const char *param, int64_t v);
void report_bind_text(sqlite3_stmt *st, const char *param, const char *v);

/* With TRACEDB_TIMING=1, says on stderr how long the phase that ends now took (since the last call). */
void report_phase(const char *done);

#endif

/* tracedb.h: the public C API of libtracedb.
 *
 * Import traces people already have into one SQLite database:
 *     const char *traces[] = {"trace.json.gz"};
 *     int rc = tdb_import("run.db", traces, 1, 0, stderr);
 * The database's tables and views are documented in schema/ and in the README; read it with any
 * SQLite client. (The live recorder API arrives with the recorder.) */
#ifndef TRACEDB_H
#define TRACEDB_H
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TDB_IMPORT_FORCE 1u    /* replace an existing database (atomically, when done) */
#define TDB_IMPORT_APPEND 2u   /* add to an existing database, in one transaction */
#define TDB_IMPORT_PROGRESS 4u /* a progress line on stderr when it is a terminal */

/* Imports Chrome trace JSON files (plain or gzip; "-" is standard input) into db_path.
 * Returns 0 when every event was imported; 1 when some input was damaged (every whole event is kept,
 * each problem is described on err with its file and byte offset, and the database's meta says
 * import_status = partial); -1 when nothing could be written (err says why; no file is left behind,
 * an existing database is unchanged). */
int tdb_import(const char *db_path, const char *const *traces, int ntraces, unsigned flags, FILE *err);

/* The same, recording rank first_rank + i for the i-th trace when the trace itself names no rank
 * (distributedInfo.rank); first_rank < 0 leaves such ranks empty. */
int tdb_import_ranked(const char *db_path, const char *const *traces, int ntraces, unsigned flags, long first_rank,
                      FILE *err);

/* Merges tracedb databases (one per rank, say) into a new database at db_path; ranks come from each
 * input's traces, or are the input's position when it has none. Same return values as tdb_import;
 * TDB_IMPORT_FORCE replaces an existing db_path. */
int tdb_merge(const char *db_path, const char *const *inputs, int ninputs, unsigned flags, FILE *err);

/* The library's version, e.g. "0.1.0". */
const char *tdb_version(void);

#ifdef __cplusplus
}
#endif
#endif

/* finish.c: tdb_finish(), completing a recording that never closed (the program was killed): its
 * committed events get what closing would have given them — parents, self time, launch links, the
 * per-name sums and device time — through the importer's own end-of-trace path. */
#include "tracedb.h"
#include "ingest.h"
#include <sqlite3.h>

int tdb_finish(const char *db_path, FILE *err)
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

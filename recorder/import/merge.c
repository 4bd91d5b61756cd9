/* merge.c: tdb_merge(), several tracedb databases (one per rank, say) into one. Each input is attached
 * and copied whole (db_copy.c) with its ids moved past those already present: names and categories are
 * matched by value (interned once), custom kinds by name, traces keep their rank (or get the input's
 * position). The result is built beside the target and moved into place only when complete, as
 * every import is. */
#include "tracedb.h"
#include "db_copy.h"
#include "db_guard.h"
#include "ingest.h"
#include <errno.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>

/* 1 when the input is a complete tracedb database of our schema, 0 when partial, -1 when unusable. */
static int merge_check(sqlite3 *db, const char *input, FILE *err)
{
    sqlite3_stmt *st;
    int version = -1, complete = 0;
    char named[300]; /* first: a view in a table's place would run its query below */
    if (tdb_db_foreign_table(db, "src", named, sizeof named) > 0) {
        fprintf(err, "tracedb: %s: %s: not a database tracedb wrote\n", input, named);
        return -1;
    }
    if (sqlite3_prepare_v2(db, "SELECT (SELECT user_version FROM src.pragma_user_version), "
                               "(SELECT value = 'complete' FROM src.meta WHERE key = 'import_status')",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        version = sqlite3_column_int(st, 0);
        complete = sqlite3_column_int(st, 1);
    }
    char why[9000];
    if (version == -1 && tdb_db_unreadable_why(db, input, why, sizeof why)) {
        sqlite3_finalize(st);
        fprintf(err, "tracedb: %s\n", why);
        return -1;
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
        sqlite3_stmt *st = NULL;
        char uri[12400], why[9000];
        struct stat sb;
        if (stat(inputs[i], &sb) != 0 || !S_ISREG(sb.st_mode)) { /* never made by ATTACH */
            fprintf(err, "tracedb: cannot open %s: %s\n", inputs[i], errno == 0 || errno == ENOENT ?
                    "no such database" : strerror(errno));
            tdb_ingest_abort(ing);
            fprintf(err, "tracedb: nothing written to %s\n", db_path);
            return -1;
        }
        /* read-only: an input is neither created nor changed (its journal is not rolled back into it) */
        int ok = tdb_db_readonly_uri(inputs[i], uri, sizeof uri) &&
                 sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &st, NULL) == SQLITE_OK;
        if (ok) {
            sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
            ok = sqlite3_step(st) == SQLITE_DONE;
        }
        sqlite3_finalize(st);
        int c = ok ? merge_check(db, inputs[i], err) : -1;
        if (!ok && tdb_db_unreadable_why(db, inputs[i], why, sizeof why))
            fprintf(err, "tracedb: %s\n", why);
        else if (!ok)
            fprintf(err, "tracedb: cannot open %s: %s\n", inputs[i], sqlite3_errmsg(db));
        const struct tdb_copy all = {"1", i, TDB_COPY_EVENT_TABLES | TDB_COPY_SERIES}; /* every row */
        if (c >= 0 && tdb_copy_attached(db, &all, "tracedb", inputs[i], err) != 0)
            c = -1;
        /* DETACH is refused inside a transaction: the new file is not in place yet, so commit here */
        if (ok && c >= 0 && sqlite3_exec(db, "COMMIT; DETACH src; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
            fprintf(err, "tracedb: cannot write %s: %s\n", db_path, tdb_db_errmsg(db, why, sizeof why));
            c = -1;
        }
        if (c < 0) {
            tdb_ingest_abort(ing);
            fprintf(err, "tracedb: nothing written to %s\n", db_path);
            return -1;
        }
        if (c == 0)
            fprintf(err, "tracedb: %s is partial (meta import_status: its import or recording did not complete): the "
                         "merged database is marked partial too\n", inputs[i]);
        complete &= c;
    }
    if (!db) {
        tdb_ingest_abort(ing);
        return -1;
    }
    return tdb_ingest_finish(ing, complete) == 0 ? !complete : -1;
}

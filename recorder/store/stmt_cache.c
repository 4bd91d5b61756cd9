/* stmt_cache.c: see stmt_cache.h. One thread (a fuzzer's); at most CACHE_SIZE statements, the rest are
 * prepared and finalized as usual. */
#include "stmt_cache.h"
#include <string.h>

#define CACHE_SIZE 96

static sqlite3 *cached_db;
static struct {
    sqlite3_stmt *st;
    int in_use;
} cache[CACHE_SIZE];
static int cached;

void tdb_stmt_cache_for(sqlite3 *db)
{
    cached_db = db;
}

int tdb_stmt_prepare(sqlite3 *db, const char *sql, int n, unsigned flags, sqlite3_stmt **st, const char **tail)
{
    if (db != cached_db || !db || tail || n >= 0)
        return sqlite3_prepare_v3(db, sql, n, flags, st, tail);
    for (int i = 0; i < cached; i++) {
        if (!cache[i].in_use && strcmp(sqlite3_sql(cache[i].st), sql) == 0) {
            cache[i].in_use = 1;
            *st = cache[i].st;
            return SQLITE_OK;
        }
    }
    int rc = sqlite3_prepare_v3(db, sql, n, flags | SQLITE_PREPARE_PERSISTENT, st, tail);
    if (rc == SQLITE_OK && *st && cached < CACHE_SIZE) {
        cache[cached].st = *st;
        cache[cached++].in_use = 1;
    }
    return rc;
}

int tdb_stmt_finalize(sqlite3_stmt *st)
{
    for (int i = 0; st && i < cached; i++) {
        if (cache[i].st == st) {
            cache[i].in_use = 0;
            sqlite3_reset(st);
            sqlite3_clear_bindings(st);
            return SQLITE_OK;
        }
    }
    return sqlite3_finalize(st);
}

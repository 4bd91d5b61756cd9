/* stmt_cache.h: prepared statements kept across ingests on the process's in-memory database (fuzzing runs
 * thousands of tiny imports; parsing the same SQL each time was most of their cost). Everywhere else these
 * are sqlite3_prepare_v3 and sqlite3_finalize. */
#ifndef TDB_STMT_CACHE_H
#define TDB_STMT_CACHE_H
#include <sqlite3.h>

/* Statements prepared on db from now on are kept (db: the in-memory database; NULL: none). */
void tdb_stmt_cache_for(sqlite3 *db);

/* As sqlite3_prepare_v3; on the cached database, a statement of the same SQL not in use is reused. */
int tdb_stmt_prepare(sqlite3 *db, const char *sql, int n, unsigned flags, sqlite3_stmt **st, const char **tail);

/* As sqlite3_finalize; a cached statement is reset and its bindings cleared instead. */
int tdb_stmt_finalize(sqlite3_stmt *st);

#endif

/* sql_extension.c: libtracedb.so as a SQLite loadable extension (`.load build/libtracedb`): its entry point. */
#define SQLITE_CORE 1 /* sqlite3ext.h for the routines' type alone, not its macros: see same_sqlite */
#include <sqlite3ext.h>
#include "cli.h"
#include "sql_reports.h"
#include "sqlfuncs.h"

/* A loaded extension must reach SQLite through the host's routines. This library calls SQLite directly
 * (it is linked with the system's libsqlite3, as the sqlite3 shell and Python's sqlite3 module are), so
 * it serves a host whose routines are those very functions: one SQLite in the process, and a direct call
 * is the host's. A host with a SQLite of its own (statically linked, another copy) is refused at load:
 * calling into its connections from another SQLite would corrupt them. */
static int same_sqlite(const sqlite3_api_routines *api)
{
    return api && api->create_function_v2 == sqlite3_create_function_v2 && api->prepare_v2 == sqlite3_prepare_v2 &&
           api->step == sqlite3_step && api->close == sqlite3_close && api->libversion_number &&
           api->libversion_number() == sqlite3_libversion_number();
}

int sqlite3_tracedb_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);

/* The entry point SQLite derives from the file name libtracedb.so: the functions of `tracedb sql`
 * (sqlfuncs.c's one registration: median, percentile, stddev, interval_union, kernel_type, ...) and the
 * reports as table functions, tracedb_ops() ... (sql_reports.c). */
int sqlite3_tracedb_init(sqlite3 *db, char **err, const sqlite3_api_routines *api)
{
    if (!same_sqlite(api)) {
        if (err && api && api->mprintf) /* the host frees it: its allocator */
            *err = api->mprintf("tracedb: this program's SQLite (%s) is not the libsqlite3 libtracedb.so is linked "
                                "with (%s): load it into a program that uses the system's libsqlite3 (the sqlite3 "
                                "shell, Python's sqlite3 module)",
                                api->libversion ? api->libversion() : "?", sqlite3_libversion());
        return SQLITE_ERROR;
    }
    if (tdb_register_functions(db) != 0 || tdb_register_report_tables(db, cli_commands(), NULL) != 0) {
        if (err)
            *err = sqlite3_mprintf("tracedb: cannot register its SQL functions: %s", sqlite3_errmsg(db));
        return SQLITE_ERROR;
    }
    return SQLITE_OK;
}

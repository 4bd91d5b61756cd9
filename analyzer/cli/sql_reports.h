/* sql_reports.h: tracedb's reports as SQL table functions, tracedb_<report>(options) (sql_reports.c). */
#ifndef TDB_SQL_REPORTS_H
#define TDB_SQL_REPORTS_H
#include <sqlite3.h>

struct cli_command; /* cli.h */
struct opened_db;   /* report_io.h */

/* Registers tracedb_ops, tracedb_kernels, ... (one module per report command of commands, a table ended by a
 * NULL name: commands.c's) on db; the reports they run note the database they open in opened (a command's,
 * which outlives db; NULL: nowhere). 0, or -1. */
int tdb_register_report_tables(sqlite3 *db, const struct cli_command *commands, struct opened_db *opened);

#endif

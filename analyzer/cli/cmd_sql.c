/* cmd_sql.c: `tracedb sql run.db "SELECT ..."`: ad-hoc SQL with the report output modes and the
 * median/percentile/stddev functions. Read-only unless --write. */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "sql_reports.h"
#include <string.h>

static const char sql_usage[] = "tracedb sql run.db \"SQL\" [--format table|csv|json] [--write]";

int cmd_sql(int argc, char **argv, struct cli *cli)
{
    enum render_format fmt = FMT_TABLE;
    int writable = 0;
    const struct opt opts[] = {
        {"format", 0, OPT_FORMAT, &fmt, "output format (default table)"},
        {"write", 0, OPT_FLAG, &writable, "allow statements that change the database"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, sql_usage, cli);
    if (n != 2) {
        if (n >= 0)
            cli_usage(opts, sql_usage, cli->io.err);
        return 2;
    }
    sqlite3 *db = report_open(argv[0], writable, &cli->io);
    if (!db)
        return 1;
    if (tdb_register_report_tables(db, cli->commands, cli->io.opened) != 0) { /* tracedb_ops(), tracedb_kernels(), ... */
        fprintf(cli->io.err, "%s: cannot register the reports' table functions\n", cli->io.prog);
        sqlite3_close(db);
        return 1;
    }
    /* a table or view of the database's own under a report's name hides the report: said, so that rows
     * a database carries are never taken for tracedb's */
    sqlite3_stmt *own;
    if (sqlite3_prepare_v2(db, "SELECT name FROM main.sqlite_schema WHERE type IN ('table', 'view') AND "
                               "name LIKE 'tracedb\\_%' ESCAPE '\\' ORDER BY name", -1, &own, NULL) == SQLITE_OK)
        while (sqlite3_step(own) == SQLITE_ROW)
            fprintf(cli->io.err, "%s: warning: %s has its own %s, which hides tracedb's report of that name\n",
                    cli->io.prog, argv[0], (const char *)sqlite3_column_text(own, 0));
    sqlite3_finalize(own);
    int rc = report_run_sql(db, argv[1], writable, fmt, &cli->io);
    sqlite3_close(db);
    return rc;
}

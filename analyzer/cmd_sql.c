/* cmd_sql.c: `tracedb sql run.db "SELECT ..."`: ad-hoc SQL with the report output modes and the
 * median/percentile/stddev functions. Read-only unless --write. */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "../recorder/db_guard.h"
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
            cli_usage(opts, sql_usage, cli->err);
        return 2;
    }
    sqlite3 *db = report_open(argv[0], writable, cli);
    if (!db)
        return 1;
    if (!writable)
        tdb_db_guard_readonly(db);
    const char *sql = argv[1];
    int rc = 0;
    while (sql && *sql && rc == 0) { /* every statement in turn; each with rows is rendered */
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            const char *msg = sqlite3_errmsg(db);
            fprintf(cli->err, "%s: %s%s\n", cli->prog, msg,
                    !writable && strcmp(msg, "not authorized") == 0
                        ? " (read-only: ATTACH, and pragmas that set anything, need --write)"
                        : "");
            rc = 1;
            break;
        }
        char why[160];
        if (st && !writable && tdb_db_check_readonly(st, why, sizeof why) != 0) {
            fprintf(cli->err, "%s: %s\n", cli->prog, why);
            sqlite3_finalize(st);
            rc = 1;
            break;
        }
        if (st) {
            if (sqlite3_column_count(st) > 0) {
                if (render_query(st, fmt, cli->out, cli->err) < 0)
                    rc = 1;
            } else if (sqlite3_step(st) != SQLITE_DONE) {
                fprintf(cli->err, "%s: %s\n", cli->prog, sqlite3_errmsg(db));
                rc = 1;
            }
            sqlite3_finalize(st);
        }
        sql = tail;
    }
    sqlite3_close(db);
    return rc;
}

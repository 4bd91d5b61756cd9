/* cmd_device.c: `tracedb device run.db`: per device, whole trace and per step: busy, run
 * (computation), IO-wait and idle time, with overlaps across streams merged
 * (queries/device_prepare.sql, queries/device.sql). */
#include "cli.h"
#include "report.h"
#include "report_options.h"
#include "embedded.h"

static const char device_usage[] =
    "tracedb device run.db [--steps NAME|GLOB] [--limit N] [--from T] [--to T] [--range NAME]\n"
    "                      [--format table|csv|json]";

static const char *const device_sort_keys[] = {"time", "time", NULL};

int cmd_device(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "time");
    const char *steps = "ProfilerStep#*";
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        {"steps", 0, OPT_STRING, &steps, "the ranges that make a row each (default 'ProfilerStep#*')"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, device_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, device_usage, cli->io.err);
        return 2;
    }
    const char *sort = scope_sort_column(&sc, device_sort_keys, &cli->io);
    if (!sort)
        return 2;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    char *msg = NULL;
    int rc = 1;
    if (sqlite3_exec(db, tdb_embedded_get("queries/device_prepare.sql"), NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(cli->io.err, "%s: %s\n", cli->io.prog, msg ? msg : "SQL error");
        sqlite3_free(msg);
    } else {
        const struct scope_param params[] = {{":steps", steps, 0}, {":filtered", NULL, sc.filtered}, {NULL, NULL, 0}};
        rc = scope_run(db, "device", &sc, sort, params, &cli->io);
    }
    sqlite3_close(db);
    return rc;
}

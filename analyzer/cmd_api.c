/* cmd_api.c: `tracedb api run.db`: runtime and driver API calls per name, nsys cuda_api_sum style
 * (queries/api.sql). */
#include "cli.h"
#include "scope.h"

static const char api_usage[] = "tracedb api run.db [--sort total_ns|calls|avg_ns|max_ns|name] [--limit N]\n"
                                "                   [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]";

static const char *const api_sort_keys[] = {
    "total_ns", "total_ns", "calls", "calls", "avg_ns", "avg_ns", "max_ns", "max_ns", "name", "name", NULL,
};

int cmd_api(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "total_ns");
    const struct opt opts[] = {SCOPE_OPTIONS(sc), OPT_END};
    int n = cli_parse_options(argc, argv, opts, api_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, api_usage, cli->err);
        return 2;
    }
    const char *sort = scope_sort_column(&sc, api_sort_keys, cli);
    if (!sort)
        return 2;
    sqlite3 *db = scope_open(argv[0], &sc, cli);
    if (!db)
        return 1;
    int rc = scope_run(db, "api", &sc, sort, NULL, cli);
    sqlite3_close(db);
    return rc;
}

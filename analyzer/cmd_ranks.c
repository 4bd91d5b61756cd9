/* cmd_ranks.c: `tracedb ranks job.db`: per step, the ranks' durations and the slowest rank
 * (queries/ranks.sql); for databases holding several ranks (import several files, or merge). */
#include "cli.h"
#include "scope.h"

static const char ranks_usage[] = "tracedb ranks job.db [--sort step|straggle_ns] [--limit N] [--format table|csv|json]";

static const char *const ranks_sort_keys[] = {"step", "step", "straggle_ns", "straggle_ns", NULL};

int cmd_ranks(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "step");
    const struct opt opts[] = {SCOPE_OPTIONS(sc), OPT_END};
    int n = cli_parse_options(argc, argv, opts, ranks_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, ranks_usage, cli->err);
        return 2;
    }
    const char *sort = scope_sort_column(&sc, ranks_sort_keys, cli);
    if (!sort)
        return 2;
    sqlite3 *db = scope_open(argv[0], &sc, cli);
    if (!db)
        return 1;
    int rc = scope_run(db, "ranks", &sc, sort, NULL, cli);
    sqlite3_close(db);
    return rc;
}

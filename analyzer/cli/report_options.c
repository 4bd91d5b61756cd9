/* report_options.c: a report command whose only options are the shared ones (api, memops, ranks):
 * parse them, open the database in the chosen window, run the report's SQL. */
#include "report_options.h"

const char *cli_report_sort(const struct scope *sc, const char *const *sort_keys, struct cli *cli)
{
    const char *sort = scope_sort_column(sc, sort_keys, &cli->io);
    if (sort && sc->by_step && sc->by_rank) {
        fprintf(cli->io.err, "%s: --by-step and --by-rank do not go together\n", cli->io.prog);
        return NULL;
    }
    return sort;
}

int cli_simple_report(int argc, char **argv, struct cli *cli, const char *usage, const char *default_sort,
                      const char *const *sort_keys, const char *query, const char *hint)
{
    struct scope sc;
    scope_init(&sc, default_sort);
    const struct opt opts[] = {SCOPE_OPTIONS(sc), OPT_END};
    int n = cli_parse_options(argc, argv, opts, usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, usage, cli->io.err);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, sort_keys, cli);
    if (!sort)
        return 2;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered ? "nothing in this window" : hint);
    int rc = scope_run(db, query, &sc, sort, NULL, &cli->io);
    sqlite3_close(db);
    return rc;
}

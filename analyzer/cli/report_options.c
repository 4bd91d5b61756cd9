/* report_options.c: a report command whose only options are the shared ones (api, memops, ranks):
 * parse them, open the database in the chosen window, run the report's C pass if it has one, and its SQL. */
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
                      const char *const *sort_keys, const char *query, const char *hint, int shards_ok)
{
    return cli_swept_report(argc, argv, cli, usage, default_sort, sort_keys, query, NULL, hint, shards_ok);
}

/* Opens path in the scope, runs sweep (when given) and then the query, closes. */
static int run_report(const char *path, struct scope *sc, const char *sort, const char *query,
                      int (*sweep)(sqlite3 *db, const struct scope *sc, struct report_io *io),
                      const struct scope_param *params, const char *hint, struct cli *cli)
{
    sqlite3 *db = scope_open(path, sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(sc, sc->filtered && !sc->drop_last_step ? "nothing in this window" : hint);
    int rc = sweep ? sweep(db, sc, &cli->io) : 0;
    if (rc == 0)
        rc = scope_run(db, query, sc, sort, params, &cli->io);
    sqlite3_close(db);
    return rc;
}

int cli_swept_report(int argc, char **argv, struct cli *cli, const char *usage, const char *default_sort,
                     const char *const *sort_keys, const char *query,
                     int (*sweep)(sqlite3 *db, const struct scope *sc, struct report_io *io), const char *hint,
                     int shards_ok)
{
    struct scope sc;
    scope_init(&sc, default_sort);
    sc.shards_ok = shards_ok;
    sc.shards_last_step = shards_ok == 2; /* memops: GPU work only */
    const struct opt opts[] = {SCOPE_OPTIONS(sc), OPT_END};
    const struct cli_sort_keys keys[] = {{NULL, sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, usage, cli->io.err);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, sort_keys, cli);
    if (!sort)
        return 2;
    return run_report(argv[0], &sc, sort, query, sweep, NULL, hint, cli);
}

int cli_run_report(const char *path, struct scope *sc, const char *sort, const char *query,
                   const struct scope_param *params, const char *hint, struct cli *cli)
{
    return run_report(path, sc, sort, query, NULL, params, hint, cli);
}

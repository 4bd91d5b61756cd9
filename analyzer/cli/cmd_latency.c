/* cmd_latency.c: `tracedb latency run.db`: step, range or inference latency percentiles
 * (queries/latency.sql), or every instance with --each (queries/latency_each.sql). */
#include "cli.h"
#include "report_options.h"

static const char latency_usage[] =
    "tracedb latency run.db [--name NAME|GLOB | --top-level [--thread TID]] [--each] [--sort KEY] [--limit N]\n"
    "                       [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]";

static const char *const latency_sort_keys[] = {
    "total", "total", "count", "count", "median_ns", "median_ns", "max_ns", "max_ns", "name", "name",
    "start_ns", "start_ns", "dur_ns", "dur_ns", NULL,
};

int cmd_latency(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "total");
    const char *name = NULL, *tid = NULL;
    int top = 0, each = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        {"name", 0, OPT_STRING, &name, "events with this name or glob, as one population (default: ProfilerStep#N)"},
        {"top-level", 0, OPT_FLAG, &top, "top-level ranges and operators (inferences), per name"},
        {"thread", 0, OPT_STRING, &tid, "with --top-level: only this thread id (as in the trace)"},
        {"each", 0, OPT_FLAG, &each, "list every instance (name, start_ns, dur_ns) instead"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, latency_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, latency_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, latency_usage, cli->io.err);
        return 2;
    }
    if (name && top) {
        fprintf(cli->io.err, "%s: --name and --top-level do not go together\n", cli->io.prog);
        return 2;
    }
    if (tid && !top) { /* a filter left unapplied would give every thread's numbers as if they were one's */
        fprintf(cli->io.err, "%s: --thread goes with --top-level\n", cli->io.prog);
        return 2;
    }
    if (each && sc.sort[0] == 't') /* the default sort of the instance list is time */
        sc.sort = "start_ns";
    const char *sort = scope_sort_column(&sc, latency_sort_keys, &cli->io);
    if (!sort)
        return 2;
    sc.shards_ok = name ? 0 : 3; /* steps and top-level ranges and operators: a shard directory holds them */
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    const struct scope_param params[] = {
        {":mode", name ? "name" : top ? "top" : "steps", 0},
        {":pattern", name ? name : "", 0},
        {tid ? ":tid" : NULL, tid, 0},
        {NULL, NULL, 0},
    };
    char hint[320];
    if (name)
        snprintf(hint, sizeof hint, "no range, operator or step named '%.200s'%s", name, sc.filtered ? " in this window" : "");
    else
        snprintf(hint, sizeof hint, "no %s%s: name the ranges to measure with --name NAME, or take --top-level ones",
                 top ? "top-level ranges" : "ProfilerStep#N steps", sc.filtered ? " in this window" : "");
    scope_tables(&sc, hint);
    int rc = scope_run(db, each ? "latency_each" : "latency", &sc, sort, params, &cli->io);
    sqlite3_close(db);
    return rc;
}

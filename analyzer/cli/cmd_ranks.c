/* cmd_ranks.c: `tracedb ranks job.db`: per step, the ranks' durations and the slowest rank
 * (queries/ranks.sql); for databases holding several ranks (import several files, or merge). */
#include "cli.h"
#include "report_options.h"

static const char ranks_usage[] = "tracedb ranks job.db [--sort step|straggle_ns] [--limit N] [--format table|csv|json]";

static const char *const ranks_sort_keys[] = {"step", "step", "straggle_ns", "straggle_ns", NULL};

int cmd_ranks(int argc, char **argv, struct cli *cli)
{
    return cli_simple_report(argc, argv, cli, ranks_usage, "step", ranks_sort_keys, "ranks",
                               "no ProfilerStep#N steps of several ranks: import or merge one trace per rank (tracedb merge)", 1);
}

/* cmd_memops.c: `tracedb memops run.db`: memcpy and memset by operation with time, bytes and
 * bandwidth (nsys cuda_gpu_mem_time_sum + cuda_gpu_mem_size_sum; queries/memops.sql); with --bandwidth,
 * HTA's memory bandwidth counters per rank and memory type (queries/memops_bandwidth.sql, its series
 * with --timeline: memops_bandwidth_timeline.sql). */
#include "cli.h"
#include "report_options.h"
#include "shards.h"
#include <string.h>

static const char memops_usage[] =
    "tracedb memops run.db [--sort total_ns|count|total_bytes|name] [--limit N]\n"
    "                      [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]\n"
    "       tracedb memops run.db --bandwidth [--timeline] [--drop-last-step] [--hta-rounding] [--limit N]\n"
    "                      [--from T] [--to T] [--range NAME] [--format table|csv|json]";

static const char *const memops_sort_keys[] = {
    "total_ns", "total_ns", "count", "count", "total_bytes", "total_bytes", "name", "name", NULL,
};

static const char *const bandwidth_sort_keys[] = {"operation", "operation", NULL};

static const char memops_hint[] = "no memcpy or memset in this trace (a CPU-only trace has none)";

int cmd_memops(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "total_ns");
    int bandwidth = 0, timeline = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"bandwidth", 0, OPT_FLAG, &bandwidth, "HTA's memory bandwidth counters: the concurrent GB/s per rank and memory type"},
        {"timeline", 0, OPT_FLAG, &timeline, "with --bandwidth: the series, every time the bandwidth changes"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, memops_sort_keys}, {"--bandwidth", bandwidth_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, memops_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, memops_usage, cli->io.err);
        return 2;
    }
    if (timeline && !bandwidth) {
        fprintf(cli->io.err, "%s: --timeline goes with --bandwidth\n", cli->io.prog);
        return 2;
    }
    if (sc.hta_rounding && !bandwidth) {
        fprintf(cli->io.err, "%s: --hta-rounding goes with --bandwidth\n", cli->io.prog);
        return 2;
    }
    if (!bandwidth) {
        const char *sort = cli_report_sort(&sc, memops_sort_keys, cli);
        if (!sort)
            return 2;
        sc.shards_ok = SHARDS_GPU, sc.shards_last_step = 1; /* GPU work only */
        return cli_run_report(argv[0], &sc, sort, "memops", NULL, memops_hint, cli);
    }
    if (sc.sort && strcmp(sc.sort, "total_ns") == 0)
        sc.sort = "operation"; /* the default of the other table */
    const char *sort = cli_report_sort(&sc, bandwidth_sort_keys, cli);
    if (!sort)
        return 2;
    sc.by_rank = 1; /* per rank, always (HTA's) */
    return cli_run_report(argv[0], &sc, sort, timeline ? "memops_bandwidth_timeline" : "memops_bandwidth", NULL, memops_hint,
                          cli); /* (work without a bandwidth counts 0 GB/s: no rows means no memory work) */
}

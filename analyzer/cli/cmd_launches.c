/* cmd_launches.c: `tracedb launches run.db`: per GPU kernel name, its launch calls' and its own durations
 * and the launch delay, with HTA's outlier counts (get_cuda_kernel_launch_stats; analyzer/report/launch_sweep.c
 * and queries/launches.sql, queries/launches_each.sql for --each). */
#include "cli.h"
#include "launch_sweep.h"
#include "report_options.h"

static const char launches_usage[] =
    "tracedb launches run.db [--short-below T] [--delay-above T] [--each] [--drop-last-step] [--hta-rounding]\n"
    "                        [--sort delay_avg_ns|launches|delay_max_ns|name] [--limit N] [--from T] [--to T]\n"
    "                        [--range NAME] [--format table|csv|json]";

static const char *const launches_sort_keys[] = {"delay_avg_ns", "delay_avg_ns", "launches", "launches",
                                                 "delay_max_ns", "delay_max_ns", "name", "name", NULL};

int cmd_launches(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "delay_avg_ns");
    const char *short_text = "50us", *delay_text = "100us";
    int each = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"short-below", 0, OPT_STRING, &short_text, "a launch call this short or shorter can be a short kernel's (50us)"},
        {"delay-above", 0, OPT_STRING, &delay_text, "a launch delay over this is an outlier (100us)"},
        {"each", 0, OPT_FLAG, &each, "every launch: call start, call, GPU and delay time"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, launches_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, launches_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, launches_usage, cli->io.err);
        return 2;
    }
    int64_t short_ns, delay_ns;
    if (scope_parse_duration(short_text, &short_ns) != 0 || scope_parse_duration(delay_text, &delay_ns) != 0) {
        fprintf(cli->io.err, "%s: --short-below and --delay-above want durations such as 50us\n", cli->io.prog);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, launches_sort_keys, cli);
    if (!sort)
        return 2;
    sc.shards_ok = 3; /* GPU rows and their launch calls: a shard directory holds them (no window) */
    sc.shards_last_step = 1;
    const struct scope_param params[] = {{":short_below", NULL, short_ns}, {":delay_above", NULL, delay_ns}, {NULL, NULL, 0}};
    const char *hint = "no kernel launches in this trace (cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, "
                       "cudaMemsetAsync, or MTIA's runFunction - job_prep_and_submit_for_execution, linked to GPU work)";
    if (each)
        return cli_run_report(argv[0], &sc, sort, "launches_each", params, hint, cli);
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io); /* the sums: one C pass, then launches.sql prints them */
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered && !sc.drop_last_step ? "nothing in this window" : hint);
    int rc = launch_sweep(db, short_ns, delay_ns, 0, &cli->io);
    if (rc == 0)
        rc = scope_run(db, "launches", &sc, sort, params, &cli->io);
    sqlite3_close(db);
    return rc;
}

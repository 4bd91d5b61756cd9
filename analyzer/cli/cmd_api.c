/* cmd_api.c: `tracedb api run.db`: runtime and driver API calls per name, nsys cuda_api_sum style
 * (a C pass, kernel_sweep.c's, then queries/api_summed.sql). */
#include "cli.h"
#include "kernel_sweep.h"
#include "report_options.h"

static const char api_usage[] = "tracedb api run.db [--sort total_ns|calls|avg_ns|max_ns|name] [--limit N]\n"
                                "                   [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]";

static const char *const api_sort_keys[] = {
    "total_ns", "total_ns", "calls", "calls", "avg_ns", "avg_ns", "max_ns", "max_ns", "name", "name", NULL,
};

int cmd_api(int argc, char **argv, struct cli *cli)
{
    return cli_swept_report(argc, argv, cli, api_usage, "total_ns", api_sort_keys, "api_summed", api_sweep,
                            "no CUDA runtime or driver calls in this trace (a CPU-only trace has none)", 3);
}

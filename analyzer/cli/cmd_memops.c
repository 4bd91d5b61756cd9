/* cmd_memops.c: `tracedb memops run.db`: memcpy and memset by operation with time, bytes and
 * bandwidth (nsys cuda_gpu_mem_time_sum + cuda_gpu_mem_size_sum; queries/memops.sql). */
#include "cli.h"
#include "report_options.h"

static const char memops_usage[] = "tracedb memops run.db [--sort total_ns|count|total_bytes|name] [--limit N]\n"
                                   "                      [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]";

static const char *const memops_sort_keys[] = {
    "total_ns", "total_ns", "count", "count", "total_bytes", "total_bytes", "name", "name", NULL,
};

int cmd_memops(int argc, char **argv, struct cli *cli)
{
    return cli_simple_report(argc, argv, cli, memops_usage, "total_ns", memops_sort_keys, "memops",
                               "no memcpy or memset in this trace (a CPU-only trace has none)", 2);
}

/* cmd_memops.c: `tracedb memops run.db`: memcpy and memset by operation with time, bytes and
 * bandwidth (nsys cuda_gpu_mem_time_sum + cuda_gpu_mem_size_sum; queries/memops.sql). */
#include "cli.h"
#include "scope.h"

static const char memops_usage[] = "tracedb memops run.db [--sort total_ns|count|total_bytes|name] [--limit N]\n"
                                   "                      [--from T] [--to T] [--range NAME] [--by-rank] [--format table|csv|json]";

static const char *const memops_sort_keys[] = {
    "total_ns", "total_ns", "count", "count", "total_bytes", "total_bytes", "name", "name", NULL,
};

int cmd_memops(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "total_ns");
    const struct opt opts[] = {SCOPE_OPTIONS(sc), OPT_END};
    int n = cli_parse_options(argc, argv, opts, memops_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, memops_usage, cli->err);
        return 2;
    }
    const char *sort = scope_sort_column(&sc, memops_sort_keys, cli);
    if (!sort)
        return 2;
    sqlite3 *db = scope_open(argv[0], &sc, cli);
    if (!db)
        return 1;
    int rc = scope_run(db, "memops", &sc, sort, NULL, cli);
    sqlite3_close(db);
    return rc;
}

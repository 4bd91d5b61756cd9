/* cmd_idle.c: `tracedb idle run.db`: per rank, device and stream, GPU idle time by cause (host wait,
 * kernel wait, other), HTA's get_idle_time_breakdown (analyzer/report/idle_sweep.c, queries/idle.sql). */
#include "cli.h"
#include "idle_sweep.h"
#include "report_options.h"

static const char idle_usage[] =
    "tracedb idle run.db [--kernel-wait-below T] [--negative-gaps] [--drop-last-step] [--sort stream|idle_ns]\n"
    "                    [--hta-rounding] [--from T] [--to T]\n"
    "                    [--range NAME] [--format table|csv|json]";

static const char *const idle_sort_keys[] = {"stream", "stream", "idle_ns", "idle_ns", NULL};

int cmd_idle(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "stream");
    const char *below = "30us";
    int negative = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"kernel-wait-below", 0, OPT_STRING, &below, "a shorter gap between kernels is kernel wait (default 30us, HTA's)"},
        {"negative-gaps", 0, OPT_FLAG, &negative, "sum the negative gaps of kernels overlapping on a stream, as HTA does"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, idle_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, idle_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, idle_usage, cli->io.err);
        return 2;
    }
    int64_t wait_ns;
    if (scope_parse_duration(below, &wait_ns) != 0) {
        fprintf(cli->io.err, "%s: --kernel-wait-below wants a duration such as 30us, not '%s'\n", cli->io.prog, below);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, idle_sort_keys, cli);
    if (!sort)
        return 2;
    sc.by_rank = 1; /* per rank, always */
    sc.shards_ok = 3; /* GPU rows and their launch calls: a shard directory holds them (no window) */
    sc.shards_last_step = 1;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io); /* the sums: one C pass, then idle.sql prints them */
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered && !sc.drop_last_step ? "nothing in this window"
                                                        : "no GPU kernels in this trace (a CPU-only trace has none)");
    int rc = idle_sweep(db, wait_ns, negative, &cli->io);
    if (rc == 0)
        rc = scope_run(db, "idle", &sc, sort, NULL, &cli->io);
    sqlite3_close(db);
    return rc;
}

/* cmd_idle.c: `tracedb idle run.db`: per rank, device and stream, GPU idle time by cause (host wait,
 * kernel wait, other), HTA's get_idle_time_breakdown (queries/idle.sql). */
#include "cli.h"
#include "report_options.h"

static const char idle_usage[] =
    "tracedb idle run.db [--kernel-wait-below T] [--negative-gaps] [--drop-last-step] [--sort stream|idle_ns]\n"
    "                    [--from T] [--to T]\n"
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
        {"kernel-wait-below", 0, OPT_STRING, &below, "a shorter gap between kernels is kernel wait (default 30us, HTA's)"},
        {"negative-gaps", 0, OPT_FLAG, &negative, "sum the negative gaps of kernels overlapping on a stream, as HTA does"},
        OPT_END,
    };
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
    const struct scope_param params[] = {{":kernel_wait_ns", NULL, wait_ns}, {":negative_gaps", NULL, negative}, {NULL, NULL, 0}};
    return cli_run_report(argv[0], &sc, sort, "idle", params, "no GPU kernels in this trace (a CPU-only trace has none)", cli);
}

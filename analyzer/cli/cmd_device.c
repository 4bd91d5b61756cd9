/* cmd_device.c: `tracedb device run.db`: per device, whole trace and per step: busy, run
 * (computation), IO-wait and idle time, with overlaps across streams merged
 * (analyzer/report/device_sweep.c, queries/device.sql); with --executions, each execution of a device
 * program (Furiosa's NPU executions: queries/device_executions.sql). */
#include "cli.h"
#include "device_sweep.h"
#include "report_options.h"
#include <string.h>

static const char device_usage[] =
    "tracedb device run.db [--steps NAME|GLOB] [--limit N] [--from T] [--to T] [--range NAME]\n"
    "                      [--drop-last-step] [--hta-rounding] [--format table|csv|json]\n"
    "       tracedb device run.db --executions [--sort start|total|run|io_wait] [--limit N] [--from T] [--to T]\n"
    "                      [--range NAME] [--format table|csv|json]";

static const char *const device_sort_keys[] = {"time", "time", NULL};
static const char *const execution_sort_keys[] = {"start", "start_ns", "total", "total_ns", "run", "run_ns",
                                                  "io_wait", "io_wait_ns", NULL};

int cmd_device(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "time");
    const char *steps = "ProfilerStep#*";
    int executions = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"steps", 0, OPT_STRING, &steps, "the ranges that make a row each (default 'ProfilerStep#*')"},
        {"executions", 0, OPT_FLAG, &executions,
         "each execution (Furiosa's NPU executions): its total, run (its operators) and IO-wait time"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, device_sort_keys}, {"--executions", execution_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, device_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, device_usage, cli->io.err);
        return 2;
    }
    if (executions && sc.sort[0] == 't' && strcmp(sc.sort, "time") == 0)
        sc.sort = "start"; /* executions in time order unless asked otherwise */
    const char *sort = scope_sort_column(&sc, executions ? execution_sort_keys : device_sort_keys, &cli->io);
    if (!sort)
        return 2;
    if (executions) {
        sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
        if (!db)
            return 1;
        scope_tables(&sc, "no device executions in this trace: only Furiosa's NPU traces have them (spans of "
                          "category NPU with a pe_index and no instruction_index)");
        const struct scope_param none[] = {{NULL, NULL, 0}};
        int rc = scope_run(db, "device_executions", &sc, sort, none, &cli->io);
        sqlite3_close(db);
        return rc;
    }
    sc.shards_ok = 2; /* the GPU rows and the steps: a shard directory's reduce database holds them */
    sc.shards_last_step = 1;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered ? "no device work in this window"
                                  : "no device work in this trace: no GPU kernels, copies or sets, no NPU spans (a "
                                    "CPU-only trace has none)");
    int rc = device_sweep(db, steps, &cli->io);
    if (rc == 0) {
        const struct scope_param none[] = {{NULL, NULL, 0}};
        rc = scope_run(db, "device", &sc, sort, none, &cli->io);
    }
    sqlite3_close(db);
    return rc;
}

/* cmd_memory.c: `tracedb memory run.db`: memory high-water marks, leaks and fragmentation per device
 * (analyzer/report/memory_sweep.c, queries/memory.sql); --by-op bytes per operator (queries/memory_ops.sql); --timeline the series
 * for plotting (queries/memory_timeline.sql). */
#include "cli.h"
#include "report.h"
#include "memory_sweep.h"
#include "ops_sweep.h"
#include "report_options.h"

static const char memory_usage[] = "tracedb memory run.db [--by-op | --timeline] [--limit N] [--from T] [--to T]\n"
                                   "                      [--range NAME] [--format table|csv|json]";

static const char *const memory_sort_keys[] = {"device", "device", NULL};

int cmd_memory(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "device");
    int by_op = 0, timeline = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        {"by-op", 0, OPT_FLAG, &by_op, "bytes per operator: allocated and freed directly inside it, and PyTorch's (as ops)"},
        {"timeline", 0, OPT_FLAG, &timeline, "allocated and reserved bytes at every memory event"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, memory_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, memory_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, memory_usage, cli->io.err);
        return 2;
    }
    if (by_op && timeline) {
        fprintf(cli->io.err, "%s: --by-op and --timeline do not go together\n", cli->io.prog);
        return 2;
    }
    const char *sort = scope_sort_column(&sc, memory_sort_keys, &cli->io);
    if (!sort)
        return 2;
    sc.shards_ok = by_op || timeline ? 0 : 4; /* the peaks: [memory] events, which a shard directory can hold */
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered               ? "no [memory] events in this window"
                      : report_is_legacy_export(db) ? "no [memory] events: " REPORT_LEGACY_EXPORT
                                                    : "no [memory] events in this trace: profile with "
                                                      "torch.profiler.profile(profile_memory=True)");
    /* the high-water marks: a C pass, then memory.sql; --by-op: PyTorch's memory per operator, from ops' pass */
    struct ops_sweep_options so = {.windowed = sc.filtered, .as_stored = !sc.filtered && !sc.hta_rounding};
    int rc = timeline ? 0 : by_op ? ops_sweep(db, &so, &cli->io) : memory_sweep(db, &cli->io);
    if (rc == 0)
        rc = scope_run(db, by_op ? "memory_ops" : timeline ? "memory_timeline" : "memory", &sc, sort, NULL, &cli->io);
    sqlite3_stmt *st;
    if (rc == 0 && !by_op && !timeline &&
        sqlite3_prepare_v2(db, "SELECT sum(unpaired) FROM temp.memory_agg", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
            fprintf(cli->io.err, "%s: %lld allocations carry no address (the trace's [memory] events have no Addr), "
                                 "so no free pairs with them: leaked bytes are allocated minus freed, or empty where "
                                 "that is below zero\n", cli->io.prog, (long long)sqlite3_column_int64(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return rc;
}

/* cmd_queue.c: `tracedb queue run.db`: per rank, device and stream, the launch queue's length (HTA's
 * queue length analysis: analyzer/report/queue_sweep.c and queries/queue.sql; queries/queue_timeline.sql
 * for --timeline). */
#include "cli.h"
#include "queue_sweep.h"
#include "report_options.h"

static const char queue_usage[] = "tracedb queue run.db [--timeline] [--blocked-at N] [--drop-last-step] [--hta-rounding] [--limit N]\n"
                                  "                     [--from T] [--to T] [--range NAME] [--format table|csv|json]";

static const char *const queue_sort_keys[] = {"stream", "stream", NULL};

int cmd_queue(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "stream");
    int timeline = 0;
    int64_t blocked_at = 1024;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        HTA_ROUNDING_OPTION(sc),
        {"timeline", 0, OPT_FLAG, &timeline, "the series: every change of every stream's queue length"},
        {"blocked-at", 0, OPT_INT, &blocked_at, "a queue this long or longer blocks the launching thread (1024)"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, queue_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, queue_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, queue_usage, cli->io.err);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, queue_sort_keys, cli);
    if (!sort)
        return 2;
    sc.by_rank = 1; /* per rank, always */
    sc.shards_ok = 3; /* GPU rows and their launch calls: a shard directory holds them (no window) */
    sc.shards_last_step = 1;
    const char *hint = "no kernel launches in this trace (launch calls linked to GPU work)";
    if (timeline)
        return cli_run_report(argv[0], &sc, sort, "queue_timeline", NULL, hint, cli);
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io); /* the sums: one C pass, then queue.sql prints them */
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered && !sc.drop_last_step ? "nothing in this window" : hint);
    int rc = queue_sweep(db, blocked_at, &cli->io);
    if (rc == 0)
        rc = scope_run(db, "queue", &sc, sort, NULL, &cli->io);
    sqlite3_close(db);
    return rc;
}

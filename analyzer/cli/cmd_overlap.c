/* cmd_overlap.c: `tracedb overlap run.db`: per rank and device, communication, computation and the time
 * they overlap (HTA's get_comm_comp_overlap; analyzer/report/type_sweep.c, queries/overlap.sql). */
#include "cli.h"
#include "report_options.h"
#include "type_sweep.h"

static const char overlap_usage[] = "tracedb overlap run.db [--drop-last-step] [--hta-rounding] [--from T] [--to T] [--range NAME]\n"
                                    "                       [--format table|csv|json]";

static const char *const overlap_sort_keys[] = {"rank", "rank", NULL};

int cmd_overlap(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "rank");
    const struct opt opts[] = {SCOPE_OPTIONS(sc), HTA_ROUNDING_OPTION(sc), OPT_END};
    const struct cli_sort_keys keys[] = {{NULL, overlap_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, overlap_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, overlap_usage, cli->io.err);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, overlap_sort_keys, cli);
    if (!sort)
        return 2;
    sc.by_rank = 1; /* per rank, always */
    sc.shards_ok = 3; /* GPU rows and their launch calls: a shard directory holds them (no window) */
    sc.shards_last_step = 1;
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io); /* the unions: one C pass, then overlap.sql prints them */
    if (!db)
        return 1;
    scope_tables(&sc, sc.filtered && !sc.drop_last_step ? "nothing in this window"
                                                        : "no GPU work in this trace (a CPU-only trace has none)");
    int rc = type_sweep(db, 1, &cli->io);
    if (rc == 0)
        rc = scope_run(db, "overlap", &sc, sort, NULL, &cli->io);
    sqlite3_close(db);
    return rc;
}

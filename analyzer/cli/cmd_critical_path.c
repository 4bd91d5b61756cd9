/* cmd_critical_path.c: `tracedb critical-path run.db`: per rank, the critical path through host
 * operators, launches, GPU work and syncs, HTA's critical_path_analysis (analyzer/report/cp_graph.c,
 * critical_path.c; queries/critical_path.sql, critical_path_each.sql for --each). */
#include "cli.h"
#include "critical_path.h"
#include "render.h"
#include "report_options.h"

static const char critical_path_usage[] =
    "tracedb critical-path run.db [--range NAME[#k|#a-b]] [--each] [--drop-last-step] [--hta-rounding]\n"
    "                             [--hta-launch-edges] [--from T] [--to T] [--limit N] [--format table|csv|json]";

static const char *const critical_path_sort_keys[] = {"rank", "rank", NULL};

int cmd_critical_path(int argc, char **argv, struct cli *cli)
{
    struct scope sc;
    scope_init(&sc, "rank");
    int each = 0, round_us = 0, hta_launches = 0;
    const struct opt opts[] = {
        SCOPE_OPTIONS(sc),
        {"each", 0, OPT_FLAG, &each, "list the path's edges in order, each with its bound and event"},
        {"hta-rounding", 0, OPT_FLAG, &round_us, "round times to whole microseconds as HTA does (start up, end down)"},
        {"hta-launch-edges", 0, OPT_FLAG, &hta_launches,
         "link GPU work to its launch only where HTA's default does (its stream idle at the launch); without it "
         "all of it is linked, at zero weight where it waited behind other work"},
        OPT_END,
    };
    const struct cli_sort_keys keys[] = {{NULL, critical_path_sort_keys}, {NULL, NULL}};
    cli->sort_keys = keys; /* for --help */
    int n = cli_parse_options(argc, argv, opts, critical_path_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, critical_path_usage, cli->io.err);
        return 2;
    }
    const char *sort = cli_report_sort(&sc, critical_path_sort_keys, cli);
    if (!sort)
        return 2;
    /* --each prints the first --limit edges in (rank, seq) order: no path needs more of its edges kept */
    struct cp_window w = {sc.range, -1, -1, sc.from != NULL, sc.to != NULL, 0, 0, sc.drop_last_step, each, round_us,
                          hta_launches, sc.limit};
    if ((sc.from && scope_parse_duration(sc.from, &w.from) != 0) || (sc.to && scope_parse_duration(sc.to, &w.to) != 0)) {
        fprintf(cli->io.err, "%s: --from and --to want a duration such as 250us or 1.5ms\n", cli->io.prog);
        return 2;
    }
    /* the window is HTA's (one span per rank, GPU work by its launch): the pass makes it, not the scope */
    sc.range = sc.from = sc.to = NULL, sc.drop_last_step = 0;
    sc.by_rank = 1; /* per rank, always */
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_tables(&sc, "no host operators or GPU work in this window");
    int rc = critical_path(db, argv[0], &w, &cli->io);
    if (rc == 0)
        rc = scope_run(db, each ? "critical_path_each" : "critical_path", &sc, sort, NULL, &cli->io);
    sqlite3_stmt *st;
    if (rc == 0 && !each && sc.format == FMT_TABLE &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.critical_path_sums", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) /* under the table: what it says */
            render_wrapped(cli->io.out,
                           "(the path's length sums its edges' weights, from its start to its end (start_ns, end_ns: "
                           "after the trace's start) within the window's events; blocking calls, syncs and the launches "
                           "of work that waited behind other work weigh nothing, so it can be shorter than end - start "
                           "(and longer where kernels on one stream overlap: a negative gap counts 0), and the path need "
                           "not start or end where the window does)",
                           render_width(cli->io.out), 1);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return rc;
}

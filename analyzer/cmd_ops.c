/* cmd_ops.c: `tracedb ops run.db`: per-operator table with PyTorch key_averages() semantics. */
#include "cli.h"
#include "render.h"
#include "report.h"
#include <string.h>

static const char ops_usage[] = "tracedb ops run.db [--limit N] [--sort KEY] [--format table|csv|json]";

/* Sort keys: ours and PyTorch's names for them. Nothing else reaches the query. */
static const struct {
    const char *key, *column;
} ops_sort_keys[] = {
    {"self_cpu_ns", "self_cpu_ns"},  {"self_cpu_time_total", "self_cpu_ns"},
    {"cpu_total_ns", "cpu_total_ns"}, {"cpu_time_total", "cpu_total_ns"},
    {"calls", "calls"},              {"count", "calls"},
    {"name", "name"},
};

int cmd_ops(int argc, char **argv, struct cli *cli)
{
    int64_t limit = -1;
    const char *sort = "self_cpu_ns";
    enum render_format fmt = FMT_TABLE;
    const struct opt opts[] = {
        {"limit", 'n', OPT_INT, &limit, "show the first N rows"},
        {"sort", 's', OPT_STRING, &sort, "self_cpu_ns (default), cpu_total_ns, calls, name; or PyTorch's names"},
        {"format", 0, OPT_FORMAT, &fmt, "output format (default table)"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, ops_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, ops_usage, cli->err);
        return 2;
    }
    const char *column = NULL;
    for (size_t i = 0; i < sizeof ops_sort_keys / sizeof ops_sort_keys[0]; i++)
        if (strcmp(sort, ops_sort_keys[i].key) == 0)
            column = ops_sort_keys[i].column;
    if (!column) {
        fprintf(cli->err, "%s: unknown --sort key '%s'\n", cli->prog, sort);
        return 2;
    }
    sqlite3 *db = report_open(argv[0], 0, cli);
    if (!db)
        return 1;
    sqlite3_stmt *st = report_prepare(db, "ops", cli);
    int rc = 1;
    if (st) {
        report_bind_text(st, ":sort", column);
        report_bind_int(st, ":limit", limit < 0 ? -1 : limit);
        rc = render_query(st, fmt, cli->out, cli->err) < 0;
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return rc;
}

/* cmd_summary.c: `tracedb summary run.db`: one screen on where the time and memory went:
 * the trace, event kinds, devices, top operators by self time, top kernels, step latency, memory peak.
 * Each section is a query in queries/; empty sections are left out. */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "scope.h"
#include <stdlib.h>
#include <string.h>

static const char summary_usage[] = "tracedb summary run.db [--limit N] [--format table|csv|json]";

static const struct {
    const char *query, *key, *title;
} summary_sections[] = {
    {"summary_trace", "trace", "Trace"},
    {"summary_kinds", "kinds", "Events by kind"},
    {"summary_devices", "devices", "Devices"},
    {"summary_ops", "ops", "Top operators by self CPU time (PyTorch key_averages semantics; all columns: tracedb ops)"},
    {"summary_kernels", "kernels", "Top kernels by total device time"},
    {"summary_latency", "latency", "Step latency"},
    {"summary_device", "device", "Device time: busy = run (computation) + IO-wait (memory, communication)"},
    {"summary_memory", "memory", "Memory high-water marks (all of it: tracedb memory)"},
    {"summary_hta", "gpu_efficiency", "GPU efficiency, HTA's way (tracedb overlap, idle, launches)"},
};

int cmd_summary(int argc, char **argv, struct cli *cli)
{
    int64_t limit = 10;
    enum render_format fmt = FMT_TABLE;
    const struct opt opts[] = {
        {"limit", 'n', OPT_INT, &limit, "rows in the top-N sections (default 10)"},
        {"format", 0, OPT_FORMAT, &fmt, "output format (default table)"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, summary_usage, cli);
    if (n != 1) {
        if (n >= 0)
            cli_usage(opts, summary_usage, cli->io.err);
        return 2;
    }
    struct scope sc;
    scope_init(&sc, "");
    sqlite3 *db = scope_open(argv[0], &sc, &cli->io);
    if (!db)
        return 1;
    scope_hide_absent(db, &sc);
    scope_tables(&sc, NULL);

    int rc = 0, printed = 0;
    if (fmt == FMT_JSON)
        fputs("{", cli->io.out);
    for (size_t i = 0; i < sizeof summary_sections / sizeof summary_sections[0] && rc == 0; i++) {
        sqlite3_stmt *st = report_prepare(db, summary_sections[i].query, &cli->io);
        if (!st) {
            rc = 1;
            break;
        }
        report_bind_text(st, ":sort", "self_cpu_ns");
        report_bind_int(st, ":limit", (int64_t)limit);
        report_bind_int(st, ":by_rank", 0);
        report_bind_int(st, ":kernel_wait_ns", 30000); /* HTA's defaults */
        report_bind_int(st, ":negative_gaps", 0);
        /* rendered to memory first: a section with no rows is left out, and each query runs once */
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        int skip_rank = strcmp(sqlite3_column_name(st, 0), "rank") == 0;
        int64_t rows = mem ? render_query_from(st, fmt, skip_rank, mem, cli->io.err) : -1;
        if (mem)
            fclose(mem);
        sqlite3_finalize(st);
        if (rows < 0)
            rc = 1;
        if (rows > 0) {
            if (fmt == FMT_JSON)
                fprintf(cli->io.out, "%s\n\"%s\": ", printed ? "," : "", summary_sections[i].key);
            else if (fmt == FMT_CSV)
                fprintf(cli->io.out, "%s# %s\r\n", printed ? "\r\n" : "", summary_sections[i].key);
            else
                fprintf(cli->io.out, "%s%s\n", printed ? "\n" : "", summary_sections[i].title);
            fwrite(text, 1, len, cli->io.out);
            printed++;
        }
        free(text);
    }
    if (fmt == FMT_JSON)
        fputs("}\n", cli->io.out);
    sqlite3_close(db);
    return rc;
}

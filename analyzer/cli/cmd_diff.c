/* cmd_diff.c: `tracedb diff base.db new.db`: what changed between two runs (queries/diff*.sql over the
 * base database with the new one attached), and a regression gate for CI (--fail-above). */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "diff_gate.h"
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
    "tracedb diff base.db new.db [--kinds op,range,runtime,driver,kernel,memcpy,memset] [--by-shape] [--tolerance PCT]\n"
    "                            [--limit N] [--wide]\n"
    "                            [--section ops|steps|device|memory] [--format table|csv|json]\n"
    "                            [--fail-above PCT [--metric step_median|step_p99|kernel_total|device_busy|memory_peak]\n"
    "                             [--alpha P] [--on-inconclusive fail|pass]]";

static const struct {
    const char *name, *query, *title;
    const char *keep; /* the change: a table fitted to the terminal leaves it out last */
} diff_sections[] = {
    {"ops", "diff", "Operators and GPU work, by absolute change (ops: self CPU time; GPU: device time)", "delta_ns"},
    {"steps", "diff_steps", "Step latency", "delta_median_ns"},
    {"device", "diff_device", "Device time", "delta_busy_ns"},
    {"memory", "diff_memory", "Memory peaks", NULL},
};


static int diff_section(sqlite3 *db, int i, enum render_format fmt, int64_t limit, double tolerance, const char *kinds,
                        int titled, int wide, struct cli *cli)
{
    sqlite3_stmt *st = report_prepare(db, diff_sections[i].query, &cli->io);
    if (!st)
        return 1;
    report_bind_int(st, ":limit", limit);
    report_bind_text(st, ":kinds", kinds);
    int t = sqlite3_bind_parameter_index(st, ":tolerance");
    if (t > 0)
        sqlite3_bind_double(st, t, tolerance);
    if (titled) {
        fputs(i ? "\n" : "", cli->io.out);
        render_wrapped(cli->io.out, diff_sections[i].title, render_width(cli->io.out), 2);
    }
    static const char *const empty[] = {"no operators or GPU work of these kinds in either run",
                                        "no ProfilerStep#N steps in either run", "no GPU work in either run",
                                        "no [memory] events in either run"};
    struct render_options o = {.report = 1, .empty_hint = empty[i], .wide = wide, .wide_only = 1, .keep = diff_sections[i].keep,
                               .max_rows = i == 0 && limit < 0 ? 20 : 0}; /* the ops table: 20 rows */
    int rc = render_query_from(st, fmt, 1, &o, cli->io.out, cli->io.err) < 0;
    sqlite3_finalize(st);
    return rc;
}

int cmd_diff(int argc, char **argv, struct cli *cli)
{
    enum render_format fmt = FMT_TABLE;
    int64_t limit = -1;
    const char *kinds = "", *section = NULL, *metric = "step_median", *tol_text = "1", *fail_text = NULL;
    const char *alpha_text = "0.05", *inconclusive = "fail";
    int by_shape = 0, wide = 0;
    const struct opt opts[] = {
        {"format", 0, OPT_FORMAT, &fmt, "table (default; every section), csv or json (one section)"},
        {"limit", 'n', OPT_INT, &limit, "rows of the operator/kernel table (table: 20 unless given; csv/json: all)"},
        {"kinds", 'k', OPT_STRING, &kinds, "only these: op, range, runtime, driver, kernel, memcpy, memset (a,b)"},
        {"tolerance", 0, OPT_STRING, &tol_text, "a change within PCT % is 'unchanged' (default 1)"},
        {"section", 0, OPT_STRING, &section, "ops (default for csv/json), steps, device or memory"},
        {"by-shape", 0, OPT_FLAG, &by_shape, "match operators by name and input shapes (Input Dims)"},
        {"wide", 'w', OPT_FLAG, &wide, "tables: every column and every name whole, however wide the terminal"},
        {"fail-above", 0, OPT_STRING, &fail_text, "exit 3 when --metric regresses by more than PCT %"},
        {"metric", 0, OPT_STRING, &metric, "step_median (default), step_p99, kernel_total, device_busy, memory_peak"},
        {"alpha", 0, OPT_STRING, &alpha_text, "step metrics: a change is real when the Mann-Whitney U p < P (0.05)"},
        {"on-inconclusive", 0, OPT_STRING, &inconclusive,
         "fail (default) or pass: the verdict when the steps cannot decide (too few, or p >= alpha)"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, diff_usage, cli);
    if (n != 2) {
        if (n >= 0)
            cli_usage(opts, diff_usage, cli->io.err);
        return 2;
    }
    char *end;
    double tolerance = strtod(tol_text, &end);
    if (*end || tolerance < 0) {
        fprintf(cli->io.err, "%s: --tolerance wants a percentage, not '%s'\n", cli->io.prog, tol_text);
        return 2;
    }
    double threshold, alpha;
    if (diff_gate_options(fail_text, alpha_text, metric, &threshold, &alpha, &cli->io) != 0)
        return 2;
    if (strcmp(inconclusive, "fail") != 0 && strcmp(inconclusive, "pass") != 0) {
        fprintf(cli->io.err, "%s: --on-inconclusive is fail or pass, not '%s'\n", cli->io.prog, inconclusive);
        return 2;
    }
    int only = -1;
    for (int i = 0; section && i < 4; i++)
        if (strcmp(section, diff_sections[i].name) == 0)
            only = i;
    if (section && only < 0) {
        fprintf(cli->io.err, "%s: unknown --section '%s' (ops, steps, device, memory)\n", cli->io.prog, section);
        return 2;
    }
    if (fmt != FMT_TABLE && only < 0)
        only = 0;
    sqlite3 *db = diff_open(argv[0], argv[1], by_shape, &cli->io);
    if (!db)
        return 1;
    char gpus[1024];
    int differ = diff_gpus_differ(db, gpus, sizeof gpus, &cli->io);
    if (differ < 0) {
        sqlite3_close(db);
        return 1;
    }
    if (differ) { /* said first, in every format: on the table's top, and beside csv or json */
        fprintf(cli->io.err, "%s: warning: %s\n", cli->io.prog, gpus); /* one line, as every message */
        if (fmt == FMT_TABLE) {
            char line[1100];
            snprintf(line, sizeof line, "Warning: %s", gpus);
            render_wrapped(cli->io.out, line, render_width(cli->io.out), 2);
            fputc('\n', cli->io.out);
        }
    }
    int rc = 0;
    for (int i = 0; i < 4 && rc == 0; i++)
        if (only < 0 || only == i)
            rc = diff_section(db, i, fmt, i == 0 ? limit : -1, tolerance, kinds, only < 0, wide, cli);
    if (rc == 0 && fail_text) {
        char line[512];
        rc = diff_gate(db, metric, threshold, alpha, strcmp(inconclusive, "fail") == 0, line, sizeof line, &cli->io);
        fprintf(cli->io.err, "tracedb diff: %s\n", line);
    }
    sqlite3_close(db);
    return rc;
}

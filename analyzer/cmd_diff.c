/* cmd_diff.c: `tracedb diff base.db new.db`: what changed between two runs (queries/diff*.sql over the
 * base database with the new one attached), and a regression gate for CI (--fail-above). */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "../recorder/db_guard.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
    "tracedb diff base.db new.db [--kinds op,kernel,memcpy,memset] [--by-shape] [--tolerance PCT] [--limit N]\n"
    "                            [--section ops|steps|device|memory] [--format table|csv|json]\n"
    "                            [--fail-above PCT [--metric step_median|step_p99|kernel_total|device_busy|memory_peak]]";

static const struct {
    const char *name, *query, *title;
} diff_sections[] = {
    {"ops", "diff", "Operators and GPU work, by absolute change (ops: self CPU time; GPU: device time)"},
    {"steps", "diff_steps", "Step latency"},
    {"device", "diff_device", "Device time"},
    {"memory", "diff_memory", "Memory peaks"},
};

static const char *const diff_metrics[] = {"step_median", "step_p99", "kernel_total", "device_busy", "memory_peak", NULL};

static int diff_section(sqlite3 *db, int i, enum render_format fmt, int64_t limit, double tolerance, const char *kinds,
                        int by_shape, int titled, struct cli *cli)
{
    sqlite3_stmt *st = report_prepare(db, diff_sections[i].query, cli);
    if (!st)
        return 1;
    report_bind_int(st, ":limit", limit);
    report_bind_int(st, ":by_shape", by_shape);
    report_bind_text(st, ":kinds", kinds);
    int t = sqlite3_bind_parameter_index(st, ":tolerance");
    if (t > 0)
        sqlite3_bind_double(st, t, tolerance);
    if (titled)
        fprintf(cli->out, "%s%s\n", i ? "\n" : "", diff_sections[i].title);
    int rc = render_query_from(st, fmt, 1, cli->out, cli->err) < 0;
    sqlite3_finalize(st);
    return rc;
}

/* The gate: 0 pass, 3 regression, 1 error. Prints one verdict line on stderr. */
static int diff_gate(sqlite3 *db, const char *metric, double threshold, struct cli *cli)
{
    sqlite3_stmt *st = report_prepare(db, "diff_metric", cli);
    if (!st)
        return 1;
    report_bind_text(st, ":metric", metric);
    double v[2] = {NAN, NAN}, iqr[2] = {0, 0};
    int64_t steps[2] = {0, 0};
    for (int i = 0; i < 2 && sqlite3_step(st) == SQLITE_ROW; i++) { /* rows: base, new */
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            v[i] = sqlite3_column_double(st, 1);
        steps[i] = sqlite3_column_int64(st, 2);
        iqr[i] = sqlite3_column_double(st, 3);
    }
    sqlite3_finalize(st);
    if (isnan(v[0]) || isnan(v[1]) || v[0] == 0) {
        fprintf(cli->err, "tracedb diff: FAIL: %s is not in both runs (base %g, new %g); cannot compare\n", metric, v[0], v[1]);
        return 3;
    }
    double pct = 100.0 * (v[1] - v[0]) / v[0];
    int step_metric = strncmp(metric, "step_", 5) == 0;
    int noisy = step_metric && steps[0] >= 3 && steps[1] >= 3 && fabs(v[1] - v[0]) <= fmax(iqr[0], iqr[1]);
    int fail = pct > threshold && !noisy;
    char spread[160] = "";
    if (step_metric && steps[0] >= 3 && steps[1] >= 3)
        snprintf(spread, sizeof spread, "; the change is %s the run-to-run spread (IQR %.0f / %.0f ns)",
                 noisy ? "within" : "beyond", iqr[0], iqr[1]);
    fprintf(cli->err, "tracedb diff: %s: %s %.0f -> %.0f (%+.2f%%, limit +%.2f%%)%s\n", fail ? "FAIL" : "PASS", metric,
            v[0], v[1], pct, threshold, spread);
    return fail ? 3 : 0;
}

int cmd_diff(int argc, char **argv, struct cli *cli)
{
    enum render_format fmt = FMT_TABLE;
    int64_t limit = -1;
    const char *kinds = "", *section = NULL, *metric = "step_median", *tol_text = "1", *fail_text = NULL;
    int by_shape = 0;
    const struct opt opts[] = {
        {"format", 0, OPT_FORMAT, &fmt, "table (default; every section), csv or json (one section)"},
        {"limit", 'n', OPT_INT, &limit, "rows of the operator/kernel table"},
        {"kinds", 'k', OPT_STRING, &kinds, "only these: op, kernel, memcpy, memset (comma-separated)"},
        {"tolerance", 0, OPT_STRING, &tol_text, "a change within PCT % is 'unchanged' (default 1)"},
        {"section", 0, OPT_STRING, &section, "ops (default for csv/json), steps, device or memory"},
        {"by-shape", 0, OPT_FLAG, &by_shape, "match operators by name and input shapes (Input Dims)"},
        {"fail-above", 0, OPT_STRING, &fail_text, "exit 3 when --metric regresses by more than PCT %"},
        {"metric", 0, OPT_STRING, &metric, "step_median (default), step_p99, kernel_total, device_busy, memory_peak"},
        OPT_END,
    };
    int n = cli_parse_options(argc, argv, opts, diff_usage, cli);
    if (n != 2) {
        if (n >= 0)
            cli_usage(opts, diff_usage, cli->err);
        return 2;
    }
    char *end;
    double tolerance = strtod(tol_text, &end);
    if (*end || tolerance < 0) {
        fprintf(cli->err, "%s: --tolerance wants a percentage, not '%s'\n", cli->prog, tol_text);
        return 2;
    }
    double threshold = 0;
    if (fail_text && ((threshold = strtod(fail_text, &end)), *end)) {
        fprintf(cli->err, "%s: --fail-above wants a percentage, not '%s'\n", cli->prog, fail_text);
        return 2;
    }
    int known = 0;
    for (int i = 0; diff_metrics[i]; i++)
        known |= strcmp(metric, diff_metrics[i]) == 0;
    if (!known) {
        fprintf(cli->err, "%s: unknown --metric '%s' (step_median, step_p99, kernel_total, device_busy, memory_peak)\n",
                cli->prog, metric);
        return 2;
    }
    int only = -1;
    for (int i = 0; section && i < 4; i++)
        if (strcmp(section, diff_sections[i].name) == 0)
            only = i;
    if (section && only < 0) {
        fprintf(cli->err, "%s: unknown --section '%s' (ops, steps, device, memory)\n", cli->prog, section);
        return 2;
    }
    if (fmt != FMT_TABLE && only < 0)
        only = 0;
    sqlite3 *db = report_open(argv[0], 0, cli);
    if (!db)
        return 1;
    sqlite3 *check = report_open(argv[1], 0, cli); /* the same checks on the new run */
    sqlite3_close(check);
    sqlite3_stmt *st = NULL;
    int rc = 1;
    if (check && sqlite3_prepare_v2(db, "ATTACH ?1 AS new", -1, &st, NULL) == SQLITE_OK) {
        char literal[4096];
        sqlite3_bind_text(st, 1, tdb_db_literal_path(argv[1], literal, sizeof literal), -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : 1;
        if (rc)
            fprintf(cli->err, "%s: cannot attach %s: %s\n", cli->prog, argv[1], sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    for (int i = 0; i < 4 && rc == 0; i++)
        if (only < 0 || only == i)
            rc = diff_section(db, i, fmt, i == 0 ? limit : -1, tolerance, kinds, by_shape, only < 0, cli);
    if (rc == 0 && fail_text)
        rc = diff_gate(db, metric, threshold, cli);
    sqlite3_close(db);
    return rc;
}

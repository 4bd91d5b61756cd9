/* cmd_diff.c: `tracedb diff base.db new.db`: what changed between two runs (queries/diff*.sql over the
 * base database with the new one attached), and a regression gate for CI (--fail-above). */
#include "cli.h"
#include "render.h"
#include "report.h"
#include "mann_whitney.h"
#include "db_guard.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char diff_usage[] =
    "tracedb diff base.db new.db [--kinds op,range,runtime,driver,kernel,memcpy,memset] [--by-shape] [--tolerance PCT]\n"
    "                            [--limit N]\n"
    "                            [--section ops|steps|device|memory] [--format table|csv|json]\n"
    "                            [--fail-above PCT [--metric step_median|step_p99|kernel_total|device_busy|memory_peak]\n"
    "                             [--alpha P] [--on-inconclusive fail|pass]]";

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
    sqlite3_stmt *st = report_prepare(db, diff_sections[i].query, &cli->io);
    if (!st)
        return 1;
    report_bind_int(st, ":limit", limit);
    report_bind_int(st, ":by_shape", by_shape);
    report_bind_text(st, ":kinds", kinds);
    int t = sqlite3_bind_parameter_index(st, ":tolerance");
    if (t > 0)
        sqlite3_bind_double(st, t, tolerance);
    if (titled)
        fprintf(cli->io.out, "%s%s\n", i ? "\n" : "", diff_sections[i].title);
    static const char *const empty[] = {"no operators or GPU work of these kinds in either run",
                                        "no ProfilerStep#N steps in either run", "no GPU work in either run",
                                        "no [memory] events in either run"};
    struct render_options o = {.report = 1, .empty_hint = empty[i],
                               .max_rows = i == 0 && limit < 0 ? 20 : 0}; /* the ops table: 20 rows */
    render_configure(&o);
    int rc = render_query_from(st, fmt, 1, cli->io.out, cli->io.err) < 0;
    sqlite3_finalize(st);
    return rc;
}

/* The steps of each run (x: base, y: new), for the test. -1 on error. */
static int gate_samples(sqlite3 *db, double **x, size_t *nx, double **y, size_t *ny, struct cli *cli)
{
    sqlite3_stmt *st = report_prepare(db, "diff_step_samples", &cli->io);
    if (!st)
        return -1;
    size_t cap[2] = {0, 0}, n[2] = {0, 0};
    double *v[2] = {NULL, NULL};
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int k = strcmp((const char *)sqlite3_column_text(st, 0), "new") == 0;
        if (n[k] == cap[k]) {
            cap[k] = cap[k] ? cap[k] * 2 : 64;
            double *nv = realloc(v[k], cap[k] * sizeof *nv);
            if (!nv) {
                rc = -1;
                break;
            }
            v[k] = nv;
        }
        v[k][n[k]++] = sqlite3_column_double(st, 1);
    }
    sqlite3_finalize(st);
    *x = v[0], *nx = n[0], *y = v[1], *ny = n[1];
    return rc;
}

/* The gate: 0 pass, 3 regression (or a change the samples cannot decide, with --on-inconclusive fail),
 * 1 error. Prints one verdict line on stderr: the metric, both values, the change, and for the step
 * metrics the Mann-Whitney U test on the step times (p, steps on each side) and the decision. */
static int diff_gate(sqlite3 *db, const char *metric, double threshold, double alpha, int inconclusive_fails,
                     struct cli *cli)
{
    sqlite3_stmt *st = report_prepare(db, "diff_metric", &cli->io);
    if (!st)
        return 1;
    report_bind_text(st, ":metric", metric);
    double v[2] = {NAN, NAN};
    for (int i = 0; i < 2 && sqlite3_step(st) == SQLITE_ROW; i++) /* rows: base, new */
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            v[i] = sqlite3_column_double(st, 1);
    sqlite3_finalize(st);
    if (isnan(v[0]) || isnan(v[1]) || v[0] == 0) {
        fprintf(cli->io.err, "tracedb diff: FAIL: %s is not in both runs (base %g, new %g); cannot compare\n", metric, v[0], v[1]);
        return 3;
    }
    double pct = 100.0 * (v[1] - v[0]) / v[0];
    char a[32], b[32];
    render_time(a, sizeof a, (int64_t)llround(v[0]));
    render_time(b, sizeof b, (int64_t)llround(v[1]));
    if (strcmp(metric, "memory_peak") == 0)
        snprintf(a, sizeof a, "%.0f b", v[0]), snprintf(b, sizeof b, "%.0f b", v[1]);
    if (strncmp(metric, "step_", 5) != 0) { /* one total per run: no samples to test */
        int fail = pct > threshold;
        fprintf(cli->io.err, "tracedb diff: %s: %s %s -> %s (%+.2f%%, limit +%.2f%%): %s\n", fail ? "FAIL" : "PASS", metric,
                a, b, pct, threshold, fail ? "over the limit" : "within the limit");
        return fail ? 3 : 0;
    }
    double *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    struct tdb_mwu t = {0, 1, 0};
    if (gate_samples(db, &x, &nx, &y, &ny, cli) != 0 || tdb_mann_whitney(x, nx, y, ny, &t) != 0) {
        free(x), free(y);
        fprintf(cli->io.err, "tracedb diff: cannot read the step times\n");
        return 1;
    }
    free(x), free(y);
    double min_p = tdb_mann_whitney_min_p(nx, ny);
    char test[160];
    snprintf(test, sizeof test, "Mann-Whitney U p = %.4g (%zu / %zu steps, %s)", t.p, nx, ny,
             t.exact ? "exact" : "normal approximation");
    const char *verdict;
    char why[200];
    int rc;
    if (pct <= threshold) {
        verdict = "PASS", rc = 0;
        snprintf(why, sizeof why, "the change is within the limit");
    } else if (min_p >= alpha) {
        verdict = inconclusive_fails ? "INCONCLUSIVE, counted as FAIL" : "INCONCLUSIVE, counted as PASS";
        rc = inconclusive_fails ? 3 : 0;
        snprintf(why, sizeof why, "too few steps to decide: %zu and %zu steps can give no p below %.3g (alpha %.3g)",
                 nx, ny, min_p, alpha);
    } else if (t.p < alpha) {
        verdict = "FAIL", rc = 3;
        snprintf(why, sizeof why, "p < alpha %.3g: the steps did get slower", alpha);
    } else {
        verdict = inconclusive_fails ? "INCONCLUSIVE, counted as FAIL" : "INCONCLUSIVE, counted as PASS";
        rc = inconclusive_fails ? 3 : 0;
        snprintf(why, sizeof why, "p >= alpha %.3g: the steps cannot tell this change from noise", alpha);
    }
    fprintf(cli->io.err, "tracedb diff: %s: %s %s -> %s (%+.2f%%, limit +%.2f%%); %s: %s\n", verdict, metric, a, b, pct,
            threshold, test, why);
    return rc;
}

int cmd_diff(int argc, char **argv, struct cli *cli)
{
    enum render_format fmt = FMT_TABLE;
    int64_t limit = -1;
    const char *kinds = "", *section = NULL, *metric = "step_median", *tol_text = "1", *fail_text = NULL;
    const char *alpha_text = "0.05", *inconclusive = "fail";
    int by_shape = 0;
    const struct opt opts[] = {
        {"format", 0, OPT_FORMAT, &fmt, "table (default; every section), csv or json (one section)"},
        {"limit", 'n', OPT_INT, &limit, "rows of the operator/kernel table (table: 20 unless given; csv/json: all)"},
        {"kinds", 'k', OPT_STRING, &kinds, "only these: op, range, runtime, driver, kernel, memcpy, memset (a,b)"},
        {"tolerance", 0, OPT_STRING, &tol_text, "a change within PCT % is 'unchanged' (default 1)"},
        {"section", 0, OPT_STRING, &section, "ops (default for csv/json), steps, device or memory"},
        {"by-shape", 0, OPT_FLAG, &by_shape, "match operators by name and input shapes (Input Dims)"},
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
    double threshold = 0;
    if (fail_text && ((threshold = strtod(fail_text, &end)), *end)) {
        fprintf(cli->io.err, "%s: --fail-above wants a percentage, not '%s'\n", cli->io.prog, fail_text);
        return 2;
    }
    double alpha = strtod(alpha_text, &end);
    if (*end || !(alpha > 0 && alpha < 1)) {
        fprintf(cli->io.err, "%s: --alpha wants a probability between 0 and 1, not '%s'\n", cli->io.prog, alpha_text);
        return 2;
    }
    if (strcmp(inconclusive, "fail") != 0 && strcmp(inconclusive, "pass") != 0) {
        fprintf(cli->io.err, "%s: --on-inconclusive is fail or pass, not '%s'\n", cli->io.prog, inconclusive);
        return 2;
    }
    int known = 0;
    for (int i = 0; diff_metrics[i]; i++)
        known |= strcmp(metric, diff_metrics[i]) == 0;
    if (!known) {
        fprintf(cli->io.err, "%s: unknown --metric '%s' (step_median, step_p99, kernel_total, device_busy, memory_peak)\n",
                cli->io.prog, metric);
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
    sqlite3 *db = report_open(argv[0], 0, &cli->io);
    if (!db)
        return 1;
    sqlite3 *check = report_open(argv[1], 0, &cli->io); /* the same checks on the new run */
    sqlite3_close(check);
    sqlite3_stmt *st = NULL;
    int rc = 1;
    if (check && sqlite3_prepare_v2(db, "ATTACH ?1 AS new", -1, &st, NULL) == SQLITE_OK) {
        char literal[4096];
        sqlite3_bind_text(st, 1, tdb_db_literal_path(argv[1], literal, sizeof literal), -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : 1;
        if (rc)
            fprintf(cli->io.err, "%s: cannot attach %s: %s\n", cli->io.prog, argv[1], sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    for (int i = 0; i < 4 && rc == 0; i++)
        if (only < 0 || only == i)
            rc = diff_section(db, i, fmt, i == 0 ? limit : -1, tolerance, kinds, by_shape, only < 0, cli);
    if (rc == 0 && fail_text)
        rc = diff_gate(db, metric, threshold, alpha, strcmp(inconclusive, "fail") == 0, cli);
    sqlite3_close(db);
    return rc;
}

/* diff_gate.c: what `tracedb diff` and the HTML report's baseline view share: the base database with the
 * new one attached (queries/diff*.sql read both), each run's memory peaks as `tracedb memory` gives them
 * and its operators and GPU work as `tracedb ops` gives them (each command's own pass, run on that run's
 * database), and the regression gate's verdict (the metric's change, and for step metrics the Mann-Whitney U
 * test on the step times). */
#include "diff_gate.h"
#include "db_guard.h"
#include "mann_whitney.h"
#include "memory_sweep.h"
#include "ops_sweep.h"
#include "render.h"
#include "scope.h"
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The column of st named name, or -1. */
static int column_named(sqlite3_stmt *st, const char *name)
{
    for (int i = 0; i < sqlite3_column_count(st); i++)
        if (strcmp(sqlite3_column_name(st, i), name) == 0)
            return i;
    return -1;
}

/* One run's database and its two passes: `tracedb memory`'s (memory_sweep.c, queries/memory.sql: per trace
 * and device, the allocator's totals or else the running sum) and `tracedb ops`'s (ops_sweep.c with its device
 * rows, per shape with by_shape; queries/diff_ops_rows.sql names each row's kind). The two runs' passes run at
 * once, each on its own connection (a thread for the base); their rows are then copied into the diff's
 * database in turn. */
struct diff_side {
    const char *run, *path;
    int by_shape;
    int as_stored;              /* its scope is every row as stored (ops_sweep_options) */
    struct report_io *io;
    sqlite3 *src;
    sqlite3_stmt *memory, *ops; /* the rows to copy, prepared on src by side_passes */
    int rc;                     /* side_passes': 0, or -1 (printed) */
};

/* The passes of one side (a pthread start routine): side->rc 0 with side->memory and side->ops prepared, or
 * -1 (printed). */
static void *side_passes(void *arg)
{
    struct diff_side *side = arg;
    struct ops_sweep_options o = {.by_shape = side->by_shape, .sort = "name", .device_rows = 1, .no_memory = 1,
                                  .as_stored = side->as_stored};
    side->rc = -1;
    if (memory_sweep(side->src, side->io) != 0 || !(side->memory = report_prepare(side->src, "memory", side->io)))
        return NULL;
    if (ops_sweep(side->src, &o, side->io) != 0 || !(side->ops = report_prepare(side->src, "diff_ops_rows", side->io)))
        return NULL;
    side->rc = 0;
    return NULL;
}

/* One side's rows into db's temp.diff_memory_peaks and temp.diff_ops. 0, or -1 (printed). */
static int side_copy(sqlite3 *db, struct diff_side *side)
{
    sqlite3_stmt *rows = side->memory;
    sqlite3 *failed = db;
    report_bind_int(rows, ":limit", -1);
    int col[4] = {column_named(rows, "rank"), column_named(rows, "device"), column_named(rows, "peak_allocated_bytes"),
                  column_named(rows, "peak_reserved_bytes")};
    int rc = col[0] < 0 || col[1] < 0 || col[2] < 0 || col[3] < 0
                 ? -1
                 : report_copy_rows(rows, db, "INSERT INTO temp.diff_memory_peaks VALUES (?1, ?2, ?3, ?4, ?5)", side->run,
                                    col, 4, &failed);
    if (rc) {
        fprintf(side->io->err, "%s: the memory peaks of %s: %s\n", side->io->prog, side->path, sqlite3_errmsg(failed));
        return -1;
    }
    /* kind, name, shapes, calls, total */
    if (report_copy_rows(side->ops, db, "INSERT INTO temp.diff_ops VALUES (?1, ?2, ?3, ?4, ?5, ?6)", side->run, NULL, 5,
                         &failed) != 0) {
        fprintf(side->io->err, "%s: the operators of %s: %s\n", side->io->prog, side->path, sqlite3_errmsg(failed));
        return -1;
    }
    return 0;
}

/* Both runs' rows of the memory and ops sections into db, each from its database opened as `tracedb memory`
 * and `tracedb ops` open it (scope_open, no window). 0, or -1 (printed). */
static int diff_runs(sqlite3 *db, const char *base, const char *new_path, int by_shape, struct report_io *io)
{
    struct diff_side side[2] = {{.run = "base", .path = base, .by_shape = by_shape, .io = io},
                                {.run = "new", .path = new_path, .by_shape = by_shape, .io = io}};
    for (int i = 0; i < 2; i++) {
        struct scope sc;
        scope_init(&sc, "device");
        sc.quiet = 1;
        side[i].rc = (side[i].src = scope_open(side[i].path, &sc, io)) ? 0 : -1;
        side[i].as_stored = !sc.filtered && !sc.hta_rounding;
    }
    if (side[0].rc == 0 && side[1].rc == 0) {
        pthread_t base_thread;
        int threaded = pthread_create(&base_thread, NULL, side_passes, &side[0]) == 0;
        if (!threaded)
            side_passes(&side[0]);
        side_passes(&side[1]);
        if (threaded)
            pthread_join(base_thread, NULL);
    }
    for (int i = 0; i < 2; i++) /* (the passes said what failed, at once on both sides: say whose) */
        if (side[i].src && side[i].rc != 0)
            fprintf(io->err, "%s: %s (the %s run): its memory peaks and operators could not be read\n", io->prog,
                    side[i].path, i == 0 ? "base" : "new");
    int rc = side[0].rc == 0 && side[1].rc == 0 && side_copy(db, &side[0]) == 0 && side_copy(db, &side[1]) == 0 ? 0 : -1;
    for (int i = 0; i < 2; i++) {
        sqlite3_finalize(side[i].memory);
        sqlite3_finalize(side[i].ops);
        sqlite3_close(side[i].src);
    }
    return rc;
}

sqlite3 *diff_open(const char *base, const char *new_path, int by_shape, struct report_io *io)
{
    sqlite3 *db = report_open(base, 0, io);
    if (!db)
        return NULL;
    char cached[4200]; /* the new run given as traces: their database (report.c), attached */
    new_path = report_db_path(new_path, cached, sizeof cached, 0, io);
    sqlite3 *check = new_path ? report_open(new_path, 0, io) : NULL; /* the same checks on the new run */
    sqlite3_close(check);
    sqlite3_stmt *st = NULL;
    int rc = 1;
    if (check && sqlite3_prepare_v2(db, "ATTACH ?1 AS new", -1, &st, NULL) == SQLITE_OK) {
        char literal[4096], uri[12400]; /* read-only, immutable where WAL and closed: nothing made beside it */
        const char *name = tdb_db_readonly_uri(new_path, uri, sizeof uri);
        sqlite3_bind_text(st, 1, name ? name : tdb_db_literal_path(new_path, literal, sizeof literal), -1, SQLITE_TRANSIENT);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : 1;
        if (rc)
            fprintf(io->err, "%s: cannot attach %s: %s\n", io->prog, new_path, sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_exec(db, "CREATE TEMP TABLE diff_memory_peaks (run TEXT, rank, device TEXT, "
                                    "peak_allocated_bytes, peak_reserved_bytes); "
                                    "CREATE TEMP TABLE diff_ops (run TEXT, kind TEXT, name TEXT, shapes TEXT, "
                                    "calls INTEGER, total INTEGER); "
                                    "CREATE INDEX temp.diff_ops_key ON diff_ops (run, kind, name)",
                                NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = 1;
    }
    if (rc || diff_runs(db, base, new_path, by_shape, io) != 0) {
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

int diff_gate_options(const char *fail_text, const char *alpha_text, const char *metric, double *threshold, double *alpha,
                      struct report_io *io)
{
    static const char *const metrics[] = {"step_median", "step_p99", "kernel_total", "device_busy", "memory_peak", NULL};
    char *end;
    *threshold = 0;
    if (fail_text && ((*threshold = strtod(fail_text, &end)), *end)) {
        fprintf(io->err, "%s: --fail-above wants a percentage, not '%s'\n", io->prog, fail_text);
        return -1;
    }
    *alpha = strtod(alpha_text, &end);
    if (*end || !(*alpha > 0 && *alpha < 1)) {
        fprintf(io->err, "%s: --alpha wants a probability between 0 and 1, not '%s'\n", io->prog, alpha_text);
        return -1;
    }
    int known = 0;
    for (int i = 0; metrics[i]; i++)
        known |= strcmp(metric, metrics[i]) == 0;
    if (!known) {
        fprintf(io->err, "%s: unknown --metric '%s' (step_median, step_p99, kernel_total, device_busy, memory_peak)\n",
                io->prog, metric);
        return -1;
    }
    return 0;
}

/* The steps of each run (x: base, y: new), for the test. -1 on error. */
static int gate_samples(sqlite3 *db, double **x, size_t *nx, double **y, size_t *ny, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "diff_step_samples", io);
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

int diff_gate(sqlite3 *db, const char *metric, double threshold, double alpha, int inconclusive_fails, char *line,
              size_t n, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "diff_metric", io);
    if (!st)
        return 1;
    report_bind_text(st, ":metric", metric);
    double v[2] = {NAN, NAN};
    for (int i = 0; i < 2 && sqlite3_step(st) == SQLITE_ROW; i++) /* rows: base, new */
        if (sqlite3_column_type(st, 1) != SQLITE_NULL)
            v[i] = sqlite3_column_double(st, 1);
    sqlite3_finalize(st);
    if (isnan(v[0]) || isnan(v[1]) || v[0] == 0) { /* said in words: no "nan" */
        const char *needs = strncmp(metric, "step_", 5) == 0          ? "no ProfilerStep#N steps"
                            : strcmp(metric, "memory_peak") == 0 ? "no [memory] events"
                                                                  : "no GPU work";
        if (isnan(v[0]) || isnan(v[1]))
            snprintf(line, n, "FAIL: %s is not in %s (%s); cannot compare", metric,
                     isnan(v[0]) && isnan(v[1]) ? "either run" : isnan(v[0]) ? "the base run" : "the new run", needs);
        else
            snprintf(line, n, "FAIL: %s is 0 in the base run, so no change can be measured from it; cannot compare",
                     metric);
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
        snprintf(line, n, "%s: %s %s -> %s (%+.2f%%, limit %+.2f%%): %s", fail ? "FAIL" : "PASS", metric, a, b, pct,
                 threshold, fail ? "over the limit" : "within the limit");
        return fail ? 3 : 0;
    }
    double *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    struct tdb_mwu t = {0, 1, 0};
    if (gate_samples(db, &x, &nx, &y, &ny, io) != 0 || tdb_mann_whitney(x, nx, y, ny, &t) != 0) {
        free(x), free(y);
        snprintf(line, n, "cannot read the step times");
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
    snprintf(line, n, "%s: %s %s -> %s (%+.2f%%, limit %+.2f%%); %s: %s", verdict, metric, a, b, pct, threshold, test,
             why);
    return rc;
}


int diff_gpus_differ(sqlite3 *db, char *line, size_t n, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "diff_gpus", io);
    if (!st)
        return -1;
    int rc = -1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char *base = (const char *)sqlite3_column_text(st, 0), *fresh = (const char *)sqlite3_column_text(st, 1);
        base = base ? base : "", fresh = fresh ? fresh : "";
        rc = sqlite3_column_int(st, 2) != 0;
        if (rc)
            snprintf(line, n,
                     "the runs used different GPUs: base ran on %s, new on %s; device times and kernels are compared "
                     "across different hardware (devices paired by position, kernels by name)",
                     *base ? base : "no GPU", *fresh ? fresh : "no GPU");
    } else
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

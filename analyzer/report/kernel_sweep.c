/* kernel_sweep.c: nsys-style GPU work statistics per rank, name and kind (and launch configuration) in
 * one pass over the work as it comes (queries/kernel_rows.sql, kernel_launch_rows.sql; table order), and
 * the same statistics of the runtime and driver calls for `tracedb api` (queries/api_rows.sql),
 * grouped in a hash map, where SQL sorted every row to group it (a third of `tracedb kernels` on a 2
 * M-event trace). Each group keeps its durations once for the median and the standard deviation. The figures are the SQL aggregates' own: the average is the
 * sum over the count (avg() of integers), the median interpolates as percentile() does, the standard
 * deviation is Welford's over the durations in table order, as stddev() (sqlfuncs.c) gets them. */
#include "kernel_sweep.h"
#include "report.h"
#include "scope.h"
#include "sqlfuncs.h"
#include "step_index.h"
#include "sweep_group.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct kernel_group {
    int rank_null, launch;
    int64_t rank, name_id, kind, total, min, max, example;
    struct sweep_values dur; /* in table order until written */
};

/* steps: by step, where g->rank is an index into them; else NULL */
static int write_group(struct kernel_group *g, const struct step_index *steps, sqlite3_stmt *ins)
{
    const int64_t *v = g->dur.v;
    size_t n = g->dur.n;
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) { /* stddev()'s Welford, in the same order */
        double d = (double)v[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * ((double)v[i] - mean);
    }
    tdb_sort_i64(g->dur.v, n);
    if (g->rank_null)
        sqlite3_bind_null(ins, 1);
    else if (steps)
        sqlite3_bind_value(ins, 1, steps->v[g->rank].name);
    else
        sqlite3_bind_int64(ins, 1, g->rank);
    sqlite3_bind_int64(ins, 2, g->name_id);
    sqlite3_bind_int64(ins, 3, g->kind);
    sqlite3_bind_int(ins, 4, g->launch); /* whether grouped by a launch configuration */
    sqlite3_bind_int64(ins, 5, g->example);
    sqlite3_bind_int64(ins, 6, (int64_t)n);
    sqlite3_bind_int64(ins, 7, g->total);
    sqlite3_bind_double(ins, 8, (double)g->total / (double)n);
    sqlite3_bind_double(ins, 9, tdb_percentile_i64(v, n, 50));
    sqlite3_bind_int64(ins, 10, g->min);
    sqlite3_bind_int64(ins, 11, g->max);
    if (n < 2)
        sqlite3_bind_null(ins, 12);
    else
        sqlite3_bind_double(ins, 12, sqrt(m2 / (double)(n - 1)));
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

/* The pass over queries/<query>.sql's rows (rank, name id, kind, duration, id[, by_step's instant or
 * by_launch's columns]); kinds (NULL: none) bind :kernel, :memcpy, :memset. As kernel_sweep returns. */
static int sweep_rows(sqlite3 *db, const char *query, int by_rank, int by_launch, int by_step, const int64_t *kinds,
                      struct report_io *io)
{
    sqlite3_stmt *ins, *st;
    struct step_index steps = {0};
    if (by_step && step_index_load(&steps, db) != 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        step_index_free(&steps);
        return 1;
    }
    if (sweep_table(db, "kernel_stats (rank, name_id, kind, launch, example, instances, total_ns, avg_ns, med_ns, "
                        "min_ns, max_ns, stddev_ns)", 12, &ins, io) != 0 ||
        !(st = report_prepare(db, query, io))) {
        sqlite3_finalize(ins);
        step_index_free(&steps);
        return 1;
    }
    report_bind_int(st, ":by_rank", by_rank);
    report_bind_int(st, ":by_step", by_step);
    int step_col = by_launch ? 14 : 5; /* with by_step: the instant that picks the step */
    if (kinds) {
        report_bind_int(st, ":kernel", kinds[0]);
        report_bind_int(st, ":memcpy", kinds[1]);
        report_bind_int(st, ":memset", kinds[2]);
    }
    struct sweep_index groups; /* (rank is NULL, rank, name id, kind[, launch configuration]) -> struct kernel_group */
    sweep_index_init(&groups, sizeof(struct kernel_group));
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int tr = sqlite3_column_type(st, 0);
        long in_step = by_step ? step_index_at(&steps, sqlite3_column_int64(st, step_col)) : -1;
        if (in_step >= 0)
            in_step = steps.v[in_step].first; /* grouped by the step's name, as kernels.sql does */
        if (by_step) /* the rank is the step: its index here, its name written */
            tr = in_step < 0 ? SQLITE_NULL : SQLITE_INTEGER;
        if ((tr != SQLITE_NULL && tr != SQLITE_INTEGER) || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER) {
            rc = 2;
            break;
        }
        /* kernels.sql groups by printf('%d ...') of the eight launch values: NULL reads as 0 there */
        int64_t key[13] = {tr == SQLITE_NULL, tr == SQLITE_NULL ? 0 : by_step ? in_step : sqlite3_column_int64(st, 0),
                           sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), by_launch && sqlite3_column_int(st, 5)};
        for (int c = 0; c < 8 && key[4]; c++) {
            int t = sqlite3_column_type(st, 6 + c);
            if (t != SQLITE_NULL && t != SQLITE_INTEGER) {
                rc = 2;
                break;
            }
            key[5 + c] = sqlite3_column_int64(st, 6 + c);
        }
        if (rc != 0)
            break;
        int fresh;
        struct kernel_group *x = sweep_index_get(&groups, key, (size_t)(by_launch ? 13 : 4) * sizeof key[0], &fresh);
        if (!x) {
            rc = -1;
            break;
        }
        if (fresh)
            *x = (struct kernel_group){(int)key[0], (int)key[4], key[1], key[2], key[3], 0, INT64_MAX, INT64_MIN, INT64_MAX, {0}};
        int64_t dur = sqlite3_column_int64(st, 3), id = sqlite3_column_int64(st, 4);
        if (sweep_values_add(&x->dur, dur) != 0) {
            rc = -1;
            break;
        }
        x->total += dur;
        if (dur < x->min)
            x->min = dur;
        if (dur > x->max)
            x->max = dur;
        if (id < x->example)
            x->example = id;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < groups.n; k++)
        if (write_group(sweep_index_at(&groups, k), by_step ? &steps : NULL, ins) != 0)
            rc = -1;
    if (rc < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    for (size_t k = 0; k < groups.n; k++)
        free(((struct kernel_group *)sweep_index_at(&groups, k))->dur.v);
    sweep_index_free(&groups);
    step_index_free(&steps);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

int kernel_sweep(sqlite3 *db, int by_rank, int by_launch, int by_step, const int64_t kinds[3], struct report_io *io)
{
    return sweep_rows(db, by_launch ? "kernel_launch_rows" : "kernel_rows", by_rank, by_launch, by_step, kinds, io);
}

int api_sweep(sqlite3 *db, const struct scope *sc, struct report_io *io)
{
    return sweep_rows(db, "api_rows", sc->by_rank, 0, 0, NULL, io);
}

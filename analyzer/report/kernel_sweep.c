/* kernel_sweep.c: nsys-style GPU work statistics per rank, name and kind in one pass over the work as it
 * comes (queries/kernel_rows.sql, table order), grouped in a hash map, where SQL sorted every row to
 * group it (a third of `tracedb kernels` on a 2 M-event trace). Each group keeps its durations once for
 * the median and the standard deviation. The figures are the SQL aggregates' own: the average is the
 * sum over the count (avg() of integers), the median interpolates as percentile() does, the standard
 * deviation is Welford's over the durations in table order, as stddev() (sqlfuncs.c) gets them. */
#include "kernel_sweep.h"
#include "report.h"
#include "sqlfuncs.h"
#include "strmap.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kernel_group {
    int rank_null;
    int64_t rank, name_id, kind, n, total, min, max, example;
    int64_t *dur; /* in table order until written */
    size_t cap;
};

static int write_group(struct kernel_group *g, sqlite3_stmt *ins)
{
    double mean = 0, m2 = 0;
    for (int64_t i = 0; i < g->n; i++) { /* stddev()'s Welford, in the same order */
        double d = (double)g->dur[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * ((double)g->dur[i] - mean);
    }
    tdb_sort_i64(g->dur, (size_t)g->n);
    if (g->rank_null)
        sqlite3_bind_null(ins, 1);
    else
        sqlite3_bind_int64(ins, 1, g->rank);
    sqlite3_bind_int64(ins, 2, g->name_id);
    sqlite3_bind_int64(ins, 3, g->kind);
    sqlite3_bind_int(ins, 4, 0); /* no launch configuration: not grouped by it */
    sqlite3_bind_int64(ins, 5, g->example);
    sqlite3_bind_int64(ins, 6, g->n);
    sqlite3_bind_int64(ins, 7, g->total);
    sqlite3_bind_double(ins, 8, (double)g->total / (double)g->n);
    sqlite3_bind_double(ins, 9, tdb_percentile_i64(g->dur, (size_t)g->n, 50));
    sqlite3_bind_int64(ins, 10, g->min);
    sqlite3_bind_int64(ins, 11, g->max);
    if (g->n < 2)
        sqlite3_bind_null(ins, 12);
    else
        sqlite3_bind_double(ins, 12, sqrt(m2 / (double)(g->n - 1)));
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int kernel_sweep(sqlite3 *db, int by_rank, const int64_t kinds[3], struct report_io *io)
{
    if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS kernel_stats (rank, name_id, kind, launch, example, instances, "
                         "total_ns, avg_ns, med_ns, min_ns, max_ns, stddev_ns); DELETE FROM temp.kernel_stats",
                     NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_stmt *st = report_prepare(db, "kernel_rows", io), *ins = NULL;
    if (!st)
        return 1;
    report_bind_int(st, ":by_rank", by_rank);
    report_bind_int(st, ":kernel", kinds[0]);
    report_bind_int(st, ":memcpy", kinds[1]);
    report_bind_int(st, ":memset", kinds[2]);
    if (sqlite3_prepare_v2(db, "INSERT INTO temp.kernel_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, &ins, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return 1;
    }
    struct strmap index; /* (rank is NULL, rank, name id, kind) -> group */
    strmap_init(&index);
    struct kernel_group *g = NULL;
    size_t n = 0, cap = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int tr = sqlite3_column_type(st, 0);
        if ((tr != SQLITE_NULL && tr != SQLITE_INTEGER) || sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
            sqlite3_column_type(st, 2) != SQLITE_INTEGER || sqlite3_column_type(st, 3) != SQLITE_INTEGER) {
            rc = 2;
            break;
        }
        int64_t key[4] = {tr == SQLITE_NULL, tr == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0),
                          sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2)};
        int64_t k = strmap_get(&index, key, sizeof key);
        if (k < 0) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                struct kernel_group *ng = realloc(g, nc * sizeof *ng);
                if (!ng) {
                    rc = -1;
                    break;
                }
                g = ng, cap = nc;
            }
            k = (int64_t)n;
            g[n++] = (struct kernel_group){(int)key[0], key[1], key[2], key[3], 0, 0, INT64_MAX, INT64_MIN, INT64_MAX, NULL, 0};
            if (strmap_put(&index, key, sizeof key, k) != 0) {
                rc = -1;
                break;
            }
        }
        struct kernel_group *x = &g[k];
        int64_t dur = sqlite3_column_int64(st, 3), id = sqlite3_column_int64(st, 4);
        if ((size_t)x->n == x->cap) {
            size_t nc = x->cap ? x->cap * 2 : 64;
            int64_t *nd = realloc(x->dur, nc * sizeof *nd);
            if (!nd) {
                rc = -1;
                break;
            }
            x->dur = nd, x->cap = nc;
        }
        x->dur[x->n++] = dur;
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
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (write_group(&g[k], ins) != 0)
            rc = -1;
    if (rc < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    for (size_t k = 0; k < n; k++)
        free(g[k].dur);
    free(g);
    strmap_free(&index);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

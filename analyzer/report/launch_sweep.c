/* launch_sweep.c: HTA's kernel launch statistics per rank and kernel name in one pass over the launches
 * as they come (queries/launch_rows.sql), grouped in a hash map: counts, sums and the outlier counts,
 * and each name's launch delays for the median and the 99th percentile. SQL grouped them by sorting
 * every launch and collected the delays twice (median, percentile): a third of the report's time on a
 * 2 M-event trace. The averages are the sums over the counts, as SQL's avg() of integers gives them;
 * the percentiles interpolate as sqlfuncs.c's percentile() does. queries/launches.sql prints the rows. */
#include "launch_sweep.h"
#include "report.h"
#include "sqlfuncs.h"
#include "strmap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct launch_group {
    int rank_null;
    int64_t rank, name_id;
    int64_t n, cpu, gpu, delay, delay_max, shorts, runtime_out, delay_out;
    int64_t *delays;
    size_t nd, cap;
};

static int write_group(struct launch_group *g, sqlite3_stmt *ins)
{
    tdb_sort_i64(g->delays, g->nd);
    if (g->rank_null)
        sqlite3_bind_null(ins, 1);
    else
        sqlite3_bind_int64(ins, 1, g->rank);
    sqlite3_bind_int64(ins, 2, g->name_id);
    sqlite3_bind_int64(ins, 3, g->n);
    sqlite3_bind_double(ins, 4, (double)g->cpu / (double)g->n);
    sqlite3_bind_double(ins, 5, (double)g->gpu / (double)g->n);
    sqlite3_bind_double(ins, 6, (double)g->delay / (double)g->n);
    sqlite3_bind_double(ins, 7, tdb_percentile_i64(g->delays, g->nd, 50));
    sqlite3_bind_double(ins, 8, tdb_percentile_i64(g->delays, g->nd, 99));
    sqlite3_bind_int64(ins, 9, g->delay_max);
    sqlite3_bind_int64(ins, 10, g->shorts);
    sqlite3_bind_int64(ins, 11, g->runtime_out);
    sqlite3_bind_int64(ins, 12, g->delay_out);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int launch_sweep(sqlite3 *db, int64_t short_below_ns, int64_t delay_above_ns, struct report_io *io)
{
    if (sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS launch_stats (rank, name_id, launches, cpu_avg, gpu_avg, "
                         "delay_avg, delay_p50, delay_p99, delay_max_ns, short_kernels, runtime_outliers, "
                         "delay_outliers); DELETE FROM temp.launch_stats", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_stmt *st = report_prepare(db, "launch_rows", io), *ins = NULL;
    if (!st)
        return 1;
    if (sqlite3_prepare_v2(db, "INSERT INTO temp.launch_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                           -1, &ins, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return 1;
    }
    struct strmap index; /* (rank is NULL, rank, name id) -> group */
    strmap_init(&index);
    struct launch_group *g = NULL;
    size_t n = 0, cap = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int tr = sqlite3_column_type(st, 0), tn = sqlite3_column_type(st, 1);
        if ((tr != SQLITE_NULL && tr != SQLITE_INTEGER) || tn != SQLITE_INTEGER) {
            rc = 2;
            break;
        }
        unsigned char key[17];
        int64_t rank = tr == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0), name = sqlite3_column_int64(st, 1);
        key[0] = tr == SQLITE_NULL;
        memcpy(key + 1, &rank, 8), memcpy(key + 9, &name, 8);
        int64_t k = strmap_get(&index, key, sizeof key);
        if (k < 0) {
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 64;
                struct launch_group *ng = realloc(g, nc * sizeof *ng);
                if (!ng) {
                    rc = -1;
                    break;
                }
                g = ng, cap = nc;
            }
            k = (int64_t)n;
            g[n++] = (struct launch_group){.rank_null = key[0], .rank = rank, .name_id = name, .delay_max = INT64_MIN};
            if (strmap_put(&index, key, sizeof key, k) != 0) {
                rc = -1;
                break;
            }
        }
        struct launch_group *x = &g[k];
        int64_t cpu = sqlite3_column_int64(st, 2), gpu = sqlite3_column_int64(st, 3), delay = sqlite3_column_int64(st, 4);
        if (x->nd == x->cap) {
            size_t nc = x->cap ? x->cap * 2 : 64;
            int64_t *nd = realloc(x->delays, nc * sizeof *nd);
            if (!nd) {
                rc = -1;
                break;
            }
            x->delays = nd, x->cap = nc;
        }
        x->delays[x->nd++] = delay;
        x->n++, x->cpu += cpu, x->gpu += gpu, x->delay += delay;
        if (delay > x->delay_max)
            x->delay_max = delay;
        x->shorts += cpu <= short_below_ns && gpu < cpu;
        x->runtime_out += cpu > short_below_ns;
        x->delay_out += delay > delay_above_ns;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (write_group(&g[k], ins) != 0)
            rc = -1;
    if (rc < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    for (size_t k = 0; k < n; k++)
        free(g[k].delays);
    free(g);
    strmap_free(&index);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

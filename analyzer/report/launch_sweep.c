/* launch_sweep.c: HTA's kernel launch statistics per rank and kernel name in one pass over the launches
 * as they come (queries/launch_rows.sql), grouped in a hash map: counts, sums and the outlier counts,
 * and each name's launch delays for the median and the 99th percentile. SQL grouped them by sorting
 * every launch and collected the delays twice (median, percentile): a third of the report's time on a
 * 2 M-event trace. The averages are the sums over the counts, as SQL's avg() of integers gives them;
 * the percentiles interpolate as sqlfuncs.c's percentile() does. Each row's rank is its track's, looked up
 * here (sweep_ranks). queries/launches.sql prints the rows. */
#include "launch_sweep.h"
#include "report.h"
#include "sqlfuncs.h"
#include "sweep_group.h"
#include <stdio.h>
#include <stdlib.h>

struct launch_group {
    int rank_null;
    int64_t rank, name_id;
    int64_t cpu, gpu, delay, delay_max, shorts, runtime_out, delay_out;
    struct sweep_values delays;
};

static int write_group(struct launch_group *g, sqlite3_stmt *ins)
{
    size_t n = g->delays.n;
    tdb_sort_i64(g->delays.v, n);
    if (g->rank_null)
        sqlite3_bind_null(ins, 1);
    else
        sqlite3_bind_int64(ins, 1, g->rank);
    sqlite3_bind_int64(ins, 2, g->name_id);
    sqlite3_bind_int64(ins, 3, (int64_t)n);
    sqlite3_bind_double(ins, 4, (double)g->cpu / (double)n);
    sqlite3_bind_double(ins, 5, (double)g->gpu / (double)n);
    sqlite3_bind_double(ins, 6, (double)g->delay / (double)n);
    sqlite3_bind_double(ins, 7, tdb_percentile_i64(g->delays.v, n, 50));
    sqlite3_bind_double(ins, 8, tdb_percentile_i64(g->delays.v, n, 99));
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
    sqlite3_stmt *ins, *st;
    if (sweep_table(db, "launch_stats (rank, name_id, launches, cpu_avg, gpu_avg, delay_avg, delay_p50, delay_p99, "
                        "delay_max_ns, short_kernels, runtime_outliers, delay_outliers)", 12, &ins, io) != 0 ||
        !(st = report_prepare(db, "launch_rows", io))) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct sweep_index groups; /* (rank is NULL, rank, name id) -> struct launch_group */
    sweep_index_init(&groups, sizeof(struct launch_group));
    struct sweep_ranks ranks; /* each row's track's rank */
    int rc = sweep_ranks_load(&ranks, db) == 0 ? 0 : 2, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 1) != SQLITE_INTEGER) {
            rc = 2;
            break;
        }
        int64_t rank;
        int null;
        sweep_rank_of(&ranks, st, 0, &rank, &null);
        int64_t key[3] = {null, rank, sqlite3_column_int64(st, 1)};
        int fresh;
        struct launch_group *x = sweep_index_get(&groups, key, sizeof key, &fresh);
        if (!x) {
            rc = -1;
            break;
        }
        if (fresh)
            *x = (struct launch_group){.rank_null = (int)key[0], .rank = key[1], .name_id = key[2], .delay_max = INT64_MIN};
        int64_t cpu = sqlite3_column_int64(st, 2), gpu = sqlite3_column_int64(st, 3), delay = sqlite3_column_int64(st, 4);
        if (sweep_values_add(&x->delays, delay) != 0) {
            rc = -1;
            break;
        }
        x->cpu += cpu, x->gpu += gpu, x->delay += delay;
        if (delay > x->delay_max)
            x->delay_max = delay;
        x->shorts += cpu <= short_below_ns && gpu < cpu;
        x->runtime_out += cpu > short_below_ns;
        x->delay_out += delay > delay_above_ns;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < groups.n; k++)
        if (write_group(sweep_index_at(&groups, k), ins) != 0)
            rc = -1;
    if (rc < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    for (size_t k = 0; k < groups.n; k++)
        free(((struct launch_group *)sweep_index_at(&groups, k))->delays.v);
    sweep_index_free(&groups);
    sweep_ranks_free(&ranks);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

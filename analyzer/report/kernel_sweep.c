/* kernel_sweep.c: nsys-style GPU work statistics per rank, name and kind (and launch configuration) in
 * one pass over the work as it comes (queries/kernel_rows.sql, kernel_launch_rows.sql; table order), and
 * the same statistics of the runtime and driver calls for `tracedb api` (queries/api_rows.sql),
 * grouped in a hash map, where SQL sorted every row to group it (a third of `tracedb kernels` on a 2
 * M-event trace). The rows are read in two halves of their ids at once, the upper on a second
 * connection and thread, each into groups of its own that then join in table order. Each group keeps
 * its durations once for the median and the standard deviation. The figures are the SQL aggregates'
 * own: the average is the sum over the count (avg() of integers), the median interpolates as
 * percentile() does, the standard deviation is Welford's over the durations in table order, as
 * stddev() (sqlfuncs.c) gets them. */
#include "kernel_sweep.h"
#include "kinds.h"
#include "report.h"
#include "scope.h"
#include "sqlfuncs.h"
#include "step_index.h"
#include "sweep_group.h"
#include "time_range.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX 13 /* (rank is NULL, rank, name id, kind, launch?, 8 launch values) */

struct kernel_group {
    int rank_null, launch;
    int64_t rank, name_id, kind, total, min, max, example;
    struct sweep_values dur; /* in table order until written */
    int64_t key[KEY_MAX];    /* its key in the pass's groups */
};

static size_t key_len(int by_launch)
{
    return (size_t)(by_launch ? KEY_MAX : 4) * sizeof(int64_t);
}

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

/* One part of the pass: the rows of ids lo..hi on one connection, into groups of its own. */
struct kernel_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    const struct step_index *steps; /* by step; else NULL */
    int by_launch;
    struct sweep_index groups; /* (rank is NULL, rank, name id, kind[, launch configuration]) -> struct kernel_group */
    int rc;                    /* 0; -1 an error (SQLite's, or out of memory: oom); 1 a value not an integer */
    int oom;
    struct sweep_refusal refusal; /* with rc 1: where */
};

/* Reads part p's rows (rank, name id, kind, duration, id[, by_step's instant or by_launch's columns])
 * into its groups. */
static void *part_run(void *arg)
{
    struct kernel_part *p = arg;
    sqlite3_stmt *st = p->st;
    const struct step_index *steps = p->steps;
    int by_launch = p->by_launch, step_col = by_launch ? 14 : 5; /* with by_step: the instant that picks the step */
    int rc = 0, step;
    size_t hint = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int tr = sqlite3_column_type(st, 0);
        long in_step = steps ? step_index_find(steps, sqlite3_column_int64(st, step_col), &hint) : -1;
        if (in_step >= 0)
            in_step = steps->v[in_step].first; /* grouped by the step's name */
        if (steps) /* the rank is the step: its index here, its name written */
            tr = in_step < 0 ? SQLITE_NULL : SQLITE_INTEGER;
        if (tr != SQLITE_NULL && tr != SQLITE_INTEGER) {
            rc = sweep_refusal_note(&p->refusal, st, 0, 4);
            break;
        }
        for (int c = 1; c <= 3 && rc == 0; c++)
            if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
                rc = sweep_refusal_note(&p->refusal, st, c, 4);
        if (rc != 0)
            break;
        /* one launch configuration: the eight launch values, NULL read as 0 */
        int64_t key[KEY_MAX] = {tr == SQLITE_NULL, tr == SQLITE_NULL ? 0 : steps ? in_step : sqlite3_column_int64(st, 0),
                                sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), by_launch && sqlite3_column_int(st, 5)};
        for (int c = 0; c < 8 && key[4]; c++) { /* a column's type and value in one call (16 calls a row were a tenth of the pass) */
            sqlite3_value *v = sqlite3_column_value(st, 6 + c);
            int t = sqlite3_value_type(v);
            if (t != SQLITE_NULL && t != SQLITE_INTEGER) {
                rc = sweep_refusal_note(&p->refusal, st, 6 + c, 4);
                break;
            }
            key[5 + c] = sqlite3_value_int64(v);
        }
        if (rc != 0)
            break;
        int fresh;
        struct kernel_group *x = sweep_index_get(&p->groups, key, key_len(by_launch), &fresh);
        if (!x) {
            rc = -1, p->oom = 1;
            break;
        }
        if (fresh) {
            *x = (struct kernel_group){(int)key[0], (int)key[4], key[1], key[2], key[3], 0, INT64_MAX, INT64_MIN, INT64_MAX, {0}, {0}};
            memcpy(x->key, key, sizeof key);
        }
        int64_t dur = tdb_dur_held(sqlite3_column_int64(st, 3)), id = sqlite3_column_int64(st, 4);
        if (sweep_values_add(&x->dur, dur) != 0) {
            rc = -1, p->oom = 1;
            break;
        }
        x->total = tdb_sat_add(x->total, dur);
        if (dur < x->min)
            x->min = dur;
        if (dur > x->max)
            x->max = dur;
        if (id < x->example)
            x->example = id;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    p->rc = rc;
    return NULL;
}

/* Adds the upper part's groups to the lower's (whose rows all come first in table order: the durations
 * follow them, and a group first met in b comes after every group of a, as one pass would have made
 * them). 0, or -1 when out of memory. */
static int join_parts(struct kernel_part *a, struct kernel_part *b)
{
    for (size_t k = 0; k < b->groups.n; k++) {
        struct kernel_group *y = sweep_index_at(&b->groups, k);
        int fresh;
        struct kernel_group *x = sweep_index_get(&a->groups, y->key, key_len(a->by_launch), &fresh);
        if (!x)
            return -1;
        if (fresh) {
            *x = *y, y->dur = (struct sweep_values){0};
            continue;
        }
        if (sweep_values_join(&x->dur, &y->dur) != 0)
            return -1;
        x->total = tdb_sat_add(x->total, y->total);
        x->min = y->min < x->min ? y->min : x->min;
        x->max = y->max > x->max ? y->max : x->max;
        x->example = y->example < x->example ? y->example : x->example;
    }
    return 0;
}

static void part_free(struct kernel_part *p)
{
    for (size_t k = 0; k < p->groups.n; k++)
        free(((struct kernel_group *)sweep_index_at(&p->groups, k))->dur.v);
    sweep_index_free(&p->groups);
    sqlite3_finalize(p->st);
}

/* Binds a part's statement's options; kinds (NULL: none) bind :kernel, :memcpy, :memset. */
static void part_bind(struct kernel_part *p, int by_rank, int by_step, const int64_t *kinds)
{
    report_bind_int(p->st, ":by_rank", by_rank);
    report_bind_int(p->st, ":by_step", by_step);
    if (kinds) {
        report_bind_int(p->st, ":kernel", kinds[0]);
        report_bind_int(p->st, ":memcpy", kinds[1]);
        report_bind_int(p->st, ":memset", kinds[2]);
    }
}

/* The pass over queries/<query>.sql's rows (of kinds read_kinds[0]..[1]): in two halves of their ids at
 * once when they span enough of them (sweep_split_ids), the upper on a second connection (scope_reopen) and thread (reading rows is SQLite's work
 * and most of the pass); else in one. As kernel_sweep returns. */
static int sweep_rows(sqlite3 *db, const char *query, int by_rank, int by_launch, int by_step, const int64_t *kinds,
                      const int read_kinds[2], struct report_io *io)
{
    sqlite3_stmt *ins;
    struct step_index steps = {0};
    int checked = by_rank && !by_step ? sweep_ranks_check(db, io) : 0;
    if (checked != 0)
        return 1;
    if (by_step && step_index_load(&steps, db) != 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        step_index_free(&steps);
        return 1;
    }
    if (sweep_table(db, "kernel_stats (rank, name_id, kind, launch, example, instances, total_ns, avg_ns, med_ns, "
                        "min_ns, max_ns, stddev_ns)", 12, &ins, io) != 0) {
        step_index_free(&steps);
        return 1;
    }
    struct kernel_part part[2];
    for (int k = 0; k < 2; k++) {
        part[k] = (struct kernel_part){.db = db, .steps = by_step ? &steps : NULL, .by_launch = by_launch};
        sweep_index_init(&part[k].groups, sizeof(struct kernel_group));
    }
    struct sweep_halves h;
    sweep_halves_open(&h, db, read_kinds[0], read_kinds[1]);
    part[1].db = h.db[1];
    sqlite3_stmt *st[2] = {NULL, NULL};
    int nparts = h.n, rc = 0;
    if (sweep_halves_prepare(&h, query, st, io) != 0)
        rc = -1, nparts = 0;
    part[0].st = st[0], part[1].st = st[1];
    for (int k = 0; k < nparts; k++)
        part_bind(&part[k], by_rank, by_step, kinds);
    if (nparts)
        sweep_halves_run(&h, part_run, &part[0], &part[1]);
    for (int k = 0; k < nparts; k++) {
        if (part[k].rc == -1 && rc != 1)
            fprintf(io->err, "%s: %s\n", io->prog, part[k].oom ? "out of memory" : sqlite3_errmsg(part[k].db));
        if (part[k].rc != 0 && rc != 1)
            rc = part[k].rc;
    }
    if (rc == 1)
        sweep_refuse_first(&part[0].refusal, &part[1].refusal, io);
    if (rc == 0 && nparts == 2 && join_parts(&part[0], &part[1]) != 0) {
        fprintf(io->err, "%s: out of memory\n", io->prog);
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < part[0].groups.n; k++)
        if (write_group(sweep_index_at(&part[0].groups, k), by_step ? &steps : NULL, ins) != 0) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            rc = -1;
        }
    part_free(&part[0]), part_free(&part[1]);
    sweep_halves_close(&h);
    step_index_free(&steps);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

int kernel_sweep(sqlite3 *db, int by_rank, int by_launch, int by_step, const int64_t kinds[3], struct report_io *io)
{
    static const int gpu[2] = {TDB_KIND_KERNEL, TDB_KIND_MEMSET};
    return sweep_rows(db, by_launch ? "kernel_launch_rows" : "kernel_rows", by_rank, by_launch, by_step, kinds, gpu, io);
}

int api_sweep(sqlite3 *db, const struct scope *sc, struct report_io *io)
{
    static const int calls[2] = {TDB_KIND_RUNTIME, TDB_KIND_DRIVER};
    return sweep_rows(db, "api_rows", sc->by_rank, 0, 0, NULL, calls, io);
}

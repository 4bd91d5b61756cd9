/* launch_sweep.c: HTA's kernel launch statistics per rank and kernel name in one pass over the launches
 * as they come (queries/launch_rows.sql), grouped in a hash map: counts, sums and the outlier counts,
 * and each name's launch delays for the median and the 99th percentile. SQL grouped them by sorting
 * every launch and collected the delays twice (median, percentile): a third of the report's time on a
 * 2 M-event trace. The averages are the sums over the counts, as SQL's avg() of integers gives them;
 * the percentiles interpolate as sqlfuncs.c's percentile() does. Each row's rank is its track's, looked up
 * here (sweep_ranks). The launches are read in two halves of the GPU work's ids at once, the upper on a
 * second connection and thread, each into groups of its own that then join in table order.
 * queries/launches.sql prints the rows. Asked, the pass also keeps each name's longest delay per rank and
 * device (the device its GPU work ran on): summary's worst launch delay per rank and device. */
#include "launch_sweep.h"
#include "kinds.h"
#include "report.h"
#include "sqlfuncs.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct launch_group {
    int rank_null;
    int64_t rank, name_id;
    int64_t cpu, gpu, delay, delay_max, shorts, runtime_out, delay_out;
    struct sweep_values delays;
};

/* A name's longest launch delay on one rank and device (launch_sweep's by_device). */
struct launch_worst {
    int64_t key[5]; /* rank is NULL, rank, device is NULL, device, name id */
    int64_t delay_max;
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

/* One reader of the launches: those of GPU work with ids lo..hi on its connection, into its groups. */
struct launch_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    struct sweep_index groups; /* (rank is NULL, rank, name id) -> struct launch_group */
    struct sweep_index worst;  /* with by_device: struct launch_worst by its key */
    int by_device;
    struct sweep_ranks ranks;  /* each row's track's rank */
    int64_t short_below_ns, delay_above_ns;
    int rc; /* 0; -1 an error (SQLite's, or out of memory); 1 a key not an integer */
    struct sweep_refusal refusal; /* with rc 1: where */
};

/* The row's delay into its name's longest on its rank and device (column 6). 0; 1 a device that is
 * not an integer (noted); -1 out of memory. */
static int launch_worst_add(struct launch_part *p, sqlite3_stmt *st, const int64_t group_key[3], int64_t delay)
{
    int64_t device;
    int null;
    if (sweep_int_key(st, 6, 1, &device, &null, &p->refusal, 5) != 0)
        return 1;
    int64_t key[5] = {group_key[0], group_key[1], null, device, group_key[2]};
    int fresh;
    struct launch_worst *w = sweep_index_get(&p->worst, key, sizeof key, &fresh);
    if (!w)
        return -1;
    if (fresh)
        memcpy(w->key, key, sizeof key), w->delay_max = delay;
    else if (delay > w->delay_max)
        w->delay_max = delay;
    return 0;
}

static void *launch_part_run(void *arg)
{
    struct launch_part *p = arg;
    sqlite3_stmt *st = p->st;
    int rc = sweep_ranks_load(&p->ranks, p->db), step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_type(st, 1) != SQLITE_INTEGER) {
            rc = sweep_refusal_note(&p->refusal, st, 1, 5);
            break;
        }
        int64_t rank;
        int null;
        sweep_rank_of(&p->ranks, st, 0, &rank, &null);
        int64_t key[3] = {null, rank, sqlite3_column_int64(st, 1)};
        int fresh;
        struct launch_group *x = sweep_index_get(&p->groups, key, sizeof key, &fresh);
        if (!x) {
            rc = -1;
            break;
        }
        if (fresh)
            *x = (struct launch_group){.rank_null = (int)key[0], .rank = key[1], .name_id = key[2], .delay_max = INT64_MIN};
        /* a stranger's database may hold any times: each is held to 146 years, the sums saturate */
        int64_t cpu = tdb_dur_held(sqlite3_column_int64(st, 2)), gpu = tdb_dur_held(sqlite3_column_int64(st, 3));
        int64_t delay = tdb_dur_held(sqlite3_column_int64(st, 4));
        if (sweep_values_add(&x->delays, delay) != 0) {
            rc = -1;
            break;
        }
        x->cpu = tdb_sat_add(x->cpu, cpu), x->gpu = tdb_sat_add(x->gpu, gpu), x->delay = tdb_sat_add(x->delay, delay);
        if (delay > x->delay_max)
            x->delay_max = delay;
        x->shorts += cpu <= p->short_below_ns && gpu < cpu;
        x->runtime_out += cpu > p->short_below_ns;
        x->delay_out += delay > p->delay_above_ns;
        if (p->by_device && (rc = launch_worst_add(p, st, key, delay)) != 0)
            break;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    p->rc = rc;
    return NULL;
}

/* The upper part's groups into the lower's: a group first met in the upper part comes after every group
 * of the lower, as one pass would have made them. 0, or -1 when out of memory. */
static int launch_join(struct launch_part *a, struct launch_part *b)
{
    for (size_t k = 0; k < b->groups.n; k++) {
        struct launch_group *y = sweep_index_at(&b->groups, k);
        int64_t key[3] = {y->rank_null, y->rank, y->name_id};
        int fresh;
        struct launch_group *x = sweep_index_get(&a->groups, key, sizeof key, &fresh);
        if (!x)
            return -1;
        if (fresh) {
            *x = *y, y->delays = (struct sweep_values){0};
            continue;
        }
        if (sweep_values_join(&x->delays, &y->delays) != 0)
            return -1;
        x->cpu = tdb_sat_add(x->cpu, y->cpu), x->gpu = tdb_sat_add(x->gpu, y->gpu), x->delay = tdb_sat_add(x->delay, y->delay);
        x->delay_max = y->delay_max > x->delay_max ? y->delay_max : x->delay_max;
        x->shorts += y->shorts, x->runtime_out += y->runtime_out, x->delay_out += y->delay_out;
    }
    for (size_t k = 0; k < b->worst.n; k++) {
        struct launch_worst *y = sweep_index_at(&b->worst, k);
        int fresh;
        struct launch_worst *x = sweep_index_get(&a->worst, y->key, sizeof y->key, &fresh);
        if (!x)
            return -1;
        if (fresh || y->delay_max > x->delay_max)
            *x = *y;
    }
    return 0;
}

/* The longest delays per rank, device and name into temp table launch_worst. 0, or -1 (SQLite's). */
static int write_worst(const struct sweep_index *worst, sqlite3_stmt *ins)
{
    for (size_t k = 0; k < worst->n; k++) {
        const struct launch_worst *w = sweep_index_at(worst, k);
        for (int c = 0; c < 2; c++)
            if (w->key[2 * c])
                sqlite3_bind_null(ins, 1 + c);
            else
                sqlite3_bind_int64(ins, 1 + c, w->key[2 * c + 1]);
        sqlite3_bind_int64(ins, 3, w->key[4]);
        sqlite3_bind_int64(ins, 4, w->delay_max);
        int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(ins);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int launch_sweep(sqlite3 *db, int64_t short_below_ns, int64_t delay_above_ns, int by_device, struct report_io *io)
{
    sqlite3_stmt *ins, *ins_worst = NULL;
    if (sweep_table(db, "launch_stats (rank, name_id, launches, cpu_avg, gpu_avg, delay_avg, delay_p50, delay_p99, "
                        "delay_max_ns, short_kernels, runtime_outliers, delay_outliers)", 12, &ins, io) != 0)
        return 1;
    if ((by_device && sweep_table(db, "launch_worst (rank, device, name_id, delay_max_ns)", 4, &ins_worst, io) != 0) ||
        sweep_ranks_check(db, io) != 0) {
        sqlite3_finalize(ins), sqlite3_finalize(ins_worst);
        return 1;
    }
    struct launch_part part[2];
    for (int k = 0; k < 2; k++) {
        part[k] = (struct launch_part){.db = db, .by_device = by_device, .short_below_ns = short_below_ns,
                                       .delay_above_ns = delay_above_ns};
        sweep_index_init(&part[k].groups, sizeof(struct launch_group));
        sweep_index_init(&part[k].worst, sizeof(struct launch_worst));
    }
    /* in two halves of the GPU work's ids at once where they part (the upper on a second connection and
     * thread): reading the launches is SQLite's work and most of the pass */
    struct sweep_halves h;
    sweep_halves_open(&h, db, TDB_KIND_KERNEL, TDB_KIND_MEMSET);
    part[1].db = h.db[1];
    sqlite3_stmt *st[2] = {NULL, NULL};
    int rc = sweep_halves_prepare(&h, "launch_rows", st, io) == 0 ? 0 : 1;
    part[0].st = st[0], part[1].st = st[1];
    if (rc == 0)
        sweep_halves_run(&h, launch_part_run, &part[0], &part[1]);
    for (int k = 0; rc == 0 && k < h.n; k++) {
        if (part[k].rc == -1)
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(part[k].db));
        if (part[k].rc != 0 && rc != 1)
            rc = part[k].rc;
    }
    if (rc == 1 && !sweep_refuse_first(&part[0].refusal, &part[1].refusal, io))
        sweep_refuse_rank(io); /* sweep_ranks_load's */
    if (rc == 0 && h.n == 2 && launch_join(&part[0], &part[1]) != 0) {
        fprintf(io->err, "%s: out of memory\n", io->prog);
        rc = -1;
    }
    for (size_t k = 0; rc == 0 && k < part[0].groups.n; k++)
        if (write_group(sweep_index_at(&part[0].groups, k), ins) != 0) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            rc = -1;
        }
    if (rc == 0 && by_device && write_worst(&part[0].worst, ins_worst) != 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = -1;
    }
    for (int p = 0; p < 2; p++) {
        for (size_t k = 0; k < part[p].groups.n; k++)
            free(((struct launch_group *)sweep_index_at(&part[p].groups, k))->delays.v);
        sweep_index_free(&part[p].groups);
        sweep_index_free(&part[p].worst);
        sweep_ranks_free(&part[p].ranks);
        sqlite3_finalize(part[p].st);
    }
    sweep_halves_close(&h);
    sqlite3_finalize(ins), sqlite3_finalize(ins_worst);
    return rc == 0 ? 0 : 1;
}

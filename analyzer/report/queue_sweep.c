/* queue_sweep.c: HTA's queue length statistics per rank, device and stream, in one pass over the
 * queue's steps sorted by stream and time (queries/queue_sorted.sql: +1 at each launch call, -1 at
 * the start of the work it launched). Two SQL window functions over every step (a running sum and
 * the next step's time) took 3.4 s on a 2 M-event trace; the pass keeps per stream the sample count,
 * min, max, sum, the time-weighted sum, the time at or above the blocking depth and the samples for
 * the median. queries/queue.sql prints the rows; --timeline still lists the series in SQL. */
#include "queue_sweep.h"
#include "report.h"
#include "sweep_group.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct stream_stats {
    struct sweep_group g;  /* rank, device, stream */
    int64_t samples, max, min, sum, weighted, blocked, first_ts, prev_ts, prev_q, q;
    int64_t *v;            /* every sample, for the median */
    size_t nv, cap;
};

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Writes one stream's row. 0 or -1. */
static int stats_write(struct stream_stats *s, sqlite3_stmt *ins)
{
    qsort(s->v, s->nv, sizeof *s->v, cmp_i64);
    /* the median as percentile() computes it (sqlfuncs.c): linear between the closest ranks */
    double pos = 0.5 * (double)(s->nv - 1);
    size_t lo = (size_t)floor(pos), hi = lo + 1 < s->nv ? lo + 1 : lo;
    double p50 = (double)s->v[lo] + ((double)s->v[hi] - (double)s->v[lo]) * (pos - (double)lo);
    sweep_group_bind(&s->g, ins);
    sqlite3_bind_int64(ins, 4, s->samples);
    sqlite3_bind_int64(ins, 5, s->max);
    sqlite3_bind_int64(ins, 6, s->min);
    sqlite3_bind_int64(ins, 7, s->sum);
    sqlite3_bind_int64(ins, 8, s->weighted);
    sqlite3_bind_int64(ins, 9, s->prev_ts - s->first_ts);
    sqlite3_bind_int64(ins, 10, s->blocked);
    sqlite3_bind_double(ins, 11, p50);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int queue_sweep(sqlite3 *db, int64_t blocked_at, struct report_io *io)
{
    if (sqlite3_exec(db, "CREATE TEMP TABLE queue_stats (rank, device, stream, samples, max_queue, min_queue, "
                         "sum_queue, weighted, span_ns, blocked_ns, p50)", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return 1;
    }
    sqlite3_stmt *st = report_prepare(db, "queue_sorted", io), *ins = NULL;
    if (!st)
        return 1;
    if (sqlite3_prepare_v2(db, "INSERT INTO queue_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)", -1, &ins,
                           NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return 1;
    }
    struct stream_stats s = {.g.n = 3};
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(st, 3), d = sqlite3_column_int64(st, 4);
        if (!sweep_group_same(&s.g, st)) {
            if (s.g.open && stats_write(&s, ins) != 0)
                rc = -1;
            if (sweep_group_take(&s.g, st) != 0)
                rc = -1;
            s.nv = 0;
            s.samples = s.sum = s.weighted = s.blocked = s.q = 0;
            s.max = INT64_MIN, s.min = INT64_MAX;
            s.first_ts = s.prev_ts = ts;
        } else { /* the previous value lasted until this step */
            s.weighted += s.prev_q * (ts - s.prev_ts);
            if (s.prev_q >= blocked_at)
                s.blocked += ts - s.prev_ts;
        }
        s.q += d;
        s.samples++, s.sum += s.q;
        if (s.q > s.max)
            s.max = s.q;
        if (s.q < s.min)
            s.min = s.q;
        if (s.nv == s.cap) {
            size_t nc = s.cap ? s.cap * 2 : 4096;
            int64_t *nv = realloc(s.v, nc * sizeof *nv);
            if (!nv) {
                rc = -1;
                break;
            }
            s.v = nv, s.cap = nc;
        }
        s.v[s.nv++] = s.q;
        s.prev_ts = ts, s.prev_q = s.q;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc == 0 && s.g.open && stats_write(&s, ins) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sweep_group_free(&s.g);
    free(s.v);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

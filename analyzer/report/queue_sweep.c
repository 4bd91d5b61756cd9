/* queue_sweep.c: HTA's queue length statistics per rank, device and stream, in one pass over each
 * stream's steps in time order (+1 at each launch call, -1 at the start of the work it launched; at
 * equal times a launch first, then by event id). Two SQL window functions over every step (a running
 * sum and the next step's time) took 3.4 s on a 2 M-event trace. The launches come once each, unsorted
 * (queries/queue_launches.sql); each stream's steps are made here, in memory (16 bytes a step), its
 * calls and its work sorted apart and merged (stream_steps), as SQL's sort of every step cost a third
 * of the rest and one qsort of them all a tenth. A key that is neither NULL nor an
 * integer (a foreign database) takes SQL's sort instead (queries/queue_sorted.sql). The pass keeps per
 * stream the sample count, min, max, sum, the time-weighted sum, the time at or above the blocking
 * depth and the samples for the median. queries/queue.sql prints the rows; --timeline lists the
 * series in SQL. */
#include "queue_sweep.h"
#include "report.h"
#include "sqlfuncs.h"
#include "kinds.h"
#include "sweep_group.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stream_stats {
    struct sweep_group g;  /* rank, device, stream */
    int64_t samples, max, min, sum, weighted, blocked, first_ts, prev_ts, prev_q, q;
    struct sweep_values v; /* every sample, for the median */
};

/* Starts a stream's sums at its first step. */
static void stats_begin(struct stream_stats *s, int64_t ts)
{
    s->v.n = 0;
    s->samples = s->sum = s->weighted = s->blocked = s->q = 0;
    s->max = INT64_MIN, s->min = INT64_MAX;
    s->first_ts = s->prev_ts = ts;
}

/* One step of the stream: the previous value lasted until ts. 0, or -1 when out of memory. */
static int stats_step(struct stream_stats *s, int64_t ts, int64_t d, int64_t blocked_at)
{
    if (s->samples) {
        s->weighted += s->prev_q * (ts - s->prev_ts);
        if (s->prev_q >= blocked_at)
            s->blocked += ts - s->prev_ts;
    }
    s->q += d;
    s->samples++, s->sum += s->q;
    if (s->q > s->max)
        s->max = s->q;
    if (s->q < s->min)
        s->min = s->q;
    s->prev_ts = ts, s->prev_q = s->q;
    return sweep_values_add(&s->v, s->q);
}

/* The median of the stream's samples, as percentile() computes it over them sorted: they lie between
 * min and max, a queue's length a few hundred apart at most, so counting them gives the two middle
 * ranks without a sort (the sort took 0.08 s of `queue` on 2 M events); a spread wider than the samples
 * sorts them. */
static double stats_p50(struct stream_stats *s)
{
    size_t n = s->v.n;
    uint64_t span = (uint64_t)s->max - (uint64_t)s->min;
    size_t *count = n && s->max >= s->min && span < (uint64_t)n + 65536 ? calloc((size_t)span + 1, sizeof *count) : NULL;
    if (!count) {
        tdb_sort_i64(s->v.v, n);
        return tdb_percentile_i64(s->v.v, n, 50);
    }
    for (size_t i = 0; i < n; i++)
        count[(uint64_t)s->v.v[i] - (uint64_t)s->min]++;
    double pos = 0.5 * (double)(n - 1);
    size_t lo = (size_t)pos, hi = lo + 1 < n ? lo + 1 : lo, seen = 0;
    int64_t at_lo = s->min, at_hi = s->min;
    for (uint64_t k = 0, found = 0; k <= span && found < 2; k++) { /* the values at ranks lo and hi */
        seen += count[k];
        if (!found && seen > lo)
            at_lo = s->min + (int64_t)k, found = 1;
        if (found == 1 && seen > hi)
            at_hi = s->min + (int64_t)k, found = 2;
    }
    free(count);
    return (double)at_lo + ((double)at_hi - (double)at_lo) * (pos - (double)lo);
}

/* Writes one stream's row. 0 or -1. */
static int stats_write(struct stream_stats *s, sqlite3_stmt *ins)
{
    double p50 = stats_p50(s); /* as percentile() computes it */
    if (s->g.open)
        sweep_group_bind(&s->g, ins); /* else the caller bound the key */
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

/* SQL's order: every step of every stream sorted by SQL (queries/queue_sorted.sql). 0 or -1. */
static int sweep_sorted(sqlite3 *db, int64_t blocked_at, sqlite3_stmt *ins, struct stream_stats *s, struct report_io *io)
{
    sqlite3_stmt *st = report_prepare(db, "queue_sorted", io);
    if (!st)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ts = sqlite3_column_int64(st, 3), d = sqlite3_column_int64(st, 4);
        if (!sweep_group_same(&s->g, st)) {
            if (s->g.open && stats_write(s, ins) != 0)
                rc = -1;
            if (sweep_group_take(&s->g, st) != 0)
                rc = -1;
            stats_begin(s, ts);
        }
        if (rc == 0 && stats_step(s, ts, d, blocked_at) != 0)
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc == 0 && s->g.open && stats_write(s, ins) != 0)
        rc = -1;
    sweep_group_free(&s->g);
    sqlite3_finalize(st);
    return rc;
}

/* A stream's steps, made from its launches: the calls (+1) and the starts of the work (-1), each kind
 * sorted by time then id (each nearly always in order already), then merged: at equal times a launch
 * before a start. The order of one sort of every step by (time, +1 first, id), without its cost. */
struct queue_launch {
    int64_t call, work, id;
};

struct queue_step {
    int64_t ts, id;
};

static int cmp_step(const void *a, const void *b)
{
    const struct queue_step *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static void sort_steps(struct queue_step *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_step(&v[i - 1], &v[i]) > 0) {
            qsort(v, n, sizeof *v, cmp_step);
            return;
        }
}

/* One stream's sums from its launches. 0, or -1 when out of memory. */
static int stream_steps(struct stream_stats *s, const struct queue_launch *l, size_t n, int64_t blocked_at)
{
    struct queue_step *calls = malloc(2 * n * sizeof *calls), *works = calls + n;
    if (!calls)
        return -1;
    for (size_t i = 0; i < n; i++)
        calls[i] = (struct queue_step){l[i].call, l[i].id}, works[i] = (struct queue_step){l[i].work, l[i].id};
    sort_steps(calls, n), sort_steps(works, n);
    int rc = 0;
    stats_begin(s, calls[0].ts < works[0].ts ? calls[0].ts : works[0].ts);
    for (size_t a = 0, b = 0; rc == 0 && (a < n || b < n);) {
        if (b == n || (a < n && calls[a].ts <= works[b].ts))
            rc = stats_step(s, calls[a++].ts, 1, blocked_at);
        else
            rc = stats_step(s, works[b++].ts, -1, blocked_at);
    }
    free(calls);
    return rc;
}

/* A row of queries/queue_launches.sql: track, device, stream, call_ns, work_ns, id. */
static void fill_launch(void *row, sqlite3_stmt *st)
{
    *(struct queue_launch *)row =
        (struct queue_launch){sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5)};
}

int queue_sweep(sqlite3 *db, int64_t blocked_at, struct report_io *io)
{
    sqlite3_stmt *ins;
    if (sweep_table(db, "queue_stats (rank, device, stream, samples, max_queue, min_queue, sum_queue, weighted, span_ns, "
                        "blocked_ns, p50)", 11, &ins, io) != 0) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct stream_stats s = {.g.n = 3};
    struct sweep_streams streams;
    sweep_streams_init(&streams, 3, sizeof(struct queue_launch), 1);
    int rc = sweep_streams_read(db, "queue_launches", TDB_KIND_KERNEL, TDB_KIND_MEMSET, &streams, fill_launch, io);
    for (size_t k = 0; rc == 0 && k < streams.n; k++) {
        struct sweep_stream *g = &streams.g[k];
        rc = stream_steps(&s, (const struct queue_launch *)g->rows, g->n, blocked_at);
        sweep_streams_bind(&streams, g, ins);
        if (rc == 0 && stats_write(&s, ins) != 0)
            rc = -1;
    }
    sweep_streams_free(&streams);
    if (rc == 1) /* a key SQL compares its own way: its sort, then the same pass */
        rc = sqlite3_exec(db, "DELETE FROM temp.queue_stats", NULL, NULL, NULL) == SQLITE_OK
                 ? sweep_sorted(db, blocked_at, ins, &s, io)
                 : -1;
    if (rc != 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    free(s.v.v);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

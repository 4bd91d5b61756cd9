/* queue_sweep.c: HTA's queue length statistics per rank, device and stream, in one pass over each
 * stream's steps in time order (+1 at each launch call, -1 at the start of the work it launched; at
 * equal times a launch first, then by event id). Two SQL window functions over every step (a running
 * sum and the next step's time) took 3.4 s on a 2 M-event trace. The launches come once each, unsorted
 * (queries/queue_launches.sql); each stream's calls and its work are merged in time order
 * (stream_steps), each read from the launch rows where they are already in order, else from a sorted
 * copy (SQL's sort of every step cost a third of the rest). A key that is neither NULL nor an integer (a
 * foreign database) is refused (sweep_refuse). The pass keeps per stream the
 * sample count, min, max, sum, the time-weighted sum, the time at or above the blocking depth and how
 * many samples had each length, for the median. queries/queue.sql prints the rows; --timeline lists the
 * series in SQL. */
#include "queue_sweep.h"
#include "report.h"
#include "kinds.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many samples had each queue length, for the median: a length moves by one at each step, so the
 * lengths seen are every one from min to max, and a stream's count array is never longer than its
 * samples. up[q] counts q >= 0, down[-1 - q] counts q < 0 (a work item before its launch). */
struct length_counts {
    size_t *up, *down;
    size_t n_up, n_down;
};

struct stream_stats {
    int64_t samples, max, min, sum, weighted, blocked, first_ts, prev_ts, prev_q, q;
    struct length_counts c;
};

/* Counts one sample of length q (within one of the last length counted, or 0). 0, or -1 out of memory. */
static int counts_add(struct length_counts *c, int64_t q)
{
    size_t **v = q >= 0 ? &c->up : &c->down, *n = q >= 0 ? &c->n_up : &c->n_down;
    size_t i = q >= 0 ? (size_t)q : (size_t)(-1 - q);
    if (i >= *n) { /* i == *n: a new longest (or shortest) length */
        size_t nn = *n ? *n * 2 : 64;
        if (nn <= i)
            nn = i + 1;
        size_t *nv = realloc(*v, nn * sizeof *nv);
        if (!nv)
            return -1;
        memset(nv + *n, 0, (nn - *n) * sizeof *nv);
        *v = nv, *n = nn;
    }
    (*v)[i]++;
    return 0;
}

static size_t counts_at(const struct length_counts *c, int64_t q)
{
    return q >= 0 ? c->up[q] : c->down[-1 - q];
}

/* Starts a stream's sums at its first step. */
static void stats_begin(struct stream_stats *s, int64_t ts)
{
    for (int64_t q = s->samples ? s->min : 1; q <= s->max; q++) /* the last stream's lengths, counted again from 0 */
        if (q >= 0 && (size_t)q < s->c.n_up)
            s->c.up[q] = 0;
        else if (q < 0 && (size_t)(-1 - q) < s->c.n_down)
            s->c.down[-1 - q] = 0;
    s->samples = s->sum = s->weighted = s->blocked = s->q = 0;
    s->max = INT64_MIN, s->min = INT64_MAX;
    s->first_ts = s->prev_ts = ts;
}

/* One step of the stream, a launch (up) or the start of work (not up): the previous length lasted until
 * ts. 0, or -1 when out of memory. */
static int stats_step(struct stream_stats *s, int64_t ts, int up, int64_t blocked_at)
{
    if (s->samples) {
        s->weighted = tdb_sat_add(s->weighted, tdb_sat_mul(s->prev_q, ts - s->prev_ts)); /* times held: the step fits */
        if (s->prev_q >= blocked_at)
            s->blocked = tdb_sat_add(s->blocked, ts - s->prev_ts);
    }
    s->q += up ? 1 : -1;
    s->samples++, s->sum += s->q;
    if (s->q > s->max)
        s->max = s->q;
    if (s->q < s->min)
        s->min = s->q;
    s->prev_ts = ts, s->prev_q = s->q;
    return counts_add(&s->c, s->q);
}

/* The median of the stream's samples, as percentile() computes it over them sorted (the values at ranks
 * lo and hi, interpolated), from the count of each length: no sort (a sort of the samples took 0.08 s of
 * `queue` on 2 M events, keeping them 15 MB). */
static double stats_p50(const struct stream_stats *s)
{
    size_t n = (size_t)s->samples;
    if (n == 0)
        return 0;
    double pos = 0.5 * (double)(n - 1);
    size_t lo = (size_t)pos, hi = lo + 1 < n ? lo + 1 : lo, seen = 0;
    int64_t at_lo = s->min, at_hi = s->min;
    for (int64_t q = s->min, found = 0; q <= s->max && found < 2; q++) { /* the values at ranks lo and hi */
        seen += counts_at(&s->c, q);
        if (!found && seen > lo)
            at_lo = q, found = 1;
        if (found == 1 && seen > hi)
            at_hi = q, found = 2;
    }
    return (double)at_lo + ((double)at_hi - (double)at_lo) * (pos - (double)lo);
}

/* Writes one stream's row (its key bound by the caller). 0 or -1. */
static int stats_write(const struct stream_stats *s, sqlite3_stmt *ins)
{
    double p50 = stats_p50(s); /* as percentile() computes it */
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

/* A stream's steps, made from its launches: the calls (+1) and the starts of the work (-1), each kind
 * in order of time then id, then merged: at equal times a launch before a start. The order of one sort
 * of every step by (time, +1 first, id), without its cost. A kind already in that order in the rows (a
 * stream's launches nearly always are, and its work) is read from them; else its steps are copied and
 * sorted. */
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

/* Whether the rows are in order of (call, id), or with work of (work, id). */
static int launches_in_order(const struct queue_launch *l, size_t n, int work)
{
    for (size_t i = 1; i < n; i++) {
        int64_t a = work ? l[i - 1].work : l[i - 1].call, b = work ? l[i].work : l[i].call;
        if (a > b || (a == b && l[i - 1].id > l[i].id))
            return 0;
    }
    return 1;
}

/* One kind's times in order: every stride'th byte from p holds one (read with memcpy: they are fields of
 * an array's structs). */
struct kind_times {
    const unsigned char *p;
    size_t stride;
    struct queue_step *copy; /* the sorted copy they are read from, or NULL (the rows' own) */
};

static int64_t time_at(const struct kind_times *t, size_t i)
{
    int64_t v;
    memcpy(&v, t->p + i * t->stride, sizeof v);
    return v;
}

/* The calls' times (work 0) or the work's (1): the rows' own when in order, else a sorted copy. 0, or
 * -1 when out of memory. */
static int kind_times(const struct queue_launch *l, size_t n, int work, struct kind_times *t)
{
    t->copy = NULL;
    if (launches_in_order(l, n, work)) {
        t->p = (const unsigned char *)l + (work ? offsetof(struct queue_launch, work) : offsetof(struct queue_launch, call));
        t->stride = sizeof *l;
        return 0;
    }
    struct queue_step *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct queue_step){work ? l[i].work : l[i].call, l[i].id};
    qsort(v, n, sizeof *v, cmp_step);
    t->copy = v, t->p = (const unsigned char *)v + offsetof(struct queue_step, ts), t->stride = sizeof *v;
    return 0;
}

/* One stream's sums from its launches (n >= 1). 0, or -1 when out of memory. */
static int stream_steps(struct stream_stats *s, const struct queue_launch *l, size_t n, int64_t blocked_at)
{
    struct kind_times calls, works = {0};
    int rc = kind_times(l, n, 0, &calls) == 0 && kind_times(l, n, 1, &works) == 0 ? 0 : -1;
    if (rc == 0) {
        int64_t c0 = time_at(&calls, 0), w0 = time_at(&works, 0);
        stats_begin(s, c0 < w0 ? c0 : w0);
    }
    for (size_t a = 0, b = 0; rc == 0 && (a < n || b < n);) {
        if (b == n || (a < n && time_at(&calls, a) <= time_at(&works, b)))
            rc = stats_step(s, time_at(&calls, a++), 1, blocked_at);
        else
            rc = stats_step(s, time_at(&works, b++), 0, blocked_at);
    }
    free(calls.copy), free(works.copy);
    return rc;
}

/* A row of queries/queue_launches.sql: track, device, stream, call_ns, work_ns, id. */
static void fill_launch(void *row, sqlite3_stmt *st)
{
    *(struct queue_launch *)row =
        (struct queue_launch){tdb_time_held(sqlite3_column_int64(st, 3)), tdb_time_held(sqlite3_column_int64(st, 4)),
                              sqlite3_column_int64(st, 5)};
}

int queue_sweep(sqlite3 *db, int64_t blocked_at, struct report_io *io)
{
    sqlite3_stmt *ins;
    if (sweep_table(db, "queue_stats (rank, device, stream, samples, max_queue, min_queue, sum_queue, weighted, span_ns, "
                        "blocked_ns, p50)", 11, &ins, io) != 0) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct stream_stats s = {0};
    struct sweep_streams streams;
    sweep_streams_init(&streams, 3, sizeof(struct queue_launch), 1);
    int rc = sweep_streams_read(db, "queue_launches", TDB_KIND_KERNEL, TDB_KIND_MEMSET, &streams, fill_launch, 5, io);
    for (size_t k = 0; rc == 0 && k < streams.n; k++) {
        struct sweep_stream *g = &streams.g[k];
        rc = stream_steps(&s, (const struct queue_launch *)g->rows, g->n, blocked_at);
        sweep_streams_bind(&streams, g, ins);
        if (rc == 0 && stats_write(&s, ins) != 0)
            rc = -1;
    }
    sweep_streams_free(&streams);
    if (rc < 0) /* (a refusal, 1, is said) */
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    free(s.c.up), free(s.c.down);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

/* idle_sweep.c: HTA's GPU idle time breakdown per rank, device and stream in one pass over the GPU work
 * in start order (then id). Each gap runs from the previous piece of work's
 * end to the next one's start: host wait when the next one's launch call started after that end (the
 * host had not enqueued it yet), else kernel wait when the gap is shorter than the cutoff, else other.
 * A negative gap (work overlapping on a stream) is no idle time unless negative_gaps (HTA sums it).
 * The work comes once each, unsorted (queries/idle_work.sql),
 * and each stream's is sorted here (SQL's sort of every row by stream and start was a third of `idle` on
 * 2 M events); a key that is neither NULL nor an integer (a foreign database) is refused (sweep_refuse).
 * queries/idle.sql prints the sums; summary's GPU efficiency line sums them per rank and device. */
#include "idle_sweep.h"
#include "report.h"
#include "kinds.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>

struct idle_sums {
    int64_t gaps, idle, host, kernel, other, prev_end;
    int64_t kernel_wait_ns;
    int negative_gaps;
};

/* Writes one stream's row (every stream with GPU work has one, as in HTA: one piece of work alone is no
 * idle time); the key is bound. 0 or -1. */
static int sums_write(const struct idle_sums *s, sqlite3_stmt *ins)
{
    sqlite3_bind_int64(ins, 4, s->idle);
    sqlite3_bind_int64(ins, 5, s->host);
    sqlite3_bind_int64(ins, 6, s->kernel);
    sqlite3_bind_int64(ins, 7, s->other);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

/* The next piece of work of the stream: its gap from the previous one's end, by HTA's rule. */
static void sums_next(struct idle_sums *s, int first, int64_t start, int64_t end, int has_launch, int64_t launch)
{
    if (first)
        s->gaps = s->idle = s->host = s->kernel = s->other = 0;
    else {
        int64_t raw = start - s->prev_end, gap = s->negative_gaps || raw > 0 ? raw : 0;
        s->gaps++;
        s->idle = tdb_sat_add(s->idle, gap);
        if (has_launch && launch > s->prev_end)
            s->host = tdb_sat_add(s->host, gap);
        else if (raw < s->kernel_wait_ns)
            s->kernel = tdb_sat_add(s->kernel, gap);
        else
            s->other = tdb_sat_add(s->other, gap);
    }
    s->prev_end = end;
}

/* A piece of work, sorted here by start, then id. */
struct idle_work {
    int64_t s, id, en, launch;
    int64_t has_launch;
};

static int cmp_work(const void *a, const void *b)
{
    const struct idle_work *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* A row of queries/idle_work.sql: track, device, stream, s, en, launch_ns, id. */
static void fill_work(void *row, sqlite3_stmt *st)
{
    *(struct idle_work *)row =
        (struct idle_work){tdb_time_held(sqlite3_column_int64(st, 3)), sqlite3_column_int64(st, 6),
                           tdb_time_held(sqlite3_column_int64(st, 4)), tdb_time_held(sqlite3_column_int64(st, 5)),
                           sqlite3_column_type(st, 5) != SQLITE_NULL};
}

/* Whether the work is in order already (a trace's GPU work nearly always is, per stream). */
static int work_sorted(const struct idle_work *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (cmp_work(&v[i - 1], &v[i]) > 0)
            return 0;
    return 1;
}

int idle_sweep(sqlite3 *db, int64_t kernel_wait_ns, int negative_gaps, struct report_io *io)
{
    sqlite3_stmt *ins;
    if (sweep_table(db, "idle_stats (rank, device, stream, idle_ns, host_wait_ns, kernel_wait_ns, other_ns)", 7, &ins,
                    io) != 0) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct idle_sums s = {.kernel_wait_ns = kernel_wait_ns, .negative_gaps = negative_gaps};
    struct sweep_streams streams;
    sweep_streams_init(&streams, 3, sizeof(struct idle_work), 1);
    int rc = sweep_streams_read(db, "idle_work", TDB_KIND_KERNEL, TDB_KIND_MEMSET, &streams, fill_work, 6, io);
    for (size_t k = 0; rc == 0 && k < streams.n; k++) {
        struct sweep_stream *g = &streams.g[k];
        struct idle_work *v = (struct idle_work *)g->rows;
        if (!work_sorted(v, g->n))
            qsort(v, g->n, sizeof *v, cmp_work);
        for (size_t i = 0; i < g->n; i++)
            sums_next(&s, i == 0, v[i].s, v[i].en, (int)v[i].has_launch, v[i].launch);
        sweep_streams_bind(&streams, g, ins);
        rc = sums_write(&s, ins);
    }
    sweep_streams_free(&streams);
    if (rc < 0) /* (a refusal, 1, is said) */
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

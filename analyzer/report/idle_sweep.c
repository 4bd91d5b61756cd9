/* idle_sweep.c: HTA's GPU idle time breakdown per rank, device and stream in one pass over the GPU work
 * sorted by stream and start (queries/idle_sorted.sql). Each gap runs from the previous piece of work's
 * end to the next one's start: host wait when the next one's launch call started after that end (the
 * host had not enqueued it yet), else kernel wait when the gap is shorter than the cutoff, else other.
 * A negative gap (work overlapping on a stream) is no idle time unless negative_gaps (HTA sums it).
 * A SQL window function (lag over every piece of GPU work) did this in idle_gaps.sql, which the summary
 * line still uses; this pass gives the same sums. queries/idle.sql prints them. */
#include "idle_sweep.h"
#include "report.h"
#include "sweep_group.h"
#include <stdio.h>

struct idle_sums {
    struct sweep_group g; /* rank, device, stream */
    int64_t gaps, idle, host, kernel, other, prev_end;
};

/* Writes one stream's row when it had a gap (two pieces of work or more). 0 or -1. */
static int sums_write(const struct idle_sums *s, sqlite3_stmt *ins)
{
    if (!s->g.open || s->gaps == 0)
        return 0;
    sweep_group_bind(&s->g, ins);
    sqlite3_bind_int64(ins, 4, s->idle);
    sqlite3_bind_int64(ins, 5, s->host);
    sqlite3_bind_int64(ins, 6, s->kernel);
    sqlite3_bind_int64(ins, 7, s->other);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int idle_sweep(sqlite3 *db, int64_t kernel_wait_ns, int negative_gaps, struct report_io *io)
{
    sqlite3_stmt *ins, *st;
    if (sweep_table(db, "idle_stats (rank, device, stream, idle_ns, host_wait_ns, kernel_wait_ns, other_ns)", 7, &ins,
                    io) != 0 ||
        !(st = report_prepare(db, "idle_sorted", io))) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct idle_sums s = {.g.n = 3};
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t start = sqlite3_column_int64(st, 3), end = sqlite3_column_int64(st, 4);
        if (!sweep_group_same(&s.g, st)) {
            if (sums_write(&s, ins) != 0 || sweep_group_take(&s.g, st) != 0)
                rc = -1;
            s.gaps = s.idle = s.host = s.kernel = s.other = 0;
        } else {
            int64_t raw = start - s.prev_end, gap = negative_gaps || raw > 0 ? raw : 0;
            int host = sqlite3_column_type(st, 5) != SQLITE_NULL && sqlite3_column_int64(st, 5) > s.prev_end;
            s.gaps++;
            s.idle += gap;
            if (host)
                s.host += gap;
            else if (raw < kernel_wait_ns)
                s.kernel += gap;
            else
                s.other += gap;
        }
        s.prev_end = end;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc == 0 && sums_write(&s, ins) != 0)
        rc = -1;
    if (rc != 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sweep_group_free(&s.g);
    sqlite3_finalize(st);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

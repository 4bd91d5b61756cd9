/* device_time.c: the whole-trace device utilisation that `tracedb summary` shows, computed once at
 * import: for each device, the span from its first GPU event's start to its last one's end, the time
 * any GPU work runs (the union of intervals across streams: overlaps count once) and the time
 * computation runs. Written to device_stats; `tracedb device` computes the same per window in SQL. */
#define _GNU_SOURCE
#include "device_time.h"
#include <stdlib.h>
#include <string.h>

struct device_interval {
    int64_t device, start, end;
    int cls;
};

static int has_prefix(struct tdb_str s, const char *p)
{
    size_t n = strlen(p);
    return s.n >= n && memcmp(s.p, p, n) == 0;
}

static int contains(struct tdb_str s, const char *p)
{
    return s.p && memmem(s.p, s.n, p, strlen(p)) != NULL;
}

enum device_class device_time_class(int kind, struct tdb_str name)
{
    if (kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET || has_prefix(name, "Memcpy") ||
        has_prefix(name, "hipMemcpy") || contains(name, "Memset") || has_prefix(name, "dma"))
        return DC_MEMORY;
    if (has_prefix(name, "nccl") || contains(name, "ncclKernel") || has_prefix(name, "hccl"))
        return DC_COMMUNICATION;
    return DC_COMPUTATION;
}

int device_time_add(struct device_time *d, int64_t device, int64_t start, int64_t end, enum device_class c)
{
    if (d->n == d->cap) {
        size_t ncap = d->cap ? d->cap * 2 : 4096;
        struct device_interval *nv = realloc(d->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        d->v = nv, d->cap = ncap;
    }
    d->v[d->n++] = (struct device_interval){device, start, end, (int)c};
    return 0;
}

static int cmp_interval(const void *a, const void *b)
{
    const struct device_interval *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* Adds [s, e) to a running union (cur_s, cur_e, total), intervals coming in start order. */
static void union_add(int64_t s, int64_t e, int64_t *cs, int64_t *ce, int64_t *total)
{
    if (*ce <= *cs) { /* empty */
        *cs = s, *ce = e;
    } else if (s > *ce) {
        *total += *ce - *cs;
        *cs = s, *ce = e;
    } else if (e > *ce) {
        *ce = e;
    }
}

int device_time_write(struct device_time *d, sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT INTO device_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (d->n)
        qsort(d->v, d->n, sizeof *d->v, cmp_interval);
    int rc = 0;
    for (size_t i = 0; i < d->n && rc == 0;) {
        int64_t dev = d->v[i].device, first = d->v[i].start, last = d->v[i].end;
        int64_t bs = 0, be = 0, busy = 0, rs = 0, re = 0, run = 0, events = 0;
        for (; i < d->n && d->v[i].device == dev; i++, events++) {
            const struct device_interval *x = &d->v[i];
            if (x->end > last)
                last = x->end;
            union_add(x->start, x->end, &bs, &be, &busy);
            if (x->cls == DC_COMPUTATION)
                union_add(x->start, x->end, &rs, &re, &run);
        }
        busy += be - bs;
        run += re - rs;
        sqlite3_bind_int64(st, 1, trace_id);
        sqlite3_bind_int64(st, 2, dev);
        sqlite3_bind_int64(st, 3, first);
        sqlite3_bind_int64(st, 4, last);
        sqlite3_bind_int64(st, 5, busy);
        sqlite3_bind_int64(st, 6, run);
        sqlite3_bind_int64(st, 7, events);
        rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    d->n = 0;
    return rc;
}

void device_time_free(struct device_time *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}

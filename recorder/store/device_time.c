/* device_time.c: the whole-trace device utilisation that `tracedb summary` shows, computed once at
 * import: for each device, the span from its first GPU event's start to its last one's end, the time
 * any GPU work runs (the union of intervals across streams: overlaps count once) and the time
 * computation runs. Written to device_stats; `tracedb device` computes the same per window in SQL. */
#define _GNU_SOURCE
#include "device_time.h"
#include "stmt_cache.h"
#include <stdlib.h>
#include <string.h>

/* 8 bytes an event: the interval itself stays in the importer's key arrays. */
struct device_interval {
    uint32_t ord;
    int32_t device_class; /* device * 4 + class */
};

struct sort_ctx {
    const int64_t *start;
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

int device_time_add(struct device_time *d, uint32_t ord, int64_t device, enum device_class c)
{
    if (device < 0 || device > INT32_MAX / 4)
        return 0; /* not a device index: left out of the utilisation */
    if (d->n == d->cap) {
        size_t ncap = d->cap ? d->cap * 2 : 4096;
        struct device_interval *nv = realloc(d->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        d->v = nv, d->cap = ncap;
    }
    d->v[d->n++] = (struct device_interval){ord, (int32_t)(device * 4 + (int64_t)c)};
    return 0;
}

static int cmp_interval(const void *a, const void *b, void *ctx)
{
    const struct device_interval *x = a, *y = b;
    const int64_t *start = ((const struct sort_ctx *)ctx)->start;
    if (x->device_class / 4 != y->device_class / 4)
        return x->device_class / 4 < y->device_class / 4 ? -1 : 1;
    return (start[x->ord] > start[y->ord]) - (start[x->ord] < start[y->ord]);
}

/* Adds [s, e) to a running union (cur_s, cur_e, total), intervals coming in start order. */
static void union_add(int64_t s, int64_t e, int64_t *cs, int64_t *ce, int64_t *total)
{
    if (*ce <= *cs) { /* empty */
        *cs = s, *ce = e;
    } else if (s > *ce) {
        *total = tdb_sat_add(*total, *ce - *cs);
        *cs = s, *ce = e;
    } else if (e > *ce) {
        *ce = e;
    }
}

int device_time_write(struct device_time *d, const int64_t *start, const int64_t *dur, sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(db, "INSERT INTO device_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, 0, &st, NULL) != SQLITE_OK)
        return -1;
    struct sort_ctx ctx = {start};
    if (d->n)
        qsort_r(d->v, d->n, sizeof *d->v, cmp_interval, &ctx);
    int rc = 0;
    for (size_t i = 0; i < d->n && rc == 0;) {
        int64_t dev = d->v[i].device_class / 4, first = start[d->v[i].ord], last = first;
        int64_t bs = 0, be = 0, busy = 0, rs = 0, re = 0, run = 0, events = 0;
        for (; i < d->n && d->v[i].device_class / 4 == dev; i++, events++) {
            int64_t s = start[d->v[i].ord], e = s + dur[d->v[i].ord];
            if (e > last)
                last = e;
            union_add(s, e, &bs, &be, &busy);
            if (d->v[i].device_class % 4 == DC_COMPUTATION)
                union_add(s, e, &rs, &re, &run);
        }
        busy = tdb_sat_add(busy, be - bs);
        run = tdb_sat_add(run, re - rs);
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
    tdb_stmt_finalize(st);
    d->n = 0;
    return rc;
}

void device_time_free(struct device_time *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}

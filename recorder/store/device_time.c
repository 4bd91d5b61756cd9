/* device_time.c: the whole-trace device utilisation that `tracedb summary` shows, computed once at
 * import: for each device, the span from its first GPU event's start to its last one's end, the time
 * any GPU work runs (the union of intervals across streams: overlaps count once) and the time
 * computation runs. Written to device_stats; `tracedb device` computes the same per window in SQL. */
#include "device_time.h"
#include "kernel_type.h"
#include "spill_sort.h"
#include "stmt_cache.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct device_interval {
    int64_t start, dur;
    int32_t device_class; /* device * 4 + class */
    uint32_t ord;
};

static int cmp_interval(const void *a, const void *b)
{
    const struct device_interval *x = a, *y = b;
    if (x->device_class / 4 != y->device_class / 4)
        return x->device_class / 4 < y->device_class / 4 ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

enum device_class device_time_class(int kind, struct tdb_str name)
{
    if (kind == TDB_KIND_EXECUTION || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET)
        return DC_MEMORY; /* an execution: busy, not computing; its operators compute (Furiosa's NPU) */
    switch (tdb_kernel_type_of(name.p, name.n)) {
    case TDB_KT_COMPUTATION:
        return DC_COMPUTATION;
    case TDB_KT_COMMUNICATION:
        return DC_COMMUNICATION;
    case TDB_KT_MEMORY:
        return DC_MEMORY;
    case TDB_KT_OTHER:
        break;
    }
    return DC_OTHER; /* busy, not computing: HTA's temporal breakdown counts only computation kernels as compute */
}

int device_time_add(struct device_time *d, uint32_t ord, int64_t start, int64_t dur, int64_t device,
                    enum device_class c, size_t budget, const char *dir)
{
    if (device < 0 || device > INT32_MAX / 4)
        return 0; /* not a device index: left out of the utilisation */
    if (!d->v && !(d->v = spill_sort_new(sizeof(struct device_interval), budget, cmp_interval, dir)))
        return -1;
    struct device_interval *v = spill_sort_push(d->v);
    if (!v)
        return -1;
    *v = (struct device_interval){start, dur, (int32_t)(device * 4 + (int64_t)c), ord};
    return 0;
}

const char *device_time_error(const struct device_time *d)
{
    return d->err[0] ? d->err : d->v ? spill_sort_error(d->v) : NULL;
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

int device_time_write(struct device_time *d, sqlite3 *db, int64_t trace_id)
{
    sqlite3_stmt *st;
    if (!d->v)
        return 0;
    if (spill_sort_done(d->v) != 0 ||
        tdb_stmt_prepare(db, "INSERT INTO device_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, 0, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0;
    const struct device_interval *v = spill_sort_next(d->v);
    while (v && rc == 0) {
        int64_t dev = v->device_class / 4, first = v->start, last = first;
        int64_t bs = 0, be = 0, busy = 0, rs = 0, re = 0, run = 0, events = 0;
        for (; v && v->device_class / 4 == dev; v = spill_sort_next(d->v), events++) {
            int64_t s = v->start, e = s + v->dur;
            if (e > last)
                last = e;
            union_add(s, e, &bs, &be, &busy);
            if (v->device_class % 4 == DC_COMPUTATION)
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
    if (spill_sort_error(d->v)) {
        snprintf(d->err, sizeof d->err, "%s", spill_sort_error(d->v));
        rc = -1;
    }
    spill_sort_free(d->v); /* its memory goes back before the sweep's */
    d->v = NULL;
    return rc;
}

void device_time_free(struct device_time *d)
{
    spill_sort_free(d->v);
    memset(d, 0, sizeof *d);
}

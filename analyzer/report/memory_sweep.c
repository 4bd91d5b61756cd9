/* memory_sweep.c: `tracedb memory`'s pass (see memory_sweep.h). The SQL it replaces ran three window
 * functions (a running sum, a row number for the peak, the next event at each address) over every
 * [memory] event: 0.63 s on the 2 M-event database. Here the events are grouped by (trace, device type,
 * device) as SQL gave them (NULL and text keys too), each group sorted by (start, id):
 *   allocated  the event's "Total Allocated", else the running sum of bytes (NULL until one has bytes);
 *   the peak   the highest allocated, the earliest at a tie (then the lowest id): its time and operator;
 *   leaks      sorted again by (address, start, id): an allocation whose next event at its address is
 *              another allocation, one without bytes, or none; where allocations carry no address
 *              (unpaired), allocated minus freed (none when below zero);
 *   counts     allocations (bytes > 0), frees (bytes < 0), their bytes; the highest "Total Reserved". */
#include "memory_sweep.h"
#include "report.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdlib.h>
#include <string.h>

struct mem_event {
    int64_t start, id, bytes, addr, total, parent;
    uint8_t has_bytes, has_addr, has_total, has_parent;
};

struct mem_group {
    int64_t trace;
    sqlite3_value *device_type, *device;
    struct mem_event *v;
    size_t n, cap;
    int64_t reserved; /* the highest Total Reserved */
    int has_reserved;
};

static int by_time(const void *a, const void *b)
{
    const struct mem_event *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static int by_address(const void *a, const void *b)
{
    const struct mem_event *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return by_time(a, b);
}

static int write_group(sqlite3_stmt *ins, struct mem_group *g)
{
    qsort(g->v, g->n, sizeof *g->v, by_time);
    int64_t running = 0, allocs = 0, frees = 0, in = 0, out = 0;
    int has_running = 0;
    const struct mem_event *peak = NULL;
    int64_t peak_value = 0;
    int peak_known = 0; /* the peak has a value (NULLs sort last in SQL's DESC) */
    for (size_t i = 0; i < g->n; i++) {
        const struct mem_event *m = &g->v[i];
        if (m->has_bytes) {
            /* a stranger's database may hold any byte counts: the sums saturate */
            running = tdb_sat_add(running, m->bytes), has_running = 1;
            if (m->bytes > 0)
                allocs++, in = tdb_sat_add(in, m->bytes);
            else if (m->bytes < 0)
                frees++, out = tdb_sat_sub(out, m->bytes);
        }
        int known = m->has_total || has_running;
        int64_t allocated = m->has_total ? m->total : running;
        if (!peak || (known && (!peak_known || allocated > peak_value)))
            peak = m, peak_value = allocated, peak_known = known;
    }
    sqlite3_bind_int64(ins, 1, g->trace);
    sqlite3_bind_value(ins, 2, g->device_type);
    sqlite3_bind_value(ins, 3, g->device);
    if (peak_known)
        sqlite3_bind_int64(ins, 4, peak_value);
    else
        sqlite3_bind_null(ins, 4);
    sqlite3_bind_int64(ins, 5, peak->start);
    if (peak->has_parent)
        sqlite3_bind_int64(ins, 6, peak->parent);
    else
        sqlite3_bind_null(ins, 6);
    if (g->has_reserved)
        sqlite3_bind_int64(ins, 7, g->reserved);
    else
        sqlite3_bind_null(ins, 7);
    if (has_running) { /* SQL's sum(bytes > 0) over no bytes at all is NULL */
        sqlite3_bind_int64(ins, 8, allocs);
        sqlite3_bind_int64(ins, 9, frees);
    } else {
        sqlite3_bind_null(ins, 8);
        sqlite3_bind_null(ins, 9);
    }
    sqlite3_bind_int64(ins, 10, in);
    sqlite3_bind_int64(ins, 11, out);
    /* leaks: per address in time order */
    qsort(g->v, g->n, sizeof *g->v, by_address);
    int64_t leaked = 0, unpaired = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct mem_event *m = &g->v[i], *next = i + 1 < g->n ? &g->v[i + 1] : NULL;
        if (!m->has_bytes || m->bytes <= 0)
            continue;
        if (!m->has_addr) {
            unpaired++;
            continue;
        }
        if (next && (!next->has_addr || next->addr != m->addr))
            next = NULL;
        if (!next || !next->has_bytes || next->bytes > 0)
            leaked = tdb_sat_add(leaked, m->bytes);
    }
    /* allocations with no address pair with no free: what is left is allocated minus freed, where that is
     * not below zero (frees of what was allocated before the trace began); else not known */
    if (unpaired && in - out >= 0)
        sqlite3_bind_int64(ins, 12, in - out);
    else if (unpaired)
        sqlite3_bind_null(ins, 12);
    else
        sqlite3_bind_int64(ins, 12, leaked);
    sqlite3_bind_int64(ins, 13, unpaired);
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int memory_sweep(sqlite3 *db, struct report_io *io)
{
    sqlite3_stmt *ins = NULL, *rows = NULL;
    struct sweep_index groups;
    sweep_index_init(&groups, sizeof(struct mem_group));
    int rc = -1, step;
    if (sweep_table(db,
                    "memory_agg (trace_id, device_type, device, peak_allocated, peak_ns, peak_parent, peak_reserved, "
                    "allocs, frees, allocated_bytes, freed_bytes, leaked, unpaired)",
                    13, &ins, io) != 0 ||
        !(rows = report_prepare(db, "memory_rows", io))) {
        sweep_index_free(&groups);
        sqlite3_finalize(ins), sqlite3_finalize(rows);
        return 1;
    }
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        unsigned char key[512];
        int64_t trace = sqlite3_column_int64(rows, 0);
        memcpy(key, &trace, sizeof trace);
        size_t len = sweep_key_add(key, sizeof trace, sizeof key, rows, 1);
        len = sweep_key_add(key, len, sizeof key, rows, 2);
        int fresh;
        struct mem_group *g = sweep_index_get(&groups, key, len, &fresh);
        if (!g)
            goto oom;
        if (fresh) {
            g->trace = trace;
            g->device_type = sqlite3_value_dup(sqlite3_column_value(rows, 1));
            g->device = sqlite3_value_dup(sqlite3_column_value(rows, 2));
            if (!g->device_type || !g->device)
                goto oom;
        }
        if (g->n == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 256;
            struct mem_event *v = realloc(g->v, cap * sizeof *v);
            if (!v)
                goto oom;
            g->v = v, g->cap = cap;
        }
        struct mem_event *m = &g->v[g->n++];
        m->start = sqlite3_column_int64(rows, 3), m->id = sqlite3_column_int64(rows, 4);
        m->has_bytes = sqlite3_column_type(rows, 5) != SQLITE_NULL, m->bytes = sqlite3_column_int64(rows, 5);
        m->has_addr = sqlite3_column_type(rows, 6) != SQLITE_NULL, m->addr = sqlite3_column_int64(rows, 6);
        m->has_total = sqlite3_column_type(rows, 7) != SQLITE_NULL, m->total = sqlite3_column_int64(rows, 7);
        m->has_parent = sqlite3_column_type(rows, 9) != SQLITE_NULL, m->parent = sqlite3_column_int64(rows, 9);
        if (sqlite3_column_type(rows, 8) != SQLITE_NULL) {
            int64_t r = sqlite3_column_int64(rows, 8);
            if (!g->has_reserved || r > g->reserved)
                g->reserved = r, g->has_reserved = 1;
        }
    }
    if (step != SQLITE_DONE)
        goto sql_error;
    for (size_t k = 0; k < groups.n; k++)
        if (write_group(ins, sweep_index_at(&groups, k)) != 0)
            goto sql_error;
    rc = 0;
    goto done;
oom:
    fprintf(io->err, "%s: out of memory\n", io->prog);
    goto done;
sql_error:
    fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
done:
    for (size_t k = 0; k < groups.n; k++) {
        struct mem_group *g = sweep_index_at(&groups, k);
        sqlite3_value_free(g->device_type), sqlite3_value_free(g->device);
        free(g->v);
    }
    sweep_index_free(&groups);
    sqlite3_finalize(ins), sqlite3_finalize(rows);
    return rc == 0 ? 0 : 1;
}

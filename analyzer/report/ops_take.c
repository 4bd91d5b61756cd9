/* ops_take.c: events into `tracedb ops`'s pass (see ops_sweep_internal.h), whichever source read them
 * (SQLite's rows, by ops_read_range here; the import's pack, ops_pack.c): a CPU-side event into its
 * group, with the [memory] bytes it holds and its parent; GPU work into its device row, kept for the
 * attribution. */
#include "ops_sweep_internal.h"
#include "embedded.h"
#include "kinds.h"
#include "report.h"
#include <stdint.h>
#include <string.h>

/* Whether [memory] event m comes before (trace, ts): before it, or at it too (after). */
static int mem_before(const struct mem_at *m, int64_t trace, int64_t ts, int after)
{
    return m->trace < trace || (m->trace == trace && (m->ts < ts || (after && m->ts == ts)));
}

/* The first [memory] event at (trace, ts) or after it (after: the first past it), searched outward from
 * place from: the events come in id order, mostly in time order too, so the answer is near the last. */
static size_t mem_bound(const struct ops_pass *p, int64_t trace, int64_t ts, int after, size_t from)
{
    size_t n = p->nmem, lo, hi, step = 1;
    if (from > n)
        from = n;
    if (from < n && mem_before(&p->mem[from], trace, ts, after)) { /* past from: gallop up */
        lo = from + 1, hi = from + 1;
        while (hi < n && mem_before(&p->mem[hi], trace, ts, after))
            lo = hi + 1, hi = hi + step < n ? hi + step : n, step *= 2;
    } else { /* at from or before it: gallop down */
        lo = from, hi = from;
        while (lo > 0 && !mem_before(&p->mem[lo - 1], trace, ts, after))
            hi = lo - 1, lo = lo - 1 > step ? lo - 1 - step : 0, step *= 2;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mem_before(&p->mem[mid], trace, ts, after))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The bytes of the [memory] events an event of thread holds, in [start, end] (host, device). */
static void memory_held(struct ops_part *part, int64_t thread, int64_t start, int64_t end, int64_t *host, int64_t *device)
{
    const struct ops_pass *p = part->p;
    if (p->one_trace)
        part->trace_seen = p->one_trace;
    else if (thread != part->thread_seen || !part->trace_seen) {
        part->thread_seen = thread;
        part->trace_seen = strmap_get(&p->trace_of, &thread, sizeof thread);
    }
    *host = *device = 0;
    if (part->trace_seen < 0)
        return;
    size_t a = mem_bound(p, part->trace_seen, start, 0, part->mem_hint), b = mem_bound(p, part->trace_seen, end, 1, a);
    part->mem_hint = a;
    if (a >= b)
        return;
    const struct mem_at *last = &p->mem[b - 1], *before = a > 0 && p->mem[a - 1].trace == part->trace_seen ? &p->mem[a - 1] : NULL;
    *host = last->host - (before ? before->host : 0);
    *device = last->device - (before ? before->device : 0);
}

/* The rank (by rank: its thread's) or step (by step: the latest-starting one holding its key, the start of
 * a CPU-side event or of GPU work's launch) of row r (gpu: GPU work); NULL and -1 for none. */
static void row_rank(struct ops_part *part, const struct ops_row *r, int gpu, const sqlite3_value **rank, int64_t *rank_key)
{
    const struct ops_pass *p = part->p;
    *rank = NULL, *rank_key = -1;
    if (p->o->by_rank) {
        int64_t thread = r->key;
        int64_t at = strmap_get(&p->rank_ix, &thread, sizeof thread);
        if (at >= 0)
            *rank = p->ranks[at], *rank_key = p->rank_key[at];
    } else if (p->o->by_step) {
        long k = step_index_find(&p->steps, r->key, &part->step_hint[gpu]);
        if (k >= 0)
            *rank = p->steps.v[k].name, *rank_key = p->steps.v[k].first;
    }
}

/* The part's group of (rank, name, stack, device, shapes), made when new: most events find theirs among
 * those met lately (seen), before the hash map. NULL when out of memory. */
static struct group *group_for(struct ops_part *part, struct buf *key, const sqlite3_value *rank, int64_t rank_key,
                               int64_t name_id, int32_t stack, int32_t device, const char *shapes)
{
    const struct ops_pass *p = part->p;
    struct group_seen *seen = &part->seen[((uint64_t)name_id * 0x9E3779B97F4A7C15u + (uint64_t)rank_key + (uint64_t)stack +
                                           (uint64_t)device) >> 32 & (GROUPS_SEEN - 1)];
    if (!p->o->by_shape && seen->group && seen->name_id == name_id && seen->rank_key == rank_key && seen->stack == stack &&
        seen->device == device)
        return sweep_index_at(&part->groups, seen->group - 1);
    int fresh;
    struct group *g = ops_group_key(key, rank_key, name_id, stack, device, shapes) == 0
                          ? sweep_index_get(&part->groups, key->p, key->n, &fresh) : NULL;
    if (!g)
        return NULL;
    if (fresh) {
        g->rank = rank, g->rank_key = rank_key, g->name_id = name_id, g->stack = stack, g->device = device;
        if (shapes && !(g->shapes = strdup(shapes)))
            return NULL;
    }
    if (!p->o->by_shape)
        *seen = (struct group_seen){rank_key, name_id, stack, device,
                                    (size_t)((char *)g - part->groups.groups) / part->groups.size + 1};
    return g;
}

/* A piece of GPU work (row r) into its device row: PyTorch lists every device event
 * (DeviceType.CUDA: kernels, memcpy, memset) as a row of its own, apart from any CPU-side row of its name,
 * its self and total device time its duration, no CPU time or memory, empty shapes (but a kernel's own
 * Input Dims: RAF's carry them) and stack (the rank or
 * step its launch's, else its own start's: as `kernels` counts it). 0, or -2 when out of memory. */
static int take_device_event(struct ops_part *part, const struct ops_row *r, struct buf *key)
{
    const sqlite3_value *rank;
    int64_t rank_key;
    row_rank(part, r, 1, &rank, &rank_key);
    struct group *g = group_for(part, key, rank, rank_key, r->name_id, OP_STACK_EMPTY, 1,
                                part->p->o->by_shape ? (r->shapes ? r->shapes : "") : NULL);
    if (!g)
        return -2;
    int64_t dur = r->dur;
    struct sums s = {.calls = 1, .self_dev = dur, .dev_total = dur};
    ops_sums_add(&part->overflow, &g->s, &s);
    return 0;
}

/* A CPU-side event (row r) into its part's group. 0, or -2 when out of memory. */
static int take_cpu_event(struct ops_part *part, const struct ops_row *r, struct buf *key)
{
    struct ops_pass *p = part->p;
    const sqlite3_value *rank;
    int64_t rank_key;
    row_rank(part, r, 0, &rank, &rank_key);
    int32_t stack = p->stacks ? op_stacks_of(p->stacks, r->parent_value) : OP_STACK_EMPTY;
    struct group *g = group_for(part, key, rank, rank_key, r->name_id, stack, 0, r->shapes);
    if (!g)
        return -2;
    struct sums s = {.calls = 1, .self_cpu = r->self, .cpu_total = r->dur};
    if (p->nmem) { /* its self: less its CPU-side children's, once all are read (ops_merge.c) */
        int64_t end;
        if (__builtin_add_overflow(r->start, s.cpu_total, &end))
            end = INT64_MAX;
        memory_held(part, r->thread, r->start, end, &s.cpu_mem, &s.dev_mem);
        s.self_cpu_mem = s.cpu_mem, s.self_dev_mem = s.dev_mem;
        if (s.cpu_mem || s.dev_mem) {
            struct held *h = ops_push((void **)&part->held, &part->nheld, &part->cap_held, sizeof *h);
            if (!h)
                return -2;
            *h = (struct held){r->id, s.cpu_mem, s.dev_mem};
        }
    }
    if (r->flops_type == SQLITE_INTEGER)
        s.flops_seen = 1, s.flops_i = r->flops_i, s.flops_d = (long double)s.flops_i;
    else if (r->flops_type != SQLITE_NULL)
        s.flops_seen = 1, s.flops_real = 1, s.flops_d = r->flops_d;
    ops_sums_add(&part->overflow, &g->s, &s);
    ops_add(&part->overflow, &part->total_self_cpu, s.self_cpu);
    struct slot *sl = ops_slot_of(p, r->id); /* in a half: a block only its thread makes (the halves part at a block's edge) */
    if (!sl)
        return -2;
    sl->group = (int32_t)(((char *)g - part->groups.groups) / (ptrdiff_t)part->groups.size);
    return ops_slot_set_parent(p, sl, r->parent) ? -2 : 0;
}

int ops_take_row(struct ops_part *part, const struct ops_row *r, struct buf *key)
{
    int kind = (int)r->kind, rc = 0;
    int gpu = kind == TDB_KIND_KERNEL || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET;
    if (kind == TDB_KIND_OP || kind == TDB_KIND_RANGE || kind == TDB_KIND_RUNTIME || kind == TDB_KIND_DRIVER)
        rc = take_cpu_event(part, r, key);
    else if (gpu)
        rc = take_device_event(part, r, key);
    if (rc == 0 && gpu && r->has_launch) {
        struct launch *l = ops_push((void **)&part->launches, &part->nlaunches, &part->cap_launches, sizeof *l);
        if (!l)
            return -2;
        *l = (struct launch){r->launch, r->dur};
    }
    return rc;
}

/* The columns read, in this order (see events_sql): C_KEY is the thread (by rank) or the start (by step; GPU
 * work's launch's start where it has one). */
enum { C_ID, C_KIND, C_NAME, C_DUR, C_SELF, C_LAUNCH, C_PARENT, C_BYTES, C_KEY, C_SHAPES, C_FLOPS, C_THREAD, C_START };

/* queries/ops_event_rows.sql with only the columns this grouping reads: the rest are NULL in a query
 * around it, which SQLite flattens, so that it never computes them (2 M rows: the thread, the start and
 * the shapes' and FLOPs' tests on rows that need none cost SQLite a fifth of the scan). NULL when out
 * of memory. */
char *ops_events_sql(const struct ops_sweep_options *o, int memory /* 0 none, 1 one trace's, 2 more */)
{
    const char *rows = tdb_embedded_get("queries/ops_event_rows.sql");
    size_t n = strcspn(rows, ";"); /* the statement, without its ';' */
    return sqlite3_mprintf("SELECT id, kind, name_id, dur_ns, self_ns, launch_id, parent_id, bytes, %s, %s, %s, %s, %s FROM (%.*s\n)",
                           o->by_rank ? "thread_id" : o->by_step ? "coalesce(launch_ns, start_ns)" : "NULL", o->by_shape ? "input_shapes" : "NULL",
                           o->with_flops ? "flops" : "NULL", memory > 1 ? "thread_id" : "NULL", memory ? "start_ns" : "NULL",
                           (int)n, rows);
}

/* Row r of st (ops_events_sql's columns), with the columns its kind's taking uses (a call each costs ~11 ns,
 * 1.4 M rows a pass: the others are not read). */
static void sql_row(const struct ops_pass *p, sqlite3_stmt *st, struct ops_row *r)
{
    r->kind = sqlite3_column_int(st, C_KIND);
    int gpu = r->kind == TDB_KIND_KERNEL || r->kind == TDB_KIND_MEMCPY || r->kind == TDB_KIND_MEMSET;
    int cpu = r->kind == TDB_KIND_OP || r->kind == TDB_KIND_RANGE || r->kind == TDB_KIND_RUNTIME || r->kind == TDB_KIND_DRIVER;
    if (!gpu && !cpu)
        return;
    r->name_id = sqlite3_column_int64(st, C_NAME);
    r->dur = sqlite3_column_int64(st, C_DUR);
    r->key = p->o->by_rank || p->o->by_step ? sqlite3_column_int64(st, C_KEY) : 0;
    r->shapes = p->o->by_shape ? (const char *)sqlite3_column_text(st, C_SHAPES) : NULL;
    r->flops_type = SQLITE_NULL;
    if (gpu) {
        sqlite3_value *launch = sqlite3_column_value(st, C_LAUNCH); /* its type and value in one call */
        r->has_launch = sqlite3_value_type(launch) != SQLITE_NULL;
        r->launch = r->has_launch ? sqlite3_value_int64(launch) : 0;
        return;
    }
    r->id = sqlite3_column_int64(st, C_ID);
    r->self = sqlite3_column_int64(st, C_SELF);
    r->parent_value = sqlite3_column_value(st, C_PARENT); /* one column call for its type and value */
    r->parent = sqlite3_value_type(r->parent_value) == SQLITE_NULL ? NO_PARENT : sqlite3_value_int64(r->parent_value);
    if (p->nmem)
        r->start = sqlite3_column_int64(st, C_START), r->thread = sqlite3_column_int64(st, C_THREAD);
    if (p->o->with_flops && (r->flops_type = sqlite3_column_type(st, C_FLOPS)) == SQLITE_INTEGER)
        r->flops_i = sqlite3_column_int64(st, C_FLOPS);
    else if (r->flops_type != SQLITE_NULL)
        r->flops_d = sqlite3_column_double(st, C_FLOPS);
}

int ops_read_range(struct ops_part *part, sqlite3_stmt *st, int64_t lo, int64_t hi, struct buf *key)
{
    report_bind_int(st, ":lo", lo);
    report_bind_int(st, ":hi", hi);
    struct ops_row r;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sql_row(part->p, st, &r);
        rc = ops_take_row(part, &r, key);
    }
    sqlite3_reset(st);
    return rc != 0 ? rc : step == SQLITE_DONE ? 0 : -1;
}

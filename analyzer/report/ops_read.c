/* ops_read.c: the events in scope for `tracedb ops`'s pass (see ops_sweep_internal.h): each CPU-side
 * event into its group, GPU work into its device row's and, with [memory] records, kept for the
 * attribution; in two halves of the ids at once, the upper on a second connection and thread, whose
 * groups then join the lower's. */
#include "ops_sweep_internal.h"
#include "kinds.h"
#include "pack_source.h"
#include "report.h"
#include "scope.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_trace_time(const void *a, const void *b)
{
    const struct mem_at *x = a, *y = b;
    if (x->trace != y->trace)
        return x->trace < y->trace ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

/* [memory] events of one side of memory_event's ids, read on one connection (a pthread start routine's
 * work): each with its trace, time and bytes, in memory_event's order. */
struct mem_half {
    sqlite3 *db;
    const struct strmap *trace_of; /* thread id -> its trace's id (read only here: both halves share it) */
    int side;    /* 0 every id; 1 those up to cut; 2 those past it, and any id not a number (a foreign
                  * database's text '123' matches event 123, and SQLite compares a text past every number) */
    int64_t cut;
    struct mem_at *v;
    size_t n, cap;
    int rc; /* 0, or -1 (db error) or -2 (out of memory) */
};

static void *mem_half_read(void *arg)
{
    struct mem_half *h = arg;
    sqlite3_stmt *st;
    /* CROSS JOIN: left to itself SQLite's planner scans every event and looks each up in memory_event,
     * 2.4x the time on the bench database's 2 M events */
    static const char *const within[] = {"", "m.event_id <= ?1 AND ", "m.event_id > ?1 AND "};
    char sql[320];
    snprintf(sql, sizeof sql,
             "SELECT e.thread_id, e.start_ns, e.bytes, coalesce(m.device_type <> 0, 0) FROM main.memory_event m "
             "CROSS JOIN main.event e ON e.id = m.event_id WHERE %se.bytes IS NOT NULL",
             within[h->side]);
    if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
        h->rc = -1;
        return NULL;
    }
    sqlite3_bind_int64(st, 1, h->cut);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t thread = sqlite3_column_int64(st, 0), trace = strmap_get(h->trace_of, &thread, sizeof thread);
        if (trace < 0)
            continue; /* a thread of no trace (a foreign database's): in no CPU-side event's trace either */
        struct mem_at *m = ops_push((void **)&h->v, &h->n, &h->cap, sizeof *m);
        if (!m) {
            rc = -2;
            break;
        }
        int on_device = sqlite3_column_int(st, 3);
        int64_t bytes = sqlite3_column_int64(st, 2);
        *m = (struct mem_at){trace, sqlite3_column_int64(st, 1), on_device ? 0 : bytes, on_device ? bytes : 0};
    }
    sqlite3_finalize(st);
    h->rc = rc != 0 ? rc : step == SQLITE_DONE ? 0 : -1;
    if (h->rc == 0 && h->n)
        qsort(h->v, h->n, sizeof *h->v, by_trace_time);
    return NULL;
}

/* read_memory's [memory] events, each with its trace's key (ids[key - 1]: its id), in two halves where
 * db2 is there; then sorted, with the bytes up to each. */
static int read_memory_halves(struct ops_pass *p, sqlite3 *db2, sqlite3 **failed, sqlite3_value *const *ids, size_t nids)
{
    sqlite3_stmt *st;
    int rc = 0;
    struct mem_half half[2] = {{.db = p->db, .trace_of = &p->trace_of}, {.db = db2, .trace_of = &p->trace_of}};
    if (db2 && sqlite3_prepare_v2(p->db, "SELECT (SELECT min(event_id) FROM main.memory_event), "
                                     "(SELECT max(event_id) FROM main.memory_event)", -1, &st, NULL) == SQLITE_OK) {
        /* parted where both ends are numbers apart (a foreign database's may be texts, or one id) */
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
            sqlite3_column_type(st, 1) == SQLITE_INTEGER && sqlite3_column_int64(st, 0) < sqlite3_column_int64(st, 1)) {
            int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1);
            half[0].cut = half[1].cut = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2); /* lo to hi - 1 */
            half[0].side = 1, half[1].side = 2;
        }
        sqlite3_finalize(st);
    }
    pthread_t thread;
    int threaded = half[1].side && pthread_create(&thread, NULL, mem_half_read, &half[1]) == 0;
    mem_half_read(&half[0]);
    if (threaded)
        pthread_join(thread, NULL);
    else if (half[1].side)
        mem_half_read(&half[1]);
    for (int k = 0; k < 2 && rc == 0; k++)
        if (half[k].rc != 0)
            rc = half[k].rc, *failed = half[k].db;
    if (rc == 0 && half[1].n) { /* the two sorted halves merged (ties: the lower half's first) */
        size_t n = half[0].n + half[1].n, i = 0, j = 0, k = 0;
        struct mem_at *v = malloc(n * sizeof *v);
        if (!v)
            rc = -2;
        while (v && k < n)
            v[k++] = j == half[1].n || (i < half[0].n && by_trace_time(&half[0].v[i], &half[1].v[j]) <= 0) ? half[0].v[i++]
                                                                                                           : half[1].v[j++];
        if (v)
            free(half[0].v), half[0].v = v, half[0].n = half[0].cap = n;
    }
    free(half[1].v);
    p->mem = half[0].v, p->nmem = half[0].n, p->cap_mem = half[0].cap;
    if (rc != 0)
        return rc;
    if (p->nmem && p->mem[0].trace == p->mem[p->nmem - 1].trace && (size_t)p->mem[0].trace <= nids) {
        int64_t t = p->mem[0].trace; /* one trace holds every [memory] event: no thread's needed */
        int64_t others;
        sqlite3_stmt *q;
        if (sqlite3_prepare_v2(p->db, "SELECT count(*) FROM main.trace WHERE id IS NOT ?1", -1, &q, NULL) != SQLITE_OK)
            return -1;
        sqlite3_bind_value(q, 1, ids[t - 1]);
        others = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 1;
        sqlite3_finalize(q);
        if (!others)
            p->one_trace = t;
    }
    for (size_t i = 1; i < p->nmem; i++) /* the bytes up to each, within its trace */
        if (p->mem[i].trace == p->mem[i - 1].trace) {
            ops_add(&p->overflow, &p->mem[i].host, p->mem[i - 1].host);
            ops_add(&p->overflow, &p->mem[i].device, p->mem[i - 1].device);
        }
    return 0;
}

/* Every [memory] event of the database in (trace, time) order, with the bytes up to it (PyTorch counts
 * each in every CPU-side event of its trace whose [start, end] holds its time, whatever its thread), and
 * each thread's trace. Read in memory_event's order, in two halves of its ids at once where there is a
 * second connection (db2: each is a b-tree lookup of its event, SQLite's work and most of the read), and
 * sorted here. 0, or -1 (db error on p->db; *failed says which connection) or -2 (out of memory). */
static int read_memory(struct ops_pass *p, sqlite3 *db2, sqlite3 **failed)
{
    sqlite3_stmt *st;
    *failed = p->db;
    /* each thread's trace as a key from 1, one a trace id (a foreign database's may be negative, 0 or NULL:
     * NULL is one trace too, as SQL's GROUP BY has it); ids[key - 1]: the trace's id */
    if (sqlite3_prepare_v2(p->db, "SELECT t.id, p.trace_id, dense_rank() OVER (ORDER BY p.trace_id) FROM main.thread t "
                                  "JOIN main.process p ON p.id = t.process_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_value **ids = NULL;
    size_t nids = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t thread = sqlite3_column_int64(st, 0), key = sqlite3_column_int64(st, 2);
        if (key < 1) /* (dense_rank() counts from 1) */
            continue;
        if (strmap_put(&p->trace_of, &thread, sizeof thread, key) != 0) {
            rc = -2;
            break;
        }
        if ((size_t)key > nids) {
            sqlite3_value **v = realloc(ids, (size_t)key * sizeof *v);
            if (!v) {
                rc = -2;
                break;
            }
            memset(v + nids, 0, ((size_t)key - nids) * sizeof *v);
            ids = v, nids = (size_t)key;
        }
        if (!ids[key - 1] && !(ids[key - 1] = sqlite3_value_dup(sqlite3_column_value(st, 1))))
            rc = -2;
    }
    sqlite3_finalize(st);
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc == 0)
        rc = read_memory_halves(p, db2, failed, ids, nids);
    for (size_t i = 0; i < nids; i++)
        sqlite3_value_free(ids[i]);
    free(ids);
    return rc;
}

/* The part's events: from the pack where the pass reads it, its stale ranges from SQLite in id order among
 * them (ops_pack_take); else its ids from SQLite. CPU-side ones into groups (with the [memory] bytes each
 * holds), GPU work into its device rows and kept for ops_attribute_all. */
static void *read_part_run(void *arg)
{
    struct ops_part *part = arg;
    struct ops_pass *p = part->p;
    sqlite3_stmt *st;
    char *sql = ops_events_sql(p->o, !p->nmem ? 0 : p->one_trace ? 1 : 2);
    int prepared = sql && sqlite3_prepare_v2(part->db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    if (!prepared) {
        part->rc = sql ? -1 : -2;
        return NULL;
    }
    struct buf key = {0};
    int rc = p->pack ? ops_pack_take(part, st) : 0;
    for (size_t i = 0; !p->pack && i < part->nranges && rc == 0; i++)
        rc = ops_read_range(part, st, part->ranges[i][0], part->ranges[i][1], &key);
    buf_free(&key);
    sqlite3_finalize(st);
    part->rc = rc;
    return NULL;
}

void ops_part_free(struct ops_part *part)
{
    for (size_t i = 0; i < part->groups.n; i++) {
        struct group *g = sweep_index_at(&part->groups, i);
        free(g->shapes), free(g->name);
    }
    sweep_index_free(&part->groups);
    free(part->launches);
    free(part->held);
    free(part->ranges);
    sqlite3_free(part->errmsg);
}

/* A pack found no pack (a stranger's bytes) after its rows were taken: what they made forgotten (the
 * parts' groups, GPU work, held bytes and sums; the events' slots), for the rows to be read instead. */
static void forget_taken(struct ops_pass *p)
{
    for (int k = 0; k < 2; k++) {
        struct ops_part *part = &p->part[k];
        ops_part_free(part);
        sweep_index_init(&part->groups, sizeof(struct group));
        part->launches = NULL, part->held = NULL, part->ranges = NULL, part->errmsg = NULL;
        part->nlaunches = part->cap_launches = part->nheld = part->cap_held = part->nranges = 0;
        part->thread_seen = part->trace_seen = part->total_self_cpu = 0;
        part->mem_hint = part->step_hint[0] = part->step_hint[1] = 0;
        part->overflow = part->rc = 0;
        memset(part->seen, 0, sizeof part->seen);
    }
    for (size_t i = 0; i < (size_t)p->span / BLOCK + 1; i++)
        free(p->blocks[i]), p->blocks[i] = NULL;
    p->pack = NULL;
}

/* The part's ranges of ids to read from SQLite: its own; with the pack, the stale ones clipped to its
 * own. 0, or -1 when out of memory. */
static int part_ranges(const struct ops_pass *p, struct ops_part *part)
{
    size_t n = p->pack ? p->nstale : 1;
    part->ranges = malloc((n ? n : 1) * sizeof *part->ranges);
    if (!part->ranges)
        return -1;
    part->nranges = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t lo = p->pack ? p->stale[i][0] : part->lo, hi = p->pack ? p->stale[i][1] : part->hi;
        if (lo < part->lo)
            lo = part->lo;
        if (hi > part->hi)
            hi = part->hi;
        if (lo <= hi)
            part->ranges[part->nranges][0] = lo, part->ranges[part->nranges][1] = hi, part->nranges++;
    }
    return 0;
}

/* Appends n elements of `size` bytes at from to a growing array. 0, or -1 when out of memory. */
static int push_all(void **v, size_t *len, size_t *cap, const void *from, size_t n, size_t size)
{
    if (!n)
        return 0;
    if (*len + n > *cap) {
        void *m = realloc(*v, (*len + n) * size);
        if (!m)
            return -1;
        *v = m, *cap = *len + n;
    }
    memcpy((char *)*v + *len * size, from, n * size);
    *len += n;
    return 0;
}

/* The upper half's groups, GPU work and events holding [memory] bytes into the lower half's; its events' slots
 * then name the joined groups. 0, or -1 when out of memory. */
static int join_parts(struct ops_pass *p)
{
    struct ops_part *a = &p->part[0], *b = &p->part[1];
    int32_t *to = b->groups.n ? malloc(b->groups.n * sizeof *to) : NULL;
    struct buf key = {0};
    int rc = b->groups.n && !to ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < b->groups.n; i++) {
        struct group *g = sweep_index_at(&b->groups, i), *m = NULL;
        int fresh;
        if (ops_group_key(&key, g->rank_key, g->name_id, g->stack, g->device, g->shapes) != 0 ||
            !(m = sweep_index_get(&a->groups, key.p, key.n, &fresh))) {
            rc = -1;
            break;
        }
        if (fresh)
            m->rank = g->rank, m->rank_key = g->rank_key, m->name_id = g->name_id, m->stack = g->stack, m->device = g->device,
            m->shapes = g->shapes, g->shapes = NULL;
        ops_sums_add(&a->overflow, &m->s, &g->s);
        to[i] = (int32_t)(((char *)m - a->groups.groups) / (ptrdiff_t)a->groups.size);
    }
    buf_free(&key);
    for (size_t k = (size_t)(b->lo - p->lo) / BLOCK; rc == 0 && k <= (size_t)(b->hi - p->lo) / BLOCK; k++) {
        struct slot *blk = p->blocks[k]; /* the upper half's blocks: those its events made */
        for (size_t i = 0; blk && i < BLOCK; i++)
            if (blk[i].group >= 0)
                blk[i].group = to[blk[i].group];
    }
    free(to);
    if (rc == 0 && (push_all((void **)&a->launches, &a->nlaunches, &a->cap_launches, b->launches, b->nlaunches, sizeof *b->launches) != 0 ||
                    push_all((void **)&a->held, &a->nheld, &a->cap_held, b->held, b->nheld, sizeof *b->held) != 0))
        rc = -1;
    ops_add(&a->overflow, &a->total_self_cpu, b->total_self_cpu);
    a->overflow |= b->overflow;
    return rc;
}

/* Reads the events in scope: in two halves at once, the upper on a second connection (scope_reopen)
 * and thread, when there are SPLIT_IDS ids or more within 2^31 of each other; else in one. 0, or -1
 * (printed). */
int ops_read_events(struct ops_pass *p)
{
    struct ops_part *a = &p->part[0], *b = &p->part[1];
    sqlite3 *db2 = p->blocks && p->span >= SPLIT_IDS ? scope_reopen(p->db) : NULL, *failed = NULL;
    int read = p->o->no_memory ? 0 : read_memory(p, db2, &failed);
    report_phase("ops: memory");
    if (read != 0) {
        fprintf(p->io->err, "%s: %s\n", p->io->prog, read == -2 ? "out of memory" : sqlite3_errmsg(failed));
        sqlite3_close(db2);
        return -1;
    }
    a->p = b->p = p, a->db = p->db;
    a->lo = p->blocks ? p->lo : INT64_MIN, a->hi = p->blocks ? p->lo + p->span - 1 : INT64_MAX;
    struct pack_source src;
    if (ops_pack_open(p, &src)) /* (a stranger's stale rows unread: the rows are read, as without a pack) */
        report_phase("ops: pack open");
    pthread_t thread;
    int threaded = 0;
    if (db2) { /* halves parting at a block's edge: each thread makes the blocks of its own ids only (made
                * as ids come, so that sparse ids cost no memory for the gaps) */
        b->db = db2, b->hi = a->hi;
        a->hi = p->lo + (int64_t)((size_t)p->span / BLOCK / 2 * BLOCK) - 1, b->lo = a->hi + 1;
    }
    int rc = 0;
    for (int pass = 0; pass < 2 && rc == 0; pass++) { /* the second: the rows, where the pack was no pack */
        rc = part_ranges(p, a) != 0 || (db2 && part_ranges(p, b) != 0) ? -2 : 0;
        threaded = rc == 0 && db2 && pthread_create(&thread, NULL, read_part_run, b) == 0;
        if (rc == 0)
            read_part_run(a);
        if (threaded)
            pthread_join(thread, NULL);
        else if (rc == 0 && db2)
            read_part_run(b);
        if (rc != 0 || (a->rc != -3 && (!db2 || b->rc != -3)))
            break;
        forget_taken(p);
    }
    if (rc == -2)
        fprintf(p->io->err, "%s: out of memory\n", p->io->prog), rc = -1;
    for (int k = 0; k < (db2 ? 2 : 1) && rc == 0; k++)
        if (p->part[k].rc != 0) {
            fprintf(p->io->err, "%s: %s\n", p->io->prog, p->part[k].rc == -2 ? "out of memory"
                                                          : p->part[k].errmsg ? p->part[k].errmsg
                                                                              : sqlite3_errmsg(p->part[k].db));
            rc = -1;
        }
    if (rc == 0 && db2 && join_parts(p) != 0) {
        fprintf(p->io->err, "%s: out of memory\n", p->io->prog);
        rc = -1;
    }
    p->overflow |= a->overflow;
    p->pack = NULL; /* (src is this function's) */
    sqlite3_close(db2);
    return rc;
}

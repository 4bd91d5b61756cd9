/* ops_sweep.c: `tracedb ops` over a window, per shape, Python stack, step or rank, or with FLOPs (see
 * ops_sweep.h). SQL did this (queries/ops_events.sql, now gone): recursive walks up every launch's,
 * [memory] event's and operator's parents, four joins per event and a GROUP BY over names and shapes:
 * 7 s on a 2 M-event database, and the depth for each event (O(N^2) on N nested operators). Here, with
 * the same rules, in one pass over the events in scope (queries/ops_event_rows.sql):
 *   - each CPU-side event goes to its group: rank (by_rank: its trace's; by_step: the latest-starting
 *     step holding its start, as queries/parts/step_of.sql), name id, input shapes and stack (its
 *     parent's, op_stacks.c);
 *   - each piece of GPU work then adds its duration to the group of the operator around its launch
 *     ("self device") and to the groups of it and every event above it ("device total"), by parent_id
 *     through any event, in scope or not, each once (chain_sums.c: linear in the events, however deep);
 *     each [memory] event likewise its bytes, host or device;
 *   - groups whose names read the same merge (every ProfilerStep#N is ProfilerStep*).
 * The events are read in two halves of their ids at once, the upper on a second connection
 * (scope_reopen) and thread, each into groups of its own that then join: reading rows is SQLite's
 * work and most of the pass (`ops --from 0` on 2 M events 1.26 -> 0.65 s).
 * Sums are int64, and an overflow is an error, as SQL's sum() makes it; FLOPs sum as integers while they
 * fit, then as a double (where sum() would stop with an error). */
#include "ops_sweep.h"
#include "chain_sums.h"
#include "embedded.h"
#include "jsonbuf.h"
#include "op_stacks.h"
#include "report.h"
#include "step_index.h"
#include "sweep_group.h"
#include "kinds.h"
#include "scope.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNREAD (INT64_MIN + 1) /* a parent not read yet */
#define NO_PARENT INT64_MIN    /* none, or no such event */
#define BLOCK 4096
#define READ_ALL 4096 /* parents read one by one before all are read in one scan */
#define SPLIT_IDS (2 * BLOCK) /* events of at least this many ids are read in two halves at once */
#define GROUPS_SEEN 1024      /* a part's groups met lately (a power of 2) */

struct slot { /* what the pass knows of one event id, in 8 bytes (2 M events: 16 MB the pass zeroes, not 32) */
    int32_t parent; /* P_UNREAD, P_NONE, P_OUTSIDE; else its parent's id less lo (blocks) or its index in
                     * parents (the hash map's slots) */
    int32_t group;  /* its group, when it is a CPU-side event in scope; else -1 */
};
enum { P_UNREAD = INT32_MIN, P_NONE, P_OUTSIDE /* an id no event has (outside the ids' range) */ };

struct sums {
    int64_t calls, self_cpu, cpu_total, self_dev, dev_total, cpu_mem, self_cpu_mem, dev_mem, self_dev_mem;
    int64_t flops_i;     /* while every FLOPs value is an integer and the sum fits */
    long double flops_d; /* every value, for when one is not */
    int flops_seen, flops_real;
};

struct group { /* by rank, name id, shapes and stack id; then by rank, name, shapes and stack */
    const sqlite3_value *rank;
    int64_t rank_key; /* the rank's or step's first index among those of equal value; -1 for none */
    int64_t name_id;
    char *name, *shapes; /* shapes: NULL when not grouped by them */
    int32_t stack;       /* by stack: its id (op_stacks.h) */
    struct sums s;
};

struct launch { int64_t launch, dur; };
struct mem { int64_t op, bytes; int on_device; };
struct mem_record { int64_t event; int on_device; }; /* memory_event's rows, by event id */

struct ops_pass;

/* What one reader of the events makes: of the whole scan, or of one half of it (ids lo..hi) on its own
 * connection and thread, whose groups then join the other's. */
struct ops_part {
    _Alignas(128) struct ops_pass *p; /* on lines of its own: the halves' threads write theirs at once */
    sqlite3 *db;
    int64_t lo, hi;
    struct sweep_index groups;
    struct launch *launches;
    size_t nlaunches, cap_launches;
    struct mem *mems;
    size_t nmems, cap_mems;
    int64_t total_self_cpu;
    size_t step_hint; /* by step: the segment its last event fell in (step_index_find) */
    int overflow;
    int rc; /* 0, -1: db's error, -2: out of memory */
    /* groups by (rank key, name id) met lately, in front of the hash map (not with shapes): a step holds a
     * few dozen names, so nearly every event finds its group here (2 M events by step: the map's key and
     * lookup were 6% of the pass) */
    struct group_seen {
        int64_t rank_key, name_id;
        int32_t stack;
        size_t group; /* its index in groups, plus 1; 0: none yet */
    } seen[GROUPS_SEEN];
};

struct ops_pass {
    const struct ops_sweep_options *o;
    sqlite3 *db;
    struct report_io *io;
    sqlite3_stmt *parent_of;
    /* event ids within 2^31 of each other (every database tracedb makes): blocks of BLOCK slots from
     * lo, made when first touched; else a hash map from id to a slot in `slots` */
    int64_t lo, span;
    struct slot **blocks;
    struct strmap slot_ix;
    struct slot *slots;
    size_t nslots, cap_slots;
    int64_t *parents; /* with the hash map: the parents its slots name */
    size_t nparents, cap_parents;
    size_t reads;    /* parents read one by one */
    int all_parents; /* every event's parent is known */
    struct ops_part part[2]; /* the lower half's (or the whole scan's) holds both once joined */
    sqlite3_value **ranks; /* by thread: scope_rank's value */
    int64_t *rank_key;     /* by thread: the first index in ranks of an equal value; -1 for NULL */
    struct strmap rank_ix; /* thread id -> index in ranks */
    struct op_stacks *stacks; /* by stack: every event's */
    size_t nranks;
    struct step_index steps;
    struct mem_record *records; /* memory_event, in event id order: looked up by the events with bytes */
    size_t nrecords, cap_records;
    int64_t total_device; /* the footer's (the self CPU total: part[0]'s) */
    int overflow;
};

static void add(int *overflow, int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *overflow = 1;
}

/* Appends one element of `size` bytes to a growing array; NULL when out of memory. */
static void *push(void **v, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        void *m = realloc(*v, c * size);
        if (!m)
            return NULL;
        *v = m, *cap = c;
    }
    return (char *)*v + size * (*n)++;
}

/* The slot of id, made when new (parent UNREAD, no group); NULL when out of memory. Valid until the next
 * call. */
static struct slot *slot_of(struct ops_pass *p, int64_t id)
{
    if (p->blocks) {
        /* no event has it: a slot of its own, never stored (two ids' difference may not fit in int64) */
        if (id < p->lo || (uint64_t)id - (uint64_t)p->lo >= (uint64_t)p->span) {
            static struct slot none;
            none = (struct slot){P_NONE, -1};
            return &none;
        }
        size_t k = (size_t)((uint64_t)id - (uint64_t)p->lo);
        struct slot **b = &p->blocks[k / BLOCK];
        if (!*b) {
            if (!(*b = malloc(BLOCK * sizeof **b)))
                return NULL;
            for (size_t i = 0; i < BLOCK; i++)
                (*b)[i] = (struct slot){P_UNREAD, -1};
        }
        return &(*b)[k % BLOCK];
    }
    int64_t i = strmap_get(&p->slot_ix, &id, sizeof id);
    if (i >= 0)
        return &p->slots[i];
    struct slot *s = push((void **)&p->slots, &p->nslots, &p->cap_slots, sizeof *s);
    if (!s || strmap_put(&p->slot_ix, &id, sizeof id, (int64_t)(p->nslots - 1)) != 0)
        return NULL;
    *s = (struct slot){P_UNREAD, -1};
    return s;
}

/* The parent a slot holds: an id, UNREAD or NO_PARENT (an id outside the ids' range as one outside it). */
static int64_t slot_parent(const struct ops_pass *p, const struct slot *s)
{
    if (s->parent == P_UNREAD)
        return UNREAD;
    if (s->parent == P_NONE)
        return NO_PARENT;
    if (s->parent == P_OUTSIDE)
        return p->lo > INT64_MIN ? p->lo - 1 : p->lo + p->span;
    return p->blocks ? p->lo + s->parent : p->parents[s->parent];
}

/* Sets a slot's parent (an id, or NO_PARENT). 0, or -1 when out of memory. */
static int slot_set_parent(struct ops_pass *p, struct slot *s, int64_t parent)
{
    if (parent == NO_PARENT)
        s->parent = P_NONE;
    else if (p->blocks)
        s->parent = parent >= p->lo && (uint64_t)parent - (uint64_t)p->lo < (uint64_t)p->span
                        ? (int32_t)((uint64_t)parent - (uint64_t)p->lo) : P_OUTSIDE;
    else if (p->nparents >= INT32_MAX)
        return -1;
    else {
        int64_t *v = push((void **)&p->parents, &p->nparents, &p->cap_parents, sizeof *v);
        if (!v)
            return -1;
        *v = parent, s->parent = (int32_t)(p->nparents - 1);
    }
    return 0;
}

/* Blocks when the ids lie within 2^31 of each other. */
static int ids_range(struct ops_pass *p)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT (SELECT min(id) FROM main.event), (SELECT max(id) FROM main.event)", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : -1;
    int none = sqlite3_column_type(st, 0) == SQLITE_NULL;
    int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1), span;
    sqlite3_finalize(st);
    if (rc != 0 || none || __builtin_sub_overflow(hi, lo, &span) || span >= INT32_MAX)
        return rc;
    p->lo = lo, p->span = span + 1;
    p->blocks = calloc((size_t)p->span / BLOCK + 1, sizeof *p->blocks);
    return p->blocks ? 0 : -1;
}

/* Every event's parent in one scan: cheaper than reading them one by one past a few thousand. */
static int read_all_parents(struct ops_pass *p)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT id, parent_id FROM main.event", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct slot *s = slot_of(p, sqlite3_column_int64(st, 0));
        if (!s || slot_set_parent(p, s, sqlite3_column_type(st, 1) == SQLITE_NULL ? NO_PARENT : sqlite3_column_int64(st, 1)) != 0)
            rc = -1;
    }
    sqlite3_finalize(st);
    p->all_parents = 1; /* a slot still UNREAD now is no event's */
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

/* The parent of id: 1 with *parent set, 0 when it has none (or is no event), -1 on error. */
static int parent_of(struct ops_pass *p, int64_t id, int64_t *parent)
{
    struct slot *s = slot_of(p, id);
    if (!s)
        return -1;
    if (s->parent == P_UNREAD && !p->all_parents && ++p->reads > READ_ALL) {
        if (read_all_parents(p) != 0 || !(s = slot_of(p, id)))
            return -1;
    }
    if (s->parent == P_UNREAD && p->all_parents) {
        s->parent = P_NONE;
    } else if (s->parent == P_UNREAD) {
        sqlite3_bind_int64(p->parent_of, 1, id);
        int64_t v = NO_PARENT;
        int rc = sqlite3_step(p->parent_of);
        if (rc == SQLITE_ROW && sqlite3_column_type(p->parent_of, 0) != SQLITE_NULL)
            v = sqlite3_column_int64(p->parent_of, 0);
        sqlite3_reset(p->parent_of);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return -1;
        if (!(s = slot_of(p, id)) || slot_set_parent(p, s, v) != 0)
            return -1;
    }
    *parent = slot_parent(p, s);
    return *parent != NO_PARENT;
}

/* The group of event id, or NULL when it is no CPU-side event in scope. */
static struct group *group_of(struct ops_pass *p, int64_t id)
{
    struct slot *s = slot_of(p, id);
    return s && s->group >= 0 ? sweep_index_at(&p->part[0].groups, (size_t)s->group) : NULL;
}

/* parent_of, as chain_sums.c calls it. */
static int parent_step(void *p, int64_t id, int64_t *parent)
{
    return parent_of(p, id, parent);
}

/* Totals from chain_sums.c into the group of the event they are at (none: no CPU-side event in scope). */
static void take_total(void *ctx, int64_t id, const int64_t *sums)
{
    struct ops_pass *p = ctx;
    struct group *g = group_of(p, id);
    if (g)
        add(&p->overflow, &g->s.dev_total, sums[0]), add(&p->overflow, &g->s.cpu_mem, sums[1]),
            add(&p->overflow, &g->s.dev_mem, sums[2]);
}

/* Each piece of GPU work's duration and each [memory] event's bytes to the `self` sum of the operator's
 * group (the launch's parent; the [memory] event's), and to the `total` sums of it and of every event
 * above it, each once (chain_sums.c: a walk up from each cost the depth each time, O(N^2) on N nested
 * operators with a launch in each, where the chain is long). */
static int attribute_all(struct ops_pass *p)
{
    const struct ops_part *all = &p->part[0];
    struct chain_sums c;
    chain_sums_init(&c, p->lo, p->blocks ? p->span : 0, parent_step, take_total, p);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < all->nlaunches; i++) {
        int64_t op;
        if ((rc = parent_of(p, all->launches[i].launch, &op)) <= 0)
            continue; /* 0: the launch has no operator around it (or is no event): the work counts nowhere */
        struct group *g = group_of(p, op);
        add(&p->overflow, &p->total_device, all->launches[i].dur);
        if (g)
            add(&p->overflow, &g->s.self_dev, all->launches[i].dur);
        rc = chain_sums_add(&c, op, 0, all->launches[i].dur, &p->overflow);
    }
    for (size_t i = 0; rc == 0 && i < all->nmems; i++) {
        const struct mem *m = &all->mems[i];
        struct group *g = group_of(p, m->op);
        if (g)
            add(&p->overflow, m->on_device ? &g->s.self_dev_mem : &g->s.self_cpu_mem, m->bytes);
        rc = chain_sums_add(&c, m->op, m->on_device ? 2 : 1, m->bytes, &p->overflow);
    }
    if (rc == 0)
        chain_sums_end(&c, &p->overflow);
    chain_sums_free(&c);
    return rc < 0 ? -1 : 0;
}

/* Appends value v to a group key as GROUP BY tells values apart (a type byte, then its bytes). */
static int key_add(struct buf *k, const sqlite3_value *v)
{
    sqlite3_value *w = (sqlite3_value *)v; /* sqlite3_value_* take no const */
    int t = v ? sqlite3_value_type(w) : SQLITE_NULL;
    unsigned char tb = (unsigned char)t;
    if (buf_add(k, &tb, 1) != 0)
        return -1;
    if (t == SQLITE_INTEGER) {
        int64_t x = sqlite3_value_int64(w);
        return buf_add(k, &x, sizeof x);
    }
    if (t == SQLITE_FLOAT) {
        double x = sqlite3_value_double(w);
        return buf_add(k, &x, sizeof x);
    }
    if (t == SQLITE_NULL)
        return 0;
    int n = sqlite3_value_bytes(w);
    const void *b = sqlite3_value_blob(w);
    return buf_add(k, &n, sizeof n) != 0 || (n && buf_add(k, b, (size_t)n) != 0) ? -1 : 0;
}

/* scope_rank (by_rank) or scope_steps (by_step), read once; equal ranks get one key, as GROUP BY
 * would put them together (the readers then key groups by integers and never touch a value). */
static int load_keys(struct ops_pass *p, const struct ops_sweep_options *o)
{
    if (o->by_step)
        return step_index_load(&p->steps, p->db);
    if (!o->by_rank)
        return 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT thread_id, rank FROM temp.scope_rank", -1, &st, NULL) != SQLITE_OK)
        return -1;
    struct strmap same; /* a rank's value as a key -> its first index */
    strmap_init(&same);
    struct buf key = {0};
    int rc = 0, step;
    size_t cap_ranks = 0, cap_keys = 0, nkeys = 0;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_value *v = sqlite3_value_dup(sqlite3_column_value(st, 1));
        int64_t thread = sqlite3_column_int64(st, 0);
        sqlite3_value **r = v ? push((void **)&p->ranks, &p->nranks, &cap_ranks, sizeof *r) : NULL;
        if (!r) {
            sqlite3_value_free(v);
            rc = -1;
            break;
        }
        *r = v;
        int64_t *k = push((void **)&p->rank_key, &nkeys, &cap_keys, sizeof *k);
        key.n = 0;
        if (!k || key_add(&key, v) != 0) {
            rc = -1;
            break;
        }
        *k = strmap_get(&same, key.p, key.n);
        if (*k < 0 && sqlite3_value_type(v) != SQLITE_NULL) {
            *k = (int64_t)p->nranks - 1;
            rc = strmap_put(&same, key.p, key.n, *k);
        }
        if (rc == 0 && strmap_put(&p->rank_ix, &thread, sizeof thread, (int64_t)p->nranks - 1) != 0)
            rc = -1;
    }
    sqlite3_finalize(st);
    strmap_free(&same);
    buf_free(&key);
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

static void sums_add(int *overflow, struct sums *to, const struct sums *s)
{
    add(overflow, &to->calls, s->calls);
    add(overflow, &to->self_cpu, s->self_cpu);
    add(overflow, &to->cpu_total, s->cpu_total);
    add(overflow, &to->self_dev, s->self_dev);
    add(overflow, &to->dev_total, s->dev_total);
    add(overflow, &to->cpu_mem, s->cpu_mem);
    add(overflow, &to->self_cpu_mem, s->self_cpu_mem);
    add(overflow, &to->dev_mem, s->dev_mem);
    add(overflow, &to->self_dev_mem, s->self_dev_mem);
    if (s->flops_seen) {
        to->flops_d += s->flops_d;
        if (s->flops_real || __builtin_add_overflow(to->flops_i, s->flops_i, &to->flops_i))
            to->flops_real = 1;
        to->flops_seen = 1;
    }
}

/* A group's key: its rank's or step's key, its name id, its stack's and its shapes (when grouped by them). */
static int group_key(struct buf *key, int64_t rank_key, int64_t name_id, int32_t stack, const char *shapes)
{
    key->n = 0;
    return buf_add(key, &rank_key, sizeof rank_key) != 0 || buf_add(key, &name_id, sizeof name_id) != 0 ||
                   buf_add(key, &stack, sizeof stack) != 0 ||
                   (shapes && buf_add(key, shapes, strlen(shapes) + 1) != 0)
               ? -1 : 0;
}

/* The columns read, in this order (see events_sql): C_KEY is the thread (by rank) or the start (by step). */
enum { C_ID, C_KIND, C_NAME, C_DUR, C_SELF, C_LAUNCH, C_PARENT, C_BYTES, C_KEY, C_SHAPES, C_FLOPS };

/* queries/ops_event_rows.sql with only the columns this grouping reads: the rest are NULL in a query
 * around it, which SQLite flattens, so that it never computes them (2 M rows: the thread, the start and
 * the shapes' and FLOPs' tests on rows that need none cost SQLite a fifth of the scan). NULL when out
 * of memory. */
static char *events_sql(const struct ops_sweep_options *o)
{
    const char *rows = tdb_embedded_get("queries/ops_event_rows.sql");
    size_t n = strcspn(rows, ";"); /* the statement, without its ';' */
    return sqlite3_mprintf("SELECT id, kind, name_id, dur_ns, self_ns, launch_id, parent_id, bytes, %s, %s, %s FROM (%.*s\n)",
                           o->by_rank ? "thread_id" : o->by_step ? "start_ns" : "NULL", o->by_shape ? "input_shapes" : "NULL",
                           o->with_flops ? "flops" : "NULL", (int)n, rows);
}

/* memory_event's rows, with where their bytes are (1 the device, 0 the host), as the pass reads them:
 * the events with a parent and bytes find theirs here. 0, or -1 (db error) or -2 (out of memory). */
static int read_mem_records(struct ops_pass *p)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(p->db, "SELECT event_id, coalesce(device_type <> 0, 0) FROM main.memory_event ORDER BY event_id",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct mem_record *m = push((void **)&p->records, &p->nrecords, &p->cap_records, sizeof *m);
        if (!m)
            rc = -2;
        else
            *m = (struct mem_record){sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1)};
    }
    sqlite3_finalize(st);
    return rc != 0 ? rc : step == SQLITE_DONE ? 0 : -1;
}

/* Where event id's [memory] record puts its bytes (1 the device, 0 the host); -1: it has none. */
static int mem_on_device(const struct ops_pass *p, int64_t id)
{
    size_t lo = 0, hi = p->nrecords;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->records[mid].event < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nrecords && p->records[lo].event == id ? p->records[lo].on_device : -1;
}

/* A CPU-side event (the current row of st) into its part's group. 0, or -2 when out of memory. */
static int take_cpu_event(struct ops_part *part, sqlite3_stmt *st, struct buf *key)
{
    struct ops_pass *p = part->p;
    /* the columns a grouping does not use are not read: a call each costs ~11 ns, 1.4 M rows a pass */
    int64_t id = sqlite3_column_int64(st, C_ID);
    const sqlite3_value *rank = NULL;
    int64_t rank_key = -1;
    if (p->o->by_rank) {
        int64_t thread = sqlite3_column_int64(st, C_KEY);
        int64_t r = strmap_get(&p->rank_ix, &thread, sizeof thread);
        if (r >= 0)
            rank = p->ranks[r], rank_key = p->rank_key[r];
    } else if (p->o->by_step) {
        long k = step_index_find(&p->steps, sqlite3_column_int64(st, C_KEY), &part->step_hint);
        if (k >= 0)
            rank = p->steps.v[k].name, rank_key = p->steps.v[k].first;
    }
    int64_t name_id = sqlite3_column_int64(st, C_NAME);
    const char *shapes = p->o->by_shape ? (const char *)sqlite3_column_text(st, C_SHAPES) : NULL;
    sqlite3_value *parent = sqlite3_column_value(st, C_PARENT); /* one column call for its type and value */
    int32_t stack = p->stacks ? op_stacks_of(p->stacks, parent) : 0;
    struct group_seen *seen =
        &part->seen[((uint64_t)name_id * 0x9E3779B97F4A7C15u + (uint64_t)rank_key + (uint64_t)stack) >> 32 & (GROUPS_SEEN - 1)];
    struct group *g;
    if (!p->o->by_shape && seen->group && seen->name_id == name_id && seen->rank_key == rank_key && seen->stack == stack)
        g = sweep_index_at(&part->groups, seen->group - 1);
    else {
        int fresh;
        g = group_key(key, rank_key, name_id, stack, shapes) == 0 ? sweep_index_get(&part->groups, key->p, key->n, &fresh) : NULL;
        if (!g)
            return -2;
        if (fresh) {
            g->rank = rank, g->rank_key = rank_key, g->name_id = name_id, g->stack = stack;
            if (shapes && !(g->shapes = strdup(shapes)))
                return -2;
        }
        if (!p->o->by_shape)
            *seen = (struct group_seen){rank_key, name_id, stack, (size_t)((char *)g - part->groups.groups) / part->groups.size + 1};
    }
    struct sums s = {.calls = 1, .self_cpu = sqlite3_column_int64(st, C_SELF), .cpu_total = sqlite3_column_int64(st, C_DUR)};
    int ft = p->o->with_flops ? sqlite3_column_type(st, C_FLOPS) : SQLITE_NULL;
    if (ft == SQLITE_INTEGER)
        s.flops_seen = 1, s.flops_i = sqlite3_column_int64(st, C_FLOPS), s.flops_d = (long double)s.flops_i;
    else if (ft != SQLITE_NULL)
        s.flops_seen = 1, s.flops_real = 1, s.flops_d = sqlite3_column_double(st, C_FLOPS);
    sums_add(&part->overflow, &g->s, &s);
    add(&part->overflow, &part->total_self_cpu, s.self_cpu);
    struct slot *sl = slot_of(p, id); /* in a half: a block only its thread makes (the halves part at a block's edge) */
    if (!sl)
        return -2;
    sl->group = (int32_t)(((char *)g - part->groups.groups) / (ptrdiff_t)part->groups.size);
    return slot_set_parent(p, sl, sqlite3_value_type(parent) == SQLITE_NULL ? NO_PARENT : sqlite3_value_int64(parent))
               ? -2 : 0;
}

/* The part's events: CPU-side ones into groups, GPU work and [memory] records kept for attribute_all. */
static void read_part(struct ops_part *part)
{
    struct ops_pass *p = part->p;
    sqlite3_stmt *st;
    char *sql = events_sql(p->o);
    int prepared = sql && sqlite3_prepare_v2(part->db, sql, -1, &st, NULL) == SQLITE_OK;
    sqlite3_free(sql);
    if (!prepared) {
        part->rc = sql ? -1 : -2;
        return;
    }
    report_bind_int(st, ":lo", part->lo);
    report_bind_int(st, ":hi", part->hi);
    struct buf key = {0};
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int kind = sqlite3_column_int(st, C_KIND);
        if (kind == TDB_KIND_OP || kind == TDB_KIND_RANGE || kind == TDB_KIND_RUNTIME || kind == TDB_KIND_DRIVER)
            rc = take_cpu_event(part, st, &key);
        sqlite3_value *launch = rc == 0 && (kind == TDB_KIND_KERNEL || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET)
                                    ? sqlite3_column_value(st, C_LAUNCH) : NULL; /* its type and value in one call */
        if (launch && sqlite3_value_type(launch) != SQLITE_NULL) {
            struct launch *l = push((void **)&part->launches, &part->nlaunches, &part->cap_launches, sizeof *l);
            if (!l)
                rc = -2;
            else
                *l = (struct launch){sqlite3_value_int64(launch), sqlite3_column_int64(st, C_DUR)};
        }
        int on_device = rc == 0 && p->nrecords && sqlite3_column_type(st, C_PARENT) != SQLITE_NULL &&
                                sqlite3_column_type(st, C_BYTES) != SQLITE_NULL
                            ? mem_on_device(p, sqlite3_column_int64(st, C_ID)) : -1;
        if (on_device >= 0) {
            struct mem *m = push((void **)&part->mems, &part->nmems, &part->cap_mems, sizeof *m);
            if (!m)
                rc = -2;
            else
                *m = (struct mem){sqlite3_column_int64(st, C_PARENT), sqlite3_column_int64(st, C_BYTES), on_device};
        }
    }
    buf_free(&key);
    sqlite3_finalize(st);
    part->rc = rc != 0 ? rc : step == SQLITE_DONE ? 0 : -1;
}

static void *read_part_run(void *arg)
{
    read_part(arg);
    return NULL;
}

static void free_part(struct ops_part *part)
{
    for (size_t i = 0; i < part->groups.n; i++)
        free(((struct group *)sweep_index_at(&part->groups, i))->shapes);
    sweep_index_free(&part->groups);
    free(part->launches);
    free(part->mems);
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

/* The upper half's groups, GPU work and [memory] records into the lower half's; its events' slots
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
        if (group_key(&key, g->rank_key, g->name_id, g->stack, g->shapes) != 0 ||
            !(m = sweep_index_get(&a->groups, key.p, key.n, &fresh))) {
            rc = -1;
            break;
        }
        if (fresh)
            m->rank = g->rank, m->rank_key = g->rank_key, m->name_id = g->name_id, m->stack = g->stack, m->shapes = g->shapes,
            g->shapes = NULL;
        sums_add(&a->overflow, &m->s, &g->s);
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
                    push_all((void **)&a->mems, &a->nmems, &a->cap_mems, b->mems, b->nmems, sizeof *b->mems) != 0))
        rc = -1;
    add(&a->overflow, &a->total_self_cpu, b->total_self_cpu);
    a->overflow |= b->overflow;
    return rc;
}

/* Reads the events in scope: in two halves at once, the upper on a second connection (scope_reopen)
 * and thread, when there are SPLIT_IDS ids or more within 2^31 of each other; else in one. 0, or -1
 * (printed). */
static int read_events(struct ops_pass *p)
{
    struct ops_part *a = &p->part[0], *b = &p->part[1];
    int read = read_mem_records(p);
    if (read != 0) {
        fprintf(p->io->err, "%s: %s\n", p->io->prog, read == -2 ? "out of memory" : sqlite3_errmsg(p->db));
        return -1;
    }
    a->p = b->p = p, a->db = p->db;
    a->lo = p->blocks ? p->lo : INT64_MIN, a->hi = p->blocks ? p->lo + p->span - 1 : INT64_MAX;
    sqlite3 *db2 = p->blocks && p->span >= SPLIT_IDS ? scope_reopen(p->db) : NULL;
    pthread_t thread;
    int threaded = 0;
    if (db2) { /* halves parting at a block's edge: each thread makes the blocks of its own ids only (made
                * as ids come, so that sparse ids cost no memory for the gaps) */
        b->db = db2, b->hi = a->hi;
        a->hi = p->lo + (int64_t)((size_t)p->span / BLOCK / 2 * BLOCK) - 1, b->lo = a->hi + 1;
        threaded = pthread_create(&thread, NULL, read_part_run, b) == 0;
    }
    read_part(a);
    if (threaded)
        pthread_join(thread, NULL);
    else if (db2)
        read_part(b);
    int rc = 0;
    for (int k = 0; k < (db2 ? 2 : 1) && rc == 0; k++)
        if (p->part[k].rc != 0) {
            fprintf(p->io->err, "%s: %s\n", p->io->prog, p->part[k].rc == -2 ? "out of memory" : sqlite3_errmsg(p->part[k].db));
            rc = -1;
        }
    if (rc == 0 && db2 && join_parts(p) != 0) {
        fprintf(p->io->err, "%s: out of memory\n", p->io->prog);
        rc = -1;
    }
    p->overflow |= a->overflow;
    sqlite3_close(db2);
    return rc;
}

/* A group's name as it reads (every ProfilerStep#N as ProfilerStep*), looked up once per name id: a
 * name repeats in every step (30,316 groups of 2,332 steps on 2 M events). NULL: no such string. 0, or -1
 * (out of memory, or an SQLite error). */
struct name_entry {
    char *text; /* NULL: no such string */
};

static int name_read(sqlite3_stmt *name_of, struct sweep_index *names, int64_t name_id, const char **name)
{
    int fresh;
    struct name_entry *e = sweep_index_get(names, &name_id, sizeof name_id, &fresh);
    if (!e)
        return -1;
    if (fresh) {
        sqlite3_bind_int64(name_of, 1, name_id);
        int step = sqlite3_step(name_of);
        const unsigned char *t = step == SQLITE_ROW ? sqlite3_column_text(name_of, 0) : NULL;
        if (t && !(e->text = strdup((const char *)t)))
            step = SQLITE_NOMEM;
        sqlite3_reset(name_of);
        if (step != SQLITE_ROW && step != SQLITE_DONE) {
            free(e->text), e->text = NULL;
            return -1;
        }
    }
    *name = e->text;
    return 0;
}

/* SQL's classes of values in ORDER BY: NULL (a NULL pointer too), numbers, text, blobs. */
static int value_class(const sqlite3_value *v)
{
    int t = v ? sqlite3_value_type((sqlite3_value *)v) : SQLITE_NULL;
    return t == SQLITE_NULL ? 0 : t == SQLITE_INTEGER || t == SQLITE_FLOAT ? 1 : t == SQLITE_TEXT ? 2 : 3;
}

/* A number as SQL compares it: integers exactly, an integer and a real through long double (as SQLite). */
struct number {
    int real;
    int64_t i;
    double d;
};

static int cmp_number(struct number a, struct number b)
{
    if (!a.real && !b.real)
        return (a.i > b.i) - (a.i < b.i);
    long double x = a.real ? (long double)a.d : (long double)a.i, y = b.real ? (long double)b.d : (long double)b.i;
    return (x > y) - (x < y);
}

/* Two values as ORDER BY compares them with the BINARY collation. */
static int cmp_value(const sqlite3_value *a, const sqlite3_value *b)
{
    int ca = value_class(a), cb = value_class(b);
    if (ca != cb || ca == 0)
        return (ca > cb) - (ca < cb);
    sqlite3_value *x = (sqlite3_value *)a, *y = (sqlite3_value *)b; /* sqlite3_value_* take no const */
    if (ca == 1) {
        struct number m = {sqlite3_value_type(x) == SQLITE_FLOAT, sqlite3_value_int64(x), sqlite3_value_double(x)};
        struct number n = {sqlite3_value_type(y) == SQLITE_FLOAT, sqlite3_value_int64(y), sqlite3_value_double(y)};
        return cmp_number(m, n);
    }
    int nx = sqlite3_value_bytes(x), ny = sqlite3_value_bytes(y), n = nx < ny ? nx : ny;
    int c = n ? memcmp(sqlite3_value_blob(x), sqlite3_value_blob(y), (size_t)n) : 0;
    return c ? c : (nx > ny) - (nx < ny);
}

/* Two texts, NULL first (names and shapes: C strings, as they were bound). */
static int cmp_text(const char *a, const char *b)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* A merged group on its way into temp.ops_agg: what orders it, and its rank's totals. */
struct ordered {
    const struct group *m;
    struct number key;           /* the --sort column's value (queries/parts/ops_sort_key.sql's sort_key) */
    struct rank_tot *rank; /* its rank's (step's) totals */
    const char *stack;     /* by stack: its text */
};

struct rank_tot { /* a rank's (step's) rows: the percentages' base with --by-step, its start, its rows so far */
    int64_t cpu, dev, rows;
    sqlite3_value *start; /* --by-step: the step's first start; NULL: none, or not by step (all equal) */
};

static int cmp_ordered(const void *a, const void *b)
{
    const struct ordered *x = a, *y = b;
    int c = cmp_value(x->rank->start, y->rank->start);
    if (!c)
        c = cmp_number(y->key, x->key); /* descending */
    if (!c)
        c = cmp_value(x->m->rank, y->m->rank);
    if (!c)
        c = cmp_text(x->m->name, y->m->name);
    if (!c)
        c = cmp_text(x->m->shapes, y->m->shapes);
    if (!c)
        c = cmp_text(x->stack, y->stack);
    return c;
}

/* The value a group sorts by, as queries/parts/ops_sort_key.sql reads it from the row it becomes. */
static struct number sort_key(const struct group *m, const char *sort)
{
    static const char *const cols[] = {"calls", "cpu_total_ns", "self_device_ns", "device_total_ns", "cpu_mem_bytes",
                                       "self_cpu_mem_bytes", "device_mem_bytes", "self_device_mem_bytes"};
    const int64_t v[] = {m->s.calls, m->s.cpu_total, m->s.self_dev, m->s.dev_total,
                         m->s.cpu_mem, m->s.self_cpu_mem, m->s.dev_mem, m->s.self_dev_mem};
    if (sort && strcmp(sort, "name") == 0)
        return (struct number){0, 0, 0};
    if (sort && strcmp(sort, "flops") == 0)
        return !m->s.flops_seen   ? (struct number){0, -1, 0}
               : m->s.flops_real ? (struct number){1, 0, (double)m->s.flops_d}
                                 : (struct number){0, m->s.flops_i, 0};
    for (size_t i = 0; sort && i < sizeof cols / sizeof *cols; i++)
        if (strcmp(sort, cols[i]) == 0)
            return (struct number){0, v[i], 0};
    return (struct number){0, m->s.self_cpu, 0};
}

/* Each rank's (step's) totals and, by step, its first start (min(start_ns) of the steps of its name),
 * found by the rank's value; rank_of[i]: merged group i's, its index in ranks. 0, or -1 (out of memory,
 * or an SQLite error). */
static int rank_totals(struct ops_pass *p, struct sweep_index *merged, struct sweep_index *ranks, size_t *rank_of)
{
    struct buf key = {0};
    int rc = 0, fresh;
    for (size_t i = 0; rc == 0 && i < merged->n; i++) { /* in the rows' order, as SQL's sum() added them */
        const struct group *m = sweep_index_at(merged, i);
        key.n = 0;
        struct rank_tot *t = key_add(&key, m->rank) == 0 ? sweep_index_get(ranks, key.p, key.n, &fresh) : NULL;
        if (!t)
            rc = -1;
        else {
            add(&p->overflow, &t->cpu, m->s.self_cpu), add(&p->overflow, &t->dev, m->s.self_dev);
            rank_of[i] = (size_t)((char *)t - ranks->groups) / ranks->size;
        }
    }
    sqlite3_stmt *st = NULL;
    if (rc == 0 && p->o->by_step &&
        sqlite3_prepare_v2(p->db, "SELECT name, min(start_ns) FROM temp.scope_steps WHERE name IS NOT NULL GROUP BY name",
                           -1, &st, NULL) != SQLITE_OK)
        rc = -1;
    int step = SQLITE_DONE;
    while (rc == 0 && st && (step = sqlite3_step(st)) == SQLITE_ROW) {
        key.n = 0;
        int64_t at = key_add(&key, sqlite3_column_value(st, 0)) == 0 ? strmap_get(&ranks->map, key.p, key.n) : -2;
        struct rank_tot *t = at >= 0 ? sweep_index_at(ranks, (size_t)at) : NULL;
        if (at == -2 || (t && !(t->start = sqlite3_value_dup(sqlite3_column_value(st, 1)))))
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    buf_free(&key);
    return rc;
}

/* The merged groups into temp.ops_agg in the order queries/ops_agg.sql prints them (ORDER BY seq, no
 * sort there: SQLite's sort of 30,316 rows of 24 columns took half of that query), each with the base of
 * its percentages (its step's totals by step, else every row's, as SQL's sum() adds them) and its place
 * in its step (for --limit by step). The order is SQL's ORDER BY: by step, the step's first start; then
 * the --sort value, descending; then rank, name, shapes and stack, as ORDER BY compares values. 0, or -1 (out of memory, or an SQLite error). */
static int write_ordered(struct ops_pass *p, struct sweep_index *merged, sqlite3_stmt *ins)
{
    struct sweep_index ranks;
    sweep_index_init(&ranks, sizeof(struct rank_tot));
    struct ordered *v = merged->n ? malloc(merged->n * sizeof *v) : NULL;
    size_t *rank_of = merged->n ? malloc(merged->n * sizeof *rank_of) : NULL;
    int64_t cpu = 0, dev = 0;
    int rc = merged->n && (!v || !rank_of) ? -1 : rank_totals(p, merged, &ranks, rank_of);
    for (size_t i = 0; rc == 0 && i < merged->n; i++) { /* the ranks are all made: their places hold */
        const struct group *m = sweep_index_at(merged, i);
        v[i] = (struct ordered){m, sort_key(m, p->o->sort), sweep_index_at(&ranks, rank_of[i]),
                                p->stacks ? op_stacks_text(p->stacks, m->stack) : NULL};
        add(&p->overflow, &cpu, m->s.self_cpu), add(&p->overflow, &dev, m->s.self_dev);
    }
    if (rc == 0 && merged->n)
        qsort(v, merged->n, sizeof *v, cmp_ordered);
    for (size_t i = 0; rc == 0 && !p->overflow && i < merged->n; i++) {
        const struct group *m = v[i].m;
        struct rank_tot *t = v[i].rank;
        sqlite3_bind_int64(ins, 1, (int64_t)i + 1);
        if (m->rank)
            sqlite3_bind_value(ins, 2, m->rank);
        else
            sqlite3_bind_null(ins, 2);
        sqlite3_bind_text(ins, 3, m->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 4, m->shapes, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 5, v[i].stack, -1, SQLITE_STATIC);
        const int64_t s[] = {m->s.calls, m->s.self_cpu, m->s.cpu_total, m->s.self_dev, m->s.dev_total,
                             m->s.cpu_mem, m->s.self_cpu_mem, m->s.dev_mem, m->s.self_dev_mem};
        for (int c = 0; c < 9; c++)
            sqlite3_bind_int64(ins, 6 + c, s[c]);
        if (!m->s.flops_seen)
            sqlite3_bind_null(ins, 15);
        else if (m->s.flops_real)
            sqlite3_bind_double(ins, 15, (double)m->s.flops_d);
        else
            sqlite3_bind_int64(ins, 15, m->s.flops_i);
        sqlite3_bind_int64(ins, 16, p->o->by_step ? t->cpu : cpu);
        sqlite3_bind_int64(ins, 17, p->o->by_step ? t->dev : dev);
        sqlite3_bind_int64(ins, 18, ++t->rows);
        rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(ins);
    }
    for (size_t i = 0; i < ranks.n; i++)
        sqlite3_value_free(((struct rank_tot *)sweep_index_at(&ranks, i))->start);
    sweep_index_free(&ranks);
    free(v), free(rank_of);
    return rc;
}

/* Groups merged by the name they read as, into temp.ops_agg (write_ordered); the footer's totals into
 * temp.ops_totals. */
static int write_groups(struct ops_pass *p)
{
    sqlite3_stmt *ins, *name_of;
    if (sweep_table(p->db, "ops_agg (seq INTEGER PRIMARY KEY, rank, name, input_shapes, stack, calls, self_cpu_ns, "
                           "cpu_total_ns, self_device_ns, device_total_ns, cpu_mem_bytes, self_cpu_mem_bytes, "
                           "device_mem_bytes, self_device_mem_bytes, flops, base_cpu_ns, base_device_ns, n_in_step)",
                    18, &ins, p->io) != 0)
        return -1;
    if (sqlite3_prepare_v2(p->db, "SELECT CASE WHEN value GLOB 'ProfilerStep#*' THEN 'ProfilerStep*' ELSE value END "
                                  "FROM main.string WHERE id = ?1", -1, &name_of, NULL) != SQLITE_OK) {
        sqlite3_finalize(ins);
        return -1;
    }
    struct sweep_index merged, names;
    sweep_index_init(&merged, sizeof(struct group));
    sweep_index_init(&names, sizeof(struct name_entry));
    struct buf key = {0};
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->part[0].groups.n; i++) {
        struct group *g = sweep_index_at(&p->part[0].groups, i);
        const char *name = NULL;
        if (name_read(name_of, &names, g->name_id, &name) != 0) {
            rc = -1;
            break;
        }
        size_t len = name ? strlen(name) : 0;
        const char *stack = p->stacks ? op_stacks_text(p->stacks, g->stack) : NULL;
        unsigned char has_name = name != NULL, has_shapes = g->shapes != NULL, has_stack = stack != NULL;
        key.n = 0;
        int fresh = 0;
        struct group *m = NULL;
        if (key_add(&key, g->rank) == 0 && buf_add(&key, &has_name, 1) == 0 && buf_add(&key, &len, sizeof len) == 0 &&
            (!len || buf_add(&key, name, len) == 0) && buf_add(&key, &has_shapes, 1) == 0 &&
            (!has_shapes || buf_add(&key, g->shapes, strlen(g->shapes) + 1) == 0) && buf_add(&key, &has_stack, 1) == 0 &&
            (!has_stack || buf_add(&key, stack, strlen(stack) + 1) == 0))
            m = sweep_index_get(&merged, key.p, key.n, &fresh);
        if (m && fresh) {
            m->rank = g->rank, m->stack = g->stack;
            m->shapes = g->shapes, g->shapes = NULL;
            if (name && !(m->name = strdup(name)))
                m = NULL;
        }
        if (!m) {
            rc = -1;
            break;
        }
        sums_add(&p->overflow, &m->s, &g->s);
    }
    if (rc == 0 && !p->overflow)
        rc = write_ordered(p, &merged, ins);
    for (size_t i = 0; i < merged.n; i++) {
        struct group *m = sweep_index_at(&merged, i);
        free(m->name);
        free(m->shapes);
    }
    for (size_t i = 0; i < names.n; i++)
        free(((struct name_entry *)sweep_index_at(&names, i))->text);
    sweep_index_free(&merged);
    sweep_index_free(&names);
    buf_free(&key);
    sqlite3_finalize(name_of);
    sqlite3_finalize(ins);
    sqlite3_stmt *tot;
    if (rc == 0 && !p->overflow && sweep_table(p->db, "ops_totals (self_cpu_ns, device_ns)", 2, &tot, p->io) == 0) {
        sqlite3_bind_int64(tot, 1, p->part[0].total_self_cpu);
        sqlite3_bind_int64(tot, 2, p->total_device);
        rc = sqlite3_step(tot) == SQLITE_DONE ? 0 : -1;
        sqlite3_finalize(tot);
    }
    return rc;
}

int ops_sweep(sqlite3 *db, const struct ops_sweep_options *o, struct report_io *io)
{
    struct ops_pass p = {.o = o, .db = db, .io = io};
    strmap_init(&p.slot_ix);
    strmap_init(&p.rank_ix);
    sweep_index_init(&p.part[0].groups, sizeof(struct group));
    sweep_index_init(&p.part[1].groups, sizeof(struct group));
    /* one transaction for the pass: its thousands of small statements (a parent, a name, a row of
     * ops_agg) would each take and drop the file's locks and check for a hot journal (on 2 M events,
     * `--by-step` made 121,296 fcntl and 91,002 stat calls) */
    int own = sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    int rc = sqlite3_prepare_v2(db, "SELECT parent_id FROM main.event WHERE id = ?1", -1, &p.parent_of, NULL) == SQLITE_OK
                 ? 0 : -1;
    if (rc == 0 && o->by_stack && !(p.stacks = op_stacks_build(db, o->stack_depth)))
        rc = -1;
    if (rc == 0)
        rc = ids_range(&p);
    if (rc == 0)
        rc = load_keys(&p, o);
    report_phase("ops: keys");
    if (rc == 0)
        rc = read_events(&p);
    report_phase("ops: events");
    if (rc == 0)
        rc = attribute_all(&p);
    report_phase("ops: attribute");
    if (rc == 0 && !p.overflow)
        rc = write_groups(&p);
    report_phase("ops: groups");
    if (rc != 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    else if (p.overflow)
        fprintf(io->err, "%s: integer overflow\n", io->prog);
    sqlite3_finalize(p.parent_of);
    p.parent_of = NULL;
    if (own && sqlite3_exec(db, rc == 0 && !p.overflow ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && rc == 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = -1;
    }
    free_part(&p.part[0]);
    free_part(&p.part[1]);
    for (size_t i = 0; i < p.nranks; i++)
        sqlite3_value_free(p.ranks[i]);
    step_index_free(&p.steps);
    for (size_t i = 0; p.blocks && i < (size_t)p.span / BLOCK + 1; i++)
        free(p.blocks[i]);
    free(p.blocks);
    free(p.slots);
    free(p.parents);
    free(p.records);
    free(p.ranks);
    free(p.rank_key);
    strmap_free(&p.slot_ix);
    strmap_free(&p.rank_ix);
    op_stacks_free(p.stacks);
    sqlite3_finalize(p.parent_of);
    return rc != 0 || p.overflow ? 1 : 0;
}

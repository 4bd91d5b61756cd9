/* ops_parents.c: the events' parents for `tracedb ops`'s pass (see ops_sweep_internal.h): a slot per
 * event id (blocks of ids, or a hash map where they spread out), parents read one by one or all in one
 * scan, and each piece of GPU work's time attributed up them
 * (chain_sums.c). */
#include "ops_sweep_internal.h"
#include "chain_sums.h"
#include <stdlib.h>

/* The slot of id, made when new (parent UNREAD, no group); NULL when out of memory. Valid until the next
 * call. */
struct slot *ops_slot_of(struct ops_pass *p, int64_t id)
{
    if (p->blocks) {
        /* no event has it: a slot of its own, never stored (two ids' difference may not fit in int64); one
         * for each thread (the pass reads its halves on two, and a caller writes the slot it is given) */
        if (id < p->lo || (uint64_t)id - (uint64_t)p->lo >= (uint64_t)p->span) {
            static _Thread_local struct slot none;
            none = (struct slot){P_NONE, -1, 0};
            return &none;
        }
        size_t k = (size_t)((uint64_t)id - (uint64_t)p->lo);
        struct slot **b = &p->blocks[k / BLOCK];
        if (!*b) {
            if (!(*b = malloc(BLOCK * sizeof **b)))
                return NULL;
            for (size_t i = 0; i < BLOCK; i++)
                (*b)[i] = (struct slot){P_UNREAD, -1, 0};
        }
        return &(*b)[k % BLOCK];
    }
    int64_t i = strmap_get(&p->slot_ix, &id, sizeof id);
    if (i >= 0)
        return &p->slots[i];
    size_t n = p->nslots;
    int64_t *sid = ops_push((void **)&p->slot_ids, &n, &p->cap_slot_ids, sizeof *sid);
    struct slot *s = sid ? ops_push((void **)&p->slots, &p->nslots, &p->cap_slots, sizeof *s) : NULL;
    if (!s || strmap_put(&p->slot_ix, &id, sizeof id, (int64_t)(p->nslots - 1)) != 0)
        return NULL;
    *sid = id;
    *s = (struct slot){P_UNREAD, -1, 0};
    return s;
}

struct slot *ops_slot_find(struct ops_pass *p, int64_t id)
{
    if (p->blocks) {
        if (id < p->lo || (uint64_t)id - (uint64_t)p->lo >= (uint64_t)p->span)
            return NULL;
        size_t k = (size_t)((uint64_t)id - (uint64_t)p->lo);
        return p->blocks[k / BLOCK] ? &p->blocks[k / BLOCK][k % BLOCK] : NULL;
    }
    int64_t i = strmap_get(&p->slot_ix, &id, sizeof id);
    return i >= 0 ? &p->slots[i] : NULL;
}

/* The parent a slot holds: an id, UNREAD or NO_PARENT (an id outside the ids' range as one outside it). */
int64_t ops_slot_parent(const struct ops_pass *p, const struct slot *s)
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
int ops_slot_set_parent(struct ops_pass *p, struct slot *s, int64_t parent)
{
    if (parent == NO_PARENT)
        s->parent = P_NONE;
    else if (p->blocks)
        s->parent = parent >= p->lo && (uint64_t)parent - (uint64_t)p->lo < (uint64_t)p->span
                        ? (int32_t)((uint64_t)parent - (uint64_t)p->lo) : P_OUTSIDE;
    else if (p->nparents >= INT32_MAX)
        return -1;
    else {
        int64_t *v = ops_push((void **)&p->parents, &p->nparents, &p->cap_parents, sizeof *v);
        if (!v)
            return -1;
        *v = parent, s->parent = (int32_t)(p->nparents - 1);
    }
    return 0;
}

/* Blocks when the ids lie within 2^31 of each other. */
int ops_ids_range(struct ops_pass *p)
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
        struct slot *s = ops_slot_of(p, sqlite3_column_int64(st, 0));
        if (!s || ops_slot_set_parent(p, s, sqlite3_column_type(st, 1) == SQLITE_NULL ? NO_PARENT : sqlite3_column_int64(st, 1)) != 0)
            rc = -1;
    }
    sqlite3_finalize(st);
    p->all_parents = 1; /* a slot still UNREAD now is no event's */
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

/* The parent of id: 1 with *parent set, 0 when it has none (or is no event), -1 on error. */
int ops_parent_of(struct ops_pass *p, int64_t id, int64_t *parent)
{
    struct slot *s = ops_slot_of(p, id);
    if (!s)
        return -1;
    if (s->parent == P_UNREAD && !p->all_parents && ++p->reads > READ_ALL) {
        if (read_all_parents(p) != 0 || !(s = ops_slot_of(p, id)))
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
        if (!(s = ops_slot_of(p, id)) || ops_slot_set_parent(p, s, v) != 0)
            return -1;
    }
    *parent = ops_slot_parent(p, s);
    return *parent != NO_PARENT;
}

/* The group of event id, or NULL when it is no CPU-side event in scope. */
static struct group *group_of(struct ops_pass *p, int64_t id)
{
    struct slot *s = ops_slot_of(p, id);
    return s && s->group >= 0 ? sweep_index_at(&p->part[0].groups, (size_t)s->group) : NULL;
}

/* parent_of, as chain_sums.c calls it. */
static int parent_step(void *p, int64_t id, int64_t *parent)
{
    return ops_parent_of(p, id, parent);
}

/* Totals from chain_sums.c into the group of the event they are at (none: no CPU-side event in scope,
 * or one merged into its parent). */
static void take_total(void *ctx, int64_t id, const int64_t *sums)
{
    struct ops_pass *p = ctx;
    const struct slot *s = ops_slot_find(p, id);
    struct group *g = s && s->children != MERGED ? group_of(p, id) : NULL; /* a merged event's totals are its
                                                                             * parent's already */
    if (g)
        ops_add(&p->overflow, &g->s.dev_total, sums[0]);
}

/* Each piece of GPU work's duration to the `self` sum of the operator's group (the launch's parent), and
 * to the `total` sums of it and of every event above it, each once (chain_sums.c: a walk up from each cost the depth each time, O(N^2) on N nested
 * operators with a launch in each, where the chain is long). */
int ops_attribute_all(struct ops_pass *p)
{
    const struct ops_part *all = &p->part[0];
    struct chain_sums c;
    chain_sums_init(&c, p->lo, p->blocks ? p->span : 0, parent_step, take_total, p);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < all->nlaunches; i++) {
        int64_t op;
        if ((rc = ops_parent_of(p, all->launches[i].launch, &op)) <= 0)
            continue; /* 0: the launch has no operator around it (or is no event): the work counts nowhere */
        struct group *g = group_of(p, op);
        if (g)
            ops_add(&p->overflow, &g->s.self_dev, all->launches[i].dur);
        rc = chain_sums_add(&c, op, 0, all->launches[i].dur, &p->overflow);
    }
    if (rc == 0)
        chain_sums_end(&c, &p->overflow);
    chain_sums_free(&c);
    return rc < 0 ? -1 : 0;
}

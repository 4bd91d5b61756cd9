/* ops_merge.c: PyTorch's merge of an operator's only child of its own name into it, for `tracedb ops`'s
 * pass (see ops_sweep_internal.h), as key_averages() sees its events (torch/autograd/profiler_util.py,
 * EventList._remove_dup_nodes): an event whose parent has the same name and no other CPU-side child is
 * removed, its children and its kernels moving to the parent. So the parent's row counts one call, its
 * own total time, and as self time its own and the child's (its children are the child's); what the
 * child launched counts as the parent's own. A chain of such children merges into its top. Here the
 * events are those in scope, and a parent out of scope takes nothing: its child stays. Then each event's
 * [memory] bytes (ops_read.c) leave its parent's self sums, as PyTorch's self memory is an event's less
 * its children's. */
#include "ops_sweep_internal.h"
#include "kinds.h"
#include <stdlib.h>

/* The slot at place *i or the first after it (*i moved there) and its id, of the events the pass knows
 * (blocks: in id order, the unmade skipped; the hash map: as made); NULL past the last. */
static struct slot *slot_at(struct ops_pass *p, size_t *i, int64_t *id)
{
    if (p->blocks) {
        size_t nblocks = (size_t)p->span / BLOCK + 1;
        for (size_t k = *i / BLOCK; k < nblocks; k++, *i = k * BLOCK)
            if (p->blocks[k]) {
                *id = p->lo + (int64_t)*i;
                return &p->blocks[k][*i % BLOCK];
            }
        return NULL;
    }
    if (*i >= p->nslots)
        return NULL;
    *id = p->slot_ids[*i];
    return &p->slots[*i];
}

/* The slot of a CPU-side event's parent when that is a CPU-side event in scope too, not the event itself
 * (a foreign database's loop of one); else NULL. */
static struct slot *parent_slot(struct ops_pass *p, const struct slot *s)
{
    int64_t parent = ops_slot_parent(p, s);
    if (parent == UNREAD || parent == NO_PARENT)
        return NULL;
    struct slot *ps = ops_slot_find(p, parent);
    return ps && ps != s && ps->group >= 0 ? ps : NULL;
}

static struct group *group_at(struct ops_pass *p, int32_t g)
{
    return sweep_index_at(&p->part[0].groups, (size_t)g);
}

/* Moves merged event id's own sums out of its group: its call, total and FLOPs leave the rows; its self
 * time goes to the group of the event it merges into (into). 0, or -1 (db error). */
static int take_out(struct ops_pass *p, sqlite3_stmt *row, int64_t id, struct group *from, struct group *into)
{
    sqlite3_bind_int64(row, 1, id);
    int rc = sqlite3_step(row);
    if (rc == SQLITE_ROW) {
        int64_t dur = sqlite3_column_int64(row, 0), self = sqlite3_column_int64(row, 1);
        ops_add(&p->overflow, &from->s.calls, -1);
        ops_add(&p->overflow, &from->s.cpu_total, -dur);
        ops_add(&p->overflow, &from->s.self_cpu, -self);
        ops_add(&p->overflow, &into->s.self_cpu, self);
        int ft = p->o->with_flops ? sqlite3_column_type(row, 2) : SQLITE_NULL;
        if (ft == SQLITE_INTEGER && !from->s.flops_real) {
            int64_t f = sqlite3_column_int64(row, 2);
            from->s.flops_i -= f, from->s.flops_d -= (long double)f;
        } else if (ft != SQLITE_NULL) {
            from->s.flops_d -= sqlite3_column_double(row, 2);
        }
    }
    sqlite3_reset(row);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* A merged event's [memory] bytes leave its group: they lie in its top's [start, end], counted there
 * already. (Before its group becomes its top's.) */
static void held_of_merged(struct ops_pass *p)
{
    const struct ops_part *all = &p->part[0];
    for (size_t i = 0; i < all->nheld; i++) {
        const struct held *h = &all->held[i];
        const struct slot *s = ops_slot_find(p, h->id);
        if (!s || s->children != MERGED)
            continue;
        struct sums *g = &group_at(p, s->group)->s;
        ops_add(&p->overflow, &g->cpu_mem, -h->host), ops_add(&p->overflow, &g->self_cpu_mem, -h->host);
        ops_add(&p->overflow, &g->dev_mem, -h->device), ops_add(&p->overflow, &g->self_dev_mem, -h->device);
    }
}

/* PyTorch's self memory: an event's bytes less those of its CPU-side children, the events whose nearest
 * CPU-side event above is it (through Python frames; a merged one stands for its top). 0, or -1. */
static int held_less_children(struct ops_pass *p)
{
    const struct ops_part *all = &p->part[0];
    for (size_t i = 0; i < all->nheld; i++) {
        const struct held *h = &all->held[i];
        const struct slot *s = ops_slot_find(p, h->id);
        if (!s || s->children == MERGED)
            continue;
        int64_t at = h->id, up;
        for (int steps = 0; steps < 65536; steps++) { /* (parents that loop, a foreign database's: given up) */
            int r = ops_parent_of(p, at, &up);
            if (r < 0)
                return -1;
            const struct slot *ps = r && up != at ? ops_slot_find(p, up) : NULL;
            if (!r || up == at || (ps && ps->group >= 0)) {
                if (ps && ps->group >= 0 && ps != ops_slot_find(p, h->id)) {
                    struct sums *g = &group_at(p, ps->group)->s;
                    ops_add(&p->overflow, &g->self_cpu_mem, -h->host);
                    ops_add(&p->overflow, &g->self_dev_mem, -h->device);
                }
                break;
            }
            at = up;
        }
    }
    return 0;
}

/* In a window the pass knows the children in it alone: of the events merged (merged[0..n)), those whose
 * parent has another CPU-side child outside it stay, found by one scan of every event's parent and
 * kind. The number left, or -1 (db error, out of memory). */
static long keep_only_children(struct ops_pass *p, int64_t *merged, size_t n)
{
    struct strmap parents;
    strmap_init(&parents);
    int *children = calloc(n, sizeof *children);
    int rc = children ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int64_t parent = ops_slot_parent(p, ops_slot_find(p, merged[i]));
        rc = strmap_put(&parents, &parent, sizeof parent, (int64_t)i);
    }
    sqlite3_stmt *st = NULL;
    if (rc == 0 && sqlite3_prepare_v2(p->db, "SELECT parent_id FROM main.event WHERE parent_id IS NOT NULL AND "
                                             "kind IN (?1, ?2, ?3, ?4)", -1, &st, NULL) != SQLITE_OK)
        rc = -1;
    if (st) {
        sqlite3_bind_int(st, 1, TDB_KIND_OP), sqlite3_bind_int(st, 2, TDB_KIND_RANGE);
        sqlite3_bind_int(st, 3, TDB_KIND_RUNTIME), sqlite3_bind_int(st, 4, TDB_KIND_DRIVER);
        int step;
        while ((step = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t parent = sqlite3_column_int64(st, 0), at = strmap_get(&parents, &parent, sizeof parent);
            if (at >= 0 && children[at] < 2)
                children[at]++;
        }
        rc = step == SQLITE_DONE ? 0 : -1;
        sqlite3_finalize(st);
    }
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (children[i] <= 1)
            merged[kept++] = merged[i];
    free(children);
    strmap_free(&parents);
    return rc == 0 ? (long)kept : -1;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The place of id in the sorted ids v[0..n), or -1. */
static long find_id(const int64_t *v, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == id ? (long)lo : -1;
}

int ops_merge_same_name(struct ops_pass *p)
{
    int64_t id;
    struct slot *s;
    /* every CPU-side event's CPU-side children, counted up to two */
    for (size_t i = 0; (s = slot_at(p, &i, &id)) != NULL; i++) {
        struct slot *ps = s->group >= 0 ? parent_slot(p, s) : NULL;
        if (ps && ps->children < 2)
            ps->children++;
    }
    /* the events PyTorch removes, decided on the tree as read (a merge never changes another's) */
    int64_t *merged = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; (s = slot_at(p, &i, &id)) != NULL; i++) {
        struct slot *ps = s->group >= 0 ? parent_slot(p, s) : NULL;
        if (ps && ps->children == 1 && group_at(p, ps->group)->name_id == group_at(p, s->group)->name_id) {
            int64_t *v = ops_push((void **)&merged, &n, &cap, sizeof *v);
            if (!v) {
                free(merged);
                return -1;
            }
            *v = id;
        }
    }
    long kept = p->o->windowed && n ? keep_only_children(p, merged, n) : (long)n;
    if (kept < 0) {
        free(merged);
        return -1;
    }
    n = (size_t)kept;
    for (size_t i = 0; i < n; i++)
        ops_slot_find(p, merged[i])->children = MERGED;
    held_of_merged(p);
    if (n)
        qsort(merged, n, sizeof *merged, cmp_id);
    sqlite3_stmt *row = NULL;
    unsigned char *done = n ? calloc(n, 1) : NULL;
    size_t *chain = n ? malloc(n * sizeof *chain) : NULL;
    int rc = n && (!done || !chain ||
                   sqlite3_prepare_v2(p->db,
                                      "SELECT dur_ns, self_ns, CASE WHEN ?2 THEN tdb_flops((SELECT s.value FROM string s "
                                      "WHERE s.id = e.name_id), e.args) END FROM scope_event e WHERE e.id = ?1",
                                      -1, &row, NULL) != SQLITE_OK) ? -1 : 0;
    if (row)
        sqlite3_bind_int(row, 2, p->o->with_flops);
    /* a chain merges into its top, the first not merged: each chain walked once, from its lowest event not
     * done up to the top or to an event done (whose group is its top's already); linear however deep.
     * Parents that loop (a foreign database's: no top) merge nothing. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (done[i])
            continue;
        size_t len = 0;
        int64_t at = merged[i];
        struct slot *up = ops_slot_find(p, at);
        long k = (long)i;
        while (up && up->children == MERGED && k >= 0 && !done[k]) {
            chain[len++] = (size_t)k, done[k] = 2; /* 2: in this walk */
            at = ops_slot_parent(p, up);
            up = parent_slot(p, up);
            k = up && up->children == MERGED ? find_id(merged, n, at) : -1;
        }
        int loop = !up || (k >= 0 && done[k] == 2);
        for (size_t j = 0; rc == 0 && j < len; j++) {
            struct slot *c = ops_slot_find(p, merged[chain[j]]);
            done[chain[j]] = 1;
            if (loop) {
                c->children = 1; /* not merged after all */
                continue;
            }
            rc = take_out(p, row, merged[chain[j]], group_at(p, c->group), group_at(p, up->group));
            c->group = up->group; /* what it launched and allocated counts as the top's own */
        }
    }
    free(done);
    free(chain);
    sqlite3_finalize(row);
    free(merged);
    return rc == 0 ? held_less_children(p) : rc;
}

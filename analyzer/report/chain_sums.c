/* chain_sums.c: values summed up chains of parents in linear time (see chain_sums.h). A chain that ends
 * (or closes) within SHORT events, as nearly every one does, is walked from the value at once, its length
 * found first (Brent's cycle search: a loop of parents is walked round once). A longer one is met as
 * nodes, each event's naming its parent's, walked up only to the first node met before; the nodes' sums
 * then go up in Kahn's order (a node's once every node below it has given it theirs), and the nodes left
 * are loops, each summed round once. */
#include "chain_sums.h"
#include "bigmem.h"
#include <stdlib.h>

#define SHORT 16                      /* a chain of fewer events is walked from each value */
#define DIRECT_MAX ((int64_t)1 << 28) /* ids found by their place at most (1 GB of address space) */
#define TAKEN UINT32_MAX              /* below: the node's sums are whole and taken */

void chain_sums_init(struct chain_sums *c, int64_t lo, int64_t span, chain_parent_fn parent_of, chain_take_fn take,
                     void *ctx)
{
    *c = (struct chain_sums){.parent_of = parent_of, .take = take, .ctx = ctx, .lo = lo};
    c->span = span > 0 && span <= DIRECT_MAX ? span : 0;
}

void chain_sums_free(struct chain_sums *c)
{
    free(c->at);
    free(c->ix);
    free(c->v);
    *c = (struct chain_sums){0};
}

/* A new node for id, with no parent: its index, or -1 when out of memory. */
static int64_t new_node(struct chain_sums *c, int64_t id)
{
    if (c->n >= INT32_MAX)
        return -1;
    if (c->n == c->ncap) {
        size_t cap = c->ncap ? 2 * c->ncap : 1024;
        struct chain_node *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v, c->ncap = cap;
    }
    c->v[c->n] = (struct chain_node){id, -1, 0, {0}};
    return (int64_t)c->n++;
}

/* id's first slot in ix: its bits mixed (murmur3's finalizer), so that ids in steps stay apart. */
static size_t slot(const struct chain_sums *c, int64_t id)
{
    uint64_t h = (uint64_t)id;
    h ^= h >> 33, h *= 0xFF51AFD7ED558CCDu, h ^= h >> 33, h *= 0xC4CEB9FE1A85EC53u, h ^= h >> 33;
    return (size_t)h & (c->cap - 1);
}

/* The node of id, made with no parent when new (*fresh): its index, or -1 when out of memory. */
static int64_t node_of(struct chain_sums *c, int64_t id, int *fresh)
{
    uint64_t k = (uint64_t)id - (uint64_t)c->lo; /* (wraps: no overflow) */
    if (k < (uint64_t)c->span) {
        if (!c->at && !(c->at = tdb_big_calloc((size_t)c->span, sizeof *c->at)))
            return -1;
        if ((*fresh = !c->at[k]) == 0)
            return (int64_t)c->at[k] - 1;
        int64_t x = new_node(c, id);
        if (x >= 0)
            c->at[k] = (uint32_t)x + 1;
        return x;
    }
    size_t i = c->cap ? slot(c, id) : 0;
    for (; c->cap && c->ix[i]; i = (i + 1) & (c->cap - 1))
        if (c->v[c->ix[i] - 1].id == id) {
            *fresh = 0;
            return (int64_t)c->ix[i] - 1;
        }
    *fresh = 1;
    if (2 * (c->nix + 1) > c->cap) { /* at half full, twice the slots, each hashed node placed again */
        size_t cap = c->cap ? 2 * c->cap : 1024;
        uint32_t *ix = calloc(cap, sizeof *ix);
        if (!ix)
            return -1;
        free(c->ix);
        c->ix = ix, c->cap = cap;
        for (size_t m = 0; m < c->n; m++) {
            if ((uint64_t)c->v[m].id - (uint64_t)c->lo < (uint64_t)c->span)
                continue;
            size_t j = slot(c, c->v[m].id);
            while (c->ix[j])
                j = (j + 1) & (c->cap - 1);
            c->ix[j] = (uint32_t)m + 1;
        }
        for (i = slot(c, id); c->ix[i];)
            i = (i + 1) & (c->cap - 1);
    }
    int64_t x = new_node(c, id);
    if (x >= 0)
        c->ix[i] = (uint32_t)x + 1, c->nix++;
    return x;
}

static void add(int *overflow, int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *overflow = 1;
}

/* How many distinct events the chain from id holds (id included) when fewer than SHORT, by Brent's cycle
 * search (a loop of parents counts each of its events once); SHORT when not; -1 on error. */
static long chain_length(const struct chain_sums *c, int64_t id)
{
    int64_t tortoise = id, hare = id;
    long power = 1, lam = 1, steps = 1;
    int rc = c->parent_of(c->ctx, hare, &hare);
    if (rc <= 0)
        return rc < 0 ? -1 : 1;
    while (tortoise != hare) { /* the loop's length, lam */
        if (power == lam)
            tortoise = hare, power *= 2, lam = 0;
        if ((rc = c->parent_of(c->ctx, hare, &hare)) <= 0)
            return rc < 0 ? -1 : steps + 1; /* the chain ends: no loop */
        lam++;
        if (++steps >= SHORT)
            return SHORT;
    }
    tortoise = hare = id; /* where the loop starts: mu events before it */
    for (long i = 0; i < lam; i++)
        if (c->parent_of(c->ctx, hare, &hare) < 0)
            return -1;
    long mu = 0;
    for (; tortoise != hare && mu + lam < SHORT; mu++)
        if (c->parent_of(c->ctx, tortoise, &tortoise) < 0 || c->parent_of(c->ctx, hare, &hare) < 0)
            return -1;
    return mu + lam;
}

int chain_sums_add(struct chain_sums *c, int64_t id, int col, int64_t v, int *overflow)
{
    long len = chain_length(c, id);
    if (len < 0)
        return -1;
    if (len < SHORT) { /* each of its events once, now */
        int64_t sums[CHAIN_COLS] = {0};
        sums[col] = v;
        for (long k = 0; k < len; k++) {
            c->take(c->ctx, id, sums);
            if (k + 1 < len && c->parent_of(c->ctx, id, &id) < 0)
                return -1;
        }
        return 0;
    }
    int fresh;
    int64_t x = node_of(c, id, &fresh);
    if (x < 0)
        return -1;
    add(overflow, &c->v[x].sum[col], v);
    while (fresh) { /* a new node: its parent's, up to a node met before (or the top) */
        int64_t parent, up;
        int rc = c->parent_of(c->ctx, c->v[x].id, &parent);
        if (rc <= 0)
            return rc;
        if ((up = node_of(c, parent, &fresh)) < 0)
            return -1;
        c->v[x].up = (int32_t)up;
        c->v[up].below++;
        x = up;
    }
    return 0;
}

void chain_sums_end(struct chain_sums *c, int *overflow)
{
    for (size_t i = 0; i < c->n; i++) /* from each node with nothing below it, up while the next has nothing left */
        for (int64_t x = (int64_t)i; x >= 0 && c->v[x].below == 0;) {
            struct chain_node *d = &c->v[x];
            d->below = TAKEN;
            c->take(c->ctx, d->id, d->sum);
            if ((x = d->up) >= 0) {
                for (int k = 0; k < CHAIN_COLS; k++)
                    add(overflow, &c->v[x].sum[k], d->sum[k]);
                c->v[x].below--;
            }
        }
    /* what is left is on loops (a node off every loop has finitely many below it: Kahn's order took it):
     * each of a loop's nodes gets the loop's sums, everything below it included */
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].below == TAKEN)
            continue;
        int64_t sum[CHAIN_COLS] = {0}, x = (int64_t)i;
        do {
            for (int k = 0; k < CHAIN_COLS; k++)
                add(overflow, &sum[k], c->v[x].sum[k]);
            x = c->v[x].up;
        } while (x != (int64_t)i);
        do {
            c->v[x].below = TAKEN;
            c->take(c->ctx, c->v[x].id, sum);
            x = c->v[x].up;
        } while (x != (int64_t)i);
    }
}

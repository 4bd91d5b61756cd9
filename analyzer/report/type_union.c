/* type_union.c: unions of the intervals of HTA's kernel types (see type_union.h). */
#include "type_union.h"
#include "time_range.h"
#include <stdlib.h>
#include <string.h>

/* The sets reported, as masks of types: a, b, c, ab, ac, bc, abc, other. */
static const unsigned type_sets[TU_SETS] = {1, 2, 4, 3, 5, 6, 7, 8};

int type_union_of(const char *t)
{
    return strcmp(t, "computation") == 0     ? TU_COMPUTATION
           : strcmp(t, "communication") == 0 ? TU_COMMUNICATION
           : strcmp(t, "memory") == 0        ? TU_MEMORY
                                             : TU_OTHER;
}

int type_ends_add(struct type_ends *te, int type, int64_t s, int64_t e)
{
    te->rows[type]++;
    s = tdb_time_held(s), e = tdb_time_held(e); /* within +-2^62: the union's length fits in 64 bits */
    if (e <= s)
        return 0; /* as interval_union: empty intervals cover nothing */
    if (te->n == te->cap) {
        size_t ncap = te->cap ? te->cap * 2 : 128;
        struct type_iv *nv = realloc(te->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        te->v = nv, te->cap = ncap;
    }
    te->v[te->n++] = (struct type_iv){s, e, type};
    return 0;
}

static int cmp_start(const void *a, const void *b)
{
    const struct type_iv *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* The running intervals' ends, the earliest on top (a binary heap): as many as run at once. */
struct end_heap {
    struct running_end {
        int64_t e;
        int32_t type;
    } *v;
    size_t n, cap;
};

static int heap_push(struct end_heap *h, int64_t e, int32_t type)
{
    if (h->n == h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        struct running_end *nv = realloc(h->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        h->v = nv, h->cap = ncap;
    }
    size_t i = h->n++;
    for (; i > 0 && h->v[(i - 1) / 2].e > e; i = (i - 1) / 2)
        h->v[i] = h->v[(i - 1) / 2];
    h->v[i] = (struct running_end){e, type};
    return 0;
}

static struct running_end heap_pop(struct end_heap *h)
{
    struct running_end top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1].e < h->v[c].e)
            c++;
        if (h->v[c].e >= last.e)
            break;
        h->v[i] = h->v[c], i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

/* The sweep's place: the time reached and how many intervals of each type run there. */
struct sweep_at {
    int64_t t, count[TU_TYPES];
};

/* Moves the sweep to t, adding the time since the last to each set of types that ran through it. */
static void sweep_to(struct sweep_at *at, int64_t t, int64_t len[TU_SETS])
{
    if (t > at->t) {
        unsigned running = (at->count[0] > 0) | (at->count[1] > 0) << 1 | (at->count[2] > 0) << 2 | (at->count[3] > 0) << 3;
        for (int k = 0; k < TU_SETS; k++)
            if (running & type_sets[k])
                len[k] += t - at->t;
        at->t = t;
    }
}

/* Takes the running intervals that end by t off the heap, the sweep moving to each end. */
static void end_until(struct end_heap *h, struct sweep_at *at, int64_t t, int64_t len[TU_SETS])
{
    while (h->n && h->v[0].e <= t) {
        struct running_end r = heap_pop(h);
        sweep_to(at, r.e, len);
        at->count[r.type]--;
    }
}

int type_ends_lengths(struct type_ends *te, int64_t len[TU_SETS])
{
    memset(len, 0, TU_SETS * sizeof *len);
    if (!te->n)
        return 0;
    for (size_t i = 1; i < te->n; i++)
        if (te->v[i - 1].s > te->v[i].s) {
            qsort(te->v, te->n, sizeof *te->v, cmp_start);
            break;
        }
    struct end_heap h = {0};
    struct sweep_at at = {.t = te->v[0].s};
    for (size_t i = 0; i < te->n; i++) {
        end_until(&h, &at, te->v[i].s, len); /* what ended by this start (an end and a start at one time: no time between) */
        sweep_to(&at, te->v[i].s, len);
        at.count[te->v[i].type]++;
        if (heap_push(&h, te->v[i].e, te->v[i].type) != 0) {
            free(h.v);
            return -1;
        }
    }
    end_until(&h, &at, INT64_MAX, len);
    free(h.v);
    return 0;
}

int type_ends_join(struct type_ends *a, const struct type_ends *b)
{
    if (a->n + b->n > a->cap) {
        struct type_iv *v = realloc(a->v, (a->n + b->n) * sizeof *v);
        if (!v)
            return -1;
        a->v = v, a->cap = a->n + b->n;
    }
    if (b->n)
        memcpy(a->v + a->n, b->v, b->n * sizeof *b->v);
    a->n += b->n;
    for (int k = 0; k < TU_TYPES; k++)
        a->rows[k] += b->rows[k];
    return 0;
}

void type_ends_free(struct type_ends *te)
{
    free(te->v);
    te->v = NULL, te->n = te->cap = 0;
}

/* type_union.c: unions of the intervals of HTA's kernel types (see type_union.h). */
#include "type_union.h"
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
    if (e <= s)
        return 0; /* as interval_union: empty intervals cover nothing */
    if (te->n + 2 > te->cap) {
        size_t ncap = te->cap ? te->cap * 2 : 128;
        struct type_end *nv = realloc(te->v, ncap * sizeof *nv);
        if (!nv)
            return -1;
        te->v = nv, te->cap = ncap;
    }
    te->v[te->n++] = (struct type_end){s, type, 1};
    te->v[te->n++] = (struct type_end){e, type, -1};
    return 0;
}

static int cmp_type_end(const void *a, const void *b)
{
    const struct type_end *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

void type_ends_lengths(struct type_ends *te, int64_t len[TU_SETS])
{
    memset(len, 0, TU_SETS * sizeof *len);
    if (!te->n)
        return;
    qsort(te->v, te->n, sizeof *te->v, cmp_type_end);
    int64_t count[TU_TYPES] = {0}, prev = te->v[0].t;
    for (size_t i = 0; i < te->n; i++) {
        int64_t dt = te->v[i].t - prev;
        if (dt > 0) {
            unsigned running = (count[0] > 0) | (count[1] > 0) << 1 | (count[2] > 0) << 2 | (count[3] > 0) << 3;
            for (int k = 0; k < TU_SETS; k++)
                if (running & type_sets[k])
                    len[k] += dt;
        }
        count[te->v[i].type] += te->v[i].delta;
        prev = te->v[i].t;
    }
}

int type_ends_join(struct type_ends *a, const struct type_ends *b)
{
    if (a->n + b->n > a->cap) {
        struct type_end *v = realloc(a->v, (a->n + b->n) * sizeof *v);
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

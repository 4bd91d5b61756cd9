/* nesting.c: the per-track stack sweep that gives every event its parent, depth and self time, over
 * keys sorted by (track, start, longer first, file order) by an external sort (spill_sort.c): memory
 * is the stack's (the deepest nesting), whatever the trace's size. Never an interval join. */
#include "nesting.h"
#include "ingest.h" /* tdb_sat_add */
#include <stdlib.h>

int nesting_key_cmp(const void *a, const void *b)
{
    const struct nesting_key *x = a, *y = b;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

struct nesting_frame {
    struct nesting_result r;
    int64_t end, child_sum;
    uint32_t path;
};

/* Ends the frame on top: its self time is now known. */
static int pop(struct nesting_frame *f, int (*emit)(void *, const struct nesting_result *), void *ctx)
{
    f->r.self = f->r.dur - f->child_sum;
    return emit(ctx, &f->r);
}

int64_t nesting_sweep(struct spill_sort *keys, int held, uint32_t (*path)(void *ctx, uint32_t enclosing, uint32_t stat),
                      int (*emit)(void *ctx, const struct nesting_result *r), void *ctx)
{
    size_t cap = 64, top = 0;
    struct nesting_frame *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return -1;
    int64_t overlaps = 0;
    uint32_t cur_track = 0;
    int first = 1, rc = 0;
    const struct nesting_key *k;
    while (rc == 0 && (k = spill_sort_next(keys)) != NULL) {
        int64_t s = k->start, d = k->dur, end = s + d;
        if (first || k->track != cur_track) {
            while (rc == 0 && top > 0)
                rc = pop(&stack[--top], emit, ctx);
            cur_track = k->track, first = 0;
        }
        while (rc == 0 && top > 0 && stack[top - 1].end <= s) /* ended before this one starts */
            rc = pop(&stack[--top], emit, ctx);
        while (rc == 0 && top > 0 && stack[top - 1].end < end) { /* started before, ends inside: not nested */
            rc = pop(&stack[--top], emit, ctx);
            overlaps++;
        }
        if (rc != 0)
            break;
        struct nesting_result r = {k->ord, 0, 0, k->stat, k->track, k->attributes, 0, d, d, {0, 0, 0}};
        if (held)
            r.held = ((const struct nesting_held_key *)k)->held;
        if (top > 0) {
            struct nesting_frame *f = &stack[top - 1];
            if (!f->path && !(f->path = path(ctx, f->r.context, f->r.stat))) { /* its first child */
                rc = -1;
                break;
            }
            r.parent = f->r.ord + 1;
            r.context = f->path;
            r.depth = f->r.depth == UINT16_MAX ? UINT16_MAX : (uint16_t)(f->r.depth + 1);
            f->child_sum = tdb_sat_add(f->child_sum, d);
        }
        if (d == 0) { /* an instant: a leaf */
            r.self = 0;
            rc = emit(ctx, &r);
            continue;
        }
        if (top == cap) {
            struct nesting_frame *ns = realloc(stack, cap * 2 * sizeof *ns);
            if (!ns) {
                rc = -1;
                break;
            }
            stack = ns, cap *= 2;
        }
        stack[top++] = (struct nesting_frame){r, end, 0, 0}; /* its path: when a child needs it */
    }
    while (rc == 0 && top > 0)
        rc = pop(&stack[--top], emit, ctx);
    free(stack);
    return rc != 0 || spill_sort_error(keys) ? -1 : overlaps;
}

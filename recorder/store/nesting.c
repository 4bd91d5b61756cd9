/* nesting.c: the per-track stack sweep that gives every event its parent, depth and self time, over
 * keys sorted by (track, start, longer first, file order) by an external sort (spill_sort.c): memory
 * is the stack's top, whatever the trace's size and its nesting (the stack's deep part, not touched
 * until its frames end, in pages on disk: paged.h). Never an interval join. */
#include "nesting.h"
#include "ingest.h" /* tdb_sat_add */
#include <stdlib.h>
#include <string.h>

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
};

/* Frame n, made from r (field by field over zeros: the page it is in may go to a file as it is). */
static void frame_set(struct nesting_frame *n, const struct nesting_result *r, int64_t end)
{
    memset(n, 0, sizeof *n);
    n->r.ord = r->ord, n->r.parent = r->parent, n->r.parent_stat = r->parent_stat, n->r.stat = r->stat;
    n->r.track = r->track, n->r.depth = r->depth;
    n->r.self = r->self, n->r.dur = r->dur;
    n->r.held.self = r->held.self, n->r.held.parent = r->held.parent, n->r.held.depth = r->held.depth;
    n->end = end;
}

/* Ends the frame on top (*top frames on the stack): its self time is now known. 0, or -1 when its page
 * could not be read back or emit failed. */
static int pop(struct paged *stack, size_t *top, int (*emit)(void *, const struct nesting_result *), void *ctx)
{
    struct nesting_frame *f = paged_at(stack, *top - 1);
    if (!f)
        return -1;
    --*top;
    f->r.self = f->r.dur - f->child_sum;
    int rc = emit(ctx, &f->r);
    if ((*top & stack->mask) == 0) /* a page emptied: the one above it goes (one kept, for the next push) */
        paged_truncate(stack, *top + stack->mask + 1);
    return rc;
}

/* The end of the frame on top, into *end: 0, or -1 when its page could not be read back. */
static int top_end(struct paged *stack, size_t top, int64_t *end)
{
    const struct nesting_frame *f = paged_at(stack, top - 1);
    if (!f)
        return -1;
    *end = f->end;
    return 0;
}

int64_t nesting_sweep(struct spill_sort *keys, int held, struct paged_file *stack_file, size_t stack_bytes,
                      int (*emit)(void *ctx, const struct nesting_result *r), void *ctx)
{
    struct paged stack;
    paged_init(&stack, stack_file, sizeof(struct nesting_frame), stack_bytes);
    size_t top = 0;
    int64_t overlaps = 0, top_ends;
    uint32_t cur_track = 0;
    int first = 1, rc = 0;
    const struct nesting_key *k;
    while (rc == 0 && (k = spill_sort_next(keys)) != NULL) {
        int64_t s = k->start, d = k->dur, end = s + d;
        if (first || k->track != cur_track) {
            while (rc == 0 && top > 0)
                rc = pop(&stack, &top, emit, ctx);
            cur_track = k->track, first = 0;
        }
        while (rc == 0 && top > 0 && (rc = top_end(&stack, top, &top_ends)) == 0 && top_ends <= s) /* ended before this one starts */
            rc = pop(&stack, &top, emit, ctx);
        while (rc == 0 && top > 0 && (rc = top_end(&stack, top, &top_ends)) == 0 && top_ends < end) { /* started before, ends inside: not nested */
            rc = pop(&stack, &top, emit, ctx);
            overlaps++;
        }
        if (rc != 0)
            break;
        struct nesting_result r = {k->ord, 0, 0, k->stat, k->track, 0, d, d, {0, 0, 0}};
        if (held)
            r.held = ((const struct nesting_held_key *)k)->held;
        if (top > 0) {
            struct nesting_frame *f = paged_at(&stack, top - 1);
            if (!f) {
                rc = -1;
                break;
            }
            r.parent = f->r.ord + 1;
            r.parent_stat = f->r.stat;
            r.depth = f->r.depth == UINT16_MAX ? UINT16_MAX : (uint16_t)(f->r.depth + 1);
            f->child_sum = tdb_sat_add(f->child_sum, d);
        }
        if (d == 0) { /* an instant: a leaf */
            r.self = 0;
            rc = emit(ctx, &r);
            continue;
        }
        struct nesting_frame *n = paged_at(&stack, top);
        if (!n) {
            rc = -1;
            break;
        }
        frame_set(n, &r, end);
        top++;
    }
    while (rc == 0 && top > 0)
        rc = pop(&stack, &top, emit, ctx);
    paged_free(&stack);
    return rc != 0 || spill_sort_error(keys) ? -1 : overlaps;
}

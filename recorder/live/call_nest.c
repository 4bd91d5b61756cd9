/* call_nest.c: see call_nest.h. A recording writes each row as it converts it, before the end of the
 * trace nests and links every row (ingest_sweep.c); a row the end finds otherwise is rewritten then, in
 * place, about a microsecond each: every CUDA call and kernel of a recording was, 32 s of closing one of
 * 30 M events. CUPTI hands its records over in buffers, a call's after the calls inside it (it returns
 * last), kernels in buffers of their own: so each chunk's events are sorted by track and time and swept
 * here with the end's own rule, roots inside the NVTX range the converter knows around them, and GPU
 * work looks its launch up among the launch calls of recent chunks. What a chunk cannot tell (a call
 * whose inner call came in the chunk before, a launch too far back) the end still finds and writes:
 * these values only spare the rows they get right. Memory: the chunk's rows, and the recent launches. */
#include "call_nest.h"
#include "ingest.h"
#include "kinds.h"
#include "nesting.h"
#include <stdlib.h>

#define LAUNCH_SLOTS ((size_t)1 << 17) /* recent launch calls, by correlation (CUPTI numbers them in turn) */

struct launch_slot {
    int64_t corr, id, start;
};

struct call_nest {
    struct launch_slot *launches;
    struct nesting_key *items; /* the chunk's events in the sweep's order (ord: the row) */
    size_t *stack;
    size_t cap;
};

struct call_nest *call_nest_new(void)
{
    struct call_nest *n = calloc(1, sizeof *n);
    if (n && !(n->launches = malloc(LAUNCH_SLOTS * sizeof *n->launches))) {
        free(n);
        return NULL;
    }
    for (size_t i = 0; n && i < LAUNCH_SLOTS; i++)
        n->launches[i].corr = TDB_NULL;
    return n;
}

void call_nest_free(struct call_nest *n)
{
    if (!n)
        return;
    free(n->launches), free(n->items), free(n->stack);
    free(n);
}

static struct launch_slot *slot_of(struct call_nest *n, int64_t corr)
{
    return &n->launches[(uint64_t)corr & (LAUNCH_SLOTS - 1)];
}

static int64_t end_of(const struct call_row *r)
{
    return r->start + r->dur;
}

int call_nest_chunk(struct call_nest *n, struct call_row *rows, size_t count, call_enclosing_fn enclosing, void *ctx)
{
    if (count == 0)
        return 0;
    if (count > n->cap) {
        struct nesting_key *items = count <= UINT32_MAX ? realloc(n->items, count * sizeof *items) : NULL;
        if (items)
            n->items = items;
        size_t *stack = realloc(n->stack, count * sizeof *stack);
        if (stack)
            n->stack = stack;
        if (!items || !stack)
            return -1;
        n->cap = count;
    }
    /* launches first: GPU work may come a row or two ahead of its launch; the first of a correlation
     * stays, as the end pairs work with its correlation's first launch */
    for (size_t i = 0; i < count; i++) {
        struct call_row *r = &rows[i];
        r->parent = r->launch = r->launch_ns = TDB_NULL, r->self = r->dur, r->depth = 0, r->child_sum = 0;
        if ((r->kind == TDB_KIND_RUNTIME || r->kind == TDB_KIND_DRIVER) && r->corr != TDB_NULL) {
            struct launch_slot *s = slot_of(n, r->corr);
            if (s->corr != r->corr)
                *s = (struct launch_slot){r->corr, r->id, r->start};
        }
    }
    for (size_t i = 0; i < count; i++) {
        struct call_row *r = &rows[i];
        int gpu = r->kind == TDB_KIND_KERNEL || r->kind == TDB_KIND_MEMCPY || r->kind == TDB_KIND_MEMSET ||
                  r->kind == TDB_KIND_SYNC;
        struct launch_slot *s = gpu && r->corr != TDB_NULL ? slot_of(n, r->corr) : NULL;
        if (s && s->corr == r->corr)
            r->launch = s->id, r->launch_ns = s->start;
        n->items[i] = (struct nesting_key){r->start, r->dur, (uint32_t)r->track, (uint32_t)i, 0, 0};
    }
    qsort(n->items, count, sizeof *n->items, nesting_key_cmp); /* the sweep's own order */
    /* the sweep (nesting.c): a frame ends where the next one starts at or after its end, or outlasts it */
    size_t top = 0;
    uint32_t track = 0; /* as the sweep's keys hold tracks */
    for (size_t k = 0; k < count; k++) {
        struct call_row *r = &rows[n->items[k].ord];
        int64_t s = r->start, e = end_of(r);
        if (k == 0 || (uint32_t)r->track != track)
            top = 0, track = (uint32_t)r->track;
        while (top > 0 && end_of(&rows[n->stack[top - 1]]) <= s)
            top--;
        while (top > 0 && end_of(&rows[n->stack[top - 1]]) < e)
            top--;
        if (top > 0) {
            struct call_row *p = &rows[n->stack[top - 1]];
            r->parent = p->id, r->depth = p->depth + 1;
            p->child_sum = tdb_sat_add(p->child_sum, r->dur);
            p->self = p->dur - p->child_sum; /* as nesting.c finds it (a child_sum saturates) */
        } else {
            int64_t id;
            int depth;
            if (enclosing && enclosing(ctx, r->track, s, r->dur, &id, &depth) == 1)
                r->parent = id, r->depth = depth + 1;
        }
        if (r->dur > 0) /* an instant is a leaf */
            n->stack[top++] = n->items[k].ord;
    }
    return 0;
}

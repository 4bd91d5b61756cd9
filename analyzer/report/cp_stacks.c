/* cp_stacks.c: the critical path graph's edges from the host's call stacks (see cp_graph_internal.h):
 * each thread's stack built as HTA's CallStackGraph builds it (the backward thread merged into the
 * forward one) and walked depth first: nested calls are operator edges, consecutive top-level calls
 * dependency edges, a blocking call's own time weighs nothing. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include <stdlib.h>
#include <string.h>

/* A call stack's starts and ends of events (HTA's call_stack.Event), ordered as HTA's compare_events
 * orders them. Every event of a stack lasts (the window keeps only those), where compare_events is a
 * total order: by time; at one time ends before starts; starts longest first, then by event; ends
 * shortest first, then by event, the later event first. Row i's start is item 2i, its end 2i + 1 (as in
 * graph.items). */
static _Thread_local const struct cp_row *stack_rows; /* for stack_order, which qsort calls */

static int64_t item_time(const struct cp_row *rows, uint32_t x)
{
    const struct cp_row *r = &rows[x >> 1];
    return x & 1 ? r->end : r->ts;
}

static int stack_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const struct cp_row *rows = stack_rows;
    int64_t tx = item_time(rows, x), ty = item_time(rows, y);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    int end = x & 1;
    if (end != (int)(y & 1))
        return end ? -1 : 1;
    uint32_t mx = x >> 1, my = y >> 1;
    int64_t dx = rows[mx].end - rows[mx].ts, dy = rows[my].end - rows[my].ts;
    if (dx != dy)
        return (dx < dy) == end ? -1 : 1;
    return mx == my ? 0 : (mx < my) != end ? -1 : 1;
}

/* The walk's state: HTA's enter_func/exit_func closure. */
struct walk {
    int32_t last, last_parent;
    int depth;
};

static void walk_enter(struct graph *g, struct walk *w, int32_t row, int32_t parent)
{
    int32_t s = g->start[row];
    if (s < 0 || g->end[row] < 0)
        return;
    if (w->last >= 0 && !shares_lock(g, w->last, s))
        cp_attribute(g, cp_add_edge(g, w->last, s, w->depth == 0 ? CP_DEPENDENCY : CP_OPERATOR, 0), w->last_parent);
    w->last = s, w->last_parent = parent, w->depth++;
}

static void walk_exit(struct graph *g, struct walk *w, int32_t row, int32_t parent)
{
    int32_t s = g->start[row], e = g->end[row];
    if (s < 0 || e < 0)
        return;
    if (w->last >= 0 && !shares_lock(g, w->last, e))
        cp_attribute(g, cp_add_edge(g, w->last, e, CP_OPERATOR, (g->row_bits[row] & ROW_BLOCKING) != 0), w->last_parent);
    w->last = e, w->last_parent = parent, w->depth--;
}

/* A stack whose ends each close the event on top: its depth-first walk is the items' own order. */
static int nested(const uint32_t *order, size_t ne, int32_t *stack)
{
    size_t sp = 0;
    for (size_t k = 0; k < ne; k++) {
        int32_t row = (int32_t)(order[k] >> 1);
        if (!(order[k] & 1))
            stack[sp++] = row;
        else if (sp == 0 || stack[--sp] != row)
            return 0;
    }
    return 1;
}

/* The depth-first walk of a stack that is not nested: the tree as CallStackGraph builds it (a start's
 * parent is the stack's top; an end pops the top, whatever it is) over the events in the order they
 * start, then walked from its root. 0, or -1 (out of memory). */
static int walk_tree(struct graph *g, const uint32_t *order, size_t ne)
{
    size_t count = ne / 2;
    int32_t *tree = tdb_big_malloc((6 * count + 6) * sizeof *tree);
    if (!tree)
        return -1;
    /* by position in start order: parent, first child, next sibling, last child, its row (count = root) */
    int32_t *parent = tree, *first = parent + count + 1, *next = first + count + 1, *lastc = next + count + 1;
    int32_t *row = lastc + count + 1, *stack = row + count + 1;
    for (size_t i = 0; i <= count; i++)
        parent[i] = -1, first[i] = next[i] = lastc[i] = -1;
    size_t sp = 0, started = 0;
    for (size_t k = 0; k < ne; k++) {
        if (!(order[k] & 1)) {
            int32_t p = (int32_t)started++, par = sp ? stack[sp - 1] : (int32_t)count;
            row[p] = (int32_t)(order[k] >> 1), parent[p] = par;
            if (lastc[par] < 0)
                first[par] = p;
            else
                next[lastc[par]] = p;
            lastc[par] = p;
            stack[sp++] = p;
        } else if (sp) {
            sp--;
        }
    }
    struct walk w = {-1, -1, 0};
    int32_t cur = first[count];
    while (cur >= 0) {
        walk_enter(g, &w, row[cur], parent[cur] == (int32_t)count ? -1 : row[parent[cur]]);
        if (first[cur] >= 0) {
            cur = first[cur];
            continue;
        }
        for (;;) { /* exit cur, and every ancestor whose children are done */
            int32_t pp = parent[cur];
            walk_exit(g, &w, row[cur], pp == (int32_t)count ? -1 : row[pp]);
            if (next[cur] >= 0) {
                cur = next[cur];
                break;
            }
            if (pp == (int32_t)count) {
                cur = -1;
                break;
            }
            cur = pp;
        }
    }
    free(tree);
    return 0;
}

/* HTA's _construct_graph_from_call_stacks for one host call stack: its events built into a tree and
 * walked depth first (enter an event, its children in order, exit it). order holds the stack's ne items
 * by time (equal times in any order, tied to the one before: ordered here), stack room for ne / 2 rows.
 * A nested stack is walked in its items' order; another through the tree. 0, or -1 (out of memory). */
static int call_stack_edges(struct graph *g, uint32_t *order, const uint8_t *tied, size_t ne, int32_t *stack)
{
    stack_rows = g->rows;
    for (size_t k = 0, run; k < ne; k += run) { /* equal times: the rest of the order */
        for (run = 1; k + run < ne && tied[k + run];)
            run++;
        if (run > 1)
            qsort(order + k, run, sizeof *order, stack_order);
    }
    if (!nested(order, ne, stack))
        return walk_tree(g, order, ne);
    struct walk w = {-1, -1, 0};
    size_t sp = 0;
    for (size_t k = 0; k < ne; k++) {
        int32_t row = (int32_t)(order[k] >> 1);
        if (!(order[k] & 1)) {
            walk_enter(g, &w, row, sp ? stack[sp - 1] : -1);
            stack[sp++] = row;
        } else {
            sp--;
            walk_exit(g, &w, row, sp ? stack[sp - 1] : -1);
        }
    }
    return 0;
}

/* Every host call stack's edges, stack after stack (the items cp_make_nodes found). 0, or -1 (out of
 * memory). */
int cp_all_call_stacks(struct graph *g)
{
    size_t most = 0;
    for (size_t s = 0; s < g->nstacks; s++)
        if (g->stack_at[s + 1] - g->stack_at[s] > most)
            most = g->stack_at[s + 1] - g->stack_at[s];
    int32_t *stack = tdb_big_malloc((most / 2 + 1) * sizeof *stack);
    if (!stack)
        return -1;
    int rc = 0;
    for (size_t s = 0; rc == 0 && s < g->nstacks; s++) {
        size_t at = g->stack_at[s];
        if (g->stack_at[s + 1] > at)
            rc = call_stack_edges(g, g->stack_items + at, g->stack_tied + at, g->stack_at[s + 1] - at, stack);
    }
    free(stack);
    return rc;
}

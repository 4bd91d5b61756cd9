/* cp_nodes.c: the critical path graph's nodes and edges (see cp_graph_internal.h): an edge added as
 * HTA's _add_edge_helper adds it and attributed as _attribute_edge does; the nodes (a start and an end
 * for each host operator or runtime call in the window and each GPU row linked to its launch) in time
 * order, with the call stacks' items; the runtime-lock chains; the GPU's recorded edges added after the
 * host's. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include <stdlib.h>
#include <string.h>

/* HTA's _add_edge_helper: networkx keeps one edge per (u, v), a later add replaces its weight and type
 * in place. The edge's index, or -1 (out of memory, or u == v, which HTA asserts against). */
int32_t cp_add_edge(struct graph *g, int32_t u, int32_t v, enum cp_edge_type type, int zero_weight)
{
    if (g->oom || u == v)
        return -1;
    for (int32_t k = g->head[u]; k >= 0; k = g->e[k].next) /* a node has few out-edges */
        if (g->e[k].v == v) {
            g->e[k].type = (uint8_t)type, g->e[k].zero = zero_weight != 0;
            return k;
        }
    if (g->ne == g->ecap) {
        size_t cap = g->ecap ? g->ecap * 2 : 4096;
        struct edge *ne = tdb_big_realloc(g->e, cap * sizeof *ne);
        if (!ne)
            return g->oom = 1, -1;
        g->e = ne, g->ecap = cap;
    }
    g->e[g->ne] = (struct edge){u, v, -2, -1, (uint8_t)type, zero_weight != 0, CP_BOUND_CPU};
    if (g->indeg[u] < 0) /* named: the longest path's sources, in networkx's order */
        g->indeg[u] = 0, g->named[g->nnamed++] = u;
    if (g->indeg[v] < 0)
        g->indeg[v] = 0, g->named[g->nnamed++] = v;
    g->indeg[v]++;
    if (g->tail[u] >= 0)
        g->e[g->tail[u]].next = (int32_t)g->ne;
    else
        g->head[u] = (int32_t)g->ne;
    g->tail[u] = (int32_t)g->ne;
    return (int32_t)g->ne++;
}

/* HTA's _attribute_edge: the event an operator or kernel-gap edge's time belongs to. */
void cp_attribute(struct graph *g, int32_t ei, int32_t src_parent)
{
    if (ei < 0)
        return;
    struct edge *e = &g->e[ei];
    if (e->type != CP_OPERATOR && e->type != CP_KERNEL_GAP)
        return;
    if (e->type == CP_KERNEL_GAP || node_is_start(g, e->u))
        e->attr = node_row(g, e->u);
    else if (!node_is_start(g, e->v))
        e->attr = node_row(g, e->v);
    else
        e->attr = src_parent;
    e->attr_bound = e->attr >= 0 ? (uint8_t)(g->row_bits[e->attr] >> ROW_BOUND_SHIFT) : CP_BOUND_CPU;
}

/* HTA's _create_event_nodes: host operators and runtime calls, and GPU rows with a correlation. */
static int is_node(const struct cp_row *r)
{
    return r->clipped && (host(r) ? (r->flags & (CP_CAT_OP | CP_CAT_RUNTIME)) != 0 : r->link >= 0 || r->correlation >= 0);
}

/* HTA's _get_tid_for_event, found as the rows pass: the thread whose clipped operators or annotations
 * alone have names holding a flag (t -1: none; many: more than one). */
struct only_thread {
    int32_t t;
    int many;
};

static void only_thread_see(struct only_thread *o, int32_t thread)
{
    if (o->many)
        return;
    if (o->t >= 0 && thread != o->t)
        o->many = 1;
    else
        o->t = thread;
}

/* The call stacks' sizes as the rows pass: each thread's stack items (two a member row), the threads
 * HTA's CallStackGraph merges (the backward thread into the forward one). */
struct stack_count {
    size_t *items; /* per thread */
    size_t cap;
    struct only_thread fwd, bwd;
};

static int stack_count_add(struct stack_count *c, int32_t thread)
{
    if ((size_t)thread >= c->cap) {
        size_t cap = c->cap ? c->cap : 16;
        while (cap <= (size_t)thread)
            cap *= 2;
        size_t *a = realloc(c->items, cap * sizeof *a);
        if (!a)
            return -1;
        memset(a + c->cap, 0, (cap - c->cap) * sizeof *a);
        c->items = a, c->cap = cap;
    }
    c->items[thread] += 2;
    return 0;
}

/* The nodes in time order (equal times as made: in row order, a start before its end) and the call
 * stacks' items (cp_all_call_stacks, which reads no row to find them): one pass over the rows, one sort
 * of the starts and ends of the nodes' rows and the stacks' rows together. */
int cp_make_nodes(struct graph *g)
{
    const struct cp_row *rows = g->rows;
    int32_t *want = tdb_big_malloc((g->n + 1) * sizeof *want); /* 2 row, plus one for a node's row */
    int32_t *thread = tdb_big_malloc((g->n + 1) * sizeof *thread); /* a wanted row's stack member thread, -1 */
    int64_t *t = tdb_big_malloc((2 * g->n + 1) * sizeof *t), *last = NULL;
    uint32_t *order = tdb_big_malloc((2 * g->n + 1) * sizeof *order);
    size_t *fill = NULL;
    struct stack_count c = {NULL, 0, {-1, 0}, {-1, 0}};
    g->nodes = tdb_big_malloc((2 * g->n + 1) * sizeof *g->nodes);
    g->row_bits = tdb_big_malloc(g->n + 1);
    size_t nw = 0;
    int rc = -1;
    if (!want || !thread || !t || !order || !g->nodes || !g->row_bits)
        goto done;
    for (size_t i = 0; i < g->n; i++) {
        const struct cp_row *r = &rows[i];
        unsigned bound = host(r) ? CP_BOUND_CPU : (r->flags & CP_COMM) ? CP_BOUND_COMM : CP_BOUND_COMPUTE;
        g->row_bits[i] = (uint8_t)((r->flags & CP_LOCK ? ROW_LOCK : 0) | (r->flags & CP_BLOCKING ? ROW_BLOCKING : 0) |
                                   bound << ROW_BOUND_SHIFT);
        if (r->clipped && (r->flags & (CP_CAT_OP | CP_CAT_ANNOTATION))) {
            if (r->flags & CP_FORWARD)
                only_thread_see(&c.fwd, r->thread);
            if (r->flags & CP_AUTOGRAD)
                only_thread_see(&c.bwd, r->thread);
        }
        int node = is_node(r), member = stack_member(r);
        if (!node && !member)
            continue;
        if (member && stack_count_add(&c, r->thread) != 0)
            goto done;
        t[2 * nw] = r->ts, t[2 * nw + 1] = r->end;
        thread[nw] = member ? r->thread : -1, want[nw++] = (int32_t)(2 * i + (size_t)node);
    }
    /* each stack's place: the backward thread's items with the forward's */
    g->nstacks = c.cap;
    g->stack_at = tdb_big_malloc((c.cap + 1) * sizeof *g->stack_at);
    fill = tdb_big_malloc((c.cap + 1) * sizeof *fill);
    last = tdb_big_malloc((c.cap + 1) * sizeof *last);
    if (!g->stack_at || !fill || !last)
        goto done;
    int merged = c.fwd.t >= 0 && !c.fwd.many && c.bwd.t >= 0 && !c.bwd.many && c.fwd.t != c.bwd.t;
    int32_t merge_from = merged ? c.bwd.t : -1, merge_into = c.fwd.t; /* both rows' threads: under c.cap */
    if (merged)
        c.items[merge_into] += c.items[merge_from], c.items[merge_from] = 0;
    size_t total = 0;
    for (size_t s = 0; s < c.cap; s++)
        g->stack_at[s] = fill[s] = total, total += c.items[s];
    g->stack_at[c.cap] = total;
    g->stack_items = tdb_big_malloc((total + 1) * sizeof *g->stack_items);
    g->stack_tied = tdb_big_malloc(total + 1);
    if (!g->stack_items || !g->stack_tied || cp_order_by_time(t, 2 * nw, order) != 0)
        goto done;
    g->nn = 0;
    for (size_t k = 0; k < 2 * nw; k++) {
        uint32_t o = order[k], side = o & 1;
        int32_t w = want[o >> 1], row = w >> 1, th = thread[o >> 1];
        if (w & 1)
            g->nodes[g->nn++] = ((node_t)row << 1) | (node_t)!side;
        if (th >= 0) {
            size_t s = (size_t)(th == merge_from ? merge_into : th), at = fill[s]++;
            g->stack_items[at] = 2 * (uint32_t)row + side;
            g->stack_tied[at] = at > g->stack_at[s] && last[s] == t[o];
            last[s] = t[o];
        }
    }
    g->spare = (int32_t *)order, order = NULL;
    rc = 0;
done:
    free(want), free(thread), free(t), free(order), free(fill), free(last), free(c.items);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < g->nn; i++)
        (node_is_start(g, (int32_t)i) ? g->start : g->end)[node_row(g, (int32_t)i)] = (int32_t)i;
    size_t room = (g->nn + 1) * sizeof(int32_t);
    g->head = tdb_big_malloc(room), g->tail = tdb_big_malloc(room), g->indeg = tdb_big_malloc(room);
    g->named = tdb_big_malloc(room);
    if (!g->head || !g->tail || !g->indeg || !g->named)
        return -1;
    memset(g->head, 0xff, room), memset(g->tail, 0xff, room), memset(g->indeg, 0xff, room);
    return 0;
}

/* HTA's _construct_graph_from_cuda_runtime_events: lock chains in node order. */
int cp_runtime_lock_edges(struct graph *g)
{
    int32_t *stack = tdb_big_malloc((g->nn + 1) * sizeof *stack), sp = 0, last = -1;
    if (!stack)
        return -1;
    for (size_t i = 0; i < g->nn; i++) {
        int32_t ni = (int32_t)i;
        if (!row_lock(g, node_row(g, ni)))
            continue;
        if (node_is_start(g, ni)) {
            stack[sp++] = ni;
        } else {
            while (sp > 0) {
                int32_t p = stack[--sp];
                if (node_row(g, p) == node_row(g, ni))
                    cp_attribute(g, cp_add_edge(g, p, ni, CP_OPERATOR, 0), node_row(g, ni));
                else
                    cp_add_edge(g, p, ni, CP_DEPENDENCY, 0);
            }
            if (last >= 0 && !node_is_start(g, last))
                cp_add_edge(g, last, ni, CP_DEPENDENCY, 0);
        }
        last = ni;
    }
    free(stack);
    return 0;
}

/* The recorded edges added to g after its own, in the order found: as HTA adds the GPU's after the
 * host's (an edge between two nodes already joined replaces that edge's type, as cp_add_edge does).
 * Sync edges come only from here: one joining two rows of a stream makes the graph suspect. */
int cp_add_recorded(struct graph *g, const struct edge_recs *l)
{
    if (g->ne + l->n > g->ecap) { /* room for all at once, not by doubling */
        struct edge *e = tdb_big_realloc(g->e, (g->ne + l->n + 1) * sizeof *e);
        if (!e)
            return -1;
        g->e = e, g->ecap = g->ne + l->n + 1;
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct edge_rec *r = &l->r[i];
        int32_t k = cp_add_edge(g, r->u, r->v, (enum cp_edge_type)r->type, r->zero);
        if (r->attributed)
            cp_attribute(g, k, -1);
        if (r->type == CP_SYNC && !g->sync_suspect) /* (only these edges are syncs) */
            g->sync_suspect = sync_within_stream(g, r->u, r->v);
    }
    return g->oom ? -1 : 0;
}

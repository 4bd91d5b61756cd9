/* cp_graph.c: HTA's critical path graph and its longest path (see cp_graph.h), rule for rule as
 * hta/analyzers/critical_path_analysis.py builds it:
 *  - a start and an end node for every host operator or runtime call in the window and every GPU row
 *    linked to its launch, ordered by (time, event);
 *  - the runtime-lock chains of cudaLaunchKernel, cudaMemcpyAsync and cudaHostAlloc across threads;
 *  - each host thread's call stack (built as HTA's CallStackGraph builds it, the backward thread merged
 *    into the forward one) walked depth first: nested calls are operator edges, consecutive top-level
 *    calls dependency edges, a blocking call's own time weighs nothing;
 *  - each stream's GPU work in start order (syncs by their end): a launch-delay edge when the queue was
 *    empty, else a kernel-to-kernel edge when the gap is under 1.5 ms; zero-weight sync edges for
 *    context, stream and event syncs and for cudaStreamWaitEvent (through cudaEventRecord's last launch).
 * The longest path is networkx's dag_longest_path: a topological order by generations, each node's
 * first best predecessor, the first node with the greatest distance; edges keep the order HTA adds them
 * in, so that among equally long paths the same one is found. Nothing here allocates per event beyond
 * the arrays sized once from the rows. */
#include "cp_graph.h"
#include "bigmem.h"
#include "report.h"
#include "sqlfuncs.h"
#include "time_range.h"
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_GAP_LIMIT_NS 1500000 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */
#define NO_QUEUE INT32_MIN

unsigned cp_name_flags(const char *s)
{
    static const struct {
        const char *name;
        unsigned flags;
    } exact[] = {
        {"cudaLaunchKernel", CP_LOCK | CP_LAUNCH},
        {"cudaMemcpyAsync", CP_LOCK | CP_LAUNCH | CP_BLOCKING},
        {"cudaHostAlloc", CP_LOCK},
        {"cudaDeviceSynchronize", CP_BLOCKING},
        {"cudaStreamSynchronize", CP_BLOCKING},
        {"cudaEventQuery", CP_BLOCKING},
        {"cudaEventSynchronize", CP_BLOCKING},
        {"cudaMemcpy", CP_BLOCKING},
        {"cudaLaunchKernelExC", CP_LAUNCH},
        {"cuLaunchKernel", CP_LAUNCH},
        {"cuLaunchKernelEx", CP_LAUNCH},
        {"cudaMemsetAsync", CP_LAUNCH},
        {"runFunction - job_prep_and_submit_for_execution", CP_LAUNCH},
        {"hipLaunchKernel", CP_LAUNCH},
        {"hipExtModuleLaunchKernel", CP_LAUNCH},
        {"hipMemsetAsync", CP_LAUNCH},
        {"hipMemcpyAsync", CP_LAUNCH},
        {"hipMemcpyWithStream", CP_LAUNCH},
        {"cudaEventRecord", CP_EVENT_RECORD},
        {"cudaStreamWaitEvent", CP_WAIT_CALL},
        {"Stream Wait Event", CP_WAIT_EVENT},
        {"Event Sync", CP_EVENT_SYNC},
        {"Context Sync", CP_CONTEXT_SYNC},
        {"Stream Sync", CP_STREAM_SYNC},
        {"cpu_op", CP_CAT_OP},
        {"cuda_runtime", CP_CAT_RUNTIME},
        {"cuda_driver", CP_CAT_RUNTIME},
        {"user_annotation", CP_CAT_ANNOTATION},
        {"cuda_sync", CP_CAT_SYNC},
    };
    unsigned f = 0;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(s, exact[i].name) == 0)
            f |= exact[i].flags;
    if (strstr(s, "forward"))
        f |= CP_FORWARD;
    if (strstr(s, "autograd"))
        f |= CP_AUTOGRAD;
    if (strcmp(tdb_kernel_type(s), "communication") == 0)
        f |= CP_COMM;
    return f;
}

/* A node: its row and side, (row << 1) | 1 for a start, row << 1 for an end; its time is the row's
 * (4 bytes a node, not a copy of the time: a graph has two nodes an event). */
typedef uint32_t node_t;

struct edge {
    int32_t u, v;
    int32_t attr; /* attributed row; -1 the root; -2 none */
    int32_t next; /* u's next out-edge, in the order added; -1 */
    uint8_t type;
    uint8_t zero; /* weighs 0 whatever its type (a blocking call's own edge) */
};

struct graph {
    const struct cp_row *rows;
    size_t n;
    const struct cp_wait *waits;
    int32_t *start, *end; /* per row: its nodes, -1 */
    node_t *nodes;
    size_t nn;
    struct edge *e;
    size_t ne, ecap;
    int32_t *head, *tail; /* per node: its first and last out-edge, -1 */
    uint32_t *items;      /* the starts (2 row) and ends (2 row + 1) of nodes' and call stacks' rows, by time */
    size_t nitems;
    int oom;
};

static int host(const struct cp_row *r)
{
    return r->stream == -1;
}

static int32_t node_row(const struct graph *g, int32_t i)
{
    return (int32_t)(g->nodes[i] >> 1);
}

static int node_is_start(const struct graph *g, int32_t i)
{
    return (int)(g->nodes[i] & 1);
}

static int64_t node_ts(const struct graph *g, int32_t i)
{
    const struct cp_row *r = &g->rows[g->nodes[i] >> 1];
    return g->nodes[i] & 1 ? r->ts : r->end;
}

static int64_t wait_stream(const struct cp_wait *waits, const struct cp_row *r)
{
    return r->wait >= 0 ? waits[r->wait].stream : -1;
}

static int64_t wait_corr(const struct cp_wait *waits, const struct cp_row *r)
{
    return r->wait >= 0 ? waits[r->wait].corr : -1;
}

/* An edge's weight as HTA gives it: the time from its start node to its end node, 0 for dependencies,
 * syncs and a blocking call's own edge (the weight follows the nodes: it is not stored). */
static int64_t edge_weight(const struct graph *g, const struct edge *e)
{
    return e->type == CP_DEPENDENCY || e->type == CP_SYNC || e->zero ? 0 : node_ts(g, e->v) - node_ts(g, e->u);
}

/* HTA's _add_edge_helper: networkx keeps one edge per (u, v), a later add replaces its weight and type
 * in place. The edge's index, or -1 (out of memory, or u == v, which HTA asserts against). */
static int32_t add_edge(struct graph *g, int32_t u, int32_t v, enum cp_edge_type type, int zero_weight)
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
    g->e[g->ne] = (struct edge){u, v, -2, -1, (uint8_t)type, zero_weight != 0};
    if (g->tail[u] >= 0)
        g->e[g->tail[u]].next = (int32_t)g->ne;
    else
        g->head[u] = (int32_t)g->ne;
    g->tail[u] = (int32_t)g->ne;
    return (int32_t)g->ne++;
}

/* HTA's _attribute_edge: the event an operator or kernel-gap edge's time belongs to. */
static void attribute(struct graph *g, int32_t ei, int32_t src_parent)
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
}

/* A key (a time, a correlation) and the position (row) it belongs to. */
struct keyed {
    int64_t key;
    int32_t pos;
};

static int keyed_order(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The times order_by_time sorts by, for time_order (which qsort calls). */
static _Thread_local const int64_t *sort_times;

static int time_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sort_times[x] != sort_times[y])
        return sort_times[x] < sort_times[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The positions 0..n-1 in the order of their times, equal times in position order (a stable sort), into
 * order: spread over about n / 8 buckets of equal time span in one pass (each bucket in position
 * order), then each bucket sorted (by insertion where small: a trace's events come nearly in time
 * order). O(n) for times spread as a trace's are; a bucket holding much of the trace (a burst at one
 * time) is sorted by comparison. Only positions move (the times are read where they are). 0, or -1
 * (out of memory). */
static int order_by_time(const int64_t *t, size_t n, uint32_t *order)
{
    if (n == 0)
        return 0;
    int64_t lo = t[0], hi = t[0];
    for (size_t i = 1; i < n; i++)
        lo = t[i] < lo ? t[i] : lo, hi = t[i] > hi ? t[i] : hi;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    unsigned shift = 0;
    size_t buckets = n / 8 + 1;
    while (shift < 63 && span >> shift >= buckets)
        shift++;
    buckets = (size_t)(span >> shift) + 1;
    size_t *start = tdb_big_calloc(buckets + 1, sizeof *start);
    if (!start)
        return -1;
    for (size_t i = 0; i < n; i++)
        start[(((uint64_t)t[i] - (uint64_t)lo) >> shift) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        start[b + 1] += start[b];
    for (size_t i = 0; i < n; i++)
        order[start[((uint64_t)t[i] - (uint64_t)lo) >> shift]++] = (uint32_t)i;
    sort_times = t;
    for (size_t b = 0, from = 0; b < buckets; from = start[b++]) { /* start[b] is now bucket b's end */
        size_t m = start[b] - from;
        uint32_t *x = order + from;
        if (m > 32) {
            qsort(x, m, sizeof *x, time_order);
            continue;
        }
        for (size_t i = 1; i < m; i++) { /* positions rise within a bucket: equal times stay in order */
            uint32_t v = x[i];
            int64_t tv = t[v];
            size_t j = i;
            for (; j > 0 && t[x[j - 1]] > tv; j--)
                x[j] = x[j - 1];
            x[j] = v;
        }
    }
    free(start);
    return 0;
}

#define MAX_GROUPS 64

static int tuple_order(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int j = 0; j < 2; j++)
        if (x[j] != y[j])
            return x[j] < y[j] ? -1 : 1;
    return 0;
}

/* Sorts n items of `size` bytes stably by their int64 fields at offsets grp[0..ngrp-1] (at most 2), then
 * at offset time: one order_by_time pass over a key that puts each item's group (its tuple of grp
 * fields; at most MAX_GROUPS of them, ranked in ascending order) above its time. 1 when sorted; 0 when
 * the items have more groups, or times too far apart, for one key (the caller sorts them by
 * comparison); -1 out of memory. */
static int sort_grouped(void *items, size_t n, size_t size, const size_t *grp, int ngrp, size_t time)
{
    unsigned char *base = items;
    int64_t tuples[MAX_GROUPS][2], lo = 0, hi = 0;
    int ntuples = 0, last = 0, rank[MAX_GROUPS];
    if (n <= 1)
        return 1;
    uint8_t *which = tdb_big_malloc(n);
    if (!which)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t tup[2] = {0, 0}, t;
        for (int j = 0; j < ngrp; j++)
            memcpy(&tup[j], base + i * size + grp[j], sizeof tup[j]);
        memcpy(&t, base + i * size + time, sizeof t);
        lo = i == 0 || t < lo ? t : lo, hi = i == 0 || t > hi ? t : hi;
        if (ntuples == 0 || tuples[last][0] != tup[0] || tuples[last][1] != tup[1]) {
            for (last = 0; last < ntuples && (tuples[last][0] != tup[0] || tuples[last][1] != tup[1]);)
                last++;
            if (last == ntuples) {
                if (ntuples == MAX_GROUPS) {
                    free(which);
                    return 0;
                }
                tuples[ntuples][0] = tup[0], tuples[ntuples][1] = tup[1], ntuples++;
            }
        }
        which[i] = (uint8_t)last;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span >= (uint64_t)INT64_MAX / MAX_GROUPS) {
        free(which);
        return 0;
    }
    for (int k = 0; k < ntuples; k++) {
        rank[k] = 0;
        for (int m = 0; m < ntuples; m++)
            rank[k] += tuple_order(tuples[m], tuples[k]) < 0;
    }
    int64_t *key = tdb_big_calloc(n, sizeof *key); /* (calloc: gcc cannot tell the loop below fills it) */
    uint32_t *order = tdb_big_malloc(n * sizeof *order);
    unsigned char *copy = tdb_big_malloc(n * size);
    int rc = -1;
    if (!key || !order || !copy)
        goto done;
    for (size_t i = 0; i < n; i++) {
        int64_t t;
        memcpy(&t, base + i * size + time, sizeof t);
        key[i] = (int64_t)((uint64_t)rank[which[i]] * (span + 1) + ((uint64_t)t - (uint64_t)lo));
    }
    if (order_by_time(key, n, order) != 0)
        goto done;
    memcpy(copy, base, n * size);
    for (size_t i = 0; i < n; i++)
        memcpy(base + i * size, copy + (size_t)order[i] * size, size);
    rc = 1;
done:
    free(which), free(key), free(order), free(copy);
    return rc;
}

/* A host row in a call stack: every clipped one on a thread (operators, runtime calls, annotations). */
static int stack_member(const struct cp_row *r)
{
    return r->clipped && host(r) && r->thread >= 0;
}

/* HTA's _create_event_nodes: host operators and runtime calls, and GPU rows with a correlation. */
static int is_node(const struct cp_row *r)
{
    return r->clipped && (host(r) ? (r->flags & (CP_CAT_OP | CP_CAT_RUNTIME)) != 0 : r->link >= 0 || r->correlation >= 0);
}

/* The nodes, and in g->items the starts and ends of the nodes' rows and of the call stacks' rows in one
 * order: by time, equal times as made (in row order, a start before its end). The call stacks take
 * their order from it (all_call_stacks) rather than sorting again. */
static int make_nodes(struct graph *g)
{
    const struct cp_row *rows = g->rows;
    int32_t *want = tdb_big_malloc((g->n + 1) * sizeof *want); /* 2 row, plus one for a node's row */
    int64_t *t = tdb_big_malloc((2 * g->n + 1) * sizeof *t);
    uint32_t *order = tdb_big_malloc((2 * g->n + 1) * sizeof *order);
    g->nodes = tdb_big_malloc((2 * g->n + 1) * sizeof *g->nodes);
    size_t nw = 0;
    int rc = -1;
    if (!want || !t || !order || !g->nodes)
        goto done;
    for (size_t i = 0; i < g->n; i++) {
        const struct cp_row *r = &rows[i];
        int node = is_node(r);
        if (node || stack_member(r))
            t[2 * nw] = r->ts, t[2 * nw + 1] = r->end, want[nw++] = (int32_t)(2 * i + (size_t)node);
    }
    g->nitems = 2 * nw, g->nn = 0;
    if (order_by_time(t, g->nitems, order) != 0)
        goto done;
    g->items = order; /* in place: item k's row and side replace its position */
    for (size_t k = 0; k < g->nitems; k++) {
        uint32_t o = order[k];
        int32_t w = want[o >> 1], row = w >> 1;
        if (w & 1)
            g->nodes[g->nn++] = ((node_t)row << 1) | (node_t)!(o & 1);
        order[k] = 2 * (uint32_t)row + (o & 1);
    }
    order = NULL;
    rc = 0;
done:
    free(want), free(t), free(order);
    if (rc != 0)
        return -1;
    for (size_t i = 0; i < g->nn; i++)
        (node_is_start(g, (int32_t)i) ? g->start : g->end)[node_row(g, (int32_t)i)] = (int32_t)i;
    g->head = tdb_big_malloc((g->nn + 1) * sizeof *g->head), g->tail = tdb_big_malloc((g->nn + 1) * sizeof *g->tail);
    if (!g->head || !g->tail)
        return -1;
    memset(g->head, 0xff, (g->nn + 1) * sizeof *g->head), memset(g->tail, 0xff, (g->nn + 1) * sizeof *g->tail);
    return 0;
}

/* HTA's _shares_cuda_runtime_lock. */
static int shares_lock(const struct graph *g, int32_t a, int32_t b)
{
    return (g->rows[node_row(g, a)].flags & CP_LOCK) && (g->rows[node_row(g, b)].flags & CP_LOCK) &&
           (node_is_start(g, a) || !node_is_start(g, b));
}

/* HTA's _construct_graph_from_cuda_runtime_events: lock chains in node order. */
static int runtime_lock_edges(struct graph *g)
{
    int32_t *stack = tdb_big_malloc((g->nn + 1) * sizeof *stack), sp = 0, last = -1;
    if (!stack)
        return -1;
    for (size_t i = 0; i < g->nn; i++) {
        int32_t ni = (int32_t)i;
        if (!(g->rows[node_row(g, ni)].flags & CP_LOCK))
            continue;
        if (node_is_start(g, ni)) {
            stack[sp++] = ni;
        } else {
            while (sp > 0) {
                int32_t p = stack[--sp];
                if (node_row(g, p) == node_row(g, ni))
                    attribute(g, add_edge(g, p, ni, CP_OPERATOR, 0), node_row(g, ni));
                else
                    add_edge(g, p, ni, CP_DEPENDENCY, 0);
            }
            if (last >= 0 && !node_is_start(g, last))
                add_edge(g, last, ni, CP_DEPENDENCY, 0);
        }
        last = ni;
    }
    free(stack);
    return 0;
}

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
        attribute(g, add_edge(g, w->last, s, w->depth == 0 ? CP_DEPENDENCY : CP_OPERATOR, 0), w->last_parent);
    w->last = s, w->last_parent = parent, w->depth++;
}

static void walk_exit(struct graph *g, struct walk *w, int32_t row, int32_t parent)
{
    int32_t s = g->start[row], e = g->end[row];
    if (s < 0 || e < 0)
        return;
    if (w->last >= 0 && !shares_lock(g, w->last, e))
        attribute(g, add_edge(g, w->last, e, CP_OPERATOR, (g->rows[row].flags & CP_BLOCKING) != 0), w->last_parent);
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
 * by time (equal times in any order; ordered here), stack room for ne / 2 rows. A nested stack is
 * walked in its items' order; another through the tree. 0, or -1 (out of memory). */
static int call_stack_edges(struct graph *g, uint32_t *order, size_t ne, int32_t *stack)
{
    stack_rows = g->rows;
    for (size_t k = 0, run; k < ne; k += run) { /* equal times: the rest of the order */
        int64_t tk = item_time(g->rows, order[k]);
        for (run = 1; k + run < ne && item_time(g->rows, order[k + run]) == tk;)
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

/* The thread whose clipped operators or annotations alone have names holding flag (HTA's
 * _get_tid_for_event), or -1. */
static int32_t only_thread(const struct graph *g, unsigned flag)
{
    int32_t t = -1;
    for (size_t i = 0; i < g->n; i++) {
        const struct cp_row *r = &g->rows[i];
        if (!r->clipped || !(r->flags & flag) || !(r->flags & (CP_CAT_OP | CP_CAT_ANNOTATION)))
            continue;
        if (t >= 0 && r->thread != t)
            return -1;
        t = r->thread;
    }
    return t;
}

static int all_call_stacks(struct graph *g)
{
    int32_t fwd = only_thread(g, CP_FORWARD), bwd = only_thread(g, CP_AUTOGRAD), groups = 0;
    for (size_t i = 0; i < g->n; i++)
        if (g->rows[i].thread + 1 > groups)
            groups = g->rows[i].thread + 1;
    /* each thread's clipped host rows (the backward thread's with the forward's): their items, in the
     * order make_nodes found */
    size_t *count = tdb_big_calloc((size_t)groups + 1, sizeof *count), *fill = tdb_big_malloc(((size_t)groups + 1) * sizeof *fill);
    uint32_t *order = NULL;
    int32_t *stack = NULL;
    size_t most = 0, total = 0;
    int rc = -1;
    if (!count || !fill)
        goto done;
#define GROUP_OF(r) (fwd >= 0 && bwd >= 0 && (r)->thread == bwd ? fwd : (r)->thread)
    for (size_t i = 0; i < g->n; i++)
        if (stack_member(&g->rows[i]))
            count[GROUP_OF(&g->rows[i])] += 2;
    for (int32_t t = 0; t < groups; t++) {
        size_t c = count[t];
        count[t] = total, total += c;
        if (c > most)
            most = c;
    }
    count[groups] = total;
    if (!(order = tdb_big_malloc((total + 1) * sizeof *order)) || !(stack = tdb_big_malloc((most / 2 + 1) * sizeof *stack)))
        goto done;
    memcpy(fill, count, ((size_t)groups + 1) * sizeof *fill);
    for (size_t k = 0; k < g->nitems; k++) {
        const struct cp_row *r = &g->rows[g->items[k] >> 1];
        if (stack_member(r))
            order[fill[GROUP_OF(r)]++] = g->items[k];
    }
#undef GROUP_OF
    rc = 0;
    for (int32_t t = 0; rc == 0 && t < groups; t++)
        if (count[t + 1] > count[t])
            rc = call_stack_edges(g, order + count[t], count[t + 1] - count[t], stack);
done:
    free(count), free(fill), free(order), free(stack);
    return rc;
}

/* One step of a stream's queue: +1 at a launch call, -1 when its work starts. */
struct queue_step {
    int64_t stream, ts;
    int64_t when; /* 2 ts, plus one at a start: at one time the launch goes first */
    int32_t row, d;
};

static int queue_order(const void *a, const void *b)
{
    const struct queue_step *x = a, *y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->d != y->d)
        return x->d > y->d ? -1 : 1; /* a launch first */
    return (x->row > y->row) - (x->row < y->row);
}

/* Whether row i is a launch call HTA's queue and event matching count: a launch name linked to GPU work. */
static int is_launch(const struct cp_row *rows, size_t i)
{
    return (rows[i].flags & CP_LAUNCH) && rows[i].link >= 0 && !host(&rows[rows[i].link]);
}

/* HTA's TraceCounters queue length over the whole trace (per stream number), as each launch call and
 * each GPU row left it. */
static int queue_lengths(const struct cp_row *rows, size_t n, int32_t *q)
{
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        q[i] = NO_QUEUE, ns += is_launch(rows, i) ? 2 : 0;
    struct queue_step *s = tdb_big_malloc((ns + 1) * sizeof *s);
    if (!s)
        return -1;
    /* the launches in row order, then the starts in row order: steps equal by queue_order stay in row order */
    ns = 0;
    int near = 1; /* times within int64 / 4: `when` does not overflow */
    for (size_t i = 0; i < n; i++)
        if (is_launch(rows, i)) {
            near &= rows[i].ts > INT64_MIN / 4 && rows[i].ts < INT64_MAX / 4;
            s[ns++] = (struct queue_step){rows[rows[i].link].stream, rows[i].ts, 2 * rows[i].ts, (int32_t)i, 1};
        }
    for (size_t i = 0; i < n; i++) {
        int32_t l = rows[i].link;
        if (!host(&rows[i]) && l >= 0 && is_launch(rows, (size_t)l) && rows[l].link == (int32_t)i) {
            near &= rows[i].ts > INT64_MIN / 4 && rows[i].ts < INT64_MAX / 4;
            s[ns++] = (struct queue_step){rows[i].stream, rows[i].ts, 2 * rows[i].ts + 1, (int32_t)i, -1};
        }
    }
    static const size_t by[] = {offsetof(struct queue_step, stream)};
    int done = near ? sort_grouped(s, ns, sizeof *s, by, 1, offsetof(struct queue_step, when)) : 0;
    if (done < 0) {
        free(s);
        return -1;
    }
    if (!done)
        qsort(s, ns, sizeof *s, queue_order);
    int32_t len = 0;
    for (size_t i = 0; i < ns; i++) {
        if (i == 0 || s[i].stream != s[i - 1].stream)
            len = 0;
        len += s[i].d;
        q[s[i].row] = len;
    }
    free(s);
    return 0;
}

/* A launch call with the device, stream and thread its work went to, for finding the launch before a
 * cudaEventRecord (on the event's device and stream) and after a cudaStreamWaitEvent (on its thread and
 * stream). */
struct launch {
    int64_t k1, k2, ts;
    int32_t row;
};

static int launch_order(const void *a, const void *b)
{
    const struct launch *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The first launch with keys (k1, k2) and a time after ts (after = 1) or at or after it (after = 0). */
static size_t launch_bound(const struct launch *l, size_t n, int64_t k1, int64_t k2, int64_t ts, int after)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct launch *m = &l[mid];
        int less = m->k1 != k1 ? m->k1 < k1 : m->k2 != k2 ? m->k2 < k2 : after ? m->ts <= ts : m->ts < ts;
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* For each cudaEventRecord row: the launch call that last put work on the event's device and stream
 * before it (HTA's _get_cuda_event_record_df), keyed by the record's correlation in rec (sorted pairs).
 * For each cudaStreamWaitEvent row: the next launch from its thread to its stream (HTA's
 * _get_cuda_stream_wait_event_df), in next_launch[row]. */
static int32_t corr_find(const struct keyed *c, size_t n, int64_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c[mid].key < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && c[lo].key == corr ? c[lo].pos : -1;
}

struct event_links {
    struct keyed *rec; /* record correlation -> previous launch row */
    size_t nrec;
    int32_t *next_launch;  /* per row: cudaStreamWaitEvent -> next launch row, -1 */
};

static int event_links(const struct cp_row *rows, size_t n, const struct cp_wait *wt, struct event_links *el)
{
    size_t nl = 0, nw = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        nl += is_launch(rows, i);
        nw += wait_stream(wt, &rows[i]) > -1;
        nr += (rows[i].flags & CP_EVENT_RECORD) != 0;
    }
    struct launch *l = tdb_big_malloc((nl + 1) * sizeof *l);
    struct keyed *waits = tdb_big_malloc((nw + 1) * sizeof *waits);
    el->rec = tdb_big_malloc((nr + 1) * sizeof *el->rec);
    el->next_launch = tdb_big_malloc((n + 1) * sizeof *el->next_launch);
    el->nrec = 0;
    if (!l || !waits || !el->rec || !el->next_launch) {
        free(l), free(waits);
        return -1;
    }
    /* the event's stream per record correlation: the first row waiting on it says */
    nw = 0;
    for (size_t i = 0; i < n; i++)
        if (wait_stream(wt, &rows[i]) > -1)
            waits[nw++] = (struct keyed){wait_corr(wt, &rows[i]), (int32_t)i};
    qsort(waits, nw, sizeof *waits, keyed_order);
    /* by device and stream of the work */
    nl = 0;
    for (size_t i = 0; i < n; i++)
        if (is_launch(rows, i)) {
            const struct cp_row *k = &rows[rows[i].link];
            l[nl++] = (struct launch){k->device, k->stream, rows[i].ts, (int32_t)i};
        }
    static const size_t by[] = {offsetof(struct launch, k1), offsetof(struct launch, k2)};
    int done = sort_grouped(l, nl, sizeof *l, by, 2, offsetof(struct launch, ts)); /* made in row order */
    if (done < 0)
        goto oom;
    if (!done)
        qsort(l, nl, sizeof *l, launch_order);
    for (size_t i = 0; i < n; i++) {
        if (!(rows[i].flags & CP_EVENT_RECORD) || rows[i].correlation < 0)
            continue;
        int32_t w = corr_find(waits, nw, rows[i].correlation);
        if (w < 0)
            continue;
        int64_t ws = wait_stream(wt, &rows[w]);
        size_t b = launch_bound(l, nl, rows[w].device, ws, rows[i].ts, 1);
        if (b > 0 && l[b - 1].k1 == rows[w].device && l[b - 1].k2 == ws)
            el->rec[el->nrec++] = (struct keyed){rows[i].correlation, l[b - 1].row};
    }
    qsort(el->rec, el->nrec, sizeof *el->rec, keyed_order);
    /* by launching thread and stream of the work */
    nl = 0;
    for (size_t i = 0; i < n; i++)
        if (is_launch(rows, i))
            l[nl++] = (struct launch){rows[i].thread, rows[rows[i].link].stream, rows[i].ts, (int32_t)i};
    if ((done = sort_grouped(l, nl, sizeof *l, by, 2, offsetof(struct launch, ts))) < 0)
        goto oom;
    if (!done)
        qsort(l, nl, sizeof *l, launch_order);
    for (size_t i = 0; i < n; i++) {
        el->next_launch[i] = -1;
        if (!(rows[i].flags & CP_WAIT_CALL) || rows[i].link < 0 || host(&rows[rows[i].link]))
            continue;
        size_t b = launch_bound(l, nl, rows[i].thread, rows[rows[i].link].stream, rows[i].ts, 1);
        if (b < nl && l[b].k1 == rows[i].thread && l[b].k2 == rows[rows[i].link].stream)
            el->next_launch[i] = l[b].row;
    }
    free(l), free(waits);
    return 0;
oom:
    free(l), free(waits);
    return -1;
}

/* The last GPU node of each stream, in the order streams first appeared (HTA's dict). */
struct stream_last {
    int64_t stream;
    int32_t node;
};

static int is_sync_row(const struct cp_row *r)
{
    return (r->flags & CP_CAT_SYNC) != 0;
}

/* What the GPU's edges are made from, found from the rows alone (before the nodes): queue lengths,
 * event links, and the GPU work and syncs in order. */
struct kernel_prep {
    int32_t *q, *sync_src;
    struct keyed *items;
    size_t ni;
    struct event_links el;
};

static void kernel_prep_free(struct kernel_prep *kp)
{
    free(kp->q), free(kp->sync_src), free(kp->items), free(kp->el.rec), free(kp->el.next_launch);
    memset(kp, 0, sizeof *kp);
}

static int kernel_prepare(const struct cp_row *rows, size_t n, const struct cp_wait *waits, struct kernel_prep *kp)
{
    memset(kp, 0, sizeof *kp);
    kp->q = tdb_big_malloc((n + 1) * sizeof *kp->q), kp->sync_src = tdb_big_malloc((n + 1) * sizeof *kp->sync_src);
    kp->items = tdb_big_malloc((n + 1) * sizeof *kp->items);
    if (!kp->q || !kp->sync_src || !kp->items || queue_lengths(rows, n, kp->q) != 0 ||
        event_links(rows, n, waits, &kp->el) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct cp_row *r = &rows[i];
        kp->sync_src[i] = -1;
        if (r->clipped && (!host(r) || (r->flags & (CP_EVENT_SYNC | CP_CONTEXT_SYNC))) && r->link >= 0)
            kp->items[kp->ni++] = (struct keyed){is_sync_row(r) ? r->end : r->ts, (int32_t)i};
    }
    int sorted = sort_grouped(kp->items, kp->ni, sizeof *kp->items, NULL, 0, offsetof(struct keyed, key));
    if (sorted < 0)
        return -1;
    if (!sorted) /* made in row order, as keyed_order sorts ties */
        qsort(kp->items, kp->ni, sizeof *kp->items, keyed_order);
    return 0;
}

/* The GPU's edges as kernel_edges finds them, in order, for cp_build to add after the host's: what
 * add_edge is called with, and whether the edge is attributed (HTA's _attribute_edge, no parent). */
struct edge_rec {
    int32_t u, v;
    uint8_t type, attributed;
};

struct edge_recs {
    struct edge_rec *r;
    size_t n, cap;
    int oom;
};

static void rec_edge(struct edge_recs *l, int32_t u, int32_t v, enum cp_edge_type type, int attributed)
{
    if (l->oom)
        return;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4096;
        struct edge_rec *r = tdb_big_realloc(l->r, cap * sizeof *r);
        if (!r) {
            l->oom = 1;
            return;
        }
        l->r = r, l->cap = cap;
    }
    l->r[l->n++] = (struct edge_rec){u, v, (uint8_t)type, (uint8_t)(attributed != 0)};
}

/* HTA's _construct_graph_from_kernels, into recs (g: the rows, the nodes and each row's nodes; no edges
 * are read: the host's are added meanwhile on another thread). */
static int kernel_edges(const struct graph *g, struct kernel_prep *kp, struct edge_recs *recs)
{
    const struct cp_row *rows = g->rows;
    int32_t *q = kp->q, *sync_src = kp->sync_src;
    const struct keyed *items = kp->items;
    const struct event_links el = kp->el;
    struct stream_last *last = NULL;
    size_t nlast = 0, caplast = 0, ni = kp->ni;
    int rc = -1;
    for (size_t k = 0; k < ni; k++) {
        int32_t i = items[k].pos;
        const struct cp_row *r = &rows[i];
        if (is_sync_row(r)) {
            if (r->flags & (CP_WAIT_EVENT | CP_EVENT_SYNC)) {
                int64_t wc = wait_corr(g->waits, r);
                int32_t prev = wc >= 0 ? corr_find(el.rec, el.nrec, wc) : -1;
                if (prev < 0)
                    continue;
                int32_t src = rows[prev].link;
                if (r->flags & CP_WAIT_EVENT) {
                    int32_t next = el.next_launch[r->link];
                    if (next >= 0 && rows[next].link >= 0)
                        sync_src[rows[next].link] = src;
                } else if (src >= 0 && g->end[src] >= 0 && g->end[r->link] >= 0) {
                    rec_edge(recs, g->end[src], g->end[r->link], CP_SYNC, 0);
                }
                continue;
            }
            if (!(r->flags & (CP_STREAM_SYNC | CP_CONTEXT_SYNC)) || g->end[r->link] < 0)
                continue;
            for (size_t s = 0; s < nlast; s++)
                if ((r->flags & CP_CONTEXT_SYNC) || last[s].stream == r->stream)
                    rec_edge(recs, last[s].node, g->end[r->link], CP_SYNC, 0);
            continue;
        }
        int32_t sn = g->start[i], en = g->end[i];
        if (sn < 0 || en < 0)
            continue;
        rec_edge(recs, sn, en, CP_OPERATOR, 1);
        int32_t src = sync_src[i], src_end = -1;
        if (src >= 0) {
            src_end = g->end[src];
            if (src_end >= 0)
                rec_edge(recs, src_end, sn, CP_SYNC, 0);
            sync_src[i] = -1;
        }
        size_t s = 0;
        while (s < nlast && last[s].stream != r->stream)
            s++;
        int32_t prev = s < nlast ? last[s].node : -1, launch = r->link;
        int64_t launch_ts = rows[launch].ts;
        if (q[launch] == 1 && q[i] == 0 && (prev < 0 || node_ts(g, prev) < launch_ts) &&
            (src < 0 || (src_end >= 0 && node_ts(g, src_end) < launch_ts)) && g->start[launch] >= 0) {
            rec_edge(recs, g->start[launch], sn, CP_LAUNCH_DELAY, 0);
        } else if (prev >= 0 && node_ts(g, sn) - node_ts(g, prev) < KERNEL_GAP_LIMIT_NS &&
                   (src < 0 || (src_end >= 0 && node_ts(g, src_end) < node_ts(g, prev)))) {
            rec_edge(recs, prev, sn, CP_KERNEL_GAP, 1);
        }
        if (s == nlast) {
            if (nlast == caplast) {
                caplast = caplast ? caplast * 2 : 16;
                struct stream_last *nl = realloc(last, caplast * sizeof *nl);
                if (!nl)
                    goto done;
                last = nl;
            }
            last[nlast++] = (struct stream_last){r->stream, en};
        } else {
            last[s].node = en;
        }
    }
    rc = recs->oom ? -1 : 0;
done:
    free(last);
    return rc;
}

static int64_t clamp0(int64_t w)
{
    return w < 0 ? 0 : w;
}

/* The GPU's edges on a second thread (see cp_build): prepared from the rows while the first makes the
 * nodes, then recorded once the nodes are made; the first thread adds them after the host's. */
struct kernel_job {
    const struct graph *g;   /* the rows, and once ready the nodes */
    struct edge_recs recs;
    pthread_mutex_t lock;
    pthread_cond_t made;
    int ready;               /* 1 once the nodes are made, -1 when they could not be */
    int rc;
};

static void *kernel_job_run(void *arg)
{
    struct kernel_job *j = arg;
    struct kernel_prep kp;
    int prepared = kernel_prepare(j->g->rows, j->g->n, j->g->waits, &kp);
    pthread_mutex_lock(&j->lock);
    while (!j->ready)
        pthread_cond_wait(&j->made, &j->lock);
    int ready = j->ready;
    pthread_mutex_unlock(&j->lock);
    j->rc = prepared == 0 && ready > 0 ? kernel_edges(j->g, &kp, &j->recs) : -1;
    kernel_prep_free(&kp);
    return NULL;
}

static void kernel_job_ready(struct kernel_job *j, int ready)
{
    pthread_mutex_lock(&j->lock);
    j->ready = ready;
    pthread_cond_signal(&j->made);
    pthread_mutex_unlock(&j->lock);
}

/* The recorded edges added to g after its own, in the order found: as HTA adds the GPU's after the
 * host's (an edge between two nodes already joined replaces that edge's type, as add_edge does). */
static int add_recorded(struct graph *g, const struct edge_recs *l)
{
    if (g->ne + l->n > g->ecap) { /* room for all at once, not by doubling */
        struct edge *e = tdb_big_realloc(g->e, (g->ne + l->n + 1) * sizeof *e);
        if (!e)
            return -1;
        g->e = e, g->ecap = g->ne + l->n + 1;
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct edge_rec *r = &l->r[i];
        int32_t k = add_edge(g, r->u, r->v, (enum cp_edge_type)r->type, 0);
        if (r->attributed)
            attribute(g, k, -1);
    }
    return g->oom ? -1 : 0;
}

/* networkx's dag_longest_path over the edges as added, in one pass: the nodes in networkx's topological
 * order (the sources in the order edges named them, then each node's successors as they free), each
 * pushing its distance along its out-edges. A node's best in-edge is networkx's: the first of its
 * predecessors (in edge order) with the longest distance, so a tie goes to the lower edge index.
 * spare: up to three arrays of nn + 1 ints the graph no longer needs (NULL: made here). */
static int longest_path(struct graph *g, int want_steps, int32_t *const spare[3], struct cp_result *r)
{
    size_t nn = g->nn, ne = g->ne;
    int32_t *indeg = spare[0] ? spare[0] : tdb_big_malloc((nn + 1) * sizeof *indeg);
    int32_t *topo = spare[1] ? spare[1] : tdb_big_malloc((nn + 1) * sizeof *topo);
    int32_t *best = spare[2] ? spare[2] : tdb_big_malloc((nn + 1) * sizeof *best);
    int64_t *dist = tdb_big_calloc(nn + 1, sizeof *dist);
    uint8_t *seen = tdb_big_calloc(nn + 1, 1);
    int rc = -1;
    if (!indeg || !topo || !best || !dist || !seen) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    memset(indeg, 0, (nn + 1) * sizeof *indeg);
    /* the sources, in the order edges named the nodes */
    size_t gn = 0, tail = 0;
    for (size_t i = 0; i < ne; i++)
        indeg[g->e[i].v]++;
    for (size_t i = 0; i < ne; i++) {
        int32_t u = g->e[i].u, v = g->e[i].v;
        if (!seen[u] && (seen[u] = 1, ++gn, indeg[u] == 0))
            topo[tail++] = u;
        if (!seen[v])
            seen[v] = 1, gn++; /* v has an in-edge: not a source */
    }
    memset(best, 0xff, (nn + 1) * sizeof *best);
    int32_t end = -1;
    int64_t far = -1;
    for (size_t head = 0; head < tail; head++) {
        int32_t u = topo[head];
        int64_t d = dist[u];
        if (d > far)
            far = d, end = u;
        for (int32_t k = g->head[u]; k >= 0; k = g->e[k].next) {
            const struct edge *e = &g->e[k];
            int32_t v = e->v;
            int64_t cand = tdb_sat_add(d, clamp0(edge_weight(g, e))); /* times are held: only a path's sum can overflow */
            if (best[v] < 0 || cand > dist[v] || (cand == dist[v] && k < best[v]))
                dist[v] = cand, best[v] = k;
            if (--indeg[v] == 0)
                topo[tail++] = v;
        }
    }
    if (tail < gn) {
        snprintf(r->error, sizeof r->error, "the graph has a cycle (%zu of its %zu nodes are on or after one)",
                 gn - tail, gn);
        goto done;
    }
    /* the path, back from its end: its sums, and its edges when asked for */
    size_t len = 0;
    for (int32_t v = end; want_steps && v >= 0 && best[v] >= 0; v = g->e[best[v]].u)
        len++;
    if (want_steps && !(r->steps = tdb_big_malloc((len + 1) * sizeof *r->steps))) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    r->length = far > 0 ? far : 0, r->nodes = gn, r->edges = ne;
    free(seen); /* now by row: the events on the path */
    if (!(seen = tdb_big_calloc(g->n + 1, 1))) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    size_t k = len;
    for (int32_t v = end; v >= 0 && best[v] >= 0; v = g->e[best[v]].u) {
        const struct edge *e = &g->e[best[v]];
        struct cp_step step, *s = &step;
        s->from_ts = node_ts(g, e->u), s->to_ts = node_ts(g, e->v);
        s->weight = clamp0(edge_weight(g, e)), s->type = e->type;
        s->from_row = node_row(g, e->u), s->to_row = node_row(g, e->v);
        s->event = e->type == CP_OPERATOR || e->type == CP_KERNEL_GAP ? (e->attr >= 0 ? e->attr : -1) : -1;
        const struct cp_row *at = s->event >= 0 ? &g->rows[s->event] : NULL;
        s->bound = e->type == CP_KERNEL_GAP     ? CP_BOUND_GAP
                   : e->type == CP_LAUNCH_DELAY ? CP_BOUND_LAUNCH
                   : e->type != CP_OPERATOR     ? CP_BOUND_NONE
                   : !at || host(at)            ? CP_BOUND_CPU
                   : (at->flags & CP_COMM)      ? CP_BOUND_COMM
                                                : CP_BOUND_COMPUTE;
        r->bound_ns[s->bound] = tdb_sat_add(r->bound_ns[s->bound], s->weight);
        r->events += !seen[s->from_row] + (!seen[s->to_row] && s->to_row != s->from_row);
        seen[s->from_row] = seen[s->to_row] = 1;
        r->start_ts = s->from_ts;
        r->nsteps++;
        if (r->steps)
            r->steps[--k] = step;
    }
    if (r->nsteps == 0 && end >= 0)
        r->events = 1;
    rc = 0;
done:
    if (!spare[0])
        free(indeg);
    if (!spare[1])
        free(topo);
    if (!spare[2])
        free(best);
    free(dist), free(seen);
    return rc;
}

/* HTA's _validate_graph: no sync edge may join two rows of one stream. */
static int validate(const struct graph *g, struct cp_result *r)
{
    for (size_t i = 0; i < g->ne; i++) {
        const struct edge *e = &g->e[i];
        if (e->type != CP_SYNC)
            continue;
        const struct cp_row *a = &g->rows[node_row(g, e->u)], *b = &g->rows[node_row(g, e->v)];
        if (!host(a) && a->stream == b->stream) {
            snprintf(r->error, sizeof r->error,
                     "a synchronization between events %lld and %lld on one stream (%lld): the trace's syncs "
                     "do not order its GPU work",
                     (long long)a->id, (long long)b->id, (long long)a->stream);
            return -1;
        }
    }
    return 0;
}

int cp_build(const struct cp_row *rows, size_t n, const struct cp_wait *waits, int steps, struct cp_result *r)
{
    memset(r, 0, sizeof *r);
    struct graph g = {.rows = rows, .n = n, .waits = waits};
    int rc = -1;
    if (n > INT32_MAX / 2) {
        snprintf(r->error, sizeof r->error, "too many events (%zu) for one graph", n);
        return -1;
    }
    g.start = tdb_big_malloc(2 * (n + 1) * sizeof *g.start); /* and g.end: one array, later the longest path's room */
    if (!g.start)
        goto oom;
    g.end = g.start + n + 1;
    for (size_t i = 0; i < n; i++)
        g.start[i] = g.end[i] = -1;
    /* the GPU's edges on a second thread, into a list of their own, while this one makes the nodes and
     * adds the host's edges; then theirs after these, as HTA adds them (no edge of one joins the nodes
     * an edge of the other does) */
    struct kernel_job job = {.g = &g, .rc = -1};
    pthread_t thread;
    int threaded = pthread_mutex_init(&job.lock, NULL) == 0;
    if (threaded && pthread_cond_init(&job.made, NULL) != 0) {
        pthread_mutex_destroy(&job.lock);
        threaded = 0;
    }
    int sync_ok = threaded;
    threaded = threaded && pthread_create(&thread, NULL, kernel_job_run, &job) == 0;
    int made = make_nodes(&g) == 0;
    report_phase("cp: nodes");
    if (threaded)
        kernel_job_ready(&job, made ? 1 : -1);
    int host_rc = made && runtime_lock_edges(&g) == 0 && all_call_stacks(&g) == 0 ? 0 : -1;
    if (threaded) {
        pthread_join(thread, NULL);
    } else if (made) { /* no second thread: in turn */
        job.ready = 1;
        if (sync_ok)
            kernel_job_run(&job);
    }
    if (sync_ok)
        pthread_mutex_destroy(&job.lock), pthread_cond_destroy(&job.made);
    int joined = host_rc == 0 && job.rc == 0 && add_recorded(&g, &job.recs) == 0;
    free(job.recs.r);
    job.recs.r = NULL;
    if (!joined || g.oom)
        goto oom;
    report_phase("cp: edges");
    /* the out-lists' tails, the items (2 n + 1 of them) and each row's nodes (2 n + 2) are done with: the
     * longest path's room (nn + 1 ints each) */
    int32_t *const spare[3] = {g.tail, (int32_t *)g.items, g.start};
    if (validate(&g, r) == 0)
        rc = longest_path(&g, steps, spare, r);
    report_phase("cp: longest path");
    goto done;
oom:
    snprintf(r->error, sizeof r->error, "out of memory");
done:
    free(g.start), free(g.nodes), free(g.e), free(g.head), free(g.tail), free(g.items);
    free(job.recs.r);
    return rc;
}

void cp_result_free(struct cp_result *r)
{
    free(r->steps);
    r->steps = NULL;
}

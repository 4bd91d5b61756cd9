/* cp_graph_internal.h: what the files of the critical path graph share (internal to analyzer/report):
 * the graph (its nodes and edges), its small helpers, and the parts cp_build (cp_graph.c) runs: the
 * sorts (cp_order.c), the nodes and edges (cp_nodes.c), the host's call stacks (cp_stacks.c), the GPU's
 * edges on a second thread (cp_kernels.c) and the longest path (cp_path.c). */
#ifndef TDB_CP_GRAPH_INTERNAL_H
#define TDB_CP_GRAPH_INTERNAL_H
#include "cp_graph.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* A node: its row and side, (row << 1) | 1 for a start, row << 1 for an end; its time is the row's
 * (4 bytes a node, not a copy of the time: a graph has two nodes an event). */
typedef uint32_t node_t;

struct edge {
    int32_t u, v;
    int32_t attr; /* attributed row; -1 the root; -2 none */
    int32_t next; /* u's next out-edge, in the order added; -1 */
    uint8_t type;
    uint8_t zero;       /* weighs 0 whatever its type (a blocking call's own edge) */
    uint8_t attr_bound; /* the cp_bound an operator edge attributed to attr has (CPU: a host row, or none) */
};

struct graph {
    const struct cp_row *rows;
    size_t n;
    const struct cp_wait *waits;
    int32_t *start, *end; /* per row: its nodes, -1 */
    uint8_t *row_bits;    /* per row: ROW_LOCK, ROW_BLOCKING and its bound (ROW_BOUND_SHIFT): a byte, not a row's line */
    node_t *nodes;
    size_t nn;
    struct edge *e;
    size_t ne, ecap;
    int32_t *head, *tail; /* per node: its first and last out-edge, -1 */
    int32_t *indeg;       /* per node: its in-edges; -1 until an edge names it */
    int32_t *named;       /* the nodes in the order edges first named them (u before v), nnamed of them */
    size_t nnamed;
    int sync_suspect;     /* a sync edge joins two rows of one stream (cp_validate says which) */
    /* the host's call stacks (cp_stacks.c), as cp_make_nodes finds them: each stack's rows' starts (2 row)
     * and ends (2 row + 1) by time, stack after stack (stack s: stack_at[s] to stack_at[s + 1]), and for each
     * whether its time is the one before's in its stack */
    uint32_t *stack_items;
    uint8_t *stack_tied;
    size_t *stack_at, nstacks;
    int32_t *spare; /* 2 n + 1 ints the nodes were ordered in, done with (the longest path's room) */
    enum cp_launch_edges launches;
    int oom;
};

static inline int host(const struct cp_row *r)
{
    return r->stream == -1;
}

static inline int32_t node_row(const struct graph *g, int32_t i)
{
    return (int32_t)(g->nodes[i] >> 1);
}

static inline int node_is_start(const struct graph *g, int32_t i)
{
    return (int)(g->nodes[i] & 1);
}

static inline int64_t node_ts(const struct graph *g, int32_t i)
{
    const struct cp_row *r = &g->rows[g->nodes[i] >> 1];
    return g->nodes[i] & 1 ? r->ts : r->end;
}

/* A host row in a call stack: every clipped one on a thread (operators, runtime calls, annotations). */
static inline int stack_member(const struct cp_row *r)
{
    return r->clipped && host(r) && r->thread >= 0;
}

/* What the edges ask of a row most often, kept a byte a row (graph.row_bits, made with the nodes): its
 * name takes the runtime lock (CP_LOCK), it blocks (CP_BLOCKING), and the cp_bound of an operator edge
 * attributed to it (CPU for a host row, else GPU compute or communication) in the bits above. */
enum { ROW_LOCK = 1, ROW_BLOCKING = 2, ROW_BOUND_SHIFT = 2 };

static inline int row_lock(const struct graph *g, int32_t row)
{
    return g->row_bits[row] & ROW_LOCK;
}

/* HTA's _shares_cuda_runtime_lock. */
static inline int shares_lock(const struct graph *g, int32_t a, int32_t b)
{
    return row_lock(g, node_row(g, a)) && row_lock(g, node_row(g, b)) && (node_is_start(g, a) || !node_is_start(g, b));
}

/* HTA's _validate_graph's fault: a sync edge u -> v joining two rows of one stream. */
static inline int sync_within_stream(const struct graph *g, int32_t u, int32_t v)
{
    const struct cp_row *a = &g->rows[node_row(g, u)], *b = &g->rows[node_row(g, v)];
    return !host(a) && a->stream == b->stream;
}

/* A key (a time, a correlation) and the position (row) it belongs to. */
struct keyed {
    int64_t key;
    int32_t pos;
};

/* The GPU's edges as cp_kernels.c finds them, in order, for cp_build to add after the host's: what
 * cp_add_edge is called with (zero: weighs 0 whatever its type), and whether the edge is attributed (HTA's
 * _attribute_edge, no parent). */
struct edge_rec {
    int32_t u, v;
    uint8_t type, attributed, zero;
};

struct edge_recs {
    struct edge_rec *r;
    size_t n, cap;
    size_t work, delays; /* GPU rows whose launch is in the graph; those given a launch delay (HTA's rule) */
    int oom;
};

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

/* cp_order.c */
int cp_keyed_order(const void *a, const void *b); /* struct keyed: by key, then position */
/* The positions 0..n-1 in the order of their times t, equal times in position order, into order. 0, or
 * -1 (out of memory). */
int cp_order_by_time(const int64_t *t, size_t n, uint32_t *order);
/* Sorts n items of `size` bytes stably by their int64 fields at offsets grp[0..ngrp-1] (at most 2), then at
 * offset time. 1 when sorted; 0 when they could not be in one pass (the caller sorts them); -1 out of memory. */
int cp_sort_grouped(void *items, size_t n, size_t size, const size_t *grp, int ngrp, size_t time);

/* cp_nodes.c */
int32_t cp_add_edge(struct graph *g, int32_t u, int32_t v, enum cp_edge_type type, int zero_weight);
void cp_attribute(struct graph *g, int32_t ei, int32_t src_parent);
int cp_make_nodes(struct graph *g);
int cp_runtime_lock_edges(struct graph *g);
int cp_add_recorded(struct graph *g, const struct edge_recs *l);

/* cp_stacks.c: every host call stack's edges. 0, or -1 (out of memory). */
int cp_all_call_stacks(struct graph *g);

/* cp_kernels.c: the GPU's edges, arg a struct kernel_job (pthread's start routine); the nodes made (1) or
 * not (-1). */
void *cp_kernel_job_run(void *arg);
void cp_kernel_job_ready(struct kernel_job *j, int ready);

/* cp_path.c */
int cp_longest_path(struct graph *g, int want_steps, int32_t *const spare[2], struct cp_result *r);
int cp_validate(const struct graph *g, struct cp_result *r);

#endif

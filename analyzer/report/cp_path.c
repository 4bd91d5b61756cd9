/* cp_path.c: the critical path graph's longest path (see cp_graph_internal.h): networkx's
 * dag_longest_path (a topological order by generations, each node's first best predecessor, the first
 * node with the greatest distance), its sums by bound and its edges; and HTA's check of the graph. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An edge's weight as HTA gives it: the time from its start node to its end node, 0 for dependencies,
 * syncs and a blocking call's own edge (the weight follows the nodes: it is not stored). */
static int64_t edge_weight(const struct graph *g, const struct edge *e, int64_t u_ts)
{
    return e->type == CP_DEPENDENCY || e->type == CP_SYNC || e->zero ? 0 : node_ts(g, e->v) - u_ts;
}

static int64_t clamp0(int64_t w)
{
    return w < 0 ? 0 : w;
}

/* networkx's dag_longest_path over the edges as added, in one pass: the nodes in networkx's topological
 * order (the sources in the order edges named them, then each node's successors as they free), each
 * pushing its distance along its out-edges. A node's best in-edge is networkx's: the first of its
 * predecessors (in edge order) with the longest distance, so a tie goes to the lower edge index. The
 * in-degrees and the naming order are cp_add_edge's (the in-degrees are used up).
 * spare: up to two arrays of nn + 1 ints the graph no longer needs (NULL: made here). */
int cp_longest_path(struct graph *g, int want_steps, int32_t *const spare[2], struct cp_result *r)
{
    size_t nn = g->nn;
    int32_t *indeg = g->indeg;
    int32_t *topo = spare[0] ? spare[0] : tdb_big_malloc((nn + 1) * sizeof *topo);
    int32_t *best = spare[1] ? spare[1] : tdb_big_malloc((nn + 1) * sizeof *best);
    int64_t *dist = tdb_big_calloc(nn + 1, sizeof *dist);
    uint8_t *seen = NULL;
    int rc = -1;
    if (!topo || !best || !dist) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    /* the sources, in the order edges named the nodes */
    size_t gn = g->nnamed, tail = 0;
    for (size_t i = 0; i < gn; i++)
        if (indeg[g->named[i]] == 0)
            topo[tail++] = g->named[i];
    memset(best, 0xff, (nn + 1) * sizeof *best);
    int32_t end = -1;
    int64_t far = -1;
    for (size_t head = 0; head < tail; head++) {
        int32_t u = topo[head];
        int64_t d = dist[u], u_ts = g->head[u] >= 0 ? node_ts(g, u) : 0;
        if (d > far)
            far = d, end = u;
        for (int32_t k = g->head[u]; k >= 0; k = g->e[k].next) {
            const struct edge *e = &g->e[k];
            int32_t v = e->v;
            int64_t cand = tdb_sat_add(d, clamp0(edge_weight(g, e, u_ts))); /* times are held: only a path's sum can overflow */
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
    r->length = far > 0 ? far : 0, r->nodes = gn, r->edges = g->ne;
    r->end_ts = r->start_ts = end >= 0 ? node_ts(g, end) : 0;
    if (!(seen = tdb_big_calloc(g->n + 1, 1))) {
        snprintf(r->error, sizeof r->error, "out of memory");
        goto done;
    }
    size_t k = len;
    int32_t first = end;
    for (int32_t v = end; v >= 0 && best[v] >= 0; v = first = g->e[best[v]].u) {
        const struct edge *e = &g->e[best[v]];
        struct cp_step step, *s = &step;
        /* the weight the path summed (clamped): the distances' difference, but where a sum saturated;
         * the times only where the edges are asked for (a row's line each) */
        s->from_ts = s->to_ts = 0;
        if (r->steps || dist[v] == INT64_MAX) {
            s->from_ts = node_ts(g, e->u), s->to_ts = node_ts(g, v);
            s->weight = clamp0(edge_weight(g, e, s->from_ts));
        } else {
            s->weight = dist[v] - dist[e->u];
        }
        s->type = e->type;
        s->from_row = node_row(g, e->u), s->to_row = node_row(g, e->v);
        s->event = e->type == CP_OPERATOR || e->type == CP_KERNEL_GAP ? (e->attr >= 0 ? e->attr : -1) : -1;
        s->bound = e->type == CP_KERNEL_GAP     ? CP_BOUND_GAP
                   : e->type == CP_LAUNCH_DELAY ? CP_BOUND_LAUNCH
                   : e->type != CP_OPERATOR     ? CP_BOUND_NONE
                                                : e->attr_bound;
        r->bound_ns[s->bound] = tdb_sat_add(r->bound_ns[s->bound], s->weight);
        r->events += !seen[s->from_row] + (!seen[s->to_row] && s->to_row != s->from_row);
        seen[s->from_row] = seen[s->to_row] = 1;
        r->nsteps++;
        if (r->steps)
            r->steps[--k] = step;
    }
    r->start_ts = first >= 0 ? node_ts(g, first) : 0;
    if (r->nsteps == 0 && end >= 0)
        r->events = 1;
    rc = 0;
done:
    if (!spare[0])
        free(topo);
    if (!spare[1])
        free(best);
    free(dist), free(seen);
    return rc;
}

/* HTA's _validate_graph: no sync edge may join two rows of one stream. */
int cp_validate(const struct graph *g, struct cp_result *r)
{
    for (size_t i = 0; i < g->ne; i++) {
        const struct edge *e = &g->e[i];
        if (e->type != CP_SYNC)
            continue;
        if (sync_within_stream(g, e->u, e->v)) {
            const struct cp_row *a = &g->rows[node_row(g, e->u)], *b = &g->rows[node_row(g, e->v)];
            snprintf(r->error, sizeof r->error,
                     "a synchronization between events %lld and %lld on one stream (%lld): the trace's syncs "
                     "do not order its GPU work",
                     (long long)a->id, (long long)b->id, (long long)a->stream);
            return -1;
        }
    }
    return 0;
}

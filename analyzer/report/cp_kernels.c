/* cp_kernels.c: the critical path graph's GPU edges (see cp_graph_internal.h), found on a second thread
 * while the first makes the nodes and the host's edges: each stream's work in start order (syncs by
 * their end): a launch-delay edge when the queue was empty, else a kernel-to-kernel edge when the gap is
 * under 1.5 ms, and (CP_LAUNCH_EVERY) a zero-weight edge from the launch where it got no launch delay;
 * zero-weight sync edges for context, stream and event syncs and for cudaStreamWaitEvent
 * (through cudaEventRecord's last launch). HTA's queue lengths and event links are found first. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define KERNEL_GAP_LIMIT_NS 1500000 /* HTA's KERNEL_KERNEL_DELAY_THRESHOLD_US */
#define NO_QUEUE INT32_MIN

static int64_t wait_stream(const struct cp_wait *waits, const struct cp_row *r)
{
    return r->wait >= 0 ? waits[r->wait].stream : -1;
}

static int64_t wait_corr(const struct cp_wait *waits, const struct cp_row *r)
{
    return r->wait >= 0 ? waits[r->wait].corr : -1;
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

/* A launch call with its time, thread and its work's device and stream. */
struct launch_call {
    int64_t ts, device, stream;
    int32_t row, thread;
};

/* A growing array *a of *cap items of `size` bytes: room for item n. 0, or -1 (out of memory). */
static int room(void **a, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 4096;
    void *m = tdb_big_realloc(*a, c * size);
    if (!m)
        return -1;
    *a = m, *cap = c;
    return 0;
}

/* What the GPU's edges are made from, found in one pass over the rows (and then from these alone, not
 * the rows): the queue's steps, the launch calls, the sync rows' waits, the cudaEventRecord and
 * cudaStreamWaitEvent rows, and the GPU work and syncs to walk (by time: syncs by their end). */
struct gpu_rows {
    struct queue_step *steps;
    struct launch_call *calls;
    struct keyed *waits; /* (record correlation, row) */
    int32_t *records, *wait_calls;
    struct keyed *items;
    size_t nsteps, ncalls, nwaits, nrecords, nwait_calls, nitems;
    size_t cap[6]; /* the arrays' room, in the order above */
};

static void gpu_rows_free(struct gpu_rows *gr)
{
    free(gr->steps), free(gr->calls), free(gr->waits), free(gr->records), free(gr->wait_calls), free(gr->items);
    memset(gr, 0, sizeof *gr);
}

static int is_sync_row(const struct cp_row *r)
{
    return (r->flags & CP_CAT_SYNC) != 0;
}

/* A queue step's `when`: 2 ts, plus one at a start (start 1). A time beyond a quarter of int64 (HTA's
 * rounding may take a held time past 2^62) would overflow it: *far is set, and the steps are then sorted
 * by comparison (queue_order), which reads no `when` (0 here). */
static int64_t queue_when(int64_t ts, int start, int *far)
{
    if (ts <= INT64_MIN / 4 || ts >= INT64_MAX / 4)
        return *far = 1, 0;
    return 2 * ts + start;
}

#define GROW(gr, arr, k) room((void **)&(gr)->arr, &(gr)->cap[k], (gr)->n##arr, sizeof *(gr)->arr)

/* The pass (gr's arrays, each in row order). 1 when a launch call's or its work's time lies beyond a
 * quarter of int64 (the queue's steps are then sorted by comparison), 0 when none does, -1 out of
 * memory (gr holds what was found: gpu_rows_free). */
static int gpu_rows_find(const struct cp_row *rows, size_t n, const struct cp_wait *wt, struct gpu_rows *gr)
{
    memset(gr, 0, sizeof *gr);
    int far = 0; /* a time beyond int64 / 4: a queue step's `when` would overflow */
    for (size_t i = 0; i < n; i++) {
        const struct cp_row *r = &rows[i];
        int32_t l = r->link;
        if (is_launch(rows, i)) {
            const struct cp_row *k = &rows[l];
            if (GROW(gr, steps, 0) || GROW(gr, calls, 1))
                return -1;
            gr->steps[gr->nsteps++] = (struct queue_step){k->stream, r->ts, queue_when(r->ts, 0, &far), (int32_t)i, 1};
            gr->calls[gr->ncalls++] = (struct launch_call){r->ts, k->device, k->stream, (int32_t)i, r->thread};
        }
        if (!host(r) && l >= 0 && is_launch(rows, (size_t)l) && rows[l].link == (int32_t)i) {
            if (GROW(gr, steps, 0))
                return -1;
            gr->steps[gr->nsteps++] = (struct queue_step){r->stream, r->ts, queue_when(r->ts, 1, &far), (int32_t)i, -1};
        }
        if (wait_stream(wt, r) > -1) {
            if (GROW(gr, waits, 2))
                return -1;
            gr->waits[gr->nwaits++] = (struct keyed){wait_corr(wt, r), (int32_t)i};
        }
        if ((r->flags & CP_EVENT_RECORD) && r->correlation >= 0) {
            if (GROW(gr, records, 3))
                return -1;
            gr->records[gr->nrecords++] = (int32_t)i;
        }
        if ((r->flags & CP_WAIT_CALL) && l >= 0 && !host(&rows[l])) {
            if (GROW(gr, wait_calls, 4))
                return -1;
            gr->wait_calls[gr->nwait_calls++] = (int32_t)i;
        }
        if (r->clipped && (!host(r) || (r->flags & (CP_EVENT_SYNC | CP_CONTEXT_SYNC))) && l >= 0) {
            if (GROW(gr, items, 5))
                return -1;
            gr->items[gr->nitems++] = (struct keyed){is_sync_row(r) ? r->end : r->ts, (int32_t)i};
        }
    }
    return far ? 1 : 0;
}
#undef GROW

/* HTA's TraceCounters queue length over the whole trace (per stream number), as each launch call and
 * each GPU row left it; the steps sorted by stream and time (at one time a launch first, then by row). */
static int queue_lengths(struct gpu_rows *gr, int far, size_t n, int32_t *q)
{
    for (size_t i = 0; i < n; i++)
        q[i] = NO_QUEUE;
    struct queue_step *s = gr->steps;
    size_t ns = gr->nsteps;
    static const size_t by[] = {offsetof(struct queue_step, stream)};
    int done = !far ? cp_sort_grouped(s, ns, sizeof *s, by, 1, offsetof(struct queue_step, when)) : 0;
    if (done < 0)
        return -1;
    if (!done && ns > 1) /* (none: s is NULL, which qsort may not be given) */
        qsort(s, ns, sizeof *s, queue_order);
    int32_t len = 0;
    for (size_t i = 0; i < ns; i++) {
        if (i == 0 || s[i].stream != s[i - 1].stream)
            len = 0;
        len += s[i].d;
        q[s[i].row] = len;
    }
    return 0;
}

/* A launch call keyed for finding the launch before a cudaEventRecord (on the event's device and
 * stream) and after a cudaStreamWaitEvent (on its thread and stream). */
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

/* The launch calls keyed by their work's device (by_thread 0) or their own thread (1), and their work's
 * stream, sorted (made in row order: ties stay so). 0, or -1 (out of memory). */
static int launches_by(const struct gpu_rows *gr, int by_thread, struct launch *l)
{
    for (size_t i = 0; i < gr->ncalls; i++) {
        const struct launch_call *c = &gr->calls[i];
        l[i] = (struct launch){by_thread ? c->thread : c->device, c->stream, c->ts, c->row};
    }
    static const size_t by[] = {offsetof(struct launch, k1), offsetof(struct launch, k2)};
    int done = cp_sort_grouped(l, gr->ncalls, sizeof *l, by, 2, offsetof(struct launch, ts));
    if (done < 0)
        return -1;
    if (!done)
        qsort(l, gr->ncalls, sizeof *l, launch_order);
    return 0;
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

static int event_links(const struct cp_row *rows, size_t n, const struct cp_wait *wt, struct gpu_rows *gr,
                       struct event_links *el)
{
    struct launch *l = tdb_big_malloc((gr->ncalls + 1) * sizeof *l);
    el->rec = tdb_big_malloc((gr->nrecords + 1) * sizeof *el->rec);
    el->next_launch = tdb_big_malloc((n + 1) * sizeof *el->next_launch);
    el->nrec = 0;
    if (!l || !el->rec || !el->next_launch) {
        free(l);
        return -1;
    }
    /* the event's stream per record correlation: the first row waiting on it says */
    struct keyed *waits = gr->waits;
    size_t nl = gr->ncalls, nw = gr->nwaits;
    if (nw > 1)
        qsort(waits, nw, sizeof *waits, cp_keyed_order);
    /* by device and stream of the work */
    if (launches_by(gr, 0, l) != 0)
        goto oom;
    for (size_t k = 0; k < gr->nrecords; k++) {
        int32_t i = gr->records[k];
        int32_t w = corr_find(waits, nw, rows[i].correlation);
        if (w < 0)
            continue;
        int64_t ws = wait_stream(wt, &rows[w]);
        size_t b = launch_bound(l, nl, rows[w].device, ws, rows[i].ts, 1);
        if (b > 0 && l[b - 1].k1 == rows[w].device && l[b - 1].k2 == ws)
            el->rec[el->nrec++] = (struct keyed){rows[i].correlation, l[b - 1].row};
    }
    qsort(el->rec, el->nrec, sizeof *el->rec, cp_keyed_order);
    /* by launching thread and stream of the work */
    if (launches_by(gr, 1, l) != 0)
        goto oom;
    memset(el->next_launch, 0xff, (n + 1) * sizeof *el->next_launch);
    for (size_t k = 0; k < gr->nwait_calls; k++) {
        int32_t i = gr->wait_calls[k];
        int64_t stream = rows[rows[i].link].stream;
        size_t b = launch_bound(l, nl, rows[i].thread, stream, rows[i].ts, 1);
        if (b < nl && l[b].k1 == rows[i].thread && l[b].k2 == stream)
            el->next_launch[i] = l[b].row;
    }
    free(l);
    return 0;
oom:
    free(l);
    return -1;
}

/* The last GPU node of each stream, in the order streams first appeared (HTA's dict). */
struct stream_last {
    int64_t stream;
    int32_t node;
};

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
    struct gpu_rows gr;
    memset(kp, 0, sizeof *kp);
    int far = gpu_rows_find(rows, n, waits, &gr);
    kp->q = tdb_big_malloc((n + 1) * sizeof *kp->q), kp->sync_src = tdb_big_malloc((n + 1) * sizeof *kp->sync_src);
    int rc = -1;
    if (far < 0 || !kp->q || !kp->sync_src || queue_lengths(&gr, far, n, kp->q) != 0 ||
        event_links(rows, n, waits, &gr, &kp->el) != 0)
        goto done;
    memset(kp->sync_src, 0xff, (n + 1) * sizeof *kp->sync_src);
    kp->items = gr.items, kp->ni = gr.nitems, gr.items = NULL;
    int sorted = cp_sort_grouped(kp->items, kp->ni, sizeof *kp->items, NULL, 0, offsetof(struct keyed, key));
    if (sorted < 0)
        goto done;
    if (!sorted && kp->ni > 1) /* made in row order, as cp_keyed_order sorts ties */
        qsort(kp->items, kp->ni, sizeof *kp->items, cp_keyed_order);
    rc = 0;
done:
    gpu_rows_free(&gr);
    return rc;
}

static void rec_edge(struct edge_recs *l, int32_t u, int32_t v, enum cp_edge_type type, int attributed, int zero)
{
    if (l->oom || (l->oom = room((void **)&l->r, &l->cap, l->n, sizeof *l->r) != 0))
        return;
    l->r[l->n++] = (struct edge_rec){u, v, (uint8_t)type, (uint8_t)(attributed != 0), (uint8_t)(zero != 0)};
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
                    rec_edge(recs, g->end[src], g->end[r->link], CP_SYNC, 0, 0);
                }
                continue;
            }
            if (!(r->flags & (CP_STREAM_SYNC | CP_CONTEXT_SYNC)) || g->end[r->link] < 0)
                continue;
            for (size_t s = 0; s < nlast; s++)
                if ((r->flags & CP_CONTEXT_SYNC) || last[s].stream == r->stream)
                    rec_edge(recs, last[s].node, g->end[r->link], CP_SYNC, 0, 0);
            continue;
        }
        int32_t sn = g->start[i], en = g->end[i];
        if (sn < 0 || en < 0)
            continue;
        rec_edge(recs, sn, en, CP_OPERATOR, 1, 0);
        int32_t src = sync_src[i], src_end = -1;
        if (src >= 0) {
            src_end = g->end[src];
            if (src_end >= 0)
                rec_edge(recs, src_end, sn, CP_SYNC, 0, 0);
            sync_src[i] = -1;
        }
        size_t s = 0;
        while (s < nlast && last[s].stream != r->stream)
            s++;
        int32_t prev = s < nlast ? last[s].node : -1, launch = r->link;
        int launched = 0;
        recs->work += g->start[launch] >= 0;
        int64_t launch_ts = rows[launch].ts;
        if (q[launch] == 1 && q[i] == 0 && (prev < 0 || node_ts(g, prev) < launch_ts) &&
            (src < 0 || (src_end >= 0 && node_ts(g, src_end) < launch_ts)) && g->start[launch] >= 0) {
            rec_edge(recs, g->start[launch], sn, CP_LAUNCH_DELAY, 0, 0);
            launched = 1, recs->delays++;
        } else if (prev >= 0 && node_ts(g, sn) - node_ts(g, prev) < KERNEL_GAP_LIMIT_NS &&
                   (src < 0 || (src_end >= 0 && node_ts(g, src_end) < node_ts(g, prev)))) {
            rec_edge(recs, prev, sn, CP_KERNEL_GAP, 1, 0);
        }
        /* the work cannot start before its launch, even where it waited behind other work: an edge that
         * adds no time (HTA's zero-weight launch edge, after the others); not where the trace has the work
         * start first (clocks apart), where it would run back in time and could close a loop */
        if (!launched && g->launches == CP_LAUNCH_EVERY && g->start[launch] >= 0 && node_ts(g, sn) >= launch_ts)
            rec_edge(recs, g->start[launch], sn, CP_LAUNCH_DELAY, 0, 1);
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

void *cp_kernel_job_run(void *arg)
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

void cp_kernel_job_ready(struct kernel_job *j, int ready)
{
    pthread_mutex_lock(&j->lock);
    j->ready = ready;
    pthread_cond_signal(&j->made);
    pthread_mutex_unlock(&j->lock);
}

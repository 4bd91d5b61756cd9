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
    int done = near ? cp_sort_grouped(s, ns, sizeof *s, by, 1, offsetof(struct queue_step, when)) : 0;
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
    qsort(waits, nw, sizeof *waits, cp_keyed_order);
    /* by device and stream of the work */
    nl = 0;
    for (size_t i = 0; i < n; i++)
        if (is_launch(rows, i)) {
            const struct cp_row *k = &rows[rows[i].link];
            l[nl++] = (struct launch){k->device, k->stream, rows[i].ts, (int32_t)i};
        }
    static const size_t by[] = {offsetof(struct launch, k1), offsetof(struct launch, k2)};
    int done = cp_sort_grouped(l, nl, sizeof *l, by, 2, offsetof(struct launch, ts)); /* made in row order */
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
    qsort(el->rec, el->nrec, sizeof *el->rec, cp_keyed_order);
    /* by launching thread and stream of the work */
    nl = 0;
    for (size_t i = 0; i < n; i++)
        if (is_launch(rows, i))
            l[nl++] = (struct launch){rows[i].thread, rows[rows[i].link].stream, rows[i].ts, (int32_t)i};
    if ((done = cp_sort_grouped(l, nl, sizeof *l, by, 2, offsetof(struct launch, ts))) < 0)
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
    int sorted = cp_sort_grouped(kp->items, kp->ni, sizeof *kp->items, NULL, 0, offsetof(struct keyed, key));
    if (sorted < 0)
        return -1;
    if (!sorted) /* made in row order, as cp_keyed_order sorts ties */
        qsort(kp->items, kp->ni, sizeof *kp->items, cp_keyed_order);
    return 0;
}

static void rec_edge(struct edge_recs *l, int32_t u, int32_t v, enum cp_edge_type type, int attributed, int zero)
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

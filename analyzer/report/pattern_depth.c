/* pattern_depth.c: HTA's depth for `tracedb kernels --patterns` (see pattern_sweep_internal.h): a linked
 * rank's backward thread's top-level calls hang under the main thread's "## backward ##" annotation,
 * else under its ProfilerStep, one deeper than it; the steps read. */
#include "pattern_sweep_internal.h"
#include "report.h"
#include "time_range.h"
#include <stdlib.h>
#include <string.h>

/* A linked rank: its one main thread and one backward thread; where the backward calls hang. */
struct pat_link {
    int64_t rank, main, bwd;
};

/* The extra depth of host call h on a linked backward thread (*plus): its top-level call (up its parents)
 * hangs under the last anchor that holds it, one deeper than it; 0 when none holds it, or when it has no
 * top-level call (a stranger's loop of parents, or a parent missing). Each call's is kept: the calls a
 * walk passes have the same top-level call, so later walks stop where one has been. 0; 2 a value not an
 * integer; -1 SQLite's error; -3 out of memory. */
static int pat_lift(struct pat *c, const struct pat_host *h, const struct pat_span *anchors, size_t n_anchors, int64_t *plus)
{
    int64_t id = h->id, parent = h->parent, thread = h->thread, start = h->start, en = h->start + h->dur, tortoise = id;
    size_t power = 1, lam = 0;
    int top = 1;
    c->path.n = 0;
    for (;;) {
        int64_t at = strmap_get(&c->lifted, &id, sizeof id);
        if (at >= 0) {
            *plus = c->lift.v[at];
            top = -1; /* (known) */
            break;
        }
        if (sweep_values_add(&c->path, id) != 0)
            return -3;
        if (parent == PAT_NONE)
            break;
        /* Brent's cycle test: the tortoise jumps to the hare at each power of two */
        id = parent;
        if (id == tortoise) {
            top = 0;
            break;
        }
        int got = pat_row(c, id, &parent, &thread, &start, &en);
        if (got != 1) {
            if (got != 0)
                return got;
            top = 0;
            break;
        }
        if (++lam == power)
            tortoise = id, power *= 2, lam = 0;
    }
    if (top >= 0) {
        const struct pat_span *best = NULL;
        for (size_t a = 0; top && a < n_anchors; a++)
            if (anchors[a].thread == thread && start >= anchors[a].start && en <= anchors[a].en &&
                (!best || anchors[a].start > best->start))
                best = &anchors[a];
        *plus = best ? tdb_sat_add(best->depth, 1) : 0;
    }
    for (size_t k = 0; k < c->path.n; k++)
        if (sweep_values_add(&c->lift, *plus) != 0 ||
            strmap_put(&c->lifted, &c->path.v[k], sizeof c->path.v[k], (int64_t)c->lift.n - 1) != 0)
            return -3;
    return 0;
}

/* HTA's extra depth of each candidate on a linked backward thread, added to host[].depth: its top-level
 * call (up its parents) hangs under the last anchor that holds it (the main thread's "## backward ##"
 * annotations, else its ProfilerSteps), one deeper than it. 0, 2, or -1. */
int pat_link_depths(struct pat *c, const struct pat_span *steps, size_t n_steps)
{
    int rc = 0;
    int64_t *mains = NULL, *bwds = NULL;
    size_t n_mains = 0, n_bwds = 0, cap = 0;
    struct pat_link *links = NULL;
    struct pat_span *anchors = NULL; /* thread: the backward thread it is for */
    size_t n_links = 0, n_anchors = 0, cap_anchors = 0;
    void *pat_grown;
    /* HTA's main threads: those holding a ProfilerStep#N; backward: the others holding an autograd:: call */
    if (n_steps && !(mains = malloc(n_steps * sizeof *mains)))
        goto oom;
    for (size_t k = 0; k < n_steps; k++)
        mains[n_mains++] = steps[k].thread;
    if (n_mains)
        qsort(mains, n_mains, sizeof *mains, pat_i64_order);
    size_t u = 0;
    for (size_t k = 0; k < n_mains; k++)
        if (u == 0 || mains[u - 1] != mains[k])
            mains[u++] = mains[k];
    n_mains = u;
    for (size_t k = 0; k < c->n_host; k++)
        if ((c->host[k].mark & MARK_AUTOGRAD) && (!n_mains || !bsearch(&(int64_t){c->host[k].thread}, mains, n_mains, sizeof *mains, pat_i64_order))) {
            if (PAT_GROW(bwds, cap, n_bwds) != 0)
                goto oom;
            bwds[n_bwds++] = c->host[k].thread;
        }
    if (n_bwds) {
        qsort(bwds, n_bwds, sizeof *bwds, pat_i64_order);
        u = 0;
        for (size_t k = 0; k < n_bwds; k++)
            if (u == 0 || bwds[u - 1] != bwds[k])
                bwds[u++] = bwds[k];
        n_bwds = u;
    }
    /* a rank is linked when it has exactly one of each */
    if (n_mains && !(links = malloc(n_mains * sizeof *links)))
        goto oom;
    for (size_t m = 0; m < n_mains; m++) {
        int64_t rank = pat_rank(c, mains[m]), bwd = 0;
        size_t same = 0, found = 0;
        for (size_t x = 0; x < n_mains; x++)
            same += pat_rank(c, mains[x]) == rank;
        for (size_t b = 0; b < n_bwds; b++)
            if (pat_rank(c, bwds[b]) == rank)
                found++, bwd = bwds[b];
        if (same == 1 && found == 1)
            links[n_links++] = (struct pat_link){rank, mains[m], bwd};
    }
    if (n_links == 0)
        goto done;
    /* the anchors: each main thread's "## backward ##" annotations in the window, else its steps */
    cap = 0;
    for (size_t l = 0; l < n_links; l++) {
        size_t before = n_anchors;
        for (size_t k = 0; k < c->n_host; k++) {
            const struct pat_host *h = &c->host[k];
            if ((h->mark & MARK_BACKWARD) && h->thread == links[l].main) {
                if (PAT_GROW(anchors, cap_anchors, n_anchors) != 0)
                    goto oom;
                anchors[n_anchors++] = (struct pat_span){links[l].bwd, h->start, h->start + h->dur, h->depth};
            }
        }
        int annotated = n_anchors > before;
        for (size_t k = 0; !annotated && k < n_steps; k++)
            if (steps[k].thread == links[l].main) {
                if (PAT_GROW(anchors, cap_anchors, n_anchors) != 0)
                    goto oom;
                anchors[n_anchors] = steps[k];
                anchors[n_anchors++].thread = links[l].bwd;
            }
    }
    for (size_t k = 0; k < c->n_host; k++) {
        struct pat_host *h = &c->host[k];
        int linked = 0;
        for (size_t l = 0; l < n_links && !linked; l++)
            linked = h->thread == links[l].bwd;
        if (!(h->mark & MARK_CANDIDATE) || !linked)
            continue;
        int64_t plus;
        int got = pat_lift(c, h, anchors, n_anchors, &plus);
        if (got == -3)
            goto oom;
        if (got != 0) {
            rc = got == 2 ? 2 : -1;
            goto done;
        }
        int64_t depth = tdb_sat_add(h->depth, plus);
        if (depth != (int32_t)depth) { /* depths tracedb writes are far from 32 bits */
            rc = sweep_refusal_set(&c->refusal, "event", "depth", "a value past 32 bits", "event", h->id) + 1;
            goto done;
        }
        h->depth = (int32_t)depth;
    }
    goto done;
oom:
    fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
    rc = -2;
done:
    if (rc == -1)
        fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
    free(mains), free(bwds), free(links), free(anchors);
    return rc == -1 ? -2 : rc;
}

/* Reads every ProfilerStep of the trace. 0, 2, or -2 (printed). */
int pat_steps(struct pat *c, struct pat_span **steps, size_t *n)
{
    sqlite3_stmt *st = report_prepare(c->db, "kernels_pattern_steps", c->io);
    if (!st)
        return -2;
    size_t cap = 0;
    void *pat_grown;
    int step, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t v[4];
        if (!pat_ints(st, 0, 4, v, NULL, &c->refusal, 4)) {
            rc = 2;
            break;
        }
        if (PAT_GROW(*steps, cap, *n) != 0) {
            fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
            rc = -2;
            break;
        }
        int64_t start = tdb_time_held(v[1]);
        (*steps)[(*n)++] = (struct pat_span){v[0], start, start + tdb_dur_held(v[2]), v[3]};
    }
    if (rc == 0 && step != SQLITE_DONE) {
        fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
        rc = -2;
    }
    sqlite3_finalize(st);
    return rc;
}

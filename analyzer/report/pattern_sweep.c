/* pattern_sweep.c: `tracedb kernels --patterns NAME` (HTA's get_frequent_cuda_kernel_sequences) in C. One
 * pass over the window's rows (queries/kernels_pattern_rows.sql, two halves of the ids read at once, each
 * on its own connection and thread) keeps the host calls whose name matters, the runtime and driver calls
 * (the launches) and the GPU work. Then, in memory: HTA's depth (the backward thread's top-level calls hang
 * under the main thread's "## backward ##" annotation, else its ProfilerStep), the roots (the candidates at
 * their rank's least depth), each GPU operation given to the root its launch lies in (a merge of both,
 * sorted by track and time), each root's sequence, and the sequences grouped by their names' ids, then by
 * their text (SQL's three sorts and two window passes over the roots and the work took 7.4 s on 2 M
 * events for --patterns aten::). A database holding a value tracedb never writes (text where it writes
 * an integer, a depth past 32 bits, a name not text) is refused, naming the table and column.
 * The parts: pattern_read.c (the rows), pattern_depth.c (HTA's depths), pattern_group.c (the sequences
 * grouped), pattern_arrays.c (arrays, lookups, sorts); what they share: pattern_sweep_internal.h. */
#include "pattern_sweep_internal.h"
#include "kinds.h"
#include "report.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int root_order(const void *a, const void *b)
{
    const struct pat_root *x = a, *y = b;
    int c = cmp_i64(x->thread, y->thread);
    c = c ? c : cmp_i64(x->start, y->start);
    return c ? c : cmp_i64(x->id, y->id);
}

static int launched_order(const void *a, const void *b)
{
    const struct pat_launched *x = a, *y = b;
    int c = cmp_i64(x->thread, y->thread);
    return c ? c : cmp_i64(x->ls, y->ls);
}

static int op_order(const void *a, const void *b)
{
    const struct pat_op *x = a, *y = b;
    int c = (x->root > y->root) - (x->root < y->root);
    c = c ? c : cmp_i64(x->start, y->start);
    return c ? c : cmp_i64(x->id, y->id);
}

/* Where rank r is among rank[0..n): its index, or n. */
static size_t pat_slot(const int64_t *rank, size_t n, int64_t r)
{
    size_t j = 0;
    while (j < n && rank[j] != r)
        j++;
    return j;
}

/* The roots, each GPU operation given to the root its launch lies in, and their groups. 0, 2, or -2. */
static int pat_assign(struct pat *c, int64_t min_kernels)
{
    struct pat_root *roots = NULL;
    struct pat_launched *wl = NULL;
    struct pat_op *ops = NULL;
    size_t n_roots = 0, n_wl = 0, n_ops = 0;
    int rc = 0;
    /* each rank's least depth among its candidates (ranks are few) */
    int64_t *rank = NULL, *least = NULL;
    size_t n_ranks = 0, cap = 0, cap2 = 0;
    void *pat_grown;
    for (size_t k = 0; k < c->n_host; k++) {
        const struct pat_host *h = &c->host[k];
        int64_t r = h->mark & MARK_CANDIDATE ? pat_rank(c, h->thread) : 0;
        size_t j = h->mark & MARK_CANDIDATE ? pat_slot(rank, n_ranks, r) : SIZE_MAX;
        if (j == SIZE_MAX)
            continue;
        if (j == n_ranks) {
            if ((PAT_GROW(rank, cap, n_ranks)) != 0 || (PAT_GROW(least, cap2, n_ranks)) != 0)
                goto oom;
            rank[n_ranks] = r, least[n_ranks++] = h->depth;
        } else if (h->depth < least[j]) {
            least[j] = h->depth;
        }
    }
    cap = 0;
    for (size_t k = 0; k < c->n_host; k++) {
        const struct pat_host *h = &c->host[k];
        int64_t r = h->mark & MARK_CANDIDATE ? pat_rank(c, h->thread) : 0;
        if (!(h->mark & MARK_CANDIDATE) || h->depth != least[pat_slot(rank, n_ranks, r)])
            continue; /* (a candidate's rank has its slot) */
        if (PAT_GROW(roots, cap, n_roots) != 0)
            goto oom;
        roots[n_roots++] = (struct pat_root){h->thread, h->start, h->start + h->dur, h->id, h->name_id, r, h->dur};
    }
    pat_sort(roots, n_roots, sizeof *roots, root_order);
    free(c->host); /* (the roots hold what is needed of them) */
    c->host = NULL, c->n_host = 0;
    /* each GPU operation with its launch (any row of the table: the window's runtime calls are at hand) */
    if (n_roots && c->n_work && !(wl = malloc(c->n_work * sizeof *wl)))
        goto oom;
    size_t at = SIZE_MAX; /* (the first ++ makes it 0) */
    for (size_t k = 0; n_roots && k < c->n_work; k++) {
        int64_t id = c->work[k].launch_id;
        /* the launch after the last one found, usually (the work in the order of its launches); else a search */
        if (!(++at < c->n_launch && c->launch[at].id == id))
            at = pat_find(c->launch, c->n_launch, sizeof *c->launch, id);
        if (at < c->n_launch) {
            wl[n_wl++] = (struct pat_launched){c->launch[at].thread, c->launch[at].start, c->launch[at].en, k};
            continue;
        }
        int64_t parent, thread, start, en;
        int got = pat_row(c, id, &parent, &thread, &start, &en);
        if (got == 1)
            wl[n_wl++] = (struct pat_launched){thread, start, en, k};
        else if (got != 0) {
            if (got == -1)
                fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
            rc = got == 2 ? 2 : -2;
            goto done;
        }
    }
    free(c->launch);
    c->launch = NULL, c->n_launch = 0;
    pat_sort(wl, n_wl, sizeof *wl, launched_order);
    /* the merge: on each track, the last root starting at or before the launch (a root before a launch at
     * one time), when the launch ends by the latest end of the roots so far */
    if (n_wl && !(ops = malloc(n_wl * sizeof *ops)))
        goto oom;
    size_t r = 0, last = SIZE_MAX;
    int64_t thread = 0, max_en = INT64_MIN;
    for (size_t k = 0; k < n_wl; k++) {
        const struct pat_launched *w = &wl[k];
        if (k == 0 || w->thread != thread) {
            thread = w->thread, last = SIZE_MAX, max_en = INT64_MIN;
            while (r < n_roots && roots[r].thread < thread)
                r++;
        }
        while (r < n_roots && roots[r].thread == thread && roots[r].start <= w->ls) {
            last = r;
            if (roots[r].en > max_en)
                max_en = roots[r].en;
            r++;
        }
        if (last != SIZE_MAX && w->le <= max_en) {
            const struct pat_work *g = &c->work[w->work];
            ops[n_ops++] = (struct pat_op){last, g->start, g->id, g->name_id, g->dur};
        }
    }
    pat_sort(ops, n_ops, sizeof *ops, op_order);
    tdb_phase_end(&c->clock, "patterns: roots and their work");
    rc = pat_group(c, roots, n_roots, ops, n_ops, min_kernels);
    tdb_phase_end(&c->clock, "patterns: grouped");
    goto done;
oom:
    fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
    rc = -2;
done:
    free(rank), free(least), free(roots), free(wl), free(ops);
    return rc;
}

int pattern_sweep(sqlite3 *db, const char *name, int64_t min_kernels, struct report_io *io)
{
    struct pat c = {.db = db, .io = io, .rank_thread = -1};
    strmap_init(&c.lifted);
    /* one transaction for the pass: its point lookups (a parent, a launch outside the window, a name)
     * would each take and drop the file's locks (on a 151,391-event trace, half the depths' time) */
    int own = sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    tdb_phase_start(&c.clock);
    struct pat_span *steps = NULL;
    size_t n_steps = 0;
    int rc = pat_names(&c, name) == 0 ? 0 : -2;
    if (rc == 0 && sweep_ranks_check(db, io) != 0)
        rc = -2; /* (said) */
    if (rc == 0) {
        int got = sweep_ranks_load(&c.ranks, db);
        rc = got == 1 ? 2 : got == 0 ? 0 : -2;
        if (got == 1)
            sweep_refusal_set(&c.refusal, "trace", "rank", NULL, NULL, 0);
        if (got == -1)
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    }
    if (rc == 0)
        rc = pat_read(&c);
    tdb_phase_end(&c.clock, "patterns: rows read");
    if (rc == 0)
        rc = pat_steps(&c, &steps, &n_steps);
    if (rc == 0)
        rc = pat_link_depths(&c, steps, n_steps);
    tdb_phase_end(&c.clock, "patterns: depths");
    if (rc == 0)
        rc = pat_assign(&c, min_kernels);
    if (own && sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && rc == 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = -2;
    }
    sweep_ranks_free(&c.ranks);
    strmap_free(&c.lifted);
    free(c.lift.v), free(c.path.v);
    sqlite3_finalize(c.row_st);
    free(c.names), free(c.host), free(c.launch), free(c.work), free(steps);
    if (rc == 2)
        sweep_refuse(&c.refusal, io);
    return rc == 0 ? 0 : 1;
}

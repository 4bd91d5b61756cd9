/* pattern_sweep.c: `tracedb kernels --patterns NAME` (HTA's get_frequent_cuda_kernel_sequences) in C. One
 * pass over the window's rows (queries/kernels_pattern_rows.sql, two halves of the ids read at once, each
 * on its own connection and thread) keeps the host calls whose name matters, the runtime and driver calls
 * (the launches) and the GPU work. Then, in memory: HTA's depth (the backward thread's top-level calls hang
 * under the main thread's "## backward ##" annotation, else its ProfilerStep), the roots (the candidates at
 * their rank's least depth), each GPU operation given to the root its launch lies in (a merge of both,
 * sorted by track and time), each root's sequence, and the sequences grouped by their names' ids, then by
 * their text. queries/kernels_patterns.sql computes the same in SQL (three sorts and two window passes
 * over the roots and the work: 7.4 s on 2 M events for --patterns aten::); it stays for a foreign
 * database, one holding a value that is not an integer where tracedb writes one. */
#include "pattern_sweep.h"
#include "kinds.h"
#include "phase_clock.h"
#include "report.h"
#include "strmap.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MARK_CANDIDATE = 1, MARK_AUTOGRAD = 2, MARK_BACKWARD = 4 };
#define PAT_NONE INT64_MIN /* a NULL parent; no root */

struct pat_name {
    int64_t id;
    int mark;
};

struct pat_host { /* a host call whose name matters (a candidate, an autograd:: call, a backward annotation) */
    int64_t id, start, dur, parent;
    int32_t thread, name_id, depth, mark; /* (a database whose ids or depths do not fit: SQL's pass) */
};

struct pat_launch { /* a runtime or driver call: the launches */
    int64_t id, thread, start, en;
};

struct pat_work { /* a GPU operation (a kernel, memcpy, memset, or a sync on a stream) */
    int64_t launch_id, name_id, start, dur, id;
};

struct pat_span { /* a ProfilerStep, or an anchor: where a linked backward thread's calls hang */
    int64_t thread, start, en, depth;
};

struct pat_root { /* a candidate at its rank's least depth */
    int64_t thread, start, en, id, name_id, rank, dur;
};

struct pat_launched { /* a GPU operation with its launch's track and times */
    int64_t thread, ls, le;
    size_t work;
};

struct pat_op { /* a GPU operation given to a root */
    size_t root;
    int64_t start, id, name_id, dur;
};

/* A candidate still open on its track as the rows come (in id order, which is nearly always start order
 * on a track): the calls that may hold the next ones. */
struct pat_open {
    int64_t id, en, depth;
};

struct pat_track {
    int64_t thread;
    struct pat_open *open; /* a stack: the innermost last */
    size_t n, cap;
};

struct pat_part { /* one reader of the rows: those with ids lo..hi on its connection */
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    const struct pat_name *names;
    size_t n_names;
    struct pat_host *host;
    struct pat_launch *launch;
    struct pat_work *work;
    size_t n_host, cap_host, n_launch, cap_launch, n_work, cap_work;
    struct pat_track *tracks;
    size_t n_tracks, cap_tracks, last_track;
    int rc; /* 0; -1 SQLite's error or out of memory; 2 a value not an integer */
};

/* v with room for one more row of `size` bytes at v[n] (grown, *cap its rows), or NULL when out of
 * memory (v is still the caller's). */
static void *pat_room(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t nc = *cap ? *cap * 2 : 4096;
    void *p = realloc(v, nc * size);
    if (p)
        *cap = nc;
    return p;
}

/* arr with room for one more row at arr[n]: 0, or -1 when out of memory (arr kept). The function using it
 * declares void *pat_grown. */
#define PAT_GROW(arr, cap, n) ((pat_grown = pat_room((arr), &(cap), (n), sizeof *(arr))) ? ((arr) = pat_grown, 0) : -1)


/* Whether candidate h (on its track's stack from now on) can be left out: its parent is the innermost
 * open candidate on its track at a lesser depth (above it lie only calls that ended as h began, 64 of
 * them looked past at most: a scan of the whole stack cost the depth for each call). Such a call is
 * never a root (deeper than its parent; on a linked backward track both are lifted alike), so a miss
 * only keeps it; kept too when it marks something else. 1 leave out; 0 keep; -1 out of memory. */
static int pat_prune(struct pat_part *p, const struct pat_host *h)
{
    void *pat_grown;
    size_t t = p->last_track;
    if (t >= p->n_tracks || p->tracks[t].thread != h->thread) {
        for (t = 0; t < p->n_tracks && p->tracks[t].thread != h->thread; t++)
            ;
        if (t == p->n_tracks) {
            if (PAT_GROW(p->tracks, p->cap_tracks, p->n_tracks) != 0)
                return -1;
            p->tracks[p->n_tracks++] = (struct pat_track){h->thread, NULL, 0, 0};
        }
        p->last_track = t;
    }
    struct pat_track *k = &p->tracks[t];
    while (k->n && k->open[k->n - 1].en < h->start) /* ended before it began: holds nothing from here */
        k->n--;
    size_t i = k->n, past = k->n > 64 ? k->n - 64 : 0;
    while (i > past && k->open[i - 1].depth >= h->depth)
        i--;
    if (PAT_GROW(k->open, k->cap, k->n) != 0)
        return -1;
    k->open[k->n++] = (struct pat_open){h->id, h->start + h->dur, h->depth};
    return i > past && k->open[i - 1].id == h->parent && h->mark == MARK_CANDIDATE;
}

/* The index of the row with id in rows sorted by id (the id their first field), or n. */
static size_t pat_find(const void *v, size_t n, size_t size, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (*(const int64_t *)((const char *)v + m * size) < id)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && *(const int64_t *)((const char *)v + lo * size) == id ? lo : n;
}

static int pat_mark(const struct pat_name *v, size_t n, int64_t id)
{
    size_t k = pat_find(v, n, sizeof *v, id);
    return k < n ? v[k].mark : 0;
}

/* Columns first..first+n-1 of st's row into v, each an integer (NULL where null[] is given): 1; 0 when
 * one is not (a foreign database's text, real or NULL: SQL's pass then). */
static int pat_ints(sqlite3_stmt *st, int first, int n, int64_t *v, int *null)
{
    int none[8];
    if (sweep_int_key(st, first, n, v, null ? null : none) != 0)
        return 0;
    for (int i = 0; !null && i < n; i++)
        if (none[i])
            return 0;
    return 1;
}

/* Reads the part's rows: id, kind, name_id, thread_id, start_ns, dur_ns, depth, parent_id, launch_id, stream. */
static void *pat_part_run(void *arg)
{
    struct pat_part *p = arg;
    sqlite3_stmt *st = p->st;
    void *pat_grown;
    int rc = 0, step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t v[10];
        int null[10];
        if (!pat_ints(st, 0, 6, v, NULL)) {
            rc = 2;
            break;
        }
        int64_t id = v[0], kind = v[1], name = v[2], thread = v[3];
        int64_t start = tdb_time_held(v[4]), dur = tdb_dur_held(v[5]);
        if (kind == TDB_KIND_KERNEL || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET || kind == TDB_KIND_SYNC) {
            if (!pat_ints(st, 8, 2, v + 8, null + 8)) {
                rc = 2;
                break;
            }
            /* HTA's rows on a stream: a sync on none is not one */
            if (null[8] || (kind == TDB_KIND_SYNC && (null[9] || v[9] == -1)))
                continue;
            if (PAT_GROW(p->work, p->cap_work, p->n_work) != 0) {
                rc = -1;
                break;
            }
            p->work[p->n_work++] = (struct pat_work){v[8], name, start, dur, id};
            continue;
        }
        if (kind == TDB_KIND_RUNTIME || kind == TDB_KIND_DRIVER) {
            if (PAT_GROW(p->launch, p->cap_launch, p->n_launch) != 0) {
                rc = -1;
                break;
            }
            p->launch[p->n_launch++] = (struct pat_launch){id, thread, start, start + dur};
        }
        /* HTA's call stacks: no GPU work, instants, memory or spans */
        if (kind == TDB_KIND_GPU_RANGE || kind == TDB_KIND_MEMORY || kind == TDB_KIND_INSTANT || kind == TDB_KIND_TRACE ||
            kind == TDB_KIND_ASYNC)
            continue;
        int mark = pat_mark(p->names, p->n_names, name);
        if (!mark)
            continue;
        if (!pat_ints(st, 6, 2, v + 6, null + 6) || null[6] || v[6] != (int32_t)v[6] || thread != (int32_t)thread ||
            name != (int32_t)name) {
            rc = 2;
            break;
        }
        struct pat_host h = {id, start, dur, null[7] ? PAT_NONE : v[7], (int32_t)thread, (int32_t)name, (int32_t)v[6], mark};
        int out = mark & MARK_CANDIDATE ? pat_prune(p, &h) : 0;
        if (out == 1)
            continue;
        if (out < 0 || PAT_GROW(p->host, p->cap_host, p->n_host) != 0) {
            rc = -1;
            break;
        }
        p->host[p->n_host++] = h;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    p->rc = rc;
    return NULL;
}

/* a (*na rows of `size` bytes, room for *cap) with b's nb rows after them; NULL with nb > 0 when out of
 * memory (a is still the caller's). */
static void *pat_append(void *a, size_t *na, size_t *cap, const void *b, size_t nb, size_t size)
{
    if (nb == 0)
        return a;
    if (*na + nb > *cap) {
        void *p = realloc(a, (*na + nb) * size);
        if (!p)
            return NULL;
        a = p, *cap = *na + nb;
    }
    memcpy((char *)a + *na * size, b, nb * size);
    *na += nb;
    return a;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int host_by_id(const void *a, const void *b)
{
    return cmp_i64(((const struct pat_host *)a)->id, ((const struct pat_host *)b)->id);
}

static int launch_by_id(const void *a, const void *b)
{
    return cmp_i64(((const struct pat_launch *)a)->id, ((const struct pat_launch *)b)->id);
}

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

static int i64_order(const void *a, const void *b)
{
    return cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* Sorts rows unless they are in that order already (the table's order often is). */
static void pat_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    for (size_t k = 1; k < n; k++)
        if (cmp((char *)v + (k - 1) * size, (char *)v + k * size) > 0) {
            qsort(v, n, size, cmp);
            return;
        }
}

struct pat {
    sqlite3 *db;
    struct report_io *io;
    struct pat_name *names;
    size_t n_names;
    struct pat_host *host;
    struct pat_launch *launch;
    struct pat_work *work;
    size_t n_host, n_launch, n_work;
    struct sweep_ranks ranks;
    sqlite3_stmt *row_st; /* a row of the whole table by id: parents and launches outside the window */
    struct tdb_phase_clock clock; /* TRACEDB_TIMING=1: each phase's time */
    int64_t rank_thread, rank_last; /* the last track whose rank was looked up (rank_thread -1: none) */
    struct strmap lifted;           /* event id -> index in lift: each call's extra depth, found once */
    struct sweep_values lift, path; /* (path: the ids a walk up passed) */
};

/* The rank of a track (SWEEP_RANK_NULL: NULL), as queries/parts/rank_of_event.sql gives it. */
static int64_t pat_rank(struct pat *c, int64_t thread)
{
    if (thread == c->rank_thread && thread >= 0)
        return c->rank_last; /* (rows of one track come together) */
    int64_t at = strmap_get(&c->ranks.map, &thread, sizeof thread);
    c->rank_thread = thread, c->rank_last = at < 0 ? SWEEP_RANK_NULL : c->ranks.rank.v[at];
    return c->rank_last;
}

/* The event with id anywhere in the table: its parent (PAT_NONE for NULL), track, start and end. 1; 0 when
 * there is none; 2 a value not an integer; -1 on error. */
static int pat_row(struct pat *c, int64_t id, int64_t *parent, int64_t *thread, int64_t *start, int64_t *en)
{
    size_t k = pat_find(c->host, c->n_host, sizeof *c->host, id);
    if (k < c->n_host) {
        const struct pat_host *h = &c->host[k];
        *parent = h->parent, *thread = h->thread, *start = h->start, *en = h->start + h->dur;
        return 1;
    }
    if (!c->row_st &&
        sqlite3_prepare_v2(c->db, "SELECT parent_id, thread_id, start_ns, dur_ns FROM main.event WHERE id = ?", -1, &c->row_st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_stmt *st = c->row_st;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st), rc;
    if (step == SQLITE_ROW) {
        int64_t v[4];
        int null[4];
        rc = pat_ints(st, 0, 4, v, null) && !null[1] && !null[2] && !null[3] ? 1 : 2;
        *parent = null[0] ? PAT_NONE : v[0];
        *thread = v[1];
        *start = tdb_time_held(v[2]);
        *en = *start + tdb_dur_held(v[3]);
    } else {
        rc = step == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_reset(st);
    return rc;
}

/* Reads the window's rows in two halves at once, then joins them in id order. 0, 2, or -1. */
static int pat_read(struct pat *c)
{
    struct pat_part part[2];
    for (int k = 0; k < 2; k++)
        part[k] = (struct pat_part){.db = c->db, .names = c->names, .n_names = c->n_names};
    struct sweep_halves h;
    sweep_halves_open(&h, c->db, TDB_KIND_OP, TDB_KIND_ASYNC);
    part[1].db = h.db[1];
    sqlite3_stmt *st[2] = {NULL, NULL};
    int rc = sweep_halves_prepare(&h, "kernels_pattern_rows", st, c->io) == 0 ? 0 : -2;
    part[0].st = st[0], part[1].st = st[1];
    if (rc == 0)
        sweep_halves_run(&h, pat_part_run, &part[0], &part[1]);
    for (int k = 0; rc == 0 && k < h.n; k++) {
        if (part[k].rc == -1)
            fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(part[k].db));
        if (part[k].rc != 0 && rc != 2)
            rc = part[k].rc == -1 ? -2 : part[k].rc;
    }
    size_t cap_host = part[0].cap_host, cap_launch = part[0].cap_launch, cap_work = part[0].cap_work;
    c->host = part[0].host, c->n_host = part[0].n_host;
    c->launch = part[0].launch, c->n_launch = part[0].n_launch;
    c->work = part[0].work, c->n_work = part[0].n_work;
    void *x;
    if (rc == 0 && !(x = pat_append(c->host, &c->n_host, &cap_host, part[1].host, part[1].n_host, sizeof *c->host)) && part[1].n_host)
        rc = -3;
    else if (rc == 0)
        c->host = x;
    if (rc == 0 && !(x = pat_append(c->launch, &c->n_launch, &cap_launch, part[1].launch, part[1].n_launch, sizeof *c->launch)) && part[1].n_launch)
        rc = -3;
    else if (rc == 0)
        c->launch = x;
    if (rc == 0 && !(x = pat_append(c->work, &c->n_work, &cap_work, part[1].work, part[1].n_work, sizeof *c->work)) && part[1].n_work)
        rc = -3;
    else if (rc == 0)
        c->work = x;
    if (rc == -3) {
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        rc = -2;
    }
    free(part[1].host), free(part[1].launch), free(part[1].work);
    for (int k = 0; k < 2; k++) {
        for (size_t t = 0; t < part[k].n_tracks; t++)
            free(part[k].tracks[t].open);
        free(part[k].tracks);
    }
    for (int k = 0; k < 2; k++)
        sqlite3_finalize(part[k].st);
    sweep_halves_close(&h);
    if (rc == 0) {
        pat_sort(c->host, c->n_host, sizeof *c->host, host_by_id);
        pat_sort(c->launch, c->n_launch, sizeof *c->launch, launch_by_id);
    }
    return rc;
}

/* Loads the names that matter, sorted by id. 0, or -1 (printed). */
static int pat_names(struct pat *c, const char *name)
{
    sqlite3_stmt *st = report_prepare(c->db, "kernels_pattern_names", c->io);
    if (!st)
        return -1;
    report_bind_text(st, ":name", name);
    size_t cap = 0;
    void *pat_grown;
    int step, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (PAT_GROW(c->names, cap, c->n_names) != 0) {
            rc = -1;
            break;
        }
        c->names[c->n_names++] = (struct pat_name){sqlite3_column_int64(st, 0), sqlite3_column_int(st, 1)};
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc != 0)
        fprintf(c->io->err, "%s: %s\n", c->io->prog, step == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(c->db));
    sqlite3_finalize(st);
    return rc;
}

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
static int pat_link_depths(struct pat *c, const struct pat_span *steps, size_t n_steps)
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
        qsort(mains, n_mains, sizeof *mains, i64_order);
    size_t u = 0;
    for (size_t k = 0; k < n_mains; k++)
        if (u == 0 || mains[u - 1] != mains[k])
            mains[u++] = mains[k];
    n_mains = u;
    for (size_t k = 0; k < c->n_host; k++)
        if ((c->host[k].mark & MARK_AUTOGRAD) && (!n_mains || !bsearch(&(int64_t){c->host[k].thread}, mains, n_mains, sizeof *mains, i64_order))) {
            if (PAT_GROW(bwds, cap, n_bwds) != 0)
                goto oom;
            bwds[n_bwds++] = c->host[k].thread;
        }
    if (n_bwds) {
        qsort(bwds, n_bwds, sizeof *bwds, i64_order);
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
        if (depth != (int32_t)depth) {
            rc = 2;
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
static int pat_steps(struct pat *c, struct pat_span **steps, size_t *n)
{
    sqlite3_stmt *st = report_prepare(c->db, "kernels_pattern_steps", c->io);
    if (!st)
        return -2;
    size_t cap = 0;
    void *pat_grown;
    int step, rc = 0;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t v[4];
        if (!pat_ints(st, 0, 4, v, NULL)) {
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

/* The names of the roots and their operations: each name id's text (NULL: no string row; SQL's join drops it). */
struct pat_strings {
    int64_t *id;
    char **text;
    size_t *len;
    size_t n;
};

static int pat_string(const struct pat_strings *s, int64_t id, const char **text, size_t *len)
{
    size_t k = pat_find(s->id, s->n, sizeof *s->id, id);
    if (k == s->n || !s->text[k])
        return 0;
    *text = s->text[k], *len = s->len[k];
    return 1;
}

/* Looks the texts of ids[0..n) up (distinct; sorted here). 0, 2 (a name not text), or -2 (printed). */
static int pat_strings_load(struct pat *c, struct pat_strings *s, int64_t *ids, size_t n)
{
    qsort(ids, n, sizeof *ids, i64_order);
    size_t u = n;
    s->id = ids, s->n = u;
    s->text = calloc(u ? u : 1, sizeof *s->text), s->len = calloc(u ? u : 1, sizeof *s->len);
    sqlite3_stmt *st = NULL;
    int rc = s->text && s->len ? 0 : -3;
    if (rc == 0 && sqlite3_prepare_v2(c->db, "SELECT value FROM main.string WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        rc = -1;
    for (size_t k = 0; rc == 0 && k < u; k++) {
        sqlite3_bind_int64(st, 1, ids[k]);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) {
            if (sqlite3_column_type(st, 0) != SQLITE_TEXT)
                rc = 2; /* SQL's || and group_concat treat a NULL, a number or a blob their own way */
            const unsigned char *t = sqlite3_column_text(st, 0);
            size_t len = (size_t)sqlite3_column_bytes(st, 0);
            if (rc == 0 && !(s->text[k] = malloc(len + 1)))
                rc = -3;
            if (rc == 0)
                memcpy(s->text[k], t ? (const char *)t : "", len), s->text[k][len] = 0, s->len[k] = len;
        } else if (step != SQLITE_DONE) {
            rc = -1;
        }
        sqlite3_reset(st);
    }
    if (rc == -1)
        fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
    if (rc == -3)
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
    sqlite3_finalize(st);
    return rc < 0 ? -2 : rc;
}

static void pat_strings_free(struct pat_strings *s)
{
    for (size_t k = 0; s->text && k < s->n; k++)
        free(s->text[k]);
    free(s->id), free(s->text), free(s->len);
}

/* A group of roots with one rank, root name and sequence of operation names (by id), then of one text. */
struct pat_group {
    int64_t count, gpu, cpu, kernels;
    size_t first_op, root; /* the first occurrence's: its operations begin at ops[first_op] */
};

/* Room for len bytes in a growing buffer. 0, or -1. */
static int pat_buf(char **b, size_t *cap, size_t len)
{
    if (len <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < len)
        nc *= 2;
    char *p = realloc(*b, nc);
    if (!p)
        return -1;
    *b = p, *cap = nc;
    return 0;
}

/* The pattern's text key of a group: its rank, then "root|op|op|...". Its length, or 0 when out of memory. */
static size_t pat_text(const struct pat_strings *s, const struct pat_root *root, const struct pat_op *ops, size_t n,
                       char **b, size_t *cap)
{
    const char *t = "";
    size_t len = sizeof root->rank, l = 0;
    pat_string(s, root->name_id, &t, &l); /* (a group's root has its name) */
    if (pat_buf(b, cap, len + l) != 0)
        return 0;
    memcpy(*b, &root->rank, sizeof root->rank), memcpy(*b + len, t, l), len += l;
    for (size_t k = 0; k < n; k++) {
        if (!pat_string(s, ops[k].name_id, &t, &l))
            continue;
        if (pat_buf(b, cap, len + 1 + l) != 0)
            return 0;
        (*b)[len++] = '|', memcpy(*b + len, t, l), len += l;
    }
    return len;
}

/* Group g's text key (pat_text of its first occurrence): its length, or 0 when out of memory. */
static size_t pat_group_text(const struct pat_strings *s, const struct pat_root *roots, const struct pat_op *ops, size_t n_ops,
                             const struct pat_group *g, char **b, size_t *cap)
{
    size_t end = g->first_op;
    while (end < n_ops && ops[end].root == g->root)
        end++;
    return pat_text(s, &roots[g->root], ops + g->first_op, end - g->first_op, b, cap);
}

/* Groups the roots' sequences and writes them into temp.pattern_stats. 0, 2, or -2 (printed). */
static int pat_group(struct pat *c, const struct pat_root *roots, size_t n_roots, struct pat_op *ops, size_t n_ops,
                     int64_t min_kernels)
{
    struct pat_strings s = {0};
    int64_t *ids = malloc((n_roots + n_ops + 1) * sizeof *ids);
    if (!ids) {
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        return -2;
    }
    /* the distinct names (few: a sort of every operation's cost a tenth of the report) */
    size_t n_ids = 0;
    struct strmap seen;
    strmap_init(&seen);
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n_ops; k++) {
        int64_t id[2] = {ops[k].name_id, roots[ops[k].root].name_id};
        for (int j = 0; j < 2; j++)
            if ((j == 0 || k == 0 || ops[k].root != ops[k - 1].root) && (n_ids == 0 || ids[n_ids - 1] != id[j]) &&
                strmap_get(&seen, &id[j], sizeof id[j]) < 0) {
                if (strmap_put(&seen, &id[j], sizeof id[j], 0) != 0)
                    rc = -3;
                ids[n_ids++] = id[j];
            }
    }
    strmap_free(&seen);
    if (rc != 0) {
        free(ids);
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        return -2;
    }
    rc = pat_strings_load(c, &s, ids, n_ids);
    struct sweep_index by_ids, by_text;
    sweep_index_init(&by_ids, sizeof(struct pat_group));
    sweep_index_init(&by_text, sizeof(struct pat_group));
    char *key_buf = NULL; /* (bytes, seen as the key's integers) */
    size_t key_cap = 0;
    char *text = NULL;
    size_t text_cap = 0;
    sqlite3_stmt *ins = NULL;
    /* by rank, root name and operation names' ids: most roots repeat a few sequences */
    for (size_t k = 0; rc == 0 && k < n_ops;) {
        size_t end = k, r = ops[k].root;
        while (end < n_ops && ops[end].root == r)
            end++;
        const char *t;
        size_t l, n = 0, len = 2;
        int64_t gpu = 0;
        for (size_t j = k; j < end; j++)
            if (pat_string(&s, ops[j].name_id, &t, &l))
                n++, gpu = tdb_sat_add(gpu, ops[j].dur);
        if (n > 0 && (int64_t)n >= min_kernels && pat_string(&s, roots[r].name_id, &t, &l)) {
            if (pat_buf(&key_buf, &key_cap, (2 + (end - k)) * sizeof(int64_t)) != 0) {
                rc = -3;
                break;
            }
            int64_t *key = (int64_t *)(void *)key_buf;
            key[0] = roots[r].rank, key[1] = roots[r].name_id;
            for (size_t j = k; j < end; j++)
                if (pat_string(&s, ops[j].name_id, &t, &l))
                    key[len++] = ops[j].name_id;
            int fresh;
            struct pat_group *g = sweep_index_get(&by_ids, key, len * sizeof *key, &fresh);
            if (!g) {
                rc = -3;
                break;
            }
            if (fresh)
                g->first_op = k, g->root = r, g->kernels = (int64_t)n;
            g->count++, g->gpu = tdb_sat_add(g->gpu, gpu), g->cpu = tdb_sat_add(g->cpu, roots[r].dur);
        }
        k = end;
    }
    /* by text: names holding '|' may make two sequences one pattern, as SQL's text does */
    for (size_t k = 0; rc == 0 && k < by_ids.n; k++) {
        const struct pat_group *g = sweep_index_at(&by_ids, k);
        size_t len = pat_group_text(&s, roots, ops, n_ops, g, &text, &text_cap);
        int fresh;
        struct pat_group *x = len ? sweep_index_get(&by_text, text, len, &fresh) : NULL;
        if (!x) {
            rc = -3;
            break;
        }
        g = sweep_index_at(&by_ids, k); /* (the other map's growth moves nothing of this one) */
        if (fresh)
            *x = (struct pat_group){0, 0, 0, g->kernels, g->first_op, g->root};
        x->count += g->count, x->gpu = tdb_sat_add(x->gpu, g->gpu), x->cpu = tdb_sat_add(x->cpu, g->cpu);
    }
    if (rc == 0 && sweep_table(c->db, "pattern_stats (rank, count, kernels, gpu_ns, cpu_ns, pattern)", 6, &ins, c->io) != 0)
        rc = -2;
    for (size_t k = 0; rc == 0 && k < by_text.n; k++) {
        const struct pat_group *g = sweep_index_at(&by_text, k);
        size_t len = pat_group_text(&s, roots, ops, n_ops, g, &text, &text_cap);
        if (!len) {
            rc = -3;
            break;
        }
        int64_t rank = roots[g->root].rank;
        if (rank == SWEEP_RANK_NULL)
            sqlite3_bind_null(ins, 1);
        else
            sqlite3_bind_int64(ins, 1, rank);
        sqlite3_bind_int64(ins, 2, g->count);
        sqlite3_bind_int64(ins, 3, g->kernels);
        sqlite3_bind_int64(ins, 4, g->gpu);
        sqlite3_bind_int64(ins, 5, g->cpu);
        sqlite3_bind_text(ins, 6, text + sizeof rank, (int)(len - sizeof rank), SQLITE_TRANSIENT);
        if (sqlite3_step(ins) != SQLITE_DONE) {
            fprintf(c->io->err, "%s: %s\n", c->io->prog, sqlite3_errmsg(c->db));
            rc = -2;
        }
        sqlite3_reset(ins);
    }
    if (rc == -3) {
        fprintf(c->io->err, "%s: out of memory\n", c->io->prog);
        rc = -2;
    }
    sqlite3_finalize(ins);
    free(key_buf), free(text);
    sweep_index_free(&by_ids), sweep_index_free(&by_text);
    pat_strings_free(&s);
    return rc;
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
    if (rc == 0) {
        int got = sweep_ranks_load(&c.ranks, db);
        rc = got == 1 ? 2 : got == 0 ? 0 : -2;
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
    return rc == 0 ? 0 : rc == 2 ? 2 : 1;
}

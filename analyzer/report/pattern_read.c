/* pattern_read.c: the rows of `tracedb kernels --patterns`'s pass (see pattern_sweep_internal.h): one
 * pass over the window's rows (queries/kernels_pattern_rows.sql), two halves of the ids read at once on
 * their own connections and threads, keeping the host calls whose name matters (candidates pruned where
 * their parent is one), the runtime and driver calls and the GPU work; a row anywhere in the table by id;
 * a track's rank; the names that matter. */
#include "pattern_sweep_internal.h"
#include "kinds.h"
#include "report.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static int pat_mark(const struct pat_name *v, size_t n, int64_t id)
{
    size_t k = pat_find(v, n, sizeof *v, id);
    return k < n ? v[k].mark : 0;
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
        if (!pat_ints(st, 0, 6, v, NULL, &p->refusal, 0)) {
            rc = 2;
            break;
        }
        int64_t id = v[0], kind = v[1], name = v[2], thread = v[3];
        int64_t start = tdb_time_held(v[4]), dur = tdb_dur_held(v[5]);
        if (kind == TDB_KIND_KERNEL || kind == TDB_KIND_MEMCPY || kind == TDB_KIND_MEMSET || kind == TDB_KIND_SYNC) {
            if (!pat_ints(st, 8, 2, v + 8, null + 8, &p->refusal, 0)) {
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
        if (!pat_ints(st, 6, 2, v + 6, null + 6, &p->refusal, 0)) {
            rc = 2;
            break;
        }
        /* a depth, track or name id past 32 bits, or no depth: none tracedb writes */
        int wide = null[6] || v[6] != (int32_t)v[6] ? 6 : thread != (int32_t)thread ? 3 : name != (int32_t)name ? 2 : -1;
        if (wide >= 0) {
            sweep_refusal_note(&p->refusal, st, wide, 0);
            p->refusal.what = null[6] ? "NULL where tracedb writes an integer" : "a value past 32 bits";
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

static int host_by_id(const void *a, const void *b)
{
    return cmp_i64(((const struct pat_host *)a)->id, ((const struct pat_host *)b)->id);
}

static int launch_by_id(const void *a, const void *b)
{
    return cmp_i64(((const struct pat_launch *)a)->id, ((const struct pat_launch *)b)->id);
}

/* The rank of a track (SWEEP_RANK_NULL: NULL), as queries/parts/rank_of_event.sql gives it. */
int64_t pat_rank(struct pat *c, int64_t thread)
{
    if (thread == c->rank_thread && thread >= 0)
        return c->rank_last; /* (rows of one track come together) */
    int64_t at = strmap_get(&c->ranks.map, &thread, sizeof thread);
    c->rank_thread = thread, c->rank_last = at < 0 ? SWEEP_RANK_NULL : c->ranks.rank.v[at];
    return c->rank_last;
}

/* The event with id anywhere in the table: its parent (PAT_NONE for NULL), track, start and end. 1; 0 when
 * there is none; 2 a value not an integer; -1 on error. */
int pat_row(struct pat *c, int64_t id, int64_t *parent, int64_t *thread, int64_t *start, int64_t *en)
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
        rc = pat_ints(st, 0, 4, v, null, &c->refusal, -1) ? 1 : 2;
        for (int i = 1; rc == 1 && i < 4; i++)
            if (null[i]) {
                sweep_refusal_note(&c->refusal, st, i, -1);
                c->refusal.what = "NULL where tracedb writes an integer";
                rc = 2;
            }
        if (rc == 2)
            c->refusal.id_of = "event", c->refusal.id = id;
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
int pat_read(struct pat *c)
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
        if (part[k].rc == 2 && !c->refusal.met)
            c->refusal = part[k].refusal; /* the lower ids' first */
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
int pat_names(struct pat *c, const char *name)
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

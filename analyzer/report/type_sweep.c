/* type_sweep.c: HTA's kernel type unions per rank (and device) in one pass over the GPU rows in any
 * order (queries/gpu_typed_rows.sql; each track's rank and each name's type looked up here, once each):
 * each group's intervals are kept and swept by type_union.c.
 * SQL's GROUP BY over the type_unions() aggregate sorted every row by its key first (a third of
 * `overlap` on 2 M events); here the groups are found by key as the rows come, in two halves of the
 * rows' ids at once (the upper on a second connection and thread), joined. A key that is neither
 * NULL nor an integer (a database tracedb did not write) is refused (sweep_refuse). */
#include "type_sweep.h"
#include "kinds.h"
#include "report.h"
#include "strmap.h"
#include "sweep_group.h"
#include "type_union.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_KEYS 2 /* rank, device */

struct type_group {
    int64_t key[TYPE_KEYS];
    int null[TYPE_KEYS];
    struct type_ends te;
};

/* Each track's rank (temp.scope_rank) and each GPU name's type (gpu_name_types.sql), read once: SQL
 * looked the rank up and joined the type on every GPU row (a fifth of the pass). */
struct row_keys {
    struct sweep_ranks ranks;
    struct strmap types; /* name id -> TU_* type */
};

/* 0; 1 when a rank is neither NULL nor an integer (sweep_ranks_check refused it before); -1 on error
 * (printed). */
static int keys_load(struct row_keys *k, sqlite3 *db, struct report_io *io)
{
    strmap_init(&k->types);
    int rc = sweep_ranks_load(&k->ranks, db), step;
    sqlite3_stmt *st = NULL;
    if (rc < 0)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    if (rc != 0 || !(st = report_prepare(db, "gpu_name_types", io)))
        return rc ? rc : -1;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        const char *t = (const char *)sqlite3_column_text(st, 1);
        if (sqlite3_column_type(st, 0) == SQLITE_INTEGER && t && strmap_get(&k->types, &id, sizeof id) < 0 &&
            strmap_put(&k->types, &id, sizeof id, type_union_of(t)) != 0)
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc < 0) /* a damaged database, say: said here, as every other error of the pass is */
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

static void keys_free(struct row_keys *k)
{
    sweep_ranks_free(&k->ranks), strmap_free(&k->types);
}

/* One reader of the rows: those of ids lo..hi on its connection, into its groups. */
struct type_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;          /* queries/gpu_typed_rows.sql for its ids */
    int by_device;
    struct sweep_index ix; /* struct type_group by key */
    struct report_io *io;
    int rc; /* 0; 1 when a key is neither NULL nor an integer (noted in refusal); -1 on error (printed) */
    struct sweep_refusal refusal;
};

/* Reads the part's rows into its groups. */
static void *read_groups(void *arg)
{
    struct type_part *p = arg;
    struct row_keys keys = {0};
    sqlite3_stmt *st = p->st;
    int rc = keys_load(&keys, p->db, p->io), step = SQLITE_DONE;
    if (rc != 0) { /* (an error printed where it was met) */
        keys_free(&keys);
        p->rc = rc;
        return NULL;
    }
    struct type_group *g = NULL, k = {{0}, {0}, {0}};
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t name = sqlite3_column_int64(st, 2), type = -1;
        if (sqlite3_column_type(st, 2) == SQLITE_INTEGER)
            type = strmap_get(&keys.types, &name, sizeof name);
        if (type < 0)
            continue; /* a name with no type: the join kept no row */
        int64_t key[TYPE_KEYS] = {0, 0};
        int null[TYPE_KEYS] = {0, 1}; /* no device key: NULL */
        sweep_rank_of(&keys.ranks, st, 1, &key[0], &null[0]);
        if (p->by_device && (rc = sweep_int_key(st, 0, 1, &key[1], &null[1], &p->refusal, 5)) != 0)
            break;
        /* the same group as the last row, usually; else found by key */
        if (!g || memcmp(g->key, key, sizeof key) != 0 || memcmp(g->null, null, sizeof null) != 0) {
            memcpy(k.key, key, sizeof key), memcpy(k.null, null, sizeof null);
            int fresh;
            if (!(g = sweep_index_get(&p->ix, &k, offsetof(struct type_group, te), &fresh))) {
                rc = -1;
                break;
            }
            if (fresh)
                memcpy(g, &k, offsetof(struct type_group, te));
        }
        if (sqlite3_column_type(st, 3) == SQLITE_NULL || sqlite3_column_type(st, 4) == SQLITE_NULL)
            g->te.rows[type]++;
        else if (type_ends_add(&g->te, (int)type, sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4)) != 0)
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc < 0)
        fprintf(p->io->err, "%s: %s\n", p->io->prog, sqlite3_errmsg(p->db));
    keys_free(&keys);
    p->rc = rc;
    return NULL;
}

/* The upper part's groups into the lower's (a group first met in the upper after every group of the
 * lower, as one pass makes them; the intervals in any order: they are sorted). 0, or -1 when out of memory. */
static int join_groups(struct sweep_index *a, struct sweep_index *b)
{
    for (size_t i = 0; i < b->n; i++) {
        struct type_group *y = sweep_index_at(b, i);
        int fresh;
        struct type_group *x = sweep_index_get(a, y, offsetof(struct type_group, te), &fresh);
        if (!x)
            return -1;
        if (fresh)
            *x = *y, y->te = (struct type_ends){0};
        else if (type_ends_join(&x->te, &y->te) != 0)
            return -1;
    }
    return 0;
}

/* Writes each group's row. 0 or -1. */
static int write_groups(struct sweep_index *ix, sqlite3_stmt *ins)
{
    for (size_t i = 0; i < ix->n; i++) {
        struct type_group *g = sweep_index_at(ix, i);
        int64_t len[TU_SETS];
        if (type_ends_lengths(&g->te, len) != 0)
            return -1;
        for (int k = 0; k < TYPE_KEYS; k++) {
            if (g->null[k])
                sqlite3_bind_null(ins, k + 1);
            else
                sqlite3_bind_int64(ins, k + 1, g->key[k]);
        }
        for (int k = 0; k < TU_SETS; k++)
            sqlite3_bind_int64(ins, TYPE_KEYS + 1 + k, len[k]);
        for (int k = 0; k < TU_TYPES; k++)
            sqlite3_bind_int64(ins, TYPE_KEYS + TU_SETS + 1 + k, g->te.rows[k]);
        int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
        sqlite3_reset(ins);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int type_sweep(sqlite3 *db, int by_device, struct report_io *io)
{
    sqlite3_stmt *ins;
    if (sweep_table(db, "type_stats (rank, device, a, b, c, ab, ac, bc, abc, other, n_a, n_b, n_c, n_other)", 14, &ins,
                    io) != 0) {
        sqlite3_finalize(ins);
        return 1;
    }
    if (sweep_ranks_check(db, io) != 0) {
        sqlite3_finalize(ins);
        return 1;
    }
    struct type_part part[2];
    for (int k = 0; k < 2; k++) {
        part[k] = (struct type_part){.by_device = by_device, .io = io};
        sweep_index_init(&part[k].ix, sizeof(struct type_group));
    }
    /* in two halves of the ids at once where they part (the upper on a second connection and thread):
     * reading the rows is SQLite's work and most of the pass */
    struct sweep_halves h;
    sweep_halves_open(&h, db, TDB_KIND_KERNEL, TDB_KIND_SYNC);
    sqlite3_stmt *st[2] = {NULL, NULL};
    int rc = sweep_halves_prepare(&h, "gpu_typed_rows", st, io);
    for (int k = 0; k < 2; k++)
        part[k].db = h.db[k], part[k].st = st[k];
    if (rc == 0) {
        sweep_halves_run(&h, read_groups, &part[0], &part[1]);
        rc = part[0].rc;
        if (h.n == 2 && (rc == 0 || (rc == 1 && part[1].rc < 0)))
            rc = part[1].rc;
    }
    if (rc == 1 && !sweep_refuse_first(&part[0].refusal, &part[1].refusal, io))
        sweep_refuse_rank(io); /* sweep_ranks_load's */
    if (rc == 0 && h.n == 2 && join_groups(&part[0].ix, &part[1].ix) != 0) {
        fprintf(io->err, "%s: out of memory\n", io->prog);
        rc = -1;
    }
    if (rc == 0 && write_groups(&part[0].ix, ins) != 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = -1;
    }
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < part[k].ix.n; i++)
            type_ends_free(&((struct type_group *)sweep_index_at(&part[k].ix, i))->te);
        sweep_index_free(&part[k].ix);
    }
    sqlite3_finalize(st[0]), sqlite3_finalize(st[1]);
    sweep_halves_close(&h);
    sqlite3_finalize(ins);
    return rc == 0 ? 0 : 1;
}

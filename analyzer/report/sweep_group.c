/* sweep_group.c: what the report passes share (see sweep_group.h). */
#include "sweep_group.h"
#include "report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sweep_table(sqlite3 *db, const char *columns, int n, sqlite3_stmt **ins, struct report_io *io)
{
    char sql[512], name[64];
    size_t len = strcspn(columns, " (");
    snprintf(name, sizeof name, "%.*s", (int)len, columns);
    int o = snprintf(sql, sizeof sql, "CREATE TEMP TABLE IF NOT EXISTS %s; DELETE FROM temp.%s", columns, name);
    *ins = NULL;
    if (o < 0 || (size_t)o >= sizeof sql || sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return 1;
    }
    o = snprintf(sql, sizeof sql, "INSERT INTO temp.%s VALUES (?1", name);
    for (int i = 2; i <= n && o > 0 && (size_t)o < sizeof sql; i++)
        o += snprintf(sql + o, sizeof sql - (size_t)o, ", ?%d", i);
    if (o > 0 && (size_t)o < sizeof sql - 1)
        sql[o++] = ')', sql[o] = 0;
    if (sqlite3_prepare_v2(db, sql, -1, ins, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return 1;
    }
    return 0;
}

/* Whether two values are equal as GROUP BY sees them (NULLs equal each other). */
static int same_value(sqlite3_value *a, sqlite3_value *b)
{
    int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
    if (ta != tb)
        return 0;
    if (ta == SQLITE_NULL)
        return 1;
    if (ta == SQLITE_INTEGER)
        return sqlite3_value_int64(a) == sqlite3_value_int64(b);
    if (ta == SQLITE_FLOAT)
        return sqlite3_value_double(a) == sqlite3_value_double(b);
    return sqlite3_value_bytes(a) == sqlite3_value_bytes(b) &&
           memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), (size_t)sqlite3_value_bytes(a)) == 0;
}

int sweep_group_same(const struct sweep_group *g, sqlite3_stmt *st)
{
    if (!g->open)
        return 0;
    for (int i = 0; i < g->n; i++)
        if (!same_value(g->key[i], sqlite3_column_value(st, i)))
            return 0;
    return 1;
}

int sweep_group_take(struct sweep_group *g, sqlite3_stmt *st)
{
    sweep_group_free(g);
    for (int i = 0; i < g->n; i++)
        if (!(g->key[i] = sqlite3_value_dup(sqlite3_column_value(st, i))))
            return -1;
    g->open = 1;
    return 0;
}

void sweep_group_bind(const struct sweep_group *g, sqlite3_stmt *ins)
{
    for (int i = 0; i < g->n; i++)
        sqlite3_bind_value(ins, i + 1, g->key[i]);
}

void sweep_group_free(struct sweep_group *g)
{
    for (int i = 0; i < SWEEP_KEYS; i++)
        sqlite3_value_free(g->key[i]), g->key[i] = NULL;
    g->open = 0;
}

void sweep_index_init(struct sweep_index *ix, size_t size)
{
    memset(ix, 0, sizeof *ix);
    strmap_init(&ix->map);
    ix->size = size;
}

void *sweep_index_get(struct sweep_index *ix, const void *key, size_t len, int *fresh)
{
    int64_t i = strmap_get(&ix->map, key, len);
    *fresh = i < 0;
    if (i >= 0)
        return ix->groups + (size_t)i * ix->size;
    if (ix->n == ix->cap) {
        size_t nc = ix->cap ? ix->cap * 2 : 64;
        char *ng = realloc(ix->groups, nc * ix->size);
        if (!ng)
            return NULL;
        ix->groups = ng, ix->cap = nc;
    }
    if (strmap_put(&ix->map, key, len, (int64_t)ix->n) != 0)
        return NULL;
    void *g = ix->groups + ix->n++ * ix->size;
    memset(g, 0, ix->size);
    return g;
}

void *sweep_index_at(const struct sweep_index *ix, size_t i)
{
    return ix->groups + i * ix->size;
}

void sweep_index_free(struct sweep_index *ix)
{
    strmap_free(&ix->map);
    free(ix->groups);
    ix->groups = NULL, ix->n = ix->cap = 0;
}

int sweep_int_key(sqlite3_stmt *st, int first, int n, int64_t *key, int *null)
{
    for (int i = 0; i < n; i++) {
        int t = sqlite3_column_type(st, first + i);
        if (t != SQLITE_NULL && t != SQLITE_INTEGER)
            return 1;
        null[i] = t == SQLITE_NULL;
        key[i] = null[i] ? 0 : sqlite3_column_int64(st, first + i);
    }
    return 0;
}

int sweep_ranks_load(struct sweep_ranks *r, sqlite3 *db)
{
    memset(r, 0, sizeof *r);
    strmap_init(&r->map);
    r->last_track = -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT thread_id, rank FROM temp.scope_rank", -1, &st, NULL) == SQLITE_OK ? 0 : -1, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int t = sqlite3_column_type(st, 1);
        int64_t id = sqlite3_column_int64(st, 0), x = sqlite3_column_int64(st, 1);
        if ((t != SQLITE_NULL && t != SQLITE_INTEGER) || x == SWEEP_RANK_NULL) {
            rc = 1;
            break;
        }
        if (sweep_values_add(&r->rank, t == SQLITE_NULL ? SWEEP_RANK_NULL : x) != 0 ||
            strmap_put(&r->map, &id, sizeof id, (int64_t)r->rank.n - 1) != 0)
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

void sweep_rank_of(struct sweep_ranks *r, sqlite3_stmt *st, int c, int64_t *rank, int *null)
{
    int64_t track = sqlite3_column_int64(st, c), x;
    if (sqlite3_column_type(st, c) != SQLITE_INTEGER) {
        x = SWEEP_RANK_NULL; /* (no track id of scope_rank equals it) */
    } else if (track == r->last_track && r->last_track >= 0) {
        x = r->last;
    } else {
        int64_t at = strmap_get(&r->map, &track, sizeof track);
        x = at < 0 ? SWEEP_RANK_NULL : r->rank.v[at];
        r->last_track = track, r->last = x;
    }
    *null = x == SWEEP_RANK_NULL;
    *rank = *null ? 0 : x;
}

void sweep_ranks_free(struct sweep_ranks *r)
{
    strmap_free(&r->map);
    free(r->rank.v);
    r->rank = (struct sweep_values){0};
}

void sweep_streams_init(struct sweep_streams *s, int keys, size_t size, int by_track)
{
    memset(s, 0, sizeof *s);
    s->keys = keys, s->size = size, s->by_track = by_track;
}

/* Room for one more row in the stream of st's key. NULL with *rc 1 when the key is neither NULL nor
 * integers, -1 when out of memory. */
static void *sweep_streams_add(struct sweep_streams *s, sqlite3_stmt *st, int *rc)
{
    int64_t key[SWEEP_KEYS] = {0};
    int null[SWEEP_KEYS] = {0};
    if (s->by_track) { /* column 0: the track, whose rank is the key */
        sweep_rank_of(&s->ranks, st, 0, &key[0], &null[0]);
        if ((*rc = sweep_int_key(st, 1, s->keys - 1, key + 1, null + 1)) != 0)
            return NULL;
    } else if ((*rc = sweep_int_key(st, 0, s->keys, key, null)) != 0) {
        return NULL;
    }
    *rc = -1;
    /* the same stream as the last row, usually; else a scan of the few streams */
    size_t k = s->last;
    if (!(k < s->n && memcmp(s->g[k].key, key, sizeof key) == 0 && memcmp(s->g[k].null, null, sizeof null) == 0))
        for (k = 0; k < s->n; k++)
            if (memcmp(s->g[k].key, key, sizeof key) == 0 && memcmp(s->g[k].null, null, sizeof null) == 0)
                break;
    if (k == s->n) {
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 16;
            struct sweep_stream *ng = realloc(s->g, nc * sizeof *ng);
            if (!ng)
                return NULL;
            s->g = ng, s->cap = nc;
        }
        s->g[s->n] = (struct sweep_stream){.rows = NULL};
        memcpy(s->g[s->n].key, key, sizeof key), memcpy(s->g[s->n].null, null, sizeof null);
        s->n++;
    }
    s->last = k;
    struct sweep_stream *g = &s->g[k];
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 1024;
        char *nr = realloc(g->rows, nc * s->size);
        if (!nr)
            return NULL;
        g->rows = nr, g->cap = nc;
    }
    *rc = 0;
    return g->rows + g->n++ * s->size;
}

int sweep_streams_read(sqlite3 *db, const char *query, struct sweep_streams *s, void (*fill)(void *row, sqlite3_stmt *st),
                       struct report_io *io)
{
    int rc = s->by_track ? sweep_ranks_load(&s->ranks, db) : 0, step;
    sqlite3_stmt *st = rc == 0 ? report_prepare(db, query, io) : NULL;
    if (!st)
        return rc ? rc : -1;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        void *row = sweep_streams_add(s, st, &rc);
        if (!row)
            break;
        fill(row, st);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

void sweep_streams_bind(const struct sweep_streams *s, const struct sweep_stream *g, sqlite3_stmt *ins)
{
    for (int i = 0; i < s->keys; i++) {
        if (g->null[i])
            sqlite3_bind_null(ins, i + 1);
        else
            sqlite3_bind_int64(ins, i + 1, g->key[i]);
    }
}

void sweep_streams_free(struct sweep_streams *s)
{
    for (size_t k = 0; k < s->n; k++)
        free(s->g[k].rows);
    free(s->g);
    s->g = NULL, s->n = s->cap = 0;
    sweep_ranks_free(&s->ranks);
}

int sweep_values_add(struct sweep_values *a, int64_t x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 64;
        int64_t *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        a->v = nv, a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

size_t sweep_key_add(unsigned char *key, size_t len, size_t cap, sqlite3_stmt *st, int c)
{
    int type = sqlite3_column_type(st, c);
    key[len++] = (unsigned char)type;
    if (type == SQLITE_INTEGER) {
        int64_t v = sqlite3_column_int64(st, c);
        memcpy(key + len, &v, sizeof v);
        return len + sizeof v;
    }
    if (type == SQLITE_NULL)
        return len;
    const unsigned char *t = sqlite3_column_text(st, c);
    size_t tl = (size_t)sqlite3_column_bytes(st, c);
    if (tl > (cap - len) / 2)
        tl = (cap - len) / 2; /* a longer key than any real one: its first bytes key it */
    memcpy(key + len, t ? t : (const unsigned char *)"", tl);
    key[len + tl] = 0;
    return len + tl + 1;
}

/* sweep_group.c: what the report passes share (see sweep_group.h). */
#include "sweep_group.h"
#include "report.h"
#include "scope.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table of at least this many ids is read in two halves at once. The second connection and finding
 * where to part cost ~7 ms: a loss at 151 k events (+7 ms of 51), a gain from ~300 k (2 M: `kernels
 * --group-by launch` 0.57 -> 0.37 s); the 151 k-event trace that tests the joins (tests/unit/test_reports.c)
 * is read in halves. */
#define SPLIT_IDS 131072
#define SAMPLES 64 /* ids looked at to find where to part it (a page read each) */

int sweep_split_ids(sqlite3 *db, int first, int last, int64_t *mid)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT min(id) FROM main.event), (SELECT max(id) FROM main.event)", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    int some = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER &&
               sqlite3_column_type(st, 1) == SQLITE_INTEGER;
    int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1), span;
    sqlite3_finalize(st);
    /* one statement, not a lookup each: each statement's read transaction takes and drops the file's lock */
    if (!some || __builtin_sub_overflow(hi, lo, &span) || span < SPLIT_IDS ||
        sqlite3_prepare_v2(db, "WITH RECURSIVE i(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM i WHERE k + 1 < ?4) "
                               "SELECT p FROM (SELECT ?1 + CAST(?2 * (2 * k + 1) / (2.0 * ?4) AS INTEGER) AS p FROM i) "
                               "WHERE (SELECT kind FROM main.event WHERE id >= p ORDER BY id LIMIT 1) BETWEEN ?3 AND ?5 "
                               "ORDER BY p",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, lo), sqlite3_bind_int64(st, 2, span), sqlite3_bind_int(st, 3, first);
    sqlite3_bind_int(st, 4, SAMPLES), sqlite3_bind_int(st, 5, last);
    int64_t at[SAMPLES];
    int n = 0;
    while (n < SAMPLES && sqlite3_step(st) == SQLITE_ROW)
        at[n++] = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (n == 0) /* few such rows, if any: one pass */
        return 0;
    *mid = at[n / 2] - 1;
    return 1;
}

void sweep_halves_open(struct sweep_halves *h, sqlite3 *db, int first, int last)
{
    int64_t mid = 0;
    *h = (struct sweep_halves){{db, NULL}, {INT64_MIN, INT64_MIN}, {INT64_MAX, INT64_MAX}, 1};
    if (sweep_split_ids(db, first, last, &mid) && (h->db[1] = scope_reopen(db)))
        h->hi[0] = mid, h->lo[1] = mid + 1, h->n = 2;
}

void sweep_halves_run(const struct sweep_halves *h, void *(*run)(void *), void *part0, void *part1)
{
    pthread_t thread;
    int threaded = h->n == 2 && pthread_create(&thread, NULL, run, part1) == 0;
    run(part0);
    if (threaded)
        pthread_join(thread, NULL);
    else if (h->n == 2)
        run(part1);
}

int sweep_halves_prepare(const struct sweep_halves *h, const char *query, sqlite3_stmt *st[2], struct report_io *io)
{
    for (int k = 0; k < h->n; k++) {
        if (!(st[k] = report_prepare(h->db[k], query, io)))
            return -1;
        report_bind_int(st[k], ":lo", h->lo[k]);
        report_bind_int(st[k], ":hi", h->hi[k]);
    }
    return 0;
}

void sweep_halves_close(struct sweep_halves *h)
{
    sqlite3_close(h->db[1]);
    h->db[1] = NULL;
}

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
    int n = sqlite3_value_bytes(a); /* an empty text or blob has no bytes to compare: NULL pointers */
    return n == sqlite3_value_bytes(b) && (n == 0 || memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), (size_t)n) == 0);
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

int sweep_refusal_note(struct sweep_refusal *r, sqlite3_stmt *st, int c, int id_col)
{
    const char *table = sqlite3_column_table_name(st, c), *column = sqlite3_column_origin_name(st, c);
    if (!table || !column)
        table = "", column = sqlite3_column_name(st, c);
    snprintf(r->table, sizeof r->table, "%s", table);
    snprintf(r->column, sizeof r->column, "%s", column ? column : "?");
    r->what = NULL;
    r->id_of = id_col >= 0 && sqlite3_column_type(st, id_col) == SQLITE_INTEGER ? "event" : NULL;
    r->id = r->id_of ? sqlite3_column_int64(st, id_col) : 0;
    r->met = 1;
    return 1;
}

int sweep_refusal_set(struct sweep_refusal *r, const char *table, const char *column, const char *what, const char *id_of,
                      int64_t id)
{
    snprintf(r->table, sizeof r->table, "%s", table);
    snprintf(r->column, sizeof r->column, "%s", column);
    r->what = what, r->id_of = id_of, r->id = id, r->met = 1;
    return 1;
}

int sweep_refuse(const struct sweep_refusal *r, struct report_io *io)
{
    char id[48] = "";
    if (r->id_of)
        snprintf(id, sizeof id, " (%s id %lld)", r->id_of, (long long)r->id);
    fprintf(io->err, "%s: %s%s%s holds %s%s: not a database tracedb wrote\n", io->prog, r->table, *r->table ? "." : "",
            r->column, r->what ? r->what : "a non-integer value", id);
    return 1;
}

int sweep_refuse_first(const struct sweep_refusal *a, const struct sweep_refusal *b, struct report_io *io)
{
    return a->met ? sweep_refuse(a, io) : b->met ? sweep_refuse(b, io) : 0;
}

int sweep_ranks_check(sqlite3 *db, struct report_io *io)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id, typeof(rank) = 'integer' FROM main.trace "
                               "WHERE rank IS NOT NULL AND (typeof(rank) <> 'integer' OR rank = ?1) ORDER BY id LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, SWEEP_RANK_NULL); /* the pass's mark for NULL: no rank tracedb writes */
    int step = sqlite3_step(st);
    struct sweep_refusal r = {.met = 0};
    sweep_refusal_set(&r, "trace", "rank", sqlite3_column_int(st, 1) ? "a value tracedb never writes" : NULL,
                      "trace", sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    if (step == SQLITE_ROW)
        return sweep_refuse(&r, io);
    if (step != SQLITE_DONE) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    return 0;
}

int sweep_refuse_rank(struct report_io *io)
{
    struct sweep_refusal r = {.met = 0};
    sweep_refusal_set(&r, "trace", "rank", NULL, NULL, 0);
    return sweep_refuse(&r, io);
}

int sweep_int_key(sqlite3_stmt *st, int first, int n, int64_t *key, int *null, struct sweep_refusal *r, int id_col)
{
    for (int i = 0; i < n; i++) {
        sqlite3_value *v = sqlite3_column_value(st, first + i); /* one column call for type and value */
        int t = sqlite3_value_type(v);
        if (t != SQLITE_NULL && t != SQLITE_INTEGER)
            return sweep_refusal_note(r, st, first + i, id_col);
        null[i] = t == SQLITE_NULL;
        key[i] = null[i] ? 0 : sqlite3_value_int64(v);
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
    sqlite3_value *v = sqlite3_column_value(st, c);
    int64_t track = sqlite3_value_int64(v), x;
    if (sqlite3_value_type(v) != SQLITE_INTEGER) {
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

/* Whether stream g has this key. */
static int stream_is(const struct sweep_stream *g, const int64_t key[SWEEP_KEYS], const int null[SWEEP_KEYS])
{
    return memcmp(g->key, key, sizeof g->key) == 0 && memcmp(g->null, null, sizeof g->null) == 0;
}

/* The index of the stream of this key, or s->n when there is none. */
static size_t stream_find(const struct sweep_streams *s, const int64_t key[SWEEP_KEYS], const int null[SWEEP_KEYS])
{
    size_t k = 0;
    while (k < s->n && !stream_is(&s->g[k], key, null))
        k++;
    return k;
}

/* A new, empty stream of this key at the end of s; NULL when out of memory. */
static struct sweep_stream *stream_new(struct sweep_streams *s, const int64_t key[SWEEP_KEYS], const int null[SWEEP_KEYS])
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        struct sweep_stream *ng = realloc(s->g, nc * sizeof *ng);
        if (!ng)
            return NULL;
        s->g = ng, s->cap = nc;
    }
    struct sweep_stream *g = &s->g[s->n++];
    *g = (struct sweep_stream){.rows = NULL};
    memcpy(g->key, key, sizeof g->key), memcpy(g->null, null, sizeof g->null);
    return g;
}

/* Room for one more row in the stream of st's key. NULL with *rc 1 when the key is neither NULL nor
 * integers, -1 when out of memory. */
static void *sweep_streams_add(struct sweep_streams *s, sqlite3_stmt *st, int *rc)
{
    int64_t key[SWEEP_KEYS] = {0};
    int null[SWEEP_KEYS] = {0};
    if (s->by_track) { /* column 0: the track, whose rank is the key */
        sweep_rank_of(&s->ranks, st, 0, &key[0], &null[0]);
        if ((*rc = sweep_int_key(st, 1, s->keys - 1, key + 1, null + 1, &s->refusal, s->id_col)) != 0)
            return NULL;
    } else if ((*rc = sweep_int_key(st, 0, s->keys, key, null, &s->refusal, s->id_col)) != 0) {
        return NULL;
    }
    *rc = -1;
    /* the same stream as the last row, usually; else a scan of the few streams */
    size_t k = s->last < s->n && stream_is(&s->g[s->last], key, null) ? s->last : stream_find(s, key, null);
    if (k == s->n && !stream_new(s, key, null))
        return NULL;
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

/* One reader of sweep_streams_read: the rows of ids lo..hi on its connection, into its streams. */
struct streams_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    struct sweep_streams *s;
    void (*fill)(void *row, sqlite3_stmt *st);
    int rc;
};

static void *streams_part_run(void *arg)
{
    struct streams_part *p = arg;
    int rc = p->s->by_track ? sweep_ranks_load(&p->s->ranks, p->db) : 0, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(p->st)) == SQLITE_ROW) {
        void *row = sweep_streams_add(p->s, p->st, &rc);
        if (!row)
            break;
        p->fill(row, p->st);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    p->rc = rc;
    return NULL;
}

/* The upper part's streams after the lower's: each stream's rows in table order, a stream first met in
 * the upper part after every stream of the lower, as one pass makes them. 0, or -1 when out of memory. */
static int streams_join(struct sweep_streams *a, struct sweep_streams *b)
{
    for (size_t j = 0; j < b->n; j++) {
        struct sweep_stream *y = &b->g[j], *g;
        size_t k = stream_find(a, y->key, y->null);
        if (k == a->n) {
            if (!(g = stream_new(a, y->key, y->null)))
                return -1;
            *g = *y, *y = (struct sweep_stream){.rows = NULL};
            continue;
        }
        struct sweep_stream *x = &a->g[k];
        if (x->n + y->n > x->cap) {
            char *nr = realloc(x->rows, (x->n + y->n) * a->size);
            if (!nr)
                return -1;
            x->rows = nr, x->cap = x->n + y->n;
        }
        memcpy(x->rows + x->n * a->size, y->rows, y->n * a->size);
        x->n += y->n;
    }
    return 0;
}

int sweep_streams_read(sqlite3 *db, const char *query, int first_kind, int last_kind, struct sweep_streams *s,
                       void (*fill)(void *row, sqlite3_stmt *st), int id_col, struct report_io *io)
{
    if (s->by_track && sweep_ranks_check(db, io) != 0)
        return 1; /* (said) */
    struct sweep_streams upper;
    sweep_streams_init(&upper, s->keys, s->size, s->by_track);
    s->id_col = upper.id_col = id_col;
    struct sweep_halves h;
    sweep_halves_open(&h, db, first_kind, last_kind);
    struct streams_part part[2] = {{.db = db, .s = s, .fill = fill}, {.db = h.db[1], .s = &upper, .fill = fill}};
    sqlite3_stmt *st[2] = {NULL, NULL};
    int rc = sweep_halves_prepare(&h, query, st, io);
    part[0].st = st[0], part[1].st = st[1];
    if (rc == 0)
        sweep_halves_run(&h, streams_part_run, &part[0], &part[1]);
    for (int k = 0; rc == 0 && k < h.n; k++)
        if (part[k].rc != 0)
            rc = part[k].rc; /* 1 (a value tracedb never writes) or -1 */
    if (rc == 1 && !sweep_refuse_first(&s->refusal, &upper.refusal, io))
        sweep_refuse_rank(io); /* sweep_ranks_load's */
    if (rc == -1 && h.n == 2 && part[1].rc == -1 && part[0].rc == 0) /* the caller prints db's error: say db2's */
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(h.db[1]));
    if (rc == 0 && h.n == 2 && streams_join(s, &upper) != 0)
        rc = -1;
    sqlite3_finalize(part[0].st);
    sqlite3_finalize(part[1].st);
    sweep_streams_free(&upper);
    sweep_halves_close(&h);
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

int sweep_values_join(struct sweep_values *a, const struct sweep_values *b)
{
    if (b->n > a->cap - a->n) {
        size_t nc = a->n + b->n;
        int64_t *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        a->v = nv, a->cap = nc;
    }
    if (b->n)
        memcpy(a->v + a->n, b->v, b->n * sizeof *b->v);
    a->n += b->n;
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

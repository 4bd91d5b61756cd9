/* op_stacks.c: the Python stack above each event (see op_stacks.h). queries/ops_events.sql walked up from
 * every operator to the top of its thread, a join at each step: the depth each time, O(N^2) on N nested
 * operators (10,000: 55 s). Here one scan of the events reads each one's parent, depth, kind and name;
 * what an event's chain up holds (the nearest Python frame on it, or none, or a name that is no string)
 * is found once, from its parent's; a Python frame's stack (the innermost --stack-depth frames from it
 * up) is interned by its name ids, and each distinct stack's text is made once. O(N + P min(K, D)) for N
 * events and P Python frames nested D deep, K the --stack-depth. */
#include "op_stacks.h"
#include "bigmem.h"
#include "jsonbuf.h"
#include "kinds.h"
#include "strmap.h"
#include <stdlib.h>
#include <string.h>

/* An event's flags, as the scan reads it. */
enum { D_NULL, D_INT, D_REAL, D_TEXT, D_BLOB }; /* its depth's type: numbers, then text, then blobs (SQL's order) */
#define F_DEPTH 7
#define F_PYTHON 8
#define F_NAMED 16  /* its name_id is a string's id (the walk joined each event to its name) */
#define F_PARENT 32 /* its parent_id is an integer (else NULL, or a value no id equals) */

/* What an event's chain up holds: the nearest Python frame on it (its index), or one of these. */
enum { R_UNSET = INT32_MIN, R_NULL = -2 /* a name that is no string: no stack */, R_NONE = -1 /* no frame */ };

struct ids { /* ids in order, without repeats */
    int64_t lo;
    int64_t *v; /* NULL when they run lo, lo + 1, ... without a gap */
    size_t n;
};

struct op_stacks {
    struct ids ids; /* the events' */
    int32_t *stack; /* by event index: the stack of an event whose parent it is */
    char **text;    /* by stack id (NULL: SQL's NULL) */
    size_t ntext, cap_text;
};

/* What the scan keeps of each event until the stacks are made. */
struct scan {
    int64_t *id, *parent, *depth, *name; /* depth: an integer, or a real's bits */
    uint8_t *flags;
    size_t n, cap;
};

/* What the stacks' interning keeps. */
struct interning {
    struct strmap keys;  /* a stack's name ids -> its id */
    struct strmap names; /* a name id -> its index in text */
    char **text;         /* a name's text (NULL: SQL's NULL) */
    size_t ntext, cap;
    sqlite3_stmt *name_of;
    struct buf acc;
};

static int64_t ids_index(const struct ids *x, int64_t id)
{
    if (!x->v) {
        uint64_t k = (uint64_t)id - (uint64_t)x->lo; /* (wraps: no overflow) */
        return k < x->n ? (int64_t)k : -1;
    }
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (x->v[m] < id)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < x->n && x->v[lo] == id ? (int64_t)lo : -1;
}

/* The list dropped when the ids run without a gap (every database tracedb makes). */
static void ids_settle(struct ids *x)
{
    x->lo = x->n ? x->v[0] : 0;
    if (!x->n || (uint64_t)x->v[x->n - 1] - (uint64_t)x->v[0] == x->n - 1) {
        free(x->v);
        x->v = NULL;
    }
}

/* Appends id unless it repeats the last. 0, or -1 when out of memory. */
static int ids_add(struct ids *x, size_t *cap, int64_t id)
{
    if (x->n && x->v[x->n - 1] == id)
        return 0;
    if (x->n == *cap) {
        size_t c = *cap ? 2 * *cap : 4096;
        int64_t *v = tdb_big_realloc(x->v, c * sizeof *v);
        if (!v)
            return -1;
        x->v = v, *cap = c;
    }
    x->v[x->n++] = id;
    return 0;
}

/* The strings' ids (integers only: no other value is an event's name_id). 0, or -1. */
static int read_string_ids(sqlite3 *db, struct ids *x)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT id FROM main.string ORDER BY id", -1, &st, NULL) != SQLITE_OK)
        return -1;
    size_t cap = 0;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
            rc = ids_add(x, &cap, sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    ids_settle(x);
    return rc;
}

/* Room for cap events. 0, or -1 when out of memory. */
static int scan_grow(struct scan *s, size_t cap)
{
    int64_t **cols[] = {&s->id, &s->parent, &s->depth, &s->name};
    for (int i = 0; i < 4; i++) {
        int64_t *v = tdb_big_realloc(*cols[i], cap * sizeof *v);
        if (!v)
            return -1;
        *cols[i] = v;
    }
    uint8_t *f = tdb_big_realloc(s->flags, cap);
    if (!f)
        return -1;
    s->flags = f, s->cap = cap;
    return 0;
}

/* Every event with an integer id, in id order (a repeated id: its first row), into arrays sized by the
 * ids' span when it is not far more (growing them copies and faults in every page again). 0, or -1. */
static int scan_events(sqlite3 *db, const struct ids *strings, struct scan *s)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT max(id) - min(id) FROM main.event", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int64_t span = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    if (span >= 0 && span < (1 << 26) && scan_grow(s, (size_t)span + 1) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, "SELECT id, parent_id, depth, kind, name_id FROM main.event ORDER BY id", -1, &st, NULL) !=
        SQLITE_OK)
        return -1;
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_value *v[5]; /* one column call each for its type and value (its type first: a value converted
                              * leaves its type undefined) */
        int t[5];
        for (int c = 0; c < 5; c++)
            v[c] = sqlite3_column_value(st, c), t[c] = sqlite3_value_type(v[c]);
        int64_t id = sqlite3_value_int64(v[0]);
        if (t[0] != SQLITE_INTEGER || (s->n && s->id[s->n - 1] == id))
            continue;
        if (s->n == s->cap && (rc = scan_grow(s, s->cap ? 2 * s->cap : 4096)) != 0)
            break;
        size_t i = s->n++;
        s->id[i] = id;
        s->parent[i] = sqlite3_value_int64(v[1]);
        s->depth[i] = sqlite3_value_int64(v[2]);
        if (t[2] == SQLITE_FLOAT) {
            double d = sqlite3_value_double(v[2]);
            memcpy(&s->depth[i], &d, sizeof d);
        }
        uint8_t f = t[2] == SQLITE_INTEGER ? D_INT : t[2] == SQLITE_FLOAT ? D_REAL : t[2] == SQLITE_TEXT ? D_TEXT
                    : t[2] == SQLITE_BLOB ? D_BLOB : D_NULL;
        if (t[1] == SQLITE_INTEGER)
            f |= F_PARENT;
        if (t[3] == SQLITE_INTEGER && sqlite3_value_int64(v[3]) == TDB_KIND_PYTHON)
            f |= F_PYTHON, s->name[i] = sqlite3_value_int64(v[4]); /* (only a frame's is read again: the other
                                                                     * names' pages are never touched) */
        if (t[4] == SQLITE_INTEGER && ids_index(strings, sqlite3_value_int64(v[4])) >= 0)
            f |= F_NAMED;
        s->flags[i] = f;
    }
    sqlite3_finalize(st);
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

/* Whether depth a < depth b as SQL compares them (NULL: never; two texts or two blobs, which no database
 * tracedb makes holds, are taken as equal). */
static int depth_less(uint8_t fa, int64_t a, uint8_t fb, int64_t b)
{
    int ca = fa & F_DEPTH, cb = fb & F_DEPTH;
    if (ca == D_NULL || cb == D_NULL)
        return 0;
    if (ca == D_INT && cb == D_INT)
        return a < b;
    if (ca <= D_REAL && cb <= D_REAL) {
        double x, y;
        memcpy(&x, &a, sizeof x), memcpy(&y, &b, sizeof y);
        return (ca == D_INT ? (long double)a : (long double)x) < (cb == D_INT ? (long double)b : (long double)y);
    }
    return (ca <= D_REAL ? D_REAL : ca) < (cb <= D_REAL ? D_REAL : cb);
}

/* A name's text, looked up once per name id. 0, or -1. */
static int name_text(struct interning *in, int64_t id, const char **text)
{
    int64_t i = strmap_get(&in->names, &id, sizeof id);
    if (i >= 0) {
        *text = in->text[i];
        return 0;
    }
    if (in->ntext == in->cap) {
        size_t c = in->cap ? 2 * in->cap : 256;
        char **v = realloc(in->text, c * sizeof *v);
        if (!v)
            return -1;
        in->text = v, in->cap = c;
    }
    sqlite3_bind_int64(in->name_of, 1, id);
    int step = sqlite3_step(in->name_of), null = step != SQLITE_ROW || sqlite3_column_type(in->name_of, 0) == SQLITE_NULL;
    const char *v = null ? NULL : (const char *)sqlite3_column_text(in->name_of, 0);
    char *t = null ? NULL : strdup(v ? v : "");
    sqlite3_reset(in->name_of);
    if ((step != SQLITE_ROW && step != SQLITE_DONE) || (!null && !t) ||
        strmap_put(&in->names, &id, sizeof id, (int64_t)in->ntext) != 0) {
        free(t);
        return -1;
    }
    in->text[in->ntext++] = t;
    *text = t;
    return 0;
}

/* The id of the stack of names key[0..k) (innermost first), its text made when it is new: the names joined
 * by "; " as the walk joined them (no separator while the text is empty; a NULL name: a NULL stack). -1
 * on error. */
static int64_t intern(struct op_stacks *s, struct interning *in, const int64_t *key, size_t k)
{
    int64_t id = strmap_get(&in->keys, key, k * sizeof *key);
    if (id >= 0)
        return id;
    in->acc.n = 0;
    int null = 0;
    for (size_t j = 0; j < k && !null; j++) {
        const char *t;
        if (name_text(in, key[j], &t) != 0)
            return -1;
        if (!t)
            null = 1;
        else if ((in->acc.n && buf_add(&in->acc, "; ", 2) != 0) || buf_add(&in->acc, t, strlen(t)) != 0)
            return -1;
    }
    if (s->ntext == s->cap_text) {
        size_t c = s->cap_text ? 2 * s->cap_text : 256;
        char **v = realloc(s->text, c * sizeof *v);
        if (!v)
            return -1;
        s->text = v, s->cap_text = c;
    }
    char *t = null ? NULL : malloc(in->acc.n + 1);
    if ((!null && !t) || s->ntext >= INT32_MAX || strmap_put(&in->keys, key, k * sizeof *key, (int64_t)s->ntext) != 0) {
        free(t);
        return -1;
    }
    if (t) {
        if (in->acc.n)
            memcpy(t, in->acc.p, in->acc.n);
        t[in->acc.n] = 0;
    }
    s->text[s->ntext] = t;
    return (int64_t)s->ntext++;
}

/* Each event's stack into s->stack: what its chain holds (res), found once each, bottom-up from the top
 * of the chain (its parent while the depth falls: no loop, however the parents run), then each Python
 * frame's stack interned. 0, or -1. */
static int make_stacks(struct op_stacks *s, const struct scan *e, int64_t depth, struct interning *in)
{
    size_t n = s->ids.n, kmax = depth <= 0 ? 0 : (uint64_t)depth < n ? (size_t)depth : n;
    int32_t *next = tdb_big_malloc(n * sizeof *next + 1), *res = tdb_big_malloc(n * sizeof *res + 1),
            *path = tdb_big_malloc(n * sizeof *path + 1);
    int64_t *key = malloc(kmax * sizeof *key + 1);
    int rc = next && res && path && key && intern(s, in, key, 0) == OP_STACK_EMPTY ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int64_t j = e->flags[i] & F_PARENT ? ids_index(&s->ids, e->parent[i]) : -1;
        next[i] = j >= 0 && depth_less(e->flags[j], e->depth[j], e->flags[i], e->depth[i]) ? (int32_t)j : -1;
        res[i] = R_UNSET;
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t top = 0;
        int32_t x = (int32_t)i, r;
        for (; x >= 0 && res[x] == R_UNSET && top < n; x = next[x])
            path[top++] = x;
        for (r = x >= 0 ? res[x] : R_NONE; top > 0;) {
            int32_t y = path[--top];
            r = !(e->flags[y] & F_NAMED) || r == R_NULL ? R_NULL : e->flags[y] & F_PYTHON ? y : r;
            res[y] = r;
        }
    }
    for (size_t f = 0; rc == 0 && f < n; f++) { /* each Python frame's: its own name and the next frames' up */
        if (res[f] != (int32_t)f)
            continue;
        size_t k = 0;
        for (int32_t x = (int32_t)f; x >= 0 && k < kmax; x = next[x] >= 0 ? res[next[x]] : R_NONE)
            key[k++] = e->name[x];
        int64_t id = intern(s, in, key, k);
        if (id < 0)
            rc = -1;
        s->stack[f] = (int32_t)id;
    }
    for (size_t i = 0; rc == 0 && i < n; i++)
        s->stack[i] = res[i] == R_NULL ? OP_STACK_NULL : res[i] == R_NONE ? OP_STACK_EMPTY : s->stack[res[i]];
    free(next), free(res), free(path), free(key);
    return rc;
}

struct op_stacks *op_stacks_build(sqlite3 *db, int64_t depth)
{
    struct op_stacks *s = calloc(1, sizeof *s);
    struct ids strings = {0};
    struct scan e = {0};
    struct interning in = {0};
    strmap_init(&in.keys), strmap_init(&in.names);
    int rc = s && read_string_ids(db, &strings) == 0 && scan_events(db, &strings, &e) == 0 ? 0 : -1;
    if (rc == 0 && e.n > INT32_MAX - 1)
        rc = -1;
    if (rc == 0) {
        s->ids = (struct ids){0, e.id, e.n}, e.id = NULL;
        ids_settle(&s->ids);
        if (!(s->stack = tdb_big_malloc(e.n * sizeof *s->stack + 1)) ||
            sqlite3_prepare_v2(db, "SELECT value FROM main.string WHERE id = ?1", -1, &in.name_of, NULL) != SQLITE_OK)
            rc = -1;
    }
    if (rc == 0)
        rc = make_stacks(s, &e, depth, &in);
    sqlite3_finalize(in.name_of);
    for (size_t i = 0; i < in.ntext; i++)
        free(in.text[i]);
    free(in.text);
    buf_free(&in.acc);
    strmap_free(&in.keys), strmap_free(&in.names);
    free(strings.v);
    free(e.id), free(e.parent), free(e.depth), free(e.name), free(e.flags);
    if (rc != 0) {
        op_stacks_free(s);
        return NULL;
    }
    return s;
}

int32_t op_stacks_of(const struct op_stacks *s, sqlite3_value *parent)
{
    int t = sqlite3_value_type(parent);
    if (t == SQLITE_NULL)
        return OP_STACK_EMPTY;
    int64_t i = t == SQLITE_INTEGER ? ids_index(&s->ids, sqlite3_value_int64(parent)) : -1;
    return i < 0 ? OP_STACK_NULL : s->stack[i];
}

const char *op_stacks_text(const struct op_stacks *s, int32_t id)
{
    return id >= 0 && (size_t)id < s->ntext ? s->text[id] : NULL;
}

void op_stacks_free(struct op_stacks *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ntext; i++)
        free(s->text[i]);
    free(s->text);
    free(s->stack);
    free(s->ids.v);
    free(s);
}

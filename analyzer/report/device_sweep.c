/* device_sweep.c: `tracedb device`'s pass (see device_sweep.h). The SQL it replaces made a temp table
 * of every GPU row, indexed it, and ran interval_union over each step's rows: 0.7-0.8 s on 2 M events.
 * Here each device's rows (all of them, and the computation ones) are sorted once and merged into
 * disjoint intervals with running sums; a window's busy (run) time is then the merged length inside it,
 * found by binary search: the same figure as interval_union of the rows clipped to the window, since
 * clipping and merging commute. A device key of any type (a foreign database's text) is kept as SQL
 * gave it. The rows come bare (queries/device_rows.sql): each track's trace and each name's class are
 * looked up here, once each (device_tracks.sql, device_class.sql). */
#include "device_sweep.h"
#include "report.h"
#include "strmap.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdlib.h>
#include <string.h>

struct interval {
    int64_t s, e;
};

/* A set of intervals, then (merged) disjoint in order with before[i] = the length of those before i. */
struct cover {
    struct interval *v;
    int64_t *before;
    size_t n, cap;
};

struct device_group {
    int64_t trace;
    sqlite3_value *device;
    int64_t first, last; /* the earliest start, the latest end */
    struct cover all, run;
};

static int cover_add(struct cover *c, int64_t s, int64_t e)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        struct interval *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v, c->cap = cap;
    }
    c->v[c->n++] = (struct interval){s, e};
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct interval *x = a, *y = b;
    return (x->s > y->s) - (x->s < y->s);
}

/* Sorts and merges (touching intervals join, as interval_union's do); fills the running sums. */
static int cover_merge(struct cover *c)
{
    size_t i = 1;
    while (i < c->n && c->v[i - 1].s <= c->v[i].s) /* a device's work mostly comes in order already */
        i++;
    if (i < c->n)
        qsort(c->v, c->n, sizeof *c->v, by_start);
    size_t m = 0;
    for (i = 0; i < c->n; i++) {
        if (m && c->v[i].s <= c->v[m - 1].e) {
            if (c->v[i].e > c->v[m - 1].e)
                c->v[m - 1].e = c->v[i].e;
        } else {
            c->v[m++] = c->v[i];
        }
    }
    c->n = m;
    if (!(c->before = malloc((m + 1) * sizeof *c->before)))
        return -1;
    c->before[0] = 0;
    for (i = 0; i < m; i++)
        c->before[i + 1] = c->before[i] + (c->v[i].e - c->v[i].s);
    return 0;
}

/* The merged length inside [ws, we). */
static int64_t cover_within(const struct cover *c, int64_t ws, int64_t we)
{
    if (we <= ws || c->n == 0)
        return 0;
    size_t lo = 0, hi = c->n; /* the first interval ending after ws */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->v[mid].e <= ws)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t a = lo;
    lo = a, hi = c->n; /* the first interval starting at or after we */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->v[mid].s < we)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t b = lo;
    if (b <= a)
        return 0;
    int64_t total = c->before[b] - c->before[a];
    if (c->v[a].s < ws)
        total -= ws - c->v[a].s;
    if (c->v[b - 1].e > we)
        total -= c->v[b - 1].e - we;
    return total;
}

/* Each track's trace and each GPU name's class, looked up once. */
struct row_facts {
    struct strmap tracks;      /* track id -> index in trace */
    struct sweep_values trace;
    struct strmap classes; /* (kind, name id) -> 1 computation, 0 not, 2 no such name */
    sqlite3_stmt *cls;
};

/* Loads the tracks' traces and prepares the class lookup. 0, or -1. */
static int facts_load(struct row_facts *f, sqlite3 *db, struct report_io *io)
{
    strmap_init(&f->tracks), strmap_init(&f->classes);
    sqlite3_stmt *st = report_prepare(db, "device_tracks", io);
    if (!st || !(f->cls = report_prepare(db, "device_class", io))) {
        sqlite3_finalize(st);
        return -1;
    }
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (strmap_get(&f->tracks, &id, sizeof id) < 0 &&
            (sweep_values_add(&f->trace, sqlite3_column_int64(st, 1)) != 0 ||
             strmap_put(&f->tracks, &id, sizeof id, (int64_t)f->trace.n - 1) != 0))
            rc = -1;
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

/* The class of (kind, name_id): 1 computation, 0 other GPU work, 2 no such name; -1 on error. */
static int facts_class(struct row_facts *f, int64_t kind, int64_t name_id)
{
    int64_t key[2] = {kind, name_id};
    int64_t c = strmap_get(&f->classes, key, sizeof key);
    if (c >= 0)
        return (int)c;
    report_bind_int(f->cls, ":kind", kind);
    report_bind_int(f->cls, ":name_id", name_id);
    int step = sqlite3_step(f->cls);
    c = step == SQLITE_ROW ? sqlite3_column_int(f->cls, 0) != 0 : 2;
    sqlite3_reset(f->cls);
    if ((step != SQLITE_ROW && step != SQLITE_DONE) || strmap_put(&f->classes, key, sizeof key, c) != 0)
        return -1;
    return (int)c;
}

static void facts_free(struct row_facts *f)
{
    strmap_free(&f->tracks), strmap_free(&f->classes);
    free(f->trace.v);
    sqlite3_finalize(f->cls);
}

static int write_row(sqlite3_stmt *ins, const struct device_group *g, const unsigned char *step, int64_t ws, int64_t we)
{
    sqlite3_bind_int64(ins, 1, g->trace);
    if (step)
        sqlite3_bind_text(ins, 2, (const char *)step, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(ins, 2);
    sqlite3_bind_value(ins, 3, g->device);
    sqlite3_bind_int64(ins, 4, ws);
    sqlite3_bind_int64(ins, 5, we - ws);
    sqlite3_bind_int64(ins, 6, cover_within(&g->all, ws, we));
    sqlite3_bind_int64(ins, 7, cover_within(&g->run, ws, we));
    int rc = sqlite3_step(ins) == SQLITE_DONE ? 0 : -1;
    sqlite3_reset(ins);
    return rc;
}

int device_sweep(sqlite3 *db, const char *steps, struct report_io *io)
{
    sqlite3_stmt *ins = NULL, *rows = NULL, *wins = NULL;
    struct sweep_index groups;
    sweep_index_init(&groups, sizeof(struct device_group));
    struct row_facts facts = {0};
    int rc = -1, step;
    if (sweep_table(db, "device_agg (trace_id, step, device, ws, span_ns, busy_ns, run_ns)", 7, &ins, io) != 0 ||
        !(rows = report_prepare(db, "device_rows", io)) || !(wins = report_prepare(db, "device_steps", io)) ||
        facts_load(&facts, db, io) != 0) {
        facts_free(&facts);
        sweep_index_free(&groups);
        sqlite3_finalize(ins), sqlite3_finalize(rows), sqlite3_finalize(wins);
        return 1;
    }
    unsigned char key[256], last_key[256];
    size_t last_len = 0;
    struct device_group *g = NULL;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        /* a track, kind or name that is no integer, a track or name not there: SQL's joins kept no row */
        int64_t track = sqlite3_column_int64(rows, 0), kind = sqlite3_column_int64(rows, 4);
        int64_t at = sqlite3_column_type(rows, 0) == SQLITE_INTEGER ? strmap_get(&facts.tracks, &track, sizeof track) : -1;
        if (at < 0 || sqlite3_column_type(rows, 4) != SQLITE_INTEGER || sqlite3_column_type(rows, 5) != SQLITE_INTEGER)
            continue;
        int compute = facts_class(&facts, kind, sqlite3_column_int64(rows, 5));
        if (compute < 0)
            goto sql_error;
        if (compute == 2)
            continue;
        /* the key: the trace, then the device as SQL typed it; the same as the last row's, mostly */
        int64_t trace = facts.trace.v[at];
        memcpy(key, &trace, sizeof trace);
        size_t len = sweep_key_add(key, sizeof trace, sizeof key, rows, 1);
        /* held within +-2^62 (a stranger's database may hold any times): every length below fits */
        int64_t s = tdb_time_held(sqlite3_column_int64(rows, 2)), e = tdb_time_held(sqlite3_column_int64(rows, 3));
        if (!g || len != last_len || memcmp(key, last_key, len) != 0) {
            int fresh;
            if (!(g = sweep_index_get(&groups, key, len, &fresh)))
                goto oom;
            if (fresh) {
                g->trace = trace, g->first = s, g->last = e;
                if (!(g->device = sqlite3_value_dup(sqlite3_column_value(rows, 1))))
                    goto oom;
            }
            memcpy(last_key, key, len), last_len = len;
        }
        g->first = s < g->first ? s : g->first, g->last = e > g->last ? e : g->last;
        if (cover_add(&g->all, s, e) != 0 || (compute && cover_add(&g->run, s, e) != 0))
            goto oom;
    }
    if (step != SQLITE_DONE)
        goto sql_error;
    for (size_t k = 0; k < groups.n; k++) {
        g = sweep_index_at(&groups, k);
        if (cover_merge(&g->all) != 0 || cover_merge(&g->run) != 0)
            goto oom;
        if (write_row(ins, g, NULL, g->first, g->last) != 0)
            goto sql_error;
    }
    report_bind_text(wins, ":steps", steps);
    while ((step = sqlite3_step(wins)) == SQLITE_ROW) {
        int64_t trace = sqlite3_column_int64(wins, 0), ws = tdb_time_held(sqlite3_column_int64(wins, 2));
        int64_t we = tdb_time_held(sqlite3_column_int64(wins, 3));
        for (size_t k = 0; k < groups.n; k++) {
            const struct device_group *w = sweep_index_at(&groups, k);
            if (w->trace == trace && write_row(ins, w, sqlite3_column_text(wins, 1), ws, we) != 0)
                goto sql_error;
        }
    }
    if (step != SQLITE_DONE)
        goto sql_error;
    rc = 0;
    goto done;
oom:
    fprintf(io->err, "%s: out of memory\n", io->prog);
    goto done;
sql_error:
    fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
done:
    for (size_t k = 0; k < groups.n; k++) {
        g = sweep_index_at(&groups, k);
        sqlite3_value_free(g->device);
        free(g->all.v), free(g->all.before), free(g->run.v), free(g->run.before);
    }
    facts_free(&facts);
    sweep_index_free(&groups);
    sqlite3_finalize(ins), sqlite3_finalize(rows), sqlite3_finalize(wins);
    return rc == 0 ? 0 : 1;
}

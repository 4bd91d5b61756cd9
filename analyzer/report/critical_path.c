/* critical_path.c: `tracedb critical-path`'s pass (see critical_path.h): for each trace (rank), HTA's
 * window, the trace's events (queries/critical_path_rows.sql) as HTA's dataframe holds them (names and
 * categories as cp_flag bits, host threads numbered in (pid, tid) order, launch links both ways), the
 * graph and its longest path (cp_graph.c), and the rows the report prints. */
#include "critical_path.h"
#include "cp_graph.h"
#include "bigmem.h"
#include "db_guard.h"
#include "event_pack.h"
#include "hta_round.h"
#include "ingest.h"
#include "kinds.h"
#include "report.h"
#include "sweep_group.h"
#include "time_range.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE_START "coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event))"
#define TRACE_THREADS "(SELECT th.id FROM thread th JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1)"

struct id_value {
    int64_t id;
    int64_t v;
};

static int64_t find_value(const struct id_value *a, size_t n, int64_t id, int64_t missing)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].id == id ? a[lo].v : missing;
}

/* Values by id (pairs sorted by id): a direct array when the ids are dense, as a database's own ids are;
 * else a binary search (ids a foreign database spreads out). */
struct id_map {
    const struct id_value *pairs;
    size_t n;
    int64_t base;
    int64_t *direct; /* value + 1 by id - base; 0 when absent */
    size_t span;
};

/* The span of ids first..last when a table indexed by id is worth it for n ids (at most 4 slots an id,
 * plus 64 Ki): what id_map and row_index allocate; 0 when the ids are too sparse (binary search then). */
static uint64_t direct_span(int64_t first, int64_t last, size_t n)
{
    uint64_t span = (uint64_t)last - (uint64_t)first + 1;
    return span > 4 * (uint64_t)n + 65536 ? 0 : span;
}

static void id_map_init(struct id_map *m, const struct id_value *pairs, size_t n)
{
    *m = (struct id_map){pairs, n, 0, NULL, 0};
    if (n == 0)
        return;
    uint64_t span = direct_span(pairs[0].id, pairs[n - 1].id, n);
    if (!span || !(m->direct = tdb_big_calloc((size_t)span, sizeof *m->direct)))
        return;
    m->base = pairs[0].id, m->span = (size_t)span;
    for (size_t i = 0; i < n; i++)
        m->direct[pairs[i].id - m->base] = pairs[i].v + 1;
}

static int64_t id_map_get(const struct id_map *m, int64_t id, int64_t missing)
{
    if (m->direct) {
        uint64_t k = (uint64_t)id - (uint64_t)m->base;
        return k < m->span && m->direct[k] ? m->direct[k] - 1 : missing;
    }
    return find_value(m->pairs, m->n, id, missing);
}

static void id_map_free(struct id_map *m)
{
    free(m->direct);
    m->direct = NULL;
}

static int by_id(const void *a, const void *b)
{
    const struct id_value *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Runs sql (?1 = trace id) and collects its rows' (integer, integer) columns, sorted by the first when
 * sort is set. 0, or -1 (printed). */
static int collect(sqlite3 *db, const char *sql, int64_t trace, int sort, struct id_value **out, size_t *n,
                   struct report_io *io)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL, *n = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, trace);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            struct id_value *a = tdb_big_realloc(*out, cap * sizeof *a);
            if (!a) {
                sqlite3_finalize(st);
                fprintf(io->err, "%s: out of memory\n", io->prog);
                return -1;
            }
            *out = a;
        }
        (*out)[(*n)++] = (struct id_value){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    if (rc != SQLITE_DONE)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE && sort && *n > 1) /* none read: *out is NULL, which qsort may not be given */
        qsort(*out, *n, sizeof **out, by_id);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* The trace's window [lo, hi], and with --drop-last-step the cutoff: HTA's loader drops the host rows
 * starting at or after the last ProfilerStep's start, and the GPU work they launched, before any
 * analysis (so they count in no queue either). 1 when the trace has it, 0 when it has no instance of the range
 * (*instances says how many it has), -1 on error. */
static int window_of(sqlite3 *db, int64_t trace, const struct cp_window *w, int64_t *lo, int64_t *hi,
                     int64_t *cutoff, size_t *instances, struct report_io *io)
{
    *lo = INT64_MIN, *hi = INT64_MAX, *cutoff = INT64_MAX, *instances = 0;
    sqlite3_stmt *st = NULL;
    if (w->range) {
        size_t n;
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT e.start_ns, e.start_ns + e.dur_ns FROM event e JOIN string n ON n.id = e.name_id "
                 "WHERE e.thread_id IN " TRACE_THREADS " AND e.kind IN (%d, %d, %d) AND (n.value = ?2 OR n.value GLOB ?2) "
                 "ORDER BY e.start_ns, e.id",
                 TDB_KIND_OP, TDB_KIND_RANGE, TDB_KIND_GPU_RANGE);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            goto sql_error;
        sqlite3_bind_int64(st, 1, trace);
        sqlite3_bind_text(st, 2, w->range, -1, SQLITE_STATIC);
        int64_t a = INT64_MAX, b = INT64_MIN;
        int rc;
        for (n = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; n++)
            if (w->first < 0 || (n >= (size_t)w->first && n <= (size_t)w->last)) {
                int64_t s = tdb_time_held(sqlite3_column_int64(st, 0)), e = tdb_time_held(sqlite3_column_int64(st, 1));
                a = s < a ? s : a, b = e > b ? e : b;
            }
        if (rc != SQLITE_DONE)
            goto sql_error;
        sqlite3_finalize(st), st = NULL;
        *instances = n;
        if (a > b)
            return 0;
        *lo = a, *hi = b;
    }
    if (w->has_from || w->has_to) {
        if (sqlite3_prepare_v2(db, "SELECT " TRACE_START, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
            goto sql_error;
        int64_t t0 = tdb_time_held(sqlite3_column_int64(st, 0));
        sqlite3_finalize(st), st = NULL;
        int64_t from = tdb_sat_add(t0, w->from), to = tdb_sat_add(tdb_sat_add(t0, w->to), -1);
        if (w->has_from && from > *lo)
            *lo = from;
        if (w->has_to && to < *hi)
            *hi = to;
    }
    if (w->drop_last_step) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT max(e.start_ns), count(DISTINCT n.value) FROM event e JOIN string n ON n.id = e.name_id "
                 "WHERE e.thread_id IN " TRACE_THREADS " AND e.kind = %d AND n.value GLOB 'ProfilerStep#[0-9]*'",
                 TDB_KIND_RANGE);
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            goto sql_error;
        sqlite3_bind_int64(st, 1, trace);
        if (sqlite3_step(st) != SQLITE_ROW)
            goto sql_error;
        if (sqlite3_column_int64(st, 1) >= 2)
            *cutoff = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st), st = NULL;
    }
    return 1;
sql_error:
    fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return -1;
}

/* Every string's cp_flag bits that has any (names and categories share the string table). */
static int load_flags(sqlite3 *db, struct id_value **flags, size_t *n, struct report_io *io)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *flags = NULL, *n = 0;
    if (sqlite3_prepare_v2(db, "SELECT id, value FROM string ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *s = sqlite3_column_text(st, 1);
        unsigned f = s ? cp_name_flags((const char *)s) : 0;
        if (!f)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            struct id_value *a = tdb_big_realloc(*flags, cap * sizeof *a);
            if (!a) {
                rc = SQLITE_NOMEM;
                break;
            }
            *flags = a;
        }
        (*flags)[(*n)++] = (struct id_value){sqlite3_column_int64(st, 0), f};
    }
    if (rc != SQLITE_DONE)
        fprintf(io->err, "%s: %s\n", io->prog, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Row positions by event id, over rows in id order: a direct array where the ids are dense (as a
 * database's own are), else a binary search over the rows themselves (ids a foreign database spreads
 * out). */
struct row_index {
    int64_t base;
    int32_t *direct; /* position + 1 by id - base; 0 when absent */
    size_t span;
};

static void row_index_init(struct row_index *x, const struct cp_row *rows, size_t n)
{
    *x = (struct row_index){0, NULL, 0};
    if (n == 0 || n >= INT32_MAX)
        return;
    uint64_t span = direct_span(rows[0].id, rows[n - 1].id, n);
    if (!span || !(x->direct = tdb_big_calloc((size_t)span, sizeof *x->direct)))
        return;
    x->base = rows[0].id, x->span = (size_t)span;
    for (size_t i = 0; i < n; i++)
        x->direct[(uint64_t)rows[i].id - (uint64_t)x->base] = (int32_t)i + 1;
}

static int32_t row_index_get(const struct row_index *x, const struct cp_row *rows, size_t n, int64_t id)
{
    if (x->direct) {
        uint64_t k = (uint64_t)id - (uint64_t)x->base;
        return k < x->span ? x->direct[k] - 1 : -1;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[lo].id == id ? (int32_t)lo : -1;
}

/* HTA's index_correlation from each row's launch_id (launch[i].id, where has_launch): GPU work -> its
 * launch call, and the call -> (the last of) its work; sync rows on no stream (Event Sync, Context
 * Sync: host rows by HTA's stream column) link to their call too. */
static void link_rows(struct cp_row *rows, const struct id_value *launch, size_t n, const struct row_index *pos)
{
    for (size_t i = 0; i < n; i++)
        rows[i].link = -1;
    for (size_t i = 0; i < n; i++) {
        int sync_on_no_stream = rows[i].stream == -1 && (rows[i].flags & CP_CAT_SYNC);
        if (!rows[i].has_launch || (rows[i].stream == -1 && !sync_on_no_stream))
            continue;
        int32_t l = row_index_get(pos, rows, n, launch[i].id);
        if (l < 0 || (size_t)l == i)
            continue;
        rows[i].link = l;
        if (!sync_on_no_stream)
            rows[l].link = (int32_t)i;
    }
}

static int64_t floor_us(int64_t ns)
{
    return (ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000)) * 1000;
}

static int64_t ceil_us(int64_t ns)
{
    return -floor_us(-ns);
}

/* A row's name id that is not an integer (a stranger's database): its edges' names are looked up by
 * the event, in SQL, as SQL compares it. */
#define NO_NAME_ID INT64_MIN

/* One part of the scan (ids lo..hi) on one connection: what it read, or why it stopped. */
struct scan_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    const struct id_map *flags, *thread_of;
    int round_us;
    struct cp_row *rows;
    struct id_value *launch; /* the rows' launch_id (where has_launch; v: free for the caller) */
    size_t n, cap;
    uint64_t ids; /* how many ids the part spans (0: all 2^64) */
    struct cp_wait *waits; /* the sync rows' waits (cp_row.wait counts in them) */
    size_t nwaits, capwaits;
    int shared; /* rows and launch lie in one buffer for both parts (scan_rows owns it) */
    int sorted; /* rows came in id order */
    int rc;     /* SQLITE_DONE, or what stopped it (SQLITE_NOMEM: out of memory) */
};

/* Makes room for one more row. 0, or -1 when out of memory. */
static int scan_part_room(struct scan_part *p)
{
    if (p->n < p->cap)
        return 0;
    /* first as many as the part has ids (a database's own ids are dense) */
    size_t cap = p->cap                              ? p->cap * 2
                 : p->ids == 0 || p->ids > (1u << 22) ? (size_t)1 << 22
                 : p->ids < 4096                      ? 4096
                                                      : (size_t)p->ids;
    struct cp_row *a;
    struct id_value *b;
    if (p->shared) { /* more rows than ids (a view): a buffer of its own from here */
        a = tdb_big_malloc(cap * sizeof *a), b = tdb_big_malloc(cap * sizeof *b);
        if (a && b)
            memcpy(a, p->rows, p->n * sizeof *a), memcpy(b, p->launch, p->n * sizeof *b), p->shared = 0;
        if (!a || !b) {
            free(a), free(b);
            return -1;
        }
        p->rows = a, p->launch = b;
    } else {
        a = tdb_big_realloc(p->rows, cap * sizeof *a), b = tdb_big_realloc(p->launch, cap * sizeof *b);
        if (a)
            p->rows = a;
        if (b)
            p->launch = b;
        if (!a || !b)
            return -1;
    }
    p->cap = cap;
    return 0;
}

/* One row's columns as critical_path_rows.sql gives them (NULLs as -1, but the launch's and a name that
 * is no integer told apart). */
struct cp_cols {
    int64_t id, thread, ts, dur, stream, device, launch, name, cat, corr, wait_stream, wait_corr;
    int kind, launch_null, name_is_int;
};

/* A sync row's waits (none when both are -1). 0, or -1 when out of memory. */
static int scan_part_wait(struct scan_part *p, struct cp_row *r, int64_t stream, int64_t corr)
{
    if (stream == -1 && corr == -1)
        return 0;
    if (p->nwaits == p->capwaits) {
        size_t cap = p->capwaits ? 2 * p->capwaits : 256;
        struct cp_wait *nw = tdb_big_realloc(p->waits, cap * sizeof *nw);
        if (!nw)
            return -1;
        p->waits = nw, p->capwaits = cap;
    }
    r->wait = (int32_t)p->nwaits, p->waits[p->nwaits++] = (struct cp_wait){stream, corr};
    return 0;
}

/* Makes row n (of rows and launch) from c. 0, or -1 when out of memory. */
static int scan_part_fill(struct scan_part *p, size_t n, const struct cp_cols *c)
{
    struct cp_row *r = &p->rows[n];
    int64_t ts = c->ts, dur = c->dur;
    tdb_event_held(&ts, &dur); /* a stranger's database may hold any times: differences fit in 64 bits */
    r->id = c->id;
    r->ts = ts, r->end = ts + dur;
    if (p->round_us)
        tdb_hta_round(r->ts, dur, &r->ts, &r->end); /* HTA's parser (hta_round.c) */
    r->stream = c->stream, r->device = c->device;
    r->flags = (uint16_t)id_map_get(p->flags, c->name, 0);
    if (c->cat >= 0)
        r->flags |= (uint16_t)(id_map_get(p->flags, c->cat, 0) & (CP_CAT_OP | CP_CAT_RUNTIME | CP_CAT_ANNOTATION | CP_CAT_SYNC));
    r->correlation = c->corr;
    r->wait = -1;
    if (c->kind == TDB_KIND_SYNC) {
        r->flags |= CP_CAT_SYNC;
        if (scan_part_wait(p, r, c->wait_stream, c->wait_corr) != 0)
            return -1;
    }
    r->thread = (int32_t)id_map_get(p->thread_of, c->thread, -1);
    r->link = -1, r->clipped = 0;
    r->has_launch = !c->launch_null; /* ids may be negative: NULL is told apart */
    /* v: the name id, for the edges' names (NO_NAME_ID where it is no integer: SQL looks it up) */
    p->launch[n] = (struct id_value){c->launch, c->name_is_int ? c->name : NO_NAME_ID};
    return 0;
}

/* The next row, from SQLite's values. 0, or -1 when out of memory. */
static int scan_part_take(struct scan_part *p, sqlite3_value **v)
{
    if (scan_part_room(p) != 0)
        return -1;
    struct cp_cols c = {
        .id = sqlite3_value_int64(v[0]), .thread = sqlite3_value_int64(v[1]), .ts = sqlite3_value_int64(v[2]),
        .dur = sqlite3_value_int64(v[3]), .stream = sqlite3_value_int64(v[4]), .device = sqlite3_value_int64(v[5]),
        .launch = sqlite3_value_int64(v[6]), .name = sqlite3_value_int64(v[7]), .cat = sqlite3_value_int64(v[8]),
        .kind = sqlite3_value_int(v[9]), .corr = sqlite3_value_int64(v[10]), .wait_stream = sqlite3_value_int64(v[11]),
        .wait_corr = sqlite3_value_int64(v[12]), .launch_null = sqlite3_value_type(v[6]) == SQLITE_NULL,
        .name_is_int = sqlite3_value_type(v[7]) == SQLITE_INTEGER};
    size_t n = p->n;
    if (scan_part_fill(p, n, &c) != 0)
        return -1;
    p->sorted &= n == 0 || p->rows[n].id > p->rows[n - 1].id;
    p->n++;
    return 0;
}

#define CP_ROW_ARGS 14 /* the scan part (a pointer bound to ?5), then the row's 13 columns */
#define CP_ROW_PART "tracedb critical_path scan_part"

/* cp_row(part, ...) in critical_path_rows.sql: takes each row as SQLite reads it, so that the rows
 * never come back one by one through sqlite3_step and a call per column (a third of the scan's time:
 * bench/run.sh's critical-path line). The query returns only their count. */
static void cp_row_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct scan_part *p = sqlite3_value_pointer(argv[0], CP_ROW_PART);
    (void)argc; /* CP_ROW_ARGS: SQLite calls it with no other count */
    if (!p) { /* only the pass's own statement binds a part */
        sqlite3_result_error(ctx, "cp_row: no scan part", -1);
        return;
    }
    if (scan_part_take(p, argv + 1) != 0) {
        p->rc = SQLITE_NOMEM;
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_int(ctx, 0);
}

/* Registers cp_row() on a connection (SQLITE_DIRECTONLY: never called by a stranger's view or trigger).
 * Before any statement of the connection runs: SQLite changes no function while one does. */
static int cp_row_register(sqlite3 *db, struct report_io *io)
{
    if (sqlite3_create_function(db, "cp_row", CP_ROW_ARGS, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, cp_row_sql, NULL, NULL) ==
        SQLITE_OK)
        return 0;
    fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    return -1;
}

static void *scan_part_run(void *arg)
{
    struct scan_part *p = arg;
    p->sorted = 1, p->rc = SQLITE_OK;
    int rc;
    while ((rc = sqlite3_step(p->st)) == SQLITE_ROW)
        ;
    if (p->rc == SQLITE_OK) /* else what the row function met (out of memory) */
        p->rc = rc;
    return NULL;
}

/* critical_path_rows.sql leaves out memory events, instants, the trace's span and async spans as one
 * range of kinds */
_Static_assert(TDB_KIND_INSTANT == TDB_KIND_MEMORY + 1 && TDB_KIND_TRACE == TDB_KIND_MEMORY + 2 &&
                   TDB_KIND_ASYNC == TDB_KIND_MEMORY + 3 && TDB_KIND_FIRST_CUSTOM > TDB_KIND_ASYNC,
               "the kinds critical_path_rows.sql leaves out are one run of ids");

/* Rows of at least this many ids are read in two halves at once, the second on its own connection. */
#define SPLIT_SCAN_IDS 64
/* Up to this many ids, both halves write into one buffer (the second at its first id's place), so
 * that joining them moves rows down a little instead of copying them to new memory. */
#define SHARED_SCAN_IDS ((uint64_t)1 << 24)

/* Reads the trace's rows: in two halves on two threads when the trace is large and a second connection
 * to its file opens, else in one. 0, or -1 (printed). */
static int scan_rows(sqlite3 *db, int64_t trace, const struct id_map *flags,
                     const struct id_map *thread_of, int round_us, struct cp_row **rows, struct id_value **launch,
                     size_t *count, struct cp_wait **waits, int *sorted, struct report_io *io)
{
    struct scan_part part[2] = {{0}};
    struct cp_row *all_rows = NULL; /* both parts' buffer, when shared */
    struct id_value *all_launch = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3 *db2 = NULL;
    int64_t lo = 0, hi = -1, traces = 0;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "SELECT (SELECT min(id) FROM event), (SELECT max(id) FROM event), (SELECT count(*) FROM trace)", -1, &st, NULL) !=
            SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -1;
    }
    lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1), traces = sqlite3_column_int64(st, 2);
    sqlite3_finalize(st);
    uint64_t span = (uint64_t)hi - (uint64_t)lo; /* ids may be anywhere in a stranger's database */
    int64_t mid = hi;
    const char *file = sqlite3_db_filename(db, "main");
    if (hi > lo && span >= SPLIT_SCAN_IDS && file && *file) { /* a second reader for the upper half */
        if (tdb_db_open(file, SQLITE_OPEN_READONLY, &db2) == SQLITE_OK)
            mid = (int64_t)((uint64_t)lo + span / 2);
        else
            sqlite3_close(db2), db2 = NULL;
    }
    for (int k = 0; k < 2; k++) {
        struct scan_part *p = &part[k];
        p->db = k ? db2 : db, p->flags = flags, p->thread_of = thread_of, p->round_us = round_us;
        p->rc = SQLITE_DONE;
        if (k && !db2)
            break;
        if ((k && cp_row_register(p->db, io) != 0) || !(p->st = report_prepare(p->db, "critical_path_rows", io)))
            goto done;
        sqlite3_bind_pointer(p->st, 5, p, CP_ROW_PART, NULL);
        sqlite3_bind_int64(p->st, 1, trace);
        sqlite3_bind_int(p->st, 2, traces == 1);
        sqlite3_bind_int64(p->st, 3, k ? mid + 1 : lo);
        sqlite3_bind_int64(p->st, 4, k ? hi : mid);
        p->ids = k ? (uint64_t)hi - (uint64_t)mid : (uint64_t)mid - (uint64_t)lo + 1;
    }
    if (db2 && span < SHARED_SCAN_IDS) {
        size_t ids = (size_t)span + 1;
        all_rows = tdb_big_malloc(ids * sizeof *all_rows), all_launch = tdb_big_malloc(ids * sizeof *all_launch);
        if (!all_rows || !all_launch) /* then each half in its own */
            free(all_rows), free(all_launch), all_rows = NULL, all_launch = NULL;
        else {
            for (int k = 0; k < 2; k++) {
                size_t at = k ? (size_t)part[0].ids : 0;
                part[k].rows = all_rows + at, part[k].launch = all_launch + at;
                part[k].cap = (size_t)part[k].ids, part[k].shared = 1;
            }
        }
    }
    sweep_halves_run(&(struct sweep_halves){.n = db2 ? 2 : 1}, scan_part_run, &part[0], &part[1]);
    for (int k = 0; k < 2; k++)
        if (part[k].rc != SQLITE_DONE) {
            fprintf(io->err, "%s: %s\n", io->prog,
                    part[k].rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(part[k].db));
            goto done;
        }
    size_t n = part[0].n + part[1].n;
    if (part[1].n && part[0].shared && part[1].shared) { /* the upper half down to the lower's end */
        memmove(part[0].rows + part[0].n, part[1].rows, part[1].n * sizeof *part[1].rows);
        memmove(part[0].launch + part[0].n, part[1].launch, part[1].n * sizeof *part[1].launch);
    } else if (part[1].n) { /* the upper half after the lower (in place when it fits) */
        if (part[0].shared) /* the lower half starts all_rows: it takes the buffers over */
            all_rows = NULL, all_launch = NULL, part[0].shared = 0, part[0].cap = 0;
        int fits = n <= part[0].cap;
        struct cp_row *a = fits ? part[0].rows : tdb_big_realloc(part[0].rows, (n + 1) * sizeof *a);
        struct id_value *b = fits ? part[0].launch : a ? tdb_big_realloc(part[0].launch, (n + 1) * sizeof *b) : NULL;
        if (a)
            part[0].rows = a;
        if (b)
            part[0].launch = b;
        if (!a || !b) {
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        memcpy(part[0].rows + part[0].n, part[1].rows, part[1].n * sizeof *a);
        memcpy(part[0].launch + part[0].n, part[1].launch, part[1].n * sizeof *b);
    }
    if (part[1].nwaits) { /* the upper half's waits after the lower's */
        struct cp_wait *w = tdb_big_realloc(part[0].waits, (part[0].nwaits + part[1].nwaits) * sizeof *w);
        if (!w) {
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        memcpy(w + part[0].nwaits, part[1].waits, part[1].nwaits * sizeof *w);
        part[0].waits = w;
        for (size_t i = part[0].n; i < n; i++)
            if (part[0].rows[i].wait >= 0)
                part[0].rows[i].wait += (int32_t)part[0].nwaits;
    }
    *sorted = part[0].sorted && part[1].sorted;
    *rows = part[0].rows, *launch = part[0].launch, *count = n, *waits = part[0].waits;
    part[0].waits = NULL;
    if (part[0].shared)
        all_rows = NULL, all_launch = NULL;
    part[0].rows = NULL, part[0].launch = NULL;
    rc = 0;
done:
    for (int k = 0; k < 2; k++) {
        if (!part[k].shared)
            free(part[k].rows), free(part[k].launch);
        free(part[k].waits);
    }
    for (int k = 0; k < 2; k++)
        sqlite3_finalize(part[k].st);
    free(all_rows), free(all_launch);
    sqlite3_close(db2);
    return rc;
}

/* A sync row's waits from its args (critical_path_wait.sql), the pack holding none. 0, or -1 (printed). */
static int pack_waits(sqlite3 *db, struct scan_part *p, const size_t *sync, size_t nsync, struct report_io *io)
{
    if (nsync == 0)
        return 0;
    sqlite3_stmt *st = report_prepare(db, "critical_path_wait", io);
    if (!st)
        return -1;
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < nsync && (rc == SQLITE_DONE || rc == SQLITE_ROW); i++) {
        struct cp_row *r = &p->rows[sync[i]];
        sqlite3_bind_int64(st, 1, r->id);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW && scan_part_wait(p, r, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)) != 0)
            rc = SQLITE_NOMEM;
        sqlite3_reset(st);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        fprintf(io->err, "%s: %s\n", io->prog, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* The sync rows (their places) in a pack read: at most this many looked up one by one; more, and the
 * scan reads them all with the rows instead. */
#define PACK_SYNC_MAX 100000

/* One part of a pack read (blocks first..last) on one connection: the rows go to their ids' places in
 * the arrays both parts share. */
struct pack_part {
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    struct scan_part p;        /* rows and launch: both parts' */
    unsigned char *kept;       /* per id: 1 a row kept, 2 left out, 0 none yet (exchanged atomically) */
    int64_t lo, hi, traces;    /* the table's ids; traces in the database */
    size_t *sync, nsync, capsync, decoded;
    int rc;                    /* 1 read; 0 bytes that are no pack's; -1 out of memory */
};

/* Decodes one part's blocks. */
static void *pack_part_run(void *arg)
{
    struct pack_part *q = arg;
    int step;
    q->rc = 0;
    while ((step = sqlite3_step(q->st)) == SQLITE_ROW) {
        struct tdb_pack_reader rd;
        struct tdb_pack_row x;
        int64_t rows_said = sqlite3_column_int64(q->st, 0), got = 0;
        const void *data = sqlite3_column_blob(q->st, 1);
        tdb_pack_read_init(&rd, data, (size_t)sqlite3_column_bytes(q->st, 1));
        int more;
        while ((more = tdb_pack_next(&rd, &x)) == 1) {
            got++;
            if (x.id < q->lo || x.id > q->hi)
                return NULL;
            size_t at = (size_t)((uint64_t)x.id - (uint64_t)q->lo);
            /* critical_path_rows.sql's WHERE: the trace's rows, but memory events, instants, spans */
            int kind = (int)x.kind;
            int keep = (q->traces == 1 || id_map_get(q->p.thread_of, x.thread_id, -1) >= 0) &&
                       !(kind >= TDB_KIND_MEMORY && kind <= TDB_KIND_ASYNC);
            if (__atomic_exchange_n(&q->kept[at], keep ? 1 : 2, __ATOMIC_RELAXED) != 0) /* an id twice */
                return NULL;
            if (!keep)
                continue;
            struct cp_cols c = {.id = x.id, .thread = x.thread_id, .ts = x.start_ns, .dur = x.dur_ns,
                                .stream = x.stream == TDB_NULL ? -1 : x.stream, .device = x.device == TDB_NULL ? -1 : x.device,
                                .launch = x.launch_id == TDB_NULL ? 0 : x.launch_id, .name = x.name_id,
                                .cat = x.cat_id == TDB_NULL ? -1 : x.cat_id, .kind = kind,
                                .corr = x.correlation == TDB_NULL ? -1 : x.correlation, .wait_stream = -1, .wait_corr = -1,
                                .launch_null = x.launch_id == TDB_NULL, .name_is_int = 1};
            scan_part_fill(&q->p, at, &c); /* (no wait yet: nothing to allocate) */
            if (kind == TDB_KIND_SYNC) {
                if (q->nsync == PACK_SYNC_MAX)
                    return NULL;
                if (q->nsync == q->capsync) {
                    size_t cap = q->capsync ? 2 * q->capsync : 256;
                    size_t *ns = realloc(q->sync, cap * sizeof *ns);
                    if (!ns) {
                        q->rc = -1;
                        return NULL;
                    }
                    q->sync = ns, q->capsync = cap;
                }
                q->sync[q->nsync++] = at;
            }
        }
        if (more < 0 || got != rows_said)
            return NULL;
        q->decoded += (size_t)got;
    }
    q->rc = step == SQLITE_DONE; /* (a damaged file: the scan says what SQLite found) */
    return NULL;
}

/* Reads the trace's rows from the import's pack (recorder/store/event_pack.h) instead of the event
 * table: 491 blobs for 2 M events, not 1.5 M rows of 13 columns; the blocks in two halves on two
 * connections and threads, as the scan reads the rows. The pack is used only when meta says it
 * is whole, event is the table its triggers guard (event_pack_triggers.sql: they take the pack away at
 * any change to the table), and the pack holds exactly one row for each id from the table's least to
 * its largest; each row goes to its id's place, so the rows come out in id order. 1 when read; 0 when
 * there is no whole pack, or it is not one (a stranger's bytes), or no room for it: then the caller
 * scans the table; -1 on error (printed). */
static int pack_rows(sqlite3 *db, const struct id_map *flags, const struct id_map *thread_of,
                     int round_us, struct cp_row **rows, struct id_value **launch, size_t *count,
                     struct cp_wait **waits, struct report_io *io)
{
    sqlite3_stmt *st = NULL;
    int64_t packed = 0, lo = 0, hi = -1, traces = 0, first = 0, last = -1;
    if (sqlite3_prepare_v2(db,
                           /* the pack, and the table event with the triggers that guard it (a stranger may have
                            * renamed the table and put a view in its place) */
                           "SELECT (SELECT value FROM meta WHERE key = 'event_pack' AND typeof(value) = 'integer' AND "
                           "(SELECT count(*) FROM sqlite_schema WHERE (type = 'table' AND name = 'event') OR (type = "
                           "'trigger' AND tbl_name = 'event' AND name IN ('event_pack_stale_insert', "
                           "'event_pack_stale_delete', 'event_pack_stale_update'))) = 4), "
                           "(SELECT min(id) FROM event), (SELECT max(id) FROM event), (SELECT count(*) FROM trace), "
                           "(SELECT min(block) FROM event_pack), (SELECT max(block) FROM event_pack)",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_INTEGER) {
        sqlite3_finalize(st);
        return 0;
    }
    packed = sqlite3_column_int64(st, 0), lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2);
    traces = sqlite3_column_int64(st, 3), first = sqlite3_column_int64(st, 4), last = sqlite3_column_int64(st, 5);
    sqlite3_finalize(st), st = NULL;
    /* one row each id from lo to hi (a span that fits, with room: the ids are the table's own) */
    if (packed <= 0 || packed > ((int64_t)1 << 40) || hi < lo || (uint64_t)hi - (uint64_t)lo != (uint64_t)packed - 1 ||
        last < first)
        return 0;
    size_t n = (size_t)packed;
    struct pack_part part[2] = {{0}};
    int rc = 0;
    unsigned char *kept = calloc(n, 1);
    struct cp_row *all_rows = tdb_big_malloc(n * sizeof *all_rows);
    struct id_value *all_launch = tdb_big_malloc(n * sizeof *all_launch);
    struct scan_part fix = {.rows = all_rows, .launch = all_launch}; /* the waits, once both parts are done */
    if (!kept || !all_rows || !all_launch) /* (a stranger's ids may span more than memory: the scan reads what is there) */
        goto done;
    const char *file = sqlite3_db_filename(db, "main");
    sqlite3 *db2 = NULL;
    if (last > first && file && *file && tdb_db_open(file, SQLITE_OPEN_READONLY, &db2) != SQLITE_OK)
        sqlite3_close(db2), db2 = NULL;
    int64_t mid = db2 ? (int64_t)((uint64_t)first + ((uint64_t)last - (uint64_t)first) / 2) : last;
    for (int k = 0; k < 2; k++) {
        struct pack_part *q = &part[k];
        q->db = k ? db2 : db, q->kept = kept, q->lo = lo, q->hi = hi, q->traces = traces;
        q->p = (struct scan_part){.flags = flags, .thread_of = thread_of, .round_us = round_us, .rows = all_rows, .launch = all_launch};
        q->rc = 1;
        if (k && !db2)
            break;
        if (sqlite3_prepare_v2(q->db, "SELECT rows, data FROM event_pack WHERE block BETWEEN ?1 AND ?2 ORDER BY block", -1,
                               &q->st, NULL) != SQLITE_OK)
            goto done;
        sqlite3_bind_int64(q->st, 1, k ? mid + 1 : first);
        sqlite3_bind_int64(q->st, 2, k ? last : mid);
    }
    sweep_halves_run(&(struct sweep_halves){.n = db2 ? 2 : 1}, pack_part_run, &part[0], &part[1]);
    if (part[0].rc < 0 || part[1].rc < 0) {
        fprintf(io->err, "%s: out of memory\n", io->prog);
        rc = -1;
        goto done;
    }
    if (part[0].rc == 0 || part[1].rc == 0 || part[0].decoded + part[1].decoded != n)
        goto done;
    /* launches the import's end linked after the rows were packed */
    if (sqlite3_prepare_v2(db, "SELECT id, launch_id FROM event_pack_fix", -1, &st, NULL) != SQLITE_OK)
        goto done;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id < lo || id > hi)
            goto done;
        size_t at = (size_t)((uint64_t)id - (uint64_t)lo);
        if (kept[at] == 1) {
            all_launch[at].id = sqlite3_column_int64(st, 1);
            all_rows[at].has_launch = sqlite3_column_type(st, 1) != SQLITE_NULL;
        }
    }
    sqlite3_finalize(st), st = NULL;
    if (pack_waits(db, &fix, part[0].sync, part[0].nsync, io) != 0 ||
        pack_waits(db, &fix, part[1].sync, part[1].nsync, io) != 0) {
        rc = -1;
        goto done;
    }
    size_t nkept = 0; /* the kept rows down to the front, in id order */
    for (size_t i = 0; i < n; i++)
        if (kept[i] == 1)
            all_rows[nkept] = all_rows[i], all_launch[nkept] = all_launch[i], nkept++;
    *rows = all_rows, *launch = all_launch, *count = nkept, *waits = fix.waits;
    all_rows = NULL, all_launch = NULL, fix.waits = NULL;
    rc = 1;
done:
    sqlite3_finalize(st);
    for (int k = 0; k < 2; k++) {
        sqlite3_finalize(part[k].st);
        free(part[k].sync);
    }
    if (part[1].db)
        sqlite3_close(part[1].db);
    free(kept), free(all_rows), free(all_launch), free(fix.waits);
    return rc;
}

/* One trace's rows, links and window marks. */
static int load_rows(sqlite3 *db, int64_t trace, const struct id_map *flags, int64_t lo, int64_t hi,
                     int64_t cutoff, int round_us, struct cp_row **out, size_t *count, struct cp_wait **waits,
                     int64_t **names_out, struct report_io *io)
{
    struct id_value *threads = NULL, *launch = NULL;
    struct id_map thread_of = {0};
    struct row_index pos = {0, NULL, 0};
    size_t nthreads, n = 0;
    int sorted = 1;
    struct cp_row *rows = NULL;
    int64_t *names = NULL; /* with names_out: each row's name id (scan_part_run), kept beside the rows */
    int rc = -1;
    /* host threads numbered in HTA's groupby order: (pid, tid) */
    if (collect(db,
                "SELECT th.id, row_number() OVER (ORDER BY p.pid, th.tid, th.id) - 1 FROM thread th "
                "JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1",
                trace, 1, &threads, &nthreads, io) != 0)
        goto done;
    id_map_init(&thread_of, threads, nthreads);
    report_phase("cp: prepare");
    int packed = pack_rows(db, flags, &thread_of, round_us, &rows, &launch, &n, waits, io);
    if (packed < 0 || (packed == 0 && scan_rows(db, trace, flags, &thread_of, round_us, &rows, &launch, &n, waits, &sorted, io) != 0))
        goto done;
    report_phase(packed ? "cp: scan (the import's pack)" : "cp: scan");
    if (names_out) {
        if (!(names = tdb_big_malloc((n + 1) * sizeof *names))) {
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            names[i] = launch[i].v;
    }
    if (!sorted && n > 1) { /* the scan was not in id order: sort the rows, their launch ids and names together */
        for (size_t i = 0; i < n; i++)
            launch[i].v = (int64_t)i;
        struct cp_row *copy = tdb_big_malloc((n + 1) * sizeof *copy);
        struct id_value *order = tdb_big_malloc((n + 1) * sizeof *order);
        int64_t *name_copy = names ? tdb_big_malloc((n + 1) * sizeof *name_copy) : NULL;
        if (!copy || !order || (names && !name_copy)) {
            free(copy), free(order), free(name_copy);
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            order[i] = (struct id_value){rows[i].id, (int64_t)i};
        qsort(order, n, sizeof *order, by_id);
        memcpy(copy, rows, n * sizeof *rows);
        if (names)
            memcpy(name_copy, names, n * sizeof *names);
        for (size_t i = 0; i < n; i++) {
            rows[i] = copy[order[i].v], order[i].id = launch[order[i].v].id;
            if (names)
                names[i] = name_copy[order[i].v];
        }
        for (size_t i = 0; i < n; i++)
            launch[i] = (struct id_value){order[i].id, (int64_t)i};
        free(copy), free(order), free(name_copy);
    }
    if (round_us) { /* the window's bounds were times of rows too */
        lo = lo == INT64_MIN ? lo : ceil_us(lo), hi = hi == INT64_MAX ? hi : floor_us(hi);
        cutoff = cutoff == INT64_MAX ? cutoff : ceil_us(cutoff);
    }
    row_index_init(&pos, rows, n);
    link_rows(rows, launch, n, &pos);
    free(pos.direct);
    pos.direct = NULL;
    if (cutoff != INT64_MAX) { /* HTA's loader: what starts before the last step, and the work it launched */
        int64_t kept = 0;
        for (size_t i = 0; i < n; i++) { /* each row's place among the kept ones, or -1 */
            const struct cp_row *r = &rows[i];
            int keep = r->stream == -1 && !(r->link >= 0 && (r->flags & CP_CAT_SYNC)) ? r->ts < cutoff
                       : r->link >= 0 ? rows[r->link].ts < cutoff
                                      : r->correlation < 0;
            launch[i].v = keep ? kept++ : -1;
        }
        /* a kept row's links are to kept rows (work is kept with its launch call, and a call with all
         * its work): they move with them */
        for (size_t i = 0; i < n; i++)
            if (launch[i].v >= 0) {
                struct cp_row r = rows[i];
                r.link = r.link >= 0 ? (int32_t)launch[r.link].v : -1;
                rows[launch[i].v] = r;
                if (names)
                    names[launch[i].v] = names[i];
            }
        n = (size_t)kept;
    }
    /* the window: host rows starting in it with a duration; GPU work whose launch call is one */
    for (size_t i = 0; i < n; i++) {
        struct cp_row *r = &rows[i];
        if (r->stream == -1) {
            r->clipped = r->ts >= lo && r->ts <= hi && r->end > r->ts;
        } else {
            const struct cp_row *l = r->link >= 0 ? &rows[r->link] : NULL;
            r->clipped = (l && l->stream == -1 && l->ts >= lo && l->ts <= hi && l->end > l->ts) ||
                         (r->flags & CP_WAIT_EVENT);
        }
        if (r->stream != -1)
            r->thread = -1;
    }
    report_phase("cp: links");
    *out = rows, *count = n, rows = NULL;
    if (names_out)
        *names_out = names, names = NULL;
    rc = 0;
done:
    id_map_free(&thread_of);
    free(rows), free(threads), free(launch), free(pos.direct), free(names);
    return rc;
}

static const char *const type_names[] = {"operator", "dependency", "launch_delay", "kernel_gap", "sync"};
static const char *const bound_names[] = {"", "cpu", "gpu_compute", "gpu_comm", "launch", "kernel_gap"};

/* Edges go STEPS_A_STATEMENT to an INSERT (one each cost SQLite a statement's run per edge: 2.8 M of them
 * for a 2 M-event trace), the rest one at a time. */
#define STEPS_A_STATEMENT 16
#define STEP_COLUMNS 9

/* Binds edge i of r (its seq is i + 1) as the row whose first parameter is at. */
static void bind_step(sqlite3_stmt *st, int at, sqlite3_value *rank, const struct cp_row *rows, const int64_t *names,
                      const struct cp_result *r, size_t i)
{
    const struct cp_step *s = &r->steps[i];
    sqlite3_bind_value(st, at, rank);
    sqlite3_bind_int64(st, at + 1, (int64_t)i + 1);
    sqlite3_bind_text(st, at + 2, type_names[s->type], -1, SQLITE_STATIC);
    sqlite3_bind_text(st, at + 3, bound_names[s->bound], -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, at + 4, s->weight);
    sqlite3_bind_int64(st, at + 5, s->from_ts);
    sqlite3_bind_int64(st, at + 6, s->to_ts);
    int32_t row = s->event >= 0 ? s->event : s->to_row;
    sqlite3_bind_int64(st, at + 7, rows[row].id);
    if (names[row] != NO_NAME_ID)
        sqlite3_bind_int64(st, at + 8, names[row]);
    else
        sqlite3_bind_null(st, at + 8);
}

static int write_path(sqlite3_stmt *sums, sqlite3_stmt *steps, sqlite3_stmt *many, int64_t limit, sqlite3_value *rank,
                      int64_t trace, const struct cp_row *rows, const int64_t *names, const struct cp_result *r)
{
    sqlite3_bind_value(sums, 1, rank);
    sqlite3_bind_int64(sums, 2, trace);
    sqlite3_bind_int64(sums, 3, r->length);
    sqlite3_bind_int64(sums, 4, r->bound_ns[CP_BOUND_CPU]);
    sqlite3_bind_int64(sums, 5, r->bound_ns[CP_BOUND_COMPUTE]);
    sqlite3_bind_int64(sums, 6, r->bound_ns[CP_BOUND_COMM]);
    sqlite3_bind_int64(sums, 7, r->bound_ns[CP_BOUND_LAUNCH]);
    sqlite3_bind_int64(sums, 8, r->bound_ns[CP_BOUND_GAP]);
    if (r->nsteps)
        sqlite3_bind_int64(sums, 9, r->start_ts);
    else
        sqlite3_bind_null(sums, 9);
    sqlite3_bind_int64(sums, 10, (int64_t)r->events);
    sqlite3_bind_int64(sums, 11, (int64_t)r->nsteps);
    sqlite3_bind_int64(sums, 12, (int64_t)r->nodes);
    sqlite3_bind_int64(sums, 13, (int64_t)r->edges);
    int ok = sqlite3_step(sums) == SQLITE_DONE;
    sqlite3_reset(sums);
    size_t n = steps && r->steps ? r->nsteps : 0, i = 0;
    if (limit >= 0 && (uint64_t)limit < n)
        n = (size_t)limit;
    for (; ok && many && i + STEPS_A_STATEMENT <= n; i += STEPS_A_STATEMENT) {
        for (int k = 0; k < STEPS_A_STATEMENT; k++)
            bind_step(many, 1 + k * STEP_COLUMNS, rank, rows, names, r, i + (size_t)k);
        ok = sqlite3_step(many) == SQLITE_DONE;
        sqlite3_reset(many);
    }
    for (; ok && i < n; i++) {
        bind_step(steps, 1, rank, rows, names, r, i);
        ok = sqlite3_step(steps) == SQLITE_DONE;
        sqlite3_reset(steps);
    }
    return ok ? 0 : -1;
}

/* Whether any op, range or GPU range of the database is named name (or matches it as a glob). */
static int names_something(sqlite3 *db, const char *name)
{
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT EXISTS (SELECT 1 FROM event e JOIN string n ON n.id = e.name_id WHERE e.kind IN (%d, %d, %d) "
             "AND (n.value = ?1 OR n.value GLOB ?1))",
             TDB_KIND_OP, TDB_KIND_RANGE, TDB_KIND_GPU_RANGE);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int yes = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return yes;
}

/* NAME#k and NAME#a-b pick instances (0-based, in time order) unless the whole text names something
 * itself ('ProfilerStep#3' is a step's own name). *buf holds the name when it was split. */
static void resolve_range(sqlite3 *db, struct cp_window *w, char **buf)
{
    const char *hash = w->range ? strrchr(w->range, '#') : NULL;
    if (!hash || w->first >= 0 || names_something(db, w->range))
        return;
    char *end;
    long long a = strtoll(hash + 1, &end, 10), b = a;
    if (end == hash + 1 || a < 0)
        return;
    if (*end == '-') {
        const char *s = end + 1;
        b = strtoll(s, &end, 10);
        if (end == s || b < a)
            return;
    }
    if (*end || !(*buf = malloc((size_t)(hash - w->range) + 1)))
        return;
    memcpy(*buf, w->range, (size_t)(hash - w->range));
    (*buf)[hash - w->range] = 0;
    w->range = *buf, w->first = a, w->last = b;
}

int critical_path(sqlite3 *db, const char *path, const struct cp_window *given, struct report_io *io)
{
    struct cp_window win = *given, *w = &win;
    char *name = NULL;
    resolve_range(db, w, &name);
    sqlite3_stmt *sums = NULL, *steps = NULL, *many = NULL, *traces = NULL;
    struct id_value *flags = NULL;
    struct id_map flag_of = {0};
    size_t nflags, windows = 0, most = 0;
    int rc = 1;
    if (sweep_table(db,
                    "critical_path_sums (rank, trace_id, path_ns, cpu_ns, gpu_compute_ns, gpu_comm_ns, launch_ns, "
                    "kernel_gap_ns, start_ns, path_events, path_edges, graph_nodes, graph_edges)",
                    13, &sums, io) != 0 ||
        cp_row_register(db, io) != 0 ||
        (w->each && sweep_table(db, "critical_path_steps (rank, seq, type, bound, dur_ns, from_ns, to_ns, event_id, name_id)", 9,
                                &steps, io) != 0) ||
        load_flags(db, &flags, &nflags, io) != 0)
        goto done;
    if (steps) { /* and STEPS_A_STATEMENT edges at once (none: one at a time) */
        char sql[64 + STEPS_A_STATEMENT * (2 * STEP_COLUMNS + 3)];
        int o = snprintf(sql, sizeof sql, "INSERT INTO temp.critical_path_steps VALUES ");
        for (int k = 0; k < STEPS_A_STATEMENT; k++)
            for (int c = 0; c < STEP_COLUMNS; c++)
                o += snprintf(sql + o, sizeof sql - (size_t)o, "%s?%s", c ? "," : k ? ",(" : "(", c == STEP_COLUMNS - 1 ? ")" : "");
        if (sqlite3_prepare_v2(db, sql, -1, &many, NULL) != SQLITE_OK)
            many = NULL;
    }
    id_map_init(&flag_of, flags, nflags);
    report_phase("cp: start");
    if (sqlite3_prepare_v2(db, "SELECT id, rank FROM trace ORDER BY rank, id", -1, &traces, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        goto done;
    }
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    int st;
    while ((st = sqlite3_step(traces)) == SQLITE_ROW) {
        int64_t trace = sqlite3_column_int64(traces, 0), lo, hi, cutoff;
        size_t instances;
        int has = window_of(db, trace, w, &lo, &hi, &cutoff, &instances, io);
        if (has < 0)
            goto done;
        most = instances > most ? instances : most;
        if (has == 0)
            continue;
        windows++;
        struct cp_row *rows;
        struct cp_wait *waits = NULL;
        size_t n;
        int64_t *names = NULL;
        if (load_rows(db, trace, &flag_of, lo, hi, cutoff, w->round_us, &rows, &n, &waits, steps ? &names : NULL, io) != 0) {
            free(waits);
            goto done;
        }
        struct cp_result res;
        int built = cp_build(rows, n, waits, steps != NULL, &res);
        free(waits);
        if (built != 0) {
            fprintf(io->err, "%s: %s: trace %lld: no critical path: %s\n", io->prog, path, (long long)trace, res.error);
            cp_result_free(&res), free(rows), free(names);
            goto done;
        }
        int wrote =
            res.nodes ? write_path(sums, steps, many, w->each_limit, sqlite3_column_value(traces, 1), trace, rows, names, &res) : 0;
        cp_result_free(&res), free(rows), free(names);
        report_phase("cp: free");
        if (wrote != 0) {
            fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
            goto done;
        }
    }
    if (st != SQLITE_DONE) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        goto done;
    }
    if (w->range && windows == 0) {
        if (most == 0)
            fprintf(io->err, "%s: no range, operator or step named '%s' in %s\n", io->prog, w->range, path);
        else
            fprintf(io->err, "%s: '%s' has %zu instance%s in %s (#0 to #%zu): #%lld is not one\n", io->prog, w->range,
                    most, most == 1 ? "" : "s", path, most - 1, (long long)(w->first >= (int64_t)most ? w->first : w->last));
        goto done;
    }
    rc = 0;
done:
    sqlite3_exec(db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    sqlite3_finalize(sums), sqlite3_finalize(steps), sqlite3_finalize(many), sqlite3_finalize(traces);
    id_map_free(&flag_of);
    free(flags), free(name);
    return rc;
}

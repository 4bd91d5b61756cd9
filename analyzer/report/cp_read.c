/* cp_read.c: reading one trace's rows for the critical-path pass (see cp_rows.h): from the event table
 * (queries/critical_path_rows.sql, each row taken by cp_row() as SQLite reads it), or from the import's
 * event pack (recorder/store/event_pack.h); either in two halves on two connections and threads. */
#include "cp_rows.h"
#include "bigmem.h"
#include "db_guard.h"
#include "event_pack.h"
#include "pack_source.h"
#include "hta_round.h"
#include "ingest.h"
#include "kinds.h"
#include "report.h"
#include "sweep_group.h"
#include "time_range.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    int shared; /* rows and launch lie in one buffer for both parts (cp_scan_rows owns it) */
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
    r->flags = (uint16_t)cp_id_map_get(p->flags, c->name, 0);
    if (c->cat >= 0)
        r->flags |= (uint16_t)(cp_id_map_get(p->flags, c->cat, 0) & (CP_CAT_OP | CP_CAT_RUNTIME | CP_CAT_ANNOTATION | CP_CAT_SYNC));
    r->correlation = c->corr;
    r->wait = -1;
    if (c->kind == TDB_KIND_SYNC) {
        r->flags |= CP_CAT_SYNC;
        if (scan_part_wait(p, r, c->wait_stream, c->wait_corr) != 0)
            return -1;
    }
    r->thread = (int32_t)cp_id_map_get(p->thread_of, c->thread, -1);
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
int cp_row_register(sqlite3 *db, struct report_io *io)
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
int cp_scan_rows(sqlite3 *db, int64_t trace, const struct id_map *flags,
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
    const struct pack_source *src; /* the pack: its ids, the traces in the database */
    size_t *sync, nsync, capsync, decoded;
    int rc;                    /* 1 read; 0 bytes that are no pack's; -1 out of memory */
};

/* Decodes one part's blocks. */
static void *pack_part_run(void *arg)
{
    struct pack_part *q = arg;
    int step;
    q->rc = 0;
    struct tdb_pack_row *block = malloc(TDB_PACK_ROWS * sizeof *block);
    if (!block) {
        q->rc = -1;
        return NULL;
    }
    while ((step = sqlite3_step(q->st)) == SQLITE_ROW) {
        int got = pack_source_block(q->st, q->src, block);
        if (got < 0)
            goto out;
        for (int i = 0; i < got; i++) {
            const struct tdb_pack_row x = block[i];
            size_t at = (size_t)((uint64_t)x.id - (uint64_t)q->src->lo);
            /* critical_path_rows.sql's WHERE: the trace's rows, but memory events, instants, spans */
            int kind = (int)x.kind;
            int keep = (q->src->traces == 1 || cp_id_map_get(q->p.thread_of, x.thread_id, -1) >= 0) &&
                       !(kind >= TDB_KIND_MEMORY && kind <= TDB_KIND_ASYNC);
            if (__atomic_exchange_n(&q->kept[at], keep ? 1 : 2, __ATOMIC_RELAXED) != 0) /* an id twice */
                goto out;
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
                    goto out;
                if (q->nsync == q->capsync) {
                    size_t cap = q->capsync ? 2 * q->capsync : 256;
                    size_t *ns = realloc(q->sync, cap * sizeof *ns);
                    if (!ns) {
                        q->rc = -1;
                        goto out;
                    }
                    q->sync = ns, q->capsync = cap;
                }
                q->sync[q->nsync++] = at;
            }
        }
        q->decoded += (size_t)got;
    }
    q->rc = step == SQLITE_DONE; /* (a damaged file: the scan says what SQLite found) */
out:
    free(block);
    return NULL;
}

/* Reads the trace's rows from the import's pack (recorder/store/event_pack.h) instead of the event
 * table: 491 blobs for 2 M events, not 1.5 M rows of 13 columns; the blocks in two halves on two
 * connections and threads, as the scan reads the rows. The pack is used only when whole
 * (pack_source_open); each row goes to its id's place, so the rows come out in id order. 1 when read; 0 when
 * there is no whole pack, or it is not one (a stranger's bytes), or no room for it: then the caller
 * scans the table; -1 on error (printed). */
int cp_pack_rows(sqlite3 *db, const struct id_map *flags, const struct id_map *thread_of,
                 int round_us, struct cp_row **rows, struct id_value **launch, size_t *count,
                 struct cp_wait **waits, struct report_io *io)
{
    sqlite3_stmt *st = NULL;
    struct pack_source src;
    if (!pack_source_open(db, &src))
        return 0;
    int64_t lo = src.lo, hi = src.hi, first = src.first, last = src.last;
    size_t n = (size_t)src.rows;
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
        q->db = k ? db2 : db, q->kept = kept, q->src = &src;
        q->p = (struct scan_part){.flags = flags, .thread_of = thread_of, .round_us = round_us, .rows = all_rows, .launch = all_launch};
        q->rc = 1;
        if (k && !db2)
            break;
        if (!(q->st = pack_source_blocks(q->db, k ? mid + 1 : first, k ? last : mid)))
            goto done;
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

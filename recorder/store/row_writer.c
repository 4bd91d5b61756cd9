/* row_writer.c: writes rows into SQLite in batches, on a background thread while the importer parses.
 *
 * The producer (the parser's thread) appends fixed-layout records to the current batch; a full batch
 * is handed to the writer thread, which binds each record to its prepared statement, while the
 * producer fills the other batch. Two batches of 4 MiB: memory is bounded, no allocation per row,
 * and parsing and SQLite's work run on the two cores at once. Event rows go 32 to a statement. An
 * event's record holds its columns only (120 bytes; tdb_event is 300 with its launch and memory details,
 * which follow the record only for the rows that have them).
 * row_writer_sync() waits until every queued row is written; only then may the producer use the
 * database itself (the connection is never used by both threads at once).
 * Inline mode (a live recording, whose producer is the recorder's own background thread): no second
 * thread; the producer writes each full batch itself, so the program, the recorder and SQLite need
 * two cores, not three.
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include "row_writer.h"
#include "phase_clock.h"
#include "stmt_cache.h"
#include "db_guard.h"
#include "event_pack.h"
#include "jsonbuf.h"
#include "self_fixes.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH_BYTES (4u << 20)
#define SMALL_BATCH_BYTES (64u << 10) /* in-memory databases (fuzzing): thousands of runs a second */

enum row_type { ROW_EVENT = 1, ROW_STRING, ROW_PROCESS, ROW_THREAD, ROW_COUNTER, ROW_FLOW, ROW_META, ROW_SELF_FIX };

struct row_head {
    uint32_t type;  /* enum row_type */
    uint32_t size;  /* whole record, header included, a multiple of 8 */
};

/* An event's columns (tdb_event's, without its strings and its launch and memory details: a third of
 * its bytes, which every event had been copied with; the parser thread is the import's slower one). */
struct row_ev {
    int64_t thread_id, start_ns, dur_ns, correlation, external_id, device, stream, bytes, launch_id, launch_ns, flow;
    int64_t parent_id, self_ns;
    int32_t kind, depth, has_launch;
};

/* A kernel's launch configuration or a memory event's record: after the event's record when it has one. */
struct row_detail {
    int64_t grid[3], block[3], registers, shared_mem;
    double blocks_per_sm, warps_per_sm, occupancy_pct;
    int64_t addr, total_allocated, total_reserved, device_type;
};

struct row_event {
    struct row_head h;
    int64_t id, name_id, cat_id;
    struct row_ev ev;
    uint32_t args_len; /* the args text follows the record (and its detail, when it has one) */
};

/* Whether an event row carries a row_detail (a kernel launch's configuration or a memory record). */
static int row_has_detail(const struct row_ev *ev)
{
    return ev->has_launch || ev->kind == TDB_KIND_MEMORY;
}

static const struct row_detail *row_detail(const struct row_event *r)
{
    return (const struct row_detail *)(r + 1);
}

static const char *row_args(const struct row_event *r)
{
    return (const char *)(r + 1) + (row_has_detail(&r->ev) ? sizeof(struct row_detail) : 0);
}

struct row_text { /* string, process and thread rows: two ids, a flag and text */
    struct row_head h;
    int64_t id, owner; /* owner: trace id (process) or process id (thread) */
    int32_t is_text;
    uint32_t len;
};

struct row_counter {
    struct row_head h;
    int64_t thread_id, name_id, ts_ns;
    double value;
};

struct row_meta { /* a process's or thread's name, labels or sort index (M events) */
    struct row_head h;
    int64_t thread_id, number;
    int32_t field; /* enum row_meta_field */
    uint32_t len;  /* text follows */
};

struct row_self_fix { /* an event's self time, less */
    struct row_head h;
    int64_t id, less;
};

struct row_flow {
    struct row_head h;
    int64_t flow_id, cat_id, thread_id, ts_ns;
    int32_t bind_enclosing;
    char phase;
};

/* Event rows go EVENT_ROWS to a statement: SQLite's work per row is a third less than one row per
 * statement (bench: `make bench`, the import and recorder lines). */
#define EVENT_ROWS 32
#define EVENT_PARAMS 19
#define HOST_PARAMS 11 /* a host event's row: the columns a recorded range or mark has; NULL for the rest */

enum { ST_EVENT, ST_EVENTS, ST_HOSTS, ST_LAUNCH, ST_MEMORY, ST_STRING, ST_PROCESS, ST_THREAD, ST_COUNTER, ST_FLOW,
       ST_META, /* + field */
       ST_COUNT = ST_META + META_FIELDS };

#define EVENT_INSERT                                                                                          \
    "INSERT INTO event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, correlation, external_id, " \
    "device, stream, bytes, launch_id, args, parent_id, depth, launch_ns, flow) VALUES "

static const char *const row_sql[ST_COUNT] = {
    [ST_EVENT] = EVENT_INSERT "(?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce(?15, ?7), ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?16, ?17, ?18, ?19)",
    /* ST_EVENTS, ST_HOSTS: EVENT_ROWS rows, made by events_sql() */
    [ST_LAUNCH] = "INSERT INTO kernel_launch VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    [ST_MEMORY] = "INSERT INTO memory_event VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_STRING] = "INSERT INTO string (id, value) VALUES (?1, ?2)",
    [ST_PROCESS] = "INSERT INTO process (id, trace_id, pid) VALUES (?1, ?2, ?3)",
    [ST_THREAD] = "INSERT INTO thread (id, process_id, tid) VALUES (?1, ?2, ?3)",
    [ST_COUNTER] = "INSERT INTO counter (thread_id, name_id, ts_ns, value) VALUES (?1, ?2, ?3, ?4)",
    [ST_FLOW] = ("INSERT INTO flow_loose (flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6)"),
    [ST_META + META_PROCESS_NAME] = "UPDATE process SET name = ?1 WHERE id = (SELECT process_id FROM thread WHERE id = ?2)",
    [ST_META + META_PROCESS_LABELS] = "UPDATE process SET labels = ?1 WHERE id = (SELECT process_id FROM thread WHERE id = ?2)",
    [ST_META + META_PROCESS_SORT] = "UPDATE process SET sort_index = ?1 WHERE id = (SELECT process_id FROM thread WHERE id = ?2)",
    [ST_META + META_THREAD_NAME] = "UPDATE thread SET name = ?1 WHERE id = ?2",
    [ST_META + META_THREAD_SORT] = "UPDATE thread SET sort_index = ?1 WHERE id = ?2",
};

/* Rows of the tables that only events refer to (kernel_launch and memory_event, keyed by their event;
 * flow, numbered in arrival order) wait for GROUP_ROWS of their table and go in one statement, as
 * event rows do; each table's rows keep their order, so the database is the same. What is left when a
 * batch ends goes row by row. */
#define GROUP_ROWS 32
enum { G_LAUNCH, G_MEMORY, G_FLOW, G_COUNT };
static const struct {
    const char *insert; /* up to VALUES */
    int params;         /* per row */
    int single;         /* the one-row statement */
} group_def[G_COUNT] = {
    [G_LAUNCH] = {"INSERT INTO kernel_launch VALUES ", 12, ST_LAUNCH},
    [G_MEMORY] = {"INSERT INTO memory_event VALUES ", 5, ST_MEMORY},
    [G_FLOW] = {"INSERT INTO flow_loose (flow_id, cat_id, phase, thread_id, ts_ns, bind_enclosing) VALUES ", 6, ST_FLOW},
};

/* The rows waiting in one batch. */
struct pending {
    struct row_event *events[EVENT_ROWS];
    int nevents;
    const void *rows[G_COUNT][GROUP_ROWS]; /* row_event for launch and memory rows, row_flow for flows */
    int n[G_COUNT];
};

struct batch {
    unsigned char *data;
    size_t n, cap; /* cap: the batch size, or one row's size while a row larger than that is written */
};

struct row_writer {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    sqlite3_stmt *group_st[G_COUNT]; /* GROUP_ROWS rows at once, prepared when first needed */
    sqlite3_stmt *max_id_st; /* the event table's largest id, read at each batch's start */
    int64_t max_id;          /* ... and kept up as rows go in: the id SQLite gives a row bound NULL is one more */
    FILE *err;
    const char *path;        /* for messages */
    size_t batch_bytes;      /* BATCH_BYTES, or SMALL_BATCH_BYTES in memory */
    struct batch fill;       /* the producer's */
    struct batch work;       /* the writer thread's */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int inline_writes;       /* no thread: the producer writes each full batch itself */
    int busy;                /* work holds rows not yet written */
    int quit;
    int failed;              /* a write failed: every later call fails */
    double busy_s, wait_s;   /* time the writer spent writing, and the producer spent waiting */
    double writer_cpu_s;     /* the writer thread's CPU time, when it ended (TRACEDB_TIMING) */
    struct tdb_pack_block pack; /* with packing: the event rows' block being filled */
    sqlite3_stmt *pack_st;      /* its INSERT into event_pack */
    int packing;                /* 1 packing; -1 a block could not be made (the pack is not whole) */
    int64_t packed, blocks;     /* rows packed, blocks written */
    struct tdb_pack_block less; /* with packing: the self times made less in the table since their rows were packed */
    sqlite3_stmt *less_st;      /* its INSERT into event_pack_less */
    int64_t less_blocks;
    struct self_fixes fixes;    /* self times made less in rows already in the table, written a batch at a time */
};

/* The calling thread's CPU time, s. */
static double thread_cpu_s(void)
{
    struct timespec t;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0 ? (double)t.tv_sec + (double)t.tv_nsec / 1e9 : 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------- writer thread */

static void bind_real_or_null(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v))
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_double(st, i, v);
}

/* Binds a file id: an integer when it reads as one, else the text. */
static void bind_id(sqlite3_stmt *st, int i, int is_text, const char *p, size_t n)
{
    int64_t v = 0;
    int ok = !is_text && n > 0 && n < 19;
    for (size_t k = (n && p[0] == '-'); ok && k < n; k++) {
        ok = p[k] >= '0' && p[k] <= '9';
        v = v * 10 + (p[k] - '0');
    }
    if (ok && !(n == 1 && p[0] == '-'))
        sqlite3_bind_int64(st, i, p[0] == '-' ? -v : v);
    else
        sqlite3_bind_text(st, i, p, (int)n, SQLITE_STATIC);
}

static int row_step(struct row_writer *w, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        char why[512];
        fprintf(w->err, "tracedb: %s: cannot write: %s\n", w->path, tdb_db_errmsg(w->db, why, sizeof why));
        return -1;
    }
    return 0;
}

/* Parameters b+1 ... b+7, the same in both event statements: id, kind, name, category, track, start,
 * duration. The id is bound NULL when it is the one SQLite gives a new row (the table's largest + 1, as
 * nearly every import's are: rows come in id order): SQLite then appends without searching the table
 * for the id (the event inserts 15% faster, measured); write_events checks that it gave that id. */
static void bind_event_head(struct row_writer *w, sqlite3_stmt *st, int b, const struct row_event *r)
{
    if (r->id == w->max_id + 1 && w->max_id < INT64_MAX - 1)
        sqlite3_bind_null(st, b + 1);
    else
        sqlite3_bind_int64(st, b + 1, r->id);
    if (r->id > w->max_id)
        w->max_id = r->id;
    sqlite3_bind_int(st, b + 2, r->ev.kind);
    sqlite3_bind_int64(st, b + 3, r->name_id);
    tdb_bind_int_or_null(st, b + 4, r->cat_id);
    sqlite3_bind_int64(st, b + 5, r->ev.thread_id);
    sqlite3_bind_int64(st, b + 6, r->ev.start_ns);
    sqlite3_bind_int64(st, b + 7, r->ev.dur_ns);
}

/* The args text that follows the record; "{}" and nothing are NULL. */
static void bind_args(sqlite3_stmt *st, int i, const struct row_event *r)
{
    if (r->args_len > 2)
        sqlite3_bind_text(st, i, row_args(r), (int)r->args_len, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, i);
}

/* Binds event r as row `row` of the event statement st (EVENT_PARAMS parameters per row). */
static void bind_event(struct row_writer *w, sqlite3_stmt *st, int row, const struct row_event *r)
{
    const struct row_ev *ev = &r->ev;
    int b = row * EVENT_PARAMS;
    bind_event_head(w, st, b, r);
    tdb_bind_int_or_null(st, b + 8, ev->correlation);
    tdb_bind_int_or_null(st, b + 9, ev->external_id);
    tdb_bind_int_or_null(st, b + 10, ev->device);
    tdb_bind_int_or_null(st, b + 11, ev->stream);
    tdb_bind_int_or_null(st, b + 12, ev->bytes);
    tdb_bind_int_or_null(st, b + 13, ev->launch_id);
    bind_args(st, b + 14, r);
    tdb_bind_int_or_null(st, b + 15, ev->self_ns);
    tdb_bind_int_or_null(st, b + 16, ev->parent_id);
    sqlite3_bind_int(st, b + 17, ev->depth);
    tdb_bind_int_or_null(st, b + 18, ev->launch_ns);
    tdb_bind_int_or_null(st, b + 19, ev->flow);
}

/* A row with nothing but kind, name, category, track, times, nesting and args: no GPU or memory fields. */
static int is_host(const struct row_event *r)
{
    const struct row_ev *ev = &r->ev;
    return ev->correlation == TDB_NULL && ev->external_id == TDB_NULL && ev->device == TDB_NULL &&
           ev->stream == TDB_NULL && ev->bytes == TDB_NULL && ev->launch_id == TDB_NULL && ev->launch_ns == TDB_NULL && ev->flow == TDB_NULL && !ev->has_launch &&
           ev->kind != TDB_KIND_MEMORY;
}

/* Binds host event r as row `row` of the host statement (HOST_PARAMS parameters per row). */
static void bind_host(struct row_writer *w, sqlite3_stmt *st, int row, const struct row_event *r)
{
    int b = row * HOST_PARAMS;
    bind_event_head(w, st, b, r);
    tdb_bind_int_or_null(st, b + 8, r->ev.self_ns);
    bind_args(st, b + 9, r);
    tdb_bind_int_or_null(st, b + 10, r->ev.parent_id);
    sqlite3_bind_int(st, b + 11, r->ev.depth);
}

/* Binds row r of group g at parameters b + 1 ... b + group_def[g].params. */
static void bind_group_row(sqlite3_stmt *st, int g, int b, const void *row)
{
    if (g == G_FLOW) {
        const struct row_flow *r = row;
        tdb_bind_int_or_null(st, b + 1, r->flow_id);
        tdb_bind_int_or_null(st, b + 2, r->cat_id);
        sqlite3_bind_text(st, b + 3, &r->phase, 1, SQLITE_STATIC);
        sqlite3_bind_int64(st, b + 4, r->thread_id);
        sqlite3_bind_int64(st, b + 5, r->ts_ns);
        sqlite3_bind_int(st, b + 6, r->bind_enclosing);
        return;
    }
    const struct row_event *r = row;
    const struct row_detail *ev = row_detail(r);
    sqlite3_bind_int64(st, b + 1, r->id);
    if (g == G_LAUNCH) { /* its launch configuration */
        for (int i = 0; i < 3; i++) {
            tdb_bind_int_or_null(st, b + 2 + i, ev->grid[i]);
            tdb_bind_int_or_null(st, b + 5 + i, ev->block[i]);
        }
        tdb_bind_int_or_null(st, b + 8, ev->registers);
        tdb_bind_int_or_null(st, b + 9, ev->shared_mem);
        bind_real_or_null(st, b + 10, ev->blocks_per_sm);
        bind_real_or_null(st, b + 11, ev->warps_per_sm);
        bind_real_or_null(st, b + 12, ev->occupancy_pct);
    } else { /* its memory record */
        tdb_bind_int_or_null(st, b + 2, ev->addr);
        tdb_bind_int_or_null(st, b + 3, ev->total_allocated);
        tdb_bind_int_or_null(st, b + 4, ev->total_reserved);
        tdb_bind_int_or_null(st, b + 5, ev->device_type);
    }
}

/* The GROUP_ROWS-row insert of group g. */
static char *group_sql(int g)
{
    size_t cap = strlen(group_def[g].insert) + (size_t)GROUP_ROWS * group_def[g].params * 8 + 1;
    char *sql = malloc(cap);
    if (!sql)
        return NULL;
    size_t n = (size_t)snprintf(sql, cap, "%s", group_def[g].insert);
    for (int r = 0; r < GROUP_ROWS; r++) /* at most 8 bytes a parameter: ",(?999)" */
        for (int i = 0; i < group_def[g].params && n < cap; i++)
            n += (size_t)snprintf(sql + n, cap - n, "%s?%d%s", i ? "," : r ? ",(" : "(", r * group_def[g].params + i + 1,
                                  i + 1 == group_def[g].params ? ")" : "");
    if (n >= cap) {
        free(sql);
        return NULL;
    }
    return sql;
}

/* Prepares a many-row statement built when first needed (a small import never pays for its parse);
 * sql is freed. 0, or -1 (reported). */
static int prepare_built(struct row_writer *w, char *sql, sqlite3_stmt **st)
{
    int ok = sql && tdb_stmt_prepare(w->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) == SQLITE_OK;
    free(sql);
    if (!ok)
        fprintf(w->err, "tracedb: %s: cannot prepare: %s\n", w->path, sqlite3_errmsg(w->db));
    return ok ? 0 : -1;
}

/* Writes the rows of group g that wait: GROUP_ROWS of them in one statement, or (at a batch's end)
 * fewer one by one. */
static int write_group(struct row_writer *w, struct pending *p, int g)
{
    int n = p->n[g];
    p->n[g] = 0;
    if (n == GROUP_ROWS) {
        if (!w->group_st[g] && prepare_built(w, group_sql(g), &w->group_st[g]) != 0)
            return -1;
        for (int i = 0; i < n; i++)
            bind_group_row(w->group_st[g], g, i * group_def[g].params, p->rows[g][i]);
        return row_step(w, w->group_st[g]);
    }
    for (int i = 0; i < n; i++) {
        sqlite3_stmt *st = w->st[group_def[g].single];
        bind_group_row(st, g, 0, p->rows[g][i]);
        if (row_step(w, st) != 0)
            return -1;
    }
    return 0;
}

/* Row r of group g waits for its statement. */
static int group_add(struct row_writer *w, struct pending *p, int g, const void *r)
{
    p->rows[g][p->n[g]++] = r;
    return p->n[g] == GROUP_ROWS ? write_group(w, p, g) : 0;
}

/* The EVENT_ROWS-row inserts: row r's parameters are r * EVENT_PARAMS + 1 ... + EVENT_PARAMS, or for
 * host rows r * HOST_PARAMS + 1 ... + HOST_PARAMS. */
static char *events_sql(int hosts)
{
    size_t cap = sizeof EVENT_INSERT + EVENT_ROWS * 160;
    char *sql = malloc(cap);
    if (!sql)
        return NULL;
    size_t n = (size_t)snprintf(sql, cap, "%s", EVENT_INSERT);
    for (int r = 0; r < EVENT_ROWS && n < cap; r++) {
        int b = r * (hosts ? HOST_PARAMS : EVENT_PARAMS);
        if (hosts)
            n += (size_t)snprintf(sql + n, cap - n,
                                  "%s(?%d,?%d,?%d,?%d,?%d,?%d,?%d,coalesce(?%d,?%d),NULL,NULL,NULL,NULL,NULL,NULL,?%d,?%d,?%d,NULL,NULL)",
                                  r ? "," : "", b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 8, b + 7, b + 9,
                                  b + 10, b + 11);
        else
            n += (size_t)snprintf(sql + n, cap - n,
                                  "%s(?%d,?%d,?%d,?%d,?%d,?%d,?%d,coalesce(?%d,?%d),?%d,?%d,?%d,?%d,?%d,?%d,?%d,?%d,?%d,?%d,?%d)",
                                  r ? "," : "", b + 1, b + 2, b + 3, b + 4, b + 5, b + 6, b + 7, b + 15, b + 7, b + 8,
                                  b + 9, b + 10, b + 11, b + 12, b + 13, b + 14, b + 16, b + 17, b + 18, b + 19);
    }
    if (n >= cap) {
        free(sql);
        return NULL;
    }
    return sql;
}

/* Writes block b being filled, when it holds any, by st (an INSERT of block, rows, data) as block number
 * *number, and counts it. */
static int block_write(struct row_writer *w, sqlite3_stmt *st, struct tdb_pack_block *b, int64_t *number)
{
    if (b->rows == 0)
        return 0;
    sqlite3_bind_int64(st, 1, *number);
    sqlite3_bind_int(st, 2, b->rows);
    sqlite3_bind_blob(st, 3, b->data, (int)b->n, SQLITE_STATIC);
    if (row_step(w, st) != 0)
        return -1;
    ++*number;
    tdb_pack_reset(b);
    return 0;
}

/* Writes the block of rows being filled as the next row of event_pack. */
static int pack_write(struct row_writer *w)
{
    int rows = w->pack.rows;
    if (block_write(w, w->pack_st, &w->pack, &w->blocks) != 0)
        return -1;
    w->packed += rows;
    return 0;
}

/* Writes the block of self-time fixes being filled as the next row of event_pack_less. */
static int less_write(struct row_writer *w)
{
    return block_write(w, w->less_st, &w->less, &w->less_blocks);
}

/* A self time made less in the table after its row was packed, into the block of such fixes (written to
 * event_pack_less when full). */
static int less_add(struct row_writer *w, int64_t id, int64_t less)
{
    if (tdb_pack_less_add(&w->less, id, less) != 0) {
        w->packing = -1; /* the pack will not be whole, and the import goes on without it */
        return 0;
    }
    return w->less.rows < TDB_PACK_ROWS ? 0 : less_write(w);
}

/* Packs the rows just written (as bound: TDB_NULL is NULL). */
static int pack_rows(struct row_writer *w, struct row_event *const *r, int n)
{
    for (int i = 0; i < n && w->packing == 1; i++) {
        const struct row_ev *ev = &r[i]->ev;
        struct tdb_pack_row row = {r[i]->id,     ev->kind,        r[i]->name_id, r[i]->cat_id,
                                   ev->thread_id, ev->start_ns,   ev->dur_ns,    ev->correlation,
                                   ev->device,   ev->stream,      ev->launch_id, ev->parent_id,
                                   ev->self_ns != TDB_NULL ? ev->self_ns : ev->dur_ns, /* as the row holds it */
                                   ev->launch_ns};
        if (tdb_pack_add(&w->pack, &row) != 0)
            w->packing = -1; /* no block: the pack will not be whole, and the import goes on without it */
        else if (w->pack.rows == TDB_PACK_ROWS && pack_write(w) != 0)
            return -1;
    }
    return 0;
}

/* Writes n (1 or EVENT_ROWS) event records: one statement for all of them (the host statement when
 * every one is a host row: fewer values to bind and copy); their launch and memory rows join their
 * groups. */
static int write_events(struct row_writer *w, struct pending *p, struct row_event *const *r, int n)
{
    int hosts = n > 1;
    for (int i = 0; i < n && hosts; i++)
        hosts = is_host(r[i]);
    int which = n == 1 ? ST_EVENT : hosts ? ST_HOSTS : ST_EVENTS;
    if (!w->st[which] && prepare_built(w, events_sql(hosts), &w->st[which]) != 0)
        return -1;
    sqlite3_stmt *st = w->st[which];
    for (int i = 0; i < n; i++) {
        if (hosts)
            bind_host(w, st, i, r[i]);
        else
            bind_event(w, st, i, r[i]);
    }
    if (row_step(w, st) != 0)
        return -1;
    if (sqlite3_last_insert_rowid(w->db) != r[n - 1]->id) { /* cannot be: rows bound NULL took other ids */
        fprintf(w->err, "tracedb: %s: internal error: event %lld was written as %lld\n", w->path,
                (long long)r[n - 1]->id, (long long)sqlite3_last_insert_rowid(w->db));
        return -1;
    }
    if (w->packing == 1 && pack_rows(w, r, n) != 0)
        return -1;
    for (int i = 0; i < n; i++)
        if ((r[i]->ev.has_launch && group_add(w, p, G_LAUNCH, r[i]) != 0) ||
            (r[i]->ev.kind == TDB_KIND_MEMORY && group_add(w, p, G_MEMORY, r[i]) != 0))
            return -1;
    return 0;
}

static int write_text_row(struct row_writer *w, int stmt, const struct row_text *r)
{
    sqlite3_stmt *st = w->st[stmt];
    const char *text = (const char *)(r + 1);
    sqlite3_bind_int64(st, 1, r->id);
    if (stmt == ST_STRING) {
        sqlite3_bind_text(st, 2, text, (int)r->len, SQLITE_STATIC);
    } else {
        sqlite3_bind_int64(st, 2, r->owner);
        bind_id(st, 3, r->is_text, text, r->len);
    }
    return row_step(w, st);
}

/* The self-time fixes gathered, into the table. 0, or -1 (said). */
static int write_self_fixes(struct row_writer *w)
{
    if (self_fixes_write(&w->fixes) == 0)
        return 0;
    char why[512];
    fprintf(w->err, "tracedb: %s: cannot write: %s\n", w->path, tdb_db_errmsg(w->db, why, sizeof why));
    return -1;
}

/* A self time made less: on the row itself while it waits for its statement, else in the table (with the
 * batch's others, when the batch is written). */
static int write_self_fix(struct row_writer *w, struct pending *p, const struct row_self_fix *r)
{
    for (int i = p->nevents; i-- > 0 && p->events[i]->id >= r->id;)
        if (p->events[i]->id == r->id) { /* (a row that left the buffer open holds none: its whole time) */
            struct row_ev *ev = &p->events[i]->ev;
            ev->self_ns = (ev->self_ns == TDB_NULL ? ev->dur_ns : ev->self_ns) - r->less;
            return 0;
        }
    if (w->packing == 1 && less_add(w, r->id, r->less) != 0)
        return -1;
    int full = self_fixes_add(&w->fixes, r->id, r->less);
    if (full < 0) {
        fprintf(w->err, "tracedb: %s: out of memory\n", w->path);
        return -1;
    }
    return full ? write_self_fixes(w) : 0;
}

static int write_batch(struct row_writer *w, struct batch *b)
{
    if (!w->max_id_st && prepare_built(w, strdup("SELECT max(id) FROM event"), &w->max_id_st) != 0)
        return -1;
    w->max_id = sqlite3_step(w->max_id_st) == SQLITE_ROW ? sqlite3_column_int64(w->max_id_st, 0) : 0; /* NULL: 0 */
    sqlite3_reset(w->max_id_st);
    size_t off = 0;
    struct pending p;
    p.nevents = 0;
    memset(p.n, 0, sizeof p.n);
    while (off < b->n) {
        struct row_head *h = (struct row_head *)(b->data + off);
        int rc = 0;
        /* Events wait for a full statement while other rows pass them: a string, process or thread row
         * is its own table's, and nothing here refers to an event row. */
        switch (h->type) {
        case ROW_EVENT:
            p.events[p.nevents++] = (struct row_event *)h;
            if (p.nevents == EVENT_ROWS) {
                rc = write_events(w, &p, p.events, EVENT_ROWS);
                p.nevents = 0;
            }
            break;
        case ROW_STRING:
            rc = write_text_row(w, ST_STRING, (const struct row_text *)h);
            break;
        case ROW_PROCESS:
            rc = write_text_row(w, ST_PROCESS, (const struct row_text *)h);
            break;
        case ROW_THREAD:
            rc = write_text_row(w, ST_THREAD, (const struct row_text *)h);
            break;
        case ROW_COUNTER: {
            const struct row_counter *r = (const struct row_counter *)h;
            sqlite3_stmt *st = w->st[ST_COUNTER];
            sqlite3_bind_int64(st, 1, r->thread_id);
            sqlite3_bind_int64(st, 2, r->name_id);
            sqlite3_bind_int64(st, 3, r->ts_ns);
            bind_real_or_null(st, 4, r->value);
            rc = row_step(w, st);
            break;
        }
        case ROW_META: {
            const struct row_meta *r = (const struct row_meta *)h;
            sqlite3_stmt *st = w->st[ST_META + r->field];
            if (r->field == META_PROCESS_SORT || r->field == META_THREAD_SORT)
                tdb_bind_int_or_null(st, 1, r->number);
            else
                sqlite3_bind_text(st, 1, (const char *)(r + 1), (int)r->len, SQLITE_STATIC);
            sqlite3_bind_int64(st, 2, r->thread_id);
            rc = row_step(w, st);
            break;
        }
        case ROW_FLOW:
            rc = group_add(w, &p, G_FLOW, h);
            break;
        case ROW_SELF_FIX:
            rc = write_self_fix(w, &p, (const struct row_self_fix *)h);
            break;
        }
        if (rc != 0)
            return -1;
        off += h->size;
    }
    for (int i = 0; i < p.nevents; i++)
        if (write_events(w, &p, &p.events[i], 1) != 0)
            return -1;
    for (int g = 0; g < G_COUNT; g++)
        if (write_group(w, &p, g) != 0)
            return -1;
    return write_self_fixes(w);
}

static void *writer_main(void *arg)
{
    struct row_writer *w = arg;
    pthread_setname_np(pthread_self(), "tracedb-rows");
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->busy && !w->quit)
            pthread_cond_wait(&w->cond, &w->lock);
        if (!w->busy && w->quit)
            break;
        pthread_mutex_unlock(&w->lock);
        double t0 = now_s();
        int rc = w->failed ? -1 : write_batch(w, &w->work);
        double t1 = now_s();
        pthread_mutex_lock(&w->lock);
        w->busy_s += t1 - t0;
        if (rc != 0)
            w->failed = 1;
        w->work.n = 0;
        w->busy = 0;
        pthread_cond_broadcast(&w->cond);
    }
    if (tdb_timing_wanted())
        w->writer_cpu_s = thread_cpu_s();
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ---------------------------------------------------------------- producer side */

/* Hands the filled batch to the writer (waiting while it still works on the previous one). */
static int row_writer_flush(struct row_writer *w)
{
    if (w->inline_writes) {
        double t0 = now_s();
        if (!w->failed && w->fill.n && write_batch(w, &w->fill) != 0)
            w->failed = 1;
        w->busy_s += now_s() - t0;
        w->fill.n = 0;
        return w->failed ? -1 : 0;
    }
    double t0 = now_s();
    pthread_mutex_lock(&w->lock);
    while (w->busy)
        pthread_cond_wait(&w->cond, &w->lock);
    w->wait_s += now_s() - t0;
    int failed = w->failed;
    if (!failed && w->fill.n) {
        struct batch t = w->work;
        w->work = w->fill;
        w->fill = t;
        w->fill.n = 0;
        w->busy = 1;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return failed ? -1 : 0;
}

/* Room for a record of size bytes (rounded up to 8) in the filling batch. */
static void *row_reserve(struct row_writer *w, uint32_t type, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (size > UINT32_MAX) {
        fprintf(w->err, "tracedb: %s: one row of %zu bytes is too large to write\n", w->path, size);
        return NULL;
    }
    /* a row larger than a batch gets a batch of its own, back to the batch size for the next row */
    size_t limit = size > w->batch_bytes ? size : w->batch_bytes;
    if ((w->fill.n + size > limit || (w->fill.n && w->fill.cap > w->batch_bytes)) && row_writer_flush(w) != 0)
        return NULL;
    if (w->fill.cap != limit && (size > w->fill.cap || w->fill.cap > w->batch_bytes)) {
        unsigned char *p = realloc(w->fill.data, limit);
        if (!p) {
            fprintf(w->err, "tracedb: %s: out of memory for a row of %zu bytes\n", w->path, size);
            return NULL;
        }
        w->fill.data = p, w->fill.cap = limit;
    }
    struct row_head *h = (struct row_head *)(w->fill.data + w->fill.n);
    h->type = type;
    h->size = (uint32_t)size;
    w->fill.n += size;
    return h;
}


struct row_writer *row_writer_start(sqlite3 *db, const char *path, FILE *err, int inline_writes, int small)
{
    struct row_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->db = db, w->err = err, w->path = path, w->inline_writes = inline_writes;
    w->batch_bytes = small ? SMALL_BATCH_BYTES : BATCH_BYTES;
    w->fill.data = malloc(w->batch_bytes);
    w->work.data = inline_writes ? NULL : malloc(w->batch_bytes);
    w->fill.cap = w->batch_bytes, w->work.cap = inline_writes ? 0 : w->batch_bytes;
    int ok = w->fill.data && (inline_writes || w->work.data);
    for (int i = 0; ok && i < ST_COUNT; i++) /* the EVENT_ROWS-row statements: in write_events */
        ok = i == ST_EVENTS || i == ST_HOSTS ||
             tdb_stmt_prepare(db, row_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &w->st[i], NULL) == SQLITE_OK;
    ok = ok && self_fixes_init(&w->fixes, db) == 0;
    if (!ok) {
        fprintf(err, "tracedb: %s: cannot prepare: %s\n", path, sqlite3_errmsg(db));
    } else if (!inline_writes) {
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
            pthread_mutex_destroy(&w->lock);
            pthread_cond_destroy(&w->cond);
            ok = 0;
        }
    }
    if (!ok) {
        for (int i = 0; i < ST_COUNT; i++)
            tdb_stmt_finalize(w->st[i]);
        self_fixes_free(&w->fixes);
        free(w->fill.data), free(w->work.data), free(w);
        return NULL;
    }
    return w;
}

int row_writer_sync(struct row_writer *w)
{
    if (row_writer_flush(w) != 0)
        return -1;
    if (w->inline_writes)
        return 0;
    pthread_mutex_lock(&w->lock);
    while (w->busy)
        pthread_cond_wait(&w->cond, &w->lock);
    int failed = w->failed;
    pthread_mutex_unlock(&w->lock);
    return failed ? -1 : 0;
}

int row_writer_pack_start(struct row_writer *w)
{
    if (prepare_built(w, strdup("INSERT INTO event_pack (block, rows, data) VALUES (?1, ?2, ?3)"), &w->pack_st) != 0 ||
        prepare_built(w, strdup("INSERT INTO event_pack_less (block, rows, data) VALUES (?1, ?2, ?3)"), &w->less_st) != 0)
        return -1;
    tdb_pack_reset(&w->pack);
    tdb_pack_reset(&w->less);
    w->less_blocks = 0;
    w->packing = 1, w->packed = w->blocks = 0;
    return 0;
}

int64_t row_writer_pack_end(struct row_writer *w)
{
    if (row_writer_sync(w) != 0 || w->packing != 1)
        return -1;
    w->packing = 0;
    if (pack_write(w) != 0 || less_write(w) != 0) { /* the writer thread waits: this thread may write */
        if (!w->inline_writes) /* (inline: no lock, no thread) */
            pthread_mutex_lock(&w->lock);
        w->failed = 1;
        if (!w->inline_writes)
            pthread_mutex_unlock(&w->lock);
        return -1;
    }
    return w->packed;
}

int row_writer_stop(struct row_writer *w)
{
    if (!w)
        return 0;
    int rc = row_writer_sync(w);
    double producer_cpu_s = tdb_timing_wanted() ? thread_cpu_s() : 0;
    if (!w->inline_writes) {
        pthread_mutex_lock(&w->lock);
        w->quit = 1;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        pthread_join(w->thread, NULL);
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
    }
    if (tdb_timing_wanted()) /* CPU times: steadier than wall time on a shared machine, for comparing builds */
        fprintf(stderr, "tracedb: row writer busy %.3f s (CPU %.3f s); parser waited for it %.3f s; parser's CPU so far %.3f s\n",
                w->busy_s, w->writer_cpu_s, w->wait_s, producer_cpu_s);
    for (int i = 0; i < ST_COUNT; i++)
        tdb_stmt_finalize(w->st[i]);
    for (int g = 0; g < G_COUNT; g++)
        tdb_stmt_finalize(w->group_st[g]);
    tdb_stmt_finalize(w->max_id_st);
    self_fixes_free(&w->fixes);
    tdb_stmt_finalize(w->pack_st);
    tdb_pack_free(&w->pack);
    tdb_pack_free(&w->less);
    tdb_stmt_finalize(w->less_st);
    free(w->fill.data), free(w->work.data), free(w); /* work.data is NULL inline */
    return rc;
}

int row_writer_event(struct row_writer *w, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev)
{
    size_t alen = ev->args.p ? ev->args.n : 0;
    int detail = ev->has_launch || ev->kind == TDB_KIND_MEMORY;
    struct row_event *r = row_reserve(w, ROW_EVENT, sizeof *r + (detail ? sizeof(struct row_detail) : 0) + alen);
    if (!r)
        return -1;
    r->id = id, r->name_id = name_id, r->cat_id = cat_id;
    r->ev = (struct row_ev){ev->thread_id, ev->start_ns, ev->dur_ns, ev->correlation, ev->external_id, ev->device,
                            ev->stream, ev->bytes, ev->launch_id, ev->launch_ns, ev->flow, ev->parent_id, ev->self_ns,
                            ev->kind, ev->depth, ev->has_launch};
    r->args_len = (uint32_t)alen;
    char *tail = (char *)(r + 1);
    if (detail) {
        struct row_detail d = {{ev->grid[0], ev->grid[1], ev->grid[2]}, {ev->block[0], ev->block[1], ev->block[2]},
                               ev->registers, ev->shared_mem, ev->blocks_per_sm, ev->warps_per_sm, ev->occupancy_pct,
                               ev->addr, ev->total_allocated, ev->total_reserved, ev->device_type};
        memcpy(tail, &d, sizeof d);
        tail += sizeof d;
    }
    if (alen)
        memcpy(tail, ev->args.p, alen);
    return 0;
}

int row_writer_self_fix(struct row_writer *w, int64_t id, int64_t less)
{
    struct row_self_fix *r = row_reserve(w, ROW_SELF_FIX, sizeof *r);
    if (!r)
        return -1;
    r->id = id, r->less = less;
    return 0;
}

static int row_text(struct row_writer *w, uint32_t type, int64_t id, int64_t owner, int is_text, struct tdb_str s)
{
    int valid = utf8_valid(s.p, s.n); /* names, pids, tids: stored as valid UTF-8 (U+FFFD for bad bytes) */
    struct row_text *r = row_reserve(w, type, sizeof *r + (valid ? s.n : 3 * s.n));
    if (!r)
        return -1;
    r->id = id, r->owner = owner, r->is_text = is_text;
    r->len = (uint32_t)(valid ? s.n : utf8_repair((char *)(r + 1), s.p, s.n));
    if (s.n && valid)
        memcpy(r + 1, s.p, s.n);
    return 0;
}

int row_writer_string(struct row_writer *w, int64_t id, struct tdb_str s)
{
    return row_text(w, ROW_STRING, id, 0, 1, s);
}

int row_writer_process(struct row_writer *w, int64_t id, int64_t trace_id, int pid_is_text, struct tdb_str pid)
{
    return row_text(w, ROW_PROCESS, id, trace_id, pid_is_text, pid);
}

int row_writer_thread(struct row_writer *w, int64_t id, int64_t process_id, int tid_is_text, struct tdb_str tid)
{
    return row_text(w, ROW_THREAD, id, process_id, tid_is_text, tid);
}

int row_writer_counter(struct row_writer *w, int64_t thread_id, int64_t name_id, int64_t ts_ns, double value)
{
    struct row_counter *r = row_reserve(w, ROW_COUNTER, sizeof *r);
    if (!r)
        return -1;
    r->thread_id = thread_id, r->name_id = name_id, r->ts_ns = ts_ns, r->value = value;
    return 0;
}

int row_writer_flow(struct row_writer *w, int64_t thread_id, int64_t flow_id, int64_t cat_id, char phase, int64_t ts_ns,
                    int bind_enclosing)
{
    struct row_flow *r = row_reserve(w, ROW_FLOW, sizeof *r);
    if (!r)
        return -1;
    r->flow_id = flow_id, r->cat_id = cat_id, r->thread_id = thread_id, r->ts_ns = ts_ns;
    r->bind_enclosing = bind_enclosing, r->phase = phase;
    return 0;
}

int row_writer_meta(struct row_writer *w, int64_t thread_id, enum row_meta_field field, struct tdb_str text, int64_t number)
{
    int valid = utf8_valid(text.p, text.n);
    struct row_meta *r = row_reserve(w, ROW_META, sizeof *r + (valid ? text.n : 3 * text.n));
    if (!r)
        return -1;
    r->thread_id = thread_id, r->number = number, r->field = (int32_t)field;
    r->len = (uint32_t)(valid ? text.n : utf8_repair((char *)(r + 1), text.p, text.n));
    if (text.n && valid)
        memcpy(r + 1, text.p, text.n);
    return 0;
}

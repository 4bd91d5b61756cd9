/* ingest.c: writes events into a tracedb database: the shared back end of every importer, of merge,
 * finish and of the live recorder.
 *
 * A load runs in three parts:
 *   1. open: a new database is built in "<path>.tmp-<pid>" with the journal off and moved into place
 *      only when finished, so an existing file is never half-written; an append runs in one
 *      transaction on the existing file; a live recording (TDB_OPEN_LIVE) is written in place in WAL
 *      mode and committed as it goes.
 *   2. events: names and categories are interned in memory (strmap) and written once to `string`;
 *      tracks (pid, tid) likewise. Rows go to the row writer thread (row_writer.c) in batches; for
 *      each event the sweep's keys (track, start, dur: 26 bytes), its per-name sums and what it
 *      attributes (launch correlation, memory bytes) are kept. Nothing is allocated per event once
 *      the arrays have grown. (A live recording keeps none of this: its rows are read back at the end.)
 *   3. end of trace: the keys are sorted and swept (nesting.c: parent, depth, self time, PyTorch's
 *      rule), GPU work is linked to the runtime/driver call with the same correlation, device time and
 *      memory are attributed to operators, and everything is written back in one sequential UPDATE;
 *      then the per-name sums (event_stats) and device time (device_stats, device_time.c).
 *      Finish adds meta, indexes and views, commits and renames.
 */
#include "ingest.h"
#include "db_guard.h"
#include "output_claim.h"
#include "embedded.h"
#include "device_time.h"
#include "nesting.h"
#include "row_writer.h"
#include "stmt_cache.h"
#include "strmap.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* correlation -> ordinal, open addressing; TDB_NULL marks an empty slot */
struct corrmap {
    int64_t *key;
    uint32_t *val;
    size_t cap, count;
};

/* Something the end of the trace attributes to the operators around it. */
enum attrib_what {
    AT_LINK,      /* GPU work that is not device time (sync): linked to its launch only */
    AT_DEVICE,    /* kernel, memcpy, memset: device time of the operator that launched it */
    AT_MEM_CPU,   /* a [memory] event on the host: bytes for the operator around it */
    AT_MEM_DEVICE /* a [memory] event on a device */
};

struct attrib {
    uint32_t ord;  /* the event */
    uint16_t what; /* enum attrib_what */
    uint16_t early; /* the launch was known when the row was written: launch_id is in the row already */
    int64_t key;   /* correlation of the launch (AT_LINK, AT_DEVICE) or bytes (AT_MEM_*) */
};

#define LAUNCH_IN_ROW 0x80000000u /* launch[] flag: the row already holds this launch_id */

/* Running aggregates of one (kind, name, device) in the current trace. */
struct stat_row {
    int64_t kind, name_id, device;
    int64_t calls, total, self, min, max;
    int64_t self_device, device_total;     /* GPU work launched directly / by it or its children */
    int64_t self_cpu_mem, cpu_mem;         /* host bytes allocated (minus freed) directly / in all */
    int64_t self_device_mem, device_mem;   /* device bytes, likewise */
};

struct nest_result;

struct tdb_ingest {
    sqlite3 *db;
    struct row_writer *rows; /* every hot-path row goes through it (a background thread) */
    FILE *err;               /* where errors are reported */
    char *path;              /* the database the user named */
    char *tmp_path;          /* where a new database is built, or NULL for an append */
    int fresh;               /* a database made by this ingest (not an append, not a recording) */
    int borrowed;            /* db is the process's in-memory database: rolled back, never closed */
    struct nest_result *nest_slot; /* what tdb_nest() answers from, during the nesting update */
    int nest_registered;
    int replace;             /* --force: the new database replaces path at the end */
    int64_t anomalies[TDB_ANOMALY_COUNT]; /* counted for meta */
    struct strmap strings;   /* interned names/categories -> string.id */
    struct strmap processes; /* (trace, pid) -> process.id */
    struct strmap threads;   /* (trace, pid, tid) -> thread.id */
    struct strmap kinds;     /* custom category (lower case) -> kind.id */
    char *key;               /* scratch for composite map keys */
    size_t key_cap;
    int64_t next_string, next_process, next_thread, next_event, next_kind;
    int64_t trace_id;          /* current trace */
    int64_t trace_first_event; /* first event id of the current trace */
    int64_t first_event;       /* first event id of this load */
    int64_t events;            /* events added by this load */
    int64_t overlaps;          /* overlaps found by the sweep of the current trace */
    /* per event of the current trace, by ordinal (id - trace_first_event): the sweep's keys */
    uint32_t *key_track;       /* thread id; becomes the parent ordinal + 1 after the sweep */
    int64_t *key_start;        /* start; becomes self time after the sweep */
    int64_t *key_dur;
    uint16_t *key_depth;
    uint32_t *key_stat;        /* index in stats */
    size_t keys_cap;
    struct strmap stat_index;  /* (kind, name, device) -> index in stats */
    struct stat_row *stats;
    size_t nstats, stats_cap;
    int64_t first_ns, last_ns; /* span of the current trace */
    struct corrmap launches;   /* correlation -> ordinal of the runtime/driver call */
    struct device_time devices; /* GPU intervals of the current trace, for device_stats */
    struct attrib *attribs;    /* GPU work and memory events, attributed at the end of the trace */
    size_t nattribs, attribs_cap;
    int timing;                /* TRACEDB_TIMING set: print how long each phase took */
    int live;                  /* TDB_OPEN_LIVE: written in place; nothing per event kept in memory */
    int resuming;              /* inside tdb_ingest_resume_trace */
    int reading_back;          /* keys come from rows written before (no launch_id in them) */
    int64_t *key_id;           /* a read-back trace: the id of each ordinal (ids may have gaps: ranges a
                                * killed recording began and never ended); NULL: id - trace_first_event */
    struct timespec phase_start;
};

/* ---------------------------------------------------------------- helpers */

static uint64_t corr_hash(int64_t k)
{
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

/* Keeps the first ordinal seen for a correlation. -1 when out of memory. */
static int corrmap_put(struct corrmap *m, int64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 1024;
        int64_t *nk = malloc(ncap * sizeof *nk);
        uint32_t *nv = malloc(ncap * sizeof *nv);
        if (!nk || !nv) {
            free(nk), free(nv);
            return -1;
        }
        for (size_t i = 0; i < ncap; i++)
            nk[i] = TDB_NULL;
        for (size_t i = 0; i < m->cap; i++) {
            if (m->key[i] == TDB_NULL)
                continue;
            size_t j = corr_hash(m->key[i]) & (ncap - 1);
            while (nk[j] != TDB_NULL)
                j = (j + 1) & (ncap - 1);
            nk[j] = m->key[i], nv[j] = m->val[i];
        }
        free(m->key), free(m->val);
        m->key = nk, m->val = nv, m->cap = ncap;
    }
    size_t j = corr_hash(key) & (m->cap - 1);
    while (m->key[j] != TDB_NULL) {
        if (m->key[j] == key)
            return 0;
        j = (j + 1) & (m->cap - 1);
    }
    m->key[j] = key, m->val[j] = val;
    m->count++;
    return 0;
}

static int64_t corrmap_get(const struct corrmap *m, int64_t key)
{
    if (!m->cap)
        return -1;
    size_t j = corr_hash(key) & (m->cap - 1);
    while (m->key[j] != TDB_NULL) {
        if (m->key[j] == key)
            return m->val[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

/* Frees the per-trace keys (after the trace's sweep, or on abort). */
static void ingest_free_keys(struct tdb_ingest *ing)
{
    free(ing->key_track), free(ing->key_start), free(ing->key_dur), free(ing->key_depth), free(ing->key_stat);
    free(ing->key_id);
    ing->key_id = NULL;
    ing->key_track = NULL, ing->key_start = NULL, ing->key_dur = NULL, ing->key_depth = NULL, ing->key_stat = NULL;
    strmap_free(&ing->stat_index);
    free(ing->stats);
    ing->stats = NULL, ing->nstats = ing->stats_cap = 0;
    ing->keys_cap = 0;
    free(ing->launches.key), free(ing->launches.val);
    memset(&ing->launches, 0, sizeof ing->launches);
    free(ing->attribs);
    ing->attribs = NULL, ing->nattribs = ing->attribs_cap = 0;
}

static int ingest_attrib(struct tdb_ingest *ing, size_t ord, enum attrib_what what, int64_t key)
{
    if (ing->nattribs == ing->attribs_cap) {
        size_t ncap = ing->attribs_cap ? ing->attribs_cap * 2 : 4096;
        struct attrib *a = realloc(ing->attribs, ncap * sizeof *a);
        if (!a) {
            fprintf(ing->err, "tracedb: out of memory\n");
            return -1;
        }
        ing->attribs = a, ing->attribs_cap = ncap;
    }
    ing->attribs[ing->nattribs++] = (struct attrib){(uint32_t)ord, (uint16_t)what, 0, key};
    return 0;
}

/* Adds event ev (named name_id) to its (kind, name, device) aggregate; returns the aggregate's index. */
static int64_t ingest_stat(struct tdb_ingest *ing, const struct tdb_event *ev, int64_t name_id)
{
    int64_t key[3] = {ev->kind, name_id, ev->device};
    int64_t i = strmap_get(&ing->stat_index, key, sizeof key);
    if (i < 0) {
        if (ing->nstats == ing->stats_cap) {
            size_t ncap = ing->stats_cap ? ing->stats_cap * 2 : 256;
            struct stat_row *n = realloc(ing->stats, ncap * sizeof *n);
            if (!n)
                return -1;
            ing->stats = n, ing->stats_cap = ncap;
        }
        i = (int64_t)ing->nstats++;
        if (strmap_put(&ing->stat_index, key, sizeof key, i) != 0)
            return -1;
        ing->stats[i] = (struct stat_row){.kind = ev->kind, .name_id = name_id, .device = ev->device,
                                          .min = INT64_MAX, .max = INT64_MIN};
    }
    struct stat_row *r = &ing->stats[i];
    r->calls++;
    r->total = tdb_sat_add(r->total, ev->dur_ns);
    if (ev->dur_ns < r->min)
        r->min = ev->dur_ns;
    if (ev->dur_ns > r->max)
        r->max = ev->dur_ns;
    if (ev->kind != TDB_KIND_TRACE) {
        if (ev->start_ns < ing->first_ns)
            ing->first_ns = ev->start_ns;
        if (ev->start_ns + ev->dur_ns > ing->last_ns)
            ing->last_ns = ev->start_ns + ev->dur_ns;
    }
    return i;
}

/* Remembers what the end-of-trace sweep and links need about event ord. Returns the ordinal of the
 * launch of GPU work when that launch was seen already, -2 otherwise, -1 on error. */
static int64_t ingest_keep_keys(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev, int64_t name_id)
{
    if (ord >= 0x7ffffffe) { /* ordinals + 1 fit in 31 bits (LAUNCH_IN_ROW is the 32nd) */
        fprintf(ing->err, "tracedb: more than 2 billion events in one trace\n");
        return -1;
    }
    if (ord >= ing->keys_cap) {
        size_t ncap = ing->keys_cap ? ing->keys_cap * 2 : 65536;
        uint32_t *t = realloc(ing->key_track, ncap * sizeof *t);
        if (t)
            ing->key_track = t;
        int64_t *st = realloc(ing->key_start, ncap * sizeof *st);
        if (st)
            ing->key_start = st;
        int64_t *d = realloc(ing->key_dur, ncap * sizeof *d);
        if (d)
            ing->key_dur = d;
        uint32_t *ks = realloc(ing->key_stat, ncap * sizeof *ks);
        if (ks)
            ing->key_stat = ks;
        if (!t || !st || !d || !ks) {
            fprintf(ing->err, "tracedb: out of memory\n");
            return -1;
        }
        ing->keys_cap = ncap;
    }
    ing->key_track[ord] = (uint32_t)ev->thread_id;
    ing->key_start[ord] = ev->start_ns;
    ing->key_dur[ord] = ev->dur_ns;
    int64_t stat = ingest_stat(ing, ev, name_id);
    if (stat < 0) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    ing->key_stat[ord] = (uint32_t)stat;
    if (ev->kind == TDB_KIND_MEMORY && ev->bytes != TDB_NULL)
        return ingest_attrib(ing, ord, ev->device_type == 0 ? AT_MEM_CPU : AT_MEM_DEVICE, ev->bytes) == 0 ? -2 : -1;
    if (ev->correlation == TDB_NULL)
        return -2;
    if (ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER)
        return corrmap_put(&ing->launches, ev->correlation, (uint32_t)ord) == 0 ? -2 : -1;
    if (ev->kind == TDB_KIND_KERNEL || ev->kind == TDB_KIND_MEMCPY || ev->kind == TDB_KIND_MEMSET ||
        ev->kind == TDB_KIND_SYNC) {
        if (ingest_attrib(ing, ord, ev->kind == TDB_KIND_SYNC ? AT_LINK : AT_DEVICE, ev->correlation) != 0)
            return -1;
        int64_t known = corrmap_get(&ing->launches, ev->correlation);
        ing->attribs[ing->nattribs - 1].early = known >= 0 && !ing->reading_back;
        return known >= 0 ? known : -2;
    }
    return -2;
}

/* With TRACEDB_TIMING=1, says on stderr how long the phase that ends now took. */
static void ingest_phase(struct tdb_ingest *ing, const char *done)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ing->timing)
        fprintf(stderr, "tracedb: %-16s %8.3f s\n", done,
                (double)(now.tv_sec - ing->phase_start.tv_sec) + (double)(now.tv_nsec - ing->phase_start.tv_nsec) / 1e9);
    ing->phase_start = now;
}

static int ingest_fail(struct tdb_ingest *ing, const char *what)
{
    char why[512];
    fprintf(ing->err, "tracedb: %s: %s: %s\n", ing->path, what, tdb_db_errmsg(ing->db, why, sizeof why));
    return -1;
}

static int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st);

/* One statement, through the statement cache (see stmt_cache.h). */
static int ingest_run(struct tdb_ingest *ing, const char *sql)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = ingest_step(ing, st);
    tdb_stmt_finalize(st);
    return rc;
}

static int ingest_exec(struct tdb_ingest *ing, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(ing->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        char why[512];
        fprintf(ing->err, "tracedb: %s: %s\n", ing->path,
                sqlite3_system_errno(ing->db) ? tdb_db_errmsg(ing->db, why, sizeof why) : msg ? msg : "SQL error");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int ingest_exec_file(struct tdb_ingest *ing, const char *file)
{
    const char *sql = tdb_embedded_get(file);
    if (!sql) {
        fprintf(ing->err, "tracedb: internal error: %s is not embedded\n", file);
        return -1;
    }
    return ingest_exec(ing, sql);
}

/* Runs a prepared statement to completion and resets it. */
static int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    return 0;
}

static void bind_int_or_null(sqlite3_stmt *st, int i, int64_t v)
{
    if (v == TDB_NULL)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

static char *ingest_key(struct tdb_ingest *ing, size_t need)
{
    if (need > ing->key_cap) {
        size_t ncap = ing->key_cap ? ing->key_cap : 256;
        while (ncap < need)
            ncap *= 2;
        char *k = realloc(ing->key, ncap);
        if (!k)
            return NULL;
        ing->key = k, ing->key_cap = ncap;
    }
    return ing->key;
}

/* The string.id of s, interned on first sight. -1 on error. */
static int64_t ingest_string(struct tdb_ingest *ing, struct tdb_str s)
{
    int64_t id = strmap_get(&ing->strings, s.p, s.n);
    if (id >= 0)
        return id;
    id = ing->next_string++;
    if (row_writer_string(ing->rows, id, s) != 0)
        return -1;
    if (strmap_put(&ing->strings, s.p, s.n, id) != 0) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    return id;
}

static int64_t ingest_max_id(struct tdb_ingest *ing, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = 0;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    tdb_stmt_finalize(st);
    return v;
}

/* For an append: load what the database already holds so ids continue and names stay interned. */
static int ingest_load_existing(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "SELECT id, value FROM string", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "not a tracedb database");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if (strmap_put(&ing->strings, v, (size_t)sqlite3_column_bytes(st, 1), sqlite3_column_int64(st, 0)) != 0)
            break;
    }
    tdb_stmt_finalize(st);
    if (tdb_stmt_prepare(ing->db, "SELECT id, name FROM kind WHERE id >= 100", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "not a tracedb database");
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if (strmap_put(&ing->kinds, v, (size_t)sqlite3_column_bytes(st, 1), sqlite3_column_int64(st, 0)) != 0)
            break;
    }
    tdb_stmt_finalize(st);
    ing->next_string = ingest_max_id(ing, "SELECT max(id) FROM string") + 1;
    ing->next_process = ingest_max_id(ing, "SELECT max(id) FROM process") + 1;
    ing->next_thread = ingest_max_id(ing, "SELECT max(id) FROM thread") + 1;
    ing->next_event = ingest_max_id(ing, "SELECT max(id) FROM event") + 1;
    ing->next_kind = ingest_max_id(ing, "SELECT max(id) FROM kind") + 1;
    if (ing->next_kind < TDB_KIND_FIRST_CUSTOM)
        ing->next_kind = TDB_KIND_FIRST_CUSTOM;
    return 0;
}

/* The process's in-memory database for TDB_OPEN_MEMORY (fuzzing, one thread): its schema, views and
 * indexes are made once; each ingest runs in a transaction that is rolled back, so a run costs what
 * its own events cost, not the schema's parse (thousands of runs a second instead of hundreds). */
static sqlite3 *memory_db;

static void ingest_close_db(struct tdb_ingest *ing)
{
    if (!ing->borrowed)
        sqlite3_close(ing->db);
    else if (ing->db && !sqlite3_get_autocommit(ing->db))
        sqlite3_exec(ing->db, "ROLLBACK", NULL, NULL, NULL);
    ing->db = NULL;
}

static void ingest_free(struct tdb_ingest *ing)
{
    row_writer_stop(ing->rows);
    ing->rows = NULL;
    ingest_close_db(ing);
    strmap_free(&ing->strings);
    strmap_free(&ing->processes);
    strmap_free(&ing->threads);
    strmap_free(&ing->kinds);
    ingest_free_keys(ing);
    device_time_free(&ing->devices);
    free(ing->key);
    free(ing->path);
    free(ing->tmp_path);
    free(ing);
}

/* ---------------------------------------------------------------- open */

struct tdb_ingest *tdb_ingest_open(const char *path, enum tdb_open_mode mode, FILE *err)
{
    struct stat sb;
    if (mode == TDB_OPEN_MEMORY)
        path = ":memory:";
    int exists = mode != TDB_OPEN_MEMORY && stat(path, &sb) == 0;
    if ((mode == TDB_OPEN_CREATE || mode == TDB_OPEN_LIVE) && exists) {
        fprintf(err, "tracedb: %s already exists; use --force to replace it or --append to add to it\n", path);
        return NULL;
    }
    if (mode == TDB_OPEN_APPEND && !exists) {
        fprintf(err, "tracedb: %s: no such database to append to\n", path);
        return NULL;
    }
    struct tdb_ingest *ing = calloc(1, sizeof *ing);
    if (!ing || !(ing->path = strdup(path))) {
        free(ing);
        fprintf(err, "tracedb: out of memory\n");
        return NULL;
    }
    ing->err = err;
    clock_gettime(CLOCK_MONOTONIC, &ing->phase_start);
    strmap_init(&ing->strings);
    strmap_init(&ing->processes);
    strmap_init(&ing->threads);
    strmap_init(&ing->kinds);
    ing->next_string = ing->next_process = ing->next_thread = ing->next_event = 1;
    ing->next_kind = TDB_KIND_FIRST_CUSTOM;

    const char *open_path = path;
    ing->live = mode == TDB_OPEN_LIVE;
    ing->fresh = mode == TDB_OPEN_CREATE || mode == TDB_OPEN_FORCE || mode == TDB_OPEN_MEMORY;
    if (mode == TDB_OPEN_CREATE || mode == TDB_OPEN_FORCE) {
        size_t n = strlen(path) + 32;
        ing->tmp_path = malloc(n);
        if (!ing->tmp_path || tdb_out_begin(path, ing->tmp_path, n) != 0) {
            fprintf(err, "tracedb: %s: cannot name a temporary file beside it\n", path);
            free(ing->tmp_path), ing->tmp_path = NULL;
            ingest_free(ing);
            return NULL;
        }
        ing->replace = mode == TDB_OPEN_FORCE;
        open_path = ing->tmp_path;
    } else if (mode == TDB_OPEN_LIVE) { /* claim the name now: a second recording to it fails here */
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) {
            fprintf(err, "tracedb: %s: %s\n", path,
                    errno == EEXIST ? "already exists; use --force to replace it" : tdb_out_reason(errno));
            ingest_free(ing);
            return NULL;
        }
        close(fd);
    }
    /* A database made here (not an existing one) skips its rollback journal: defensive mode allows that
     * only before it goes on. */
    const char *setup = mode == TDB_OPEN_APPEND || mode == TDB_OPEN_LIVE ? NULL : "PRAGMA journal_mode=OFF";
    if (mode == TDB_OPEN_MEMORY && memory_db) {
        ing->db = memory_db, ing->borrowed = 1;
    } else if (mode == TDB_OPEN_MEMORY) {
        ing->db = NULL;
        if (tdb_db_open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &ing->db) != SQLITE_OK ||
            ingest_exec_file(ing, "schema/schema.sql") != 0 ||
            ingest_exec(ing, "PRAGMA user_version=" TDB_SCHEMA_VERSION_STR) != 0 ||
            ingest_exec_file(ing, "schema/views.sql") != 0 || ingest_exec_file(ing, "schema/indexes.sql") != 0) {
            ingest_free(ing);
            return NULL;
        }
        memory_db = ing->db, ing->borrowed = 1;
        tdb_stmt_cache_for(memory_db);
    } else if (tdb_db_open_new(open_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, setup, &ing->db) != SQLITE_OK) {
        fprintf(err, "tracedb: cannot open %s: %s\n", open_path, ing->db ? sqlite3_errmsg(ing->db) : "out of memory");
        ingest_free(ing);
        return NULL;
    }
    int ok;
    if (mode == TDB_OPEN_LIVE) {
        /* Readers see each commit; a killed process keeps every committed batch (synchronous=OFF
         * risks only an operating-system crash). Indexes come at the end, as for imports: kept up
         * row by row they cost a range a fifth more. */
        ok = ingest_exec(ing, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-4096; BEGIN;") == 0 &&
             ingest_exec_file(ing, "schema/schema.sql") == 0 &&
             ingest_exec(ing, "PRAGMA user_version=" TDB_SCHEMA_VERSION_STR) == 0 &&
             ingest_exec_file(ing, "schema/views.sql") == 0 &&
             ingest_exec(ing, "INSERT INTO meta VALUES ('import_status', 'recording'); COMMIT; BEGIN;") == 0;
    } else if (mode == TDB_OPEN_MEMORY) {
        ok = ingest_exec(ing, "BEGIN") == 0;
        ing->fresh = 0; /* its views exist */
    } else if (mode != TDB_OPEN_APPEND) {
        ok = ingest_exec(ing, "PRAGMA synchronous=OFF; PRAGMA cache_size=-4096;"
                              "PRAGMA temp_store=FILE; BEGIN;") == 0 &&
             ingest_exec_file(ing, "schema/schema.sql") == 0 &&
             ingest_exec(ing, "PRAGMA user_version=" TDB_SCHEMA_VERSION_STR) == 0;
    } else {
        sqlite3_stmt *st;
        int version = -1;
        if (tdb_stmt_prepare(ing->db, "PRAGMA user_version", -1, 0, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            version = sqlite3_column_int(st, 0);
        tdb_stmt_finalize(st);
        if (version != TDB_SCHEMA_VERSION) {
            fprintf(err, "tracedb: %s: not a tracedb database of schema version %d (found %d)\n", path,
                    TDB_SCHEMA_VERSION, version);
            ingest_free(ing);
            return NULL;
        }
        ok = ingest_exec(ing, "PRAGMA cache_size=-4096; BEGIN IMMEDIATE;") == 0 && ingest_load_existing(ing) == 0;
    }
    if (ok && !(ing->rows = row_writer_start(ing->db, ing->path, err, ing->live || mode == TDB_OPEN_MEMORY, mode == TDB_OPEN_MEMORY)))
        ok = 0;
    if (!ok) {
        tdb_ingest_abort(ing);
        return NULL;
    }
    ing->first_event = ing->next_event;
    const char *timing = getenv("TRACEDB_TIMING");
    ing->timing = timing && *timing && strcmp(timing, "0") != 0;
    ingest_phase(ing, "open");
    return ing;
}

/* ---------------------------------------------------------------- traces, tracks, kinds */

/* Waits for the row writer so that this thread may use the database directly. */
static int ingest_sync(struct tdb_ingest *ing)
{
    return row_writer_sync(ing->rows);
}

int64_t tdb_ingest_begin_trace(struct tdb_ingest *ing, const char *source_file, const char *format)
{
    sqlite3_stmt *st;
    if (ingest_sync(ing) != 0)
        return -1;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO trace (source_file, source_format, status) VALUES (?1, ?2, 'importing')", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_text(st, 1, source_file, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    ing->trace_id = sqlite3_last_insert_rowid(ing->db);
    ing->trace_first_event = ing->next_event;
    ing->overlaps = 0;
    ing->first_ns = INT64_MAX;
    ing->last_ns = INT64_MIN;
    return ing->trace_id;
}

int tdb_ingest_resume_trace(struct tdb_ingest *ing, int64_t trace_id, const struct tdb_trace_info *info)
{
    sqlite3_stmt *st;
    int sync_rc = ingest_sync(ing);
    ingest_phase(ing, "insert");
    if (sync_rc != 0 ||
        sqlite3_prepare_v2(ing->db,
                           /* one scan in id order; names only where device_time_class needs them (GPU
                            * work), memory details only for memory events */
                           "SELECT e.id, e.kind, e.name_id, CASE WHEN e.kind IN (?2, ?3, ?4) THEN "
                           "(SELECT value FROM string WHERE id = e.name_id) END, e.thread_id, e.start_ns, e.dur_ns, "
                           "e.correlation, e.device, e.bytes, CASE WHEN e.kind = ?5 THEN "
                           "(SELECT device_type FROM memory_event WHERE event_id = e.id) END FROM event e "
                           "WHERE (SELECT count(*) FROM trace) = 1 OR e.thread_id IN (SELECT t.id FROM thread t "
                           "JOIN process p ON p.id = t.process_id WHERE p.trace_id = ?1) ORDER BY e.id",
                           -1, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot read the trace back");
    sqlite3_bind_int64(st, 1, trace_id);
    sqlite3_bind_int(st, 2, TDB_KIND_KERNEL);
    sqlite3_bind_int(st, 3, TDB_KIND_MEMCPY);
    sqlite3_bind_int(st, 4, TDB_KIND_MEMSET);
    sqlite3_bind_int(st, 5, TDB_KIND_MEMORY);
    ing->trace_id = trace_id;
    ing->overlaps = 0;
    ing->first_ns = INT64_MAX;
    ing->last_ns = INT64_MIN;
    int rc = 0;
    size_t ord = 0, ids_cap = 0;
    ing->reading_back = 1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (ord == 0)
            ing->trace_first_event = id;
        if (ord == ids_cap) {
            ids_cap = ids_cap ? ids_cap * 2 : 65536;
            int64_t *ids = realloc(ing->key_id, ids_cap * sizeof *ids);
            if (!ids) {
                rc = ingest_fail(ing, "out of memory");
                break;
            }
            ing->key_id = ids;
        }
        ing->key_id[ord] = id;
        struct tdb_event ev;
        tdb_event_init(&ev);
        ev.kind = sqlite3_column_int(st, 1);
        ev.name = (struct tdb_str){(const char *)sqlite3_column_text(st, 3), (size_t)sqlite3_column_bytes(st, 3)};
        ev.thread_id = sqlite3_column_int64(st, 4);
        ev.start_ns = sqlite3_column_int64(st, 5);
        ev.dur_ns = sqlite3_column_int64(st, 6);
        if (sqlite3_column_type(st, 7) != SQLITE_NULL)
            ev.correlation = sqlite3_column_int64(st, 7);
        if (sqlite3_column_type(st, 8) != SQLITE_NULL)
            ev.device = sqlite3_column_int64(st, 8);
        if (sqlite3_column_type(st, 9) != SQLITE_NULL)
            ev.bytes = sqlite3_column_int64(st, 9);
        if (sqlite3_column_type(st, 10) != SQLITE_NULL)
            ev.device_type = sqlite3_column_int64(st, 10);
        if (ingest_keep_keys(ing, ord, &ev, sqlite3_column_int64(st, 2)) == -1)
            rc = -1;
        else if ((ev.kind == TDB_KIND_KERNEL || ev.kind == TDB_KIND_MEMCPY || ev.kind == TDB_KIND_MEMSET) &&
                 ev.device != TDB_NULL && ev.dur_ns > 0 &&
                 device_time_add(&ing->devices, (uint32_t)ord, ev.device, device_time_class(ev.kind, ev.name)) != 0)
            rc = -1;
        ord++;
    }
    tdb_stmt_finalize(st);
    ing->reading_back = 0;
    if (rc != 0) {
        ingest_free_keys(ing);
        return -1;
    }
    ingest_phase(ing, "read back");
    if (ord == 0)
        ing->trace_first_event = ing->next_event;
    /* the sweep covers [trace_first_event, next_event): for a resumed trace, exactly its rows */
    int64_t saved_next = ing->next_event;
    ing->next_event = ing->trace_first_event + (int64_t)ord;
    rc = tdb_ingest_end_trace(ing, info);
    ing->next_event = saved_next;
    return rc;
}

/* Builds the key "<trace><is_text><pid>\0<is_text><tid>" in the scratch buffer. */
static size_t ingest_track_key(struct tdb_ingest *ing, int pid_is_text, struct tdb_str pid, int with_tid,
                               int tid_is_text, struct tdb_str tid)
{
    size_t n = sizeof ing->trace_id + 2 + pid.n + (with_tid ? 1 + tid.n : 0);
    char *k = ingest_key(ing, n);
    if (!k)
        return 0;
    size_t o = 0;
    memcpy(k, &ing->trace_id, sizeof ing->trace_id), o += sizeof ing->trace_id;
    k[o++] = (char)pid_is_text;
    memcpy(k + o, pid.p, pid.n), o += pid.n;
    k[o++] = 0;
    if (with_tid) {
        k[o++] = (char)tid_is_text;
        memcpy(k + o, tid.p, tid.n), o += tid.n;
    }
    return o;
}

int64_t tdb_ingest_thread(struct tdb_ingest *ing, int pid_is_text, struct tdb_str pid, int tid_is_text,
                          struct tdb_str tid)
{
    size_t n = ingest_track_key(ing, pid_is_text, pid, 1, tid_is_text, tid);
    if (!n)
        return -1;
    int64_t id = strmap_get(&ing->threads, ing->key, n);
    if (id >= 0)
        return id;

    size_t pn = ingest_track_key(ing, pid_is_text, pid, 0, 0, tid);
    int64_t proc = strmap_get(&ing->processes, ing->key, pn);
    if (proc < 0) {
        proc = ing->next_process++;
        if (strmap_put(&ing->processes, ing->key, pn, proc) != 0)
            return -1;
        if (row_writer_process(ing->rows, proc, ing->trace_id, pid_is_text, pid) != 0)
            return -1;
    }
    id = ing->next_thread++;
    n = ingest_track_key(ing, pid_is_text, pid, 1, tid_is_text, tid);
    if (strmap_put(&ing->threads, ing->key, n, id) != 0)
        return -1;
    if (row_writer_thread(ing->rows, id, proc, tid_is_text, tid) != 0)
        return -1;
    return id;
}

int64_t tdb_ingest_thread_ids(struct tdb_ingest *ing, int64_t pid, int64_t tid)
{
    char p[24], t[24];
    int pn = snprintf(p, sizeof p, "%lld", (long long)pid), tn = snprintf(t, sizeof t, "%lld", (long long)tid);
    return tdb_ingest_thread(ing, 0, (struct tdb_str){p, (size_t)pn}, 0, (struct tdb_str){t, (size_t)tn});
}

int tdb_ingest_thread_meta(struct tdb_ingest *ing, int64_t thread_id, const char *field, struct tdb_str text,
                           int64_t number)
{
    static const char *const fields[META_FIELDS] = {
        [META_PROCESS_NAME] = "process_name", [META_PROCESS_LABELS] = "process_labels",
        [META_PROCESS_SORT] = "process_sort_index", [META_THREAD_NAME] = "thread_name",
        [META_THREAD_SORT] = "thread_sort_index",
    };
    for (int i = 0; i < META_FIELDS; i++) /* queued after the thread's own row: no wait for the writer */
        if (strcmp(field, fields[i]) == 0)
            return row_writer_meta(ing->rows, thread_id, (enum row_meta_field)i, text, number);
    return 0; /* metadata we do not keep */
}

int tdb_ingest_custom_kind(struct tdb_ingest *ing, struct tdb_str cat)
{
    char *k = ingest_key(ing, cat.n + 1);
    if (!k)
        return -1;
    for (size_t i = 0; i < cat.n; i++) {
        char c = cat.p[i];
        k[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    int64_t id = strmap_get(&ing->kinds, k, cat.n);
    if (id >= 0)
        return (int)id;
    id = ing->next_kind++;
    if (strmap_put(&ing->kinds, k, cat.n, id) != 0)
        return -1;
    sqlite3_stmt *st;
    if (ingest_sync(ing) != 0 || tdb_stmt_prepare(ing->db, "INSERT INTO kind (id, name) VALUES (?1, ?2)", -1, 0, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_text(st, 2, k, (int)cat.n, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    return rc == SQLITE_DONE ? (int)id : ingest_fail(ing, "cannot write");
}

int tdb_ingest_device(struct tdb_ingest *ing, int64_t device_id, struct tdb_str name, struct tdb_str props_json)
{
    sqlite3_stmt *st;
    if (ingest_sync(ing) != 0)
        return -1;
    if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO device (id, trace_id, name, properties) VALUES (?1, ?2, ?3, ?4)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, device_id);
    sqlite3_bind_int64(st, 2, ing->trace_id);
    if (name.p)
        sqlite3_bind_text(st, 3, name.p, (int)name.n, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, props_json.p, (int)props_json.n, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot write");
}

/* ---------------------------------------------------------------- events */

void tdb_event_init(struct tdb_event *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->correlation = ev->external_id = ev->device = ev->stream = ev->bytes = TDB_NULL;
    ev->registers = ev->shared_mem = ev->addr = ev->total_allocated = ev->total_reserved = ev->device_type = TDB_NULL;
    for (int i = 0; i < 3; i++)
        ev->grid[i] = ev->block[i] = TDB_NULL;
    ev->blocks_per_sm = ev->warps_per_sm = ev->occupancy_pct = NAN;
    ev->launch_id = ev->parent_id = ev->self_ns = ev->id = TDB_NULL;
}

int64_t tdb_ingest_reserve_id(struct tdb_ingest *ing)
{
    return ing->next_event++;
}

int64_t tdb_ingest_event(struct tdb_ingest *ing, const struct tdb_event *in)
{
    struct tdb_event clamped;
    const struct tdb_event *ev = in;
    if (in->start_ns > TDB_TIME_MAX || in->start_ns < -TDB_TIME_MAX || in->dur_ns < 0 ||
        in->dur_ns > TDB_TIME_MAX - (in->start_ns > 0 ? in->start_ns : 0)) {
        clamped = *in; /* importers refuse such times; a caller that does not is held to the range here */
        clamped.start_ns = in->start_ns > TDB_TIME_MAX ? TDB_TIME_MAX : in->start_ns < -TDB_TIME_MAX ? -TDB_TIME_MAX : in->start_ns;
        int64_t room = TDB_TIME_MAX - clamped.start_ns; /* the end stays within the range too */
        clamped.dur_ns = in->dur_ns < 0 ? 0 : in->dur_ns > room ? room : in->dur_ns;
        ev = &clamped;
    }
    int64_t name = ingest_string(ing, ev->name);
    int64_t cat = ev->cat.p ? ingest_string(ing, ev->cat) : TDB_NULL;
    if (name < 0 || cat == -1)
        return -1;
    if (ing->live) {
        int64_t id = ev->id != TDB_NULL ? ev->id : ing->next_event++; /* a recording keeps nothing per event in memory: the end of the trace reads rows back */
        if (row_writer_event(ing->rows, id, name, cat, ev) != 0)
            return -1;
        ing->events++;
        return id;
    }
    int64_t id = ing->next_event++;
    int64_t launch = ingest_keep_keys(ing, (size_t)(id - ing->trace_first_event), ev, name);
    if (launch == -1)
        return -1;
    if ((ev->kind == TDB_KIND_KERNEL || ev->kind == TDB_KIND_MEMCPY || ev->kind == TDB_KIND_MEMSET) &&
        ev->device != TDB_NULL && ev->dur_ns > 0 &&
        device_time_add(&ing->devices, (uint32_t)(id - ing->trace_first_event), ev->device,
                        device_time_class(ev->kind, ev->name)) != 0)
        return -1;
    struct tdb_event row = *ev;
    row.launch_id = launch >= 0 ? ing->trace_first_event + launch : TDB_NULL;
    if (row_writer_event(ing->rows, id, name, cat, &row) != 0)
        return -1;
    ing->events++;
    return id;
}

int tdb_ingest_counter(struct tdb_ingest *ing, int64_t thread_id, struct tdb_str name, int64_t ts_ns, double value)
{
    int64_t nid = ingest_string(ing, name);
    if (nid < 0)
        return -1;
    return row_writer_counter(ing->rows, thread_id, nid, ts_ns, value);
}

int tdb_ingest_flow(struct tdb_ingest *ing, int64_t thread_id, int64_t flow_id, struct tdb_str cat, char phase,
                    int64_t ts_ns, int bind_enclosing)
{
    int64_t cid = cat.p ? ingest_string(ing, cat) : TDB_NULL;
    if (cid == -1)
        return -1;
    return row_writer_flow(ing->rows, thread_id, flow_id, cid, phase, ts_ns, bind_enclosing);
}

int tdb_ingest_commit(struct tdb_ingest *ing)
{
    if (ingest_sync(ing) != 0)
        return -1;
    return ingest_exec(ing, "COMMIT; BEGIN;");
}

struct sqlite3 *tdb_ingest_sqlite(struct tdb_ingest *ing)
{
    return ingest_sync(ing) == 0 ? ing->db : NULL;
}

/* ---------------------------------------------------------------- nesting and links */

/* Links GPU work to its launch (launch[ord] = launch ordinal + 1) and adds device time and memory to
 * the per-name aggregates of the operators around them: "self" for the operator that launched the
 * work (the parent of the runtime call) or holds the [memory] event, "total" for it and every
 * ancestor, as PyTorch's profiler attributes them. Runs after the sweep: key_track holds parents. */
static void ingest_attribute(struct tdb_ingest *ing, uint32_t *launch)
{
    const uint32_t *parent = ing->key_track;
    for (size_t i = 0; i < ing->nattribs; i++) {
        const struct attrib *a = &ing->attribs[i];
        uint32_t p; /* ordinal + 1 of the operator the value belongs to */
        int64_t v;
        if (a->what == AT_LINK || a->what == AT_DEVICE) {
            int64_t l = corrmap_get(&ing->launches, a->key);
            if (l < 0)
                continue;
            launch[a->ord] = ((uint32_t)l + 1) | (a->early ? LAUNCH_IN_ROW : 0);
            if (a->what == AT_LINK)
                continue;
            p = parent[l];
            v = ing->key_dur[a->ord];
        } else {
            p = parent[a->ord];
            v = a->key;
        }
        if (!p)
            continue;
        struct stat_row *direct = &ing->stats[ing->key_stat[p - 1]];
        if (a->what == AT_DEVICE)
            direct->self_device = tdb_sat_add(direct->self_device, v);
        else if (a->what == AT_MEM_CPU)
            direct->self_cpu_mem = tdb_sat_add(direct->self_cpu_mem, v);
        else
            direct->self_device_mem = tdb_sat_add(direct->self_device_mem, v);
        for (uint32_t q = p; q; q = parent[q - 1]) {
            struct stat_row *r = &ing->stats[ing->key_stat[q - 1]];
            if (a->what == AT_DEVICE)
                r->device_total = tdb_sat_add(r->device_total, v);
            else if (a->what == AT_MEM_CPU)
                r->cpu_mem = tdb_sat_add(r->cpu_mem, v);
            else
                r->device_mem = tdb_sat_add(r->device_mem, v);
        }
    }
}

/* The sweep's results, read by the tdb_nest() SQL function during the one UPDATE that stores them. */
struct nest_result {
    int64_t base;            /* id of ordinal 0 */
    const int64_t *ids;      /* id of each ordinal when they have gaps (a read-back trace), else NULL */
    size_t cursor;           /* with ids: where the last id was found (the update walks ids in order) */
    size_t n;
    const uint32_t *parent;  /* ordinal + 1, 0 = none */
    const uint16_t *depth;
    const int64_t *self;
    const int64_t *dur;
    const uint32_t *launch;  /* ordinal + 1, 0 = none; LAUNCH_IN_ROW when the row has it already */
};

/* tdb_nest(id, column): 0 parent_id, 1 depth, 2 self_ns, 3 launch_id (NULL when none), 4 whether the
 * row changes at all (most GPU rows do not: no parent, no children, launch written with the row);
 * tdb_nest(id, 5, parent_id, depth, self_ns, launch_id): whether a row read back, holding these, changes. */
static void nest_value(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct nest_result *r = *(struct nest_result **)sqlite3_user_data(ctx);
    if (!r) {
        sqlite3_result_null(ctx);
        return;
    }
    int64_t id = sqlite3_value_int64(argv[0]), i = id - r->base;
    if (r->ids && r->cursor < r->n && r->ids[r->cursor] == id) {
        i = (int64_t)r->cursor; /* the same row again */
    } else if (r->ids && r->cursor + 1 < r->n && r->ids[r->cursor + 1] == id) {
        i = (int64_t)++r->cursor; /* the next row */
    } else if (r->ids) { /* else a binary search: ids ascend */
        size_t lo = 0, hi = r->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->ids[mid] < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo < r->n && r->ids[lo] == id ? (int64_t)lo : -1;
        if (i >= 0)
            r->cursor = (size_t)i;
    }
    if (i < 0 || (size_t)i >= r->n) {
        sqlite3_result_null(ctx);
        return;
    }
    switch (sqlite3_value_int(argv[1])) {
    case 0:
        if (r->parent[i])
            sqlite3_result_int64(ctx, r->ids ? r->ids[r->parent[i] - 1] : r->base + r->parent[i] - 1);
        else
            sqlite3_result_null(ctx);
        break;
    case 1:
        sqlite3_result_int(ctx, r->depth[i]);
        break;
    case 2:
        sqlite3_result_int64(ctx, r->self[i]);
        break;
    case 3:
        if (r->launch[i] & ~LAUNCH_IN_ROW) {
            uint32_t l = (r->launch[i] & ~LAUNCH_IN_ROW) - 1;
            sqlite3_result_int64(ctx, r->ids ? r->ids[l] : r->base + l);
        } else
            sqlite3_result_null(ctx);
        break;
    case 4:
        sqlite3_result_int(ctx, r->parent[i] || r->self[i] != r->dur[i] ||
                                    (r->launch[i] && !(r->launch[i] & LAUNCH_IN_ROW)));
        break;
    default: { /* 5: whether the row's parent_id, depth, self_ns, launch_id (argv 2-5) differ from these */
        int64_t parent = r->parent[i] ? (r->ids ? r->ids[r->parent[i] - 1] : r->base + r->parent[i] - 1) : TDB_NULL;
        int64_t launch = TDB_NULL;
        if (r->launch[i] & ~LAUNCH_IN_ROW) {
            uint32_t l = (r->launch[i] & ~LAUNCH_IN_ROW) - 1;
            launch = r->ids ? r->ids[l] : r->base + l;
        }
        int differs = argc < 6 || sqlite3_value_int64(argv[3]) != r->depth[i] || sqlite3_value_int64(argv[4]) != r->self[i];
        if (!differs)
            differs = parent == TDB_NULL ? sqlite3_value_type(argv[2]) != SQLITE_NULL
                                         : sqlite3_value_type(argv[2]) == SQLITE_NULL || sqlite3_value_int64(argv[2]) != parent;
        if (!differs && launch != TDB_NULL)
            differs = sqlite3_value_type(argv[5]) == SQLITE_NULL || sqlite3_value_int64(argv[5]) != launch;
        sqlite3_result_int(ctx, differs);
    }
    }
}

/* Sweeps the current trace's events (nesting.c), links GPU work to launches, and writes both back in
 * one pass in id order; rows with no parent, no children and no launch keep their defaults. */
static int ingest_nest_and_link(struct tdb_ingest *ing)
{
    size_t n = (size_t)(ing->next_event - ing->trace_first_event);
    if (n == 0)
        return 0;
    ing->key_depth = malloc(n * sizeof *ing->key_depth);
    uint32_t *launch = calloc(n, sizeof *launch); /* ordinal of the launch + 1 */
    if (!ing->key_depth || !launch) {
        free(launch);
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    /* parent aliases key_track, self aliases key_start */
    int64_t overlaps = nesting_compute(n, ing->key_track, ing->key_start, ing->key_dur, ing->key_track,
                                       ing->key_depth, ing->key_start);
    if (overlaps < 0) {
        free(launch);
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    ing->overlaps = overlaps;
    ingest_attribute(ing, launch);
    ingest_phase(ing, "nesting sweep");
    const int64_t *self = ing->key_start;
    for (size_t i = 0; i < n; i++)
        ing->stats[ing->key_stat[i]].self = tdb_sat_add(ing->stats[ing->key_stat[i]].self, self[i]);
    /* One sequential pass over the trace's rows; each row asks nest_value() for its new values. */
    /* ids are looked up only when they have gaps (binary search); else id - first is the ordinal */
    const int64_t *ids = ing->key_id && ing->key_id[n - 1] - ing->key_id[0] + 1 != (int64_t)n ? ing->key_id : NULL;
    struct nest_result res = {ing->trace_first_event, ids, 0, n, ing->key_track, ing->key_depth, ing->key_start,
                              ing->key_dur, launch};
    int rc = 0;
    sqlite3_stmt *upd;
    /* Imported rows were written with no nesting: those the sweep gives any are rewritten. Rows read
     * back (a recording) may carry nesting already (the recorder's own stacks): only rows where the
     * sweep, the one rule, says otherwise are rewritten. */
    const char *sql = ing->key_id
                          ? "UPDATE event SET parent_id = tdb_nest(id, 0), depth = tdb_nest(id, 1), "
                            "self_ns = tdb_nest(id, 2), launch_id = coalesce(tdb_nest(id, 3), launch_id) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(id, 5, parent_id, depth, self_ns, launch_id)"
                          : "UPDATE event SET parent_id = tdb_nest(id, 0), depth = tdb_nest(id, 1), "
                            "self_ns = tdb_nest(id, 2), launch_id = coalesce(tdb_nest(id, 3), launch_id) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(id, 4)";
    /* registered once per connection (registering again would expire every prepared statement); the
     * function reads the sweep's results through a slot that points at them only meanwhile */
    static struct nest_result *memory_slot; /* the in-memory database's, which outlives each ingest */
    static int memory_registered;
    struct nest_result **slot = ing->borrowed ? &memory_slot : &ing->nest_slot;
    int registered = ing->borrowed ? memory_registered : ing->nest_registered;
    if ((!registered &&
         (sqlite3_create_function(ing->db, "tdb_nest", 2, SQLITE_UTF8, slot, nest_value, NULL, NULL) != SQLITE_OK ||
          sqlite3_create_function(ing->db, "tdb_nest", 6, SQLITE_UTF8, slot, nest_value, NULL, NULL) != SQLITE_OK)) ||
        tdb_stmt_prepare(ing->db, sql, -1, 0, &upd, NULL) != SQLITE_OK) {
        free(launch);
        return ingest_fail(ing, "cannot prepare the nesting update");
    }
    if (ing->borrowed)
        memory_registered = 1;
    else
        ing->nest_registered = 1;
    *slot = &res;
    sqlite3_bind_int64(upd, 1, ing->trace_first_event);
    sqlite3_bind_int64(upd, 2, ing->key_id ? ing->key_id[n - 1] + 1 : ing->trace_first_event + (int64_t)n);
    rc = ingest_step(ing, upd);
    tdb_stmt_finalize(upd);
    *slot = NULL;
    free(launch);
    return rc;
}

static int ingest_write_stats(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO event_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                           "?13, ?14, ?15)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = 0;
    for (size_t i = 0; i < ing->nstats && rc == 0; i++) {
        const struct stat_row *r = &ing->stats[i];
        sqlite3_bind_int64(st, 1, ing->trace_id);
        sqlite3_bind_int64(st, 2, r->kind);
        sqlite3_bind_int64(st, 3, r->name_id);
        bind_int_or_null(st, 4, r->device);
        sqlite3_bind_int64(st, 5, r->calls);
        sqlite3_bind_int64(st, 6, r->total);
        sqlite3_bind_int64(st, 7, r->self);
        sqlite3_bind_int64(st, 8, r->min);
        sqlite3_bind_int64(st, 9, r->max);
        sqlite3_bind_int64(st, 10, r->self_device);
        sqlite3_bind_int64(st, 11, r->device_total);
        sqlite3_bind_int64(st, 12, r->self_cpu_mem);
        sqlite3_bind_int64(st, 13, r->cpu_mem);
        sqlite3_bind_int64(st, 14, r->self_device_mem);
        sqlite3_bind_int64(st, 15, r->device_mem);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    return rc;
}

/* ---------------------------------------------------------------- end of trace, finish */

int tdb_ingest_end_trace(struct tdb_ingest *ing, const struct tdb_trace_info *info)
{
    if (ing->live && !ing->resuming) { /* the rows are the keys: read them back, then end as an import */
        ing->resuming = 1;
        int rc = tdb_ingest_resume_trace(ing, ing->trace_id, info);
        ing->resuming = 0;
        return rc;
    }
    if (ingest_sync(ing) != 0)
        return -1;
    ingest_phase(ing, "parse+insert");
    int rc;
    /* device_stats reads the start and dur keys, before the sweep turns start into self time */
    rc = device_time_write(&ing->devices, ing->key_start, ing->key_dur, ing->db, ing->trace_id) != 0
                 ? ingest_fail(ing, "cannot write device_stats")
                 : 0;
    if (rc == 0)
        rc = ingest_nest_and_link(ing);
    if (rc == 0)
        rc = ingest_write_stats(ing);
    ingest_free_keys(ing);
    if (rc != 0)
        return -1;
    ingest_phase(ing, "write nesting");
    sqlite3_stmt *st;

    if (tdb_stmt_prepare(ing->db,
                           "UPDATE trace SET name = ?2, base_time_ns = ?3, rank = ?4, device_properties = ?5, "
                           "distributed_info = ?6, extra = ?7, status = ?8, skipped_events = ?9, overlaps = ?10, "
                           "error = ?11, source_format = coalesce(?12, source_format), first_ns = coalesce(?13, first_ns), last_ns = coalesce(?14, last_ns) WHERE id = ?1", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    sqlite3_bind_text(st, 2, info->name, -1, SQLITE_STATIC);
    bind_int_or_null(st, 3, info->base_time_ns);
    bind_int_or_null(st, 4, info->rank);
    sqlite3_bind_text(st, 5, info->device_properties, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, info->distributed_info, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, info->extra, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, info->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, info->skipped_events);
    sqlite3_bind_int64(st, 10, ing->overlaps);
    sqlite3_bind_text(st, 11, info->error, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, info->source_format, -1, SQLITE_STATIC);
    bind_int_or_null(st, 13, ing->first_ns == INT64_MAX ? TDB_NULL : ing->first_ns);
    bind_int_or_null(st, 14, ing->last_ns == INT64_MIN ? TDB_NULL : ing->last_ns);
    rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot write");
}

/* "53 years", "2.0 days", "3.5 hours": a gap between traces in words. */
static void ingest_span_words(char *out, size_t n, double ns)
{
    double s = ns / 1e9;
    if (s >= 2 * 365.25 * 86400)
        snprintf(out, n, "%.0f years", s / (365.25 * 86400));
    else if (s >= 2 * 86400)
        snprintf(out, n, "%.1f days", s / 86400);
    else
        snprintf(out, n, "%.1f hours", s / 3600);
}

int tdb_ingest_check_trace(struct tdb_ingest *ing, int allow_duplicate, const char *file)
{
    if (ingest_sync(ing) != 0)
        return -1;
    static const char count_sql[] = "(SELECT count(*) FROM event WHERE thread_id IN (SELECT th.id FROM thread th "
                                    "JOIN process p ON p.id = th.process_id WHERE p.trace_id = %s))";
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT o.id, o.source_file, %s = %s FROM trace o, trace n WHERE n.id = ?1 AND o.id != n.id "
             "AND o.first_ns = n.first_ns AND o.last_ns = n.last_ns AND o.base_time_ns IS n.base_time_ns "
             "AND o.name IS n.name AND o.rank IS n.rank AND o.status = 'complete' LIMIT 1",
             "o.id", "n.id");
    /* the counts are compared in a second step, only for a candidate (they scan the events) */
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    int64_t dup = 0;
    char dup_file[512] = "";
    if (sqlite3_step(st) == SQLITE_ROW) {
        dup = sqlite3_column_int64(st, 0);
        snprintf(dup_file, sizeof dup_file, "%s", sqlite3_column_text(st, 1) ? (const char *)sqlite3_column_text(st, 1) : "?");
    }
    tdb_stmt_finalize(st);
    if (dup) {
        char a[256], b[256];
        snprintf(a, sizeof a, count_sql, "?1");
        snprintf(b, sizeof b, count_sql, "?2");
        snprintf(sql, sizeof sql, "SELECT %s = %s", a, b);
        if (tdb_stmt_prepare(ing->db, sql, -1, 0, &st, NULL) != SQLITE_OK)
            return ingest_fail(ing, "cannot prepare");
        sqlite3_bind_int64(st, 1, dup);
        sqlite3_bind_int64(st, 2, ing->trace_id);
        int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        tdb_stmt_finalize(st);
        if (same && !allow_duplicate) {
            fprintf(ing->err,
                    "tracedb: %s: the database already holds this trace (trace %lld, from %s: the same span, time "
                    "base, name, rank and event count); refused, nothing written (--allow-duplicate to import it again)\n",
                    file, (long long)dup, dup_file);
            return 1;
        }
    }
    /* another time base: far from every other trace, in absolute time */
    if (tdb_stmt_prepare(ing->db,
                           "SELECT n.first_ns + coalesce(n.base_time_ns, 0), n.last_ns + coalesce(n.base_time_ns, 0), "
                           "min(o.first_ns + coalesce(o.base_time_ns, 0)), max(o.last_ns + coalesce(o.base_time_ns, 0)), "
                           "max(o.last_ns - o.first_ns) FROM trace n, trace o WHERE n.id = ?1 AND o.id != n.id "
                           "AND o.first_ns IS NOT NULL AND n.first_ns IS NOT NULL", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 2) != SQLITE_NULL) {
        double nf = sqlite3_column_double(st, 0), nl = sqlite3_column_double(st, 1);
        double of = sqlite3_column_double(st, 2), ol = sqlite3_column_double(st, 3);
        double span = fmax(nl - nf, sqlite3_column_double(st, 4));
        double gap = nf > ol ? nf - ol : of > nl ? of - nl : 0;
        if (gap > fmax(3600e9, 10 * span)) {
            char g[64], all[64];
            ingest_span_words(g, sizeof g, gap);
            ingest_span_words(all, sizeof all, fmax(nl, ol) - fmin(nf, of));
            fprintf(ing->err,
                    "tracedb: %s: warning: its events lie %s %s those already in the database (another clock or time "
                    "base?); the database now spans %s, and reports that compare times across traces will mislead\n",
                    file, g, nf > ol ? "after" : "before", all);
        }
    }
    tdb_stmt_finalize(st);
    return 0;
}

const char *const tdb_anomaly_names[TDB_ANOMALY_COUNT] = {
    [TDB_ANOMALY_NEGATIVE_DUR] = "negative_dur",
    [TDB_ANOMALY_END_WITHOUT_BEGIN] = "end_without_begin",
    [TDB_ANOMALY_NEVER_ENDED] = "begin_never_ended",
    [TDB_ANOMALY_END_BEFORE_BEGIN] = "end_before_begin",
};

void tdb_ingest_count_anomalies(struct tdb_ingest *ing, const int64_t counts[TDB_ANOMALY_COUNT])
{
    for (int a = 0; a < TDB_ANOMALY_COUNT; a++)
        ing->anomalies[a] += counts[a];
}

/* meta anomalies.<name>: added to what an appended database already counts. */
static int ingest_write_anomalies(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db,
                           "INSERT INTO meta (key, value) VALUES ('anomalies.' || ?1, ?2) "
                           "ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = 0;
    for (int a = 0; a < TDB_ANOMALY_COUNT && rc == 0; a++) {
        if (!ing->anomalies[a])
            continue;
        sqlite3_bind_text(st, 1, tdb_anomaly_names[a], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ing->anomalies[a]);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    return rc;
}

static int ingest_write_meta(struct tdb_ingest *ing, int complete)
{
    if (ingest_write_anomalies(ing) != 0)
        return -1;
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    const char *pairs[][2] = {
        {"schema_version", TDB_SCHEMA_VERSION_STR},
        {"tool_version", TDB_VERSION},
        {"created_at", now},
        {"import_status", complete ? "complete" : "partial"},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && rc == 0; i++) {
        if (i == 2 && !ing->fresh)
            continue; /* an append keeps the creation time */
        sqlite3_bind_text(st, 1, pairs[i][0], -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, pairs[i][1], -1, SQLITE_STATIC);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    if (rc != 0)
        return rc;
    /* The first trace's facts, under plain keys, for users who read meta alone. */
    return ingest_run(ing,
                       "INSERT OR REPLACE INTO meta (key, value) SELECT k, v FROM (SELECT 'source_file' k, source_file v, 1 o FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'source_format', source_format, 2 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'trace_name', name, 3 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'base_time_ns', base_time_ns, 4 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'device_properties', device_properties, 5 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'distributed_info', distributed_info, 6 FROM trace WHERE id = (SELECT min(id) FROM trace) UNION ALL "
                       "SELECT 'trace_count', count(*), 7 FROM trace UNION ALL "
                       "SELECT 'event_count', count(*), 8 FROM event) ORDER BY o");
}

int tdb_ingest_finish(struct tdb_ingest *ing, int complete)
{
    int rc = row_writer_stop(ing->rows);
    ing->rows = NULL;
    if (rc != 0) {
        tdb_ingest_abort(ing);
        return -1;
    }
    rc = ingest_write_meta(ing, complete);
    if (rc == 0 && !ing->borrowed) /* the in-memory database has its indexes: no schema change, no re-prepare */
        rc = ingest_exec_file(ing, "schema/indexes.sql");
    ingest_phase(ing, "indexes");
    if (rc == 0 && ing->fresh) /* views exist already in an appended or a live database */
        rc = ingest_exec_file(ing, "schema/views.sql");
    if (rc == 0)
        rc = ingest_exec(ing, ing->borrowed ? "ROLLBACK" : "COMMIT");
    ingest_phase(ing, "commit");
    if (rc != 0) {
        tdb_ingest_abort(ing);
        return -1;
    }
    if (!ing->borrowed && !ing->tmp_path) /* a recording (or one finished) ends as one file, not three: */
        sqlite3_exec(ing->db, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL); /* a reader may keep it WAL */
    if (!ing->borrowed && sqlite3_close(ing->db) != SQLITE_OK) {
        fprintf(ing->err, "tracedb: %s: cannot close the database\n", ing->path);
        rc = -1;
    }
    ing->db = NULL;
    if (rc == 0 && ing->tmp_path && tdb_out_commit(ing->tmp_path, ing->path, ing->replace, ing->err) != 0)
        rc = -1;
    else if (rc != 0 && ing->tmp_path)
        tdb_out_discard(ing->tmp_path);
    ingest_free(ing);
    return rc;
}

void tdb_ingest_abort(struct tdb_ingest *ing)
{
    if (!ing)
        return;
    row_writer_stop(ing->rows);
    ing->rows = NULL;
    if (ing->db && !ing->tmp_path && !sqlite3_get_autocommit(ing->db)) /* a recording keeps what it has */
        sqlite3_exec(ing->db, ing->live ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
    ingest_close_db(ing);
    if (ing->tmp_path)
        tdb_out_discard(ing->tmp_path);
    ingest_free(ing);
}

/* ingest.c: writes events into a tracedb database: the shared back end of every importer, of merge,
 * finish and of the live recorder.
 *
 * A load runs in three parts:
 *   1. open: a new database is built in "<path>.tmp-<pid>" with the journal off and moved into place
 *      only when finished, so an existing file is never half-written; an append runs in one
 *      transaction on the existing file; a live recording (TDB_OPEN_LIVE) is written in place in WAL
 *      mode and committed as it goes.
 *   2. events: names and categories are interned in memory (strmap) and written once to `string`;
 *      tracks (pid, tid) likewise. Rows are nested as they come while their track is in order, and
 *      wait in a bounded reorder buffer until final (stream_nest.c); then they go to the row writer
 *      thread (row_writer.c) in batches, written once. For
 *      each event its per-name sums, its correlation (GPU work and launches) and what it attributes
 *      (memory bytes) are kept in external sorts (spill_sort.c): 8 MiB of memory each, sorted runs
 *      beside the database beyond that, so memory stays flat whatever the trace's size. (A live
 *      recording keeps the same as its rows are written, and nests them all at the end: its rows
 *      may carry nesting of their own; a recording resumed by `tracedb finish` reads its rows back.)
 *   3. end of trace (ingest_sweep.c): where a track could not be nested as it streamed in, every
 *      event's sweep key (32 bytes) is read from its row, sorted and swept (nesting.c: parent,
 *      depth, self time, PyTorch's rule); correlations pair GPU work with its launch; what rows do not
 *      hold yet (rows of tracks that came out of order, links to launches that came after their
 *      work) is written back in one sequential UPDATE, which also sums device time and memory per call path
 *      for the operators on it; then the per-name sums (event_stats) and device time (device_stats,
 *      device_time.c). A trace met before or on another time base is found (ingest_checks.c).
 *      Finish adds meta (ingest_checks.c), indexes and views, commits and claims the name.
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
#include <pthread.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ingest_internal.h"

/* ---------------------------------------------------------------- helpers */

/* Frees the per-trace keys (after the trace's end, or on abort). */
static void ingest_free_keys(struct tdb_ingest *ing)
{
    spill_sort_free(ing->keys), spill_sort_free(ing->corrs), spill_sort_free(ing->results);
    ing->keys = ing->corrs = ing->results = NULL;
    strmap_free(&ing->stat_index);
    free(ing->stats);
    ing->stats = NULL, ing->nstats = ing->stats_cap = 0;
    memset(ing->stat_seen, 0, sizeof ing->stat_seen);
    strmap_free(&ing->path_index);
    free(ing->paths);
    ing->paths = NULL, ing->npaths = ing->paths_cap = 0;
    free(ing->recent);
    ing->recent = NULL;
}

int ingest_sort_failed(struct tdb_ingest *ing, struct spill_sort *s)
{
    const char *why = s ? spill_sort_error(s) : NULL;
    fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why ? why : "out of memory");
    return -1;
}

/* The per-trace sorts, made at the trace's first event: the keys (32 bytes an event; a recording's 48,
 * with what each row holds) hold up to sort_budget bytes in memory, the results (24 bytes a record) and
 * the correlations half that each (the results fill while the keys do: the call paths of launches and
 * [memory] events streaming in). */
static int ingest_sorts_new(struct tdb_ingest *ing)
{
    strmap_init(&ing->stat_index);
    strmap_init(&ing->path_index);
    ing->held_keys = ing->live && !ing->reading_back;
    ing->keys = spill_sort_new(ing->held_keys ? sizeof(struct nesting_held_key) : sizeof(struct nesting_key),
                               ing->sort_budget, nesting_key_cmp, ing->sort_dir);
    ing->corrs = spill_sort_new(sizeof(struct corr_rec), ing->sort_budget / 2, corr_rec_cmp, ing->sort_dir);
    ing->results = spill_sort_new(sizeof(struct result_rec), ing->sort_budget / 2, result_rec_cmp, ing->sort_dir);
    ing->rewrites = 0, ing->stream_abs = 0, ing->keys_in_rows = 0;
    ing->recent = calloc(RECENT_LAUNCHES, sizeof *ing->recent);
    ing->paths = malloc(256 * sizeof *ing->paths);
    if (!ing->keys || !ing->corrs || !ing->results || !ing->recent || !ing->paths) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    ing->paths_cap = 256, ing->npaths = 1;
    ing->paths[0] = (struct call_path){0, 0, 0, 0, 0};
    return 0;
}

/* A correlation's slot: its low 16 bits, moved by a hash of the rest. Correlations count up (CUPTI's), so
 * launches and their work, close in the trace, find slots next to each other (a hash of the whole id
 * spread them over the table: a cache miss each); ids 65536 apart (or 2^32, 2^48) land far apart. */
static size_t recent_slot(int64_t corr)
{
    uint64_t x = (uint64_t)corr, high = (x >> 16) * 0x9E3779B97F4A7C15ULL;
    return (size_t)((x + (high >> 48)) & (RECENT_LAUNCHES - 1));
}

/* Adds event ev (named name_id) to its (kind, name, device) aggregate; returns the aggregate's index. */
static int64_t ingest_stat(struct tdb_ingest *ing, const struct tdb_event *ev, int64_t name_id)
{
    int64_t key[3] = {ev->kind, name_id, ev->device};
    uint64_t h = ((uint64_t)name_id * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)ev->kind << 7) ^ (uint64_t)ev->device;
    struct stat_seen *seen = &ing->stat_seen[(h ^ (h >> 32)) % (sizeof ing->stat_seen / sizeof ing->stat_seen[0])];
    int64_t i;
    if (seen->index && seen->name_id == name_id && seen->kind == ev->kind && seen->device == ev->device)
        i = (int64_t)seen->index - 1;
    else if ((i = strmap_get(&ing->stat_index, key, sizeof key)) >= 0)
        *seen = (struct stat_seen){ev->kind, name_id, ev->device, (size_t)i + 1};
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
                                          .min = INT64_MAX, .max = INT64_MIN, .device_class = -1};
    }
    struct stat_row *r = &ing->stats[i];
    ing->last_stat = (size_t)i;
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

/* A launch or [memory] event: its values go to the operators around it. */
static int attributes_of(const struct tdb_event *ev)
{
    return (ev->kind == TDB_KIND_MEMORY && ev->bytes != TDB_NULL) ||
           ((ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER) && ev->correlation != TDB_NULL);
}

/* GPU work with a correlation: what can be linked to a launch. */
static int links_to_launch(const struct tdb_event *ev)
{
    return ev->correlation != TDB_NULL && (ev->kind == TDB_KIND_KERNEL || ev->kind == TDB_KIND_MEMCPY ||
                                           ev->kind == TDB_KIND_MEMSET || ev->kind == TDB_KIND_SYNC);
}

/* The correlation record of launch or GPU work ev (row ord); in_row: the ord of the launch its row holds,
 * or < 0. 0, or -1 (printed). */
static int keep_corr(struct tdb_ingest *ing, const struct tdb_event *ev, size_t ord, int64_t in_row)
{
    struct corr_rec *c = spill_sort_push(ing->corrs);
    if (!c)
        return ingest_sort_failed(ing, ing->corrs);
    int launch = ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER;
    *c = (struct corr_rec){ev->correlation, launch ? ev->start_ns : ev->dur_ns, (uint32_t)ord,
                           launch ? CORR_LAUNCH : ev->kind == TDB_KIND_SYNC ? CORR_LINK : CORR_DEVICE,
                           in_row >= 0 ? (uint32_t)in_row + 1 : 0, 0};
    return 0;
}

/* Row id as a held parent (nesting.h): its ord + 1; 0 for none; NESTING_UNKNOWN when outside the trace. */
static uint32_t held_ord(const struct tdb_ingest *ing, int64_t id)
{
    if (id == TDB_NULL)
        return 0;
    uint64_t ord = (uint64_t)id - (uint64_t)ing->trace_first_event;
    return id >= ing->trace_first_event && ord < 0xfffffffeu ? (uint32_t)ord + 1 : NESTING_UNKNOWN;
}

/* Keeps what the end of the trace needs about event ord: its correlation, what it attributes, and,
 * for rows read back, its sweep key (an import's are read from its rows when the sweep must run).
 * Returns the ord of the launch of GPU work when that launch was seen just before (the row is written
 * with it, and with its start, *launch_ns), -2 otherwise, -1 on error. */
static int64_t ingest_keep_keys(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev, int64_t name_id,
                                int64_t *launch_ns)
{
    if (ord >= 0xfffffffe) { /* ords + 1 fit in 32 bits */
        fprintf(ing->err, "tracedb: more than 4 billion events in one trace\n");
        return -1;
    }
    if (!ing->keys && ingest_sorts_new(ing) != 0)
        return -1;
    int64_t stat = ingest_stat(ing, ev, name_id);
    if (stat < 0) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    int written = ing->reading_back || ing->live; /* rows written already: linked by the end, never as they come */
    int recorded = written && !ing->reading_back; /* written just now, with ev's nesting and launch */
    if (written) { /* rows read back or recorded: their keys now; an import's wait in its rows (keys_in_rows) */
        struct nesting_key *k = spill_sort_push(ing->keys);
        if (!k)
            return ingest_sort_failed(ing, ing->keys);
        *k = (struct nesting_key){ev->start_ns, ev->dur_ns, (uint32_t)ev->thread_id, (uint32_t)ord, (uint32_t)stat,
                                  (uint32_t)attributes_of(ev)};
        if (ing->held_keys) /* what the row holds: coalesce(self_ns, dur_ns) as row_writer.c writes it */
            ((struct nesting_held_key *)k)->held =
                recorded ? (struct nesting_held){ev->self_ns != TDB_NULL ? ev->self_ns : ev->dur_ns,
                                                 held_ord(ing, ev->parent_id),
                                                 ev->depth >= 0 ? (uint32_t)ev->depth : NESTING_UNKNOWN}
                         : (struct nesting_held){0, NESTING_UNKNOWN, 0};
    } else {
        ing->keys_in_rows = 1;
    }
    if (ev->kind == TDB_KIND_MEMORY && ev->bytes != TDB_NULL) {
        struct result_rec *r = spill_sort_push(ing->results);
        if (!r)
            return ingest_sort_failed(ing, ing->results);
        *r = (struct result_rec){(uint32_t)ord, ev->device_type == 0 ? RES_MEM_CPU : RES_MEM_DEVICE, 0, 0, 0, ev->bytes};
        return -2;
    }
    if (ev->correlation == TDB_NULL)
        return -2;
    int launch = ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER, gpu = links_to_launch(ev);
    if (!launch && !gpu)
        return -2;
    size_t slot = recent_slot(ev->correlation);
    int64_t known = -2;
    struct recent_launch *r = &ing->recent[slot];
    if (launch && (!r->used || r->corr != ev->correlation)) /* the first launch seen stays */
        *r = (struct recent_launch){ev->correlation, ev->start_ns, (uint32_t)ord, 1};
    else if (gpu && !written && r->used && r->corr == ev->correlation)
        known = r->ord, *launch_ns = r->start;
    if (gpu && !written)
        return known; /* its record goes when its row leaves the reorder buffer (ingest_emit_row), which
                       * may have linked it to a launch that came after it */
    /* a recorded row holds the launch its recorder found: the end rewrites it only if it finds another */
    int64_t in_row = known;
    if (recorded && ing->held_keys && ev->launch_id != TDB_NULL) {
        uint32_t h = held_ord(ing, ev->launch_id);
        in_row = h && h != NESTING_UNKNOWN ? (int64_t)h - 1 : -2;
    }
    return keep_corr(ing, ev, ord, in_row) != 0 ? -1 : known;
}

/* The event of the current row of st, a scan of event rows whose columns are: id, kind, name_id, name
 * (or NULL), thread_id, start_ns, dur_ns, correlation, device, bytes[, a memory event's device_type]. */
static void event_of_row(sqlite3_stmt *st, struct tdb_event *ev)
{
    tdb_event_init(ev);
    ev->kind = sqlite3_column_int(st, 1);
    ev->name = (struct tdb_str){(const char *)sqlite3_column_text(st, 3), (size_t)sqlite3_column_bytes(st, 3)};
    ev->thread_id = sqlite3_column_int64(st, 4);
    ev->start_ns = sqlite3_column_int64(st, 5);
    ev->dur_ns = sqlite3_column_int64(st, 6);
    if (sqlite3_column_type(st, 7) != SQLITE_NULL)
        ev->correlation = sqlite3_column_int64(st, 7);
    if (sqlite3_column_type(st, 8) != SQLITE_NULL)
        ev->device = sqlite3_column_int64(st, 8);
    if (sqlite3_column_type(st, 9) != SQLITE_NULL)
        ev->bytes = sqlite3_column_int64(st, 9);
    if (sqlite3_column_count(st) > 10 && sqlite3_column_type(st, 10) != SQLITE_NULL)
        ev->device_type = sqlite3_column_int64(st, 10);
}

/* The sweep's keys of the current trace's events, read from their rows, as ingest_keep_keys would have
 * kept them as they came (the row holds what the key is made of: the times, the track, the aggregate's
 * kind, name and device, what it attributes). Imports keep none as events come: nearly every trace
 * nests as it streams in (stream_nest.c), and pushing and spilling a key an event cost its parser 3.5%;
 * a trace with a track the stream could not nest pays this one scan instead. 0, or -1 (printed). */
int ingest_keys_from_rows(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "SELECT id, kind, name_id, NULL, thread_id, start_ns, dur_ns, correlation, device, bytes "
                                  "FROM event WHERE id >= ?1 AND id < ?2", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, ing->trace_first_event);
    sqlite3_bind_int64(st, 2, ing->trace_end_event);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        struct tdb_event ev;
        event_of_row(st, &ev);
        int64_t id = sqlite3_column_int64(st, 0);
        int64_t key[3] = {ev.kind, sqlite3_column_int64(st, 2), ev.device};
        int64_t stat = strmap_get(&ing->stat_index, key, sizeof key);
        if (stat < 0) { /* cannot be: every row was counted as its event came */
            fprintf(ing->err, "tracedb: %s: internal error: event %lld has no aggregate\n", ing->path, (long long)id);
            rc = -1;
            break;
        }
        struct nesting_key *k = spill_sort_push(ing->keys);
        if (!k) {
            rc = ingest_sort_failed(ing, ing->keys);
            break;
        }
        *k = (struct nesting_key){ev.start_ns, ev.dur_ns, (uint32_t)ev.thread_id, (uint32_t)(id - ing->trace_first_event),
                                  (uint32_t)stat, (uint32_t)attributes_of(&ev)};
        if (ing->held_keys) /* (an import's keys hold nothing: this is for safety's sake) */
            ((struct nesting_held_key *)k)->held = (struct nesting_held){0, NESTING_UNKNOWN, 0};
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = ingest_fail(ing, "cannot read the rows back");
    tdb_stmt_finalize(st);
    return rc;
}

/* Keeps the interval of GPU work for device_stats (device_time.c). 0, or -1 (printed). */
static int ingest_keep_gpu_time(struct tdb_ingest *ing, size_t ord, const struct tdb_event *ev)
{
    if ((ev->kind != TDB_KIND_KERNEL && ev->kind != TDB_KIND_MEMCPY && ev->kind != TDB_KIND_MEMSET) ||
        ev->device == TDB_NULL || ev->dur_ns <= 0)
        return 0;
    struct stat_row *r = &ing->stats[ing->last_stat]; /* this event's, just counted: the class is asked once a name */
    if (r->device_class < 0)
        r->device_class = (int)device_time_class(ev->kind, ev->name);
    if (device_time_add(&ing->devices, (uint32_t)ord, ev->start_ns, ev->dur_ns, ev->device,
                        (enum device_class)r->device_class, ing->sort_budget / 4, ing->sort_dir) == 0)
        return 0;
    const char *why = device_time_error(&ing->devices);
    fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why ? why : "out of memory");
    return -1;
}

/* With TRACEDB_TIMING=1, says on stderr how long the phase that ends now took. */
void ingest_phase(struct tdb_ingest *ing, const char *done)
{
    tdb_phase_end(&ing->phases, done);
}

int ingest_fail(struct tdb_ingest *ing, const char *what)
{
    char why[512];
    fprintf(ing->err, "tracedb: %s: %s: %s\n", ing->path, what, tdb_db_errmsg(ing->db, why, sizeof why));
    return -1;
}


/* One statement, through the statement cache (see stmt_cache.h). */
int ingest_run(struct tdb_ingest *ing, const char *sql)
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

/* Every index (what a database made here already has is skipped: IF NOT EXISTS). */
static int ingest_indexes(struct tdb_ingest *ing)
{
    return ingest_exec_file(ing, "schema/indexes_early.sql") != 0 ? -1 : ingest_exec_file(ing, "schema/indexes.sql");
}

/* Runs a prepared statement to completion and resets it. */
int ingest_step(struct tdb_ingest *ing, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    return 0;
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
    /* the hint: where a string of this length, first, middle and last byte was found last */
    size_t h = s.n ? (s.n * 0x9Eu) ^ ((size_t)(unsigned char)s.p[0] << 2) ^ ((size_t)(unsigned char)s.p[s.n / 2] << 5) ^
                         (size_t)(unsigned char)s.p[s.n - 1]
                   : 0;
    int64_t id = strmap_get_hinted(&ing->strings, s.p, s.n, &ing->string_hint[h % STRING_HINTS]);
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

/* The largest id a database appended to may hold (2^62 - 1): new rows count on from it. */
#define APPEND_ID_MAX (((int64_t)1 << 62) - 1)

/* A database made before event.launch_ns gets it, filled from its rows' launches, in the append's
 * transaction: every row of a database that has the column holds it, as reports read it. */
static int ingest_add_launch_ns(struct tdb_ingest *ing)
{
    if (tdb_db_compiles(ing->db, "SELECT launch_ns FROM event LIMIT 0"))
        return 0;
    return ingest_exec(ing, "ALTER TABLE event ADD COLUMN launch_ns INTEGER; "
                            "UPDATE event SET launch_ns = (SELECT a.start_ns FROM event a WHERE a.id = event.launch_id) "
                            "WHERE launch_id IS NOT NULL");
}

/* A database made before event.flow gets it, in the append's transaction: its table flow (every half
 * a row of its own) becomes flow_loose, and the view flow, as schema.sql makes it, lists it and the
 * halves the new rows carry. */
static int ingest_add_flow(struct tdb_ingest *ing)
{
    if (tdb_db_compiles(ing->db, "SELECT flow FROM event LIMIT 0"))
        return 0;
    const char *schema = tdb_embedded_get("schema/schema.sql"), *view = schema ? strstr(schema, "CREATE VIEW flow AS") : NULL;
    const char *end = view ? strchr(view, ';') : NULL;
    char *sql = end ? sqlite3_mprintf("ALTER TABLE event ADD COLUMN flow INTEGER; ALTER TABLE flow RENAME TO flow_loose; %.*s;",
                                      (int)(end - view), view) : NULL;
    int rc = sql ? ingest_exec(ing, sql) : ingest_fail(ing, "out of memory");
    sqlite3_free(sql);
    return rc;
}

/* For an append: load what the database already holds so ids continue and names stay interned. */
static int ingest_load_existing(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (ingest_add_launch_ns(ing) != 0 || ingest_add_flow(ing) != 0)
        return -1;
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
    /* new rows take the ids after the largest; a stranger's database may hold one near 2^63 - 1, where
     * counting on would overflow: refused by name, far from it (2^62 ids are more than any trace) */
    static const char *const tables[] = {"string", "process", "thread", "event", "kind"};
    int64_t *next[] = {&ing->next_string, &ing->next_process, &ing->next_thread, &ing->next_event, &ing->next_kind};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        char sql[64];
        snprintf(sql, sizeof sql, "SELECT max(id) FROM %s", tables[i]);
        int64_t top = ingest_max_id(ing, sql);
        if (top > APPEND_ID_MAX) {
            fprintf(ing->err, "tracedb: %s: cannot append: its %s ids reach %lld (past 2^62), and new rows count on "
                              "from the largest\n", ing->path, tables[i], (long long)top);
            return -1;
        }
        *next[i] = top + 1;
    }
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

/* Fixes past this many (64 MB) leave the pack out instead: memory stays bounded. */
#define PACK_FIXES_MAX ((size_t)1 << 22)

void ingest_pack_fix(struct tdb_ingest *ing, int64_t id, int64_t launch_id)
{
    if (!ing->packing || ing->pack_broken)
        return;
    if (ing->npack_fixes == ing->cap_pack_fixes) {
        size_t cap = ing->cap_pack_fixes ? 2 * ing->cap_pack_fixes : 1024;
        int64_t(*a)[2] = cap <= PACK_FIXES_MAX ? realloc(ing->pack_fixes, cap * sizeof *a) : NULL;
        if (!a) { /* the import goes on without its pack */
            ing->pack_broken = 1;
            return;
        }
        ing->pack_fixes = a, ing->cap_pack_fixes = cap;
    }
    ing->pack_fixes[ing->npack_fixes][0] = id, ing->pack_fixes[ing->npack_fixes][1] = launch_id;
    ing->npack_fixes++;
}

static void ingest_free(struct tdb_ingest *ing)
{
    free(ing->pack_fixes);
    row_writer_stop(ing->rows);
    ing->rows = NULL;
    ingest_close_db(ing);
    strmap_free(&ing->strings);
    strmap_free(&ing->processes);
    strmap_free(&ing->threads);
    strmap_free(&ing->kinds);
    ingest_free_keys(ing);
    device_time_free(&ing->devices);
    stream_nest_free(ing->stream);
    free(ing->key);
    free(ing->sort_dir);
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
    if (exists && S_ISDIR(sb.st_mode)) {
        fprintf(err, "tracedb: %s is a directory; name a database file in it\n", path);
        return NULL;
    }
    int live = mode == TDB_OPEN_LIVE || mode == TDB_OPEN_REBUILD;
    if ((mode == TDB_OPEN_CREATE || live) && exists) {
        fprintf(err, "tracedb: %s already exists; use --force to replace it or --append to add to it\n", path);
        return NULL;
    }
    if ((mode == TDB_OPEN_CREATE || live) && lstat(path, &sb) == 0) { /* a link to nothing: said before any work */
        fprintf(err, "tracedb: %s is a symbolic link to a file that does not exist; name the file itself, or use "
                     "--force to replace the link\n", path);
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
    tdb_phase_start(&ing->phases);
    /* the end of each trace sorts what it kept per event in sort_budget bytes a sort (beside the
     * database beyond that): memory stays flat whatever the trace's size */
    const char *kib = getenv("TRACEDB_SORT_KIB");
    ing->sort_budget = kib && atol(kib) > 0 ? (size_t)atol(kib) * 1024 : SORT_BUDGET;
    const char *slash = strrchr(path, '/');
    ing->sort_dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!ing->sort_dir) {
        free(ing->path), free(ing);
        fprintf(err, "tracedb: out of memory\n");
        return NULL;
    }
    strmap_init(&ing->strings);
    strmap_init(&ing->processes);
    strmap_init(&ing->threads);
    strmap_init(&ing->kinds);
    ing->next_string = ing->next_process = ing->next_thread = ing->next_event = 1;
    ing->next_kind = TDB_KIND_FIRST_CUSTOM;

    const char *open_path = path;
    ing->live = live;
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
    } else if (live) { /* claim the name now: a second recording to it fails here */
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
     * only before it goes on. Its pages are 16 KiB: the writer thread's work on the bench trace is 7-10%
     * less than with 4 KiB (fewer pages to balance and write), reports no slower, a small trace's file
     * 320 KB instead of 110 KB (64 KiB: 1.3 MB, for 2% more). */
    const char *setup = mode == TDB_OPEN_APPEND || mode == TDB_OPEN_LIVE ? NULL : "PRAGMA page_size=16384; PRAGMA journal_mode=OFF";
    if (mode == TDB_OPEN_MEMORY && memory_db) {
        ing->db = memory_db, ing->borrowed = 1;
    } else if (mode == TDB_OPEN_MEMORY) {
        ing->db = NULL;
        if (tdb_db_open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &ing->db) != SQLITE_OK ||
            ingest_exec_file(ing, "schema/schema.sql") != 0 ||
            ingest_exec(ing, "PRAGMA user_version=" TDB_SCHEMA_VERSION_STR) != 0 ||
            ingest_exec_file(ing, "schema/views.sql") != 0 || ingest_indexes(ing) != 0) {
            ingest_free(ing);
            return NULL;
        }
        memory_db = ing->db, ing->borrowed = 1;
        tdb_stmt_cache_for(memory_db);
    } else if (tdb_db_open_new(open_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, setup, &ing->db) != SQLITE_OK) {
        char why[4200];
        const char *reason = open_path == ing->tmp_path ? tdb_out_unwritable(path, why, sizeof why) : NULL;
        if (reason) /* a new database: the user's name and why, not the temporary's and SQLite's words */
            fprintf(err, "tracedb: cannot create %s: %s\n", path, reason);
        else
            fprintf(err, "tracedb: cannot open %s: %s\n", open_path, ing->db ? sqlite3_errmsg(ing->db) : "out of memory");
        ingest_free(ing);
        return NULL;
    }
    int ok;
    if (live) {
        /* Readers see each commit; a killed process keeps every committed batch (synchronous=OFF
         * risks only an operating-system crash). Indexes come at the end, as for imports: kept up
         * row by row they cost a range a fifth more. A rebuild's file is read by no one until it
         * is whole: no WAL (each page would be written twice). */
        ok = ingest_exec(ing, mode == TDB_OPEN_REBUILD ? "PRAGMA synchronous=OFF; PRAGMA cache_size=-4096; BEGIN;" /* (a file no one reads) */
                                                       : "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-4096; BEGIN;") == 0 &&
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
             ingest_exec_file(ing, "schema/schema.sql") == 0 && ingest_exec_file(ing, "schema/indexes_early.sql") == 0 &&
             ingest_exec(ing, "PRAGMA user_version=" TDB_SCHEMA_VERSION_STR) == 0 &&
             ingest_exec_file(ing, "schema/event_pack.sql") == 0;
        ing->packing = 1;
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
        /* the rows to come would not be in an earlier import's pack: it goes first */
        ok = ingest_exec(ing, "PRAGMA cache_size=-4096; BEGIN IMMEDIATE;") == 0 && ingest_exec_file(ing, "schema/event_pack_drop.sql") == 0 &&
             ingest_load_existing(ing) == 0;
    }
    if (ok && !(ing->rows = row_writer_start(ing->db, ing->path, err, mode == TDB_OPEN_LIVE || mode == TDB_OPEN_MEMORY, mode == TDB_OPEN_MEMORY)))
        ok = 0;
    if (ok && ing->packing && row_writer_pack_start(ing->rows) != 0)
        ok = 0;
    if (!ok) {
        tdb_ingest_abort(ing);
        return NULL;
    }
    ing->first_event = ing->next_event;
    ingest_phase(ing, "open");
    return ing;
}

/* ---------------------------------------------------------------- traces, tracks, kinds */

/* Waits for the row writer so that this thread may use the database directly. */
int ingest_sync(struct tdb_ingest *ing)
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
    ing->carrier = 0;
    ing->overlaps = 0;
    ing->first_ns = INT64_MAX;
    ing->last_ns = INT64_MIN;
    return ing->trace_id;
}

/* Ends the current trace, whose rows [trace_first_event, end) are written already (read back, or a
 * recording's): they may hold nesting of their own, and every one is nested and linked at the end. */
static int ingest_end_written(struct tdb_ingest *ing, int64_t end, const struct tdb_trace_info *info)
{
    ing->read_back = 1;
    ing->trace_end_event = end;
    int rc = tdb_ingest_end_trace(ing, info);
    ing->read_back = 0;
    return rc;
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
    int64_t rows = 0, last_id = 0;
    ing->reading_back = 1;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (rows++ == 0)
            ing->trace_first_event = id;
        last_id = id;
        struct tdb_event ev;
        event_of_row(st, &ev);
        size_t ord = (size_t)(id - ing->trace_first_event); /* ids ascend; gaps are kept as they are */
        int64_t launch_ns; /* rows read back are linked by the end of the trace, never as they come */
        if (ingest_keep_keys(ing, ord, &ev, sqlite3_column_int64(st, 2), &launch_ns) == -1 ||
            ingest_keep_gpu_time(ing, ord, &ev) != 0)
            rc = -1;
    }
    tdb_stmt_finalize(st);
    ing->reading_back = 0;
    if (rc != 0) {
        ingest_free_keys(ing);
        return -1;
    }
    ingest_phase(ing, "read back");
    if (rows == 0)
        ing->trace_first_event = last_id = ing->next_event - 1;
    /* the end of the trace covers [trace_first_event, last id]: for a resumed trace, exactly its rows */
    return ingest_end_written(ing, rows ? last_id + 1 : ing->trace_first_event, info);
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
    /* most events are on the track of the one before, or (PyTorch's GPU section: a kernel, then its
     * launch) of the one before that */
    for (int i = 0; i < 2; i++)
        if (n == ing->thread_last_n[i] && memcmp(ing->key, ing->thread_last[i], n) == 0)
            return ing->thread_last_id[i];
    int64_t id = strmap_get(&ing->threads, ing->key, n);
    if (id >= 0) {
        int i = ing->thread_last_next;
        if (n <= sizeof ing->thread_last[i]) {
            memcpy(ing->thread_last[i], ing->key, n), ing->thread_last_n[i] = n, ing->thread_last_id[i] = id;
            ing->thread_last_next = !i;
        }
        return id;
    }

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

/* A recording's events come on a few tracks, each asked for once or twice an event (stage_convert.c):
 * the last two are kept as numbers, not printed into a key each time (two snprintf calls an event were
 * 8% of converting a CUDA recording). A track's id does not change within the ingest. */
int64_t tdb_ingest_thread_ids(struct tdb_ingest *ing, int64_t pid, int64_t tid)
{
    for (int i = 0; i < 2; i++) {
        const int64_t *l = ing->ids_last[i];
        if (l[3] && l[0] == ing->trace_id && l[1] == pid && l[2] == tid)
            return l[3];
    }
    char p[24], t[24];
    int pn = snprintf(p, sizeof p, "%lld", (long long)pid), tn = snprintf(t, sizeof t, "%lld", (long long)tid);
    int64_t id = tdb_ingest_thread(ing, 0, (struct tdb_str){p, (size_t)pn}, 0, (struct tdb_str){t, (size_t)tn});
    if (id > 0) {
        int64_t *l = ing->ids_last[ing->ids_last_next];
        l[0] = ing->trace_id, l[1] = pid, l[2] = tid, l[3] = id;
        ing->ids_last_next = !ing->ids_last_next;
    }
    return id;
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
    ev->launch_id = ev->launch_ns = ev->parent_id = ev->self_ns = ev->id = ev->flow = TDB_NULL;
}

int64_t tdb_ingest_reserve_id(struct tdb_ingest *ing)
{
    /* an import's rows are numbered in the order they come (the sweep's keys are kept by that order):
     * it reserves nothing, and the sweep gives such rows their parents */
    return ing->live ? ing->next_event++ : TDB_NULL;
}

int tdb_ingest_reserves_ids(const struct tdb_ingest *ing)
{
    return ing->live;
}

/* A row leaves the reorder buffer (stream_nest.c), final: to the writer. GPU work's correlation record
 * goes now, with the launch its row holds: the end of the trace links only the rest. */
static int ingest_emit_row(void *ctx, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev)
{
    struct tdb_ingest *ing = ctx;
    if (links_to_launch(ev) &&
        keep_corr(ing, ev, (size_t)(id - ing->trace_first_event),
                  ev->launch_id != TDB_NULL ? ev->launch_id - ing->trace_first_event : -2) != 0)
        return -1;
    return row_writer_event(ing->rows, id, name_id, cat_id, ev);
}

/* A row gone to the writer had children in a later run of its track (stream_nest.c): its self time
 * is less by their time. */
static int ingest_fix_self(void *ctx, int64_t id, int64_t less)
{
    struct tdb_ingest *ing = ctx;
    return row_writer_self_fix(ing->rows, id, less);
}

/* A row's self time as it streamed in, for its aggregate's sum (used where the sweep does not run):
 * exact while the sizes of all terms sum within 64 bits (then no order of adding them saturates). */
static void ingest_self_sum(void *ctx, uint32_t stat, int64_t delta)
{
    struct tdb_ingest *ing = ctx;
    uint64_t size = delta < 0 ? (uint64_t)0 - (uint64_t)delta : (uint64_t)delta;
    ing->stream_abs = ing->stream_abs + size < ing->stream_abs ? UINT64_MAX : ing->stream_abs + size;
    if (ing->stream_abs <= INT64_MAX)
        ing->stats[stat].stream_self += delta;
}

/* A launch or [memory] event streamed in inside call path context: what it attributes goes there. */
static int ingest_stream_path(void *ctx, int64_t id, uint32_t context)
{
    struct tdb_ingest *ing = ctx;
    struct result_rec *o = spill_sort_push(ing->results);
    if (!o)
        return ingest_sort_failed(ing, ing->results);
    *o = (struct result_rec){(uint32_t)(id - ing->trace_first_event), RES_STREAM_PATH, 0, 0, context, 0};
    return 0;
}

int64_t tdb_ingest_event(struct tdb_ingest *ing, const struct tdb_event *in)
{
    struct tdb_event clamped;
    const struct tdb_event *ev = in;
    int64_t start = in->start_ns, dur = in->dur_ns;
    if (tdb_time_clamp(&start, &dur)) {
        clamped = *in;
        clamped.start_ns = start, clamped.dur_ns = dur;
        ev = &clamped;
    }
    int64_t name = ingest_string(ing, ev->name);
    int64_t cat = ev->cat.p ? ingest_string(ing, ev->cat) : TDB_NULL;
    if (name < 0 || cat == -1)
        return -1;
    if (ing->live) {
        /* a recording writes each row as it comes and keeps what the end of the trace needs (its key,
         * correlation, sums: external sorts, so memory stays flat) as a row read back would give it;
         * the end nests and links them all, so closing reads no row back */
        int64_t id = ev->id != TDB_NULL ? ev->id : ing->next_event++;
        if (row_writer_event(ing->rows, id, name, cat, ev) != 0)
            return -1;
        int64_t launch_ns;
        if (ingest_keep_keys(ing, (size_t)(id - ing->trace_first_event), ev, name, &launch_ns) == -1 ||
            ingest_keep_gpu_time(ing, (size_t)(id - ing->trace_first_event), ev) != 0)
            return -1;
        ing->carrier = 0; /* its row is written: its flows get rows of their own */
        ing->events++;
        return id;
    }
    int64_t id = ing->next_event++;
    int64_t launch_ns = TDB_NULL;
    int64_t launch = ingest_keep_keys(ing, (size_t)(id - ing->trace_first_event), ev, name, &launch_ns);
    if (launch == -1)
        return -1;
    if (ingest_keep_gpu_time(ing, (size_t)(id - ing->trace_first_event), ev) != 0)
        return -1;
    const struct stream_nest_calls calls = {ingest_emit_row, ingest_fix_self, ingest_self_sum, ingest_path,
                                            ingest_stream_path, ing};
    if (!ing->stream && !(ing->stream = stream_nest_new(ing->sort_budget / 2, &calls, ing->sort_dir))) {
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    /* GPU work whose launch has not come yet waits for it a little in the reorder buffer (CUPTI hands a
     * kernel over a row or two before its launch); a launch links the work waiting for it */
    int64_t wait = links_to_launch(ev) && launch < 0 ? ev->correlation : TDB_NULL;
    if (stream_nest_add(ing->stream, id, name, cat, ev, launch >= 0 ? ing->trace_first_event + launch : TDB_NULL,
                        launch >= 0 ? launch_ns : TDB_NULL, (uint32_t)ing->last_stat, attributes_of(ev), wait) != 0)
        return -1;
    if ((ev->kind == TDB_KIND_RUNTIME || ev->kind == TDB_KIND_DRIVER) && ev->correlation != TDB_NULL)
        stream_nest_link(ing->stream, ev->correlation, id, ev->start_ns);
    ing->carrier = ev->correlation != TDB_NULL;
    ing->carrier_id = id, ing->carrier_thread = ev->thread_id, ing->carrier_start = ev->start_ns;
    ing->carrier_corr = ev->correlation;
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
    int carried = ing->carrier && flow_id != TDB_NULL && flow_id == ing->carrier_corr && thread_id == ing->carrier_thread &&
                  ts_ns == ing->carrier_start && cid != TDB_NULL && cid <= INT64_MAX / 8 &&
                  (phase == 's' || phase == 't' || phase == 'f') &&
                  stream_nest_carry(ing->stream, ing->carrier_id,
                                    cid * 8 + (bind_enclosing ? 4 : 0) + (phase == 's' ? 1 : phase == 't' ? 2 : 3));
    ing->carrier = 0;
    return carried ? 0 : row_writer_flow(ing->rows, thread_id, flow_id, cid, phase, ts_ns, bind_enclosing);
}

int tdb_ingest_commit(struct tdb_ingest *ing)
{
    if (ingest_sync(ing) != 0)
        return -1;
    return ingest_exec(ing, "COMMIT; BEGIN;");
}

size_t tdb_ingest_spill_budget(const struct tdb_ingest *ing, const char **dir)
{
    *dir = ing->sort_dir;
    return ing->sort_budget;
}

struct sqlite3 *tdb_ingest_sqlite(struct tdb_ingest *ing)
{
    ing->lent = 1;
    return ingest_sync(ing) == 0 ? ing->db : NULL;
}

/* ---------------------------------------------------------------- end of trace, finish */

/* A recording's indexes, built on a second connection while the first sorts and sweeps the keys (which
 * touches no table): two long steps of closing, on two cores at once (a recording's program waits in
 * tdb_close meanwhile). The first writes again only once this is joined (tdb_ingest_end_trace). */
static void *ingest_index_main(void *arg)
{
    struct tdb_ingest *ing = arg;
    sqlite3 *db = NULL;
    const char *sql = tdb_embedded_get("schema/indexes.sql"), *early = tdb_embedded_get("schema/indexes_early.sql");
    ing->index_rc = tdb_db_open(ing->path, SQLITE_OPEN_READWRITE, &db) == SQLITE_OK && sql && early &&
                            sqlite3_busy_timeout(db, 60000) == SQLITE_OK &&
                            sqlite3_exec(db, "PRAGMA synchronous=OFF; PRAGMA cache_size=-4096", NULL, NULL, NULL) == SQLITE_OK &&
                            sqlite3_exec(db, early, NULL, NULL, NULL) == SQLITE_OK &&
                            sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
                        ? 0
                        : -1;
    sqlite3_close(db);
    return NULL;
}

/* The indexer is done (its failure is no error: finishing builds what is missing); the write
 * transaction begins again. */
static int ingest_index_join(struct tdb_ingest *ing)
{
    if (!ing->indexing)
        return 0;
    pthread_join(ing->indexer, NULL);
    ing->indexing = 0;
    return ingest_exec(ing, "BEGIN");
}

int tdb_ingest_end_trace(struct tdb_ingest *ing, const struct tdb_trace_info *info)
{
    if (ing->live && !ing->resuming) { /* keys kept as rows came: end as rows read back would */
        ing->resuming = 1;
        if (ingest_sync(ing) == 0 && ingest_exec(ing, "COMMIT") == 0) {
            ing->indexing = pthread_create(&ing->indexer, NULL, ingest_index_main, ing) == 0;
            if (!ing->indexing && ingest_exec(ing, "BEGIN") != 0)
                return -1;
        }
        ingest_phase(ing, "insert");
        int rc = ingest_end_written(ing, ing->next_event, info);
        ing->resuming = 0;
        return ingest_index_join(ing) == 0 ? rc : -1;
    }
    if ((ing->stream && !ing->read_back && stream_nest_flush(ing->stream) != 0) || ingest_sync(ing) != 0)
        return -1;
    ingest_phase(ing, "parse+insert");
    if (!ing->read_back)
        ing->trace_end_event = ing->next_event;
    /* the sweep touches no table: a recording's indexes are built meanwhile (ingest_index_main, its own
     * connection, which holds the write lock until it is joined) */
    int indexing = ing->indexing, rc = ingest_sweep(ing);
    if (ingest_index_join(ing) != 0)
        rc = -1;
    if (indexing)
        ingest_phase(ing, "index wait");
    if (rc == 0 && device_time_write(&ing->devices, ing->db, ing->trace_id) != 0) {
        const char *why = device_time_error(&ing->devices);
        rc = why ? (fprintf(ing->err, "tracedb: %s: %s\n", ing->path, why), -1) : ingest_fail(ing, "cannot write device_stats");
    }
    if (rc == 0)
        rc = ingest_write_back(ing);
    if (rc == 0)
        rc = ingest_write_stats(ing);
    ingest_free_keys(ing);
    if (ing->stream)
        stream_nest_reset(ing->stream);
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
    tdb_bind_int_or_null(st, 3, info->base_time_ns);
    tdb_bind_int_or_null(st, 4, info->rank);
    sqlite3_bind_text(st, 5, info->device_properties, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, info->distributed_info, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, info->extra, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, info->status, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 9, info->skipped_events);
    sqlite3_bind_int64(st, 10, ing->overlaps);
    sqlite3_bind_text(st, 11, info->error, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, info->source_format, -1, SQLITE_STATIC);
    tdb_bind_int_or_null(st, 13, ing->first_ns == INT64_MAX ? TDB_NULL : ing->first_ns);
    tdb_bind_int_or_null(st, 14, ing->last_ns == INT64_MIN ? TDB_NULL : ing->last_ns);
    rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot write");
}

/* A fresh import's pack is kept when it holds every event row and no row packed changed since but for
 * its launch (event_pack_fix): then meta says so and triggers guard it; else it goes. Every row of a
 * fresh import goes through the row writer, with ids from min to max, one each: as many rows packed as
 * that span is every row. */
static int ingest_pack_end(struct tdb_ingest *ing, int64_t packed)
{
    sqlite3_stmt *st;
    int whole = 0;
    if (packed > 0 && tdb_stmt_prepare(ing->db,
                                       "SELECT (SELECT max(id) FROM event) - (SELECT min(id) FROM event) + 1 = ?1 " /* (one min or max a query: an index lookup each) */
                                       "AND NOT EXISTS (SELECT 1 FROM temp.event_pack_broken)",
                                       -1, 0, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, packed);
        whole = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
        tdb_stmt_finalize(st);
    }
    if (!whole || ing->pack_broken)
        return ingest_exec_file(ing, "schema/event_pack_drop.sql");
    if (ing->npack_fixes) {
        if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO event_pack_fix (id, launch_id) VALUES (?1, ?2)", -1, 0, &st, NULL) !=
            SQLITE_OK)
            return ingest_fail(ing, "cannot prepare");
        int rc = SQLITE_DONE;
        for (size_t i = 0; i < ing->npack_fixes && rc == SQLITE_DONE; i++) {
            sqlite3_bind_int64(st, 1, ing->pack_fixes[i][0]);
            sqlite3_bind_int64(st, 2, ing->pack_fixes[i][1]);
            rc = sqlite3_step(st);
            sqlite3_reset(st);
        }
        tdb_stmt_finalize(st);
        if (rc != SQLITE_DONE)
            return ingest_fail(ing, "cannot write");
    }
    if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('event_pack', ?1)", -1, 0, &st, NULL) !=
        SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    sqlite3_bind_int64(st, 1, packed);
    int rc = sqlite3_step(st);
    tdb_stmt_finalize(st);
    if (rc != SQLITE_DONE)
        return ingest_fail(ing, "cannot write");
    return ingest_exec_file(ing, "schema/event_pack_triggers.sql");
}

int tdb_ingest_finish(struct tdb_ingest *ing, int complete)
{
    int64_t packed = ing->packing ? row_writer_pack_end(ing->rows) : -1;
    int rc = row_writer_stop(ing->rows);
    ing->rows = NULL;
    if (rc != 0) {
        tdb_ingest_abort(ing);
        return -1;
    }
    rc = ingest_write_meta(ing, complete);
    if (rc == 0 && !ing->borrowed) /* the in-memory database has its indexes: no schema change, no re-prepare */
        rc = ingest_indexes(ing);
    ingest_phase(ing, "indexes");
    if (rc == 0 && ing->fresh) /* views exist already in an appended or a live database */
        rc = ingest_exec_file(ing, "schema/views.sql");
    if (rc == 0 && ing->packing) {
        rc = ingest_pack_end(ing, packed);
        ingest_phase(ing, "pack end");
    }
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
    else if (!ing->live && !ing->borrowed && ing->path) /* an append: the old database, whole again */
        tdb_db_recover(ing->path);
    ingest_free(ing);
}

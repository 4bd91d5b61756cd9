/* ingest.c: writes events into a tracedb database: the shared back end of every importer, of merge,
 * finish and of the live recorder. This file holds the database file's side of it: the open modes (a new
 * or replaced file built beside its name, an append, a live recording, a rebuild, the in-memory database),
 * an append's catch-up of older schemas, the event pack's end, finish and abort.
 *
 * A load runs in three parts:
 *   1. open (here): a new database is built in "<path>.tmp-<pid>" with the journal off and moved into place
 *      only when finished, so an existing file is never half-written; an append runs in one
 *      transaction on the existing file; a live recording (TDB_OPEN_LIVE) is written in place in WAL
 *      mode and committed as it goes.
 *   2. events (ingest_events.c): names and categories are interned in memory (strmap) and written once
 *      to `string`; tracks (pid, tid) likewise (ingest_names.c). Rows are nested as they come while their
 *      track is in order, and
 *      wait in a bounded reorder buffer until final (stream_nest.c); then they go to the row writer
 *      thread (row_writer.c) in batches, written once. For
 *      each event its per-name sums are kept, and its correlation (GPU work and launches) in an external
 *      sort (spill_sort.c): 8 MiB of memory, sorted runs beside the database beyond that, so memory stays flat whatever the trace's size. (A live
 *      recording keeps the same as its rows are written, and nests them all at the end: its rows
 *      may carry nesting of their own; a recording resumed by `tracedb finish` reads its rows back.)
 *   3. end of trace (ingest_trace.c, ingest_sweep.c): where a track could not be nested as it streamed in,
 *      every event's sweep key (32 bytes) is read from its row, sorted and swept (nesting.c: parent,
 *      depth, self time, PyTorch's rule); correlations pair GPU work with its launch; what rows do not
 *      hold yet (rows of tracks that came out of order, links to launches that came after their
 *      work) is written back in one sequential UPDATE; then the per-name sums (event_stats: no time or
 *      memory per operator, which is `tracedb ops`'s pass) and device time (device_stats, device_time.c). A trace met before or on another time base is found (ingest_checks.c).
 *      Finish (here) adds meta (ingest_checks.c), indexes and views, commits and claims the name.
 * ingest_sql.c runs statements on the connection and says what failed, for all of them.
 */
#include "ingest.h"
#include "db_guard.h"
#include "output_claim.h"
#include "embedded.h"
#include "device_time.h"
#include "row_writer.h"
#include "stmt_cache.h"
#include "strmap.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest_internal.h"

/* Every index (what a database made here already has is skipped: IF NOT EXISTS). */
static int ingest_indexes(struct tdb_ingest *ing)
{
    return ingest_exec_file(ing, "schema/indexes_early.sql") != 0 ? -1 : ingest_exec_file(ing, "schema/indexes.sql");
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
    int len;
    const char *view = tdb_embedded_statement("schema/schema.sql", "CREATE VIEW flow AS", &len);
    char *sql = view ? sqlite3_mprintf("ALTER TABLE event ADD COLUMN flow INTEGER; ALTER TABLE flow RENAME TO flow_loose; %.*s;",
                                       len, view) : NULL;
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
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_text(st, 1);
        rc = spill_map_put(&ing->strings, v ? v : "", (size_t)sqlite3_column_bytes(st, 1), sqlite3_column_int64(st, 0));
    }
    tdb_stmt_finalize(st);
    if (rc != 0) {
        fprintf(ing->err, "tracedb: %s: cannot keep its names: %s\n", ing->path, spill_map_error(&ing->strings));
        return -1;
    }
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

static void ingest_free(struct tdb_ingest *ing)
{
    free(ing->pack_fixes);
    tdb_pack_stale_free(&ing->pack_stale);
    row_writer_stop(ing->rows);
    ing->rows = NULL;
    ingest_close_db(ing);
    spill_map_free(&ing->strings);
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
    /* the names: 32 Ki in memory at most (2 MiB of their bytes), the rest in a temporary table */
    spill_map_init(&ing->strings, NAMES_IN_MEMORY(ing->sort_budget), ing->sort_budget / 4, ing->sort_budget / 8);
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
            ingest_exec_file(ing, "schema/views.sql") != 0 || ingest_indexes(ing) != 0 ||
            ingest_nest_register(ing->db) != 0) {
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
    } else if (ingest_nest_register(ing->db) != 0) {
        fprintf(err, "tracedb: %s: cannot register the nesting update's function: %s\n", path, sqlite3_errmsg(ing->db));
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
        char why[300]; /* (a view in a table's place would run its query for the ids below) */
        int foreign = tdb_db_foreign_table(ing->db, "main", why, sizeof why);
        if (foreign != 0) {
            fprintf(err, "tracedb: %s: %s%s\n", path, why, foreign > 0 ? ": not a database tracedb wrote" : "");
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

/* ---------------------------------------------------------------- finish */

/* Rows in a statement of write_pack_fixes: one statement a row cost more than writing the row. */
#define FIXES_PER_INSERT 64

/* The import's pack fixes into event_pack_fix, FIXES_PER_INSERT to a statement. 0, or -1 (said). */
static int write_pack_fixes(struct tdb_ingest *ing)
{
    char sql[128 + FIXES_PER_INSERT * 6];
    size_t first = (size_t)snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO event_pack_fix (id, launch_id) VALUES (?, ?)");
    for (size_t i = 1, o = first; i < FIXES_PER_INSERT; i++)
        o += (size_t)snprintf(sql + o, sizeof sql - o, ",(?,?)");
    sqlite3_stmt *many = NULL, *one = NULL; /* (one: the first row's statement, for the last few) */
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &many, NULL) != SQLITE_OK ||
        tdb_stmt_prepare(ing->db, sql, (int)first, 0, &one, NULL) != SQLITE_OK) {
        tdb_stmt_finalize(many);
        return ingest_fail(ing, "cannot prepare");
    }
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < ing->npack_fixes && rc == SQLITE_DONE;) {
        int batch = ing->npack_fixes - i >= FIXES_PER_INSERT;
        sqlite3_stmt *st = batch ? many : one;
        for (int k = 0; k < (batch ? FIXES_PER_INSERT : 1); k++, i++) {
            sqlite3_bind_int64(st, 2 * k + 1, ing->pack_fixes[i][0]);
            sqlite3_bind_int64(st, 2 * k + 2, ing->pack_fixes[i][1]);
        }
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    tdb_stmt_finalize(many);
    tdb_stmt_finalize(one);
    return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot write");
}

/* The rows packed that changed since (but for their launch: event_pack_fix), as ranges of ids into
 * event_pack_stale; every id when there were too many to keep. 0, or -1 (said). */
static int write_pack_stale(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO event_pack_stale (lo, hi) VALUES (?1, ?2)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = SQLITE_DONE;
    size_t n = ing->pack_stale.all ? 1 : ing->pack_stale.n;
    for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
        sqlite3_bind_int64(st, 1, ing->pack_stale.all ? INT64_MIN : ing->pack_stale.v[i][0]);
        sqlite3_bind_int64(st, 2, ing->pack_stale.all ? INT64_MAX : ing->pack_stale.v[i][1]);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
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
    if ((ing->npack_fixes && write_pack_fixes(ing) != 0) || write_pack_stale(ing) != 0)
        return -1;
    if (tdb_stmt_prepare(ing->db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('event_pack_v2', ?1)", -1, 0, &st, NULL) !=
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

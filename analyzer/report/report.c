/* report.c: database access for the analyzer: open read-only, check the schema version, register
 * functions, and prepare the SQL files embedded from queries/. */
#include "report.h"
#include "render.h"
#include "sqlfuncs.h"
#include "db_guard.h"
#include "embedded.h"
#include "kinds.h"
#include "version.h"
#include "phase_clock.h"
#include "shards.h"
#include "trace_cache.h"
#include "trace_files.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static pthread_once_t exclusive_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t exclusive; /* recursive: a command run by tdb_run may run reports as SQL tables */

static void exclusive_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&exclusive, &a);
    pthread_mutexattr_destroy(&a);
}

void report_exclusive_begin(void)
{
    pthread_once(&exclusive_once, exclusive_init);
    pthread_mutex_lock(&exclusive);
}

void report_exclusive_end(void)
{
    pthread_mutex_unlock(&exclusive);
}

const char *report_opened(const struct opened_db *opened)
{
    return opened && opened->path[0] && !opened->others ? opened->path : NULL;
}

const char *report_db_path(const char *path, char *buf, size_t n, int writable, struct report_io *io)
{
    if (shards_is_dir(path) || !tdb_is_traces(path))
        return path;
    /* where nothing can be kept beside the traces: the import to run, into the current folder */
    char named[4096], why[4400];
    const char *db_name = tdb_trace_db_name(path, named, sizeof named);
    const char *slash = db_name ? strrchr(db_name, '/') : NULL;
    db_name = !db_name ? "run.db" : slash ? slash + 1 : db_name;
    struct stat sb;
    const char *what = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) ? "holds traces" : "is a trace";
    if (writable) {
        fprintf(io->err, "%s: %s %s, not a database, and --write writes a database: import it first (tracedb "
                         "import %s -o %s)\n", io->prog, path, what, path, db_name);
        return NULL;
    }
    int rc = tdb_trace_cache(path, 0, 1, buf, n, why, sizeof why, io->err);
    if (rc == -2)
        fprintf(io->err, "%s: %s %s, and its database cannot be kept beside it (%s): import it yourself: "
                         "tracedb import %s -o %s, then %s %s\n",
                io->prog, path, what, why, path, db_name, io->prog, db_name);
    return rc >= 0 ? buf : NULL;
}

sqlite3 *report_open(const char *path, int writable, struct report_io *io)
{
    char cached[4200];
    if (!(path = report_db_path(path, cached, sizeof cached, writable, io)))
        return NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(io->err, "%s: %s: no such database\n", io->prog, path);
        return NULL;
    }
    if (S_ISDIR(sb.st_mode) && shards_is_dir(path)) { /* (the reports that read shards open them with shards_open) */
        fprintf(io->err, "%s: %s is a directory of shards (tracedb-mpi import), and this command reads one database: "
                         "make one of them with `tracedb merge %s/shard-*.db -o one.db`\n",
                io->prog, path, path);
        return NULL;
    }
    if (S_ISDIR(sb.st_mode)) {
        fprintf(io->err, "%s: %s is a directory with no trace in it (.json, .json.gz): this command reads one database, "
                         "a trace or a directory of traces (`tracedb merge %s/shard-*.db -o one.db` makes one of the "
                         "shards of `tracedb-mpi import`)\n",
                io->prog, path, path);
        return NULL;
    }
    sqlite3 *db = NULL;
    int flags = writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
    if (tdb_db_open(path, flags, &db) != SQLITE_OK) {
        fprintf(io->err, "%s: cannot open %s: %s\n", io->prog, path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    /* a recording being written, or left by a crash (its WAL recovered by the first reader), is busy
     * now and then: wait for it rather than call it no database */
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt *st;
    int version = -1;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    else {
        char why[9000];
        if (tdb_db_unreadable_why(db, path, why, sizeof why))
            fprintf(io->err, "%s: %s\n", io->prog, why);
        else
            fprintf(io->err, "%s: %s: not an SQLite database (%s)\n", io->prog, path, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_finalize(st);
    if (version != TDB_SCHEMA_VERSION) {
        fprintf(io->err, "%s: %s: not a tracedb database of schema version %d (user_version is %d)\n", io->prog,
                path, TDB_SCHEMA_VERSION, version);
        sqlite3_close(db);
        return NULL;
    }
    char why[300];
    int foreign = tdb_db_foreign_table(db, "main", why, sizeof why);
    if (foreign != 0) {
        fprintf(io->err, "%s: %s: %s%s\n", io->prog, path, why, foreign > 0 ? ": not a database tracedb wrote" : "");
        sqlite3_close(db);
        return NULL;
    }
    if (tdb_register_functions(db) != 0) {
        fprintf(io->err, "%s: cannot register SQL functions\n", io->prog);
        sqlite3_close(db);
        return NULL;
    }
    struct opened_db *o = io->opened;
    if (o && !o->path[0] && strlen(path) < sizeof o->path)
        strcpy(o->path, path);
    else if (o && strcmp(o->path, path) != 0)
        o->others = 1;
    return db;
}

sqlite3_stmt *report_prepare(sqlite3 *db, const char *name, struct report_io *io)
{
    char path[128];
    snprintf(path, sizeof path, "queries/%s.sql", name);
    const char *sql = tdb_embedded_get(path);
    sqlite3_stmt *st = NULL;
    if (!sql) {
        fprintf(io->err, "%s: internal error: no %s\n", io->prog, path);
        return NULL;
    }
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s: %s\n", io->prog, path, sqlite3_errmsg(db));
        return NULL;
    }
    return st;
}

void report_phase(const char *done)
{
    static _Thread_local struct tdb_phase_clock clock; /* each thread's own phases (diff runs two passes at once) */
    static _Thread_local int started;
    if (!started) /* the first call starts the clock */
        started = 1, tdb_phase_start(&clock);
    else
        tdb_phase_end(&clock, done);
}

int report_copy_rows(sqlite3_stmt *rows, sqlite3 *db, const char *ins_sql, const char *first, const int *col, int n,
                     sqlite3 **failed)
{
    sqlite3_stmt *ins = NULL;
    *failed = db;
    if (sqlite3_prepare_v2(db, ins_sql, -1, &ins, NULL) != SQLITE_OK)
        return -1;
    int at = first ? 2 : 1;
    if (first)
        sqlite3_bind_text(ins, 1, first, -1, SQLITE_STATIC);
    int step;
    while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++)
            sqlite3_bind_value(ins, at + i, sqlite3_column_value(rows, col ? col[i] : i));
        if (sqlite3_step(ins) != SQLITE_DONE) {
            sqlite3_finalize(ins);
            return -1;
        }
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    *failed = step == SQLITE_DONE ? NULL : sqlite3_db_handle(rows);
    return *failed ? -1 : 0;
}

void report_bind_int(sqlite3_stmt *st, const char *param, int64_t v)
{
    int i = sqlite3_bind_parameter_index(st, param);
    if (i > 0)
        sqlite3_bind_int64(st, i, v);
}

void report_bind_text(sqlite3_stmt *st, const char *param, const char *v)
{
    int i = sqlite3_bind_parameter_index(st, param);
    if (i > 0)
        sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

int report_is_recording(sqlite3 *db, const char *path, struct report_io *io)
{
    sqlite3_stmt *st;
    int recording = sqlite3_prepare_v2(db, "SELECT 1 FROM meta WHERE key = 'import_status' AND value = 'recording'",
                                       -1, &st, NULL) == SQLITE_OK &&
                    sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (recording && io)
        fprintf(io->err,
                "tracedb: %s is a recording still running or never closed: reports read the events committed so "
                "far; sums, device time and launch links come when it closes (`tracedb finish %s` if its program "
                "was killed)\n",
                path, path);
    return recording;
}

int report_is_legacy_export(sqlite3 *db)
{
    sqlite3_stmt *st;
    int legacy = sqlite3_prepare_v2(db, "SELECT EXISTS (SELECT 1 FROM event WHERE kind = ?1) AND "
                                        "NOT EXISTS (SELECT 1 FROM event WHERE kind = ?1 AND cat_id IS NOT NULL)",
                                    -1, &st, NULL) == SQLITE_OK &&
                 sqlite3_bind_int(st, 1, TDB_KIND_OP) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
                 sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return legacy;
}

int report_run_sql(sqlite3 *db, const char *sql, int writable, enum render_format fmt, struct report_io *io)
{
    if (!writable)
        tdb_db_guard_readonly(db);
    int rc = 0;
    while (sql && *sql && rc == 0) { /* every statement in turn; each with rows is rendered */
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
            const char *msg = sqlite3_errmsg(db);
            fprintf(io->err, "%s: %s%s\n", io->prog, msg,
                    !writable && strcmp(msg, "not authorized") == 0
                        ? " (read-only: ATTACH, and pragmas that set anything, need --write)"
                        : "");
            rc = 1;
            break;
        }
        char why[160];
        if (st && !writable && tdb_db_check_readonly(st, why, sizeof why) != 0) {
            fprintf(io->err, "%s: %s\n", io->prog, why);
            sqlite3_finalize(st);
            rc = 1;
            break;
        }
        if (st) {
            if (sqlite3_column_count(st) > 0) {
                if (render_query(st, fmt, NULL, io->out, io->err) < 0)
                    rc = 1;
            } else if (sqlite3_step(st) != SQLITE_DONE) {
                fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
                rc = 1;
            }
            sqlite3_finalize(st);
        }
        sql = tail;
    }
    return rc;
}

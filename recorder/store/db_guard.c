/* db_guard.c: defensive SQLite connections. tracedb opens databases attached to bug reports and runs
 * SQL its users type, so every connection it opens is configured as SQLite's "defense against the
 * dark arts" page advises:
 *   - SQLITE_DBCONFIG_DEFENSIVE (no writable_schema, no direct shadow-table writes),
 *   - fts3_tokenizer() switched off and refused (its two-argument form takes a code address; its
 *     one-argument form prints one), load_extension refused,
 *   - trusted_schema off: a crafted database's views and triggers may call only innocuous functions,
 *   - one attached database at most (diff and merge need one),
 *   - a path is never read as a "file:" URI (Debian's SQLite enables URIs: "file:x?vfs=..." would
 *     choose how the file is opened).
 * Read-only mode for typed SQL adds an authorizer and a per-statement check: nothing is created or
 * changed anywhere, not through VACUUM INTO, ATTACH of a new file, or a pragma that sets something. */
#include "db_guard.h"
#include "embedded.h"
#include "output_claim.h"
#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>

enum { GUARD_BASE, GUARD_READONLY };
static const int guard_modes[2] = {GUARD_BASE, GUARD_READONLY};

/* Pragmas that only report, whatever their argument (table_info(t)). */
static const char *const query_pragmas[] = {
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "foreign_key_check", "integrity_check", "quick_check", "function_list", "module_list", "pragma_list",
    "collation_list", "database_list", "compile_options", NULL,
};
/* Settings that may be read (without an argument) in read-only mode. */
static const char *const readable_pragmas[] = {
    "user_version", "schema_version", "application_id", "page_size", "page_count", "freelist_count",
    "encoding", "journal_mode", "data_version", "max_page_count", "auto_vacuum", "foreign_keys", "trusted_schema", NULL,
};

static int in_list(const char *const *list, const char *name)
{
    for (int i = 0; name && list[i]; i++)
        if (strcasecmp(list[i], name) == 0)
            return 1;
    return 0;
}

static int guard_authorize(void *arg, int action, const char *a3, const char *a4, const char *dbname,
                           const char *trigger)
{
    (void)dbname, (void)trigger;
    int mode = *(const int *)arg;
    if (action == SQLITE_FUNCTION && a4 &&
        (strcasecmp(a4, "fts3_tokenizer") == 0 || strcasecmp(a4, "load_extension") == 0))
        return SQLITE_DENY;
    if (mode != GUARD_READONLY)
        return SQLITE_OK;
    switch (action) {
    case SQLITE_ATTACH:
    case SQLITE_DETACH:
        return SQLITE_DENY;
    case SQLITE_PRAGMA:
        if (in_list(query_pragmas, a3) || (!a4 && in_list(readable_pragmas, a3)))
            return SQLITE_OK;
        return SQLITE_DENY;
    default:
        return SQLITE_OK;
    }
}

const char *tdb_db_literal_path(const char *path, char *out, size_t n)
{
    if (strncasecmp(path, "file:", 5) != 0 || strlen(path) + 3 > n)
        return path;
    snprintf(out, n, "./%s", path);
    return out;
}

int tdb_db_open(const char *path, int flags, sqlite3 **db)
{
    return tdb_db_open_new(path, flags, NULL, db);
}

/* Whether path is a database in WAL mode (its header's read and write versions are 2) with no -wal file
 * beside it: no connection has it open, and a reader would create -wal and -shm and write into them. */
static int wal_mode_and_closed(const char *path)
{
    unsigned char head[20];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    char wal[4200];
    struct stat sb;
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0 && head[18] == 2 && head[19] == 2 &&
           (size_t)snprintf(wal, sizeof wal, "%s-wal", path) < sizeof wal && stat(wal, &sb) != 0;
}

int tdb_db_open_new(const char *path, int flags, const char *setup, sqlite3 **db)
{
    char literal[4096], uri[12400];
    *db = NULL;
    const char *name = tdb_db_literal_path(path, literal, sizeof literal);
    /* read-only on a closed WAL-mode database: immutable, so that nothing is created or written beside it
     * (with a -wal there, a writer may be at work: SQLite's shared memory is then how readers see it) */
    if ((flags & SQLITE_OPEN_READONLY) && wal_mode_and_closed(path) && tdb_db_readonly_uri(path, uri, sizeof uri)) {
        name = uri; /* (immutable=1 in it) */
        flags |= SQLITE_OPEN_URI;
    }
    int rc = sqlite3_open_v2(name, db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if (setup && (rc = sqlite3_exec(*db, setup, NULL, NULL, NULL)) != SQLITE_OK)
        return rc;
    if (sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL) != SQLITE_OK ||
        sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)NULL) != SQLITE_OK ||
        sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL) != SQLITE_OK ||
        sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL) != SQLITE_OK ||
        sqlite3_set_authorizer(*db, guard_authorize, (void *)&guard_modes[GUARD_BASE]) != SQLITE_OK)
        return SQLITE_ERROR;
    sqlite3_limit(*db, SQLITE_LIMIT_ATTACHED, 1);
    return SQLITE_OK;
}

void tdb_db_guard_readonly(sqlite3 *db)
{
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_exec(db, "PRAGMA temp_store=MEMORY", NULL, NULL, NULL); /* sorts spill to no file */
    sqlite3_set_authorizer(db, guard_authorize, (void *)&guard_modes[GUARD_READONLY]);
}

int tdb_db_check_readonly(sqlite3_stmt *st, char *why, size_t n)
{
    if (sqlite3_stmt_readonly(st))
        return 0;
    const char *sql = sqlite3_sql(st);
    while (sql && (*sql == ' ' || *sql == '\n' || *sql == '\t' || *sql == '\r'))
        sql++;
    size_t k = 0;
    while (sql && sql[k] && sql[k] != ' ' && sql[k] != '\n' && k < 16)
        k++;
    snprintf(why, n, "read-only: %.*s would change a database or write a file (add --write to allow it)", (int)k,
             sql ? sql : "the statement");
    return -1;
}

/* EFBIG where SQLite kept no errno but db's file met the limit on a file's size (ulimit -f). SQLite says
 * SQLITE_FULL, errno 0, for a write cut short (one that reached the limit: the file then ends there; a
 * full disk is the same code, and its file ends anywhere), and SQLITE_IOERR, errno 0, where a write that
 * grows the file (zeros up to its new end) failed: that write may start past the file's end, so within
 * 1 MiB of the limit. */
static int fsize_limit_reached(sqlite3 *db, int code)
{
    struct rlimit limit;
    struct stat sb;
    const char *file = sqlite3_db_filename(db, "main");
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || !file || !*file || stat(file, &sb) != 0)
        return 0;
    unsigned long long size = (unsigned long long)sb.st_size, max = (unsigned long long)limit.rlim_cur;
    return code == SQLITE_FULL ? size >= max : size + (1u << 20) >= max;
}

const char *tdb_db_errmsg(sqlite3 *db, char *buf, size_t n)
{
    int code = sqlite3_errcode(db) & 0xff, e = sqlite3_system_errno(db);
    if ((code == SQLITE_FULL || code == SQLITE_IOERR) && !e && fsize_limit_reached(db, code))
        e = EFBIG;
    if ((code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_CANTOPEN) && e)
        snprintf(buf, n, "%s: %s", sqlite3_errmsg(db), tdb_out_reason(e));
    else
        snprintf(buf, n, "%s", sqlite3_errmsg(db));
    return buf;
}

const char *tdb_db_readonly_uri(const char *path, char *out, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    /* an absolute path after "file://" (an empty authority), a relative one after "file:" */
    size_t k = (size_t)snprintf(out, n, "%s", path[0] == '/' ? "file://" : "file:");
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '/' ||
                    *p == '.' || *p == '_' || *p == '-';
        if (k + 4 >= n)
            return NULL;
        if (plain)
            out[k++] = (char)*p;
        else
            out[k++] = '%', out[k++] = hex[*p >> 4], out[k++] = hex[*p & 15];
    }
    const char *query = wal_mode_and_closed(path) ? "?mode=ro&immutable=1" : "?mode=ro";
    if (k + strlen(query) + 1 > n)
        return NULL;
    memcpy(out + k, query, strlen(query) + 1);
    return out;
}

/* The size of path + suffix (a side file of SQLite's), or -1 when there is none. */
static long long side_file_size(const char *path, const char *suffix)
{
    char side[4200];
    struct stat sb;
    if ((size_t)snprintf(side, sizeof side, "%s%s", path, suffix) >= sizeof side || stat(side, &sb) != 0)
        return -1;
    return (long long)sb.st_size;
}

const char *tdb_db_unreadable_why(sqlite3 *db, const char *path, char *buf, size_t n)
{
    int code = db ? sqlite3_extended_errcode(db) : 0;
    if (code == SQLITE_READONLY_ROLLBACK || ((code & 0xff) == SQLITE_READONLY && side_file_size(path, "-journal") > 0))
        snprintf(buf, n, "%s has a hot journal (%s-journal: a write that was interrupted); a read-only reader may not "
                         "roll it back: open it once with sqlite3 %s (or tracedb sql %s --write) to recover it",
                 path, path, path, path);
    else if (code == SQLITE_READONLY_RECOVERY || code == SQLITE_READONLY_CANTINIT ||
             ((code & 0xff) == SQLITE_READONLY && side_file_size(path, "-wal") > 0))
        snprintf(buf, n, "%s has a write-ahead log (%s-wal) that needs recovery, which a read-only reader may not do: "
                         "open it once with sqlite3 %s to recover it",
                 path, path, path);
    else
        return NULL;
    return buf;
}

int tdb_db_recover(const char *path)
{
    sqlite3 *db;
    int rc = tdb_db_open(path, SQLITE_OPEN_READWRITE, &db);
    if (rc == SQLITE_OK) /* the first read of a database with a hot journal rolls it back */
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

int tdb_db_compiles(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_finalize(st);
    return 1;
}

/* The schema files whose tables every reader takes for tables (the pack's, schema/event_pack.sql, are read
 * only where pack_source.c finds them tables). */
static const char *const table_files[] = {"schema/schema.sql", NULL};

int tdb_db_foreign_table(sqlite3 *db, const char *schema, char *why, size_t n)
{
    char *sql = sqlite3_mprintf("SELECT type FROM \"%w\".sqlite_schema WHERE name = ?1 COLLATE NOCASE AND type <> 'table'",
                                schema);
    sqlite3_stmt *st = NULL;
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(why, n, "%s", sql ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_free(sql);
        return -1;
    }
    sqlite3_free(sql);
    int found = 0;
    for (int f = 0; table_files[f] && !found; f++) {
        const char *text = tdb_embedded_get(table_files[f]);
        static const char create[] = "\nCREATE TABLE ";
        for (const char *at = text ? strstr(text, create) : NULL; at && !found; at = strstr(at + 1, create)) {
            const char *name = at + sizeof create - 1;
            size_t len = 0;
            while (isalnum((unsigned char)name[len]) || name[len] == '_')
                len++;
            sqlite3_bind_text(st, 1, name, (int)len, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW) {
                snprintf(why, n, "%.*s is a %s, not a table", (int)len, name, (const char *)sqlite3_column_text(st, 0));
                found = 1;
            }
            sqlite3_reset(st);
        }
    }
    sqlite3_finalize(st);
    if (found)
        return found;
    /* flow is a view over event.flow and flow_loose, which no reader runs; in a database made before
     * event.flow it is the table every flow half is read from (export, merge) */
    sql = sqlite3_mprintf("SELECT type FROM \"%w\".sqlite_schema WHERE name = 'flow' COLLATE NOCASE AND type <> 'table' "
                          "AND NOT EXISTS (SELECT 1 FROM pragma_table_info('event', %Q) WHERE name = 'flow' COLLATE NOCASE)",
                          schema, schema);
    if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(why, n, "%s", sql ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_free(sql);
        return -1;
    }
    sqlite3_free(sql);
    if (sqlite3_step(st) == SQLITE_ROW) {
        snprintf(why, n, "flow is a %s, not a table", (const char *)sqlite3_column_text(st, 0));
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

/* trace_cache.c: TRACE.tracedb, the database of traces a command was given (see trace_cache.h). */
#define _GNU_SOURCE
#include "trace_cache.h"
#include "db_guard.h"
#include "jsonbuf.h"
#include "output_claim.h"
#include "trace_files.h"
#include "furiosa_records.h"
#include "tracedb.h"
#include "version.h"
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CACHE_SUFFIX ".tracedb"
#define CACHE_KEY "cached_from" /* meta: [[name, size, mtime_ns], ...] of the traces imported */

static int sqlite_header(const char *path)
{
    char head[16];
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return got == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

int tdb_is_traces(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return 0;
    if (S_ISDIR(sb.st_mode)) {
        char **files;
        int n = tdb_trace_files(&path, 1, &files, NULL, 0);
        if (n > 0)
            tdb_trace_files_free(files, n);
        return n > 0;
    }
    const char *slash = strrchr(path, '/');
    return S_ISREG(sb.st_mode) && (tdb_trace_name(slash ? slash + 1 : path) || furiosa_records_path(path)) &&
           !sqlite_header(path);
}

/* The traces' names, sizes and times as JSON text (into b): each named relative to the folder the
 * database is in (base: path's last part; a directory's traces base/NAME). 0, or -1 (said). */
static int stamp_of(const char *path, char **files, int nfiles, struct buf *b, FILE *err)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t from = len;
    while (from > 0 && path[from - 1] != '/')
        from--;
    struct stat sb;
    int dir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode), rc = 0;
    struct jw w;
    jw_init(&w, b);
    rc |= jw_open(&w, '[');
    for (int i = 0; i < nfiles; i++) {
        const char *name = strrchr(files[i], '/');
        char rel[8192];
        if (dir)
            snprintf(rel, sizeof rel, "%.*s/%s", (int)(len - from), path + from, name ? name + 1 : files[i]);
        else
            snprintf(rel, sizeof rel, "%.*s", (int)(len - from), path + from);
        int known = stat(files[i], &sb) == 0;
        rc |= jw_open(&w, '[');
        rc |= jw_string(&w, rel, strlen(rel));
        rc |= jw_int(&w, known ? (int64_t)sb.st_size : -1);
        rc |= jw_int(&w, known ? (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec : -1);
        rc |= jw_close(&w, ']');
    }
    rc |= jw_close(&w, ']');
    rc |= buf_addc(b, 0);
    if (rc)
        fprintf(err, "tracedb: out of memory\n");
    return rc ? -1 : 0;
}

/* What is at db now: 2 the traces' database as stamp says they are, 1 a tracedb database (an older
 * import: ours to replace), 0 nothing, -1 something else (a folder, another file, an unreadable one). */
static int cache_state(const char *db, const char *stamp)
{
    struct stat sb;
    if (lstat(db, &sb) != 0)
        return errno == ENOENT ? 0 : -1;
    if (stat(db, &sb) != 0 || !S_ISREG(sb.st_mode) || !sqlite_header(db))
        return -1;
    sqlite3 *d = NULL;
    sqlite3_stmt *st = NULL;
    int state = -1;
    if (tdb_db_open(db, SQLITE_OPEN_READONLY, &d) == SQLITE_OK &&
        sqlite3_prepare_v2(d, "SELECT (SELECT user_version FROM pragma_user_version), "
                              "EXISTS (SELECT 1 FROM meta WHERE key = 'schema_version'), "
                              "(SELECT value FROM meta WHERE key = ?1)",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, CACHE_KEY, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_int(st, 1)) {
        const char *held = (const char *)sqlite3_column_text(st, 2);
        state = sqlite3_column_int(st, 0) == TDB_SCHEMA_VERSION && held && strcmp(held, stamp) == 0 ? 2 : 1;
    }
    sqlite3_finalize(st);
    sqlite3_close(d);
    return state;
}

/* Writes the stamp into the new database's meta. 0, or -1 (said). */
static int put_stamp(const char *db, const char *stamp, const char *shown, FILE *err)
{
    sqlite3 *d = NULL;
    sqlite3_stmt *st = NULL;
    int rc = tdb_db_open(db, SQLITE_OPEN_READWRITE, &d) == SQLITE_OK &&
                     sqlite3_prepare_v2(d, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", -1, &st, NULL) ==
                         SQLITE_OK &&
                     sqlite3_bind_text(st, 1, CACHE_KEY, -1, SQLITE_STATIC) == SQLITE_OK &&
                     sqlite3_bind_text(st, 2, stamp, -1, SQLITE_STATIC) == SQLITE_OK && sqlite3_step(st) == SQLITE_DONE
                 ? 0
                 : -1;
    if (rc)
        fprintf(err, "tracedb: %s: cannot record the traces it holds: %s\n", shown, d ? sqlite3_errmsg(d) : "out of memory");
    sqlite3_finalize(st);
    if (sqlite3_close(d) != SQLITE_OK && !rc) {
        fprintf(err, "tracedb: %s: cannot record the traces it holds: %s\n", shown, sqlite3_errmsg(d));
        rc = -1;
    }
    return rc;
}

/* Copies text to err with each scratch name said as the database's. */
static void pass_on(const char *text, size_t len, const char *scratch, const char *db, FILE *err)
{
    size_t k = strlen(scratch);
    for (size_t i = 0; i < len;) {
        const char *at = k ? memmem(text + i, len - i, scratch, k) : NULL;
        size_t upto = at ? (size_t)(at - text) : len;
        fwrite(text + i, 1, upto - i, err);
        if (!at)
            break;
        fputs(db, err);
        i = upto + k;
    }
}

/* Imports path (its traces: files) into scratch, its messages passed on as the database's; then stamps
 * it and renames it over db, where the traces are as they were before (stamp): one written to meanwhile
 * may have been read half old, half new, and is not kept. The import's status (0 or 1), or -1 (said). */
static int import_into(const char *path, char **files, int nfiles, const char *scratch, const char *db,
                       const char *stamp, FILE *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *said = open_memstream(&text, &len);
    const struct tdb_import_options opt = {0, -1, 0};
    const char *paths[1] = {path};
    int rc = tdb_import_with(scratch, paths, 1, &opt, said ? said : err);
    if (said) {
        fclose(said);
        pass_on(text, len, scratch, db, err);
    }
    free(text);
    struct buf after = {0};
    int changed = rc >= 0 ? stamp_of(path, files, nfiles, &after, err) != 0 || strcmp(after.p, stamp) != 0 : 0;
    if (changed && after.p && strcmp(after.p, stamp) != 0)
        fprintf(err, "tracedb: %s changed while it was read (its size or time): nothing kept; run the command "
                     "again once it is written\n", path);
    if (changed)
        tdb_out_discard(scratch), rc = -1;
    buf_free(&after);
    if (rc >= 0 && (put_stamp(scratch, stamp, db, err) != 0 || tdb_out_commit(scratch, db, 1, err) != 0)) {
        tdb_out_discard(scratch);
        rc = -1;
    }
    return rc;
}

int tdb_trace_cache(const char *path, int force, int note, char *db, size_t n, char *why, size_t whyn, FILE *err)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t from = len;
    while (from > 0 && path[from - 1] != '/')
        from--;
    char real[PATH_MAX];
    if ((len - from == 1 && path[from] == '.') || (len - from == 2 && path[from] == '.' && path[from + 1] == '.')) {
        if (!realpath(path, real)) { /* "." and "..": the directory by its own name, beside it */
            snprintf(why, whyn, "%s", strerror(errno));
            return -2;
        }
        path = real, len = strlen(real);
    }
    if ((size_t)snprintf(db, n, "%.*s" CACHE_SUFFIX, (int)len, path) >= n) {
        snprintf(why, whyn, "its name is too long");
        return -2;
    }
    char **files;
    int nfiles = tdb_trace_files(&path, 1, &files, err, note);
    if (nfiles < 0)
        return -1;
    struct buf stamp = {0};
    int rc = stamp_of(path, files, nfiles, &stamp, err);
    int state = rc == 0 ? cache_state(db, stamp.p) : 0;
    char scratch[8192];
    const char *cannot = NULL;
    if (rc != 0 || (state == 2 && !force))
        goto done;
    if (state < 0) {
        snprintf(why, whyn, "%s is there and is not a tracedb database", db);
        rc = -2;
        goto done;
    }
    if ((cannot = tdb_out_unwritable(db, scratch, sizeof scratch))) {
        snprintf(why, whyn, "%s: %s", db, cannot);
        rc = -2;
        goto done;
    }
    /* this thread's name: threads of one process share its pid (the importer's temporaries use it) */
    if ((size_t)snprintf(scratch, sizeof scratch, "%s.tmp-%ld-%ld", db, (long)getpid(), (long)syscall(SYS_gettid)) >=
        sizeof scratch) {
        snprintf(why, whyn, "its name is too long");
        rc = -2;
        goto done;
    }
    if (note)
        fprintf(err, "tracedb: importing %.*s into %s (kept beside it, used again while the trace%s unchanged)\n",
                (int)len, path, db, nfiles == 1 ? " is" : "s are");
    tdb_out_discard(scratch); /* one a process of this pid and thread id left behind */
    rc = import_into(path, files, nfiles, scratch, db, stamp.p, err);
done:
    tdb_trace_files_free(files, nfiles);
    buf_free(&stamp);
    return rc;
}

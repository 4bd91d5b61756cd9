/* shards.c: see shards.h. Each shard is attached in turn (read-only) and copied as tracedb merge copies
 * a database (recorder/import/db_copy.c), but only the events the reports over a directory read:
 * traces (rank as imported), processes, threads, devices, event_stats, device_stats and the ranges
 * (steps, annotations); at SHARDS_GPU the GPU rows (kernels, memcpy, memset, syncs, GPU ranges), at
 * SHARDS_HOST the runtime and driver calls and top-level operators, at SHARDS_MEMORY the [memory] events
 * and the events holding them; and what a report's shards_each makes of each shard on the shard's own
 * connection (ops' per-shard pass). The shards are copied in their order, as tracedb import of the same
 * traces would number them, so a pass summing in table order (kernels' standard deviation) sums in the
 * same order. A report then runs its own SQL on
 * this database; the commands whose SQL reads nothing else say so (struct scope's shards_ok), the others
 * refuse a directory. Another reduce database (a process's share, in tracedb-mpi) is copied the same way
 * (shards_add). A reduce database made already (tracedb-mpi's) comes through the report's struct report_io
 * (struct shards_handover). */
#include "shards.h"
#include "db_copy.h"
#include "db_guard.h"
#include "embedded.h"
#include "kinds.h"
#include "sqlfuncs.h"
#include "version.h"
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The events each level copies (the condition on src's event rows e): ranges at every level; then the
 * GPU rows (kernels, memcpy, memset, syncs, GPU ranges); the runtime and driver calls and top-level
 * operators; the [memory] events and the events holding them (the operator at a peak). */
static const char *const level_events[] = {
    [SHARDS_NONE] = "0",
    [SHARDS_SUMS] = "e.kind = 2",
    [SHARDS_GPU] = "e.kind IN (2, 3, 7, 8, 9, 10)",
    [SHARDS_HOST] = "e.kind IN (2, 3, 5, 6, 7, 8, 9, 10) OR (e.kind = 1 AND e.depth = 0)",
    [SHARDS_MEMORY] = ("e.kind IN (2, 3, 5, 6, 7, 8, 9, 10, 11) OR (e.kind = 1 AND e.depth = 0) "
                       "OR e.id IN (SELECT parent_id FROM src.event WHERE kind = 11)"),
};
_Static_assert(TDB_KIND_RANGE == 2 && TDB_KIND_GPU_RANGE == 3 && TDB_KIND_RUNTIME == 5 && TDB_KIND_DRIVER == 6 &&
                   TDB_KIND_KERNEL == 7 && TDB_KIND_MEMCPY == 8 && TDB_KIND_MEMSET == 9 && TDB_KIND_SYNC == 10 &&
                   TDB_KIND_MEMORY == 11 && TDB_KIND_OP == 1,
               "level_events names kinds by number");

int shards_is_dir(const char *path)
{
    struct stat sb;
    char manifest[4200];
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    snprintf(manifest, sizeof manifest, "%s/shards.json", path);
    return stat(manifest, &sb) == 0;
}

/* Copies what level says of the database attached to reduce as "src" (a shard, or another reduce
 * database) into it. 0, or -1 (said). */
static int copy_level(sqlite3 *reduce, const char *what, enum shards_level level, struct report_io *io)
{
    /* the traces keep their rank as imported (tracedb import leaves a trace naming none without one) */
    const struct tdb_copy c = {level_events[level], -1, TDB_COPY_EVENT_TABLES};
    return tdb_copy_attached(reduce, &c, io->prog, what, io->err);
}

int shards_add(sqlite3 *reduce, const char *what, enum shards_level level, struct report_io *io)
{
    if (copy_level(reduce, what, level, io) != 0)
        return -1;
    sqlite3_stmt *st;
    int has = -1;
    if (sqlite3_prepare_v2(reduce, "SELECT EXISTS (SELECT 1 FROM src.sqlite_schema WHERE type = 'table' AND name = 'shard_ops')",
                           -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        has = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (has == 0 ||
        (has == 1 && sqlite3_exec(reduce, "CREATE TABLE IF NOT EXISTS main.shard_ops AS SELECT * FROM src.shard_ops WHERE 0; "
                                          "INSERT INTO main.shard_ops SELECT * FROM src.shard_ops", NULL, NULL, NULL) == SQLITE_OK))
        return 0;
    fprintf(io->err, "%s: cannot copy %s: %s\n", io->prog, what, sqlite3_errmsg(reduce));
    return -1;
}

/* The manifest's shards array (doc to delete), or NULL (said). */
static cJSON *manifest(const char *dir, cJSON **doc, struct report_io *io)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/shards.json", dir);
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && len < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)len + 1)) && fread(text, 1, (size_t)len, f) == (size_t)len)
        text[len] = 0;
    else
        free(text), text = NULL;
    if (f)
        fclose(f);
    *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    cJSON *shards = cJSON_GetObjectItem(*doc, "shards");
    if (!cJSON_IsArray(shards)) {
        fprintf(io->err, "%s: %s: not a tracedb shard manifest\n", io->prog, path);
        cJSON_Delete(*doc);
        return NULL;
    }
    return shards;
}

long shards_count(const char *dir, struct report_io *io)
{
    cJSON *doc, *shards = manifest(dir, &doc, io);
    long n = shards ? cJSON_GetArraySize(shards) : -1;
    cJSON_Delete(doc);
    return n;
}

/* An empty reduce database: the schema, its views, the SQL functions; a temporary database (SQLite's ""),
 * in memory while it is small and on disk beyond (the GPU rows of a large job). NULL (said). */
static sqlite3 *reduce_db(struct report_io *io)
{
    sqlite3 *db = NULL;
    char ver[64];
    snprintf(ver, sizeof ver, "PRAGMA user_version=%d", TDB_SCHEMA_VERSION);
    if (tdb_db_open("", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &db) != SQLITE_OK ||
        sqlite3_exec(db, tdb_embedded_get("schema/schema.sql"), NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, ver, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, tdb_embedded_get("schema/views.sql"), NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "INSERT INTO meta VALUES ('import_status', 'complete')", NULL, NULL, NULL) != SQLITE_OK ||
        tdb_register_functions(db) != 0) {
        fprintf(io->err, "%s: cannot make the reduce database: %s\n", io->prog, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return NULL;
    }
    return db;
}

sqlite3 *shards_open(const char *dir, long first, long end, enum shards_level level, shards_each each,
                     struct report_io *io)
{
    struct shards_handover *h = io->handover;
    if (h && h->reduce && first == 0 && end < 0 && level <= h->level && (!each || each == h->each) &&
        strcmp(dir, h->dir) == 0) {
        sqlite3 *db = h->reduce;
        h->reduce = NULL; /* taken: the caller closes it */
        return db;
    }
    cJSON *doc, *shards = manifest(dir, &doc, io);
    if (!shards)
        return NULL;
    sqlite3 *db = reduce_db(io);
    long n = cJSON_GetArraySize(shards);
    if (end < 0 || end > n)
        end = n;
    if (db)
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (long i = first; db && i < end; i++) {
        cJSON *s = cJSON_GetArrayItem(shards, (int)i);
        const cJSON *file = cJSON_GetObjectItem(s, "file"), *status = cJSON_GetObjectItem(s, "status");
        const cJSON *trace = cJSON_GetObjectItem(s, "trace"), *error = cJSON_GetObjectItem(s, "error");
        if (!cJSON_IsString(file) || strchr(file->valuestring, '/') || !*file->valuestring) {
            fprintf(io->err, "%s: %s: shard %ld names no file in the directory\n", io->prog, dir, i);
            sqlite3_close(db), db = NULL;
            break;
        }
        if (!cJSON_IsString(status) || strcmp(status->valuestring, "imported") != 0) {
            fprintf(io->err, "%s: %s: shard %ld (%s) was not imported%s%s: the reports need every shard (import it "
                             "again with --force)\n",
                    io->prog, dir, i, cJSON_IsString(trace) ? trace->valuestring : "?", cJSON_IsString(error) ? ": " : "",
                    cJSON_IsString(error) ? error->valuestring : "");
            sqlite3_close(db), db = NULL;
            break;
        }
        char path[4400], literal[4500];
        snprintf(path, sizeof path, "%s/%s", dir, file->valuestring);
        struct stat sb;
        if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) { /* ATTACH would make an empty one: a report writes nothing */
            fprintf(io->err, "%s: shard %s is missing\n", io->prog, path);
            sqlite3_close(db), db = NULL;
            break;
        }
        sqlite3_stmt *at = NULL;
        int ok = sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &at, NULL) == SQLITE_OK &&
                 sqlite3_bind_text(at, 1, tdb_db_literal_path(path, literal, sizeof literal), -1, SQLITE_STATIC) == SQLITE_OK &&
                 sqlite3_step(at) == SQLITE_DONE;
        sqlite3_finalize(at);
        if (!ok) {
            fprintf(io->err, "%s: cannot read shard %s: %s\n", io->prog, path, sqlite3_errmsg(db));
            sqlite3_close(db), db = NULL;
            break;
        }
        sqlite3_stmt *v;
        int version = -1;
        if (sqlite3_prepare_v2(db, "PRAGMA src.user_version", -1, &v, NULL) == SQLITE_OK && sqlite3_step(v) == SQLITE_ROW)
            version = sqlite3_column_int(v, 0);
        sqlite3_finalize(v);
        if (version != TDB_SCHEMA_VERSION) {
            fprintf(io->err, "%s: %s: not a tracedb database of schema version %d\n", io->prog, path, TDB_SCHEMA_VERSION);
            sqlite3_close(db), db = NULL;
            break;
        }
        char why[300];
        int foreign = tdb_db_foreign_table(db, "src", why, sizeof why);
        if (foreign != 0) {
            fprintf(io->err, "%s: %s: %s%s\n", io->prog, path, why, foreign > 0 ? ": not a database tracedb wrote" : "");
            sqlite3_close(db), db = NULL;
            break;
        }
        /* a transaction holds the attached database's lock: commit to let it go */
        ok = copy_level(db, path, level, io) == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
        sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
        if (ok)
            sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        if (ok && each) /* on the shard's own connection, its rows into this transaction */
            ok = each(db, path, io) == 0;
        if (!ok)
            sqlite3_close(db), db = NULL;
    }
    if (db)
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    cJSON_Delete(doc);
    return db;
}

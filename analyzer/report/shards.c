/* shards.c: see shards.h. Each shard is attached in turn (read-only) and copied in SQL as tracedb merge
 * copies a database, but only what the reports over a directory read: names (interned by value),
 * custom kinds, traces (rank as imported), processes, threads, devices, the ranges (steps, annotations),
 * event_stats and device_stats, at SHARDS_GPU the GPU rows (kernels, memcpy, memset, syncs, GPU ranges), at SHARDS_HOST the
 * runtime and driver calls and top-level operators, at SHARDS_MEMORY the [memory] events and the events
 * holding them. The shards are
 * copied in their order, as tracedb import of the same traces would number them, so a pass summing in
 * table order (kernels' standard deviation) sums in the same order. A report then runs its own SQL on
 * this database; the commands whose SQL reads nothing else say so (struct scope's shards_ok), the others
 * refuse a directory. Another reduce database (a process's share, in tracedb-mpi) is copied the same way
 * (shards_add). */
#include "shards.h"
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

static const char *const copy_sql[] = {
    "CREATE INDEX IF NOT EXISTS main.string_value ON string(value)",
    "INSERT INTO main.string (value) SELECT DISTINCT value FROM src.string WHERE value NOT IN (SELECT value FROM main.string)",
    "DROP TABLE IF EXISTS temp.smap",
    "CREATE TEMP TABLE smap AS SELECT s.id AS old, m.id AS new FROM src.string s JOIN main.string m ON m.value = s.value",
    "INSERT INTO main.kind (id, name) SELECT max(99, (SELECT max(id) FROM main.kind)) + row_number() OVER (ORDER BY id), name "
    "FROM src.kind WHERE name NOT IN (SELECT name FROM main.kind)",
    "DROP TABLE IF EXISTS temp.kmap",
    "CREATE TEMP TABLE kmap AS SELECT s.id AS old, m.id AS new FROM src.kind s JOIN main.kind m ON m.name = s.name",
    "DROP TABLE IF EXISTS temp.off",
    "CREATE TEMP TABLE off AS SELECT (SELECT coalesce(max(id), 0) FROM main.trace) AS tr, "
    "(SELECT coalesce(max(id), 0) FROM main.process) AS pr, (SELECT coalesce(max(id), 0) FROM main.thread) AS th, "
    "(SELECT coalesce(max(id), 0) FROM main.event) AS ev",
    "INSERT INTO main.trace SELECT t.id + o.tr, source_file, source_format, name, base_time_ns, rank, "
    "device_properties, distributed_info, extra, status, skipped_events, overlaps, error, first_ns, last_ns "
    "FROM src.trace t, temp.off o ORDER BY t.id",
    "INSERT INTO main.process SELECT p.id + o.pr, p.trace_id + o.tr, pid, name, labels, sort_index FROM src.process p, temp.off o",
    "INSERT INTO main.thread SELECT t.id + o.th, t.process_id + o.pr, tid, name, sort_index FROM src.thread t, temp.off o",
    "INSERT INTO main.device SELECT d.id, d.trace_id + o.tr, name, properties FROM src.device d, temp.off o",
    "INSERT INTO main.event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, depth) "
    "SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, e.depth "
    "FROM src.event e JOIN temp.kmap k ON k.old = e.kind "
    "JOIN temp.smap sn ON sn.old = e.name_id LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o "
    "WHERE e.kind = 2 ORDER BY e.id",
    "INSERT INTO main.event_stats SELECT s.trace_id + o.tr, k.new, sn.new, s.device, calls, total_ns, self_ns, min_ns, max_ns, "
    "self_device_ns, device_total_ns, self_cpu_mem, cpu_mem, self_device_mem, device_mem "
    "FROM src.event_stats s JOIN temp.kmap k ON k.old = s.kind JOIN temp.smap sn ON sn.old = s.name_id, temp.off o",
    "INSERT INTO main.device_stats SELECT d.trace_id + o.tr, device, first_ns, last_ns, busy_ns, run_ns, events "
    "FROM src.device_stats d, temp.off o",
};

/* SHARDS_GPU: the GPU rows too: kernels, memcpy, memset, syncs, GPU ranges (linked to their launch calls,
 * which come at SHARDS_HOST). */
static const char gpu_sql[] =
    "INSERT INTO main.event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, depth, device, stream, bytes, "
    "launch_id) SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, e.depth, "
    "e.device, e.stream, e.bytes, e.launch_id + o.ev FROM src.event e JOIN temp.kmap k ON k.old = e.kind JOIN temp.smap sn ON sn.old = e.name_id "
    "LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o WHERE e.kind IN (3, 7, 8, 9, 10) ORDER BY e.id";
_Static_assert(TDB_KIND_KERNEL == 7 && TDB_KIND_MEMCPY == 8 && TDB_KIND_MEMSET == 9 && TDB_KIND_SYNC == 10 &&
                   TDB_KIND_GPU_RANGE == 3,
               "gpu_sql names GPU kinds by number");

/* SHARDS_HOST: the runtime and driver calls, and the top-level operators (latency's --top-level). */
static const char host_sql[] =
    "INSERT INTO main.event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, depth, correlation, device, "
    "stream) SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, e.depth, "
    "e.correlation, e.device, e.stream FROM src.event e JOIN temp.kmap k ON k.old = e.kind "
    "JOIN temp.smap sn ON sn.old = e.name_id LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o "
    "WHERE e.kind IN (5, 6) OR (e.kind = 1 AND e.depth = 0) ORDER BY e.id";
_Static_assert(TDB_KIND_RUNTIME == 5 && TDB_KIND_DRIVER == 6 && TDB_KIND_OP == 1, "host_sql names kinds by number");

/* SHARDS_MEMORY: the [memory] events, their allocator rows, and the events holding them (the operator
 * at a peak), those not copied already. */
static const char memory_sql[] =
    "INSERT INTO main.event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, parent_id, depth, device, bytes) "
    "SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, e.parent_id + o.ev, "
    "e.depth, e.device, e.bytes FROM src.event e JOIN temp.kmap k ON k.old = e.kind "
    "JOIN temp.smap sn ON sn.old = e.name_id LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o "
    "WHERE e.kind = 11 ORDER BY e.id; "
    "INSERT INTO main.memory_event SELECT m.event_id + o.ev, addr, total_allocated, total_reserved, device_type "
    "FROM src.memory_event m, temp.off o; "
    "INSERT OR IGNORE INTO main.event (id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, self_ns, depth) "
    "SELECT e.id + o.ev, k.new, sn.new, sc.new, e.thread_id + o.th, e.start_ns, e.dur_ns, e.self_ns, e.depth "
    "FROM src.event e JOIN temp.kmap k ON k.old = e.kind JOIN temp.smap sn ON sn.old = e.name_id "
    "LEFT JOIN temp.smap sc ON sc.old = e.cat_id, temp.off o "
    "WHERE e.id IN (SELECT parent_id FROM src.event WHERE kind = 11) ORDER BY e.id";
_Static_assert(TDB_KIND_MEMORY == 11, "memory_sql names the memory kind by number");
_Static_assert(TDB_KIND_RANGE == 2, "copy_sql names the range kind by number");

int shards_is_dir(const char *path)
{
    struct stat sb;
    char manifest[4200];
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    snprintf(manifest, sizeof manifest, "%s/shards.json", path);
    return stat(manifest, &sb) == 0;
}

int shards_add(sqlite3 *reduce, const char *what, enum shards_level level, struct report_io *io)
{
    size_t n = sizeof copy_sql / sizeof copy_sql[0];
    const char *const more[] = {gpu_sql, host_sql, memory_sql}; /* SHARDS_GPU, _HOST, _MEMORY */
    for (size_t i = 0; i < n + 3; i++) {
        char *msg = NULL;
        const char *sql = i < n ? copy_sql[i] : (int)level >= SHARDS_GPU + (int)(i - n) ? more[i - n] : NULL;
        if (sql && sqlite3_exec(reduce, sql, NULL, NULL, &msg) != SQLITE_OK) {
            fprintf(io->err, "%s: %s: %s\n", io->prog, what, msg ? msg : sqlite3_errmsg(reduce));
            sqlite3_free(msg);
            return -1;
        }
    }
    return 0;
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

static sqlite3 *preloaded;
static enum shards_level preloaded_level;
static char preloaded_dir[4096];

void shards_preload(const char *dir, sqlite3 *reduce, enum shards_level level)
{
    sqlite3_close(preloaded);
    preloaded = reduce, preloaded_level = level;
    snprintf(preloaded_dir, sizeof preloaded_dir, "%s", dir);
}

sqlite3 *shards_open(const char *dir, long first, long end, enum shards_level level, struct report_io *io)
{
    if (preloaded && first == 0 && end < 0 && level <= preloaded_level && strcmp(dir, preloaded_dir) == 0) {
        sqlite3 *db = preloaded;
        preloaded = NULL;
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
        if (!cJSON_IsString(file) || strchr(file->valuestring, '/') || !cJSON_IsString(status) ||
            strcmp(status->valuestring, "imported") != 0) {
            fprintf(io->err, "%s: %s: shard %ld (%s) was not imported%s%s: the reports need every shard (import it "
                             "again with --force)\n",
                    io->prog, dir, i, cJSON_IsString(trace) ? trace->valuestring : "?", cJSON_IsString(error) ? ": " : "",
                    cJSON_IsString(error) ? error->valuestring : "");
            sqlite3_close(db), db = NULL;
            break;
        }
        char path[4400], literal[4500];
        snprintf(path, sizeof path, "%s/%s", dir, file->valuestring);
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
        /* a transaction holds the attached database's lock: commit to let it go */
        ok = shards_add(db, path, level, io) == 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
        sqlite3_exec(db, "DETACH src", NULL, NULL, NULL);
        if (!ok)
            sqlite3_close(db), db = NULL;
        else
            sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    }
    if (db)
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    cJSON_Delete(doc);
    return db;
}

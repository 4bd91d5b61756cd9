/* ingest_names.c: the ingest's dictionaries, kept in memory and written once: names and categories
 * (string), tracks (process, thread: by pid and tid as text or numbers, or a recording's numbers), a
 * track's metadata, custom kinds, devices. */
#include "ingest_internal.h"
#include "row_writer.h"
#include "stmt_cache.h"
#include "strmap.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int64_t ingest_string(struct tdb_ingest *ing, struct tdb_str s)
{
    /* the hint: where a string of this length, first, middle and last byte was found last */
    size_t h = s.n ? (s.n * 0x9Eu) ^ ((size_t)(unsigned char)s.p[0] << 2) ^ ((size_t)(unsigned char)s.p[s.n / 2] << 5) ^
                         (size_t)(unsigned char)s.p[s.n - 1]
                   : 0;
    int64_t id = spill_map_get_hinted(&ing->strings, s.p, s.n, &ing->string_hint[h % STRING_HINTS]);
    if (id >= 0)
        return id;
    if (id == -1) {
        id = ing->next_string++;
        if (row_writer_string(ing->rows, id, s) != 0)
            return -1;
        if (spill_map_put(&ing->strings, s.p, s.n, id) == 0)
            return id;
    }
    fprintf(ing->err, "tracedb: %s: cannot keep the names: %s\n", ing->path, spill_map_error(&ing->strings));
    return -1;
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

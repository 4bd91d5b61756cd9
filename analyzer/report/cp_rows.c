/* cp_rows.c: one trace's rows as the critical path graph (cp_graph.c) takes them, as HTA's loader
 * leaves its dataframe: names and categories as cp_flag bits, host threads numbered in (pid, tid) order,
 * the rows read (cp_read.c) in id order, launch links both ways, cut at the last step with
 * --drop-last-step, and marked in or out of the window. */
#include "cp_rows.h"
#include "bigmem.h"
#include "report.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every string's cp_flag bits that has any (names and categories share the string table). */
int cp_load_flags(sqlite3 *db, struct id_value **flags, size_t *n, struct report_io *io)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *flags = NULL, *n = 0;
    if (sqlite3_prepare_v2(db, "SELECT id, value FROM string ORDER BY id", -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *s = sqlite3_column_text(st, 1);
        unsigned f = s ? cp_name_flags((const char *)s) : 0;
        if (!f)
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            struct id_value *a = tdb_big_realloc(*flags, cap * sizeof *a);
            if (!a) {
                rc = SQLITE_NOMEM;
                break;
            }
            *flags = a;
        }
        (*flags)[(*n)++] = (struct id_value){sqlite3_column_int64(st, 0), f};
    }
    if (rc != SQLITE_DONE)
        fprintf(io->err, "%s: %s\n", io->prog, rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* HTA's index_correlation from each row's launch_id (launch[i].id, where has_launch): GPU work -> its
 * launch call, and the call -> (the last of) its work; sync rows on no stream (Event Sync, Context
 * Sync: host rows by HTA's stream column) link to their call too. The rows come with no links (-1: the
 * scan's). */
static void link_rows(struct cp_row *rows, const struct id_value *launch, size_t n, const struct row_index *pos)
{
    for (size_t i = 0; i < n; i++) {
        int sync_on_no_stream = rows[i].stream == -1 && (rows[i].flags & CP_CAT_SYNC);
        if (!rows[i].has_launch || (rows[i].stream == -1 && !sync_on_no_stream))
            continue;
        int32_t l = cp_row_index_get(pos, rows, n, launch[i].id);
        if (l < 0 || (size_t)l == i)
            continue;
        rows[i].link = l;
        if (!sync_on_no_stream)
            rows[l].link = (int32_t)i;
    }
}

/* The window: host rows starting in it with a duration; GPU work whose launch call (l) is one. GPU rows
 * have no thread (HTA's stream column tells them). */
static void in_window(struct cp_row *r, const struct cp_row *l, int64_t lo, int64_t hi)
{
    if (r->stream == -1) {
        r->clipped = r->ts >= lo && r->ts <= hi && r->end > r->ts;
    } else {
        r->clipped = (l && l->stream == -1 && l->ts >= lo && l->ts <= hi && l->end > l->ts) || (r->flags & CP_WAIT_EVENT);
        r->thread = -1;
    }
}

static int64_t floor_us(int64_t ns)
{
    return (ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000)) * 1000;
}

static int64_t ceil_us(int64_t ns)
{
    return -floor_us(-ns);
}

/* One trace's rows, links and window marks. */
int cp_load_rows(sqlite3 *db, int64_t trace, const struct id_map *flags, int64_t lo, int64_t hi,
                 int64_t cutoff, int round_us, struct cp_row **out, size_t *count, struct cp_wait **waits,
                 int64_t **names_out, struct report_io *io)
{
    struct id_value *threads = NULL, *launch = NULL;
    struct id_map thread_of = {0};
    struct row_index pos = {0, NULL, 0, 0};
    size_t nthreads, n = 0;
    int sorted = 1;
    struct cp_row *rows = NULL;
    int64_t *names = NULL; /* with names_out: each row's name id (scan_part_run), kept beside the rows */
    int rc = -1;
    /* host threads numbered in HTA's groupby order: (pid, tid) */
    if (cp_collect(db,
                   "SELECT th.id, row_number() OVER (ORDER BY p.pid, th.tid, th.id) - 1 FROM thread th "
                   "JOIN process p ON p.id = th.process_id WHERE p.trace_id = ?1",
                   trace, 1, &threads, &nthreads, io) != 0)
        goto done;
    cp_id_map_init(&thread_of, threads, nthreads);
    report_phase("cp: prepare");
    int packed = cp_pack_rows(db, flags, &thread_of, round_us, &rows, &launch, &n, waits, io);
    if (packed < 0 || (packed == 0 && cp_scan_rows(db, trace, flags, &thread_of, round_us, &rows, &launch, &n, waits, &sorted, io) != 0))
        goto done;
    report_phase(packed ? "cp: scan (the import's pack)" : "cp: scan");
    if (names_out) {
        if (!(names = tdb_big_malloc((n + 1) * sizeof *names))) {
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            names[i] = launch[i].v;
    }
    if (!sorted && n > 1) { /* the scan was not in id order: sort the rows, their launch ids and names together */
        for (size_t i = 0; i < n; i++)
            launch[i].v = (int64_t)i;
        struct cp_row *copy = tdb_big_malloc((n + 1) * sizeof *copy);
        struct id_value *order = tdb_big_malloc((n + 1) * sizeof *order);
        int64_t *name_copy = names ? tdb_big_malloc((n + 1) * sizeof *name_copy) : NULL;
        if (!copy || !order || (names && !name_copy)) {
            free(copy), free(order), free(name_copy);
            fprintf(io->err, "%s: out of memory\n", io->prog);
            goto done;
        }
        for (size_t i = 0; i < n; i++)
            order[i] = (struct id_value){rows[i].id, (int64_t)i};
        qsort(order, n, sizeof *order, cp_by_id);
        memcpy(copy, rows, n * sizeof *rows);
        if (names)
            memcpy(name_copy, names, n * sizeof *names);
        for (size_t i = 0; i < n; i++) {
            rows[i] = copy[order[i].v], order[i].id = launch[order[i].v].id;
            if (names)
                names[i] = name_copy[order[i].v];
        }
        for (size_t i = 0; i < n; i++)
            launch[i] = (struct id_value){order[i].id, (int64_t)i};
        free(copy), free(order), free(name_copy);
    }
    if (round_us) { /* the window's bounds were times of rows too */
        lo = lo == INT64_MIN ? lo : ceil_us(lo), hi = hi == INT64_MAX ? hi : floor_us(hi);
        cutoff = cutoff == INT64_MAX ? cutoff : ceil_us(cutoff);
    }
    cp_row_index_init(&pos, rows, n);
    link_rows(rows, launch, n, &pos);
    free(pos.direct);
    pos.direct = NULL;
    if (cutoff != INT64_MAX) { /* HTA's loader: what starts before the last step, and the work it launched */
        int64_t kept = 0;
        for (size_t i = 0; i < n; i++) { /* each row's place among the kept ones, or -1 */
            const struct cp_row *r = &rows[i];
            int keep = r->stream == -1 && !(r->link >= 0 && (r->flags & CP_CAT_SYNC)) ? r->ts < cutoff
                       : r->link >= 0 ? rows[r->link].ts < cutoff
                                      : r->correlation < 0;
            launch[i].v = keep ? kept++ : -1;
        }
        /* a kept row's links are to kept rows (work is kept with its launch call, and a call with all
         * its work): they move with them, each marked in or out of the window as it moves (its launch
         * call read where it is now: moved down already when before it, else still in place) */
        for (size_t i = 0; i < n; i++)
            if (launch[i].v >= 0) {
                struct cp_row r = rows[i];
                int64_t at = r.link >= 0 ? launch[r.link].v : -1;
                in_window(&r, at < 0 ? NULL : (size_t)r.link > i ? &rows[r.link] : &rows[at], lo, hi);
                r.link = (int32_t)at;
                rows[launch[i].v] = r;
                if (names)
                    names[launch[i].v] = names[i];
            }
        n = (size_t)kept;
    } else {
        for (size_t i = 0; i < n; i++)
            in_window(&rows[i], rows[i].link >= 0 ? &rows[rows[i].link] : NULL, lo, hi);
    }
    report_phase("cp: links");
    *out = rows, *count = n, rows = NULL;
    if (names_out)
        *names_out = names, names = NULL;
    rc = 0;
done:
    cp_id_map_free(&thread_of);
    free(rows), free(threads), free(launch), free(pos.direct), free(names);
    return rc;
}

/* cp_ids.c: the critical-path pass's lookups by id (see cp_rows.h): values by id (id_map: a direct
 * array where the ids are dense, else a binary search), row positions by event id (row_index), and a
 * query's (id, value) rows collected. */
#include "cp_rows.h"
#include "bigmem.h"
#include <stdio.h>
#include <stdlib.h>

static int64_t find_value(const struct id_value *a, size_t n, int64_t id, int64_t missing)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && a[lo].id == id ? a[lo].v : missing;
}

/* The span of ids first..last when a table indexed by id is worth it for n ids (at most 4 slots an id,
 * plus 64 Ki): what id_map and row_index allocate; 0 when the ids are too sparse (binary search then). */
static uint64_t direct_span(int64_t first, int64_t last, size_t n)
{
    uint64_t span = (uint64_t)last - (uint64_t)first + 1;
    return span > 4 * (uint64_t)n + 65536 ? 0 : span;
}

void cp_id_map_init(struct id_map *m, const struct id_value *pairs, size_t n)
{
    *m = (struct id_map){pairs, n, 0, NULL, 0};
    if (n == 0)
        return;
    uint64_t span = direct_span(pairs[0].id, pairs[n - 1].id, n);
    if (!span || !(m->direct = tdb_big_calloc((size_t)span, sizeof *m->direct)))
        return;
    m->base = pairs[0].id, m->span = (size_t)span;
    for (size_t i = 0; i < n; i++)
        m->direct[pairs[i].id - m->base] = pairs[i].v + 1;
}

int64_t cp_id_map_get(const struct id_map *m, int64_t id, int64_t missing)
{
    if (m->direct) {
        uint64_t k = (uint64_t)id - (uint64_t)m->base;
        return k < m->span && m->direct[k] ? m->direct[k] - 1 : missing;
    }
    return find_value(m->pairs, m->n, id, missing);
}

void cp_id_map_free(struct id_map *m)
{
    free(m->direct);
    m->direct = NULL;
}

int cp_by_id(const void *a, const void *b)
{
    const struct id_value *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Runs sql (?1 = trace id) and collects its rows' (integer, integer) columns, sorted by the first when
 * sort is set. 0, or -1 (printed). */
int cp_collect(sqlite3 *db, const char *sql, int64_t trace, int sort, struct id_value **out, size_t *n,
               struct report_io *io)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    *out = NULL, *n = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        return -1;
    }
    sqlite3_bind_int64(st, 1, trace);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 256;
            struct id_value *a = tdb_big_realloc(*out, cap * sizeof *a);
            if (!a) {
                sqlite3_finalize(st);
                fprintf(io->err, "%s: out of memory\n", io->prog);
                return -1;
            }
            *out = a;
        }
        (*out)[(*n)++] = (struct id_value){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
    }
    if (rc != SQLITE_DONE)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE && sort && *n > 1) /* none read: *out is NULL, which qsort may not be given */
        qsort(*out, *n, sizeof **out, cp_by_id);
    return rc == SQLITE_DONE ? 0 : -1;
}

void cp_row_index_init(struct row_index *x, const struct cp_row *rows, size_t n)
{
    *x = (struct row_index){0, NULL, 0, 0};
    if (n == 0 || n >= INT32_MAX)
        return;
    if ((uint64_t)rows[n - 1].id - (uint64_t)rows[0].id == n - 1) {
        /* in order, n ids apart: each its own, unless an id repeats (a stranger's view), and then another
         * is missing (the direct array below finds each id's last row, and no row for the missing one) */
        size_t i = 1;
        while (i < n && rows[i].id != rows[i - 1].id)
            i++;
        if (i == n) {
            *x = (struct row_index){rows[0].id, NULL, n, 1};
            return;
        }
    }
    uint64_t span = direct_span(rows[0].id, rows[n - 1].id, n);
    if (!span || !(x->direct = tdb_big_calloc((size_t)span, sizeof *x->direct)))
        return;
    x->base = rows[0].id, x->span = (size_t)span;
    for (size_t i = 0; i < n; i++)
        x->direct[(uint64_t)rows[i].id - (uint64_t)x->base] = (int32_t)i + 1;
}

int32_t cp_row_index_get(const struct row_index *x, const struct cp_row *rows, size_t n, int64_t id)
{
    if (x->dense) {
        uint64_t k = (uint64_t)id - (uint64_t)x->base;
        return k < x->span ? (int32_t)k : -1;
    }
    if (x->direct) {
        uint64_t k = (uint64_t)id - (uint64_t)x->base;
        return k < x->span ? x->direct[k] - 1 : -1;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rows[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && rows[lo].id == id ? (int32_t)lo : -1;
}

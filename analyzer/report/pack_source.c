/* pack_source.c: see pack_source.h. */
#include "pack_source.h"
#include "event_pack.h"
#include <stdlib.h>

int pack_source_open(sqlite3 *db, struct pack_source *s)
{
    sqlite3_stmt *st = NULL;
    /* the pack's tables are tables (a stranger's view there, whose query may never end, is no pack): first,
     * before the query below reads them */
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('event_pack', "
                               "'event_pack_fix', 'event_pack_less', 'event_pack_stale')",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int(st, 0) != 4) {
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_finalize(st);
    /* the pack's meta row (format 2's before format 1's: 'event_pack_v2' sorts after 'event_pack'), its key
     * and value from the one row */
    if (sqlite3_prepare_v2(db,
                           "SELECT m.value, m.key = 'event_pack_v2', (SELECT count(*) FROM sqlite_schema WHERE (type = 'table' "
                           "AND name = 'event') OR (type = 'trigger' AND tbl_name = 'event' AND name IN ('event_pack_stale_insert', "
                           "'event_pack_stale_delete', 'event_pack_stale_update'))), "
                           "(SELECT min(id) FROM event), (SELECT max(id) FROM event), (SELECT count(*) FROM trace), "
                           "(SELECT min(block) FROM event_pack), (SELECT max(block) FROM event_pack) "
                           "FROM meta m WHERE m.key IN ('event_pack', 'event_pack_v2') ORDER BY m.key DESC LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW || sqlite3_column_type(st, 0) != SQLITE_INTEGER || sqlite3_column_int(st, 2) != 4) {
        sqlite3_finalize(st);
        return 0;
    }
    *s = (struct pack_source){.rows = sqlite3_column_int64(st, 0), .format = sqlite3_column_int(st, 1) ? TDB_PACK_V2 : TDB_PACK_V1,
                              .lo = sqlite3_column_int64(st, 3), .hi = sqlite3_column_int64(st, 4),
                              .traces = sqlite3_column_int64(st, 5), .first = sqlite3_column_int64(st, 6),
                              .last = sqlite3_column_int64(st, 7)};
    sqlite3_finalize(st);
    /* one row each id from lo to hi (a span that fits, with room: the ids are the table's own) */
    return s->rows > 0 && s->rows <= ((int64_t)1 << 40) && s->hi >= s->lo &&
           (uint64_t)s->hi - (uint64_t)s->lo == (uint64_t)s->rows - 1 && s->last >= s->first;
}

/* Appends (a, b) to the growing array *r. 0, or -1 when out of memory. */
static int push_pair(int64_t (**r)[2], size_t *n, size_t *cap, int64_t a, int64_t b)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 256;
        int64_t(*m)[2] = realloc(*r, c * sizeof *m);
        if (!m)
            return -1;
        *r = m, *cap = c;
    }
    (*r)[*n][0] = a, (*r)[*n][1] = b, ++*n;
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

int pack_source_stale(sqlite3 *db, const struct pack_source *s, int64_t (**v)[2], size_t *n)
{
    sqlite3_stmt *st = NULL;
    int64_t(*r)[2] = NULL;
    size_t nr = 0, cap = 0;
    int rc = 0, step = SQLITE_DONE;
    *v = NULL, *n = 0;
    if (s->format != TDB_PACK_V2 ||
        sqlite3_prepare_v2(db, "SELECT lo, hi FROM event_pack_stale UNION ALL SELECT id, id FROM event_pack_fix", -1, &st,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t lo = sqlite3_column_int64(st, 0), hi = sqlite3_column_int64(st, 1);
        if (hi >= lo)
            rc = push_pair(&r, &nr, &cap, lo, hi);
    }
    sqlite3_finalize(st);
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc != 0) {
        free(r);
        return -1;
    }
    if (nr)
        qsort(r, nr, sizeof *r, by_lo);
    size_t k = 0; /* joined where they touch */
    for (size_t i = 0; i < nr; i++)
        if (k && (r[i][0] <= r[k - 1][1] || r[i][0] - 1 == r[k - 1][1])) {
            if (r[i][1] > r[k - 1][1])
                r[k - 1][1] = r[i][1];
        } else
            r[k][0] = r[i][0], r[k][1] = r[i][1], k++;
    *v = r, *n = k;
    return 0;
}

int pack_source_less(sqlite3 *db, const struct pack_source *s, int64_t (**v)[2], size_t *n)
{
    sqlite3_stmt *st = NULL;
    int64_t(*r)[2] = NULL;
    size_t nr = 0, cap = 0;
    int rc = 0, step = SQLITE_DONE;
    *v = NULL, *n = 0;
    if (s->format != TDB_PACK_V2)
        return 0;
    if (sqlite3_prepare_v2(db, "SELECT rows, data FROM event_pack_less ORDER BY block", -1, &st, NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return -1;
    }
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t said = sqlite3_column_int64(st, 0), got = 0, id, less;
        struct tdb_pack_reader rd;
        tdb_pack_read_init(&rd, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), s->format);
        int more = 0;
        while (rc == 0 && (more = tdb_pack_less_next(&rd, &id, &less)) == 1)
            rc = push_pair(&r, &nr, &cap, id, less), got++;
        if (rc == 0 && (more != 0 || got != said))
            rc = -1;
    }
    sqlite3_finalize(st);
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    if (rc == 0 && nr)
        qsort(r, nr, sizeof *r, by_lo);
    size_t k = 0; /* each id's summed (its fixes in any order: a sum is one whatever the order, or none) */
    for (size_t i = 0; rc == 0 && i < nr; i++)
        if (k && r[i][0] == r[k - 1][0]) {
            if (__builtin_add_overflow(r[k - 1][1], r[i][1], &r[k - 1][1]))
                rc = -1;
        } else
            r[k][0] = r[i][0], r[k][1] = r[i][1], k++;
    if (rc != 0) {
        free(r);
        return -1;
    }
    *v = r, *n = k;
    return 0;
}

sqlite3_stmt *pack_source_blocks(sqlite3 *db, int64_t first, int64_t last)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT rows, data FROM event_pack WHERE block BETWEEN ?1 AND ?2 ORDER BY block", -1, &st,
                           NULL) != SQLITE_OK) {
        sqlite3_finalize(st);
        return NULL;
    }
    sqlite3_bind_int64(st, 1, first);
    sqlite3_bind_int64(st, 2, last);
    return st;
}

int pack_source_block(sqlite3_stmt *st, const struct pack_source *s, struct tdb_pack_row *rows)
{
    int64_t said = sqlite3_column_int64(st, 0);
    if (said < 0 || said > TDB_PACK_ROWS)
        return -1;
    struct tdb_pack_reader rd;
    tdb_pack_read_init(&rd, sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), s->format);
    int n = 0;
    while (n < said && tdb_pack_next(&rd, &rows[n]) == 1 && rows[n].id >= s->lo && rows[n].id <= s->hi)
        n++;
    return n == said && tdb_pack_next(&rd, &(struct tdb_pack_row){0}) == 0 ? n : -1;
}

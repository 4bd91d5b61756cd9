/* self_fixes.c: see self_fixes.h. A batch's fixes are sorted by id and cut into runs of ids at most
 * RUN_GAP apart; a run of one row is one UPDATE by id, a longer run one UPDATE over its range, whose
 * rows ask the SQL function tdb_self_fix (a cursor over the sorted fixes, passed as a pointer) whether
 * and by how much their self time changes: self_ns less each of its fixes. */
#include "self_fixes.h"
#include "stmt_cache.h"
#include <stdlib.h>

#define BATCH_FIXES 16384 /* fixes written at once at most */
#define RUN_GAP 8         /* ids this close share a run: a row read for nothing costs less than a statement */
#define FIXES_TYPE "tdb_self_fixes"

static int by_id(const void *a, const void *b)
{
    const struct self_fix *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* tdb_self_fix(fixes, id): whether row id has fixes (the cursor moves to them).
 * tdb_self_fix(fixes, id, self_ns): self_ns less the fixes of id. Ids come ascending while SQLite
 * updates in one pass; a trigger on event (one a user added) makes it two: every row's WHERE, then
 * every row's SET, and the cursor goes back to the row's fixes. */
static void self_fix_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct self_fixes *f = sqlite3_value_pointer(argv[0], FIXES_TYPE);
    if (!f || sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
        sqlite3_result_null(ctx);
        return;
    }
    int64_t id = sqlite3_value_int64(argv[1]);
    if (f->at > f->first && f->fix[f->at - 1].id >= id) { /* the first fix of id or after: in [first, at - 1] */
        size_t lo = f->first, hi = f->at - 1;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (f->fix[mid].id < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        f->at = lo;
    }
    while (f->at < f->n && f->fix[f->at].id < id)
        f->at++;
    int has = f->at < f->n && f->fix[f->at].id == id;
    if (argc == 2) {
        sqlite3_result_int(ctx, has);
        return;
    }
    if (!has || sqlite3_value_type(argv[2]) != SQLITE_INTEGER) {
        sqlite3_result_value(ctx, argv[2]);
        return;
    }
    uint64_t v = (uint64_t)sqlite3_value_int64(argv[2]); /* (durations: no fix leaves int64) */
    for (size_t k = f->at; k < f->n && f->fix[k].id == id; k++)
        v -= (uint64_t)f->fix[k].less;
    sqlite3_result_int64(ctx, (int64_t)v);
}

int self_fixes_init(struct self_fixes *f, sqlite3 *db)
{
    *f = (struct self_fixes){0};
    if (sqlite3_create_function(db, "tdb_self_fix", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, self_fix_sql, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function(db, "tdb_self_fix", 3, SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL, self_fix_sql, NULL, NULL) !=
            SQLITE_OK ||
        tdb_stmt_prepare(db, "UPDATE event SET self_ns = self_ns - ?2 WHERE id = ?1", -1, 0, &f->one, NULL) != SQLITE_OK ||
        tdb_stmt_prepare(db, "UPDATE event SET self_ns = tdb_self_fix(?3, id, self_ns) WHERE id >= ?1 AND id <= ?2 "
                             "AND tdb_self_fix(?3, id)", -1, 0, &f->run, NULL) != SQLITE_OK) {
        self_fixes_free(f);
        return -1;
    }
    return 0;
}

int self_fixes_add(struct self_fixes *f, int64_t id, int64_t less)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 1024;
        struct self_fix *m = realloc(f->fix, cap * sizeof *m);
        if (!m)
            return -1;
        f->fix = m, f->cap = cap;
    }
    f->fix[f->n] = (struct self_fix){id, less};
    f->n++;
    return f->n >= BATCH_FIXES;
}

/* Steps st once and resets it: 0, or SQLite's code. */
static int step(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : rc;
}

int self_fixes_write(struct self_fixes *f)
{
    if (!f->n)
        return 0;
    qsort(f->fix, f->n, sizeof *f->fix, by_id);
    int rc = 0;
    for (size_t i = 0; i < f->n && rc == 0;) {
        size_t j = i + 1; /* the run: fixes i .. j - 1 */
        while (j < f->n && (uint64_t)f->fix[j].id - (uint64_t)f->fix[j - 1].id <= RUN_GAP)
            j++;
        if (j == i + 1) {
            sqlite3_bind_int64(f->one, 1, f->fix[i].id);
            sqlite3_bind_int64(f->one, 2, f->fix[i].less);
            rc = step(f->one);
        } else {
            f->first = f->at = i;
            size_t n = f->n;
            f->n = j; /* the cursor stops at the run's end */
            sqlite3_bind_int64(f->run, 1, f->fix[i].id);
            sqlite3_bind_int64(f->run, 2, f->fix[j - 1].id);
            sqlite3_bind_pointer(f->run, 3, f, FIXES_TYPE, NULL);
            rc = step(f->run);
            f->n = n;
        }
        i = j;
    }
    f->n = 0;
    return rc;
}

void self_fixes_free(struct self_fixes *f)
{
    tdb_stmt_finalize(f->one);
    tdb_stmt_finalize(f->run);
    free(f->fix);
    *f = (struct self_fixes){0};
}

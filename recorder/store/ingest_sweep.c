/* ingest_sweep.c: the end of a trace, first part (see ingest.c), in bounded memory: the sweep's
 * results (parent, depth, self time) and the launch links, merged in id order by an external sort
 * (spill_sort.c), written back in id order (an UPDATE over each run of nearby rows to rewrite, or over
 * every row read back); then the per-name sums (event_stats: calls, time, self time, shortest and longest; their device time and
 * memory per operator columns 0: PyTorch's rules for those are `tracedb ops`'s pass,
 * analyzer/report/ops_sweep.c, the one definition). Where every row was nested as it streamed in
 * (stream_nest_exact), the stream found the self-time sums, the same-name count and the overlaps the
 * sweep would: it does not run. */
#include "ingest_internal.h"
#include "nesting.h"
#include "stmt_cache.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the pages of the trace's end (sums, the sweep's stack) failed (said): -1, else 0. */
static int sums_failed(struct tdb_ingest *ing)
{
    int e = paged_file_error(&ing->sums_file);
    if (!e)
        return 0;
    fprintf(ing->err, "tracedb: %s: cannot keep the per-name sums and the nesting in a temporary file in %s: %s\n",
            ing->path, ing->sort_dir, strerror(e));
    return -1;
}

/* ---------------------------------------------------------------- the sweep */

/* One event swept: its self time to its name's sums; a row to rewrite where the row does not hold
 * these values: rows of tracks nested while streaming in (stream_nest.c) hold them already, except
 * on a dirty track (every row rewritten); a recording's rows where their key says they hold others;
 * other rows (read back) when nested or holding others. */
static int ingest_swept(void *ctx, const struct nesting_result *r)
{
    struct tdb_ingest *ing = ctx;
    struct stat_row *st = stat_at(ing, r->stat);
    st->self = tdb_sat_add(st->self, r->self);
    if (r->parent && ingest_same_name(ing, r->parent_stat, r->stat))
        ing->same_name++;
    int streamed = ing->stream && !ing->read_back;
    int keep; /* the row holds the values */
    if (ing->held_keys)
        keep = r->held.parent == r->parent && r->held.depth == r->depth && r->held.self == r->self;
    else
        keep = streamed && !stream_nest_dirty(ing->stream, r->track);
    if (keep || (!ing->held_keys && !r->parent && r->self == r->dur && !streamed))
        return 0;
    struct result_rec *o = spill_sort_push(ing->results);
    if (!o)
        return -1;
    *o = (struct result_rec){r->ord, RES_NEST, r->depth, r->parent, 0, r->self};
    ing->rewrites++;
    return 0;
}

/* Pairs each piece of GPU work with the first launch of its correlation: a link where its row holds
 * no launch_id or another one. */
static int ingest_pair_launches(struct tdb_ingest *ing)
{
    if (spill_sort_done(ing->corrs) != 0)
        return -1;
    const struct corr_rec *c;
    int64_t corr = TDB_NULL;
    uint32_t launch = 0; /* ord + 1 of the current correlation's first launch, 0 = none */
    int64_t launch_ns = 0; /* its start */
    while ((c = spill_sort_next(ing->corrs)) != NULL) {
        if (c->corr != corr || launch == 0) {
            if (c->corr != corr)
                launch = 0;
            corr = c->corr;
            if (c->what == CORR_LAUNCH && launch == 0) {
                launch = c->ord + 1, launch_ns = c->t;
                continue;
            }
        }
        if (c->what == CORR_LAUNCH || !launch)
            continue;
        if (c->in_row != launch) {
            struct result_rec *o = spill_sort_push(ing->results);
            if (!o)
                return -1;
            *o = (struct result_rec){c->ord, RES_LINK, 0, launch - 1, 0, launch_ns};
            ing->rewrites++;
        }
    }
    return spill_sort_error(ing->corrs) ? -1 : 0;
}

/* ---------------------------------------------------------------- writing back */

/* Fixes past this many (64 MB) leave the pack out instead: memory stays bounded. */
#define PACK_FIXES_MAX ((size_t)1 << 22)

/* A late launch link written into a row the pack already holds: kept for event_pack_fix (ingest.c's
 * pack end), or, past PACK_FIXES_MAX or out of memory, the pack left out. */
static void ingest_pack_fix(struct tdb_ingest *ing, int64_t id, int64_t launch_id)
{
    if (!ing->packing || ing->pack_broken)
        return;
    if (ing->npack_fixes == ing->cap_pack_fixes) {
        size_t cap = ing->cap_pack_fixes ? 2 * ing->cap_pack_fixes : 1024;
        int64_t(*a)[2] = cap <= PACK_FIXES_MAX ? realloc(ing->pack_fixes, cap * sizeof *a) : NULL;
        if (!a) { /* the import goes on without its pack */
            ing->pack_broken = 1;
            return;
        }
        ing->pack_fixes = a, ing->cap_pack_fixes = cap;
    }
    ing->pack_fixes[ing->npack_fixes][0] = id, ing->pack_fixes[ing->npack_fixes][1] = launch_id;
    ing->npack_fixes++;
}

/* The merged results, read in id order by the tdb_nest() SQL function during the UPDATEs that store
 * them. SQLite updates a range in one pass (each row's WHERE, then its SET), or, where event has an
 * UPDATE trigger (one a user added), in two: every row's WHERE, then every row's SET; then the
 * cursor goes back within the run (a run's records are in memory; the sort's are not: there the
 * update says no first, ingest_write_back). */
/* Records of rows to rewrite taken from the sort a run at a time: ords at most RUN_GAP apart, up to RUN_RECS
 * of them (and the rest of the last one's ord). */
#define RUN_RECS 4096
#define RUN_GAP 16

struct nest_cursor {
    struct tdb_ingest *ing;
    int64_t base;                 /* id of ord 0 */
    const struct result_rec *next;
    struct result_rec *run;       /* the run's records (runs), or NULL: the cursor reads the sort itself */
    size_t nrun, irun;            /* how many, the one after next */
    struct result_rec ahead;      /* the sort's record after the run (a copy: the sort's is valid until its next) */
    int64_t at;                   /* the ord the fields below describe, -1 before the first */
    int64_t furthest;             /* the furthest ord asked, -1 before the first */
    int nested, linked;
    uint32_t parent;
    uint16_t depth;
    int64_t self, launch, launch_ns;
    int backwards;                /* asked for an ord behind the cursor: the update did not go in id order */
};

static void cursor_take(struct nest_cursor *c, const struct result_rec *r, int64_t ord)
{
    if ((int64_t)r->ord != ord)
        return;
    if (r->what == RES_NEST)
        c->nested = 1, c->parent = r->parent, c->depth = r->depth, c->self = r->val;
    else if (r->what == RES_LINK)
        c->linked = 1, c->launch = r->parent, c->launch_ns = r->val;
}

/* Moves the cursor to ord, taking every record before it and at it; back only within a run: to the
 * run's first record at ord or after (among those taken: [0, next)), whose ord's records it takes again. */
static void cursor_seek(struct nest_cursor *c, int64_t ord)
{
    if (ord == c->at)
        return;
    if (ord < c->at && !c->run) {
        c->backwards = 1;
        return;
    }
    if (ord < c->at) {
        size_t lo = 0, hi = c->next ? (size_t)(c->next - c->run) : c->nrun;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if ((int64_t)c->run[mid].ord < ord)
                lo = mid + 1;
            else
                hi = mid;
        }
        c->next = lo < c->nrun ? &c->run[lo] : NULL, c->irun = lo + 1;
    }
    if (ord > c->furthest)
        c->furthest = ord;
    c->at = ord, c->nested = c->linked = 0;
    while (c->next && (int64_t)c->next->ord <= ord) {
        cursor_take(c, c->next, ord);
        c->next = !c->run ? spill_sort_next(c->ing->results) : c->irun < c->nrun ? &c->run[c->irun++] : NULL;
    }
}

/* Whether a row's parent_id, depth and self_ns (v[0..2]) are these. */
static int row_holds(sqlite3_value **v, int64_t parent, int64_t depth, int64_t self)
{
    if (sqlite3_value_int64(v[1]) != depth || sqlite3_value_int64(v[2]) != self)
        return 0;
    return parent == TDB_NULL ? sqlite3_value_type(v[0]) == SQLITE_NULL
                              : sqlite3_value_type(v[0]) != SQLITE_NULL && sqlite3_value_int64(v[0]) == parent;
}

/* Whether a row's launch_id (v) is launch (NULL: none is due, whatever it holds). */
static int row_launch_holds(sqlite3_value *v, int64_t launch)
{
    return launch == TDB_NULL || (sqlite3_value_type(v) != SQLITE_NULL && sqlite3_value_int64(v) == launch);
}

/* The pointer type tdb_nest's first argument carries (SQLite's pointer passing: sqlite3_bind_pointer). */
#define NEST_CURSOR_TYPE "tdb_nest_cursor"

/* tdb_nest(cursor, id, column[, row's value]), cursor the update's struct nest_cursor bound as a pointer
 * (any other value: NULL): 0 parent_id, 1 depth, 2 self_ns (the row's value where the sweep gives none),
 * 3 launch_id (NULL when none), 6 launch_ns (its start; NULL when none); tdb_nest(cursor, id, 4,
 * parent_id, depth, self_ns, launch_id): whether an imported row holding these changes (a row the sweep
 * does not nest keeps its nesting); tdb_nest(cursor, id, 5, parent_id, depth, self_ns, launch_id,
 * dur_ns): whether a row read back changes (a row the sweep does not nest has none: parent NULL, depth 0,
 * self = dur). */
static void nest_value(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct nest_cursor *c = argc >= 3 ? sqlite3_value_pointer(argv[0], NEST_CURSOR_TYPE) : NULL;
    if (!c) {
        sqlite3_result_null(ctx);
        return;
    }
    argv++, argc--; /* id, column, ... */
    cursor_seek(c, sqlite3_value_int64(argv[0]) - c->base);
    int64_t parent = c->nested && c->parent ? c->base + c->parent - 1 : TDB_NULL;
    int64_t launch = c->linked ? c->base + c->launch : TDB_NULL;
    int column = sqlite3_value_int(argv[1]);
    if (column <= 2 && !c->nested) { /* a row only linked, or none: it keeps what it holds */
        if (argc > 2)
            sqlite3_result_value(ctx, argv[2]);
        else
            sqlite3_result_null(ctx);
        return;
    }
    switch (column) {
    case 0:
        if (parent != TDB_NULL)
            sqlite3_result_int64(ctx, parent);
        else
            sqlite3_result_null(ctx);
        break;
    case 1:
        sqlite3_result_int(ctx, c->depth);
        break;
    case 2:
        sqlite3_result_int64(ctx, c->self);
        break;
    case 3:
        if (launch != TDB_NULL) {
            ingest_pack_fix(c->ing, sqlite3_value_int64(argv[0]), launch); /* (the row may be packed already) */
            sqlite3_result_int64(ctx, launch);
        } else
            sqlite3_result_null(ctx);
        break;
    case 6:
        if (launch != TDB_NULL)
            sqlite3_result_int64(ctx, c->launch_ns);
        else
            sqlite3_result_null(ctx);
        break;
    case 4:
        sqlite3_result_int(ctx, argc < 6 ? c->nested || c->linked
                                         : (c->nested && !row_holds(argv + 2, parent, c->depth, c->self)) ||
                                               !row_launch_holds(argv[5], launch));
        break;
    case 5:
        sqlite3_result_int(ctx, argc < 7 || !row_holds(argv + 2, parent, c->nested ? c->depth : 0,
                                                       c->nested ? c->self : sqlite3_value_int64(argv[6])) ||
                                    !row_launch_holds(argv[5], launch));
        break;
    default:
        sqlite3_result_null(ctx);
    }
}

int ingest_nest_register(sqlite3 *db)
{
    return sqlite3_create_function(db, "tdb_nest", -1, SQLITE_UTF8, NULL, nest_value, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* The rewrite as sequential UPDATEs over ranges of the trace's rows (the whole trace, or each run); each row
 * asks nest_value() for its values, from cur (the update's ?4). run: whether to take the cursor's records
 * a run at a time. */
static int ingest_rewrite_ranges(struct tdb_ingest *ing, const char *sql, struct nest_cursor *cur, int run)
{
    /* a run of launch links only (GPU work before its launch) sets those two columns: the rest would ask
     * tdb_nest for the values the rows hold */
    static const char links_sql[] = "UPDATE event SET launch_id = coalesce(tdb_nest(?4, id, 3), launch_id), "
                                    "launch_ns = coalesce(tdb_nest(?4, id, 6), launch_ns) "
                                    "WHERE id >= ?1 AND id < ?2 AND tdb_nest(?4, id, 4, parent_id, depth, self_ns, launch_id)";
    sqlite3_stmt *upd = NULL, *links = NULL;
    if (tdb_stmt_prepare(ing->db, sql, -1, 0, &upd, NULL) != SQLITE_OK ||
        sqlite3_bind_pointer(upd, 4, cur, NEST_CURSOR_TYPE, NULL) != SQLITE_OK ||
        (run && (tdb_stmt_prepare(ing->db, links_sql, -1, 0, &links, NULL) != SQLITE_OK ||
                 sqlite3_bind_pointer(links, 4, cur, NEST_CURSOR_TYPE, NULL) != SQLITE_OK))) {
        tdb_stmt_finalize(upd);
        tdb_stmt_finalize(links);
        return ingest_fail(ing, "cannot prepare the nesting update");
    }
    sqlite3_bind_int64(upd, 3, ing->trace_id);
    int rc = 0;
    struct result_rec *buf = run ? malloc((RUN_RECS + 8) * sizeof *buf) : NULL;
    if (run && !buf)
        rc = ingest_fail(ing, "out of memory");
    if (run && buf) { /* the records (in ord order) a run at a time: the rows from its first ord to its last */
        const struct result_rec *r = cur->next;
        while (rc == 0 && r) {
            size_t n = 0;
            int links_only = 1;
            /* (an ord has a record or two: the slack of 8 takes them all, else the check below fails) */
            while (r && (n < RUN_RECS || r->ord == buf[n - 1].ord) && n < RUN_RECS + 8 &&
                   (n == 0 || r->ord <= buf[n - 1].ord + RUN_GAP)) {
                links_only &= r->what == RES_LINK;
                buf[n++] = *r;
                r = spill_sort_next(ing->results);
            }
            if (r) /* the next run's first (the sort's record is valid only until the next call) */
                cur->ahead = *r, r = &cur->ahead;
            cur->run = buf, cur->nrun = n, cur->irun = 1, cur->next = &buf[0];
            sqlite3_stmt *st = links_only ? links : upd;
            sqlite3_bind_int64(st, 1, cur->base + buf[0].ord);
            sqlite3_bind_int64(st, 2, cur->base + buf[n - 1].ord + 1);
            rc = ingest_step(ing, st);
            ing->changed += sqlite3_changes(ing->db);
            if (rc == 0 && sqlite3_changes(ing->db) > 0)
                if (ing->packing)
                    tdb_pack_stale_add(&ing->pack_stale, cur->base + buf[0].ord, cur->base + buf[n - 1].ord);
            sqlite3_reset(st);
            cursor_seek(cur, cur->furthest); /* where one pass leaves it (two passes: the SET's last row) */
            if (rc == 0 && cur->next) { /* a record the UPDATE did not reach: its row is not there */
                fprintf(ing->err, "tracedb: %s: internal error: event %lld to rewrite is missing\n", ing->path,
                        (long long)(cur->base + cur->next->ord));
                rc = -1;
            }
        }
        cur->run = NULL, cur->next = NULL;
    } else if (rc == 0) {
        sqlite3_bind_int64(upd, 1, ing->trace_first_event);
        sqlite3_bind_int64(upd, 2, ing->trace_end_event);
        rc = ingest_step(ing, upd);
        ing->changed = sqlite3_changes(ing->db);
        if (rc == 0 && ing->changed > 0 && ing->packing)
            tdb_pack_stale_add(&ing->pack_stale, ing->trace_first_event, ing->trace_end_event - 1);
    }
    free(buf);
    tdb_stmt_finalize(upd); /* (the cursor's binding with it) */
    tdb_stmt_finalize(links);
    return rc;
}

/* Sweeps the current trace's events (nesting.c) and pairs GPU work with launches, into the results'
 * sort: no table is read or written (a recording's indexer works on its own connection meanwhile),
 * but for an import's keys read back from its rows. */
int ingest_sweep(struct tdb_ingest *ing)
{
    ing->traces_nested++;
    if (!ing->keys)
        return 0; /* no events */
    /* every row nested as it streamed in (stream_nest.c), with its self time summed: the sweep would find
     * the same, and need not run; else it runs over every key */
    int streamed = ing->stream && !ing->read_back && stream_nest_exact(ing->stream) && ing->stream_abs <= INT64_MAX;
    if (streamed) {
        for (size_t i = 0; i < ing->nstats; i++) {
            struct stat_row *r = stat_at(ing, i);
            r->self = r->stream_self;
        }
        ing->overlaps = stream_nest_overlaps(ing->stream);
        ing->same_name += stream_nest_same_stat(ing->stream);
    } else {
        if (ing->keys_in_rows && ingest_keys_from_rows(ing) != 0)
            return -1;
        if (spill_sort_done(ing->keys) != 0)
            return ingest_sort_failed(ing, ing->keys);
        /* the stack's top in memory (1/16 of the budget: 5,632 frames), its deep part in the sums' file */
        int64_t overlaps = nesting_sweep(ing->keys, ing->held_keys, &ing->sums_file, ing->sort_budget / 16, ingest_swept, ing);
        if (overlaps < 0 && sums_failed(ing) != 0)
            return -1;
        if (overlaps < 0)
            return ingest_sort_failed(ing, spill_sort_error(ing->keys) ? ing->keys : ing->results);
        ing->overlaps = overlaps;
    }
    ing->stream_abs = 0;
    spill_sort_free(ing->keys); /* each sort's memory goes back before the next one's */
    ing->keys = NULL;
    if (ingest_pair_launches(ing) != 0)
        return ingest_sort_failed(ing, spill_sort_error(ing->corrs) ? ing->corrs : ing->results);
    spill_sort_free(ing->corrs);
    ing->corrs = NULL;
    if (spill_sort_done(ing->results) != 0)
        return ingest_sort_failed(ing, ing->results);
    ingest_phase(ing, "nesting sweep");
    return 0;
}

/* One pass over rows read back (tracedb finish) reads the sort itself, which cannot go back: a trigger
 * that fires on that UPDATE (one a user added on event: an import drops its own first) would make SQLite
 * update in two passes and give rows other rows' values. SQLite says whether one fires: the statement's
 * program runs a trigger's program (opcode Program). Then it stops before it writes (said, with the
 * name of an UPDATE trigger on event): -1, else 0. (The runs of an import or a recording go back
 * within the run instead.) */
static int ingest_one_pass_allowed(struct tdb_ingest *ing, const char *sql)
{
    char *explain = sqlite3_mprintf("EXPLAIN %s", sql);
    sqlite3_stmt *st = NULL;
    if (!explain || tdb_stmt_prepare(ing->db, explain, -1, 0, &st, NULL) != SQLITE_OK) {
        sqlite3_free(explain);
        return ingest_fail(ing, "cannot prepare");
    }
    sqlite3_free(explain);
    int rc, fires = 0;
    while (!fires && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *op = sqlite3_column_text(st, 1);
        fires = op && strcmp((const char *)op, "Program") == 0;
    }
    tdb_stmt_finalize(st);
    if (!fires)
        return rc == SQLITE_DONE ? 0 : ingest_fail(ing, "cannot read the update's program");
    if (tdb_stmt_prepare(ing->db, "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'event' "
                         "COLLATE NOCASE AND sql LIKE '%UPDATE%' ORDER BY name LIMIT 1", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    char *name = sqlite3_step(st) == SQLITE_ROW ? sqlite3_mprintf("%w", (const char *)sqlite3_column_text(st, 0)) : NULL;
    tdb_stmt_finalize(st);
    fprintf(ing->err, "tracedb: %s: cannot finish trace %lld: the trigger \"%s\" on table event would make SQLite "
                      "write the nesting in two passes, which finishing cannot follow; drop it (DROP TRIGGER \"%s\";), "
                      "finish, and create it again\n", ing->path, (long long)ing->trace_id, name ? name : "?", name ? name : "?");
    sqlite3_free(name);
    return -1;
}

/* Writes the sweep's results back in id order (by runs of nearby rows, or one pass); rows with no
 * parent, no children and no new launch keep their defaults. */
int ingest_write_back(struct tdb_ingest *ing)
{
    if (!ing->results)
        return 0; /* no events */

    /* Imported rows hold the nesting of their track as streamed in (stream_nest.c): only rows of dirty
     * tracks and late links are rewritten, a run of nearby rows at a time. A recording's rows hold what its
     * recorder found, and their keys say what (held_keys): the rows that hold other values than the
     * sweep's and the links' are rewritten, by runs as an import's.
     * Rows read back may carry nesting already: one pass over them all rewrites the rows where the
     * sweep, the one rule, says otherwise. */
    const char *sql = ing->read_back && !ing->held_keys /* held: a row with no record holds its values */
                          ? "UPDATE event SET parent_id = tdb_nest(?4, id, 0, NULL), depth = tdb_nest(?4, id, 1, 0), "
                            "self_ns = tdb_nest(?4, id, 2, dur_ns), launch_id = coalesce(tdb_nest(?4, id, 3), launch_id), "
                            "launch_ns = coalesce(tdb_nest(?4, id, 6), launch_ns) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(?4, id, 5, parent_id, depth, self_ns, launch_id, dur_ns) "
                            "AND ((SELECT count(*) FROM trace) = 1 OR thread_id IN (SELECT t.id FROM thread t "
                            "JOIN process p ON p.id = t.process_id WHERE p.trace_id = ?3))"
                          : "UPDATE event SET parent_id = tdb_nest(?4, id, 0, parent_id), depth = tdb_nest(?4, id, 1, depth), "
                            "self_ns = tdb_nest(?4, id, 2, self_ns), launch_id = coalesce(tdb_nest(?4, id, 3), launch_id), "
                            "launch_ns = coalesce(tdb_nest(?4, id, 6), launch_ns) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(?4, id, 4, parent_id, depth, self_ns, launch_id)";
    struct nest_cursor cur = {.ing = ing, .base = ing->trace_first_event, .next = spill_sort_next(ing->results), .at = -1,
                              .furthest = -1};
    int runs = !ing->read_back || ing->held_keys; /* (rows read back without a record may change too) */
    ing->changed = 0;
    int rc = runs ? 0 : ingest_one_pass_allowed(ing, sql);
    if (rc == 0)
        rc = ingest_rewrite_ranges(ing, sql, &cur, runs);
    if (ing->phases.on)
        fprintf(stderr, "tracedb: %lld rows to rewrite of %lld: %s, %lld written\n", (long long)ing->rewrites,
                (long long)(ing->trace_end_event - ing->trace_first_event), runs ? "runs of rows" : "one pass",
                (long long)ing->changed);
    if (rc == 0 && spill_sort_error(ing->results))
        rc = ingest_sort_failed(ing, ing->results);
    if (rc == 0 && cur.backwards) {
        fprintf(ing->err, "tracedb: %s: internal error: the nesting update did not go in id order\n", ing->path);
        rc = -1;
    }
    spill_sort_free(ing->results);
    ing->results = NULL;
    return rc;
}

/* The per-name sums, in the order their names came (none when their pages failed: said). */
int ingest_write_stats(struct tdb_ingest *ing)
{
    if (sums_failed(ing) != 0)
        return -1;
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO event_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                           "?13, ?14, ?15)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = 0;
    for (size_t i = 0; i < ing->nstats && rc == 0; i++) {
        const struct stat_row *r = stat_at(ing, i);
        sqlite3_bind_int64(st, 1, ing->trace_id);
        sqlite3_bind_int64(st, 2, r->kind);
        sqlite3_bind_int64(st, 3, r->name_id);
        tdb_bind_int_or_null(st, 4, r->device);
        sqlite3_bind_int64(st, 5, r->calls);
        sqlite3_bind_int64(st, 6, r->total);
        sqlite3_bind_int64(st, 7, r->self);
        sqlite3_bind_int64(st, 8, r->min);
        sqlite3_bind_int64(st, 9, r->max);
        for (int col = 10; col <= 15; col++) /* device time and memory per operator: the ops pass's (at the top) */
            sqlite3_bind_int64(st, col, 0);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    return rc == 0 ? sums_failed(ing) : rc;
}

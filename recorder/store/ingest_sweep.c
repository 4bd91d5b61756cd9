/* ingest_sweep.c: the end of a trace, first part (see ingest.c): the sweep's results (parent, depth,
 * self time, launch links) written back in one sequential UPDATE, device time and memory attributed
 * to the operators around them, and the per-name sums (event_stats). */
#include "ingest_internal.h"
#include "nesting.h"
#include "stmt_cache.h"
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- nesting and links */

/* Links GPU work to its launch (launch[ord] = launch ordinal + 1) and adds device time and memory to
 * the per-name aggregates of the operators around them: "self" for the operator that launched the
 * work (the parent of the runtime call) or holds the [memory] event, "total" for it and every
 * ancestor, as PyTorch's profiler attributes them. Runs after the sweep: key_track holds parents. */
static void ingest_attribute(struct tdb_ingest *ing, uint32_t *launch)
{
    const uint32_t *parent = ing->key_track;
    for (size_t i = 0; i < ing->nattribs; i++) {
        const struct attrib *a = &ing->attribs[i];
        uint32_t p; /* ordinal + 1 of the operator the value belongs to */
        int64_t v;
        if (a->what == AT_LINK || a->what == AT_DEVICE) {
            int64_t l = corrmap_get(&ing->launches, a->key);
            if (l < 0)
                continue;
            launch[a->ord] = ((uint32_t)l + 1) | (a->early ? LAUNCH_IN_ROW : 0);
            if (a->what == AT_LINK)
                continue;
            p = parent[l];
            v = ing->key_dur[a->ord];
        } else {
            p = parent[a->ord];
            v = a->key;
        }
        if (!p)
            continue;
        struct stat_row *direct = &ing->stats[ing->key_stat[p - 1]];
        if (a->what == AT_DEVICE)
            direct->self_device = tdb_sat_add(direct->self_device, v);
        else if (a->what == AT_MEM_CPU)
            direct->self_cpu_mem = tdb_sat_add(direct->self_cpu_mem, v);
        else
            direct->self_device_mem = tdb_sat_add(direct->self_device_mem, v);
        for (uint32_t q = p; q; q = parent[q - 1]) {
            struct stat_row *r = &ing->stats[ing->key_stat[q - 1]];
            if (a->what == AT_DEVICE)
                r->device_total = tdb_sat_add(r->device_total, v);
            else if (a->what == AT_MEM_CPU)
                r->cpu_mem = tdb_sat_add(r->cpu_mem, v);
            else
                r->device_mem = tdb_sat_add(r->device_mem, v);
        }
    }
}

/* The sweep's results, read by the tdb_nest() SQL function during the one UPDATE that stores them. */
struct nest_result {
    int64_t base;            /* id of ordinal 0 */
    const int64_t *ids;      /* id of each ordinal when they have gaps (a read-back trace), else NULL */
    size_t cursor;           /* with ids: where the last id was found (the update walks ids in order) */
    size_t n;
    const uint32_t *parent;  /* ordinal + 1, 0 = none */
    const uint16_t *depth;
    const int64_t *self;
    const int64_t *dur;
    const uint32_t *launch;  /* ordinal + 1, 0 = none; LAUNCH_IN_ROW when the row has it already */
};

/* tdb_nest(id, column): 0 parent_id, 1 depth, 2 self_ns, 3 launch_id (NULL when none), 4 whether the
 * row changes at all (most GPU rows do not: no parent, no children, launch written with the row);
 * tdb_nest(id, 5, parent_id, depth, self_ns, launch_id): whether a row read back, holding these, changes. */
static void nest_value(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct nest_result *r = *(struct nest_result **)sqlite3_user_data(ctx);
    if (!r) {
        sqlite3_result_null(ctx);
        return;
    }
    int64_t id = sqlite3_value_int64(argv[0]), i = id - r->base;
    if (r->ids && r->cursor < r->n && r->ids[r->cursor] == id) {
        i = (int64_t)r->cursor; /* the same row again */
    } else if (r->ids && r->cursor + 1 < r->n && r->ids[r->cursor + 1] == id) {
        i = (int64_t)++r->cursor; /* the next row */
    } else if (r->ids) { /* else a binary search: ids ascend */
        size_t lo = 0, hi = r->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->ids[mid] < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo < r->n && r->ids[lo] == id ? (int64_t)lo : -1;
        if (i >= 0)
            r->cursor = (size_t)i;
    }
    if (i < 0 || (size_t)i >= r->n) {
        sqlite3_result_null(ctx);
        return;
    }
    switch (sqlite3_value_int(argv[1])) {
    case 0:
        if (r->parent[i])
            sqlite3_result_int64(ctx, r->ids ? r->ids[r->parent[i] - 1] : r->base + r->parent[i] - 1);
        else
            sqlite3_result_null(ctx);
        break;
    case 1:
        sqlite3_result_int(ctx, r->depth[i]);
        break;
    case 2:
        sqlite3_result_int64(ctx, r->self[i]);
        break;
    case 3:
        if (r->launch[i] & ~LAUNCH_IN_ROW) {
            uint32_t l = (r->launch[i] & ~LAUNCH_IN_ROW) - 1;
            sqlite3_result_int64(ctx, r->ids ? r->ids[l] : r->base + l);
        } else
            sqlite3_result_null(ctx);
        break;
    case 4:
        sqlite3_result_int(ctx, r->parent[i] || r->self[i] != r->dur[i] ||
                                    (r->launch[i] && !(r->launch[i] & LAUNCH_IN_ROW)));
        break;
    default: { /* 5: whether the row's parent_id, depth, self_ns, launch_id (argv 2-5) differ from these */
        int64_t parent = r->parent[i] ? (r->ids ? r->ids[r->parent[i] - 1] : r->base + r->parent[i] - 1) : TDB_NULL;
        int64_t launch = TDB_NULL;
        if (r->launch[i] & ~LAUNCH_IN_ROW) {
            uint32_t l = (r->launch[i] & ~LAUNCH_IN_ROW) - 1;
            launch = r->ids ? r->ids[l] : r->base + l;
        }
        int differs = argc < 6 || sqlite3_value_int64(argv[3]) != r->depth[i] || sqlite3_value_int64(argv[4]) != r->self[i];
        if (!differs)
            differs = parent == TDB_NULL ? sqlite3_value_type(argv[2]) != SQLITE_NULL
                                         : sqlite3_value_type(argv[2]) == SQLITE_NULL || sqlite3_value_int64(argv[2]) != parent;
        if (!differs && launch != TDB_NULL)
            differs = sqlite3_value_type(argv[5]) == SQLITE_NULL || sqlite3_value_int64(argv[5]) != launch;
        sqlite3_result_int(ctx, differs);
    }
    }
}

/* Sweeps the current trace's events (nesting.c), links GPU work to launches, and writes both back in
 * one pass in id order; rows with no parent, no children and no launch keep their defaults. */
int ingest_nest_and_link(struct tdb_ingest *ing)
{
    size_t n = (size_t)(ing->next_event - ing->trace_first_event);
    if (n == 0)
        return 0;
    ing->key_depth = malloc(n * sizeof *ing->key_depth);
    uint32_t *launch = calloc(n, sizeof *launch); /* ordinal of the launch + 1 */
    if (!ing->key_depth || !launch) {
        free(launch);
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    /* parent aliases key_track, self aliases key_start */
    int64_t overlaps = nesting_compute(n, ing->key_track, ing->key_start, ing->key_dur, ing->key_track,
                                       ing->key_depth, ing->key_start);
    if (overlaps < 0) {
        free(launch);
        fprintf(ing->err, "tracedb: out of memory\n");
        return -1;
    }
    ing->overlaps = overlaps;
    ingest_attribute(ing, launch);
    ingest_phase(ing, "nesting sweep");
    const int64_t *self = ing->key_start;
    for (size_t i = 0; i < n; i++)
        ing->stats[ing->key_stat[i]].self = tdb_sat_add(ing->stats[ing->key_stat[i]].self, self[i]);
    /* One sequential pass over the trace's rows; each row asks nest_value() for its new values. */
    /* ids are looked up only when they have gaps (binary search); else id - first is the ordinal */
    const int64_t *ids = ing->key_id && ing->key_id[n - 1] - ing->key_id[0] + 1 != (int64_t)n ? ing->key_id : NULL;
    struct nest_result res = {ing->trace_first_event, ids, 0, n, ing->key_track, ing->key_depth, ing->key_start,
                              ing->key_dur, launch};
    int rc = 0;
    sqlite3_stmt *upd;
    /* Imported rows were written with no nesting: those the sweep gives any are rewritten. Rows read
     * back (a recording) may carry nesting already (the recorder's own stacks): only rows where the
     * sweep, the one rule, says otherwise are rewritten. */
    const char *sql = ing->key_id
                          ? "UPDATE event SET parent_id = tdb_nest(id, 0), depth = tdb_nest(id, 1), "
                            "self_ns = tdb_nest(id, 2), launch_id = coalesce(tdb_nest(id, 3), launch_id) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(id, 5, parent_id, depth, self_ns, launch_id)"
                          : "UPDATE event SET parent_id = tdb_nest(id, 0), depth = tdb_nest(id, 1), "
                            "self_ns = tdb_nest(id, 2), launch_id = coalesce(tdb_nest(id, 3), launch_id) "
                            "WHERE id >= ?1 AND id < ?2 AND tdb_nest(id, 4)";
    /* registered once per connection (registering again would expire every prepared statement); the
     * function reads the sweep's results through a slot that points at them only meanwhile */
    static struct nest_result *memory_slot; /* the in-memory database's, which outlives each ingest */
    static int memory_registered;
    struct nest_result **slot = ing->borrowed ? &memory_slot : &ing->nest_slot;
    int registered = ing->borrowed ? memory_registered : ing->nest_registered;
    if ((!registered &&
         (sqlite3_create_function(ing->db, "tdb_nest", 2, SQLITE_UTF8, slot, nest_value, NULL, NULL) != SQLITE_OK ||
          sqlite3_create_function(ing->db, "tdb_nest", 6, SQLITE_UTF8, slot, nest_value, NULL, NULL) != SQLITE_OK)) ||
        tdb_stmt_prepare(ing->db, sql, -1, 0, &upd, NULL) != SQLITE_OK) {
        free(launch);
        return ingest_fail(ing, "cannot prepare the nesting update");
    }
    if (ing->borrowed)
        memory_registered = 1;
    else
        ing->nest_registered = 1;
    *slot = &res;
    sqlite3_bind_int64(upd, 1, ing->trace_first_event);
    sqlite3_bind_int64(upd, 2, ing->key_id ? ing->key_id[n - 1] + 1 : ing->trace_first_event + (int64_t)n);
    rc = ingest_step(ing, upd);
    tdb_stmt_finalize(upd);
    *slot = NULL;
    free(launch);
    return rc;
}

int ingest_write_stats(struct tdb_ingest *ing)
{
    sqlite3_stmt *st;
    if (tdb_stmt_prepare(ing->db, "INSERT INTO event_stats VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
                           "?13, ?14, ?15)", -1, 0, &st, NULL) != SQLITE_OK)
        return ingest_fail(ing, "cannot prepare");
    int rc = 0;
    for (size_t i = 0; i < ing->nstats && rc == 0; i++) {
        const struct stat_row *r = &ing->stats[i];
        sqlite3_bind_int64(st, 1, ing->trace_id);
        sqlite3_bind_int64(st, 2, r->kind);
        sqlite3_bind_int64(st, 3, r->name_id);
        tdb_bind_int_or_null(st, 4, r->device);
        sqlite3_bind_int64(st, 5, r->calls);
        sqlite3_bind_int64(st, 6, r->total);
        sqlite3_bind_int64(st, 7, r->self);
        sqlite3_bind_int64(st, 8, r->min);
        sqlite3_bind_int64(st, 9, r->max);
        sqlite3_bind_int64(st, 10, r->self_device);
        sqlite3_bind_int64(st, 11, r->device_total);
        sqlite3_bind_int64(st, 12, r->self_cpu_mem);
        sqlite3_bind_int64(st, 13, r->cpu_mem);
        sqlite3_bind_int64(st, 14, r->self_device_mem);
        sqlite3_bind_int64(st, 15, r->device_mem);
        rc = ingest_step(ing, st);
    }
    tdb_stmt_finalize(st);
    return rc;
}


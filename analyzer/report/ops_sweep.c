/* ops_sweep.c: `tracedb ops`'s table (see ops_sweep.h), PyTorch's key_averages() rules in one pass over
 * the events in scope (queries/ops_event_rows.sql), linear in the events however deep they nest:
 *   - each CPU-side event goes to its group: rank (by_rank: its trace's; by_step: the latest-starting
 *     step holding its start, step_index.h), name id, input shapes and stack (its
 *     parent's, op_stacks.c);
 *   - each piece of GPU work then adds its duration to the group of the operator around its launch
 *     ("self device") and to the groups of it and every event above it ("device total"), by parent_id
 *     through any event, in scope or not, each once (chain_sums.c: linear in the events, however deep);
 *   - each CPU-side event holds the bytes of its trace's [memory] events in its [start, end] (ops_read.c),
 *     its self that less its CPU-side children's (ops_merge.c), as PyTorch counts memory;
 *   - an event that is its parent's only CPU-side child and has its name is no call of its own: PyTorch
 *     merges it into the parent (ops_merge.c);
 *   - groups whose names read the same merge (every ProfilerStep#N is ProfilerStep*).
 * The events are read in two halves of their ids at once, the upper on a second connection
 * (scope_reopen) and thread, each into groups of its own that then join: reading rows is SQLite's
 * work and most of the pass. Over a shard directory the groups are the shards' own passes' (ops_shards.c).
 * Sums are int64, and an overflow is an error, as SQL's sum() makes it; FLOPs sum as integers while they
 * fit, then as a double (where sum() would stop with an error).
 * The parts: ops_keys.c (keys and sums), ops_parents.c (parents, attribution), ops_read.c (the events),
 * ops_write.c (the groups, ordered), ops_merge.c (PyTorch's same-name merge), ops_shards.c (over a shard
 * directory); what they share:
 * ops_sweep_internal.h. */
#include "ops_sweep_internal.h"
#include "report.h"
#include "scope.h"
#include <stdio.h>
#include <stdlib.h>

int ops_sweep(sqlite3 *db, const struct ops_sweep_options *o, struct report_io *io)
{
    struct ops_pass p = {.o = o, .db = db, .io = io};
    strmap_init(&p.slot_ix);
    strmap_init(&p.rank_ix);
    strmap_init(&p.trace_of);
    sweep_index_init(&p.part[0].groups, sizeof(struct group));
    sweep_index_init(&p.part[1].groups, sizeof(struct group));
    /* one transaction for the pass: its thousands of small statements (a parent, a name, a row of
     * ops_agg) would each take and drop the file's locks and check for a hot journal (on 2 M events,
     * `--by-step` made 121,296 fcntl and 91,002 stat calls) */
    int said = 0; /* the error said already */
    int own = sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    int rc = sqlite3_prepare_v2(db, "SELECT parent_id FROM main.event WHERE id = ?1", -1, &p.parent_of, NULL) == SQLITE_OK
                 ? 0 : -1;
    if (rc == 0 && o->by_stack && !(p.stacks = op_stacks_build(db, o->stack_depth)))
        rc = -1;
    if (o->from_shards) {
        if (rc == 0)
            rc = ops_shard_groups(&p);
    } else {
        if (rc == 0)
            rc = ops_ids_range(&p);
        if (rc == 0)
            rc = ops_load_keys(&p, o);
        report_phase("ops: keys");
        if (rc == 0 && ops_read_events(&p) != 0)
            rc = -1, said = 1; /* (each half's error, said on the connection that failed) */
        report_phase("ops: events");
        if (rc == 0)
            rc = ops_merge_same_name(&p);
        if (rc == 0)
            rc = ops_attribute_all(&p);
        report_phase("ops: attribute");
    }
    if (rc == 0 && !p.overflow)
        rc = ops_write_groups(&p);
    report_phase("ops: groups");
    if (rc != 0 && !said)
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
    else if (rc == 0 && p.overflow)
        render_overflow_said(io->err);
    sqlite3_finalize(p.parent_of);
    p.parent_of = NULL;
    if (own && sqlite3_exec(db, rc == 0 && !p.overflow ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && rc == 0) {
        fprintf(io->err, "%s: %s\n", io->prog, sqlite3_errmsg(db));
        rc = -1;
    }
    ops_part_free(&p.part[0]);
    ops_part_free(&p.part[1]);
    for (size_t i = 0; i < p.nranks; i++)
        sqlite3_value_free(p.ranks[i]);
    step_index_free(&p.steps);
    for (size_t i = 0; p.blocks && i < (size_t)p.span / BLOCK + 1; i++)
        free(p.blocks[i]);
    free(p.blocks);
    free(p.slots);
    free(p.slot_ids);
    free(p.parents);
    free(p.mem);
    free(p.stale);
    free(p.less);
    strmap_free(&p.trace_of);
    free(p.ranks);
    free(p.rank_key);
    strmap_free(&p.slot_ix);
    strmap_free(&p.rank_ix);
    op_stacks_free(p.stacks);
    sqlite3_finalize(p.parent_of);
    return rc != 0 || p.overflow ? 1 : 0;
}

/* ops_shard_pass (ops_sweep.h): the pass on one shard, its rows into the reduce database's shard_ops
 * (summed by ops_shards.c). */
int ops_shard_pass(sqlite3 *reduce, const char *shard_path, struct report_io *io)
{
    struct scope sc;
    scope_init(&sc, "name");
    sc.quiet = 1;
    sqlite3 *src = scope_open(shard_path, &sc, io);
    if (!src)
        return -1;
    const struct ops_sweep_options so = {.by_rank = 1, .device_rows = 1, .sort = "name", .windowed = sc.filtered,
                                        .as_stored = !sc.filtered && !sc.hta_rounding};
    sqlite3_stmt *rows = NULL;
    sqlite3 *failed = NULL; /* the connection whose error to say (ops_sweep says its own) */
    int rc = -1;
    if (ops_sweep(src, &so, io) != 0)
        goto done;
    failed = src;
    if (sqlite3_prepare_v2(src, "SELECT " SHARD_OPS_COLUMNS " FROM temp.ops_agg ORDER BY seq", -1, &rows, NULL) != SQLITE_OK)
        goto done;
    failed = reduce;
    if (sqlite3_exec(reduce, "CREATE TABLE IF NOT EXISTS main.shard_ops (" SHARD_OPS_COLUMNS ")", NULL, NULL, NULL) != SQLITE_OK)
        goto done;
    rc = report_copy_rows(rows, reduce,
                          "INSERT INTO main.shard_ops (" SHARD_OPS_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                          NULL, NULL, SHARD_OPS_N, &failed);
done:
    if (failed)
        fprintf(io->err, "%s: the operators of shard %s: %s\n", io->prog, shard_path, sqlite3_errmsg(failed));
    sqlite3_finalize(rows);
    sqlite3_close(src);
    return rc;
}

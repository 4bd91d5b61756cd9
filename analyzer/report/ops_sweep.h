/* ops_sweep.h: `tracedb ops`'s per-operator sums over a window (or per shape, Python stack, step or rank,
 * with FLOPs) in one pass over the events, where SQL (queries/ops_events.sql, now gone) joined and sorted
 * every event. */
#ifndef TDB_OPS_SWEEP_H
#define TDB_OPS_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

struct ops_sweep_options {
    int by_rank, by_step, by_shape, with_flops;
    int windowed;        /* the scope is a window (--from, --to, --range): not every event is read */
    int by_stack;        /* per Python stack (op_stacks.h): the innermost stack_depth frames above */
    int64_t stack_depth;
    const char *sort; /* the --sort column (queries/parts/ops_sort_key.sql's names): the rows' order */
    int device_rows;  /* the GPU work's own rows too (kernels, memcpy, memset per name: PyTorch's device events,
                       * DeviceType.CUDA), as key_averages() lists them; 0: the CPU-side rows alone */
};

/* Fills temp table ops_agg (rank, name, input_shapes, stack, calls and the sums, with each row's
 * percentages' base and place in its step, in the order printed) from scope_event, scope_rank and
 * scope_steps (scope.c), for queries/ops_agg.sql to print; and temp.ops_totals (the footer's: the self
 * CPU time of the CPU-side rows, the device time of the GPU work, listed or not). 0, or 1 on error
 * (printed). */
int ops_sweep(sqlite3 *db, const struct ops_sweep_options *o, struct report_io *io);

/* Whether the import's per-name sums (event_stats, queries/ops.sql) are key_averages()'s: the import
 * counted no event inside one of its own name (meta's ops.same_name_nesting is 0), so PyTorch's merge of
 * an only same-name child (ops_merge.c) changes nothing, and there are no [memory] events (PyTorch counts
 * each in every event whose time holds it, of any thread: ops_read.c). Else (some, or not known) the rows
 * come from ops_sweep. */
int ops_sums_serve(sqlite3 *db);
/* What ops and summary say over a shard directory (no operators in it) where the sums do not serve. */
#define OPS_SUMS_ON_SHARDS                                                                                     \
    "operators from the import's per-name sums: PyTorch's merge of an operator's only child of its own name, " \
    "and its memory per operator, need the events (`tracedb merge` the shards into one database)"
/* Whether the database holds [memory] events (a per-name sum of them). */
int ops_has_memory(sqlite3 *db);
/* What ops says over a shard directory with [memory] events: its memory columns are left empty (NULL),
 * and a sort by one of them refused; queries/ops.sql's :no_memory. */
#define OPS_MEMORY_ON_SHARDS                                                                                   \
    "memory columns empty: PyTorch counts a [memory] event's bytes in every operator whose time holds it, on " \
    "any thread, which needs every event of the trace, and a shard directory holds per-name sums only " \
    "(`tracedb merge` the shards into one database for them)"


#endif

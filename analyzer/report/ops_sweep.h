/* ops_sweep.h: `tracedb ops`'s per-operator table, PyTorch's key_averages() rules in one pass over the
 * events (whole trace, a window, or per shape, Python stack, step or rank, with FLOPs): the one definition
 * that ops, summary, diff and the HTML report read, and over a shard directory each shard's own pass. */
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
    int from_shards;  /* db is a shard directory's reduce database (shards.h): the groups are the shards' own
                       * passes' (ops_shard_pass, in its table shard_ops), summed, not read from events */
    int no_memory;    /* the memory columns are not wanted (diff): the [memory] events are not read, they hold 0 */
    int as_stored;    /* scope_event is every row of event as stored (no window, no rounding): the import's
                       * pack may stand for them */
};

/* Fills temp table ops_agg (rank, name, input_shapes, stack, calls and the sums, with each row's
 * percentages' base and place in its step, and whether it is a device row, in the order printed) from
 * scope_event, scope_rank and scope_steps (scope.c), for queries/ops_agg.sql to print; and temp.ops_totals
 * (the footer's: the self CPU time of the CPU-side rows, the device time of the GPU work, listed or not).
 * 0, or 1 on error (printed). */
int ops_sweep(sqlite3 *db, const struct ops_sweep_options *o, struct report_io *io);

/* A shard directory's per-shard step (shards.h's shards_each): the pass on the shard at shard_path, by rank
 * with the device rows, its rows added to reduce's table shard_ops, which shards_add carries from one
 * reduce database into another (tracedb-mpi). Then ops_sweep with from_shards sums them as it sums the
 * events' groups: the rows equal the pass over one database of every shard's trace (PyTorch's merge and
 * memory per operator are within a trace). 0, or -1 (said, naming the shard). */
int ops_shard_pass(sqlite3 *reduce, const char *shard_path, struct report_io *io);

#endif

/* kernel_sweep.h: `tracedb kernels`'s per-name sums in one pass over the GPU work, unsorted; `tracedb
 * api`'s over the runtime and driver calls. */
#ifndef TDB_KERNEL_SWEEP_H
#define TDB_KERNEL_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table kernel_stats (what queries/kernels_summed.sql prints) from queries/kernel_rows.sql:
 * by_rank per rank, by_step per step (temp.scope_steps: the one its launch, else itself, starts in),
 * by_launch per launch configuration too, kinds[3] whether kernels, memcpy and memset count. 0; 1 on
 * error (printed), or when a rank, name, kind, duration or launch value is neither NULL nor an integer
 * (a database tracedb did not write: refused, naming the table and column). */
int kernel_sweep(sqlite3 *db, int by_rank, int by_launch, int by_step, const int64_t kinds[3], struct report_io *io);

struct scope;
/* The same table, kernel_stats, from queries/api_rows.sql: the runtime and driver calls per rank (with
 * --by-rank), name and kind, for queries/api_summed.sql. As kernel_sweep returns. */
int api_sweep(sqlite3 *db, const struct scope *sc, struct report_io *io);

#endif

/* idle_sweep.h: `tracedb idle`'s per-stream sums in one pass over the GPU work in start order. */
#ifndef TDB_IDLE_SWEEP_H
#define TDB_IDLE_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table idle_stats (what queries/idle.sql prints) from queries/idle_work.sql's rows:
 * kernel_wait_ns is HTA's 30 us cutoff, negative_gaps sums overlaps as negative idle time (HTA's).
 * Run again on the same connection, it starts over. 0, or 1 (the error printed; a key that is not an
 * integer refused, naming its table and column). */
int idle_sweep(sqlite3 *db, int64_t kernel_wait_ns, int negative_gaps, struct report_io *io);

#endif

/* launch_sweep.h: `tracedb launches`'s per-name sums in one pass over the launches, unsorted. */
#ifndef TDB_LAUNCH_SWEEP_H
#define TDB_LAUNCH_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table launch_stats (what queries/launches.sql prints) from queries/launch_rows.sql, with
 * HTA's cutoffs; with by_device also temp table launch_worst (rank, device, name_id, delay_max_ns): each
 * name's longest delay per rank and device its GPU work ran on (queries/summary_gpu_efficiency.sql reads
 * it). Run again on the same connection, it starts over. 0; 1 on error (printed), or when a rank or name
 * key (with by_device, a device) is neither NULL nor an integer (a database tracedb did not write:
 * refused, naming the table and column). */
int launch_sweep(sqlite3 *db, int64_t short_below_ns, int64_t delay_above_ns, int by_device, struct report_io *io);

#endif

/* memory_sweep.h: `tracedb memory`'s high-water marks, leaks and counts in one pass over each device's
 * [memory] events in time order. */
#ifndef TDB_MEMORY_SWEEP_H
#define TDB_MEMORY_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>

/* Fills temp table memory_agg (trace_id, device_type, device, peak_allocated, peak_ns, peak_parent,
 * peak_reserved, allocs, frees, allocated_bytes, freed_bytes, leaked) from queries/memory_rows.sql, the
 * table queries/memory.sql prints. 0, or 1 (the error printed). */
int memory_sweep(sqlite3 *db, struct report_io *io);

#endif

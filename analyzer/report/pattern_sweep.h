/* pattern_sweep.h: `tracedb kernels --patterns NAME`'s sequences in one pass over the window's rows. */
#ifndef TDB_PATTERN_SWEEP_H
#define TDB_PATTERN_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table pattern_stats (rank, count, kernels, gpu_ns, cpu_ns, pattern: what
 * queries/kernels_patterns_summed.sql prints) with HTA's frequent kernel sequences under the host events
 * whose name holds `name`, of at least min_kernels GPU operations, as queries/kernels_patterns.sql computes
 * them. 0; 2 when a row holds a value that is not an integer where tracedb writes one (a foreign
 * database: the SQL computes the same its own way); 1 on error (printed). */
int pattern_sweep(sqlite3 *db, const char *name, int64_t min_kernels, struct report_io *io);

#endif

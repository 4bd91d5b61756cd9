/* pattern_sweep.h: `tracedb kernels --patterns NAME`'s sequences in one pass over the window's rows. */
#ifndef TDB_PATTERN_SWEEP_H
#define TDB_PATTERN_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table pattern_stats (rank, count, kernels, gpu_ns, cpu_ns, pattern: what
 * queries/kernels_patterns_summed.sql prints) with HTA's frequent kernel sequences under the host events
 * whose name holds `name`, of at least min_kernels GPU operations (the rules: kernels_patterns_summed.sql's
 * header). 0; 1 on error (printed), or when a row holds a value tracedb never writes (refused, naming
 * the table and column). */
int pattern_sweep(sqlite3 *db, const char *name, int64_t min_kernels, struct report_io *io);

#endif

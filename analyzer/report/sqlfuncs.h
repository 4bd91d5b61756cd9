/* sqlfuncs.h: median, percentile and stddev aggregates for SQL (see sqlfuncs.c). */
#ifndef TDB_SQLFUNCS_H
#define TDB_SQLFUNCS_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

int tdb_register_functions(sqlite3 *db);

/* percentile(x, p) of sorted integers v[0..n), n > 0: the same linear interpolation, for the C passes
 * over report rows (queue_sweep.c, launch_sweep.c). */
double tdb_percentile_i64(const int64_t *v, size_t n, double p);
void tdb_sort_i64(int64_t *v, size_t n); /* ascending, for it */

/* 1 when name is a call that launches GPU work (HTA's launch mask: cudaLaunchKernel, cudaMemcpyAsync,
 * hipLaunchKernel, ...), else 0: the one list, SQL's tdb_launch_call(name) too. */
int tdb_launch_call(const char *name);
/* tdb_flops(name, args_json): see flops.c. */
int tdb_register_flops(sqlite3 *db);

#endif

/* sqlfuncs.h: median, percentile and stddev aggregates for SQL (see sqlfuncs.c). */
#ifndef TDB_SQLFUNCS_H
#define TDB_SQLFUNCS_H
#include <sqlite3.h>
#include <stddef.h>

int tdb_register_functions(sqlite3 *db);
/* tdb_flops(name, args_json): see flops.c. */
int tdb_register_flops(sqlite3 *db);
/* Linear interpolation between closest ranks on sorted v[0..n), p in [0, 100]; n > 0. */
double tdb_percentile_sorted(const double *v, size_t n, double p);

#endif

/* sqlfuncs.h: median, percentile and stddev aggregates for SQL (see sqlfuncs.c). */
#ifndef TDB_SQLFUNCS_H
#define TDB_SQLFUNCS_H
#include <sqlite3.h>
#include <stddef.h>

int tdb_register_functions(sqlite3 *db);

/* HTA's kernel type of a GPU row's name: "communication", "memory", "computation" or "other". */
const char *tdb_kernel_type(const char *name);
/* tdb_flops(name, args_json): see flops.c. */
int tdb_register_flops(sqlite3 *db);

#endif

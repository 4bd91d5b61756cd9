/* type_sweep.h: the time HTA's kernel types cover per rank (and device), in one pass over the GPU rows. */
#ifndef TDB_TYPE_SWEEP_H
#define TDB_TYPE_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>

/* Fills temp table type_stats (rank, device, a, b, c, ab, ac, bc, abc, other, n_a, n_b, n_c, n_other:
 * the time covered by computation (a), communication (b), memory (c), each union of them, and other
 * work; the rows of each type), what queries/overlap.sql and kernels_by_type.sql print, per rank and,
 * when by_device, per device (else device is NULL). The window is the scope's (scope_gpu). Run again
 * on the same connection, it starts over. 0, or 1 (the error printed; a rank or device that is not an
 * integer refused, naming its table and column). */
int type_sweep(sqlite3 *db, int by_device, struct report_io *io);

#endif

/* device_sweep.h: `tracedb device`'s sums in one pass: each device's GPU work merged once, each window
 * (the whole trace, each step) measured against the merged intervals. */
#ifndef TDB_DEVICE_SWEEP_H
#define TDB_DEVICE_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>

/* Fills temp table device_agg (trace_id, step, device, ws, span_ns, busy_ns, run_ns) from the scope's GPU
 * work (queries/device_rows.sql): a whole-window row per device (step NULL: the scope's first GPU start
 * to its last end) and a row per device and range named steps (a glob; device_steps.sql). 0, or 1 (the
 * error printed). */
int device_sweep(sqlite3 *db, const char *steps, struct report_io *io);

#endif

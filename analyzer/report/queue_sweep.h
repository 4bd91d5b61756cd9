/* queue_sweep.h: `tracedb queue`'s per-stream statistics in one pass over the queue's steps. */
#ifndef TDB_QUEUE_SWEEP_H
#define TDB_QUEUE_SWEEP_H
#include "report_io.h"
#include <sqlite3.h>
#include <stdint.h>

/* Fills temp table queue_stats (what queries/queue.sql prints) from the launches of
 * queries/queue_launches.sql on a database opened by scope_open. 0, or 1 (the error printed; a key
 * that is not an integer refused, naming its table and column). */
int queue_sweep(sqlite3 *db, int64_t blocked_at, struct report_io *io);

#endif

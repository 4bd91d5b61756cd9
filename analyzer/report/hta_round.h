/* hta_round.h: HTA's own rounding, for --hta-rounding: times as HTA's parser rounds a trace with
 * ns-resolution (float) timestamps, and shares as HTA's tables round them (see hta_round.c). */
#ifndef TDB_HTA_ROUND_H
#define TDB_HTA_ROUND_H
#include <sqlite3.h>
#include <stdint.h>

/* An event [ts, ts + dur) in ns as HTA's parser makes it: the end is ts + dur in doubles of microseconds,
 * then the start rounds up and the end down to whole microseconds (*start, *end in ns). */
void tdb_hta_round(int64_t ts, int64_t dur, int64_t *start, int64_t *end);
/* The start alone: ts rounded up to a whole microsecond (ns). */
int64_t tdb_hta_start(int64_t ts);
/* numpy's round(x, digits) (pandas' Series.round, Python's round() of a Series): rint(x * 10^digits) / 10^digits. */
double tdb_np_round(double x, int digits);
/* SQL functions hta_start(ts), hta_end(ts, dur) (ns; NULL in, NULL out) and hta_share(part, whole, digits):
 * numpy's round of 100 * (part / whole), as HTA computes a percentage (NULL when whole is 0 or NULL). */
int tdb_register_hta_round(sqlite3 *db);

#endif

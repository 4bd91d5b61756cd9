/* device_time.h: per-device busy and computation time of a trace, computed while importing. */
#ifndef TDB_DEVICE_TIME_H
#define TDB_DEVICE_TIME_H
#include "ingest.h"
#include <sqlite3.h>

enum device_class { DC_COMPUTATION, DC_COMMUNICATION, DC_MEMORY };

struct device_time {
    struct device_interval *v; /* GPU work of the current trace: which event, on which device */
    size_t n, cap;
};

/* HTA's class of GPU work by kind and name: communication ^nccl|ncclKernel|^hccl; memory memcpy and
 * memset events, ^(hip)?Memcpy|Memset|^dma; everything else computation. */
enum device_class device_time_class(int kind, struct tdb_str name);
/* Remembers GPU event ord (an ordinal into the caller's start/dur arrays). -1 when out of memory. */
int device_time_add(struct device_time *d, uint32_t ord, int64_t device, enum device_class c);
/* Sorts, merges overlaps per device and writes one device_stats row per device; then empties d.
 * start[ord] and dur[ord] give each event's interval. */
int device_time_write(struct device_time *d, const int64_t *start, const int64_t *dur, sqlite3 *db, int64_t trace_id);
void device_time_free(struct device_time *d);

#endif

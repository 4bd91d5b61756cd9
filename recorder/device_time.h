/* device_time.h: per-device busy and computation time of a trace, computed while importing. */
#ifndef TDB_DEVICE_TIME_H
#define TDB_DEVICE_TIME_H
#include "ingest.h"
#include <sqlite3.h>

enum device_class { DC_COMPUTATION, DC_COMMUNICATION, DC_MEMORY };

struct device_time {
    struct device_interval *v; /* GPU work of the current trace */
    size_t n, cap;
};

/* HTA's class of GPU work by kind and name: communication ^nccl|ncclKernel|^hccl; memory memcpy and
 * memset events, ^(hip)?Memcpy|Memset|^dma; everything else computation. */
enum device_class device_time_class(int kind, struct tdb_str name);
int device_time_add(struct device_time *d, int64_t device, int64_t start, int64_t end, enum device_class c);
/* Sorts, merges overlaps per device and writes one device_stats row per device; then empties d. */
int device_time_write(struct device_time *d, sqlite3 *db, int64_t trace_id);
void device_time_free(struct device_time *d);

#endif

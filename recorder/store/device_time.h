/* device_time.h: per-device busy and computation time of a trace, computed while importing. */
#ifndef TDB_DEVICE_TIME_H
#define TDB_DEVICE_TIME_H
#include "ingest.h"
#include <sqlite3.h>

enum device_class { DC_COMPUTATION, DC_COMMUNICATION, DC_MEMORY, DC_OTHER }; /* < 4: a class fits in 2 bits */

struct spill_sort;
struct device_time {
    struct spill_sort *v; /* GPU work of the current trace: its interval and device (24 bytes each) */
    char err[320];        /* what failed, once v is gone */
};

/* The class of GPU work by kind and name: memory for memcpy and memset events and a device's executions
 * (Furiosa's NPU Execution spans: busy, their operators computing); any other by its name's kernel type
 * (util/kernel_type.c, SQL's kernel_type(): HTA's rule, the one overlap, kernels --by-type and the
 * critical path use): computation, communication, memory, or other (HTA's exclusions: *Sync, Stream Wait
 * Event, hip*, names holding Memcpy/Memset/dma past their start, ...), which is busy but not computation,
 * as in HTA's temporal breakdown, whose compute time is its computation kernels alone. Only computation
 * is run time. */
enum device_class device_time_class(int kind, struct tdb_str name);
/* Remembers GPU event ord's interval, in at most budget bytes of memory (then sorted runs in the
 * directory dir). -1 on error (device_time_error says what). */
int device_time_add(struct device_time *d, uint32_t ord, int64_t start, int64_t dur, int64_t device,
                    enum device_class c, size_t budget, const char *dir);
/* Sorts, merges overlaps per device and writes one device_stats row per device; then empties d. */
int device_time_write(struct device_time *d, sqlite3 *db, int64_t trace_id);
const char *device_time_error(const struct device_time *d); /* the external sort's failure, or NULL */
void device_time_free(struct device_time *d);

#endif

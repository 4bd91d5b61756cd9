/* recording.h: the recorder's internals shared with NVTX capture (see recording.c). The public API
 * is in include/tracedb.h. */
#ifndef TDB_RECORDING_H
#define TDB_RECORDING_H
#include "tracedb.h"

/* A range with a category (an NVTX domain, whose handle stays valid until the process ends), and the
 * end of the innermost range of that domain on this thread (NVTX keeps a range stack per domain). */
void tdb_range_push_cat(const char *name, const char *cat);
void tdb_range_pop_cat(const char *cat);

/* Appends complete events (stage_event records, stage_format.h: CUPTI's) to the recording's staging file. */
int tdb_recording_stage_events(tdb_recording *rec, const void *events, size_t bytes);

#endif

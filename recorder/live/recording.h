/* recording.h: the recorder's internals shared with NVTX capture (see recording.c). The public API
 * is in include/tracedb.h. */
#ifndef TDB_RECORDING_H
#define TDB_RECORDING_H
#include "tracedb.h"
#include <stdio.h>

/* A range with a category (an NVTX domain, whose handle stays valid until the process ends), and the
 * end of the innermost range of that domain on this thread (NVTX keeps a range stack per domain). */
void tdb_range_push_cat(const char *name, const char *cat);
void tdb_range_pop_cat(const char *cat);

/* With a schedule, a step also ends where a range (NVTX, or tdb_range_push/start) whose name matches this glob
 * ends, unless the program calls tdb_step() (recording_steps.c). TRACEDB_STEP, tracedb record --step. */
#define TDB_STEP_GLOB_DEFAULT "ProfilerStep*"

/* tdb_open, with the glob (an SQLite GLOB) of the step ranges: NULL or "" for TDB_STEP_GLOB_DEFAULT. */
tdb_recording *tdb_open_steps(const char *path, const struct tdb_options *opt, const char *step_glob);

/* The options TRACEDB_LEVEL, TRACEDB_KINDS and TRACEDB_SCHEDULE give (each NULL: its default), into *o
 * (the strings are not copied): 0, or -1 with the reason on err (unless NULL) when one names no kind
 * recording keeps or the schedule is not five whole numbers of steps (tracedb record says so before the
 * program runs). */
int tdb_recording_options(const char *level, const char *kinds, const char *schedule, struct tdb_options *o, FILE *err);
/* Whether a recording with these options keeps any host event (NVTX, the C API): not at --level 1, nor with
 * --kinds naming device kinds only. */
int tdb_recording_keeps_host(const struct tdb_options *o);

/* Appends complete events (stage_event records, stage_format.h: CUPTI's) to the recording's staging file. */
int tdb_recording_stage_events(tdb_recording *rec, const void *events, size_t bytes);

#endif

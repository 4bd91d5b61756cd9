/* stage_convert.h: a recording's staging file into its database (see stage_convert.c). */
#ifndef TDB_STAGE_CONVERT_H
#define TDB_STAGE_CONVERT_H
#include "ingest.h"
#include "stage_format.h"
#include <stdio.h>

struct stage_conv;

/* A converter writing into ing (a live-mode ingest with a trace begun) the events of the process pid. */
struct stage_conv *stage_conv_new(struct tdb_ingest *ing, int64_t pid);
void stage_conv_free(struct stage_conv *c);

/* Converts one chunk (its head and its payload, whose records' stamps it rewrites in place as
 * nanoseconds). -1 on a database error or damaged payload. */
int stage_conv_chunk(struct stage_conv *c, const struct stage_chunk *h, unsigned char *payload);

/* Converts the whole chunks of the staging file fd from byte `from` up to byte `to` (to < 0: its end),
 * stopping once `budget` bytes are done (budget < 0: no limit; one chunk at least); returns the offset
 * after the last chunk converted (a torn chunk at the end is left), -1 on error (said on err). It stops
 * after a STAGE_CLOSE chunk. */
int64_t stage_conv_file(struct stage_conv *c, int fd, int64_t from, int64_t to, int64_t budget, FILE *err,
                        const char *path);

/* The end of the recording: ranges still open end at end_ns (a close), or when end_ns is TDB_NULL at
 * their thread's last timestamp (a crash: counted as never ended). 0 on success. */
int stage_conv_end(struct stage_conv *c, int64_t end_ns);

/* What the file said: whether it closed, its drop count, the last timestamp seen; events written. */
int stage_conv_closed(const struct stage_conv *c, int64_t *dropped);
int64_t stage_conv_events(const struct stage_conv *c);
int64_t stage_conv_never_ended(const struct stage_conv *c);

/* Checks a staging file's header; its pid. -1 (said on err) when it is not one. */
int stage_read_header(int fd, const char *path, int64_t *pid, FILE *err);

/* CUPTI's events: ev (its thread_id ignored) on the track (pid, tid), appended to out as a stage_event. */
struct buf;
int stage_event_encode(struct buf *out, int64_t pid, int64_t tid, const struct tdb_event *ev);

#endif

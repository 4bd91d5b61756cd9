/* frame_log.h: each track's events (start, end, row id, parent, depth), run by run, kept on disk in
 * bounded memory, so that when a track's events go back in time (PyTorch writes a thread's operators,
 * then its [memory] instants, then its launches, each run in time order) stream_nest.c can nest each
 * later run's events among the earlier runs' as they come, and check that the earlier rows' nesting
 * still holds, instead of leaving the track to the end-of-trace rewrite.
 *
 * Each track appends to a 16 KiB block in memory; a full block goes to one temporary file shared by all
 * tracks (unlinked at once: gone when closed). A reader merges one track's runs in the sweep's order.
 * At most FRAME_LOG_TRACKS tracks are logged (each holds a block: 4 MiB at most), each in at most
 * FRAME_LOG_RUNS runs; others are simply not (the end of the trace rewrites their rows as before).
 * stream_nest.c gives the places to tracks in the order they come, trace by trace. */
#ifndef TDB_FRAME_LOG_H
#define TDB_FRAME_LOG_H
#include <stddef.h>
#include <stdint.h>

#define FRAME_LOG_TRACKS 256
#define FRAME_LOG_RUNS 9

struct frame_rec {
    int64_t start, end, id, parent; /* parent: TDB_NULL for none; an instant ends where it starts */
    int32_t depth;
    uint32_t stat;                  /* the owner's aggregate (stream_nest.c: for sums and the same-name count) */
};

struct frame_log;
struct frame_log_reader;

/* dir: where the temporary file goes (made when the first block is full). NULL when out of memory. */
struct frame_log *frame_log_new(const char *dir);
/* Appends r to the track's current run, which must come in the sweep's order (start ascending, the
 * longer first). 0, or -1 when the track cannot be logged (too many tracks, out of memory, the file
 * could not be written): its log is then incomplete for good (frame_log_complete says so). */
int frame_log_append(struct frame_log *g, uint32_t track, const struct frame_rec *r);
/* Takes the last n records appended to track's log back (into out, in the order they went in), when
 * they are all still in memory in its current run. 0, or -1 (nothing taken). */
int frame_log_take_back(struct frame_log *g, uint32_t track, size_t n, struct frame_rec *out);
/* Whether track's log holds every frame appended to it (and at least one). */
int frame_log_complete(const struct frame_log *g, uint32_t track);
/* Ends the track's current run (what is appended next starts another) and opens a reader on all its
 * runs so far, merged in the sweep's order (start ascending, the longer first, then the earlier
 * appended). NULL when the log is incomplete, FRAME_LOG_RUNS runs are already ended, or out of memory. */
struct frame_log_reader *frame_log_read(struct frame_log *g, uint32_t track);
/* The next frame (valid until the next call), or NULL at the end (or on a read error: the caller then
 * must not trust what it did not see). */
const struct frame_rec *frame_log_next(struct frame_log_reader *r);
/* Whether the reader stopped on a read error. */
int frame_log_failed(const struct frame_log_reader *r);
void frame_log_reader_free(struct frame_log_reader *r);
/* Forgets every track's frames (a new trace); the file's space is reused. */
void frame_log_reset(struct frame_log *g);
void frame_log_free(struct frame_log *g);

#endif

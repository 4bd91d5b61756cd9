/* frame_log.h: the frames of each track's first sorted run (start, end, row id, depth), kept in time
 * order on disk in bounded memory, so that when a track's events go back in time (PyTorch writes a
 * thread's operators, then its [memory] instants, then its launches) stream_nest.c can nest the later
 * runs' events among the first run's as they come, instead of leaving them to the end-of-trace rewrite.
 *
 * Each track appends to a 16 KiB block in memory; a full block goes to one temporary file shared by all
 * tracks (unlinked at once: gone when closed). A reader walks one track's blocks from the first. At most
 * FRAME_LOG_TRACKS tracks are logged (each holds a block: 4 MiB at most); others are simply not (the
 * end of the trace rewrites their rows as before). stream_nest.c gives the places to tracks in the
 * order they come, trace by trace. */
#ifndef TDB_FRAME_LOG_H
#define TDB_FRAME_LOG_H
#include <stddef.h>
#include <stdint.h>

#define FRAME_LOG_TRACKS 256

struct frame_rec {
    int64_t start, end, id;
    int32_t depth, pad;
};

struct frame_log;
struct frame_log_reader;

/* dir: where the temporary file goes (made when the first block is full). NULL when out of memory. */
struct frame_log *frame_log_new(const char *dir);
/* Appends r to track's log. 0, or -1 when the track cannot be logged (too many tracks, out of memory,
 * the file could not be written): its log is then incomplete for good (frame_log_complete says so). */
int frame_log_append(struct frame_log *g, uint32_t track, const struct frame_rec *r);
/* Whether track's log holds every frame appended to it (and at least one). */
int frame_log_complete(const struct frame_log *g, uint32_t track);
/* Opens a reader on track's log from its first frame; NULL when out of memory. Frames appended after
 * this are not seen by it. */
struct frame_log_reader *frame_log_read(struct frame_log *g, uint32_t track);
/* The next frame, or NULL at the end (or on a read error: the caller nests less, nothing is wrong). */
const struct frame_rec *frame_log_next(struct frame_log_reader *r);
void frame_log_reader_free(struct frame_log_reader *r);
/* Forgets every track's frames (a new trace); the file's space is reused. */
void frame_log_reset(struct frame_log *g);
void frame_log_free(struct frame_log *g);

#endif

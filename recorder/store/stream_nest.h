/* stream_nest.h: nesting computed while an import's events stream in, so that rows are written once
 * with their parent, depth and self time instead of being rewritten at the end of the trace.
 *
 * Each track keeps a stack, as the end-of-trace sweep (nesting.c) does. While a track's events come
 * in the sweep's order (start ascending, longer first at equal starts) the stack gives exactly the
 * sweep's values; rows wait in a bounded reorder buffer until their self time is known (when they
 * end) and leave it in id order (a row the full buffer must let go leaves with its whole time as self
 * time, fixed when it ends). When a track goes back in time (PyTorch writes a CPU thread's operators,
 * then its [memory] instants, then its launches, each run in order), its earlier runs are read back
 * from the frame log (frame_log.h) and merged with the new run's events as they come: the new events
 * find their parents among the old, and an old row whose operator gains children is fixed (its self
 * time less). A track whose old rows the merge would nest otherwise than they were written, whose
 * rows carry nesting of their own, or whose log is incomplete (too many tracks or restarts, no
 * memory) is marked dirty: the sweep's values are written over all its rows at the end. */
#ifndef TDB_STREAM_NEST_H
#define TDB_STREAM_NEST_H
#include "ingest.h"
#include <stddef.h>
#include <stdint.h>

struct stream_nest;

/* What the stream tells its owner (the ingest), through ctx. */
struct stream_nest_calls {
    /* a row leaves, final (to the row writer): 0, or -1 to stop */
    int (*emit)(void *ctx, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev);
    /* a row already gone to the writer holds a self time too large by less (an earlier run's operator
     * whose children came in a later run, or a row that left the full buffer while open): 0, or -1 */
    int (*fix)(void *ctx, int64_t id, int64_t less);
    /* self time for aggregate stat: a row's when it leaves (+), a fix's (-) */
    void (*self_sum)(void *ctx, uint32_t stat, int64_t delta);
    /* whether aggregates a and b count events of one name (whatever their kinds) */
    int (*same_name)(void *ctx, uint32_t a, uint32_t b);
    void *ctx;
};

/* budget: bytes the reorder buffer may hold (rows and their args); dir: where the tracks' runs go on
 * disk (frame_log.h). NULL when out of memory. */
struct stream_nest *stream_nest_new(size_t budget, const struct stream_nest_calls *calls, const char *dir);
/* Row id of event ev (on track ev->thread_id, counted in aggregate stat) comes in, its row to hold
 * launch_id and launch_ns (GPU work whose launch came just before; TDB_NULL else) in place of ev's. wait_correlation
 * (ev's correlation, or TDB_NULL): GPU work whose launch has not come yet; its row waits a few rows for
 * stream_nest_link(). 0, or -1 (out of memory, or a call failed). */
int stream_nest_add(struct stream_nest *s, int64_t id, int64_t name_id, int64_t cat_id, const struct tdb_event *ev,
                    int64_t launch_id, int64_t launch_ns, uint32_t stat, int64_t wait_correlation);
/* A launch (row launch_id, starting at launch_ns) of this correlation came: the GPU work waiting for it
 * takes them as its launch_id and launch_ns. 1 when a row was linked. */
int stream_nest_link(struct stream_nest *s, int64_t correlation, int64_t launch_id, int64_t launch_ns);

/* Row id, still waiting in the buffer and carrying no flow half yet, carries flow (event.flow's value):
 * 1. 0 when the row has left or carries one already (the half then needs a row of its own). */
int stream_nest_carry(struct stream_nest *s, int64_t id, int64_t flow);
/* The end of the trace: every row leaves. 0 or -1. */
int stream_nest_flush(struct stream_nest *s);
/* Whether the rows of track were written without the sweep's values (after flush). */
int stream_nest_dirty(const struct stream_nest *s, uint32_t track);
/* Whether every row of the trace was nested here (no track dirty, none without a track): then the
 * self_sum calls, stream_nest_same_stat() and stream_nest_overlaps() stand for the sweep's (after flush). */
int stream_nest_exact(const struct stream_nest *s);
/* Events given a parent of their own name (same_name), this trace. */
int64_t stream_nest_same_stat(const struct stream_nest *s);
/* Events that started inside an open one and outlived it (nesting.c's overlaps), this trace. */
int64_t stream_nest_overlaps(const struct stream_nest *s);
/* Pages of the tracks' stacks written to their file (their deep parts), this stream's life. */
uint64_t stream_nest_stack_pages(const struct stream_nest *s);
/* Forgets the tracks (a new trace). */
void stream_nest_reset(struct stream_nest *s);
void stream_nest_free(struct stream_nest *s);

#endif

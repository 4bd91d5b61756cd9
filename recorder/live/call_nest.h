/* call_nest.h: a chunk of CUPTI's events nested and linked as it is converted (see call_nest.c), so
 * that a recording's rows are written with the values the end of the trace finds for nearly all of
 * them, and closing rewrites only the rest. */
#ifndef TDB_CALL_NEST_H
#define TDB_CALL_NEST_H
#include <stddef.h>
#include <stdint.h>

/* One event of a chunk: what the caller fills (id: its reserved row id; start and dur within
 * TDB_TIME_MAX, as tdb_ingest_event holds them; corr: TDB_NULL for none), then what call_nest_chunk
 * finds (TDB_NULL: none). */
struct call_row {
    int64_t id, track, start, dur, corr;
    int kind;
    int64_t parent, self, launch, launch_ns;
    int depth;
    int64_t child_sum; /* (its direct children's durations, saturating) */
};

/* The range on `track` around [start, start + dur] that was there before the chunk (a recorder's NVTX
 * range): 1 with its row id and depth, 0 when none is known. */
typedef int (*call_enclosing_fn)(void *ctx, int64_t track, int64_t start, int64_t dur, int64_t *id, int *depth);

struct call_nest;

struct call_nest *call_nest_new(void);
void call_nest_free(struct call_nest *n);

/* Nests rows[0..count) on their tracks with the end-of-trace sweep's rule (nesting.c) among
 * themselves, a root inside what enclosing says; links GPU work to the first launch call of its
 * correlation seen in this chunk or a recent one. 0, or -1 when out of memory (rows left as they were:
 * the end finds every value anyway). */
int call_nest_chunk(struct call_nest *n, struct call_row *rows, size_t count, call_enclosing_fn enclosing, void *ctx);

#endif

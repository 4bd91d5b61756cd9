/* open_ranges.h: the B events of a Chrome trace waiting for their E, in file order, in bounded memory:
 * the newest in memory (their texts in one arena), the oldest, beyond a budget, in an unlinked temporary
 * file beside the database (each linked to the one under it and to its track's previous one), so that a
 * trace's nesting depth costs disk, not memory. An E takes its track's innermost; the end of the trace
 * takes the rest in file order. */
#ifndef TDB_OPEN_RANGES_H
#define TDB_OPEN_RANGES_H
#include "ingest.h"
#include "jsonbuf.h"
#include <stdint.h>
#include <stdio.h>

/* A B event waiting for its E, as it is pushed and as it is found. */
struct open_range {
    int64_t thread_id, start_ns;
    size_t offset; /* of the B event in the file */
    int kind, has_cat;
    struct tdb_str name, cat, args;
};

struct open_slot; /* one in memory */

struct open_ranges {
    struct open_slot *mem; /* the newest, in file order */
    size_t n, cap;
    struct buf arena;      /* their texts, in the same order (with holes where one was taken from under others) */
    size_t live;           /* bytes of arena that are theirs */
    size_t budget;         /* what memory may hold: slots and arena */
    const char *dir;       /* where the temporary file goes */
    FILE *err;
    int fd;                /* the temporary file, -1 until the first spill */
    uint64_t top;          /* bytes of it in use */
    uint64_t head;         /* the topmost record there, + 1; 0: none */
    size_t spilled;        /* records there not taken */
    uint64_t *last;        /* per track id: its newest record there, + 1; 0: none */
    size_t last_n;
    struct buf io;         /* records on their way to or from the file */
    int64_t found;         /* what open_ranges_find found: a slot, or -(record + 1) */
    int64_t found_thread;  /* ... and for a record, its track, */
    uint64_t found_below, found_thread_below; /* the record under it and its track's previous one */
};

void open_ranges_init(struct open_ranges *o, size_t budget, const char *dir, FILE *err);
/* A B event comes (its texts are copied). 0, or -1 on error (said on err). */
int open_ranges_push(struct open_ranges *o, const struct open_range *r);
/* The innermost range open on track thread into *r (its texts valid until the next call other than
 * open_ranges_drop): 1, 0 when there is none, -1 on error (said). */
int open_ranges_find(struct open_ranges *o, int64_t thread, struct open_range *r);
/* The range the last open_ranges_find found is closed. 0, or -1 on error (said). */
int open_ranges_drop(struct open_ranges *o);
/* Calls each(ctx, r) on every range still open, in file order, until one returns non-zero (returned),
 * and forgets them all. -1 on error (said). */
int open_ranges_each(struct open_ranges *o, int (*each)(void *ctx, const struct open_range *r), void *ctx);
void open_ranges_free(struct open_ranges *o);

#endif

/* event_pack.h: the event table's columns that critical-path and ops read, packed at import in blocks of
 * rows (table event_pack, schema/event_pack.sql): a report reads them as a few thousand blobs instead of
 * SQLite stepping through every row and column (see event_pack.c for the format). */
#ifndef TDB_EVENT_PACK_H
#define TDB_EVENT_PACK_H
#include <stddef.h>
#include <stdint.h>

#define TDB_PACK_ROWS 4096 /* rows a block */

/* The formats: meta 'event_pack' says a pack of format 1 is whole, 'event_pack_v2' one of format 2
 * (an import writes format 2; a database made before it may hold format 1). */
enum { TDB_PACK_V1 = 1, TDB_PACK_V2 = 2 };

/* One row's packed columns; TDB_NULL (ingest.h) where the row holds NULL (self_ns never: the table's is
 * NOT NULL). parent_id, self_ns and launch_ns are format 2's: as the row was written (event_pack_stale
 * names the rows the import changed after). */
struct tdb_pack_row {
    int64_t id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, correlation, device, stream, launch_id;
    int64_t parent_id, self_ns, launch_ns;
};

/* A block being filled. */
struct tdb_pack_block {
    unsigned char *data;
    size_t n, cap;
    int rows;
    struct tdb_pack_row prev; /* the last row added: what the next is told as a difference from */
};

/* Appends a row (format 2). 0, or -1 when out of memory. */
int tdb_pack_add(struct tdb_pack_block *b, const struct tdb_pack_row *r);
/* Empties the block for the next (its memory kept). */
void tdb_pack_reset(struct tdb_pack_block *b);
void tdb_pack_free(struct tdb_pack_block *b);

/* Reads a block's rows in turn. */
struct tdb_pack_reader {
    const unsigned char *p, *end;
    struct tdb_pack_row prev;
    int format; /* TDB_PACK_V1 or TDB_PACK_V2 */
};

void tdb_pack_read_init(struct tdb_pack_reader *r, const void *data, size_t n, int format);
/* The next row: 1; 0 at the block's end; -1 when the bytes are no block's (a stranger's database).
 * Format 1 has no parent_id, self_ns or launch_ns: they come out TDB_NULL. */
int tdb_pack_next(struct tdb_pack_reader *r, struct tdb_pack_row *out);

/* A self time made less after its row was packed (table event_pack_less: a parent's self time less a child
 * that came later): appended to b, a block of such fixes (b->rows counts them). 0, or -1 when out of
 * memory. */
int tdb_pack_less_add(struct tdb_pack_block *b, int64_t id, int64_t less);
/* The next fix of a block of them: 1; 0 at its end; -1 when the bytes are no such block's. */
int tdb_pack_less_next(struct tdb_pack_reader *r, int64_t *id, int64_t *less);

/* Ranges of ids whose rows changed after they were packed (table event_pack_stale): a range joins the
 * last one when it touches it; past TDB_PACK_STALE_MAX ranges (16 MB), or out of memory, `all` says
 * every row is. */
#define TDB_PACK_STALE_MAX ((size_t)1 << 20)
struct tdb_pack_stale {
    int64_t (*v)[2]; /* lo, hi: both in the range */
    size_t n, cap;
    int all;
};

void tdb_pack_stale_add(struct tdb_pack_stale *s, int64_t lo, int64_t hi);
void tdb_pack_stale_free(struct tdb_pack_stale *s);

#endif

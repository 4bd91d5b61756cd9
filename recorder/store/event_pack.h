/* event_pack.h: the event table's columns that critical-path reads, packed at import in blocks of rows
 * (table event_pack, schema/event_pack.sql): a report reads them as a few thousand blobs instead of
 * SQLite stepping through every row and column (see event_pack.c for the format). */
#ifndef TDB_EVENT_PACK_H
#define TDB_EVENT_PACK_H
#include <stddef.h>
#include <stdint.h>

#define TDB_PACK_ROWS 4096 /* rows a block */

/* One row's packed columns; TDB_NULL (ingest.h) where the row holds NULL. */
struct tdb_pack_row {
    int64_t id, kind, name_id, cat_id, thread_id, start_ns, dur_ns, correlation, device, stream, launch_id;
};

/* A block being filled. */
struct tdb_pack_block {
    unsigned char *data;
    size_t n, cap;
    int rows;
    struct tdb_pack_row prev; /* the last row added: what the next is told as a difference from */
};

/* Appends a row. 0, or -1 when out of memory. */
int tdb_pack_add(struct tdb_pack_block *b, const struct tdb_pack_row *r);
/* Empties the block for the next (its memory kept). */
void tdb_pack_reset(struct tdb_pack_block *b);
void tdb_pack_free(struct tdb_pack_block *b);

/* Reads a block's rows in turn. */
struct tdb_pack_reader {
    const unsigned char *p, *end;
    struct tdb_pack_row prev;
};

void tdb_pack_read_init(struct tdb_pack_reader *r, const void *data, size_t n);
/* The next row: 1; 0 at the block's end; -1 when the bytes are no block's (a stranger's database). */
int tdb_pack_next(struct tdb_pack_reader *r, struct tdb_pack_row *out);

#endif

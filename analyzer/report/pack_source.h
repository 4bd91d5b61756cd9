/* pack_source.h: a database's event pack (recorder/store/event_pack.h), for the reports that read it
 * instead of the event table's rows (critical-path, ops): whether it is whole, and which of its rows
 * changed after they were packed. */
#ifndef TDB_PACK_SOURCE_H
#define TDB_PACK_SOURCE_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct pack_source {
    int format;          /* TDB_PACK_V1 or TDB_PACK_V2 */
    int64_t rows;        /* rows packed: one for each id from lo to hi */
    int64_t lo, hi;      /* the event table's least and largest id */
    int64_t first, last; /* the blocks' numbers */
    int64_t traces;      /* traces in the database */
};

/* 1 when db's pack is whole (s filled): meta says so, event is the table its triggers guard
 * (event_pack_triggers.sql: they take the pack away at any change to it; a stranger may have renamed
 * the table and put a view in its place), and it holds as many rows as there are ids from the table's
 * least to its largest; 0 when not. */
int pack_source_open(sqlite3 *db, struct pack_source *s);

/* The rows whose values the pack does not hold as they are now (event_pack_stale's ranges, the launches
 * of event_pack_fix), as ranges of ids sorted and joined: *v (malloc'd) and *n. 0; -1 when out of
 * memory or they cannot be read (format 1 has no event_pack_stale). */
int pack_source_stale(sqlite3 *db, const struct pack_source *s, int64_t (**v)[2], size_t *n);

/* The self times made less after their rows were packed (event_pack_less), each id's summed, sorted by
 * id: *v (malloc'd; id, less) and *n. 0; -1 when out of memory, or they are no fixes (a stranger's
 * bytes, a sum past int64). */
int pack_source_less(sqlite3 *db, const struct pack_source *s, int64_t (**v)[2], size_t *n);

/* The statement reading blocks first..last in order (columns: rows, data). NULL on error. */
sqlite3_stmt *pack_source_blocks(sqlite3 *db, int64_t first, int64_t last);

struct tdb_pack_row;
/* The current row of st (pack_source_blocks's) decoded whole into rows (room for TDB_PACK_ROWS): their
 * count; -1 when its bytes are no block's (a stranger's: rows it does not say it holds, an id outside
 * s's). A block is read whole before any of its rows is used. */
int pack_source_block(sqlite3_stmt *st, const struct pack_source *s, struct tdb_pack_row *rows);

#endif

/* cp_rows.h: what the files of the critical-path pass share (internal to analyzer/report): lookups by
 * id (cp_ids.c), a trace's rows read from the event table or the import's pack (cp_read.c), one trace's
 * rows as the graph takes them (cp_rows.c); critical_path.c runs the pass, cp_graph.c the graph. */
#ifndef TDB_CP_ROWS_H
#define TDB_CP_ROWS_H
#include "cp_graph.h"
#include "report_io.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct id_value {
    int64_t id;
    int64_t v;
};

/* Values by id (pairs sorted by id): a direct array when the ids are dense, as a database's own ids are;
 * else a binary search (ids a foreign database spreads out). */
struct id_map {
    const struct id_value *pairs;
    size_t n;
    int64_t base;
    int64_t *direct; /* value + 1 by id - base; 0 when absent */
    size_t span;
};

/* Row positions by event id, over rows in id order: a direct array where the ids are dense (as a
 * database's own are), else a binary search over the rows themselves (ids a foreign database spreads
 * out). */
struct row_index {
    int64_t base;
    int32_t *direct; /* position + 1 by id - base; 0 when absent */
    size_t span;
    int dense;       /* the ids are base, base + 1, ...: a row's position is id - base (no direct array) */
};

/* A row's name id that is not an integer (a stranger's database): its edges' names are looked up by
 * the event, in SQL, as SQL compares it. */
#define NO_NAME_ID INT64_MIN

/* cp_ids.c */
void cp_id_map_init(struct id_map *m, const struct id_value *pairs, size_t n);
int64_t cp_id_map_get(const struct id_map *m, int64_t id, int64_t missing);
void cp_id_map_free(struct id_map *m);
int cp_by_id(const void *a, const void *b); /* qsort's order of struct id_value: by id */
/* Runs sql (?1 = trace id) and collects its rows' (integer, integer) columns, sorted by the first when
 * sort is set. 0, or -1 (printed). */
int cp_collect(sqlite3 *db, const char *sql, int64_t trace, int sort, struct id_value **out, size_t *n,
               struct report_io *io);
void cp_row_index_init(struct row_index *x, const struct cp_row *rows, size_t n);
int32_t cp_row_index_get(const struct row_index *x, const struct cp_row *rows, size_t n, int64_t id); /* -1: none */

/* cp_read.c */
/* Registers cp_row() on a connection, before any of its statements runs. 0, or -1 (printed). */
int cp_row_register(sqlite3 *db, struct report_io *io);
/* The trace's rows from the event table, and each row's launch id (v: its name id); *sorted: they came in
 * id order. 0, or -1 (printed). */
int cp_scan_rows(sqlite3 *db, int64_t trace, const struct id_map *flags, const struct id_map *thread_of, int round_us,
                 struct cp_row **rows, struct id_value **launch, size_t *count, struct cp_wait **waits, int *sorted,
                 struct report_io *io);
/* The same from the import's pack, in id order: 1 when read; 0 when there is none whole (the caller
 * scans); -1 on error (printed). */
int cp_pack_rows(sqlite3 *db, const struct id_map *flags, const struct id_map *thread_of, int round_us,
                 struct cp_row **rows, struct id_value **launch, size_t *count, struct cp_wait **waits,
                 struct report_io *io);

/* cp_rows.c */
/* Every string's cp_flag bits that has any. 0, or -1 (printed). */
int cp_load_flags(sqlite3 *db, struct id_value **flags, size_t *n, struct report_io *io);
/* One trace's rows, links and window marks; with names_out each row's name id (NO_NAME_ID: none). 0, or
 * -1 (printed). */
int cp_load_rows(sqlite3 *db, int64_t trace, const struct id_map *flags, int64_t lo, int64_t hi, int64_t cutoff,
                 int round_us, struct cp_row **out, size_t *count, struct cp_wait **waits, int64_t **names_out,
                 struct report_io *io);

#endif

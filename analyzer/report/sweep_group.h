/* sweep_group.h: what the C passes over report rows share (kernel_sweep.c, launch_sweep.c,
 * queue_sweep.c, idle_sweep.c): the temp table they fill, the group a pass over sorted rows is in
 * (compared as SQL's GROUP BY compares), groups found by key in a hash map for unsorted rows, growing
 * arrays of values, and where to part a pass in two halves read at once. */
#ifndef TDB_SWEEP_GROUP_H
#define TDB_SWEEP_GROUP_H
#include "report_io.h"
#include "strmap.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_KEYS 4

/* Where to part a pass over the rows of kinds first..last in two halves of their ids: 1 when the table's
 * ids span enough of them and some of the ids sampled evenly over them are of those kinds (*mid: the
 * middle one of those, the lower half's last id), so that each half holds about as many of the rows
 * read (a Kineto trace holds its CPU events first, its GPU work and runtime calls after them); else 0. */
int sweep_split_ids(sqlite3 *db, int first, int last, int64_t *mid);

/* A pass over the rows of kinds first..last in two halves of their ids at once where sweep_split_ids
 * parts them, the upper on a second connection (scope_reopen); else in one. Part k reads ids lo[k] to
 * hi[k] on db[k]. */
struct sweep_halves {
    sqlite3 *db[2];
    int64_t lo[2], hi[2];
    int n; /* parts: 1 or 2 */
};
void sweep_halves_open(struct sweep_halves *h, sqlite3 *db, int first, int last);
/* run(part0) here, and with two parts run(part1) on a thread at once (in turn when none can start). */
void sweep_halves_run(const struct sweep_halves *h, void *(*run)(void *), void *part0, void *part1);
/* Prepares queries/<query>.sql on each part's connection into st[k], its :lo and :hi bound to the part's
 * ids. 0, or -1 (printed; the statements prepared are the caller's to finalize). */
int sweep_halves_prepare(const struct sweep_halves *h, const char *query, sqlite3_stmt *st[2], struct report_io *io);
/* Closes the second connection. */
void sweep_halves_close(struct sweep_halves *h);

/* Creates temp table `columns` names ("name (a, b, ...)") if missing, empties it, and prepares ins,
 * an INSERT of `n` values into it. 0, or 1 (the error printed). */
int sweep_table(sqlite3 *db, const char *columns, int n, sqlite3_stmt **ins, struct report_io *io);

struct sweep_group {
    sqlite3_value *key[SWEEP_KEYS];
    int n;        /* columns in the key */
    int open;     /* a group has begun */
};

/* Whether the current row of st (its first g->n columns) is in the open group. */
int sweep_group_same(const struct sweep_group *g, sqlite3_stmt *st);
/* Begins a group at the current row of st. 0, or -1 when out of memory. */
int sweep_group_take(struct sweep_group *g, sqlite3_stmt *st);
/* Binds the key to parameters 1..n of ins. */
void sweep_group_bind(const struct sweep_group *g, sqlite3_stmt *ins);
void sweep_group_free(struct sweep_group *g);

/* Groups of `size` bytes found by a key of bytes (unsorted rows): zeroed when new. */
struct sweep_index {
    struct strmap map; /* key -> group */
    char *groups;
    size_t size, n, cap;
};

void sweep_index_init(struct sweep_index *ix, size_t size);
/* The group of key (*fresh set when it was just made, zeroed), or NULL when out of memory. The
 * pointer holds until the next call. */
void *sweep_index_get(struct sweep_index *ix, const void *key, size_t len, int *fresh);
void *sweep_index_at(const struct sweep_index *ix, size_t i);
void sweep_index_free(struct sweep_index *ix);

/* Appends column c of st's row to a hash key as SQL typed it (a type byte, then 8 bytes or the text,
 * cut to half the room left): groups by a column a foreign database may hold as text or NULL. The
 * key's new length (cap bytes at key). */
size_t sweep_key_add(unsigned char *key, size_t len, size_t cap, sqlite3_stmt *st, int c);

/* A value tracedb never writes where a pass reads an integer (a key, a duration, a kind): a foreign or
 * edited database, refused rather than summed some other way. Which table and column held it and the id
 * of its row: noted where the pass meets it (a part's thread), said once after (sweep_refuse). */
struct sweep_refusal {
    char table[64], column[64]; /* table "": the query's name for the column (an expression's) */
    const char *what;           /* what it holds; NULL: "a non-integer value" */
    const char *id_of;          /* the table whose id `id` is ("event", "trace"); NULL: none known */
    int64_t id;
    int met;
};

/* Notes column c of st's row as refused: its table and column as SQLite knows their origin, and the
 * event id in column id_col (-1: none). Returns 1. */
int sweep_refusal_note(struct sweep_refusal *r, sqlite3_stmt *st, int c, int id_col);
/* Notes a refusal of table.column, id_of's row id (id_of NULL: none), holding `what` (NULL: a non-integer
 * value). Returns 1. */
int sweep_refusal_set(struct sweep_refusal *r, const char *table, const char *column, const char *what, const char *id_of,
                      int64_t id);
/* Prints "PROG: TABLE.COLUMN holds a non-integer value (event id N): not a database tracedb wrote". 1. */
int sweep_refuse(const struct sweep_refusal *r, struct report_io *io);
/* The first of two parts' refusals (the lower ids'), said: 1; 0 when neither part met one. */
int sweep_refuse_first(const struct sweep_refusal *a, const struct sweep_refusal *b, struct report_io *io);
/* Refuses a rank (trace.rank) that is neither NULL nor an integer, before a pass keys rows by it: 1
 * (said); 0; -1 on error (said). */
int sweep_ranks_check(sqlite3 *db, struct report_io *io);
/* The same said without a row (a rank sweep_ranks_load met). 1. */
int sweep_refuse_rank(struct report_io *io);

/* Reads columns first..first+n-1 of st's row as an integer key: key[i] (0 when NULL), null[i] whether it is NULL.
 * 0; 1 when a column is neither NULL nor an integer (a foreign database's text or real), noted in *r
 * with the event id of column id_col (-1: none). */
int sweep_int_key(sqlite3_stmt *st, int first, int n, int64_t *key, int *null, struct sweep_refusal *r, int id_col);

/* A growing array of integers. */
struct sweep_values {
    int64_t *v;
    size_t n, cap;
};

/* Appends x. 0, or -1 when out of memory. */
int sweep_values_add(struct sweep_values *a, int64_t x);
/* Appends b's values to a's. 0, or -1 when out of memory. */
int sweep_values_join(struct sweep_values *a, const struct sweep_values *b);

/* Each track's rank (temp.scope_rank, scope.c), read once: the passes look a row's rank up by its track
 * here instead of SQL's subquery on every row (queries/parts/rank_of_event.sql: a tenth of a pass). */
struct sweep_ranks {
    struct strmap map;         /* track id -> index in rank */
    struct sweep_values rank;  /* SWEEP_RANK_NULL: NULL */
    int64_t last_track, last;  /* the last lookup (-1: none) */
};
#define SWEEP_RANK_NULL (INT64_MIN + 1)

/* Reads temp.scope_rank. 0; 1 when a rank is neither NULL nor an integer (or is SWEEP_RANK_NULL), which
 * sweep_ranks_check refuses before; -1 on error. */
int sweep_ranks_load(struct sweep_ranks *r, sqlite3 *db);
/* The rank of the track in column c of st's row, as the subquery gives it: NULL (*null) for a track
 * with none or a track id that is not an integer. */
void sweep_rank_of(struct sweep_ranks *r, sqlite3_stmt *st, int c, int64_t *rank, int *null);
void sweep_ranks_free(struct sweep_ranks *r);

/* Rows of `size` bytes grouped as they come (unsorted) by an integer key of `keys` columns: the
 * passes that sort each stream's rows themselves (queue_sweep.c, idle_sweep.c). */
struct sweep_stream {
    int64_t key[SWEEP_KEYS];
    int null[SWEEP_KEYS]; /* which of them are NULL */
    char *rows;
    size_t n, cap;
};

struct sweep_streams {
    struct sweep_stream *g;
    size_t n, cap, last, size;
    int keys;
    int by_track;             /* column 0 is a track, the key its rank (else column 0 is the key) */
    struct sweep_ranks ranks; /* then: read by sweep_streams_read */
    int id_col;               /* the column of the rows' event id */
    struct sweep_refusal refusal;
};

void sweep_streams_init(struct sweep_streams *s, int keys, size_t size, int by_track);
/* Reads every row of queries/<query>.sql (rows of kinds first_kind..last_kind, ids :lo to :hi) into the
 * stream of its key (its first `keys` columns; with by_track the first is a track, the key its rank),
 * each filled by fill(row, st): in two halves of the ids at once where sweep_split_ids parts them, the
 * upper on a second connection (scope_reopen) and thread, the streams then joined as one pass would
 * have made them. 0; 1 when a key or a rank is neither NULL nor integers, or trace.rank could not be
 * read (said here: sweep_refuse); -1 on error (db's printed by the caller). Column id_col of the query's rows: the event id. */
int sweep_streams_read(sqlite3 *db, const char *query, int first_kind, int last_kind, struct sweep_streams *s,
                       void (*fill)(void *row, sqlite3_stmt *st), int id_col, struct report_io *io);
/* Binds stream g's key to parameters 1..keys of ins. */
void sweep_streams_bind(const struct sweep_streams *s, const struct sweep_stream *g, sqlite3_stmt *ins);
void sweep_streams_free(struct sweep_streams *s);

#endif

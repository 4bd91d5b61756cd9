/* pattern_sweep_internal.h: what the files of `tracedb kernels --patterns`'s pass share (internal to
 * analyzer/report): the rows it keeps, its readers' parts, the pass (struct pat), and the steps
 * pattern_sweep (pattern_sweep.c) runs: growing arrays, lookups and sorts (pattern_arrays.c), the rows
 * read (pattern_read.c), HTA's depths (pattern_depth.c), the sequences grouped (pattern_group.c). */
#ifndef TDB_PATTERN_SWEEP_INTERNAL_H
#define TDB_PATTERN_SWEEP_INTERNAL_H
#include "pattern_sweep.h"
#include "phase_clock.h"
#include "report_io.h"
#include "strmap.h"
#include "sweep_group.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

enum { MARK_CANDIDATE = 1, MARK_AUTOGRAD = 2, MARK_BACKWARD = 4 };
#define PAT_NONE INT64_MIN /* a NULL parent; no root */

struct pat_name {
    int64_t id;
    int mark;
};

struct pat_host { /* a host call whose name matters (a candidate, an autograd:: call, a backward annotation) */
    int64_t id, start, dur, parent;
    int32_t thread, name_id, depth, mark; /* (a database whose ids or depths do not fit is refused) */
};

struct pat_launch { /* a runtime or driver call: the launches */
    int64_t id, thread, start, en;
};

struct pat_work { /* a GPU operation (a kernel, memcpy, memset, or a sync on a stream) */
    int64_t launch_id, name_id, start, dur, id;
};

struct pat_span { /* a ProfilerStep, or an anchor: where a linked backward thread's calls hang */
    int64_t thread, start, en, depth;
};

struct pat_root { /* a candidate at its rank's least depth */
    int64_t thread, start, en, id, name_id, rank, dur;
};

struct pat_launched { /* a GPU operation with its launch's track and times */
    int64_t thread, ls, le;
    size_t work;
};

struct pat_op { /* a GPU operation given to a root */
    size_t root;
    int64_t start, id, name_id, dur;
};

/* A candidate still open on its track as the rows come (in id order, which is nearly always start order
 * on a track): the calls that may hold the next ones. */
struct pat_open {
    int64_t id, en, depth;
};

struct pat_track {
    int64_t thread;
    struct pat_open *open; /* a stack: the innermost last */
    size_t n, cap;
};

struct pat_part { /* one reader of the rows: those with ids lo..hi on its connection */
    _Alignas(128) sqlite3 *db; /* on lines of its own: the parts' threads write theirs at once */
    sqlite3_stmt *st;
    const struct pat_name *names;
    size_t n_names;
    struct pat_host *host;
    struct pat_launch *launch;
    struct pat_work *work;
    size_t n_host, cap_host, n_launch, cap_launch, n_work, cap_work;
    struct pat_track *tracks;
    size_t n_tracks, cap_tracks, last_track;
    int rc; /* 0; -1 SQLite's error or out of memory; 2 a value tracedb never writes (noted in refusal) */
    struct sweep_refusal refusal;
};
/* arr with room for one more row at arr[n]: 0, or -1 when out of memory (arr kept). The function using it
 * declares void *pat_grown. */
#define PAT_GROW(arr, cap, n) ((pat_grown = pat_room((arr), &(cap), (n), sizeof *(arr))) ? ((arr) = pat_grown, 0) : -1)

struct pat {
    sqlite3 *db;
    struct report_io *io;
    struct pat_name *names;
    size_t n_names;
    struct pat_host *host;
    struct pat_launch *launch;
    struct pat_work *work;
    size_t n_host, n_launch, n_work;
    struct sweep_ranks ranks;
    sqlite3_stmt *row_st; /* a row of the whole table by id: parents and launches outside the window */
    struct tdb_phase_clock clock; /* TRACEDB_TIMING=1: each phase's time */
    int64_t rank_thread, rank_last; /* the last track whose rank was looked up (rank_thread -1: none) */
    struct strmap lifted;           /* event id -> index in lift: each call's extra depth, found once */
    struct sweep_values lift, path; /* (path: the ids a walk up passed) */
    struct sweep_refusal refusal;   /* where a value tracedb never writes was met (rc 2) */
};
static inline int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}
/* pattern_arrays.c */
void *pat_room(void *v, size_t *cap, size_t n, size_t size); /* room for v[n]: see PAT_GROW */
size_t pat_find(const void *v, size_t n, size_t size, int64_t id); /* by id (the first field) in sorted rows; n: none */
/* Columns first..first+n-1 of st's row into v, each an integer (NULL where null[] is given): 1; 0 when one
 * is not (noted in *r, with the event id of column id_col; -1: none). */
int pat_ints(sqlite3_stmt *st, int first, int n, int64_t *v, int *null, struct sweep_refusal *r, int id_col);
void *pat_append(void *a, size_t *na, size_t *cap, const void *b, size_t nb, size_t size); /* NULL: out of memory */
int pat_i64_order(const void *a, const void *b); /* int64_t values, ascending */
void pat_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *)); /* unless sorted already */

/* pattern_read.c */
int64_t pat_rank(struct pat *c, int64_t thread); /* a track's rank (SWEEP_RANK_NULL: NULL) */
/* The event with id anywhere in the table: its parent (PAT_NONE for NULL), track, start and end. 1; 0 when
 * there is none; 2 a value not an integer; -1 on error. */
int pat_row(struct pat *c, int64_t id, int64_t *parent, int64_t *thread, int64_t *start, int64_t *en);
int pat_read(struct pat *c);                     /* the window's rows */
int pat_names(struct pat *c, const char *name);  /* the names that matter, marked */

/* pattern_depth.c */
int pat_steps(struct pat *c, struct pat_span **steps, size_t *n);
int pat_link_depths(struct pat *c, const struct pat_span *steps, size_t n_steps);

/* pattern_group.c */
int pat_group(struct pat *c, const struct pat_root *roots, size_t n_roots, struct pat_op *ops, size_t n_ops,
              int64_t min_kernels);

#endif

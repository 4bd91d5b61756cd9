/* sweep_group.h: what the C passes over report rows share (kernel_sweep.c, launch_sweep.c,
 * queue_sweep.c, idle_sweep.c): the temp table they fill, the group a pass over sorted rows is in
 * (compared as SQL's GROUP BY compares), groups found by key in a hash map for unsorted rows, and
 * growing arrays of values. */
#ifndef TDB_SWEEP_GROUP_H
#define TDB_SWEEP_GROUP_H
#include "report_io.h"
#include "strmap.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define SWEEP_KEYS 4

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

/* A growing array of integers. */
struct sweep_values {
    int64_t *v;
    size_t n, cap;
};

/* Appends x. 0, or -1 when out of memory. */
int sweep_values_add(struct sweep_values *a, int64_t x);

#endif

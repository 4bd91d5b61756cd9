/* sweep_group.h: the group a C pass over sorted rows is in (the first columns of each row), compared
 * as SQL's GROUP BY compares them: for the report passes (queue_sweep.c, idle_sweep.c). */
#ifndef TDB_SWEEP_GROUP_H
#define TDB_SWEEP_GROUP_H
#include <sqlite3.h>

#define SWEEP_KEYS 4

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

#endif

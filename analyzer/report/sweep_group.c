/* sweep_group.c: group keys of the report passes over sorted rows (see sweep_group.h). */
#include "sweep_group.h"
#include <string.h>

/* Whether two values are equal as GROUP BY sees them (NULLs equal each other). */
static int same_value(sqlite3_value *a, sqlite3_value *b)
{
    int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
    if (ta != tb)
        return 0;
    if (ta == SQLITE_NULL)
        return 1;
    if (ta == SQLITE_INTEGER)
        return sqlite3_value_int64(a) == sqlite3_value_int64(b);
    if (ta == SQLITE_FLOAT)
        return sqlite3_value_double(a) == sqlite3_value_double(b);
    return sqlite3_value_bytes(a) == sqlite3_value_bytes(b) &&
           memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), (size_t)sqlite3_value_bytes(a)) == 0;
}

int sweep_group_same(const struct sweep_group *g, sqlite3_stmt *st)
{
    if (!g->open)
        return 0;
    for (int i = 0; i < g->n; i++)
        if (!same_value(g->key[i], sqlite3_column_value(st, i)))
            return 0;
    return 1;
}

int sweep_group_take(struct sweep_group *g, sqlite3_stmt *st)
{
    sweep_group_free(g);
    for (int i = 0; i < g->n; i++)
        if (!(g->key[i] = sqlite3_value_dup(sqlite3_column_value(st, i))))
            return -1;
    g->open = 1;
    return 0;
}

void sweep_group_bind(const struct sweep_group *g, sqlite3_stmt *ins)
{
    for (int i = 0; i < g->n; i++)
        sqlite3_bind_value(ins, i + 1, g->key[i]);
}

void sweep_group_free(struct sweep_group *g)
{
    for (int i = 0; i < SWEEP_KEYS; i++)
        sqlite3_value_free(g->key[i]), g->key[i] = NULL;
    g->open = 0;
}

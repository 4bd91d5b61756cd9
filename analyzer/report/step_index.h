/* step_index.h: the ProfilerStep windows of --by-step (temp.scope_steps, scope.c) in memory, and the step
 * an instant falls in (the latest to start of the steps holding it, start <= t < end; at equal starts
 * the first by name), for the C passes (ops_sweep.c, kernel_sweep.c). */
#ifndef TDB_STEP_INDEX_H
#define TDB_STEP_INDEX_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct step_index {
    struct step_window {
        int64_t start, end;
        sqlite3_value *name;
        long first; /* the first step of the same name (steps of one name, from several traces, group as one) */
    } *v;           /* by start, then name */
    size_t n;
    /* every step's start and end, sorted, each with the step that holds the instants from it until the
     * next (between two of them the steps holding an instant do not change): the lookup of a pass */
    int64_t *seg_at;
    long *seg_step;
    size_t nseg;
};

/* Reads temp.scope_steps. 0, or -1 (out of memory, or an SQLite error). */
int step_index_load(struct step_index *s, sqlite3 *db);
/* The step holding t (start <= t < end) that starts latest (at equal starts, the first name), or -1 when
 * none does: from the segments, *hint (0 at first; one per thread) remembering the last one found, which
 * the next instant of a pass in time order nearly always falls in. */
long step_index_find(const struct step_index *s, int64_t t, size_t *hint);
void step_index_free(struct step_index *s);

#endif

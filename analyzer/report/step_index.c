/* step_index.c: the steps of --by-step in memory (see step_index.h). */
#include "step_index.h"
#include "strmap.h"
#include <stdlib.h>

static int by_time(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether step a comes before step b in the heap of make_segments: the later start, at equal starts the
 * lower index (the name sorted first), as the rule chooses (step_index.h). */
static int heap_before(const struct step_index *s, long a, long b)
{
    return s->v[a].start != s->v[b].start ? s->v[a].start > s->v[b].start : a < b;
}

/* The segments: each start and end once, in order, with the step that holds it by the rule, found by
 * one sweep (a heap of the steps begun, the top dropped while it has ended): O(n log n) however the
 * steps overlap (a search and a scan back from each instant crossed every overlapping step that had
 * ended). 0, or -1 (out of memory). */
static int make_segments(struct step_index *s)
{
    size_t n = s->n, nheap = 0, next = 0;
    long *heap = malloc((n + 1) * sizeof *heap);
    s->seg_at = malloc((2 * n + 1) * sizeof *s->seg_at);
    s->seg_step = malloc((2 * n + 1) * sizeof *s->seg_step);
    if (!heap || !s->seg_at || !s->seg_step) {
        free(heap);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        s->seg_at[2 * i] = s->v[i].start, s->seg_at[2 * i + 1] = s->v[i].end;
    qsort(s->seg_at, 2 * n, sizeof *s->seg_at, by_time);
    s->nseg = 0;
    for (size_t i = 0; i < 2 * n; i++)
        if (s->nseg == 0 || s->seg_at[i] != s->seg_at[s->nseg - 1])
            s->seg_at[s->nseg++] = s->seg_at[i];
    for (size_t k = 0; k < s->nseg; k++) {
        int64_t t = s->seg_at[k];
        for (; next < n && s->v[next].start <= t; next++) { /* steps by start: those begun by t join */
            size_t c = nheap++;
            for (; c > 0 && heap_before(s, (long)next, heap[(c - 1) / 2]); c = (c - 1) / 2)
                heap[c] = heap[(c - 1) / 2];
            heap[c] = (long)next;
        }
        while (nheap > 0 && s->v[heap[0]].end <= t) { /* the top has ended: the next in line */
            long last = heap[--nheap];
            size_t c = 0;
            for (;;) {
                size_t l = 2 * c + 1, best = c;
                long at = last;
                if (l < nheap && heap_before(s, heap[l], at))
                    best = l, at = heap[l];
                if (l + 1 < nheap && heap_before(s, heap[l + 1], at))
                    best = l + 1;
                if (best == c)
                    break;
                heap[c] = heap[best], c = best;
            }
            if (nheap > 0)
                heap[c] = last;
        }
        s->seg_step[k] = nheap > 0 ? heap[0] : -1;
    }
    free(heap);
    return 0;
}

int step_index_load(struct step_index *s, sqlite3 *db)
{
    *s = (struct step_index){0};
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT start_ns, end_ns, name FROM temp.scope_steps ORDER BY start_ns, name", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    int rc = 0, step;
    size_t cap = 0;
    struct strmap names; /* name -> its first step */
    strmap_init(&names);
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 64;
            struct step_window *v = realloc(s->v, cap * sizeof *v);
            if (!v) {
                rc = -1;
                break;
            }
            s->v = v;
        }
        struct step_window *w = &s->v[s->n];
        *w = (struct step_window){sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                  sqlite3_value_dup(sqlite3_column_value(st, 2)), (long)s->n};
        if (!w->name) {
            rc = -1;
            break;
        }
        const void *bytes = sqlite3_value_blob(w->name);
        size_t len = (size_t)sqlite3_value_bytes(w->name);
        int64_t first = strmap_get(&names, bytes ? bytes : "", len);
        if (first >= 0)
            w->first = (long)first;
        else if (strmap_put(&names, bytes ? bytes : "", len, (int64_t)s->n) != 0)
            rc = -1;
        s->n++;
    }
    sqlite3_finalize(st);
    strmap_free(&names);
    if (rc == 0 && step == SQLITE_DONE)
        rc = make_segments(s);
    return rc == 0 && step == SQLITE_DONE ? 0 : -1;
}

long step_index_find(const struct step_index *s, int64_t t, size_t *hint)
{
    size_t k = *hint;
    if (k < s->nseg && s->seg_at[k] <= t && (k + 1 == s->nseg || t < s->seg_at[k + 1]))
        return s->seg_step[k];
    size_t lo = 0, hi = s->nseg; /* the first segment starting after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->seg_at[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) /* before every step */
        return -1;
    *hint = lo - 1;
    return s->seg_step[lo - 1];
}

void step_index_free(struct step_index *s)
{
    free(s->seg_at), free(s->seg_step);
    for (size_t i = 0; i < s->n; i++)
        sqlite3_value_free(s->v[i].name);
    free(s->v);
    *s = (struct step_index){0};
}

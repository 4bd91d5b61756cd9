/* pattern_arrays.c: the arrays `tracedb kernels --patterns`'s pass keeps (see pattern_sweep_internal.h):
 * grown a row at a time or by another's rows, looked up by id, sorted unless in order already; and a
 * row's integer columns read (a foreign database's other values told apart). */
#include "pattern_sweep_internal.h"
#include <stdlib.h>
#include <string.h>

/* v with room for one more row of `size` bytes at v[n] (grown, *cap its rows), or NULL when out of
 * memory (v is still the caller's). */
void *pat_room(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t nc = *cap ? *cap * 2 : 4096;
    void *p = realloc(v, nc * size);
    if (p)
        *cap = nc;
    return p;
}

/* The index of the row with id in rows sorted by id (the id their first field), or n. */
size_t pat_find(const void *v, size_t n, size_t size, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (*(const int64_t *)((const char *)v + m * size) < id)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < n && *(const int64_t *)((const char *)v + lo * size) == id ? lo : n;
}

/* Columns first..first+n-1 of st's row into v, each an integer (NULL where null[] is given): 1; 0 when
 * one is not (a foreign database's text, real or NULL), noted in *r. */
int pat_ints(sqlite3_stmt *st, int first, int n, int64_t *v, int *null, struct sweep_refusal *r, int id_col)
{
    int none[8];
    if (sweep_int_key(st, first, n, v, null ? null : none, r, id_col) != 0)
        return 0;
    for (int i = 0; !null && i < n; i++)
        if (none[i]) {
            sweep_refusal_note(r, st, first + i, id_col);
            r->what = "NULL where tracedb writes an integer";
            return 0;
        }
    return 1;
}

/* a (*na rows of `size` bytes, room for *cap) with b's nb rows after them; NULL with nb > 0 when out of
 * memory (a is still the caller's). */
void *pat_append(void *a, size_t *na, size_t *cap, const void *b, size_t nb, size_t size)
{
    if (nb == 0)
        return a;
    if (*na + nb > *cap) {
        void *p = realloc(a, (*na + nb) * size);
        if (!p)
            return NULL;
        a = p, *cap = *na + nb;
    }
    memcpy((char *)a + *na * size, b, nb * size);
    *na += nb;
    return a;
}

int pat_i64_order(const void *a, const void *b)
{
    return cmp_i64(*(const int64_t *)a, *(const int64_t *)b);
}

/* Sorts rows unless they are in that order already (the table's order often is). */
void pat_sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    for (size_t k = 1; k < n; k++)
        if (cmp((char *)v + (k - 1) * size, (char *)v + k * size) > 0) {
            qsort(v, n, size, cmp);
            return;
        }
}

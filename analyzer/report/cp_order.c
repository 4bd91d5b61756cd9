/* cp_order.c: the sorts the critical path graph's parts use (see cp_graph_internal.h): keys by key and
 * position; positions by time in about O(n) (buckets); items by a group and a time in one such pass. */
#include "cp_graph_internal.h"
#include "bigmem.h"
#include <stdlib.h>
#include <string.h>

int cp_keyed_order(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* The times cp_order_by_time sorts by, for time_order (which qsort calls). */
static _Thread_local const int64_t *sort_times;

static int time_order(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sort_times[x] != sort_times[y])
        return sort_times[x] < sort_times[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The positions 0..n-1 in the order of their times, equal times in position order (a stable sort), into
 * order: spread over about n / 8 buckets of equal time span in one pass (each bucket in position
 * order), then each bucket sorted (by insertion where small: a trace's events come nearly in time
 * order). O(n) for times spread as a trace's are; a bucket holding much of the trace (a burst at one
 * time) is sorted by comparison. Only positions move (the times are read where they are). 0, or -1
 * (out of memory). */
int cp_order_by_time(const int64_t *t, size_t n, uint32_t *order)
{
    if (n == 0)
        return 0;
    int64_t lo = t[0], hi = t[0];
    for (size_t i = 1; i < n; i++)
        lo = t[i] < lo ? t[i] : lo, hi = t[i] > hi ? t[i] : hi;
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    unsigned shift = 0;
    size_t buckets = n / 8 + 1;
    while (shift < 63 && span >> shift >= buckets)
        shift++;
    buckets = (size_t)(span >> shift) + 1;
    size_t *start = tdb_big_calloc(buckets + 1, sizeof *start);
    if (!start)
        return -1;
    for (size_t i = 0; i < n; i++)
        start[(((uint64_t)t[i] - (uint64_t)lo) >> shift) + 1]++;
    for (size_t b = 0; b < buckets; b++)
        start[b + 1] += start[b];
    for (size_t i = 0; i < n; i++)
        order[start[((uint64_t)t[i] - (uint64_t)lo) >> shift]++] = (uint32_t)i;
    sort_times = t;
    for (size_t b = 0, from = 0; b < buckets; from = start[b++]) { /* start[b] is now bucket b's end */
        size_t m = start[b] - from;
        uint32_t *x = order + from;
        if (m > 32) {
            qsort(x, m, sizeof *x, time_order);
            continue;
        }
        for (size_t i = 1; i < m; i++) { /* positions rise within a bucket: equal times stay in order */
            uint32_t v = x[i];
            int64_t tv = t[v];
            size_t j = i;
            for (; j > 0 && t[x[j - 1]] > tv; j--)
                x[j] = x[j - 1];
            x[j] = v;
        }
    }
    free(start);
    return 0;
}

#define MAX_GROUPS 64

static int tuple_order(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int j = 0; j < 2; j++)
        if (x[j] != y[j])
            return x[j] < y[j] ? -1 : 1;
    return 0;
}

/* Sorts n items of `size` bytes stably by their int64 fields at offsets grp[0..ngrp-1] (at most 2), then
 * at offset time: one cp_order_by_time pass over a key that puts each item's group (its tuple of grp
 * fields; at most MAX_GROUPS of them, ranked in ascending order) above its time. 1 when sorted; 0 when
 * the items have more groups, or times too far apart, for one key (the caller sorts them by
 * comparison); -1 out of memory. */
int cp_sort_grouped(void *items, size_t n, size_t size, const size_t *grp, int ngrp, size_t time)
{
    unsigned char *base = items;
    int64_t tuples[MAX_GROUPS][2], lo = 0, hi = 0;
    int ntuples = 0, last = 0, rank[MAX_GROUPS];
    if (n <= 1)
        return 1;
    uint8_t *which = tdb_big_malloc(n);
    if (!which)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int64_t tup[2] = {0, 0}, t;
        for (int j = 0; j < ngrp; j++)
            memcpy(&tup[j], base + i * size + grp[j], sizeof tup[j]);
        memcpy(&t, base + i * size + time, sizeof t);
        lo = i == 0 || t < lo ? t : lo, hi = i == 0 || t > hi ? t : hi;
        if (ntuples == 0 || tuples[last][0] != tup[0] || tuples[last][1] != tup[1]) {
            for (last = 0; last < ntuples && (tuples[last][0] != tup[0] || tuples[last][1] != tup[1]);)
                last++;
            if (last == ntuples) {
                if (ntuples == MAX_GROUPS) {
                    free(which);
                    return 0;
                }
                tuples[ntuples][0] = tup[0], tuples[ntuples][1] = tup[1], ntuples++;
            }
        }
        which[i] = (uint8_t)last;
    }
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span >= (uint64_t)INT64_MAX / MAX_GROUPS) {
        free(which);
        return 0;
    }
    for (int k = 0; k < ntuples; k++) {
        rank[k] = 0;
        for (int m = 0; m < ntuples; m++)
            rank[k] += tuple_order(tuples[m], tuples[k]) < 0;
    }
    int64_t *key = tdb_big_calloc(n, sizeof *key); /* (calloc: gcc cannot tell the loop below fills it) */
    uint32_t *order = tdb_big_malloc(n * sizeof *order);
    unsigned char *copy = tdb_big_malloc(n * size);
    int rc = -1;
    if (!key || !order || !copy)
        goto done;
    for (size_t i = 0; i < n; i++) {
        int64_t t;
        memcpy(&t, base + i * size + time, sizeof t);
        key[i] = (int64_t)((uint64_t)rank[which[i]] * (span + 1) + ((uint64_t)t - (uint64_t)lo));
    }
    if (cp_order_by_time(key, n, order) != 0)
        goto done;
    memcpy(copy, base, n * size);
    for (size_t i = 0; i < n; i++)
        memcpy(base + i * size, copy + (size_t)order[i] * size, size);
    rc = 1;
done:
    free(which), free(key), free(order), free(copy);
    return rc;
}

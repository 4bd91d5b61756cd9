/* sqlfuncs.c: exact statistics as SQL aggregate functions, registered on every database tracedb opens:
 *   median(x)          the 50th percentile
 *   percentile(x, p)   p in [0, 100], linear interpolation between closest ranks (numpy/pandas default)
 *   stddev(x)          sample standard deviation (n - 1), as pandas' std()
 *   interval_union(s, e)  the length covered by the union of intervals [s, e) (overlaps count once)
 *   type_unions(type, s, e)  the same for HTA's kernel types at once, one sort instead of eight: a JSON
 *                      array of the lengths covered by computation, communication, memory, computation or
 *                      communication, computation or memory, communication or memory, any of the three,
 *                      and other work (type: kernel_type()'s names; anything else is other), then the rows
 *                      of each of the four types
 *   mann_whitney_p(g, x)  two-sided Mann-Whitney U p-value between the x of g false and of g true
 * Values are collected and sorted at the end: exact, not approximated. NULLs are ignored. Scalars:
 * tdb_device_class, kernel_type, tdb_launch_call (below), tdb_flops (flops.c), hta_* (hta_round.c). */
#include "sqlfuncs.h"
#include "device_time.h"
#include "hta_round.h"
#include "kernel_type.h"
#include "mann_whitney.h"
#include "type_union.h"
#include "time_range.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sample {
    double *v;
    size_t n, cap;
    double p;     /* requested percentile */
    int bad_p;    /* p out of range or not constant */
};

/* Appends v to s (out of memory: the aggregate's error). */
static void sample_add(sqlite3_context *ctx, struct sample *s, double v)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        double *nv = realloc(s->v, ncap * sizeof *nv);
        if (!nv) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        s->v = nv, s->cap = ncap;
    }
    s->v[s->n++] = v;
}

static void sample_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sample *s = sqlite3_aggregate_context(ctx, sizeof *s);
    if (!s)
        return;
    if (argc > 1) {
        double p = sqlite3_value_double(argv[1]);
        if (sqlite3_value_type(argv[1]) == SQLITE_NULL || p < 0 || p > 100 || (s->n && p != s->p))
            s->bad_p = 1;
        s->p = p;
    }
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL)
        sample_add(ctx, s, sqlite3_value_double(argv[0]));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks on sorted v[0..n), p in [0, 100]; n > 0. */
static double percentile_sorted(const double *v, size_t n, double p)
{
    double pos = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* A radix sort, least significant byte first, skipping the bytes every value shares (durations and
 * delays fit in a few of the eight): qsort's call per comparison was a tenth of `tracedb launches`.
 * Short arrays, or no memory for the second buffer: qsort. */
void tdb_sort_i64(int64_t *v, size_t n)
{
    uint64_t *tmp = n >= 512 ? malloc(n * sizeof *tmp) : NULL;
    if (!tmp) {
        qsort(v, n, sizeof *v, cmp_i64);
        return;
    }
    static const uint64_t flip = (uint64_t)1 << 63; /* the sign bit flipped: unsigned order is signed order */
    size_t count[8][256] = {{0}};
    uint64_t *a = (uint64_t *)v, *b = tmp;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = a[i] ^ flip;
        for (int d = 0; d < 8; d++)
            count[d][(x >> (8 * d)) & 0xff]++;
    }
    for (int d = 0; d < 8; d++) {
        size_t pos = 0, one = 0;
        for (int k = 0; k < 256; k++)
            one |= count[d][k] == n;
        if (one)
            continue; /* every value has the same byte here */
        for (int k = 0; k < 256; k++) {
            size_t c = count[d][k];
            count[d][k] = pos, pos += c;
        }
        for (size_t i = 0; i < n; i++)
            b[count[d][((a[i] ^ flip) >> (8 * d)) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = b, b = t;
    }
    if (a != (uint64_t *)v)
        memcpy(v, a, n * sizeof *v);
    free(tmp);
}

double tdb_percentile_i64(const int64_t *v, size_t n, double p)
{
    double pos = p / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return (double)v[lo] + ((double)v[hi] - (double)v[lo]) * (pos - (double)lo);
}

static void sample_result(sqlite3_context *ctx, struct sample *s, double p)
{
    if (!s || s->n == 0) {
        sqlite3_result_null(ctx);
    } else {
        qsort(s->v, s->n, sizeof *s->v, cmp_double);
        sqlite3_result_double(ctx, percentile_sorted(s->v, s->n, p));
    }
    if (s)
        free(s->v);
}

static void median_final(sqlite3_context *ctx)
{
    sample_result(ctx, sqlite3_aggregate_context(ctx, 0), 50.0);
}

static void percentile_final(sqlite3_context *ctx)
{
    struct sample *s = sqlite3_aggregate_context(ctx, 0);
    if (s && s->bad_p) {
        free(s->v);
        sqlite3_result_error(ctx, "percentile(x, p): p must be one constant between 0 and 100", -1);
        return;
    }
    sample_result(ctx, s, s ? s->p : 0);
}

static void stddev_final(sqlite3_context *ctx)
{
    struct sample *s = sqlite3_aggregate_context(ctx, 0);
    if (!s || s->n < 2) {
        sqlite3_result_null(ctx);
        if (s)
            free(s->v);
        return;
    }
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < s->n; i++) { /* Welford: stable for large ns values */
        double d = s->v[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (s->v[i] - mean);
    }
    sqlite3_result_double(ctx, sqrt(m2 / (double)(s->n - 1)));
    free(s->v);
}

struct intervals {
    int64_t (*v)[2];
    size_t n, cap;
};

static void union_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct intervals *iv = sqlite3_aggregate_context(ctx, sizeof *iv);
    if (!iv || sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    /* within +-2^62 (as a report holds what it reads): the union's length fits in 64 bits */
    int64_t s = tdb_time_held(sqlite3_value_int64(argv[0])), e = tdb_time_held(sqlite3_value_int64(argv[1]));
    if (e <= s)
        return;
    if (iv->n == iv->cap) {
        size_t ncap = iv->cap ? iv->cap * 2 : 64;
        int64_t(*nv)[2] = realloc(iv->v, ncap * sizeof *nv);
        if (!nv) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
        iv->v = nv, iv->cap = ncap;
    }
    iv->v[iv->n][0] = s, iv->v[iv->n][1] = e;
    iv->n++;
}

static int cmp_interval(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

static void union_final(sqlite3_context *ctx)
{
    struct intervals *iv = sqlite3_aggregate_context(ctx, 0);
    int64_t total = 0;
    if (iv && iv->n) {
        qsort(iv->v, iv->n, sizeof *iv->v, cmp_interval);
        int64_t cs = iv->v[0][0], ce = iv->v[0][1];
        for (size_t i = 1; i < iv->n; i++) {
            if (iv->v[i][0] > ce) { /* a gap: close the current run */
                total += ce - cs;
                cs = iv->v[i][0], ce = iv->v[i][1];
            } else if (iv->v[i][1] > ce) {
                ce = iv->v[i][1];
            }
        }
        total += ce - cs;
    }
    if (iv)
        free(iv->v);
    sqlite3_result_int64(ctx, total);
}

/* type_unions: every interval, swept in time order (type_union.c). */
static void type_unions_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct type_ends *te = sqlite3_aggregate_context(ctx, sizeof *te);
    const char *t = (const char *)sqlite3_value_text(argv[0]);
    if (!te || !t)
        return; /* a NULL type is counted nowhere, as sum(type = ...) does */
    int type = type_union_of(t);
    if (sqlite3_value_type(argv[1]) == SQLITE_NULL || sqlite3_value_type(argv[2]) == SQLITE_NULL) {
        te->rows[type]++;
        return;
    }
    if (type_ends_add(te, type, sqlite3_value_int64(argv[1]), sqlite3_value_int64(argv[2])) != 0)
        sqlite3_result_error_nomem(ctx);
}

static void type_unions_final(sqlite3_context *ctx)
{
    struct type_ends *te = sqlite3_aggregate_context(ctx, 0);
    int64_t len[TU_SETS] = {0}, rows[TU_TYPES] = {0};
    if (te) {
        int rc = type_ends_lengths(te, len);
        memcpy(rows, te->rows, sizeof rows);
        type_ends_free(te);
        if (rc != 0) {
            sqlite3_result_error_nomem(ctx);
            return;
        }
    }
    char out[(TU_SETS + TU_TYPES) * 24 + 4];
    int n = snprintf(out, sizeof out, "[%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld]", (long long)len[0],
                     (long long)len[1], (long long)len[2], (long long)len[3], (long long)len[4], (long long)len[5],
                     (long long)len[6], (long long)len[7], (long long)rows[0], (long long)rows[1], (long long)rows[2],
                     (long long)rows[3]);
    sqlite3_result_text(ctx, out, n, SQLITE_TRANSIENT);
}

/* mann_whitney_p(in_second, x): the two-sided Mann-Whitney U p-value between the x of rows where
 * in_second is false and those where it is true (mann_whitney.c; NULL when either group is empty). */
struct two_samples {
    struct sample a, b;
};

static void mwu_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    struct two_samples *t = sqlite3_aggregate_context(ctx, sizeof *t);
    if (!t || sqlite3_value_type(argv[1]) == SQLITE_NULL)
        return;
    sample_add(ctx, sqlite3_value_int(argv[0]) ? &t->b : &t->a, sqlite3_value_double(argv[1]));
}

static void mwu_final(sqlite3_context *ctx)
{
    struct two_samples *t = sqlite3_aggregate_context(ctx, 0);
    struct tdb_mwu r;
    if (t && t->a.n && t->b.n && tdb_mann_whitney(t->a.v, t->a.n, t->b.v, t->b.n, &r) == 0)
        sqlite3_result_double(ctx, r.p);
    else
        sqlite3_result_null(ctx);
    if (t)
        free(t->a.v), free(t->b.v);
}

/* tdb_device_class(kind, name): 'computation', 'communication', 'memory' or 'other', by the import's rule
 * (device_time_class: kernel_type()'s, memcpy, memset and executions memory). */
static void device_class_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[1]);
    struct tdb_str s = {name ? name : "", name ? (size_t)sqlite3_value_bytes(argv[1]) : 0};
    static const char *const names[] = {[DC_COMPUTATION] = "computation", [DC_COMMUNICATION] = "communication",
                                        [DC_MEMORY] = "memory", [DC_OTHER] = "other"};
    sqlite3_result_text(ctx, names[device_time_class(sqlite3_value_int(argv[0]), s)], -1, SQLITE_STATIC);
}

/* kernel_type(name): HTA's kernel type of GPU work by name (util/kernel_type.c: the one rule). */
static void kernel_type_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    size_t n = name ? (size_t)sqlite3_value_bytes(argv[0]) : 0;
    sqlite3_result_text(ctx, tdb_kernel_type_name(tdb_kernel_type_of(name, n)), -1, SQLITE_STATIC);
}

/* tdb_launch_call(name): 1 when name is a call that launches GPU work, else 0: HTA's launch mask (CUDA
 * runtime and driver, HIP, MTIA's runFunction). The one list: the critical path's graph (cp_graph.c) and
 * the queue's SQL (queries/parts/queue_steps.sql) both read it. */
int tdb_launch_call(const char *name)
{
    static const char *const launches[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
                                           "cudaMemcpyAsync", "cudaMemsetAsync", "hipLaunchKernel",
                                           "hipExtModuleLaunchKernel", "hipMemcpyAsync", "hipMemsetAsync",
                                           "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"};
    for (size_t i = 0; i < sizeof launches / sizeof launches[0]; i++)
        if (strcmp(name, launches[i]) == 0)
            return 1;
    return 0;
}

static void launch_call_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    sqlite3_result_int(ctx, name && tdb_launch_call(name));
}

int tdb_register_functions(sqlite3 *db)
{
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS; /* pure: safe in any view */
    if (sqlite3_create_function(db, "median", 1, flags, NULL, NULL, sample_step, median_final) != SQLITE_OK ||
        sqlite3_create_function(db, "percentile", 2, flags, NULL, NULL, sample_step, percentile_final) != SQLITE_OK ||
        sqlite3_create_function(db, "stddev", 1, flags, NULL, NULL, sample_step, stddev_final) != SQLITE_OK ||
        sqlite3_create_function(db, "interval_union", 2, flags, NULL, NULL, union_step, union_final) != SQLITE_OK ||
        sqlite3_create_function(db, "type_unions", 3, flags, NULL, NULL, type_unions_step, type_unions_final) != SQLITE_OK ||
        sqlite3_create_function(db, "mann_whitney_p", 2, flags, NULL, NULL, mwu_step, mwu_final) != SQLITE_OK ||
        sqlite3_create_function(db, "tdb_device_class", 2, flags, NULL, device_class_fn, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "kernel_type", 1, flags, NULL, kernel_type_fn, NULL, NULL) != SQLITE_OK ||
        sqlite3_create_function(db, "tdb_launch_call", 1, flags, NULL, launch_call_fn, NULL, NULL) != SQLITE_OK)
        return -1;
    return tdb_register_hta_round(db) == 0 ? tdb_register_flops(db) : -1; /* hta_start, hta_end, hta_share */
}

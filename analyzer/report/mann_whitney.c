/* mann_whitney.c: the two-sided Mann-Whitney U test, as scipy.stats.mannwhitneyu computes it (method
 * "auto"): the exact distribution of U when either sample has at most 8 values and no value repeats,
 * else the normal approximation with the tie correction and a continuity correction of 1/2. Used by
 * `tracedb diff --fail-above` to tell a shift of the step times from noise (Google Benchmark's
 * compare.py makes the same test). */
#include "mann_whitney.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked {
    double v;
    int from_x;
};

static int cmp_ranked(const void *a, const void *b)
{
    double x = ((const struct ranked *)a)->v, y = ((const struct ranked *)b)->v;
    return (x > y) - (x < y);
}

/* P(U >= u) for samples of m and n values, no ties: counts of the orderings of m x's and n y's by the
 * number of (y before x) pairs, N(u; i, j) = N(u - j; i - 1, j) + N(u; i, j - 1). */
static double exact_sf(size_t m, size_t n, double u)
{
    if (m > n) { /* the distribution is the same either way round; the smaller one sizes the table */
        size_t t = m;
        m = n, n = t;
    }
    size_t top = m * n;
    double **cnt = calloc(m + 1, sizeof *cnt);
    if (!cnt)
        return NAN;
    for (size_t i = 0; i <= m; i++) {
        cnt[i] = calloc(top + 1, sizeof **cnt);
        if (!cnt[i]) {
            for (size_t k = 0; k < i; k++)
                free(cnt[k]);
            free(cnt);
            return NAN;
        }
        cnt[i][0] = 1; /* j = 0: one ordering, U = 0 */
    }
    for (size_t j = 1; j <= n; j++) /* cnt[i] holds N(.; i, j - 1); becomes N(.; i, j) */
        for (size_t i = 1; i <= m; i++)
            for (size_t v = i * j + 1; v-- > j;)
                cnt[i][v] += cnt[i - 1][v - j];
    double total = 0, tail = 0;
    for (size_t v = 0; v <= top; v++) {
        total += cnt[m][v];
        if ((double)v >= u)
            tail += cnt[m][v];
    }
    for (size_t i = 0; i <= m; i++)
        free(cnt[i]);
    free(cnt);
    return tail / total;
}

int tdb_mann_whitney(const double *x, size_t n1, const double *y, size_t n2, struct tdb_mwu *out)
{
    memset(out, 0, sizeof *out);
    if (!n1 || !n2)
        return -1;
    size_t n = n1 + n2;
    struct ranked *r = malloc(n * sizeof *r);
    if (!r)
        return -1;
    for (size_t i = 0; i < n1; i++)
        r[i] = (struct ranked){x[i], 1};
    for (size_t i = 0; i < n2; i++)
        r[n1 + i] = (struct ranked){y[i], 0};
    qsort(r, n, sizeof *r, cmp_ranked);
    double r1 = 0, tie_term = 0; /* rank sum of x; sum of t^3 - t over groups of t equal values */
    int ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].v == r[i].v)
            j++;
        double t = (double)(j - i), rank = (double)(i + 1 + j) / 2; /* the average of ranks i+1 .. j */
        for (size_t k = i; k < j; k++)
            if (r[k].from_x)
                r1 += rank;
        if (t > 1)
            ties = 1, tie_term += t * t * t - t;
        i = j;
    }
    free(r);
    double u1 = r1 - (double)n1 * (double)(n1 + 1) / 2, u2 = (double)n1 * (double)n2 - u1, u = fmax(u1, u2);
    out->u1 = u1;
    out->exact = (n1 <= 8 || n2 <= 8) && !ties;
    double p;
    if (out->exact) {
        p = exact_sf(n1, n2, u);
    } else {
        double nn = (double)n, s = sqrt((double)n1 * (double)n2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1))));
        double z = (u - (double)n1 * (double)n2 / 2 - 0.5) / s;
        p = s > 0 ? 0.5 * erfc(z / sqrt(2.0)) : 1; /* the normal upper tail */
    }
    out->p = fmin(1, fmax(0, 2 * p));
    return isnan(p) ? -1 : 0;
}

double tdb_mann_whitney_min_p(size_t n1, size_t n2)
{
    if (n1 > 8 && n2 > 8)
        return 0; /* far below any alpha in use */
    double orderings = 1; /* C(n1 + n2, n1): the extreme ordering has probability 1 / that, twice over */
    for (size_t k = 1; k <= n1; k++)
        orderings = orderings * (double)(n2 + k) / (double)k;
    return fmin(1, 2 / orderings);
}

/* mann_whitney.h: the two-sided Mann-Whitney U test with scipy's p-values (see mann_whitney.c). */
#ifndef TDB_MANN_WHITNEY_H
#define TDB_MANN_WHITNEY_H
#include <stddef.h>

struct tdb_mwu {
    double u1;  /* U of the first sample (scipy's statistic) */
    double p;   /* two-sided p-value */
    int exact;  /* the exact distribution (else the normal approximation) */
};

/* 0, or -1 when a sample is empty or memory runs out. */
int tdb_mann_whitney(const double *x, size_t n1, const double *y, size_t n2, struct tdb_mwu *out);

/* The smallest two-sided p any samples of these sizes can give: below alpha, or the test can never
 * call a change real (3 and 3 values: 0.1). */
double tdb_mann_whitney_min_p(size_t n1, size_t n2);

#endif

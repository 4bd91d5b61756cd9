/* type_union.h: the time covered by HTA's kernel types (computation, communication, memory, other) and
 * by each union of them, from every interval swept in time order (type_union.c). The SQL
 * aggregate type_unions() (sqlfuncs.c) and the C pass over GPU rows (type_sweep.c) both use it. */
#ifndef TDB_TYPE_UNION_H
#define TDB_TYPE_UNION_H
#include <stddef.h>
#include <stdint.h>

enum { TU_COMPUTATION, TU_COMMUNICATION, TU_MEMORY, TU_OTHER, TU_TYPES, TU_SETS = 8 };

struct type_ends {
    struct type_iv {
        int64_t s, e;
        int32_t type;
    } *v; /* the intervals that are not empty */
    size_t n, cap;
    int64_t rows[TU_TYPES]; /* rows of each type, empty intervals included */
};

/* The type of kernel_type()'s name t: one of TU_COMPUTATION..TU_OTHER (any other name is other). */
int type_union_of(const char *t);
/* Counts a row of `type`; [s, e) is kept when not empty. 0, or -1 when out of memory. */
int type_ends_add(struct type_ends *te, int type, int64_t s, int64_t e);
/* Sums the length covered by each set of types, in the order a, b, c, ab, ac, bc, abc, other (a:
 * computation, b: communication, c: memory): the intervals sorted by start (unless they came so) and
 * swept with the ends of those running. 0, or -1 when out of memory. */
int type_ends_lengths(struct type_ends *te, int64_t len[TU_SETS]);
/* Adds b's rows and intervals to a's (two parts of one pass). 0, or -1 when out of memory. */
int type_ends_join(struct type_ends *a, const struct type_ends *b);
void type_ends_free(struct type_ends *te);

#endif

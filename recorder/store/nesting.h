/* nesting.h: parent, depth and self time of events on their tracks, by a sort and a stack sweep. */
#ifndef TDB_NESTING_H
#define TDB_NESTING_H
#include <stddef.h>
#include <stdint.h>

/* The events of one load, by ordinal 0..n-1 (file order). On input: track, start and dur of each.
 * On output: parent[i] = ordinal of the enclosing event + 1 (0 = none), depth[i], self[i] = dur minus
 * the direct children's dur. The rule is PyTorch's: events sorted by (track, start, longer first,
 * file order); a child must end within its parent, else the parent is closed first (an overlap, counted).
 * parent may alias track and self may alias start (each is read before it is written).
 * Returns the number of overlaps, or -1 when out of memory. */
int64_t nesting_compute(size_t n, uint32_t *track, int64_t *start, const int64_t *dur, uint32_t *parent,
                        uint16_t *depth, int64_t *self);

#endif

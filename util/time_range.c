/* time_range.c: the count of out-of-range times a report held (see time_range.h). The reports read
 * on two threads at once, so the count is atomic; it is touched only when a value is out of range. */
#include "time_range.h"
#include <stdatomic.h>

static atomic_long held;
static _Atomic int64_t first_held;

void tdb_time_held_note(int64_t was)
{
    int64_t none = 0; /* a held value is never 0 */
    atomic_fetch_add_explicit(&held, 1, memory_order_relaxed);
    atomic_compare_exchange_strong(&first_held, &none, was);
}

long tdb_times_held(int64_t *first)
{
    *first = atomic_load(&first_held);
    return atomic_load(&held);
}

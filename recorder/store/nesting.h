/* nesting.h: parent, depth and self time of events on their tracks, by a stack sweep over the
 * events sorted by (track, start, longer first, file order): PyTorch's rule. */
#ifndef TDB_NESTING_H
#define TDB_NESTING_H
#include "paged.h"
#include "spill_sort.h"
#include <stddef.h>
#include <stdint.h>

/* One event's sweep key: 32 bytes, what the import keeps per event until the end of its trace. */
struct nesting_key {
    int64_t start, dur;
    uint32_t track, ord; /* ord: the event's id minus the trace's first id */
    uint32_t stat;       /* the caller's aggregate of the event (its name) */
    uint32_t pad;        /* zero (the record goes to a file as it is) */
};

/* What an event's row holds already (a recording's rows are written with the nesting its recorder
 * found): its parent as ord + 1 (0 = none; NESTING_UNKNOWN: not known, never what the sweep finds),
 * depth and self time. A key with it (struct nesting_held_key, 48 bytes) lets the caller of the sweep
 * leave alone the rows that hold what the sweep finds, without reading them. */
#define NESTING_UNKNOWN UINT32_MAX
struct nesting_held {
    int64_t self;
    uint32_t parent, depth;
};
struct nesting_held_key {
    struct nesting_key key;
    struct nesting_held held;
};

/* What the sweep found for one event, given once the event and all its children are done. */
struct nesting_result {
    uint32_t ord, parent; /* parent: the enclosing event's ord + 1, 0 = none */
    uint32_t parent_stat; /* the enclosing event's stat (with a parent) */
    uint32_t stat, track;
    uint16_t depth;
    int64_t self, dur;    /* self: dur minus the direct children's dur */
    struct nesting_held held; /* its key's, when the keys hold them; else zero */
};

/* The sort order of keys: track, start, longer first, ord. */
int nesting_key_cmp(const void *a, const void *b);

/* Sweeps keys (a finished spill_sort of struct nesting_key; of struct nesting_held_key when held, each
 * result then with its key's held values). A child must end within its parent, else the parent is
 * closed first (an overlap, counted). emit(ctx, result) for every event (nonzero: stop with its error).
 * The stack holds stack_bytes in memory, its deep part in pages in stack_file (records of 72 bytes).
 * Returns the number of overlaps, or -1 (out of memory, the sort, the stack's file or a callback
 * failed). */
int64_t nesting_sweep(struct spill_sort *keys, int held, struct paged_file *stack_file, size_t stack_bytes,
                      int (*emit)(void *ctx, const struct nesting_result *r), void *ctx);

#endif

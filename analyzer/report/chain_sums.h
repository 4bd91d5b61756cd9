/* chain_sums.h: values that count where they are given and at every event above, up the chain of parents
 * (an operator's device time counts in its own total and in each of its callers'), each event
 * once however the parents run (a foreign database's may loop), in time linear in the events met:
 * walking up from every value instead took the depth each time, O(N^2) on N nested operators. */
#ifndef TDB_CHAIN_SUMS_H
#define TDB_CHAIN_SUMS_H
#include <stddef.h>
#include <stdint.h>

#define CHAIN_COLS 1 /* sums kept side by side (ops: device time; memory is PyTorch's by time, ops_merge.c) */

/* 1 with *parent set, 0 when id has none (or is no event), -1 on error. */
typedef int (*chain_parent_fn)(void *ctx, int64_t id, int64_t *parent);
/* sums (CHAIN_COLS of them) to count at event id. */
typedef void (*chain_take_fn)(void *ctx, int64_t id, const int64_t *sums);

struct chain_sums {
    chain_parent_fn parent_of;
    chain_take_fn take;
    void *ctx;
    uint32_t *at; /* by id - lo for ids lo .. lo + span - 1: its node's index + 1; 0 none (made when first needed) */
    int64_t lo, span;
    uint32_t *ix; /* other ids, by hash (open addressing): as at; cap slots, a power of 2, nix used */
    size_t cap, nix;
    struct chain_node {
        int64_t id;
        int32_t up;     /* its parent's node; -1: none */
        uint32_t below; /* nodes whose parent it is and that have not given it their sums yet */
        int64_t sum[CHAIN_COLS];
    } *v;
    size_t n, ncap;
};

/* Ids lo .. lo + span - 1 (span 0: none) are found by their place in an array of span entries, whose
 * pages the kernel gives as they are touched (every database tracedb makes: no hashing, and neighbours
 * in memory); others by hash. */
void chain_sums_init(struct chain_sums *c, int64_t lo, int64_t span, chain_parent_fn parent_of, chain_take_fn take,
                     void *ctx);
/* v to column col at event id and every event above it. A chain that ends (or closes) within a few
 * events is walked at once, take() called at each; a longer one is met as nodes, each once, and summed
 * by chain_sums_end. 0, or -1 (parent_of's error, or out of memory); *overflow set when a sum leaves
 * int64. */
int chain_sums_add(struct chain_sums *c, int64_t id, int col, int64_t v, int *overflow);
/* take() once for each node, children before parents, with its sums: its own values and those of every
 * node below it; each event of a loop of parents gets the loop's and everything's below it. */
void chain_sums_end(struct chain_sums *c, int *overflow);
void chain_sums_free(struct chain_sums *c);

#endif

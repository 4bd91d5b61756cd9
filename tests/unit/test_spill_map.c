/* test_spill_map.c: a map of keys to ids in bounded memory (recorder/store/spill_map.c): far more keys
 * than memory may hold all keep their ids, through the temporary table, while memory never holds more
 * than its limit; keys met once (a trace's distinct names) are found new without a lookup in the table
 * (the Bloom filter), keys found there come back to memory; hinted lookups answer as plain ones; empty
 * keys and keys with zero bytes are keys like any other; a key put again takes its new id, whether the
 * first went to the table or not. */
#include "helpers.h"
#include "spill_map.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define KEYS 200000
#define IN_MEMORY 1000

static size_t key_of(char *k, size_t cap, int i)
{
    int n = snprintf(k, cap, "range_%d", i);
    if (i % 7 == 0) /* zero bytes inside some */
        k[n++] = 0, k[n++] = (char)(i & 0x7f);
    return (size_t)n;
}

Test(spill_map, many_keys_keep_their_ids_in_bounded_memory, .timeout = 120)
{
    struct spill_map m;
    spill_map_init(&m, IN_MEMORY, 16 * 1024, 256 * 1024);
    char k[64];
    for (int i = 0; i < KEYS; i++) { /* as names are interned: looked for, then put */
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get(&m, k, n), -1, "key %d is new", i);
        cr_assert_eq(spill_map_put(&m, k, n, i), 0, "%s", spill_map_error(&m) ? spill_map_error(&m) : "");
        cr_assert_leq(m.mem.count, IN_MEMORY);
        cr_assert_leq(m.mem.arena_len, 16 * 1024);
    }
    cr_assert_gt(m.spilled, KEYS - IN_MEMORY - 1, "the keys beyond memory went to the table");
    cr_assert_lt(m.lookups, KEYS / 20, "new keys cost no lookup in the table (%llu did)", (unsigned long long)m.lookups);
    cr_assert_leq(m.mem.cap, 4 * IN_MEMORY, "the map's table does not grow past its limit");
    uint64_t rng = 88172645463325252ULL;
    for (int j = 0; j < KEYS; j++) { /* at random, each key's id */
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        int i = (int)(rng % KEYS);
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get(&m, k, n), i, "key %d", i);
        cr_assert_leq(m.mem.count, IN_MEMORY);
    }
    for (int i = KEYS; i < KEYS + 1000; i++) { /* absent keys stay absent */
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get(&m, k, n), -1);
    }
    cr_assert_eq(spill_map_get(&m, "", 0), -1);
    cr_assert_eq(spill_map_put(&m, "", 0, KEYS), 0);
    for (int i = 0; i < 2 * IN_MEMORY; i++) { /* the empty key too goes to the table and comes back */
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get(&m, k, n), i);
    }
    cr_assert_eq(spill_map_get(&m, "", 0), KEYS);
    cr_assert_null(spill_map_error(&m));
    spill_map_free(&m);
}

/* A key found in the table comes back to memory: asked again, it costs no lookup there. */
Test(spill_map, a_key_found_in_the_table_comes_back_to_memory)
{
    struct spill_map m;
    spill_map_init(&m, 8, 1024, 1024);
    char k[64];
    for (int i = 0; i < 100; i++) {
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_put(&m, k, n, 1000 + i), 0);
    }
    size_t n = key_of(k, sizeof k, 3);
    uint64_t before = m.lookups;
    cr_assert_eq(spill_map_get(&m, k, n), 1003);
    cr_assert_eq(m.lookups, before + 1);
    for (int j = 0; j < 5; j++)
        cr_assert_eq(spill_map_get(&m, k, n), 1003);
    cr_assert_eq(m.lookups, before + 1, "found in memory since");
    spill_map_free(&m);
}

/* Whatever the hint (right, stale after a spill emptied memory, another key's), the answer is the plain
 * lookup's. */
Test(spill_map, hinted_lookups_answer_as_plain_ones)
{
    struct spill_map m;
    spill_map_init(&m, 16, 4096, 1024);
    char k[64];
    size_t hints[4] = {0, 3, 1000000, 7};
    for (int i = 0; i < 500; i++) {
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get_hinted(&m, k, n, &hints[i % 4]), -1);
        cr_assert_eq(spill_map_put(&m, k, n, i), 0);
    }
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 500; i += 3) {
            size_t n = key_of(k, sizeof k, i);
            cr_assert_eq(spill_map_get_hinted(&m, k, n, &hints[i % 4]), i, "key %d", i);
            cr_assert_eq(spill_map_get_hinted(&m, k, n, &hints[i % 4]), i);
        }
    spill_map_free(&m);
}

/* As strmap_put does (an appended database's string table may hold a value twice: its last id counts). */
Test(spill_map, a_key_put_again_takes_its_new_id)
{
    struct spill_map m;
    spill_map_init(&m, 8, 1024, 1024);
    char k[64];
    for (int i = 0; i < 100; i++) { /* key i, then key i - 20 again: the first in the table by then */
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_put(&m, k, n, i), 0);
        if (i >= 20) {
            n = key_of(k, sizeof k, i - 20);
            cr_assert_eq(spill_map_put(&m, k, n, 1000 + i - 20), 0);
        }
    }
    for (int i = 0; i < 100; i++) {
        size_t n = key_of(k, sizeof k, i);
        cr_assert_eq(spill_map_get(&m, k, n), i < 80 ? 1000 + i : i, "key %d", i);
    }
    spill_map_free(&m);
}

/* spill_map.h: a map from byte strings to ids (>= 0) in bounded memory, for what grows with a trace's
 * names (the names interned, the per-name sums' keys). The keys met lately are in an
 * in-memory hash map (strmap), at most max_keys of them and max_bytes of their bytes; when it is full,
 * the keys it holds go to the table of a private temporary SQLite database (schema/spill_map.sql: the
 * key its own index, the pages beyond its cache in a file) and it starts again empty. A key not in
 * memory is looked for there, unless a Bloom filter of the keys there says it is not (a trace's
 * distinct names, each met once, cost no lookup); a key found there comes back to memory. A map whose
 * keys fit never opens the database: its lookups are strmap's. */
#ifndef TDB_SPILL_MAP_H
#define TDB_SPILL_MAP_H
#include "strmap.h"
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct spill_key; /* a key on its way to the table */

struct spill_map {
    struct strmap mem;      /* key -> id * 2, + 1 when the table holds the key already */
    size_t max_keys, max_bytes;
    sqlite3 *side;          /* the table's database, NULL until the first spill */
    sqlite3_stmt *get, *put;
    uint64_t *bloom;        /* the keys in the table: three bits each, in one block of 512 */
    size_t bloom_mask;      /* bits - 1 */
    struct spill_key *keys; /* a spill's keys, sorted (max_keys + 1) */
    int64_t spilled;        /* keys put in the table */
    uint64_t lookups;       /* keys looked for there */
    char why[160];          /* what failed, "" while nothing */
};

/* bloom_bytes: the filter's size (a power of two is used, 64 bytes at least). */
void spill_map_init(struct spill_map *m, size_t max_keys, size_t max_bytes, size_t bloom_bytes);
void spill_map_free(struct spill_map *m);
/* The id of key; -1 when absent, -2 on error (spill_map_error). */
int64_t spill_map_get(struct spill_map *m, const void *key, size_t len);
/* The same, looking first at slot *hint of the memory's map (strmap_get_hinted: names repeat). */
int64_t spill_map_get_hinted(struct spill_map *m, const void *key, size_t len, size_t *hint);
/* Stores key -> id; a key put again takes the new id (as strmap_put: a value a database appended to
 * holds twice is found by its last id). 0, or -1 on error. */
int spill_map_put(struct spill_map *m, const void *key, size_t len, int64_t id);
/* What failed (for a message: "out of memory", SQLite's error), or NULL while nothing has. */
const char *spill_map_error(const struct spill_map *m);

#endif

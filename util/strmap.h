/* strmap.h: an open-addressing hash map from byte strings to int64 ids (string interning, track
 * lookup). Keys are copied into one growing arena: no allocation per lookup, one per growth. */
#ifndef TDB_STRMAP_H
#define TDB_STRMAP_H
#include <stddef.h>
#include <stdint.h>

struct strmap {
    uint64_t *hash;   /* 0 = empty slot */
    uint32_t *off;    /* key offset in arena */
    uint32_t *len;    /* key length */
    int64_t *val;     /* the value stored with the key */
    size_t cap;       /* slots, a power of two */
    size_t count;     /* keys stored */
    char *arena;      /* all keys, back to back */
    size_t arena_len, arena_cap;
};

void strmap_init(struct strmap *m);
void strmap_free(struct strmap *m);
/* Forgets every key, keeping the table's and the arena's memory for the next ones. */
void strmap_clear(struct strmap *m);
/* The hash a key is stored under (never 0): what m->hash holds for it. */
uint64_t strmap_hash(const void *key, size_t len);
/* The value for key, or -1 when absent (values stored must be >= 0). */
int64_t strmap_get(const struct strmap *m, const void *key, size_t len);
/* strmap_get, looking first at slot *hint (where this caller found a key last: names repeat), which
 * it checks holds key itself (a wrong or stale hint costs one comparison); a key found elsewhere
 * becomes the hint. */
int64_t strmap_get_hinted(const struct strmap *m, const void *key, size_t len, size_t *hint);
/* Stores key -> val (key must be absent). Returns 0, or -1 when out of memory. */
int strmap_put(struct strmap *m, const void *key, size_t len, int64_t val);

#endif

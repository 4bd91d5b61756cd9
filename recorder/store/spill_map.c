/* spill_map.c: a map from byte strings to ids in bounded memory, the keys beyond it in a temporary
 * SQLite table (see spill_map.h). */
#include "spill_map.h"
#include "embedded.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void spill_map_init(struct spill_map *m, size_t max_keys, size_t max_bytes, size_t bloom_bytes)
{
    memset(m, 0, sizeof *m);
    strmap_init(&m->mem);
    m->max_keys = max_keys ? max_keys : 1, m->max_bytes = max_bytes;
    size_t bits = 512; /* a block at least */
    while (bits / 8 * 2 <= bloom_bytes)
        bits *= 2;
    m->bloom_mask = bits - 1;
}

void spill_map_free(struct spill_map *m)
{
    strmap_free(&m->mem);
    sqlite3_finalize(m->get);
    sqlite3_finalize(m->put);
    sqlite3_close(m->side);
    free(m->bloom);
    free(m->keys);
    memset(m, 0, sizeof *m);
}

const char *spill_map_error(const struct spill_map *m)
{
    return m->why[0] ? m->why : NULL;
}

static int fail(struct spill_map *m, const char *why)
{
    if (!m->why[0])
        snprintf(m->why, sizeof m->why, "%s", why);
    return -1;
}

static int side_fail(struct spill_map *m)
{
    return fail(m, m->side ? sqlite3_errmsg(m->side) : "out of memory");
}

/* The filter is blocked: a key's three bits lie in one block of 512 (a cache line), picked by its hash h
 * mixed again (splitmix64's finalizer: strmap's hash is made for a table's low bits), so that a test
 * costs one miss of the cache, not three. */
static uint64_t *bloom_block(const struct spill_map *m, uint64_t z)
{
    return m->bloom + ((z & m->bloom_mask) >> 9) * 8;
}

static uint64_t bloom_mix(uint64_t h)
{
    h ^= h >> 30, h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 27, h *= 0x94D049BB133111EBULL;
    return h ^ (h >> 31);
}

static void bloom_add(struct spill_map *m, uint64_t h)
{
    uint64_t z = bloom_mix(h), *b = bloom_block(m, z);
    for (int j = 0; j < 3; j++) {
        unsigned bit = (unsigned)(z >> (40 + 8 * j)) & 511;
        b[bit >> 6] |= (uint64_t)1 << (bit & 63);
    }
}

static int bloom_has(const struct spill_map *m, uint64_t h)
{
    uint64_t z = bloom_mix(h);
    const uint64_t *b = bloom_block(m, z);
    for (int j = 0; j < 3; j++) {
        unsigned bit = (unsigned)(z >> (40 + 8 * j)) & 511;
        if (!(b[bit >> 6] & ((uint64_t)1 << (bit & 63))))
            return 0;
    }
    return 1;
}

/* The database, its table and the two statements (schema/spill_map.sql: its statements in turn; those
 * without parameters run at once, the two with parameters are the lookup and the insert, kept). */
static int side_open(struct spill_map *m)
{
    const char *sql = tdb_embedded_get("schema/spill_map.sql");
    if (!sql)
        return fail(m, "schema/spill_map.sql is not in the binary");
    size_t bloom_bytes = (m->bloom_mask + 1) / 8;
    if (!m->bloom && !(m->bloom = aligned_alloc(64, bloom_bytes)))
        return fail(m, "out of memory");
    memset(m->bloom, 0, bloom_bytes);
    if (sqlite3_open_v2("", &m->side, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        side_fail(m);
        sqlite3_close(m->side);
        m->side = NULL;
        return -1;
    }
    sqlite3_stmt *kept[2] = {NULL, NULL};
    int nkept = 0, bad = 0;
    for (const char *tail = sql; !bad && tail && *tail;) {
        sqlite3_stmt *s = NULL;
        if ((bad = sqlite3_prepare_v2(m->side, tail, -1, &s, &tail) != SQLITE_OK) || !s)
            break; /* (none: only comments and space were left) */
        if (sqlite3_bind_parameter_count(s) > 0 && nkept < 2) {
            kept[nkept++] = s;
            continue;
        }
        int rc = sqlite3_step(s);
        bad = rc != SQLITE_DONE && rc != SQLITE_ROW;
        if (bad)
            side_fail(m); /* (said before the statement goes, with its error) */
        sqlite3_finalize(s);
    }
    if (bad || nkept < 2) {
        if (!bad)
            fail(m, "schema/spill_map.sql lacks its statements");
        else
            side_fail(m);
        sqlite3_finalize(kept[0]), sqlite3_finalize(kept[1]);
        sqlite3_close(m->side);
        m->side = NULL;
        return -1;
    }
    m->get = kept[0], m->put = kept[1];
    return 0;
}

struct spill_key {
    uint64_t prefix, hash;
    const char *p;
    uint32_t len, pad;
    int64_t id;
};

/* The first 8 bytes of a key, big-endian (zeros past its end): keys compare as these first. */
static uint64_t key_prefix(const char *p, size_t len)
{
    uint64_t v = 0;
    for (size_t i = 0; i < 8; i++)
        v = v << 8 | (i < len ? (unsigned char)p[i] : 0);
    return v;
}

static int spill_key_cmp(const void *a, const void *b)
{
    const struct spill_key *x = a, *y = b;
    if (x->prefix != y->prefix)
        return x->prefix < y->prefix ? -1 : 1;
    int c = x->len > 8 && y->len > 8 ? memcmp(x->p + 8, y->p + 8, (x->len < y->len ? x->len : y->len) - 8) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The keys in memory that the table does not hold go there, in key order (SQLite's inserts then walk
 * its index's pages in turn: names that share their beginnings share pages), and memory starts again
 * empty. */
static int spill(struct spill_map *m)
{
    if (!m->side && side_open(m) != 0)
        return -1;
    struct strmap *s = &m->mem;
    if (!m->keys && !(m->keys = malloc((m->max_keys + 1) * sizeof *m->keys)))
        return fail(m, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < s->cap && n <= m->max_keys; i++)
        if (s->hash[i] && !(s->val[i] & 1))
            m->keys[n++] = (struct spill_key){key_prefix(s->arena + s->off[i], s->len[i]), s->hash[i], s->arena + s->off[i],
                                                s->len[i], 0, s->val[i] >> 1};
    qsort(m->keys, n, sizeof *m->keys, spill_key_cmp);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct spill_key *k = &m->keys[i];
        sqlite3_bind_blob(m->put, 1, k->len ? k->p : "", (int)k->len, SQLITE_STATIC);
        sqlite3_bind_int64(m->put, 2, k->id);
        if (sqlite3_step(m->put) != SQLITE_DONE)
            rc = side_fail(m);
        sqlite3_reset(m->put);
        bloom_add(m, k->hash);
    }
    sqlite3_clear_bindings(m->put);
    if (rc != 0)
        return -1;
    m->spilled += (int64_t)n;
    strmap_clear(s);
    if (s->arena_cap > 2 * m->max_bytes) { /* a key larger than the budget passed: its room goes back */
        free(s->arena);
        s->arena = NULL, s->arena_cap = 0;
    }
    return 0;
}

/* Puts key -> v (the stored value) in memory, spilling first when memory is full. */
static int mem_put(struct spill_map *m, const void *key, size_t len, int64_t v)
{
    if (m->mem.count && (m->mem.count >= m->max_keys || m->mem.arena_len + len > m->max_bytes) && spill(m) != 0)
        return -1;
    return strmap_put(&m->mem, key, len, v) == 0 ? 0 : fail(m, "out of memory");
}

/* A key not in memory: looked for in the table when the filter says it may be there. */
static int64_t side_get(struct spill_map *m, const void *key, size_t len)
{
    if (!m->spilled)
        return -1;
    uint64_t h = strmap_hash(key, len);
    if (!bloom_has(m, h))
        return -1;
    m->lookups++;
    sqlite3_bind_blob(m->get, 1, len ? key : "", (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(m->get);
    int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(m->get, 0) : -1;
    sqlite3_reset(m->get);
    sqlite3_clear_bindings(m->get);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return side_fail(m), -2;
    if (id >= 0 && mem_put(m, key, len, id * 2 + 1) != 0)
        return -2;
    return id;
}

int64_t spill_map_get(struct spill_map *m, const void *key, size_t len)
{
    int64_t v = strmap_get(&m->mem, key, len);
    return v >= 0 ? v >> 1 : side_get(m, key, len);
}

int64_t spill_map_get_hinted(struct spill_map *m, const void *key, size_t len, size_t *hint)
{
    int64_t v = strmap_get_hinted(&m->mem, key, len, hint);
    return v >= 0 ? v >> 1 : side_get(m, key, len);
}

int spill_map_put(struct spill_map *m, const void *key, size_t len, int64_t id)
{
    if (len > INT32_MAX)
        return fail(m, "a key too long");
    return mem_put(m, key, len, id * 2);
}

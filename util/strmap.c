/* strmap.c: string -> id hash map used to intern names and find tracks while importing.
 * Word-at-a-time hashing, linear probing, grows at 50% load. Keys live in one arena. */
#include "strmap.h"
#include <stdlib.h>
#include <string.h>

/* 8 bytes at a time (names run to hundreds of bytes: kernel signatures), then the tail; a final
 * mix spreads the bits for the power-of-two table. */
static uint64_t hash_key(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, len - i);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 29;
    return h ? h : 1; /* 0 marks an empty slot */
}

uint64_t strmap_hash(const void *key, size_t len)
{
    return hash_key(key, len);
}

void strmap_init(struct strmap *m)
{
    memset(m, 0, sizeof *m);
}

void strmap_free(struct strmap *m)
{
    free(m->hash);
    free(m->off);
    free(m->len);
    free(m->val);
    free(m->arena);
    strmap_init(m);
}

void strmap_clear(struct strmap *m)
{
    if (m->cap)
        memset(m->hash, 0, m->cap * sizeof *m->hash);
    m->count = 0, m->arena_len = 0;
}

static size_t strmap_find(const struct strmap *m, uint64_t h, const void *key, size_t len)
{
    size_t mask = m->cap - 1, i = h & mask;
    while (m->hash[i]) {
        if (m->hash[i] == h && m->len[i] == len && (len == 0 || memcmp(m->arena + m->off[i], key, len) == 0))
            return i;
        i = (i + 1) & mask;
    }
    return i;
}

int64_t strmap_get(const struct strmap *m, const void *key, size_t len)
{
    if (!m->cap)
        return -1;
    size_t i = strmap_find(m, hash_key(key, len), key, len);
    return m->hash[i] ? m->val[i] : -1;
}

int64_t strmap_get_hinted(const struct strmap *m, const void *key, size_t len, size_t *hint)
{
    size_t i = *hint;
    if (i < m->cap && m->hash[i] && m->len[i] == len && (len == 0 || memcmp(m->arena + m->off[i], key, len) == 0))
        return m->val[i];
    if (!m->cap)
        return -1;
    i = strmap_find(m, hash_key(key, len), key, len);
    if (!m->hash[i])
        return -1;
    *hint = i;
    return m->val[i];
}

static int strmap_grow(struct strmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 256;
    uint64_t *nh = calloc(ncap, sizeof *nh);
    uint32_t *no = malloc(ncap * sizeof *no), *nl = malloc(ncap * sizeof *nl);
    int64_t *nv = malloc(ncap * sizeof *nv);
    if (!nh || !no || !nl || !nv) {
        free(nh), free(no), free(nl), free(nv);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->hash[i])
            continue;
        size_t j = m->hash[i] & (ncap - 1);
        while (nh[j])
            j = (j + 1) & (ncap - 1);
        nh[j] = m->hash[i], no[j] = m->off[i], nl[j] = m->len[i], nv[j] = m->val[i];
    }
    free(m->hash), free(m->off), free(m->len), free(m->val);
    m->hash = nh, m->off = no, m->len = nl, m->val = nv, m->cap = ncap;
    return 0;
}

int strmap_put(struct strmap *m, const void *key, size_t len, int64_t val)
{
    if ((m->count + 1) * 2 > m->cap && strmap_grow(m) != 0)
        return -1;
    if (len > UINT32_MAX || m->arena_len + len > UINT32_MAX)
        return -1;
    if (m->arena_len + len > m->arena_cap) {
        size_t ncap = m->arena_cap ? m->arena_cap : 4096;
        while (ncap < m->arena_len + len)
            ncap *= 2;
        char *na = realloc(m->arena, ncap);
        if (!na)
            return -1;
        m->arena = na, m->arena_cap = ncap;
    }
    uint64_t h = hash_key(key, len);
    size_t i = strmap_find(m, h, key, len);
    if (len)
        memcpy(m->arena + m->arena_len, key, len);
    m->hash[i] = h, m->off[i] = (uint32_t)m->arena_len, m->len[i] = (uint32_t)len, m->val[i] = val;
    m->arena_len += len;
    m->count++;
    return 0;
}

/* event_pack.c: see event_pack.h. A block is its rows one after another, each a byte of NULL flags then
 * its columns as LEB128 varints: the id, start and correlation as the zigzag of their difference from
 * the row before (rows come nearly in id and time order), the launch id as the zigzag of its difference
 * from the row's id, the rest as the zigzag of their value; format 2 then adds the parent id (its
 * difference from the row's id), the self time (its difference from the duration; never NULL) and the
 * launch's start (its difference from the row's start). The flags' top bit is never set. The first row's differences are from 0.
 * A NULL column has no bytes. Differences are taken modulo 2^64, so every int64 round-trips. About 14
 * bytes a row on a Kineto trace, against ~90 in the event table. */
#include "event_pack.h"
#include "ingest.h"
#include <stdlib.h>
#include <string.h>

enum { NULL_CAT = 1, NULL_CORR = 2, NULL_DEVICE = 4, NULL_STREAM = 8, NULL_LAUNCH = 16, NULL_ALL_V1 = 31,
       NULL_PARENT = 32, NULL_LAUNCH_NS = 64, NULL_ALL_V2 = 127 };

#define ROW_MAX (1 + 14 * 10) /* a row's most bytes: the flags and 14 varints of 10 bytes */

static uint64_t zigzag(uint64_t v)
{
    return (v << 1) ^ (uint64_t)-(int64_t)(v >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static unsigned char *put(unsigned char *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *o++ = (unsigned char)v;
    return o;
}

static unsigned char *put_diff(unsigned char *o, int64_t v, int64_t from)
{
    return put(o, zigzag((uint64_t)v - (uint64_t)from));
}

/* Room in b for `need` more bytes (its first: first). 0, or -1 when out of memory. */
static int room(struct tdb_pack_block *b, size_t need, size_t first)
{
    if (b->cap - b->n >= need)
        return 0;
    size_t cap = b->cap ? 2 * b->cap : first;
    unsigned char *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d, b->cap = cap;
    return 0;
}

int tdb_pack_add(struct tdb_pack_block *b, const struct tdb_pack_row *r)
{
    if (room(b, ROW_MAX, (size_t)TDB_PACK_ROWS * 24) != 0)
        return -1;
    unsigned char *o = b->data + b->n;
    const struct tdb_pack_row *p = &b->prev;
    *o++ = (unsigned char)((r->cat_id == TDB_NULL ? NULL_CAT : 0) | (r->correlation == TDB_NULL ? NULL_CORR : 0) |
                           (r->device == TDB_NULL ? NULL_DEVICE : 0) | (r->stream == TDB_NULL ? NULL_STREAM : 0) |
                           (r->launch_id == TDB_NULL ? NULL_LAUNCH : 0) | (r->parent_id == TDB_NULL ? NULL_PARENT : 0) |
                           (r->launch_ns == TDB_NULL ? NULL_LAUNCH_NS : 0));
    o = put_diff(o, r->id, p->id);
    o = put_diff(o, r->kind, 0);
    o = put_diff(o, r->name_id, 0);
    if (r->cat_id != TDB_NULL)
        o = put_diff(o, r->cat_id, 0);
    o = put_diff(o, r->thread_id, 0);
    o = put_diff(o, r->start_ns, p->start_ns);
    o = put_diff(o, r->dur_ns, 0);
    if (r->correlation != TDB_NULL)
        o = put_diff(o, r->correlation, p->correlation == TDB_NULL ? 0 : p->correlation);
    if (r->device != TDB_NULL)
        o = put_diff(o, r->device, 0);
    if (r->stream != TDB_NULL)
        o = put_diff(o, r->stream, 0);
    if (r->launch_id != TDB_NULL)
        o = put_diff(o, r->launch_id, r->id);
    if (r->parent_id != TDB_NULL)
        o = put_diff(o, r->parent_id, r->id);
    o = put_diff(o, r->self_ns, r->dur_ns); /* (never NULL: the event table's self_ns is NOT NULL) */
    if (r->launch_ns != TDB_NULL)
        o = put_diff(o, r->launch_ns, r->start_ns);
    b->n = (size_t)(o - b->data);
    b->rows++;
    b->prev.id = r->id, b->prev.start_ns = r->start_ns;
    if (r->correlation != TDB_NULL)
        b->prev.correlation = r->correlation;
    return 0;
}

/* A block of self-time fixes: each the zigzag of its id's difference from the one before, then of the time. */
int tdb_pack_less_add(struct tdb_pack_block *b, int64_t id, int64_t less)
{
    if (room(b, 20, 4096) != 0) /* (two varints of 10 bytes) */
        return -1;
    unsigned char *o = put_diff(b->data + b->n, id, b->prev.id);
    o = put_diff(o, less, 0);
    b->n = (size_t)(o - b->data);
    b->rows++;
    b->prev.id = id;
    return 0;
}

void tdb_pack_reset(struct tdb_pack_block *b)
{
    b->n = 0, b->rows = 0;
    memset(&b->prev, 0, sizeof b->prev);
    b->prev.correlation = TDB_NULL;
}

void tdb_pack_free(struct tdb_pack_block *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void tdb_pack_read_init(struct tdb_pack_reader *r, const void *data, size_t n, int format)
{
    static const unsigned char none[1] = {0};
    if (!data) /* SQLite gives an empty blob (a stranger's block) as NULL: no rows, and no arithmetic on NULL */
        data = none, n = 0;
    r->p = data, r->end = r->p + n;
    memset(&r->prev, 0, sizeof r->prev);
    r->prev.correlation = TDB_NULL;
    r->format = format;
}

/* A varint: 0, or -1 past the end or over 10 bytes. */
static int get(struct tdb_pack_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p == r->end)
            return -1;
        unsigned char c = *r->p++;
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

static int get_diff(struct tdb_pack_reader *r, int64_t from, int64_t *v)
{
    uint64_t z;
    if (get(r, &z) != 0)
        return -1;
    *v = (int64_t)(unzigzag(z) + (uint64_t)from);
    return 0;
}

int tdb_pack_less_next(struct tdb_pack_reader *r, int64_t *id, int64_t *less)
{
    if (r->p == r->end)
        return 0;
    if (get_diff(r, r->prev.id, id) || get_diff(r, 0, less))
        return -1;
    r->prev.id = *id;
    return 1;
}

int tdb_pack_next(struct tdb_pack_reader *r, struct tdb_pack_row *o)
{
    if (r->p == r->end)
        return 0;
    unsigned flags = *r->p++;
    const struct tdb_pack_row *p = &r->prev;
    if (flags & ~(unsigned)(r->format == TDB_PACK_V2 ? NULL_ALL_V2 : NULL_ALL_V1))
        return -1;
    o->cat_id = o->correlation = o->device = o->stream = o->launch_id = o->parent_id = o->self_ns = o->launch_ns = TDB_NULL;
    if (get_diff(r, p->id, &o->id) || get_diff(r, 0, &o->kind) || get_diff(r, 0, &o->name_id) ||
        (!(flags & NULL_CAT) && get_diff(r, 0, &o->cat_id)) || get_diff(r, 0, &o->thread_id) ||
        get_diff(r, p->start_ns, &o->start_ns) || get_diff(r, 0, &o->dur_ns) ||
        (!(flags & NULL_CORR) && get_diff(r, p->correlation == TDB_NULL ? 0 : p->correlation, &o->correlation)) ||
        (!(flags & NULL_DEVICE) && get_diff(r, 0, &o->device)) || (!(flags & NULL_STREAM) && get_diff(r, 0, &o->stream)) ||
        (!(flags & NULL_LAUNCH) && get_diff(r, o->id, &o->launch_id)) ||
        (!(flags & NULL_PARENT) && r->format == TDB_PACK_V2 && get_diff(r, o->id, &o->parent_id)) ||
        (r->format == TDB_PACK_V2 && get_diff(r, o->dur_ns, &o->self_ns)) ||
        (!(flags & NULL_LAUNCH_NS) && r->format == TDB_PACK_V2 && get_diff(r, o->start_ns, &o->launch_ns)))
        return -1;
    r->prev.id = o->id, r->prev.start_ns = o->start_ns;
    if (o->correlation != TDB_NULL)
        r->prev.correlation = o->correlation;
    return 1;
}

void tdb_pack_stale_add(struct tdb_pack_stale *s, int64_t lo, int64_t hi)
{
    if (s->all)
        return;
    int64_t(*last)[2] = s->n ? &s->v[s->n - 1] : NULL;
    if (last && lo >= (*last)[0] && (lo <= (*last)[1] || lo - 1 == (*last)[1])) {
        if (hi > (*last)[1])
            (*last)[1] = hi;
        return;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        int64_t(*a)[2] = cap <= TDB_PACK_STALE_MAX ? realloc(s->v, cap * sizeof *a) : NULL;
        if (!a) {
            s->all = 1;
            return;
        }
        s->v = a, s->cap = cap;
    }
    s->v[s->n][0] = lo, s->v[s->n][1] = hi;
    s->n++;
}

void tdb_pack_stale_free(struct tdb_pack_stale *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}

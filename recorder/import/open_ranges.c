/* open_ranges.c: the B events waiting for their E, in bounded memory (see open_ranges.h). */
#include "open_ranges.h"
#include "spill_sort.h" /* spill_temp_file */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IO_CHUNK ((size_t)256 << 10) /* bytes read or written at a time */

/* One in memory: its texts (name, cat, args in turn) at arena offset at. */
struct open_slot {
    int64_t thread_id, start_ns;
    size_t offset, at, name_n, cat_n, args_n;
    int kind, has_cat;
};

/* One in the file: this header, then its texts. */
struct spill_head {
    int64_t thread_id, start_ns;
    uint64_t offset, name_n, cat_n, args_n;
    uint64_t below, thread_below; /* the record under it, its track's previous one there: + 1; 0: none */
    int32_t kind, has_cat, taken, pad;
};

static size_t slot_bytes(const struct open_slot *s)
{
    return s->name_n + s->cat_n + s->args_n;
}

/* Where a slot's texts begin. */
static const char *slot_texts(const struct open_ranges *o, const struct open_slot *s)
{
    return o->arena.p ? o->arena.p + s->at : "";
}

static uint64_t rec_bytes(const struct spill_head *h)
{
    return sizeof *h + h->name_n + h->cat_n + h->args_n;
}

static int fail(struct open_ranges *o, const char *what, int e)
{
    if (e == ENOMEM)
        fprintf(o->err, "tracedb: out of memory\n");
    else
        fprintf(o->err, "tracedb: cannot %s a temporary file in %s (B events waiting for their E): %s\n", what,
                o->dir, strerror(e));
    return -1;
}

static int write_at(struct open_ranges *o, const void *p, size_t n, uint64_t at)
{
    const char *q = p;
    while (n) {
        ssize_t w = pwrite(o->fd, q, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return fail(o, "write", w < 0 ? errno : ENOSPC);
        q += w, n -= (size_t)w, at += (uint64_t)w;
    }
    return 0;
}

static int read_at(struct open_ranges *o, void *p, size_t n, uint64_t at)
{
    char *q = p;
    while (n) {
        ssize_t r = pread(o->fd, q, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return fail(o, "read", r < 0 ? errno : EIO);
        q += r, n -= (size_t)r, at += (uint64_t)r;
    }
    return 0;
}

static uint64_t last_of(const struct open_ranges *o, int64_t thread)
{
    return (uint64_t)thread < o->last_n ? o->last[thread] : 0;
}

static int set_last(struct open_ranges *o, int64_t thread, uint64_t v)
{
    size_t t = (size_t)thread;
    if (t >= o->last_n) {
        if (!v)
            return 0;
        size_t n = o->last_n ? o->last_n : 64;
        while (n <= t)
            n *= 2;
        uint64_t *p = realloc(o->last, n * sizeof *p);
        if (!p)
            return fail(o, NULL, ENOMEM);
        memset(p + o->last_n, 0, (n - o->last_n) * sizeof *p);
        o->last = p, o->last_n = n;
    }
    o->last[t] = v;
    return 0;
}

/* The io buffer back to a modest size once a large record has passed through it. */
static void io_done(struct open_ranges *o)
{
    o->io.n = 0;
    if (o->io.cap > 4 * IO_CHUNK)
        buf_free(&o->io);
}

void open_ranges_init(struct open_ranges *o, size_t budget, const char *dir, FILE *err)
{
    memset(o, 0, sizeof *o);
    o->budget = budget, o->dir = dir && *dir ? dir : ".", o->err = err, o->fd = -1;
}

/* The texts of the ranges in memory moved down over the holes left by those taken from under others. */
static void compact(struct open_ranges *o)
{
    size_t at = 0;
    for (size_t i = 0; i < o->n; i++) {
        struct open_slot *s = &o->mem[i];
        size_t b = slot_bytes(s);
        if (s->at != at)
            memmove(o->arena.p + at, o->arena.p + s->at, b);
        s->at = at, at += b;
    }
    o->arena.n = o->live = at;
}

/* The oldest ranges in memory go on top of the file until memory holds at most target bytes (slots and
 * texts; compacted before). */
static int spill_out(struct open_ranges *o, size_t target)
{
    if (o->fd < 0 && (o->fd = spill_temp_file(o->dir, "open")) < 0)
        return fail(o, "create", errno);
    size_t k = 0, usage = o->n * sizeof *o->mem + o->live;
    uint64_t at = o->top; /* where io's bytes go */
    o->io.n = 0;
    while (k < o->n && usage > target) {
        const struct open_slot *s = &o->mem[k++];
        struct spill_head h = {s->thread_id, s->start_ns, s->offset, s->name_n, s->cat_n, s->args_n,
                               o->head, last_of(o, s->thread_id), s->kind, s->has_cat, 0, 0};
        uint64_t pos = at + o->io.n;
        if (buf_add(&o->io, &h, sizeof h) != 0 || buf_add(&o->io, slot_texts(o, s), slot_bytes(s)) != 0)
            return fail(o, NULL, ENOMEM);
        if (set_last(o, s->thread_id, pos + 1) != 0)
            return -1;
        o->head = pos + 1, o->spilled++;
        usage -= sizeof *s + slot_bytes(s);
        if (o->io.n >= IO_CHUNK) {
            if (write_at(o, o->io.p, o->io.n, at) != 0)
                return -1;
            at += o->io.n, o->io.n = 0;
        }
    }
    if (o->io.n && write_at(o, o->io.p, o->io.n, at) != 0)
        return -1;
    o->top = at + o->io.n;
    io_done(o);
    memmove(o->mem, o->mem + k, (o->n - k) * sizeof *o->mem);
    o->n -= k;
    compact(o);
    return 0;
}

int open_ranges_push(struct open_ranges *o, const struct open_range *r)
{
    size_t bytes = r->name.n + r->cat.n + r->args.n, need = sizeof *o->mem + bytes;
    if (o->n * sizeof *o->mem + o->arena.n + need > o->budget) {
        compact(o);
        /* down to half the budget: the next compaction is half a budget of pushes away */
        size_t half = o->budget / 2;
        if (o->n && o->n * sizeof *o->mem + o->arena.n + need > half &&
            spill_out(o, half > need ? half - need : 0) != 0)
            return -1;
    }
    if (o->n == o->cap) {
        size_t ncap = o->cap ? o->cap * 2 : 16;
        struct open_slot *m = realloc(o->mem, ncap * sizeof *m);
        if (!m)
            return fail(o, NULL, ENOMEM);
        o->mem = m, o->cap = ncap;
    }
    struct open_slot *s = &o->mem[o->n];
    *s = (struct open_slot){r->thread_id, r->start_ns, r->offset, o->arena.n, r->name.n, r->cat.n, r->args.n,
                            r->kind, r->has_cat};
    if (buf_add(&o->arena, r->name.p, r->name.n) != 0 || buf_add(&o->arena, r->cat.p, r->cat.n) != 0 ||
        buf_add(&o->arena, r->args.p, r->args.n) != 0) {
        o->arena.n = s->at;
        return fail(o, NULL, ENOMEM);
    }
    o->n++, o->live += bytes;
    return 0;
}

static void range_of(struct open_range *r, const struct spill_head *h, const char *p)
{
    *r = (struct open_range){h->thread_id, h->start_ns, h->offset, h->kind, h->has_cat, {p, h->name_n},
                             {p + h->name_n, h->cat_n}, {p + h->name_n + h->cat_n, h->args_n}};
}

/* Memory is empty: the records at the top of the file, about half the budget of them (the topmost at
 * least), come back to it in file order, leaving their tracks' chains there. */
static int reload(struct open_ranges *o)
{
    uint64_t want = o->budget / 2, from = o->top > want ? o->top - want : 0;
    if (o->head - 1 < from)
        from = o->head - 1;
    size_t len = (size_t)(o->top - from);
    o->io.n = 0;
    if (buf_reserve(&o->io, len) != 0)
        return fail(o, NULL, ENOMEM);
    if (read_at(o, o->io.p, len, from) != 0)
        return -1;
    struct spill_head h;
    uint64_t at = o->head, low = o->head;
    size_t k = 0;
    while (at && at - 1 >= from) { /* down the records wholly read */
        memcpy(&h, o->io.p + (at - 1 - from), sizeof h);
        if (!h.taken) {
            if (set_last(o, h.thread_id, h.thread_below) != 0)
                return -1;
            o->spilled--, k++;
        }
        low = at, at = h.below;
    }
    if (k > o->cap) {
        struct open_slot *m = realloc(o->mem, k * sizeof *m);
        if (!m)
            return fail(o, NULL, ENOMEM);
        o->mem = m, o->cap = k;
    }
    o->arena.n = o->live = 0;
    for (uint64_t pos = low - 1; pos < o->top; pos += rec_bytes(&h)) { /* up them, in file order */
        memcpy(&h, o->io.p + (pos - from), sizeof h);
        if (h.taken)
            continue;
        struct open_range r;
        range_of(&r, &h, o->io.p + (pos - from) + sizeof h);
        struct open_slot *s = &o->mem[o->n++];
        *s = (struct open_slot){r.thread_id, r.start_ns, r.offset, o->arena.n, r.name.n, r.cat.n, r.args.n, r.kind, r.has_cat};
        if (buf_add(&o->arena, r.name.p, slot_bytes(s)) != 0)
            return fail(o, NULL, ENOMEM);
        o->live += slot_bytes(s);
    }
    o->top = low - 1, o->head = at;
    if (!o->spilled)
        o->top = o->head = 0; /* what is left there was all taken */
    io_done(o);
    return 0;
}

int open_ranges_find(struct open_ranges *o, int64_t thread, struct open_range *r)
{
    if (o->n == 0 && o->spilled && reload(o) != 0)
        return -1;
    for (size_t i = o->n; i-- > 0;) {
        const struct open_slot *s = &o->mem[i];
        if (s->thread_id != thread)
            continue;
        const char *p = slot_texts(o, s);
        *r = (struct open_range){s->thread_id, s->start_ns, s->offset, s->kind, s->has_cat, {p, s->name_n},
                                 {p + s->name_n, s->cat_n}, {p + s->name_n + s->cat_n, s->args_n}};
        o->found = (int64_t)i;
        return 1;
    }
    uint64_t at = last_of(o, thread);
    if (!at)
        return 0;
    struct spill_head h;
    if (read_at(o, &h, sizeof h, at - 1) != 0)
        return -1;
    size_t bytes = (size_t)(h.name_n + h.cat_n + h.args_n);
    o->io.n = 0;
    if (buf_reserve(&o->io, bytes + 1) != 0)
        return fail(o, NULL, ENOMEM);
    if (bytes && read_at(o, o->io.p, bytes, at - 1 + sizeof h) != 0)
        return -1;
    range_of(r, &h, o->io.p);
    o->found = -(int64_t)at;
    o->found_thread = h.thread_id, o->found_below = h.below, o->found_thread_below = h.thread_below;
    return 1;
}

int open_ranges_drop(struct open_ranges *o)
{
    if (o->found >= 0) {
        size_t i = (size_t)o->found;
        o->live -= slot_bytes(&o->mem[i]);
        memmove(&o->mem[i], &o->mem[i + 1], (o->n - i - 1) * sizeof *o->mem);
        if (i == --o->n) /* the top: its texts' room is free again (a hole under others waits for compact) */
            o->arena.n = o->n ? o->mem[o->n - 1].at + slot_bytes(&o->mem[o->n - 1]) : 0;
        return 0;
    }
    uint64_t at = (uint64_t)-o->found; /* the record, + 1 */
    if (set_last(o, o->found_thread, o->found_thread_below) != 0)
        return -1;
    o->spilled--;
    if (!o->spilled) {
        o->top = o->head = 0; /* what is left there was all taken */
        return 0;
    }
    if (at != o->head) { /* under others: marked, passed over when they are gone */
        int32_t taken = 1;
        return write_at(o, &taken, sizeof taken, at - 1 + offsetof(struct spill_head, taken));
    }
    o->top = at - 1, o->head = o->found_below;
    for (struct spill_head h; o->head; o->top = o->head - 1, o->head = h.below) { /* the taken ones under it */
        if (read_at(o, &h, sizeof h, o->head - 1) != 0)
            return -1;
        if (!h.taken)
            break;
    }
    return 0;
}

/* Reads the file's bytes [at, at + len) into io, which then holds them from *base. */
static int fill(struct open_ranges *o, uint64_t at, uint64_t len, uint64_t *base)
{
    o->io.n = 0;
    if (buf_reserve(&o->io, (size_t)len) != 0)
        return fail(o, NULL, ENOMEM);
    if (read_at(o, o->io.p, (size_t)len, at) != 0)
        return -1;
    o->io.n = (size_t)len, *base = at;
    return 0;
}

int open_ranges_each(struct open_ranges *o, int (*each)(void *ctx, const struct open_range *r), void *ctx)
{
    int rc = 0;
    uint64_t base = 0, pos = 0;
    o->io.n = 0;
    while (rc == 0 && pos < o->top) { /* the file's, up from the bottom */
        uint64_t chunk = o->top - pos < IO_CHUNK ? o->top - pos : IO_CHUNK;
        struct spill_head h;
        if (pos + sizeof h > base + o->io.n && fill(o, pos, chunk, &base) != 0)
            return -1;
        memcpy(&h, o->io.p + (pos - base), sizeof h);
        if (pos + rec_bytes(&h) > base + o->io.n && fill(o, pos, rec_bytes(&h) > chunk ? rec_bytes(&h) : chunk, &base) != 0)
            return -1;
        struct open_range r;
        range_of(&r, &h, o->io.p + (pos - base) + sizeof h);
        if (!h.taken)
            rc = each(ctx, &r);
        pos += rec_bytes(&h);
    }
    for (size_t i = 0; rc == 0 && i < o->n; i++) { /* then memory's */
        const struct open_slot *s = &o->mem[i];
        const char *p = slot_texts(o, s);
        struct open_range r = {s->thread_id, s->start_ns, s->offset, s->kind, s->has_cat, {p, s->name_n},
                               {p + s->name_n, s->cat_n}, {p + s->name_n + s->cat_n, s->args_n}};
        rc = each(ctx, &r);
    }
    o->n = o->arena.n = o->live = o->spilled = 0;
    o->top = o->head = 0;
    if (o->last)
        memset(o->last, 0, o->last_n * sizeof *o->last);
    io_done(o);
    return rc;
}

void open_ranges_free(struct open_ranges *o)
{
    if (o->fd >= 0)
        close(o->fd);
    free(o->mem);
    free(o->last);
    buf_free(&o->arena);
    buf_free(&o->io);
}

/* spill_sort.c: external sort of fixed-size records in bounded memory (see spill_sort.h). A full
 * buffer is sorted and written by a background thread while the caller fills a second one (each a
 * third of the budget; the third holds the sorted run); the end merges the runs through a binary heap
 * of cursors, each reading its run in chunks. A buffer is sorted as patience sorting does where its
 * records come as a few interleaved ascending sequences (a trace's tracks, its launches and their
 * work), by qsort otherwise. */
#define _GNU_SOURCE
#include "spill_sort.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct run {
    uint64_t off, n; /* byte offset in the file, records */
};

struct cursor {
    char *buf;        /* a chunk of the run (file runs), or the in-memory run itself */
    size_t have, pos; /* records in buf, next record */
    uint64_t off, left; /* file runs: where the rest starts, records not read yet */
};

struct spill_sort {
    size_t rec, cap;  /* record size; records the buffer may hold */
    int (*cmp)(const void *, const void *);
    char *dir;
    char *buf;
    size_t n, alloc;  /* records in buf, records allocated */
    uint64_t count;
    int fd;
    uint64_t file_end;
    struct run *runs;
    size_t nruns, runs_cap;
    struct cursor *cur; /* nruns + 1 cursors while merging (the last: the buffer) */
    size_t *heap, nheap;
    size_t mem_pos;     /* no file runs: next record of buf */
    int pending;        /* the heap's top was returned and is still to be consumed */
    int merging;
    char *spare;        /* the other buffer: being written, or free */
    char *sorted;       /* the run sorted out of spare (or buf), as written */
    uint32_t *next;     /* per record of the buffer being sorted: the next on its pile */
    pthread_t writer;   /* sorts and writes spare as a run */
    int writing, write_err;
    size_t wn;          /* records in spare */
    uint64_t woff;      /* where its run goes */
    char err[320];
};

static int fail(struct spill_sort *s, const char *what, int e)
{
    if (!s->err[0])
        snprintf(s->err, sizeof s->err, "%s a temporary sort file in %s: %s", what, s->dir, strerror(e));
    return -1;
}

int spill_temp_file(const char *dir, const char *what)
{
    size_t n = strlen(dir) + strlen(what) + 32;
    char *path = malloc(n);
    if (!path) {
        errno = ENOMEM;
        return -1;
    }
    snprintf(path, n, "%s/.tracedb-%s-XXXXXX", dir, what);
    int fd = mkstemp(path), e = errno;
    if (fd >= 0)
        unlink(path); /* gone when closed, whatever happens */
    free(path);
    errno = e;
    return fd;
}

struct spill_sort *spill_sort_new(size_t rec_size, size_t budget, int (*cmp)(const void *, const void *), const char *dir)
{
    struct spill_sort *s = calloc(1, sizeof *s);
    if (!s || !(s->dir = strdup(dir && *dir ? dir : "."))) {
        free(s);
        return NULL;
    }
    s->rec = rec_size, s->cmp = cmp, s->fd = -1;
    s->cap = budget / 3 / rec_size < 16 ? 16 : budget / 3 / rec_size; /* three buffers */
    return s;
}

static int write_all(int fd, const char *p, size_t n, uint64_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        p += w, n -= (size_t)w, off += (uint64_t)w;
    }
    return 0;
}

/* At most this many piles; more, and the buffer is sorted by comparison. */
#define MAX_PILES 64

static void pile_down(const struct spill_sort *s, const char *base, const uint32_t *cur, uint32_t *heap, size_t nh,
                      size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < nh && s->cmp(base + (size_t)cur[heap[l]] * s->rec, base + (size_t)cur[heap[m]] * s->rec) < 0)
            m = l;
        if (l + 1 < nh && s->cmp(base + (size_t)cur[heap[l + 1]] * s->rec, base + (size_t)cur[heap[m]] * s->rec) < 0)
            m = l + 1;
        if (m == i)
            return;
        uint32_t t = heap[i];
        heap[i] = heap[m], heap[m] = t, i = m;
    }
}

/* The n records at base in order: the sorted records, at base or at out (room for n records). Each
 * record goes onto the pile whose last record is the greatest not above it (the piles' last records
 * stay in order: found by halves), a new pile when it is below them all; the piles are merged into
 * out. Past MAX_PILES piles (no few ascending sequences), or without room for the links, qsort in
 * place. */
static const char *sort_records(struct spill_sort *s, char *base, size_t n, char *out)
{
    size_t rec = s->rec;
    uint32_t head[MAX_PILES], tail[MAX_PILES], np = 0;
    if (!out || n >= UINT32_MAX || (!s->next && !(s->next = malloc((s->cap + 1) * sizeof *s->next)))) {
        qsort(base, n, rec, s->cmp);
        return base;
    }
    uint32_t *next = s->next;
    for (size_t i = 0; i < n; i++) {
        const char *r = base + i * rec;
        uint32_t lo = 0, hi = np; /* piles whose last record is not above r: the first lo */
        if (np && s->cmp(base + (size_t)tail[np - 1] * rec, r) <= 0)
            lo = np; /* (the usual case: at or above every pile) */
        else
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (s->cmp(base + (size_t)tail[mid] * rec, r) <= 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        next[i] = UINT32_MAX;
        if (lo > 0) {
            next[tail[lo - 1]] = (uint32_t)i, tail[lo - 1] = (uint32_t)i;
            continue;
        }
        if (np == MAX_PILES) {
            qsort(base, n, rec, s->cmp);
            return base;
        }
        memmove(head + 1, head, np * sizeof *head), memmove(tail + 1, tail, np * sizeof *tail);
        head[0] = tail[0] = (uint32_t)i, np++;
    }
    if (np <= 1)
        return base; /* in order already */
    uint32_t heap[MAX_PILES], nh = np;
    for (uint32_t p = 0; p < np; p++)
        heap[p] = p;
    for (size_t i = nh / 2; i-- > 0;)
        pile_down(s, base, head, heap, nh, i);
    for (size_t k = 0; k < n; k++) { /* head[p]: pile p's next record */
        uint32_t p = heap[0];
        memcpy(out + k * rec, base + (size_t)head[p] * rec, rec);
        head[p] = next[head[p]];
        if (head[p] == UINT32_MAX)
            heap[0] = heap[--nh];
        if (nh)
            pile_down(s, base, head, heap, nh, 0);
    }
    return out;
}

static void *write_run(void *arg)
{
    struct spill_sort *s = arg;
    const char *run = sort_records(s, s->spare, s->wn, s->sorted);
    s->write_err = write_all(s->fd, run, s->wn * s->rec, s->woff);
    return NULL;
}

/* Waits for the run being written. 0, or -1 when it failed. */
static int join_writer(struct spill_sort *s)
{
    if (!s->writing)
        return 0;
    pthread_join(s->writer, NULL);
    s->writing = 0;
    return s->write_err ? fail(s, "cannot write", s->write_err) : 0;
}

/* Hands the full buffer to the writer thread (sorted there, appended to the file as a run) and
 * takes the other one. */
static int spill(struct spill_sort *s)
{
    if (join_writer(s) != 0)
        return -1;
    if (s->fd < 0 && (s->fd = spill_temp_file(s->dir, "sort")) < 0)
        return fail(s, "cannot create", errno);
    if (s->nruns == s->runs_cap) {
        size_t ncap = s->runs_cap ? s->runs_cap * 2 : 16;
        struct run *r = realloc(s->runs, ncap * sizeof *r);
        if (!r)
            return fail(s, "out of memory for", ENOMEM);
        s->runs = r, s->runs_cap = ncap;
    }
    if (!s->spare && !(s->spare = malloc(s->cap * s->rec)))
        return fail(s, "out of memory for", ENOMEM);
    if (!s->sorted)
        s->sorted = malloc(s->cap * s->rec); /* (without it, qsort in place) */
    char *full = s->buf;
    s->buf = s->spare, s->spare = full;
    s->wn = s->n, s->woff = s->file_end, s->write_err = 0;
    s->runs[s->nruns++] = (struct run){s->file_end, s->n};
    s->file_end += (uint64_t)s->n * s->rec;
    s->n = 0;
    if (pthread_create(&s->writer, NULL, write_run, s) == 0) {
        s->writing = 1;
        return 0;
    }
    write_run(s); /* no thread: here */
    return s->write_err ? fail(s, "cannot write", s->write_err) : 0;
}

void *spill_sort_push(struct spill_sort *s)
{
    if (s->err[0] || s->merging)
        return NULL;
    if (s->n == s->alloc) {
        if (s->alloc == s->cap) {
            if (spill(s) != 0)
                return NULL;
        } else {
            size_t na = s->alloc ? s->alloc * 2 : 2048;
            if (na > s->cap)
                na = s->cap;
            char *b = realloc(s->buf, na * s->rec);
            if (!b) {
                fail(s, "out of memory for", ENOMEM);
                return NULL;
            }
            s->buf = b, s->alloc = na;
        }
    }
    s->count++;
    return s->buf + s->n++ * s->rec;
}

static const void *cur_rec(const struct spill_sort *s, size_t c)
{
    return s->cur[c].buf + s->cur[c].pos * s->rec;
}

static int heap_less(const struct spill_sort *s, size_t a, size_t b)
{
    int c = s->cmp(cur_rec(s, s->heap[a]), cur_rec(s, s->heap[b]));
    return c < 0 || (c == 0 && s->heap[a] < s->heap[b]); /* ties: earlier runs first */
}

static void heap_down(struct spill_sort *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < s->nheap && heap_less(s, l, m))
            m = l;
        if (l + 1 < s->nheap && heap_less(s, l + 1, m))
            m = l + 1;
        if (m == i)
            return;
        size_t t = s->heap[i];
        s->heap[i] = s->heap[m], s->heap[m] = t;
        i = m;
    }
}

/* Reads the next chunk of file run c; 0 when it has records, 1 at its end, -1 on error. */
static int refill(struct spill_sort *s, size_t c, size_t chunk)
{
    struct cursor *k = &s->cur[c];
    if (!k->left)
        return 1;
    size_t want = k->left < chunk ? (size_t)k->left : chunk, bytes = want * s->rec, got = 0;
    while (got < bytes) {
        ssize_t r = pread(s->fd, k->buf + got, bytes - got, (off_t)(k->off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return fail(s, "cannot read", r < 0 ? errno : EIO);
        got += (size_t)r;
    }
    k->off += bytes, k->left -= want, k->have = want, k->pos = 0;
    return 0;
}

static size_t chunk_records(const struct spill_sort *s)
{
    size_t c = s->cap / (2 * (s->nruns + 1));
    return c < 64 ? 64 : c;
}

int spill_sort_done(struct spill_sort *s)
{
    if (join_writer(s) != 0 || s->err[0])
        return -1;
    free(s->spare); /* the merge's chunks take its place */
    s->spare = NULL;
    if (s->n) {
        char *out = s->sorted ? s->sorted : malloc(s->n * s->rec);
        if (sort_records(s, s->buf, s->n, out) == out) { /* the sorted copy becomes the buffer */
            char *b = s->buf;
            s->buf = out, out = b;
            s->alloc = s->sorted ? s->cap : s->n;
        }
        free(out);
    }
    s->sorted = NULL;
    free(s->next);
    s->next = NULL;
    s->merging = 1, s->mem_pos = 0;
    if (!s->nruns)
        return 0;
    size_t chunk = chunk_records(s);
    s->cur = calloc(s->nruns + 1, sizeof *s->cur);
    s->heap = malloc((s->nruns + 1) * sizeof *s->heap);
    if (!s->cur || !s->heap)
        return fail(s, "out of memory for", ENOMEM);
    s->nheap = 0;
    for (size_t i = 0; i < s->nruns; i++) {
        s->cur[i] = (struct cursor){malloc(chunk * s->rec), 0, 0, s->runs[i].off, s->runs[i].n};
        if (!s->cur[i].buf)
            return fail(s, "out of memory for", ENOMEM);
        int r = refill(s, i, chunk);
        if (r < 0)
            return -1;
        if (r == 0)
            s->heap[s->nheap++] = i;
    }
    s->cur[s->nruns] = (struct cursor){s->buf, s->n, 0, 0, 0};
    if (s->n)
        s->heap[s->nheap++] = s->nruns;
    for (size_t i = s->nheap / 2; i-- > 0;)
        heap_down(s, i);
    return 0;
}

const void *spill_sort_next(struct spill_sort *s)
{
    if (s->err[0] || !s->merging)
        return NULL;
    if (!s->nruns)
        return s->mem_pos < s->n ? s->buf + s->mem_pos++ * s->rec : NULL;
    if (!s->nheap)
        return NULL;
    if (s->pending) { /* the record returned last is consumed only now: its pointer stayed valid */
        size_t c = s->heap[0];
        struct cursor *k = &s->cur[c];
        int r = ++k->pos < k->have ? 0 : c == s->nruns ? 1 : refill(s, c, chunk_records(s));
        if (r < 0)
            return NULL;
        if (r > 0)
            s->heap[0] = s->heap[--s->nheap];
        if (s->nheap)
            heap_down(s, 0);
    }
    s->pending = s->nheap > 0;
    return s->nheap ? cur_rec(s, s->heap[0]) : NULL;
}

void spill_sort_reset(struct spill_sort *s)
{
    join_writer(s);
    if (s->cur) {
        for (size_t i = 0; i < s->nruns; i++)
            free(s->cur[i].buf);
        free(s->cur);
    }
    free(s->heap);
    s->cur = NULL, s->heap = NULL, s->nheap = 0;
    s->n = 0, s->count = 0, s->nruns = 0, s->file_end = 0, s->merging = 0, s->mem_pos = 0, s->pending = 0;
    if (s->fd >= 0 && ftruncate(s->fd, 0) != 0)
        fail(s, "cannot truncate", errno);
}

const char *spill_sort_error(const struct spill_sort *s)
{
    return s->err[0] ? s->err : NULL;
}

uint64_t spill_sort_count(const struct spill_sort *s)
{
    return s->count;
}

size_t spill_sort_runs(const struct spill_sort *s)
{
    return s->nruns;
}

void spill_sort_free(struct spill_sort *s)
{
    if (!s)
        return;
    spill_sort_reset(s);
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    free(s->spare);
    free(s->sorted);
    free(s->next);
    free(s->runs);
    free(s->dir);
    free(s);
}

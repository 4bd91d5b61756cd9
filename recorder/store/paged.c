/* paged.c: arrays of records in bounded memory, their pages beyond a budget in a temporary file (see
 * paged.h). */
#include "paged.h"
#include "spill_sort.h" /* spill_temp_file */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int paged_file_init(struct paged_file *f, const char *dir, size_t slot)
{
    memset(f, 0, sizeof *f);
    f->fd = -1, f->slot = slot ? slot : 1;
    f->dir = strdup(dir && *dir ? dir : ".");
    return f->dir ? 0 : -1;
}

void paged_file_free(struct paged_file *f)
{
    if (f->dir && f->fd >= 0) /* (a file never made ready is all zero: fd 0 is not its) */
        close(f->fd);
    free(f->dir);
    free(f->free);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int paged_file_error(const struct paged_file *f)
{
    return f->err;
}

static int file_fail(struct paged_file *f, int e)
{
    if (!f->err)
        f->err = e ? e : EIO;
    return -1;
}

static int write_at(struct paged_file *f, const char *p, size_t n, uint64_t at)
{
    while (n) {
        ssize_t w = pwrite(f->fd, p, n, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return file_fail(f, w < 0 ? errno : ENOSPC);
        p += w, n -= (size_t)w, at += (uint64_t)w;
    }
    return 0;
}

static int read_at(struct paged_file *f, char *p, size_t n, uint64_t at)
{
    while (n) {
        ssize_t r = pread(f->fd, p, n, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return file_fail(f, r < 0 ? errno : EIO);
        p += r, n -= (size_t)r, at += (uint64_t)r;
    }
    return 0;
}

/* A slot given back (its page forgotten): kept for the next page written (when there is no room to
 * keep it, the file only grows). */
static void give_slot(struct paged_file *f, uint64_t slot)
{
    if (f->nfree == f->free_cap) {
        size_t cap = f->free_cap ? 2 * f->free_cap : 64;
        uint64_t *p = realloc(f->free, cap * sizeof *p);
        if (!p)
            return;
        f->free = p, f->free_cap = cap;
    }
    f->free[f->nfree++] = slot;
}

void paged_init(struct paged *a, struct paged_file *f, size_t rec, size_t resident_bytes)
{
    memset(a, 0, sizeof *a);
    a->file = f, a->rec = rec ? rec : 1;
    while (((size_t)2 << a->shift) * a->rec <= f->slot)
        a->shift++;
    a->mask = ((size_t)1 << a->shift) - 1;
    a->max_resident = resident_bytes / (a->rec << a->shift);
    if (a->max_resident < 2)
        a->max_resident = 2;
}

void paged_free(struct paged *a)
{
    for (size_t p = 0; p < a->npages; p++)
        free(a->pages[p].mem);
    free(a->pages);
    free(a->resident);
    free(a->spare);
    struct paged_file *f = a->file;
    memset(a, 0, sizeof *a);
    a->file = f;
}

static size_t page_bytes(const struct paged *a)
{
    return a->rec << a->shift;
}

/* Writes page q out and takes its memory. NULL when it could not be written. */
static char *evict(struct paged *a, size_t q)
{
    struct paged_page *pg = &a->pages[q];
    struct paged_file *f = a->file;
    if (f->fd < 0 && (f->fd = spill_temp_file(f->dir, "paged")) < 0) {
        file_fail(f, errno);
        return NULL;
    }
    if (!pg->slot)
        pg->slot = (f->nfree ? f->free[--f->nfree] : f->slots++) + 1;
    if (write_at(f, pg->mem, page_bytes(a), (pg->slot - 1) * (uint64_t)f->slot) != 0)
        return NULL;
    a->writes++, f->writes++;
    char *mem = pg->mem;
    pg->mem = NULL;
    return mem;
}

/* Memory for page p, to join the resident pages: spare or new while there is room, else the page the
 * clock finds unused longest (never the latest asked for), written out. */
static char *page_memory(struct paged *a, size_t p)
{
    char *mem;
    if (a->nresident < a->max_resident) {
        if (!a->resident && !(a->resident = malloc(a->max_resident * sizeof *a->resident)))
            return NULL;
        mem = a->spare ? a->spare : malloc(page_bytes(a));
        if (!mem)
            return NULL;
        a->spare = NULL;
        a->resident[a->nresident++] = p;
        return mem;
    }
    for (;;) { /* (two passes at most: the first clears every bit but the latest page's) */
        size_t j = a->hand, q = a->resident[j];
        a->hand = (a->hand + 1) % a->nresident;
        if (q == a->last)
            continue;
        if (a->pages[q].ref) {
            a->pages[q].ref = 0;
            continue;
        }
        if (!(mem = evict(a, q)))
            return NULL;
        a->resident[j] = p;
        return mem;
    }
}

void *paged_miss(struct paged *a, size_t i)
{
    struct paged_file *f = a->file;
    size_t p = i >> a->shift;
    if (f->err)
        return NULL;
    if (p >= a->npages) {
        if (p >= a->pages_cap) {
            size_t cap = a->pages_cap ? a->pages_cap : 16;
            while (cap <= p)
                cap *= 2;
            struct paged_page *n = realloc(a->pages, cap * sizeof *n);
            if (!n) {
                file_fail(f, ENOMEM);
                return NULL;
            }
            memset(n + a->pages_cap, 0, (cap - a->pages_cap) * sizeof *n);
            a->pages = n, a->pages_cap = cap;
        }
        a->npages = p + 1;
    }
    char *mem = page_memory(a, p);
    if (!mem) {
        file_fail(f, ENOMEM);
        return NULL;
    }
    struct paged_page *pg = &a->pages[p];
    if (!pg->slot)
        memset(mem, 0, page_bytes(a));
    else if (read_at(f, mem, page_bytes(a), (pg->slot - 1) * (uint64_t)f->slot) != 0) {
        /* (the page stays on disk; its memory is lost to the array: the file has failed for good) */
        for (size_t j = 0; j < a->nresident; j++)
            if (a->resident[j] == p)
                a->resident[j] = a->resident[--a->nresident];
        a->hand = 0;
        free(mem);
        return NULL;
    } else
        a->reads++;
    pg->mem = mem, pg->ref = 1, a->last = p;
    return mem + (i & a->mask) * a->rec;
}

void paged_truncate(struct paged *a, size_t n)
{
    size_t first = (n + a->mask) >> a->shift; /* the first page wholly past n */
    for (size_t p = first; p < a->npages; p++) {
        struct paged_page *pg = &a->pages[p];
        if (pg->mem) {
            for (size_t j = 0; j < a->nresident; j++)
                if (a->resident[j] == p) {
                    a->resident[j] = a->resident[--a->nresident];
                    break;
                }
            if (!a->spare)
                a->spare = pg->mem;
            else
                free(pg->mem);
        }
        if (pg->slot)
            give_slot(a->file, pg->slot - 1);
        memset(pg, 0, sizeof *pg);
    }
    if (first < a->npages) {
        a->npages = first;
        if (a->hand >= a->nresident)
            a->hand = 0;
    }
}

size_t paged_resident_bytes(const struct paged *a)
{
    return (a->nresident + (a->spare != NULL)) * page_bytes(a);
}

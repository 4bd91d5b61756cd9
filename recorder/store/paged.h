/* paged.h: an array of fixed-size records indexed from 0, in bounded memory: pages of records, at most
 * a given number of bytes of them in memory, the others in an unlinked temporary file beside the
 * database (spill_temp_file), read back when asked for again; the page evicted is the one a clock finds
 * unused longest. What grows with a trace's names or its nesting (per-name sums, the
 * nesting's stacks) costs disk beyond that, not memory; an array that stays small never touches the
 * disk. Arrays of one owner may share a file (struct paged_file: a slot per page written there).
 * Not thread-safe; no allocation on a hit. */
#ifndef TDB_PAGED_H
#define TDB_PAGED_H
#include <stddef.h>
#include <stdint.h>

struct paged_file {
    int fd;            /* -1 until the first page is written */
    char *dir;         /* where the file goes */
    size_t slot;       /* bytes of a slot: one page of any array on the file */
    uint64_t slots;    /* slots made */
    uint64_t *free;    /* slots given back, to be used again */
    size_t nfree, free_cap;
    int err;           /* errno of the first failure (ENOMEM, ENOSPC, ...), 0 while none */
    uint64_t writes;   /* pages written, every array's */
};

struct paged_page {
    char *mem;         /* its records in memory, NULL when not */
    uint64_t slot;     /* its slot in the file + 1, 0 when never written */
    uint32_t ref;      /* the clock's bit: used since the hand last passed */
    uint32_t pad;
};

struct paged {
    struct paged_file *file;
    size_t rec, shift, mask;  /* record bytes; 1 << shift records a page */
    struct paged_page *pages; /* every page made (a few bytes per page of records: the directory) */
    size_t npages, pages_cap;
    size_t *resident;         /* the pages in memory, max_resident at most */
    size_t nresident, max_resident, hand;
    size_t last;              /* the page of the latest record asked for: never the next one evicted */
    char *spare;              /* a page's memory kept for the next page made (paged_truncate) */
    uint64_t reads, writes;   /* pages read back, written out */
};

/* slot: bytes of each page in the file (every array on it must have records of at most slot bytes);
 * dir: where the file goes (NULL: the current directory). 0, or -1 when out of memory. */
int paged_file_init(struct paged_file *f, const char *dir, size_t slot);
void paged_file_free(struct paged_file *f);
/* What failed, as an errno (0: nothing). */
int paged_file_error(const struct paged_file *f);

/* An array of records of rec bytes (at most f->slot), as many pages as fit in resident_bytes in memory
 * (two at least). */
void paged_init(struct paged *a, struct paged_file *f, size_t rec, size_t resident_bytes);
void paged_free(struct paged *a);
/* Record i, its bytes zero when new: valid until the second call after this one on the array (the page
 * of the latest record asked for is never evicted by the next call, so two records may be held at
 * once). NULL when out of memory or the file failed (paged_file_error says why). */
void *paged_miss(struct paged *a, size_t i);
static inline void *paged_at(struct paged *a, size_t i)
{
    size_t p = i >> a->shift;
    if (p < a->npages && a->pages[p].mem) {
        a->pages[p].ref = 1, a->last = p;
        return a->pages[p].mem + (i & a->mask) * a->rec;
    }
    return paged_miss(a, i);
}
/* Records from n on are no longer needed: the pages wholly past n are forgotten (none written). */
void paged_truncate(struct paged *a, size_t n);
/* Bytes of records the array holds in memory now. */
size_t paged_resident_bytes(const struct paged *a);

#endif

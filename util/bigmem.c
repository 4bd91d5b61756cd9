/* bigmem.c: see bigmem.h. A big array's memory is mapped fresh (glibc maps each allocation over 128 KB
 * on its own) and faults in on first touch, 4 KB at a time: a trap each, which on a virtual machine also
 * goes through the hypervisor (critical-path on 2 M events took 136,000 of them, a quarter of its time).
 * Where the kernel gives huge pages only to memory that asks (transparent_hugepage=madvise, Debian's
 * default), an array of 4 MB or more asks with MADV_HUGEPAGE before it is touched: one fault for each
 * 2 MB. Nothing changes where the kernel says no.
 *
 * The advice covers the whole of a mapping glibc made for the array alone (it starts two words before
 * the array and ends where the array's usable size does): advice on a part of a mapping splits it in
 * two or three, and glibc's realloc can then no longer move the mapping whole (mremap refuses: EFAULT),
 * so every growth copied the array into a fresh mapping, faulting the copy in too (critical-path's edges
 * went 40 -> 80 MB so). Elsewhere (the heap) only the 2 MB-aligned inside is advised, as before. */
#define _GNU_SOURCE /* malloc_usable_size */
#include "bigmem.h"
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)

static void *advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    if (p && n >= 2 * HUGE_PAGE) {
        uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), hi = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
        long page = sysconf(_SC_PAGESIZE);
        uintptr_t head = (uintptr_t)p - 2 * sizeof(size_t), end = (uintptr_t)p + malloc_usable_size(p);
        if (page > 0 && head % (uintptr_t)page == 0 && end % (uintptr_t)page == 0) /* a mapping of its own */
            lo = head, hi = end;
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: refused or not, the memory is the same */
    }
#endif
    return p;
}

void *tdb_big_malloc(size_t n)
{
    return advise(malloc(n), n);
}

void *tdb_big_calloc(size_t count, size_t size)
{
    size_t n;
    if (__builtin_mul_overflow(count, size, &n))
        return NULL;
    return advise(calloc(count, size), n);
}

void *tdb_big_realloc(void *p, size_t n)
{
    return advise(realloc(p, n), n);
}

/* bigmem.h: malloc, calloc and realloc for big arrays filled once (a report's rows, a graph's nodes and
 * edges), asking the kernel to back them with huge pages (see bigmem.c). Freed with free(). */
#ifndef TDB_BIGMEM_H
#define TDB_BIGMEM_H
#include <stddef.h>

void *tdb_big_malloc(size_t n);
void *tdb_big_calloc(size_t count, size_t size);
void *tdb_big_realloc(void *p, size_t n);

#endif

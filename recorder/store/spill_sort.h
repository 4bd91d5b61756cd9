/* spill_sort.h: an external sort of fixed-size records in bounded memory. Records are appended into one
 * of two buffers of `budget / 3` bytes each; a full buffer is sorted (into the third) and written as a
 * run to an unlinked temporary file in a given directory (by a background thread, while the other
 * fills); the end merges the runs (and the last buffer, kept in memory) into one ordered stream.
 * Records that fit one buffer never touch the disk. */
#ifndef TDB_SPILL_SORT_H
#define TDB_SPILL_SORT_H
#include <stddef.h>
#include <stdint.h>

struct spill_sort;

/* rec_size bytes per record, ordered by cmp (a total order: ties make the merge's order undefined).
 * dir: where runs go when the buffer fills (NULL: the current directory). NULL when out of memory. */
struct spill_sort *spill_sort_new(size_t rec_size, size_t budget, int (*cmp)(const void *, const void *),
                                  const char *dir);
/* Room for the next record (rec_size bytes, to be filled by the caller), or NULL on error. */
void *spill_sort_push(struct spill_sort *s);
/* Ends the input and starts the ordered stream. 0, or -1 on error. */
int spill_sort_done(struct spill_sort *s);
/* The next record in order (valid until the next call), or NULL at the end or on error. */
const void *spill_sort_next(struct spill_sort *s);
/* Empties s for a new input (the temporary file is kept, truncated). */
void spill_sort_reset(struct spill_sort *s);
/* What failed (an errno-style text naming the temporary file's directory), or NULL. */
const char *spill_sort_error(const struct spill_sort *s);
uint64_t spill_sort_count(const struct spill_sort *s); /* records pushed */
size_t spill_sort_runs(const struct spill_sort *s);    /* runs written to disk */
void spill_sort_free(struct spill_sort *s);
/* A new temporary file in dir named .tracedb-WHAT-XXXXXX, unlinked at once (gone when closed): its fd,
 * or -1 with errno set. The sorts' runs go to one; so do other spills (frame_log.c). */
int spill_temp_file(const char *dir, const char *what);

#endif

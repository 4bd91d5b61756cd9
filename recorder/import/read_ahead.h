/* read_ahead.h: an importer's gzip input (a file or pipe) read and inflated ahead on a thread of its
 * own, so that the parser's thread spends no time inflating: where a core is free for it, a gzip trace
 * imports about as fast as a plain one. The thread calls gzread 32 KiB at a time into a ring of 4 blocks
 * of 256 KiB; the parser takes the bytes in order, as gzread would give them (an error comes after
 * every byte read before it).
 *
 * Plain JSON, and gzip under 256 KiB (fuzzing's thousands), are read on the caller's thread with gzread:
 * moving read(2) to a thread made plain imports slower (the bytes cross to the parser's core once more). */
#ifndef TDB_READ_AHEAD_H
#define TDB_READ_AHEAD_H
#include <stddef.h>
#include <zlib.h>

struct read_ahead;

/* Reads gz (which the reader then owns: read_ahead_close closes it); total: the input's size when known
 * (0: unknown, a pipe), which decides whether a thread reads ahead. NULL when out of memory (gz is
 * then closed). */
struct read_ahead *read_ahead_open(gzFile gz, size_t total);
/* Up to n bytes of the input, in order, into buf: what gzread returns (the count, fewer only at the end
 * of the input or before an error; 0 at the end; -1 on a read or decompression error, once every byte
 * read before it was given). */
int read_ahead_read(struct read_ahead *r, void *buf, unsigned n);
/* After read_ahead_read returned 0 or -1: zlib's message and error code (gzerror's), as gzread left them. */
const char *read_ahead_error(struct read_ahead *r, int *zerr);
/* How far into the file (compressed bytes: gzoffset's) the bytes given so far reach, about (for a
 * progress line). */
size_t read_ahead_offset(struct read_ahead *r);
/* Stops the thread and closes the input. */
void read_ahead_close(struct read_ahead *r);

#endif

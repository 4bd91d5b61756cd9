/* read_ahead.h: an importer's input, a file or pipe, plain or gzip (members one after another, as gzip
 * writes them; what follows the last member and is not one is ignored, as zlib's gzread does), given as
 * the bytes of the trace, in order. Inflated with zlib's inflate() rather than gzread: gzread gives
 * nothing of what it inflated in the call that meets damage (up to 256 KiB of whole events lost); here
 * every byte before the damage comes first, then the error.
 *
 * A gzip input of 256 KiB or more (or from a pipe) is read and inflated ahead on a thread of its own
 * when the process may run on 3 CPUs or more, so that the parser's thread spends no time inflating; the
 * thread fills a ring of 4 blocks of 256 KiB. The import's parser and row writer keep two CPUs busy: on
 * a 2-vCPU machine the thread measured 0.97x (best) / 0.98x (median) of 8 rounds of bench/read_ahead.sh,
 * so there gzip is inflated on the parser's thread. Plain JSON is read on the caller's thread: a thread
 * for it measured no faster (0.95 s best against 1.00 s in 12 rounds), and the bytes would cross to the
 * parser's core once more.
 * TRACEDB_READ_AHEAD=on|off forces either way (the tests compare the two). */
#ifndef TDB_READ_AHEAD_H
#define TDB_READ_AHEAD_H
#include <stddef.h>

/* What stopped the input early. */
enum read_ahead_end {
    READ_AHEAD_WHOLE,     /* nothing: the input ended where it should */
    READ_AHEAD_DAMAGED,   /* gzip data that cannot be inflated (zlib's message says why) */
    READ_AHEAD_TRUNCATED, /* a gzip member cut short: the file ends inside it */
    READ_AHEAD_IO         /* read(2) failed (the message is strerror's) */
};

struct read_ahead;

/* Reads fd (which the reader then owns: read_ahead_close closes it); total: the file's size when known
 * (0: unknown, a pipe). NULL when out of memory (fd is then closed). */
struct read_ahead *read_ahead_open(int fd, size_t total);
/* Up to n bytes of the trace, in order, into buf: the count (fewer than n only at the end or before an
 * error), 0 at the end, -1 after an error once every byte before it was given. */
int read_ahead_read(struct read_ahead *r, void *buf, unsigned n);
/* After read_ahead_read returned 0 or -1: what ended the input, and a message for an error. */
enum read_ahead_end read_ahead_end(struct read_ahead *r, const char **msg);
/* How far into the file (its own bytes, compressed or not) the bytes given so far reach, about (for a
 * progress line). */
size_t read_ahead_offset(struct read_ahead *r);
/* Stops the thread and closes the input. */
void read_ahead_close(struct read_ahead *r);

#endif

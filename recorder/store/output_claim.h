/* output_claim.h: how tracedb writes a file that must appear whole or not at all (a new database, an
 * export): built as PATH.tmp-PID beside it, then claimed atomically; temporaries are removed on
 * errors, on catchable signals (for the CLI), and when a dead process left them behind. */
#ifndef TDB_OUTPUT_CLAIM_H
#define TDB_OUTPUT_CLAIM_H
#include <stdio.h>

/* Names the temporary for path in tmp (size n) and registers it for removal on a signal; removes
 * the temporaries of path that dead processes left. 0, or -1 when the name does not fit or more
 * than a few temporaries are open at once. */
int tdb_out_begin(const char *path, char *tmp, size_t n);

/* Moves tmp to path. replace: as rename(2). Otherwise the name is claimed atomically: when path
 * exists by now (another process made it meanwhile), nothing is replaced, tmp is removed and the
 * error says so. A path that is no file (a device, FIFO or socket) is never replaced, either way.
 * 0 or -1 (printed on err). */
int tdb_out_commit(const char *tmp, const char *path, int replace, FILE *err);

/* Removes tmp (and SQLite's side files of it) and forgets it. */
void tdb_out_discard(const char *tmp);

/* CLI only (a library leaves a program's signals alone): on SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE the
 * registered temporaries are removed before the signal takes its course; SIGXFSZ is ignored so that a
 * file over `ulimit -f` is a write error that is reported (and cleaned up), not a silent death. */
void tdb_out_cleanup_on_signals(void);

/* Why no new file can be made at path, in words a user acts on ("is a directory", "is not a regular
 * file" (a device, FIFO or socket), "directory /x does not exist", "no permission to write in /x",
 * ...), written into why (size n); NULL when nothing stands
 * in the way that a look at the path and its directory tells. For a check before the work starts (a
 * recording would otherwise run the whole program first) and for the words of an open that failed. */
const char *tdb_out_unwritable(const char *path, char *why, size_t n);

/* Opens tmp for writing (created, or emptied) through a FILE that keeps the first write error it met:
 * a full disk or ulimit -f in the middle of a file then makes fclose() fail with that error in errno,
 * even when the last flush succeeds (stdio alone forgets it: only ferror() would tell, without why).
 * NULL with errno set when tmp cannot be opened. */
FILE *tdb_out_fopen(const char *tmp);

/* 1 when a and b name the same existing file (one inode), else 0: an output that is an input. */
int tdb_out_same_file(const char *a, const char *b);

/* A reason for a write error, in words a user acts on: "file too large (over the shell's ulimit -f)",
 * "disk full", or strerror. */
const char *tdb_out_reason(int err);

#endif

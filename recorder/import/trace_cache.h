/* trace_cache.h: the database a command reads when it is given traces instead of one (`tracedb summary
 * run.json.gz`, `tracedb import TRACE --cache`, tracedb.load in Python): TRACE.tracedb beside the trace,
 * or beside the directory of traces, imported once and reused while the traces are unchanged (as nsys
 * stats keeps REPORT.sqlite beside its report). The one definition of that database: its name, when it
 * is current, and when it may be replaced. */
#ifndef TDB_TRACE_CACHE_H
#define TDB_TRACE_CACHE_H
#include <stddef.h>
#include <stdio.h>

/* Whether path names traces rather than a database: a file whose name is a trace's (trace_files.h) or
 * Furiosa's records' (furiosa_records.h)
 * and that does not begin as an SQLite database does, or a directory holding a trace by name. */
int tdb_is_traces(const char *path);

/* The database of path's traces, its name into db (n bytes): PATH.tracedb (PATH without trailing
 * slashes). Used as it is when it holds the traces as they are now: each trace's name (relative to the
 * folder the database is in), size and modification time in ns, kept in its meta as cached_from. Else
 * (none yet, a trace changed, came or went, or force) imported again: under a name of this thread's
 * beside it, then renamed over it, so that processes and threads doing the same at once each finish
 * and a reader of the older file goes on reading it. note: one line on err before an import, and the
 * files of a directory that are no traces said. A file of that name that is not a tracedb database is
 * never replaced, nor anything written where it cannot be.
 * Returns 0 when it is ready; 1 when ready from an import just made of damaged input (the database
 * marked partial, said on err); -1 when the import failed (said on err); -2 when the database cannot be
 * kept there: why (whyn bytes) says why, and nothing is said on err. */
int tdb_trace_cache(const char *path, int force, int note, char *db, size_t n, char *why, size_t whyn, FILE *err);

#endif

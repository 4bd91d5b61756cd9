/* trace_files.h: which files are traces, the one definition the importer, the reports and the Python
 * package share: a trace is a file whose name ends in .json or .json.gz (what PyTorch's
 * tensorboard_trace_handler, Kineto, RAF and Furiosa write: NAME.pt.trace.json.gz and the like), and a
 * directory given as a trace stands for the traces in it (one per rank or cycle), sorted by name; and
 * the database an import of them is named by default. */
#ifndef TDB_TRACE_FILES_H
#define TDB_TRACE_FILES_H
#include <stdio.h>

/* Whether a file name (the last part of a path) is a trace's: ends in .json or .json.gz. */
int tdb_trace_name(const char *name);

/* The traces paths name, in order: each path itself, but a directory the traces in it (regular files
 * and links to them whose names are traces', not hidden ones (editors' and tracedb.torch's scratch
 * copies), not its subdirectories), sorted by name in byte order. What a directory holds that is no
 * trace by name is said on err in one line (the first few names) when say_skipped; a directory with no
 * trace in it, or one that cannot be read, is an error naming it. *out gets a malloc'd array of
 * malloc'd paths (tdb_trace_files_free). The count, or -1 (said on err, unless err is NULL). */
int tdb_trace_files(const char *const *paths, int n, char ***out, FILE *err, int say_skipped);
void tdb_trace_files_free(char **files, int n);

/* The database `tracedb import TRACE` writes without -o, beside the trace: its path less .gz, then less
 * .json, plus .db (run.json.gz -> run.db, w.1.pt.trace.json -> w.1.pt.trace.db, log/ -> log.db; "." and
 * ".." by the directory's own name). Into buf (n bytes); NULL where the trace has no name to take
 * (standard input, "/") or it does not fit. */
const char *tdb_trace_db_name(const char *trace, char *buf, size_t n);

#endif

/* report_io.h: where a report writes (results, diagnostics, the program name that starts each message)
 * and in which format. The report and export layers take this, not the command line's context, so any
 * caller (the CLI, an HTML report, an MPI driver) can run them. */
#ifndef TDB_REPORT_IO_H
#define TDB_REPORT_IO_H
#include <stdint.h>
#include <stdio.h>

enum render_format { FMT_TABLE, FMT_CSV, FMT_JSON };

struct render_sink;      /* render.h */
struct shards_handover;  /* shards.h */

/* The database the reports of one command opened (report_open notes each it opens), for the command's
 * warnings (analyzer/cli/dispatch.c): one command's, never the process's. */
struct opened_db {
    char path[1024]; /* the first opened, "" before one (or when its name is longer) */
    int others;      /* another was opened too: the warnings name none */
};

struct report_io {
    FILE *out;        /* results */
    FILE *err;        /* diagnostics */
    const char *prog; /* "tracedb": the start of every message */
    struct render_sink *sink; /* when set, a report's rows go here instead of out, in any format (the SQL
                               * table functions, analyzer/cli/sql_reports.c) */
    struct shards_handover *handover; /* a shard directory's reduce database made already (tracedb-mpi), for
                                       * the report to take instead of reading the shards (NULL: none);
                                       * copies of io point at the same one, which is taken once */
    struct opened_db *opened; /* where report_open notes the database it opened (NULL: nowhere); copies
                               * of io, and the reports an SQL statement of `tracedb sql` runs, note
                               * into the same one */
};

#endif

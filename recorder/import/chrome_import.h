/* chrome_import.h: Chrome trace JSON (PyTorch/Kineto, RAF, Furiosa; .gz too) -> ingest writer. */
#ifndef TDB_CHROME_IMPORT_H
#define TDB_CHROME_IMPORT_H
#include "ingest.h"

struct tdb_import_result {
    int64_t events;        /* events written */
    int64_t flows;         /* flow halves written */
    int64_t skipped;       /* events not imported, each described on err (the first few) */
    char first_error[256]; /* the first problem, with its byte offset; empty when none */
    int64_t default_rank;  /* in: the rank when the trace gives none, or TDB_NULL */
    size_t max_string;     /* in: the longest string kept (longer ones: the event is skipped); 0: 64 MiB */
    int strict;            /* in: anomalies are errors (the event is skipped, the trace partial) */
    int no_trace;          /* the document holds no trace (not an events array, nor an object with one) */
    int64_t anomalies[TDB_ANOMALY_COUNT];     /* kept and flagged, by kind */
    size_t anomaly_offset[TDB_ANOMALY_COUNT]; /* byte offset of the first of each kind */
};

/* Imports path ("-" = standard input) as one trace. Returns 0 when every event imported, 1 when the
 * input was damaged (every whole event before or around the damage is kept and the trace is marked
 * partial), -1 on a fatal error (unreadable file, database error). */
int tdb_import_chrome(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                      struct tdb_import_result *res);

/* The rank to record when the trace's distributedInfo has none (TDB_NULL: leave it empty). Set in
 * res->rank before the call. */

#endif

/* import.c: tdb_import(), the public entry point for turning trace files into a database. */
#include "tracedb.h"
#include "chrome_import.h"
#include "furiosa_records.h"
#include "trace_files.h"
#include <stdlib.h>
#include "version.h"

const char *tdb_version(void)
{
    return TDB_VERSION;
}

int tdb_import(const char *db_path, const char *const *traces, int ntraces, unsigned flags, FILE *err)
{
    return tdb_import_ranked(db_path, traces, ntraces, flags, -1, err);
}

int tdb_import_ranked(const char *db_path, const char *const *traces, int ntraces, unsigned flags, long first_rank,
                      FILE *err)
{
    struct tdb_import_options opt = {flags, first_rank, 0};
    return tdb_import_with(db_path, traces, ntraces, &opt, err);
}

/* The import of traces (files, each one trace) into db_path. */
static int import_files(const char *db_path, char *const *traces, int ntraces, const struct tdb_import_options *opt,
                        FILE *err)
{
    unsigned flags = opt->flags;
    long first_rank = opt->first_rank;
    enum tdb_open_mode mode = (flags & TDB_IMPORT_APPEND) ? TDB_OPEN_APPEND
                              : (flags & TDB_IMPORT_FORCE) ? TDB_OPEN_FORCE
                                                           : TDB_OPEN_CREATE;
    struct tdb_ingest *ing = tdb_ingest_open(db_path, mode, err);
    if (!ing)
        return -1;
    int damaged = 0, with_trace = 0;
    int64_t events = 0, skipped = 0;
    for (int i = 0; i < ntraces; i++) {
        struct tdb_import_result res;
        res.default_rank = first_rank >= 0 ? (int64_t)first_rank + i : TDB_NULL;
        res.max_string = opt->max_string;
        res.strict = (flags & TDB_IMPORT_STRICT) != 0;
        int progress = (flags & TDB_IMPORT_PROGRESS) != 0;
        int rc = furiosa_records_path(traces[i]) ? tdb_import_furiosa_records(ing, traces[i], progress, err, &res)
                                                 : tdb_import_chrome(ing, traces[i], progress, err, &res);
        if (rc < 0) {
            tdb_ingest_abort(ing);
            fprintf(err, "tracedb: nothing written to %s\n", db_path);
            return -1;
        }
        int dup = res.no_trace ? 0 : tdb_ingest_check_trace(ing, (flags & TDB_IMPORT_DUPLICATE) != 0, traces[i]);
        if (dup != 0) {
            tdb_ingest_abort(ing);
            fprintf(err, "tracedb: nothing written to %s\n", db_path);
            return -1;
        }
        damaged |= rc;
        with_trace += !res.no_trace;
        tdb_ingest_count_anomalies(ing, res.anomalies);
        events += res.events;
        skipped += res.skipped;
    }
    if (!with_trace) { /* nothing that is a trace: no database of nothing */
        tdb_ingest_abort(ing);
        fprintf(err, "tracedb: no trace in the input: nothing written to %s\n", db_path);
        return -1;
    }
    if (tdb_ingest_finish(ing, !damaged) != 0)
        return -1;
    if ((flags & TDB_IMPORT_PROGRESS) || damaged)
        fprintf(err, "tracedb: %s: %lld events imported, %lld skipped%s\n", db_path, (long long)events,
                (long long)skipped, damaged ? "; the database is marked partial (meta import_status)" : "");
    return damaged ? 1 : 0;
}

int tdb_import_with(const char *db_path, const char *const *paths, int npaths, const struct tdb_import_options *opt,
                    FILE *err)
{
    /* a directory stands for the traces in it (trace_files.c), as a report given one reads them */
    char **traces;
    int ntraces = tdb_trace_files(paths, npaths, &traces, err, (opt->flags & TDB_IMPORT_PROGRESS) != 0);
    if (ntraces < 0) {
        fprintf(err, "tracedb: nothing written to %s\n", db_path);
        return -1;
    }
    int rc = import_files(db_path, traces, ntraces, opt, err);
    tdb_trace_files_free(traces, ntraces);
    return rc;
}

/* furiosa_records.h: Furiosa's own record format (the CSV its runtime writes for the profiler's
 * get_pandas_dataframe(): one row per span, with the trace, span and parent span ids the Chrome export
 * drops) -> ingest writer. */
#ifndef TDB_FURIOSA_RECORDS_H
#define TDB_FURIOSA_RECORDS_H
#include "chrome_import.h"

/* Whether path names Furiosa's records by its name: it ends in .csv or .csv.gz (any case). */
int furiosa_records_path(const char *path);

/* Whether path is so named and its first line (plain or gzip) is a header naming start, end, cat and name,
 * as Furiosa's is: a directory's .csv files are its traces only then (a table of one's own is not). */
int furiosa_records_file(const char *path);

/* Imports path (plain or gzip) as one trace: each row one span, the rows' kinds by seed_kind (NPU spans
 * on track 10000000 + pe_index, as Furiosa's own Chrome export puts them), the ids and indexes in the
 * event's args. Returns as tdb_import_chrome does: 0, 1 (damaged input: every whole row kept, the trace
 * partial), -1 (unreadable, not Furiosa's header, database error). */
int tdb_import_furiosa_records(struct tdb_ingest *ing, const char *path, int show_progress, FILE *err,
                               struct tdb_import_result *res);

#endif

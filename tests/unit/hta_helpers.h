/* hta_helpers.h: what the tests of tracedb's HTA-style reports (tests/unit/test_hta_*.c) share. */
#ifndef TDB_TEST_HTA_HELPERS_H
#define TDB_TEST_HTA_HELPERS_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* HTA's committed output (tests/data/NAME): its "traces" object; *doc gets the whole document. */
cJSON *hta_output(const char *name, cJSON **doc);
/* The real trace NAME (tests/data/kineto) imported into dir (db, n bytes, gets its path). */
void import_real(const char *dir, const char *name, char *db, size_t n);
/* Whether a database's GPU rows are at ns resolution (float ts in the JSON): HTA rounds them to whole us. */
int ns_resolution(const char *db);
/* The rows a tracedb command line prints as json (it must succeed). */
cJSON *json_rows(const char *command);
/* `tracedb ARGS DB --drop-last-step --format json`'s rows. */
cJSON *command_json(const char *args, const char *db);
/* A row's number k (0 when it is absent or no number). */
double field(const cJSON *o, const char *k);
/* How many lines s holds. */
int lines(const char *s);
/* Takes TRACEDB_TIMING's lines ("tracedb: ...") out of a command's output, in place. */
void drop_phase_lines(char *out);
/* `tracedb critical-path DB ARGS --format json`'s rows. */
cJSON *critical_path_json(const char *db, const char *args);
/* A real trace imported into db, and a copy of it (copy) changed by sql. */
void import_and_alter(const char *dir, const char *name, const char *sql, char *db, size_t n, char *copy, size_t m);
/* A real trace imported into db, and a copy (copy) whose event table is a stranger's instead: a table
 * without a key, holding select's rows over the rows (renamed event_rows) in select's order, ids
 * repeated where it repeats them. */
void import_with_event_table(const char *dir, const char *name, const char *select, char *db, size_t n, char *copy,
                            size_t m);
/* critical-path's sums and path, and whether it read the import's pack (its phase line under TRACEDB_TIMING). */
char *cp_listing(const char *db, const char *args, int *from_pack);
/* Runs sql on the database file db (it must succeed). */
void file_exec(const char *db, const char *sql);

#endif

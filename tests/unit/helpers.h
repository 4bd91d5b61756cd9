/* helpers.h: what the tests share: running the real tracedb binary, temp dirs, reading databases. */
#ifndef TDB_TEST_HELPERS_H
#define TDB_TEST_HELPERS_H
#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Runs a shell command built like printf; returns its exit status (or -1). */
int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs a command and returns its stdout (malloc'd); *status gets the exit status. */
char *run_capture(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The tracedb binary under test ($TRACEDB). */
const char *tracedb(void);
/* A path in the source tree ($TRACEDB_ROOT/rel), in a static buffer rotated 8 ways. */
const char *src_path(const char *rel);
/* Calls each(path, ctx) for every real trace in tests/data/kineto (its path in the source tree);
 * returns how many there were. */
int each_real_trace(void (*each)(const char *path, void *ctx), void *ctx);
/* Ends the test as skipped because what it needs is missing (why: what, and how to get it). Under CI
 * (CI=true) a missing tool is a failure instead; elsewhere the reason is added to $TRACEDB_SKIPS (a
 * file), which `make test` prints in one line at its end. */
void skip_for_missing(const char *why);
/* Files in dir whose name contains part (a count). */
int count_files(const char *dir, const char *part);
/* A new empty directory under /tmp (malloc'd). */
char *temp_dir(void);
/* Imports trace into dir/name.db with tracedb (quiet); returns the exit status. */
int import_to(const char *trace, const char *db);
/* Imports trace (relative to the source tree, or an absolute path) into run.db in a fresh dir (*dir);
 * returns the db (malloc'd). cleanup() removes both. */
char *imported(const char *trace, char **dir);
void cleanup(char *dir, char *db);
/* A hand-written trace (JSON text) written to dir/hand.json and imported; db (n bytes) gets the
 * database's path, dir/hand.db. Fails the test when the import fails. */
void import_text(const char *dir, const char *trace, char *db, size_t n);
sqlite3 *db_open(const char *path);
/* The first column of the first row of sql as an integer (INT64_MIN when NULL or no row). */
int64_t db_int(sqlite3 *db, const char *sql);
/* db_int on the database file at path, opened for that query alone. */
int64_t file_int(const char *path, const char *sql);
double db_double(sqlite3 *db, const char *sql);
/* ... as text (malloc'd, NULL when NULL). */
char *db_text(sqlite3 *db, const char *sql);
/* Rows of schema (main, or an attached name) whose launch_ns is not the start of their launch_id's
 * event (NULL when there is none): 0 when every GPU row holds its launch's start, as schema.sql says. */
int64_t launch_ns_wrong(sqlite3 *db, const char *schema);
/* Runs `tracedb ARGS DB` on a database holding a value tracedb never writes and expects it refused:
 * exit 1, nothing on stdout, and one line on stderr holding `said` (the table, column and row, e.g.
 * "trace.rank holds a non-integer value (trace id 1)") and "not a database tracedb wrote". */
void expect_refused(const char *args, const char *db, const char *said);
/* Reads a whole file (malloc'd, NUL-terminated). */
char *read_file(const char *path, long *len);
void write_file(const char *path, const char *data, long len);
/* Writes text to dir/name; returns that path (malloc'd). */
char *write_text_file(const char *dir, const char *name, const char *text);
/* Runs `tracedb ARGS --format json` (it must exit 0) and parses its output (cJSON_Delete it). */
cJSON *tracedb_json(const char *args);
/* The first row of rows whose key holds the text value, or NULL. */
cJSON *json_row_named(cJSON *rows, const char *key, const char *value);
/* Row's key, which must be a number. */
double json_num(cJSON *row, const char *key);

#endif

/* fuzz_db.c: libFuzzer target for databases a stranger edited. Each input edits a real GPU trace's
 * database (HTA's AlexNet trace: kernels, launches, syncs, steps) and runs one report on it. An edit
 * sets a column of one row, or of every row, to a value from a list of extremes, NULL, text and blobs,
 * or to 8 bytes of the input; deletes rows; or rebuilds a table without its constraints (so that NULLs
 * and text reach NOT NULL columns). A report must end with its result or its own error: a sanitizer
 * report (an overflowing sum of times, NULL given to qsort or memcmp), a leak or a hang (the runner's
 * -timeout) is a failure. Table and column names come from the database's own schema, never the input.
 * Input: byte 0 picks the report; then edits of 5 bytes (kind and table, column, row in two, value), the
 * value followed by 8 bytes when it is the input's own. The database is restored from memory after each run. */
#include "cli.h"
#include "tracedb.h"
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_TABLES 32
#define MAX_COLUMNS 24

static struct {
    char name[64];
    char column[MAX_COLUMNS][64];
    int ncolumns;
    int64_t rows;
} tables[MAX_TABLES];
static int ntables;
static char db_path[256];
static sqlite3 *pristine; /* the database as imported, in memory */

/* The reports, each with the options it is run with (the window, grouping and HTA's variants). */
static const char *const reports[][4] = {
    {"summary"}, {"ops"}, {"ops", "--from", "0"}, {"ops", "--by-step"}, {"ops", "--group-by", "stack"},
    {"ops", "--group-by", "shape"}, {"kernels"}, {"kernels", "--by-type"}, {"kernels", "--by-step"},
    {"kernels", "--group-by", "launch"}, {"api"}, {"device"}, {"device", "--from", "1ms"}, {"idle"},
    {"idle", "--by-rank"}, {"launches"}, {"launches", "--each"}, {"queue"}, {"queue", "--drop-last-step"},
    {"overlap"}, {"overlap", "--drop-last-step"}, {"critical-path"}, {"critical-path", "--drop-last-step"},
    {"latency"}, {"memops"}, {"memops", "--bandwidth"}, {"memops", "--bandwidth", "--timeline"}, {"kernels", "--patterns", "a"}, {"memory"}, {"memory", "--timeline"}, {"memory", "--by-op"}, {"ranks"},
    {"diff"}, {"sql", "SELECT type_unions(kernel_type(s.value), e.start_ns, e.start_ns + e.dur_ns), "
                      "interval_union(e.start_ns, e.start_ns + e.dur_ns) FROM event e JOIN string s ON s.id = e.name_id"},
};
#define NREPORTS (sizeof reports / sizeof reports[0])

static void db_remove(void)
{
    sqlite3_close(pristine);
    unlink(db_path);
}

static void setup(void)
{
    snprintf(db_path, sizeof db_path, "/tmp/tracedb-fuzz-db-%ld.db", (long)getpid());
    unlink(db_path);
    const char *traces[] = {TDB_SOURCE_DIR "/tests/data/kineto/critical_path_alexnet_trace.json.gz"};
    sqlite3 *file;
    sqlite3_backup *b;
    if (tdb_import(db_path, traces, 1, 0, stderr) != 0 || sqlite3_open(db_path, &file) != SQLITE_OK ||
        sqlite3_open(":memory:", &pristine) != SQLITE_OK || !(b = sqlite3_backup_init(pristine, "main", file, "main")) ||
        sqlite3_backup_step(b, -1) != SQLITE_DONE || sqlite3_backup_finish(b) != SQLITE_OK) {
        fprintf(stderr, "fuzz_db: cannot import the trace\n");
        abort();
    }
    sqlite3_close(file);
    atexit(db_remove);
    sqlite3_stmt *st, *cols;
    sqlite3_prepare_v2(pristine, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, NULL);
    while (sqlite3_step(st) == SQLITE_ROW && ntables < MAX_TABLES) {
        snprintf(tables[ntables].name, sizeof tables[ntables].name, "%s", (const char *)sqlite3_column_text(st, 0));
        char *sql = sqlite3_mprintf("SELECT name FROM pragma_table_info(%Q)", tables[ntables].name);
        sqlite3_prepare_v2(pristine, sql, -1, &cols, NULL);
        sqlite3_free(sql);
        while (sqlite3_step(cols) == SQLITE_ROW && tables[ntables].ncolumns < MAX_COLUMNS)
            snprintf(tables[ntables].column[tables[ntables].ncolumns++], 64, "%s", (const char *)sqlite3_column_text(cols, 0));
        sqlite3_finalize(cols);
        sql = sqlite3_mprintf("SELECT count(*) FROM \"%w\"", tables[ntables].name);
        sqlite3_prepare_v2(pristine, sql, -1, &cols, NULL);
        sqlite3_free(sql);
        if (sqlite3_step(cols) == SQLITE_ROW)
            tables[ntables].rows = sqlite3_column_int64(cols, 0);
        sqlite3_finalize(cols);
        ntables += tables[ntables].ncolumns > 0;
    }
    sqlite3_finalize(st);
}

/* Binds the value byte b picks (its low 4 bits: one of the list; 15: the 8 bytes at *p, when there are)
 * to st's parameter 1. */
static void bind_value(sqlite3_stmt *st, int b, const uint8_t **p, const uint8_t *end)
{
    int v = b & 15;
    static const int64_t ints[] = {0, -1, 1, INT64_MAX, INT64_MIN, INT64_MAX - 5, -INT64_MAX, (int64_t)1 << 62,
                                   -((int64_t)1 << 62), 3, 7};
    if (v < 11)
        sqlite3_bind_int64(st, 1, ints[v]);
    else if (v == 11)
        sqlite3_bind_null(st, 1);
    else if (v == 12)
        sqlite3_bind_text(st, 1, "", 0, SQLITE_STATIC);
    else if (v == 13)
        sqlite3_bind_double(st, 1, b & 16 ? 1e300 : 1.5);
    else if (v == 14)
        sqlite3_bind_blob(st, 1, "\0\xff", 2, SQLITE_STATIC);
    else if (end - *p >= 8) {
        int64_t x;
        memcpy(&x, *p, 8);
        *p += 8;
        sqlite3_bind_int64(st, 1, x);
    } else
        sqlite3_bind_null(st, 1);
}

/* One edit from 5 bytes (and 8 more for the input's own value): kind and table, column, row (two
 * bytes; the top bit: every row), value. */
static void edit(sqlite3 *db, const uint8_t **p, const uint8_t *end)
{
    const uint8_t *e = *p;
    *p += 5;
    int kind = e[0] >> 5, t = (e[0] & 31) % ntables;
    const char *table = tables[t].name, *column = tables[t].column[e[1] % tables[t].ncolumns];
    int64_t rows = tables[t].rows > 0 ? tables[t].rows : 1, row = e[3] & 0x80 ? -1 : ((e[3] << 8) | e[2]) % rows;
    char *sql;
    if (kind == 6) /* rows deleted */
        sql = row < 0 ? sqlite3_mprintf("DELETE FROM \"%w\"", table)
                      : sqlite3_mprintf("DELETE FROM \"%w\" WHERE rowid = (SELECT rowid FROM \"%w\" LIMIT 1 OFFSET %lld)",
                                        table, table, (long long)row);
    else if (kind == 7) /* the table without its constraints (its indexes go too) */
        sql = sqlite3_mprintf("CREATE TABLE fuzz_x AS SELECT * FROM \"%w\"; DROP TABLE \"%w\"; "
                              "ALTER TABLE fuzz_x RENAME TO \"%w\"", table, table, table);
    else
        sql = row < 0 ? sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = ?1", table, column)
                      : sqlite3_mprintf("UPDATE \"%w\" SET \"%w\" = ?1 WHERE rowid = (SELECT rowid FROM \"%w\" "
                                        "LIMIT 1 OFFSET %lld)", table, column, table, (long long)row);
    if (kind == 7) {
        sqlite3_exec(db, sql, NULL, NULL, NULL);
    } else {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
            if (kind != 6)
                bind_value(st, e[4], p, end);
            sqlite3_step(st); /* a constraint may refuse it: the database stays as it was */
            sqlite3_finalize(st);
        }
    }
    sqlite3_free(sql);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!pristine)
        setup();
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    if (size < 1 || size > 1024)
        return 0;
    sqlite3 *db;
    sqlite3_backup *b;
    if (sqlite3_open(db_path, &db) != SQLITE_OK || !(b = sqlite3_backup_init(db, "main", pristine, "main")) ||
        sqlite3_backup_step(b, -1) != SQLITE_DONE || sqlite3_backup_finish(b) != SQLITE_OK)
        abort(); /* the copy could not be restored: every later run would be wrong */
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (const uint8_t *p = data + 1, *end = data + size; end - p >= 5;)
        edit(db, &p, end);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    const char *const *r = reports[data[0] % NREPORTS];
    const struct cli_command *cmd = cli_command(r[0]);
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)r[0];
    argv[argc++] = db_path;
    if (strcmp(r[0], "diff") == 0)
        argv[argc++] = db_path;
    for (int i = 1; i < 4 && r[i]; i++)
        argv[argc++] = (char *)r[i];
    argv[argc] = NULL;
    struct cli cli = {{devnull, devnull, "fuzz", NULL, NULL, NULL}, cmd->example, 1, cmd->name, NULL, cli_commands()}; /* in process: --help never exits */
    cmd->fn(argc, argv, &cli);
    return 0;
}

/* fuzz_sql.c: libFuzzer target for `tracedb sql` in read-only mode: the input is SQL typed by a stranger,
 * run against the sample database exactly as the command runs it (report_open, the read-only guard,
 * render). It must never crash, write a file or change the database (checked: the file's size and
 * modification time stay as they were). A step budget stands in for the user's Ctrl-C. */
#include "report_io.h"
#include "report.h"
#include "sample_db.h"
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stop_long_queries(void *steps)
{
    return ++*(int *)steps > 200; /* x 1000 virtual machine steps */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    static struct stat before;
    const char *path = sample_db();
    if (!devnull) {
        devnull = fopen("/dev/null", "w");
        stat(path, &before);
    }
    if (size < 1)
        return 0;
    char *sql = malloc(size);
    memcpy(sql, data + 1, size - 1);
    sql[size - 1] = 0;
    struct report_io io = {devnull, devnull, "fuzz", NULL, NULL, NULL};
    sqlite3 *db = report_open(path, 0, &io);
    if (db) {
        int steps = 0;
        sqlite3_progress_handler(db, 1000, stop_long_queries, &steps);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
        report_run_sql(db, sql, 0, (enum render_format)(data[0] % 3), &io);
        sqlite3_close(db);
    }
    free(sql);
    struct stat after;
    if (stat(path, &after) != 0 || after.st_size != before.st_size || after.st_mtime != before.st_mtime)
        abort(); /* read-only SQL changed the database */
    return 0;
}

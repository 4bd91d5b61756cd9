/* hta_helpers.c: what the tests of tracedb's HTA-style reports share (hta_helpers.h): HTA's committed
 * output, the real traces imported, the reports' rows as JSON, and databases altered for a test. */
#include "hta_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* HTA's committed output (tests/data/NAME): its "traces" object. */
cJSON *hta_output(const char *name, cJSON **doc)
{
    char rel[200];
    snprintf(rel, sizeof rel, "tests/data/%s", name);
    char *text = read_file(src_path(rel), NULL);
    *doc = cJSON_Parse(text);
    free(text);
    cJSON *traces = cJSON_GetObjectItem(*doc, "traces");
    cr_assert(traces, "%s", name);
    return traces;
}

/* The real trace NAME imported into dir (db gets its path). */
void import_real(const char *dir, const char *name, char *db, size_t n)
{
    char rel[600];
    snprintf(db, n, "%s/%s.db", dir, name);
    snprintf(rel, sizeof rel, "tests/data/kineto/%s", name);
    cr_assert_eq(import_to(src_path(rel), db), 0, "%s", name);
}

/* A trace's GPU rows at ns resolution (float ts in the JSON): HTA rounds them to whole us. */
int ns_resolution(const char *db)
{
    sqlite3 *d = db_open(db);
    int ns = db_int(d, "SELECT count(*) FROM event WHERE kind IN (7, 8, 9) AND (start_ns % 1000 != 0 OR dur_ns % 1000 != 0)") > 0;
    sqlite3_close(d);
    return ns;
}

/* The rows a tracedb command line prints as json (it must succeed). */
cJSON *json_rows(const char *command)
{
    int st;
    char *out = run_capture(&st, "%s", command);
    cr_assert_eq(st, 0, "%s: %s", command, out);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(rows), "%s: %s", command, out);
    free(out);
    return rows;
}

cJSON *command_json(const char *args, const char *db)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' --drop-last-step --format json", tracedb(), args, db);
    return json_rows(cmd);
}

double field(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

int lines(const char *s)
{
    int n = 0;
    for (; (s = strchr(s, '\n')); s++)
        n++;
    return n;
}

/* Takes TRACEDB_TIMING's lines ("tracedb: ...") out of a command's output, in place. */
void drop_phase_lines(char *out)
{
    char *w = out;
    for (char *line = out, *next; *line; line = next) {
        next = strchr(line, '\n');
        next = next ? next + 1 : line + strlen(line);
        if (strncmp(line, "tracedb: ", 9) != 0) {
            memmove(w, line, (size_t)(next - line));
            w += next - line;
        }
    }
    *w = 0;
}

/* One `tracedb critical-path` row (args after the database), as JSON. */
cJSON *critical_path_json(const char *db, const char *args)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' critical-path '%s' %s --format json", tracedb(), db, args);
    return json_rows(cmd);
}

/* A real trace imported into db, and a copy of it (copy) changed by sql. */
void import_and_alter(const char *dir, const char *name, const char *sql, char *db, size_t n, char *copy,
                             size_t m)
{
    import_real(dir, name, db, n);
    snprintf(copy, m, "%s/altered.db", dir);
    cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(copy, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* A real trace imported into db, and a copy (copy) whose event table is a stranger's view instead:
 * select over the rows, renamed event_rows. */
void import_with_event_table(const char *dir, const char *name, const char *select, char *db, size_t n,
                                    char *copy, size_t m)
{
    char sql[600];
    snprintf(sql, sizeof sql, "ALTER TABLE event RENAME TO event_rows; CREATE TABLE event AS %s", select);
    import_and_alter(dir, name, sql, db, n, copy, m);
}

/* critical-path's sums and path, and whether it read the import's pack (its phase line under
 * TRACEDB_TIMING). */
char *cp_listing(const char *db, const char *args, int *from_pack)
{
    int st;
    char *out = run_capture(&st, "TRACEDB_TIMING=1 '%s' critical-path '%s' %s --format csv 2>&1 && '%s' critical-path '%s' %s --each --format csv",
                            tracedb(), db, args, tracedb(), db, args); /* the sums (the graph's size too), then the path */
    cr_assert_eq(st, 0, "%s %s: %s", db, args, out);
    *from_pack = strstr(out, "tracedb: cp: scan (the import's pack)") != NULL;
    drop_phase_lines(out); /* the rows without the phases' lines */
    return out;
}

void file_exec(const char *db, const char *sql)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(d));
    sqlite3_close(d);
}


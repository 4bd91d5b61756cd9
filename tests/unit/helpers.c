/* helpers.c: test support (see helpers.h). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static int wait_status(int st)
{
    if (st == -1)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return wait_status(system(cmd));
}

char *run_capture(int *status, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    size_t cap = 4096, n = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            out = realloc(out, cap);
        }
    }
    out[n] = 0;
    *status = wait_status(pclose(p));
    return out;
}

const char *tracedb(void)
{
    const char *t = getenv("TRACEDB");
    return t ? t : "build/test/tracedb";
}

const char *src_path(const char *rel)
{
    static char bufs[8][4096];
    static int next;
    char *b = bufs[next++ & 7];
    const char *root = getenv("TRACEDB_ROOT");
    snprintf(b, sizeof bufs[0], "%s/%s", root ? root : ".", rel);
    return b;
}

int each_real_trace(void (*each)(const char *path, void *ctx), void *ctx)
{
    DIR *d = opendir(src_path("tests/data/kineto"));
    cr_assert(d, "no tests/data/kineto");
    int traces = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, ".json"))
            continue;
        char rel[512];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", e->d_name);
        each(src_path(rel), ctx);
        traces++;
    }
    closedir(d);
    return traces;
}

char *temp_dir(void)
{
    char *d = strdup("/tmp/tracedb-test-XXXXXX");
    cr_assert(mkdtemp(d), "mkdtemp");
    return d;
}

int import_to(const char *trace, const char *db)
{
    return run("'%s' import -q '%s' -o '%s' 2>/dev/null", tracedb(), trace, db);
}

void import_text(const char *dir, const char *trace, char *db, size_t n)
{
    char json[600];
    snprintf(json, sizeof json, "%s/hand.json", dir);
    snprintf(db, n, "%s/hand.db", dir);
    write_file(json, trace, (long)strlen(trace));
    cr_assert_eq(import_to(json, db), 0, "import %s", json);
}

char *imported(const char *trace, char **dir)
{
    *dir = temp_dir();
    char *db = malloc(1024);
    snprintf(db, 1024, "%s/run.db", *dir);
    cr_assert_eq(import_to(trace[0] == '/' ? trace : src_path(trace), db), 0, "import %s", trace);
    return db;
}

void cleanup(char *dir, char *db)
{
    run("rm -rf '%s'", dir);
    free(dir);
    free(db);
}

sqlite3 *db_open(const char *path)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "open %s", path);
    return db;
}

static sqlite3_stmt *db_row(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    return st;
}

int64_t db_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = db_row(db, sql);
    int64_t v = INT64_MIN;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

int64_t file_int(const char *path, const char *sql)
{
    sqlite3 *d = db_open(path);
    int64_t v = db_int(d, sql);
    sqlite3_close(d);
    return v;
}

int64_t launch_ns_wrong(sqlite3 *db, const char *schema)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\".event e LEFT JOIN \"%s\".event a ON a.id = e.launch_id "
                              "WHERE e.launch_ns IS NOT a.start_ns", schema, schema);
    return db_int(db, sql);
}

double db_double(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = db_row(db, sql);
    double v = -1e300;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return v;
}

char *db_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = db_row(db, sql);
    char *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return v;
}

char *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = 0;
    fclose(f);
    if (len)
        *len = n;
    return b;
}

void write_file(const char *path, const char *data, long len)
{
    FILE *f = fopen(path, "wb");
    cr_assert(f, "create %s", path);
    cr_assert_eq(fwrite(data, 1, (size_t)len, f), (size_t)len);
    fclose(f);
}

int count_files(const char *dir, const char *part)
{
    int st;
    char *out = run_capture(&st, "ls -a '%s' | grep -c -F -- '%s'", dir, part);
    int n = atoi(out);
    free(out);
    return n;
}

void skip_for_missing(const char *why)
{
    const char *ci = getenv("CI");
    if (ci && strcmp(ci, "true") == 0)
        cr_assert_fail("CI=true and %s: CI must have every tool the tests use", why);
    const char *log = getenv("TRACEDB_SKIPS");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", why);
        fclose(f);
    }
    cr_skip_test("%s", why);
}

void expect_refused(const char *args, const char *db, const char *said)
{
    int st, st_out;
    char *err = run_capture(&st, "'%s' %s '%s' 2>&1 >/dev/null", tracedb(), args, db);
    char *out = run_capture(&st_out, "'%s' %s '%s' 2>/dev/null", tracedb(), args, db);
    const char *nl = strchr(err, '\n');
    cr_expect(st == 1 && st_out == 1, "tracedb %s: exit %d, not 1 (a database tracedb did not write is refused)", args, st);
    cr_expect(strstr(err, said) && strstr(err, "not a database tracedb wrote"), "tracedb %s: said \"%s\", not \"%s\"", args,
              err, said);
    cr_expect(nl && nl[1] == 0, "tracedb %s: one line said once: \"%s\"", args, err);
    cr_expect(out[0] == 0, "tracedb %s: printed rows: \"%.200s\"", args, out);
    free(err), free(out);
}

cJSON *tracedb_json(const char *args)
{
    int st;
    char *out = run_capture(&st, "'%s' %s --format json", tracedb(), args);
    cr_assert_eq(st, 0, "tracedb %s", args);
    cJSON *j = cJSON_Parse(out);
    cr_assert(j, "tracedb %s: JSON output parses", args);
    free(out);
    return j;
}

cJSON *json_row_named(cJSON *rows, const char *key, const char *value)
{
    cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        cJSON *v = cJSON_GetObjectItem(r, key);
        if (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0)
            return r;
    }
    return NULL;
}

double json_num(cJSON *row, const char *key)
{
    cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsNumber(v), "%s is a number", key);
    return v->valuedouble;
}

char *write_text_file(const char *dir, const char *name, const char *text)
{
    char *p = malloc(1024);
    cr_assert(p);
    snprintf(p, 1024, "%s/%s", dir, name);
    write_file(p, text, (long)strlen(text));
    return p;
}

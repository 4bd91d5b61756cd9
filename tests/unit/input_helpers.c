/* input_helpers.c: what the tests of imports worked by hand share (see input_helpers.h). */
#include "input_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture fx_new(const char *json, const char *ext)
{
    struct fixture f;
    f.dir = temp_dir();
    snprintf(f.trace, sizeof f.trace, "%s/trace.%s", f.dir, ext);
    snprintf(f.db, sizeof f.db, "%s/run.db", f.dir);
    snprintf(f.err, sizeof f.err, "%s/stderr", f.dir);
    if (json)
        write_file(f.trace, json, (long)strlen(json));
    return f;
}

int fx_import(struct fixture *f, const char *extra)
{
    return run("'%s' import -q %s '%s' -o '%s' 2>'%s'", tracedb(), extra, f->trace, f->db, f->err);
}

/* fx_import of f's trace and the traces in `more` ("" or quoted paths) with TRACEDB_TIMING on: the
import's phases and its rewrite counts go to f's stderr file. */
int fx_import_timed(struct fixture *f, const char *more)
{
    setenv("TRACEDB_TIMING", "1", 1);
    int rc = run("'%s' import -q '%s' %s -o '%s' 2>'%s'", tracedb(), f->trace, more, f->db, f->err);
    unsetenv("TRACEDB_TIMING");
    return rc;
}

void fx_free(struct fixture *f)
{
    run("rm -rf '%s'", f->dir);
    free(f->dir);
}

/* Whether the import's stderr contains text (when not, the test's log shows it). */
int err_has(const struct fixture *f, const char *text)
{
    char *err = read_file(f->err, NULL);
    int found = strstr(err, text) != NULL;
    if (!found)
        cr_log_error("stderr has no \"%s\":\n%s", text, err);
    free(err);
    return found;
}

void assert_nested(const char *db, const struct nested *want, size_t n, const char *how)
{
    for (size_t i = 0; i < n; i++) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT e.depth * 1000000000 + e.self_ns + (coalesce(p.name, '') = '%s') * 100000000 "
                 "FROM events e LEFT JOIN events p ON p.id = e.parent_id WHERE e.name = '%s'",
                 want[i].parent ? want[i].parent : "", want[i].name);
        cr_assert_eq(file_int(db, sql), want[i].depth * 1000000000LL + want[i].self_us * 1000 + 100000000,
                     "%s: parent %s, depth %d, self %lld us (%s)", want[i].name, want[i].parent ? want[i].parent : "none",
                     want[i].depth, (long long)want[i].self_us, how);
    }
}

/* Imports json with TRACEDB_TIMING on: the end's rewrite count must read `rewrites` ("N rows to rewrite
 * of M") and each event's nesting what was worked by hand. The fixture, for more checks (fx_free it). */
struct fixture nested_by_hand(const char *json, const char *rewrites, const struct nested *want, size_t n,
                              const char *how)
{
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, rewrites), "%s: the end did not report \"%s\"", how, rewrites);
    assert_nested(f.db, want, n, how);
    return f;
}

/* 100 events "e0".."e99", 1 us apart, as one JSON text. */
char *hundred_events(void)
{
    size_t cap = 20000, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\": [\n");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e%d\", \"pid\": 1, "
                              "\"tid\": 1, \"ts\": %d, \"dur\": 1}", i ? ",\n" : "", i, i * 2);
    snprintf(s + n, cap - n, "\n], \"traceName\": \"t\"}");
    return s;
}

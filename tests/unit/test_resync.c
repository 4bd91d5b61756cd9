/* test_resync.c: damage inside the events array is skipped to the next whole event, in both JSON lanes
 * and in gzip input; the span's bytes (worked out from the test's own text) are said on stderr and kept
 * in the trace's extra JSON, the trace marked partial. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* n events "e0".."e<n-1>", one a line, ",\n" between; event i's text is bad[i] when given. */
static char *events(int n, const char *const *bad, size_t *len)
{
    size_t cap = (size_t)n * 160 + 4096, k = 0;
    char *s = malloc(cap);
    k += (size_t)snprintf(s + k, cap - k, "{\"traceEvents\":[\n");
    for (int i = 0; i < n; i++) {
        if (i)
            k += (size_t)snprintf(s + k, cap - k, ",\n");
        if (bad && bad[i])
            k += (size_t)snprintf(s + k, cap - k, "%s", bad[i]);
        else
            k += (size_t)snprintf(s + k, cap - k, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e%d\",\"pid\":1,\"tid\":1,"
                                  "\"ts\":%d,\"dur\":1}", i, i * 2);
    }
    k += (size_t)snprintf(s + k, cap - k, "\n],\"traceName\":\"t\"}\n");
    *len = k;
    return s;
}

/* The offset of the n-th (0-based) occurrence of what in s. */
static size_t at(const char *s, const char *what, int nth)
{
    const char *p = strstr(s, what);
    while (p && nth-- > 0)
        p = strstr(p + 1, what);
    cr_assert(p, "%s in the test's text", what);
    return (size_t)(p - s);
}

/* The offset of event name's '{' as events() writes it. */
static size_t start(const char *s, const char *name)
{
    char what[96];
    snprintf(what, sizeof what, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\"", name);
    return at(s, what, 0);
}

struct imp {
    char *dir;
    char trace[512], db[512], err[512];
};

/* Writes text (gzipped when gz) and imports it with the given lane ("yajl" or "" for both lanes). */
static int import_lane(struct imp *m, const char *text, size_t len, int gz, const char *lane)
{
    if (!m->dir)
        m->dir = temp_dir();
    snprintf(m->trace, sizeof m->trace, "%s/t.json", m->dir);
    snprintf(m->db, sizeof m->db, "%s/t.db", m->dir);
    snprintf(m->err, sizeof m->err, "%s/err", m->dir);
    write_file(m->trace, text, (long)len);
    if (gz) {
        cr_assert_eq(run("gzip -f '%s'", m->trace), 0);
        snprintf(m->trace, sizeof m->trace, "%s/t.json.gz", m->dir);
    }
    return run("TRACEDB_JSON='%s' '%s' import -q '%s' -o '%s' --force 2>'%s'", lane, tracedb(), m->trace, m->db,
               m->err);
}

static int err_has(const struct imp *m, const char *text)
{
    char *e = read_file(m->err, NULL);
    int found = strstr(e, text) != NULL;
    if (!found)
        cr_log_error("stderr has no \"%s\":\n%s", text, e);
    free(e);
    return found;
}

/* The names kept, in order, comma-separated (malloc'd). */
static char *names(const struct imp *m)
{
    sqlite3 *db = db_open(m->db);
    char *s = db_text(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM ops ORDER BY start_ns)");
    sqlite3_close(db);
    return s;
}

static void done(struct imp *m)
{
    run("rm -rf '%s'", m->dir);
    free(m->dir);
}

static const char *const lanes[] = {"", "yajl"};

Test(badinput, stray_byte_between_events_keeps_every_later_event)
{
    size_t len;
    char *clean = events(10, NULL, &len);
    size_t cut = at(clean, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e5\"", 0); /* e5's '{' */
    char *text = malloc(len + 2);
    memcpy(text, clean, cut);
    text[cut] = '@'; /* between ",\n" and e5 */
    memcpy(text + cut + 1, clean + cut, len - cut + 1);
    for (int l = 0; l < 2; l++) {
        struct imp m = {0};
        cr_assert_eq(import_lane(&m, text, len + 1, 0, lanes[l]), 1, "damaged: exit 1 (lane %s)", lanes[l]);
        char *got = names(&m);
        cr_assert_str_eq(got, "e0,e1,e2,e3,e4,e5,e6,e7,e8,e9", "lane %s", lanes[l]);
        free(got);
        cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), 0, "no event was damaged");
        cr_assert_eq(file_int(m.db, "SELECT status = 'partial' FROM trace"), 1);
        cr_assert_eq(file_int(m.db, "SELECT value = 'partial' FROM meta WHERE key = 'import_status'"), 1);
        char want[400];
        snprintf(want, sizeof want, "bytes %zu-%zu damaged (invalid JSON near byte %zu", cut, cut, cut);
        cr_assert(err_has(&m, want));
        cr_assert(err_has(&m, "skipped; 5 event(s) after it kept"));
        snprintf(want, sizeof want, "SELECT json_extract(extra, '$.\"tracedb.damaged_bytes\"') = '[[%zu,%zu]]' "
                 "AND json_extract(extra, '$.\"tracedb.damaged_spans\"') = 1 AND error LIKE 'byte %zu: invalid JSON%%' "
                 "FROM trace", cut, cut, cut);
        cr_assert_eq(file_int(m.db, want), 1, "%s", want);
        cr_assert_eq(file_int(m.db, "SELECT name = 't' FROM trace"), 1,
                     "what follows the events is read as ever");
        done(&m);
    }
    free(text);
    free(clean);
}

/* NaN in e5: e5 is dropped and counted; the span runs from e5's '{' to the byte before e6's. */
Test(badinput, nan_in_an_event_drops_that_event_only)
{
    const char *bad[10] = {0};
    bad[5] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e5\",\"pid\":1,\"tid\":1,\"ts\":NaN,\"dur\":1}";
    size_t len;
    char *text = events(10, bad, &len);
    size_t from = at(text, bad[5], 0), nan = at(text, "NaN", 0), to = start(text, "e6") - 1;
    for (int l = 0; l < 2; l++) {
        struct imp m = {0};
        cr_assert_eq(import_lane(&m, text, len, 0, lanes[l]), 1);
        char *got = names(&m);
        cr_assert_str_eq(got, "e0,e1,e2,e3,e4,e6,e7,e8,e9", "lane %s", lanes[l]);
        free(got);
        cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), 1, "e5 counted");
        char want[400];
        snprintf(want, sizeof want, "bytes %zu-%zu damaged (invalid JSON near byte %zu", from, to, nan);
        cr_assert(err_has(&m, want));
        cr_assert(err_has(&m, "skipped; 4 event(s) after it kept"));
        done(&m);
    }
    free(text);
}

/* 3000 events, e1500 missing a comma, e2500 with a stray '}' after it: both lanes and gzip keep the rest. */
Test(badinput, damage_in_a_long_array_plain_and_gzip)
{
    const char *bad[3000] = {0};
    bad[1500] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e1500\",\"pid\":1 \"tid\":1,\"ts\":3000,\"dur\":1}";
    bad[2500] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e2500\",\"pid\":1,\"tid\":1,\"ts\":5000,\"dur\":1}}";
    size_t len;
    char *text = events(3000, bad, &len);
    size_t from1 = at(text, bad[1500], 0);
    size_t to1 = start(text, "e1501") - 1;
    size_t at2 = at(text, bad[2500], 0) + strlen(bad[2500]) - 1, to2 = start(text, "e2501") - 1;
    for (int k = 0; k < 3; k++) {
        struct imp m = {0};
        cr_assert_eq(import_lane(&m, text, len, k == 2, k == 1 ? "yajl" : ""), 1);
        cr_assert_eq(file_int(m.db, "SELECT count(*) FROM ops"), 2999, "all but e1500 (run %d)", k);
        cr_assert_eq(file_int(m.db, "SELECT count(*) FROM ops WHERE name = 'e1500'"), 0);
        cr_assert_eq(file_int(m.db, "SELECT count(*) FROM ops WHERE name IN ('e1499', 'e1501', 'e2500', 'e2501', 'e2999')"), 5);
        cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), 1);
        char want[400];
        snprintf(want, sizeof want, "bytes %zu-%zu damaged (invalid JSON near byte", from1, to1);
        cr_assert(err_has(&m, want));
        cr_assert(err_has(&m, "skipped; 1499 event(s) after it kept"), "e1501..e2999");
        snprintf(want, sizeof want, "bytes %zu-%zu damaged (invalid JSON near byte %zu", at2, to2, at2);
        cr_assert(err_has(&m, want));
        cr_assert(err_has(&m, "skipped; 499 event(s) after it kept"));
        snprintf(want, sizeof want, "SELECT json_extract(extra, '$.\"tracedb.damaged_bytes\"') = '[[%zu,%zu],[%zu,%zu]]' "
                 "FROM trace", from1, to1, at2, to2);
        cr_assert_eq(file_int(m.db, want), 1, "%s", want);
        done(&m);
    }
    free(text);
}

/* Damage in a string that holds '{' and '},{' with an event's text: the scan follows the string and starts
 * at the next real event; nothing is made of the string's bytes. Damage before such a string, too. */
Test(badinput, damage_near_strings_holding_braces_invents_nothing)
{
    const char *bad[10] = {0};
    bad[3] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e3 \\q },{\\\"ph\\\":\\\"X\\\",\\\"name\\\":\\\"fake\\\","
             "\\\"pid\\\":1,\\\"tid\\\":1,\\\"ts\\\":1,\\\"dur\\\":1},{\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":1}";
    bad[6] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"ts\":NaN,\"name\":\"e6 },{\\\"ph\\\":\\\"X\\\",\\\"name\\\":\\\"fake\\\","
             "\\\"pid\\\":1,\\\"tid\\\":1,\\\"ts\\\":1,\\\"dur\\\":1},{ {\",\"pid\":1,\"tid\":1,\"dur\":1}";
    size_t len;
    char *text = events(10, bad, &len);
    for (int l = 0; l < 2; l++) {
        struct imp m = {0};
        cr_assert_eq(import_lane(&m, text, len, 0, lanes[l]), 1);
        char *got = names(&m);
        cr_assert_str_eq(got, "e0,e1,e2,e4,e5,e7,e8,e9", "lane %s", lanes[l]);
        free(got);
        cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), 2, "e3 and e6");
        char want[400];
        snprintf(want, sizeof want, "bytes %zu-%zu damaged", at(text, bad[3], 0), start(text, "e4") - 1);
        cr_assert(err_has(&m, want));
        snprintf(want, sizeof want, "bytes %zu-%zu damaged", at(text, bad[6], 0), start(text, "e7") - 1);
        cr_assert(err_has(&m, want));
        done(&m);
    }
    free(text);
}

/* A stray ']' (closes the events array early) and a missing comma ('}{'): the events after each are kept. */
Test(badinput, stray_bracket_and_missing_comma)
{
    const char *bad[8] = {0};
    bad[2] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e2\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1}]";
    bad[5] = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e5\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1}"
             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e5b\",\"pid\":1,\"tid\":1,\"ts\":11,\"dur\":1}";
    size_t len;
    char *text = events(8, bad, &len);
    for (int l = 0; l < 2; l++) {
        struct imp m = {0};
        cr_assert_eq(import_lane(&m, text, len, 0, lanes[l]), 1);
        char *got = names(&m);
        cr_assert_str_eq(got, "e0,e1,e2,e3,e4,e5,e5b,e6,e7", "lane %s", lanes[l]);
        free(got);
        cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), 0);
        cr_assert_eq(file_int(m.db, "SELECT json_extract(extra, '$.\"tracedb.damaged_spans\"') FROM trace"), 2);
        done(&m);
    }
    free(text);
}

/* 10 MB of garbage shaped like damaged events between two good ones: read in linear time, both kept. */
Test(badinput, ten_megabytes_of_garbage_is_skipped_linearly, .timeout = 120)
{
    const char *unit = "{\"a\":NaN},\"\\\"x{[}\",";
    size_t ulen = strlen(unit), n = (10u << 20) / ulen, len = 0;
    char *text = malloc(n * ulen + 1024);
    len += (size_t)sprintf(text, "[{\"ph\":\"X\",\"name\":\"first\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},");
    for (size_t i = 0; i < n; i++)
        memcpy(text + len, unit, ulen), len += ulen;
    len += (size_t)sprintf(text + len, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]");
    struct imp m = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert_eq(import_lane(&m, text, len, 0, ""), 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    char *got = names(&m);
    cr_assert_str_eq(got, "first,last");
    free(got);
    cr_assert_eq(file_int(m.db, "SELECT skipped_events FROM trace"), (int64_t)n, "each {\"a\":NaN} is a damaged event");
    cr_log_info("10 MB of garbage: %.2f s", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    done(&m);
    free(text);
}

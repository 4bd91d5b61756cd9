/* test_encodings.c: a trace's text encoding. A UTF-8 byte order mark (what some editors and Windows tools
 * write first) is read past, plain, gzip or piped, on both JSON lanes, with byte offsets still the file's;
 * UTF-16 and UTF-32 are refused with the encoding named, not called invalid JSON at byte 0. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOM "\xef\xbb\xbf"

/* n operators one after another on one thread (n large enough sends the import to its fast lane). */
static char *ops_trace(int n)
{
    size_t cap = 64 + (size_t)n * 100, len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"traceEvents\":[");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5}",
                                i ? "," : "", i % 7, i * 10);
    snprintf(t + len, cap - len, "]}");
    return t;
}

/* Runs how (a shell line importing into o.db) in dir; the count of events, or -1 when it failed. */
static long import_count(const char *dir, const char *how)
{
    int st;
    char *out = run_capture(&st, "cd '%s' && rm -f o.db && %s 2>/dev/null && '%s' sql o.db 'SELECT count(*) FROM events' "
                                 "--format csv | tail -1", dir, how, tracedb());
    long n = st == 0 ? atol(out) : -1;
    free(out);
    return n;
}

Test(encodings, a_utf8_byte_order_mark_is_read_past_plain_gzip_and_piped_on_both_lanes)
{
    char *dir = temp_dir();
    static const int sizes[] = {3, 20000}; /* a few events (the parser), and many (the fast lane too) */
    for (size_t k = 0; k < 2; k++) {
        char *trace = ops_trace(sizes[k]), path[600];
        size_t n = strlen(trace);
        char *with_bom = malloc(n + 4);
        memcpy(with_bom, BOM, 3), memcpy(with_bom + 3, trace, n + 1);
        snprintf(path, sizeof path, "%s/t.json", dir);
        write_file(path, with_bom, (long)n + 3);
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "'%s' import -q t.json -o o.db", tracedb());
        cr_expect_eq(import_count(dir, cmd), sizes[k], "plain, %d events", sizes[k]);
        run("cd '%s' && gzip -kf t.json", dir);
        snprintf(cmd, sizeof cmd, "'%s' import -q t.json.gz -o o.db", tracedb());
        cr_expect_eq(import_count(dir, cmd), sizes[k], "gzip, %d events", sizes[k]);
        snprintf(cmd, sizeof cmd, "cat t.json | '%s' import -q - -o o.db", tracedb());
        cr_expect_eq(import_count(dir, cmd), sizes[k], "piped, %d events", sizes[k]);
        free(trace), free(with_bom);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(encodings, after_a_byte_order_mark_an_error_names_the_files_own_byte_offset)
{
    char *dir = temp_dir(), path[600];
    const char *text = BOM "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,"
                           "\"dur\":10},x]}";
    snprintf(path, sizeof path, "%s/bad.json", dir);
    write_file(path, text, (long)strlen(text));
    char want[64];
    snprintf(want, sizeof want, "invalid JSON near byte %zu", (size_t)(strstr(text, ",x") + 1 - text)); /* the x */
    int st;
    char *out = run_capture(&st, "cd '%s' && '%s' import bad.json -o o.db 2>&1; '%s' sql o.db 'SELECT count(*) FROM "
                                 "events' --format csv", dir, tracedb(), tracedb());
    cr_expect(strstr(out, want), "'%s' in: %s", want, out);
    cr_expect(strstr(out, "count(*)\r\n1\r\n"), "the whole event before the damage kept: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(encodings, utf16_and_utf32_are_refused_with_the_encoding_named)
{
    char *dir = temp_dir(), path[600];
    char *trace = ops_trace(3);
    snprintf(path, sizeof path, "%s/t.json", dir);
    write_file(path, trace, (long)strlen(trace));
    free(trace);
    static const struct {
        const char *iconv, *named;
    } cases[] = {
        {"UTF-16", "UTF-16LE"}, /* iconv writes a byte order mark, little-endian here */
        {"UTF-16LE", "UTF-16LE"}, {"UTF-16BE", "UTF-16BE"}, {"UTF-32", "UTF-32LE"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st;
        char *out = run_capture(&st, "cd '%s' && iconv -f UTF-8 -t %s t.json > w.json && '%s' import w.json -o w.db "
                                     "2>&1; echo rc=$?; ls", dir, cases[i].iconv, tracedb());
        char want[128];
        snprintf(want, sizeof want, "the trace is %s text; JSON for tracedb is UTF-8", cases[i].named);
        cr_expect(strstr(out, want), "%s: '%s' in: %s", cases[i].iconv, want, out);
        cr_expect(strstr(out, "rc=1\n") && !strstr(out, "\nw.db\n"), "%s: an error, no database: %s", cases[i].iconv, out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

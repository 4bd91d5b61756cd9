/* test_html.c: `tracedb report`'s page for real, in headless Chromium (Debian's chromium): it renders with
 * no console error and fetches nothing, and every figure checked here, read from the rendered DOM,
 * equals what the report commands print with --format json (ops, kernels, latency, device, memory, and
 * with a baseline the diff gate's verdict). Screenshots go to build/test-artifacts/ (kept by CI). */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CHROMIUM_FLAGS                                                                                            \
    "--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking "                    \
    "--disable-component-update --disable-sync"

static int have_chromium(void)
{
    return run("command -v chromium >/dev/null 2>&1") == 0;
}

/* The page rendered by Chromium: its DOM after the scripts ran, and what the console said in *log. */
static char *render_at(const char *html, const char *hash, const char *dir, char **log)
{
    int st;
    char *dom = run_capture(&st, "cd '%s' && timeout 120 chromium " CHROMIUM_FLAGS " --enable-logging=stderr --v=0 "
                                 "--dump-dom 'file://%s%s' 2> chromium.log", dir, html, hash);
    cr_assert_eq(st, 0, "chromium ran");
    char path[1200];
    snprintf(path, sizeof path, "%s/chromium.log", dir);
    *log = read_file(path, NULL);
    return dom;
}

static char *render(const char *html, const char *dir, char **log)
{
    return render_at(html, "", dir, log);
}

static void screenshot(const char *html, const char *name)
{
    run("mkdir -p '%s' && timeout 120 chromium " CHROMIUM_FLAGS " --screenshot='%s/%s' --window-size=1400,3800 "
        "'file://%s' >/dev/null 2>&1",
        src_path("build/test-artifacts"), src_path("build/test-artifacts"), name, html);
}

/* A report command's JSON rows. */
static cJSON *report_json(const char *db, const char *args)
{
    int st;
    char *out = run_capture(&st, "'%s' %s '%s' --format json", tracedb(), args, db);
    cr_assert_eq(st, 0, "%s", out);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(rows), "%s", out);
    free(out);
    return rows;
}

static long long num(const cJSON *row, const char *col)
{
    const cJSON *v = cJSON_GetObjectItem(row, col);
    cr_assert(cJSON_IsNumber(v), "%s is a number", col);
    return (long long)v->valuedouble;
}

/* s as Chromium serializes an attribute value (&, <, >, " escaped). */
static void attr_escape(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    for (; *s && o + 7 < cap; s++) {
        const char *rep = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;" : NULL;
        if (rep)
            o += (size_t)snprintf(out + o, cap - o, "%s", rep);
        else
            out[o++] = *s;
    }
    out[o] = 0;
}

/* In the table row whose data-key is key, the cell of column col holds data-value v. */
static void expect_cell(const char *dom, const char *key, const char *col, long long v)
{
    char row[1200], cell[200], esc[1000];
    attr_escape(esc, sizeof esc, key);
    snprintf(row, sizeof row, "<tr data-key=\"%s\">", esc);
    const char *r = strstr(dom, row);
    cr_assert(r, "a table row for %s", key);
    const char *end = strstr(r, "</tr>");
    snprintf(cell, sizeof cell, "data-col=\"%s\" data-value=\"%lld\"", col, v);
    const char *c = strstr(r, cell);
    cr_expect(c && c < end, "%s: %s = %lld in the page", key, col, v);
}

static void expect_clean_render(const char *dom, const char *log)
{
    cr_assert(strstr(dom, "data-rendered=\"ok\""), "the script ran to its end");
    cr_assert(strstr(log, "tracedb-report: rendered"), "%s", log);
    cr_expect(!strstr(log, "Uncaught") && !strstr(log, ":ERROR:CONSOLE") && !strstr(log, "tracedb-report: Error"),
              "no console error: %s", log);
}

Test(html, report_shows_the_reports_numbers, .timeout = 300)
{
    if (!have_chromium())
        skip_for_missing("chromium is not installed (tools/deps.sh test installs it)");
    char *dir = temp_dir(), db[1100], html[1100];
    snprintf(db, sizeof db, "%s/df.db", dir);
    snprintf(html, sizeof html, "%s/report.html", dir);
    /* a real training trace with steps, kernels, NCCL and [memory] events */
    cr_assert_eq(import_to(src_path("tests/data/kineto/df_index_resolver_df_index_resolver.json.gz"), db), 0);
    cr_assert_eq(run("'%s' report '%s' -o '%s' 2>/dev/null", tracedb(), db, html), 0);
    cr_assert_neq(run("'%s' report '%s' -o '%s' 2>/dev/null", tracedb(), db, html), 0, "an existing file needs --force");
    long size = 0;
    char *page = read_file(html, &size);
    cr_assert_lt(size, 2 * 1024 * 1024, "one small file (%ld bytes)", size);
    /* nothing to fetch: no external script, style, image or frame, no fetch or XHR */
    cr_expect(!strstr(page, " src=") && !strstr(page, "<link") && !strstr(page, "fetch(") && !strstr(page, "XMLHttpRequest") &&
                  !strstr(page, "@import"),
              "the page loads nothing");
    free(page);
    char *log = NULL, *dom = render(html, dir, &log);
    expect_clean_render(dom, log);
    /* operators: the five with the most self CPU time, as tracedb ops says */
    cJSON *ops = report_json(db, "ops");
    for (int i = 0; i < 5; i++) {
        const cJSON *r = cJSON_GetArrayItem(ops, i);
        const char *name = cJSON_GetObjectItem(r, "name")->valuestring;
        expect_cell(dom, name, "self_cpu_ns", num(r, "self_cpu_ns"));
        expect_cell(dom, name, "cpu_total_ns", num(r, "cpu_total_ns"));
        expect_cell(dom, name, "calls", num(r, "calls"));
    }
    cJSON_Delete(ops);
    cJSON *kernels = report_json(db, "kernels");
    for (int i = 0; i < 3; i++) {
        const cJSON *r = cJSON_GetArrayItem(kernels, i);
        expect_cell(dom, cJSON_GetObjectItem(r, "name")->valuestring, "total_ns", num(r, "total_ns"));
        expect_cell(dom, cJSON_GetObjectItem(r, "name")->valuestring, "instances", num(r, "instances"));
    }
    cJSON_Delete(kernels);
    /* step latency: the median, p90 and p99 lines sit where tracedb latency puts them */
    cJSON *lat = report_json(db, "latency");
    static const char *const marks[][2] = {{"p50", "median_ns"}, {"p90", "p90_ns"}, {"p99", "p99_ns"}};
    for (int i = 0; i < 3; i++) {
        char want[160];
        snprintf(want, sizeof want, "data-p=\"%s\" data-value=\"%lld\"", marks[i][0],
                 num(cJSON_GetArrayItem(lat, 0), marks[i][1]));
        cr_expect(strstr(dom, want), "%s", want);
    }
    cJSON_Delete(lat);
    /* device time per step: each stacked part as tracedb device computes it */
    cJSON *dev = report_json(db, "device");
    int parts = 0;
    cJSON *r;
    cJSON_ArrayForEach(r, dev)
    {
        const cJSON *step = cJSON_GetObjectItem(r, "step");
        if (!cJSON_IsString(step))
            continue;
        static const char *const cols[] = {"run_ns", "io_wait_ns", "idle_ns"};
        for (int c = 0; c < 3; c++, parts++) {
            char want[300];
            snprintf(want, sizeof want, "data-step=\"%s\" data-device=\"%lld\" data-col=\"%s\" data-value=\"%lld\"",
                     step->valuestring, num(r, "device"), cols[c], num(r, cols[c]));
            cr_expect(strstr(dom, want), "%s", want);
        }
    }
    cr_assert_eq(parts, 15, "5 steps on one device, 3 parts each");
    cJSON_Delete(dev);
    /* memory: the high-water mark and the operator at it, per device */
    cJSON *mem = report_json(db, "memory");
    int peaks = 0;
    cJSON_ArrayForEach(r, mem)
    {
        char want[400];
        const cJSON *op = cJSON_GetObjectItem(r, "peak_op");
        snprintf(want, sizeof want, "data-peak-device=\"%s\" data-value=\"%lld\" data-op=\"%s\"",
                 cJSON_GetObjectItem(r, "device")->valuestring, num(r, "peak_allocated_bytes"),
                 cJSON_IsString(op) ? op->valuestring : "");
        cr_expect(strstr(dom, want), "%s", want);
        peaks++;
    }
    cr_assert_eq(peaks, 2, "cpu and cuda:1");
    cJSON_Delete(mem);
    free(dom), free(log);
    /* the tables sort: by calls, the first operator row is the one with the most calls */
    dom = render_at(html, "#sort=ops:calls", dir, &log);
    expect_clean_render(dom, log);
    int64_t most = 0;
    ops = report_json(db, "ops");
    const char *most_name = NULL;
    cJSON_ArrayForEach(r, ops) if (num(r, "calls") > most) most = num(r, "calls"), most_name = cJSON_GetObjectItem(r, "name")->valuestring;
    char first[600];
    const char *body = strstr(strstr(dom, "id=\"ops\""), "<tbody>");
    cr_assert(body);
    snprintf(first, sizeof first, "<tbody><tr data-key=\"%s\">", most_name);
    cr_expect(strncmp(body, first, strlen(first)) == 0, "sorted by calls, %s (%lld calls) first: %.200s", most_name,
              (long long)most, body);
    cJSON_Delete(ops);
    /* GPU efficiency: idle time per stream by cause, and the launch delays, as tracedb idle and launches say */
    cJSON *idle = report_json(db, "idle");
    int idle_parts = 0;
    cJSON_ArrayForEach(r, idle)
    {
        static const char *const cols[] = {"host_wait_ns", "kernel_wait_ns", "other_ns"};
        for (int c = 0; c < 3; c++, idle_parts++) {
            char want[300];
            snprintf(want, sizeof want, "data-stream=\"%lld\" data-col=\"%s\" data-value=\"%lld\"", num(r, "stream"), cols[c],
                     num(r, cols[c]));
            cr_expect(strstr(dom, want), "%s", want);
        }
    }
    cr_assert_eq(idle_parts, 6, "two streams, three causes");
    cJSON_Delete(idle);
    cJSON *launches = report_json(db, "launches");
    for (int i = 0; i < 3; i++) {
        const cJSON *l = cJSON_GetArrayItem(launches, i);
        const char *eff = strstr(dom, "id=\"efficiency\""); /* the kernels' names are rows of the kernels table too */
        cr_assert(eff);
        expect_cell(eff, cJSON_GetObjectItem(l, "name")->valuestring, "delay_avg_ns", num(l, "delay_avg_ns"));
        expect_cell(eff, cJSON_GetObjectItem(l, "name")->valuestring, "launches", num(l, "launches"));
    }
    cJSON_Delete(launches);
    /* the timeline has a row per busy track and marks the five steps */
    cr_expect(strstr(dom, "data-chart=\"timeline\"") && strstr(dom, "data-step=\"ProfilerStep#6\""));
    free(dom), free(log);
    screenshot(html, "report.png");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* With a baseline: the gate's verdict on top is the one tracedb diff --fail-above prints, and the diff's
 * operators are there with their change (HTA's trace_diff pair: +49% step median, a real regression). */
Test(html, baseline_report_puts_the_gate_verdict_on_top, .timeout = 300)
{
    if (!have_chromium())
        skip_for_missing("chromium is not installed (tools/deps.sh test installs it)");
    char *dir = temp_dir(), base[1100], new_db[1100], html[1100];
    snprintf(base, sizeof base, "%s/base.db", dir);
    snprintf(new_db, sizeof new_db, "%s/new.db", dir);
    snprintf(html, sizeof html, "%s/diff.html", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_control_control.json.gz"), base), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), new_db), 0);
    cr_assert_eq(run("'%s' report '%s' --baseline '%s' -o '%s' 2>/dev/null", tracedb(), new_db, base, html), 0);
    int st;
    char *gate = run_capture(&st, "'%s' diff '%s' '%s' --fail-above 5 2>&1 >/dev/null", tracedb(), base, new_db);
    cr_assert_eq(st, 3, "the CLI gate fails this pair: %s", gate);
    const char *line = strstr(gate, "tracedb diff: ");
    while (line && strncmp(line + strlen("tracedb diff: "), "warning: ", 9) == 0) /* the GPUs' warning first */
        line = strstr(line + 1, "tracedb diff: ");
    cr_assert(line, "%s", gate);
    line += strlen("tracedb diff: ");
    char verdict[600];
    snprintf(verdict, sizeof verdict, "%.*s", (int)strcspn(line, "\n"), line);
    char *log = NULL, *dom = render(html, dir, &log);
    expect_clean_render(dom, log);
    const char *v = strstr(dom, "id=\"verdict\"");
    cr_assert(v, "a verdict");
    cr_assert(strstr(v, "data-rc=\"3\""), "a failing one");
    /* the element's text as the DOM serializes it (&, <, > escaped), inside the element itself (not the
     * page's embedded data, which holds the verdict too) */
    char shown[1200];
    size_t k = 0;
    for (const char *q = verdict; *q && k + 6 < sizeof shown; q++) {
        const char *ent = *q == '&' ? "&amp;" : *q == '<' ? "&lt;" : *q == '>' ? "&gt;" : NULL;
        if (ent)
            k += (size_t)snprintf(shown + k, sizeof shown - k, "%s", ent);
        else
            shown[k++] = *q;
    }
    shown[k] = 0;
    const char *v_end = strstr(v, "</div>");
    const char *in_v = strstr(v, shown);
    cr_expect(in_v && v_end && in_v < v_end, "the CLI's verdict, in the verdict element: %s", shown);
    cr_assert(strstr(verdict, "+49.27%"), "%s", verdict);
    cr_assert_lt(v - dom, strstr(dom, "id=\"timeline\"") - dom, "the verdict comes first");
    /* the pair ran on an A100 and a V100: said above the verdict */
    const char *g = strstr(dom, "id=\"gpus-differ\"");
    cr_assert(g && g < v, "the GPUs' warning, above the verdict");
    cr_assert(strstr(g, "NVIDIA A100-PG509-200") < strstr(g, "</div>") &&
                  strstr(g, "Tesla V100-SXM2-16GB") < strstr(g, "</div>"),
              "naming both GPUs");
    free(gate);
    /* the diff's largest increase, cudaMemcpyAsync, with its change */
    int st2;
    char *rows = run_capture(&st2, "'%s' diff '%s' '%s' --format json", tracedb(), base, new_db);
    cJSON *d = cJSON_Parse(rows);
    const cJSON *top = cJSON_GetArrayItem(d, 0);
    cr_assert_str_eq(cJSON_GetObjectItem(top, "name")->valuestring, "cudaMemcpyAsync");
    expect_cell(dom, "cudaMemcpyAsync", "delta_ns", num(top, "delta_ns"));
    cJSON_Delete(d);
    free(rows), free(dom), free(log);
    screenshot(html, "report-baseline.png");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Names are a trace's, and traces come from strangers: one that closes the script element or carries
 * markup is shown as text, and the page still renders. */
Test(html, hostile_names_stay_text, .timeout = 120)
{
    if (!have_chromium())
        skip_for_missing("chromium is not installed (tools/deps.sh test installs it)");
    char *dir = temp_dir(), trace[1100], db[1100], html[1100];
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(html, sizeof html, "%s/t.html", dir);
    const char *json = "{\"traceEvents\":["
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"</script><img src=x onerror=alert(1)>\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\\u2028b <b>bold</b>\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},"
                       /* "<!--" then "<script" inside a script element: the HTML parser's "escaped" states,
                        * in which the script's own </script> no longer ends it (an empty <main>) */
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"<!--<script>\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":5},"
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x&amp;y >\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":5}]}";
    write_file(trace, json, (long)strlen(json));
    cr_assert_eq(import_to(trace, db), 0);
    cr_assert_eq(run("'%s' report '%s' -o '%s' 2>/dev/null", tracedb(), db, html), 0);
    char *log = NULL, *dom = render(html, dir, &log);
    expect_clean_render(dom, log);
    /* the page's elements come before its script (whose text holds the names as data) */
    char *body = strstr(dom, "<main"), *script = body ? strstr(body, "<script") : NULL;
    cr_assert(body && script);
    *script = 0;
    cr_expect(!strstr(body, "<img"), "no element made from a name");
    cr_expect(strstr(body, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"), "the name, as text");
    cr_expect(strstr(body, "a\xe2\x80\xa8" "b &lt;b&gt;bold&lt;/b&gt;"), "the other one too (U+2028 kept)");
    cr_expect(strstr(body, "&lt;!--&lt;script&gt;"), "a name opening a comment and a script, as text");
    cr_expect(strstr(body, "x&amp;amp;y &gt;"), "an entity and a tag end, as text");
    char *page = read_file(html, NULL);
    char *first = strstr(page, "<!--"), *end = strstr(page, "-->");
    cr_expect(first && end && !strstr(first + 4, "<!--") && !strstr(end + 3, "-->"),
              "the page's own comment is its only one: no name reaches the HTML parser as markup");
    free(page);
    free(dom), free(log);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A recording whose program was killed (WAL left behind, recovered by its first reader) makes a page too,
 * with a baseline: the report's connections wait for one another instead of calling it no database
 * ("database is locked" before), and the note that it never closed is said once. */
Test(html, report_of_a_recording_never_closed, .timeout = 60)
{
    char *dir = temp_dir(), db[1100], base[1100], html[1100];
    snprintf(db, sizeof db, "%s/crash.db", dir);
    snprintf(base, sizeof base, "%s/base.db", dir);
    snprintf(html, sizeof html, "%s/crash.html", dir);
    cr_assert_eq(run("'%s' crash '%s' > /dev/null & pid=$!; sleep 0.8; kill -9 $pid; wait $pid; true",
                     src_path("build/test/record_sample"), db), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/cpu_only_rank-34.json.gz"), base), 0);
    for (int i = 0; i < 3; i++) {
        int st;
        char *err = run_capture(&st, "'%s' report '%s' --baseline '%s' -o '%s' --force 2>&1 >/dev/null", tracedb(), db, base,
                                html);
        cr_assert_eq(st, 0, "%s", err);
        int notes = 0;
        for (const char *p = err; (p = strstr(p, "never closed")); p++)
            notes++;
        cr_expect_eq(notes, 1, "said once: %s", err);
        free(err);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

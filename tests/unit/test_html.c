/* test_html.c: `tracedb report`'s page for real, in headless Chromium (Debian's chromium): it renders with
 * no console error and fetches nothing, and every figure checked here, read from the rendered DOM,
 * equals what the report commands print with --format json (ops, kernels, latency, device, memory, and
 * with a baseline the diff gate's verdict) or what the test works out from the events table itself
 * (steps, GPU busy shares, tracks, the longest kernel). Laid out at 1,400 px, tests/unit/report_check.js
 * reads it as a user would (text in its box, distinct labels, headers, the timeline's axis, a hover, a
 * zoom). Screenshots go to build/test-artifacts/ (kept by CI), one per section in html-sections/. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <math.h>
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

/* The page as laid out at 1,400 px, read by tests/unit/report_check.js run after the page's own script
 * in a copy of it (`globals` is JavaScript run first: what to hover). Returns its findings (JSON) and
 * keeps a screenshot of each section in build/test-artifacts/html-sections/NAME-SECTION.png. */
static cJSON *page_check(const char *html, const char *dir, const char *name, const char *globals)
{
    char copy[1200], wrap[1200];
    snprintf(copy, sizeof copy, "%s/%s-check.html", dir, name);
    char *page = read_file(html, NULL), *js = read_file(src_path("tests/unit/report_check.js"), NULL);
    cr_assert(page && js);
    char *end = strstr(page, "</body>");
    cr_assert(end);
    FILE *f = fopen(copy, "w");
    cr_assert(f);
    fprintf(f, "%.*s<script>const CHECK = %s;\n%s</script>%s", (int)(end - page), page, globals, js, end);
    fclose(f);
    free(page), free(js);
    int st;
    char *dom = run_capture(&st, "cd '%s' && timeout 120 chromium " CHROMIUM_FLAGS " --window-size=1400,3000 --dump-dom 'file://%s' 2>/dev/null",
                            dir, copy);
    cr_assert_eq(st, 0, "chromium ran");
    const char *pre = strstr(dom, "<pre id=\"check\">");
    cr_assert(pre, "the check ran");
    pre += strlen("<pre id=\"check\">");
    /* its text as serialized: &, < and > escaped */
    char *text = calloc(1, strlen(pre) + 1);
    size_t k = 0;
    for (const char *p = pre; *p && strncmp(p, "</pre>", 6) != 0; p++) {
        if (strncmp(p, "&amp;", 5) == 0)
            text[k++] = '&', p += 4;
        else if (strncmp(p, "&lt;", 4) == 0)
            text[k++] = '<', p += 3;
        else if (strncmp(p, "&gt;", 4) == 0)
            text[k++] = '>', p += 3;
        else
            text[k++] = *p;
    }
    cJSON *out = cJSON_Parse(text);
    cr_assert(out, "the check's JSON: %.300s", text);
    free(text), free(dom);
    /* a screenshot of each section: a page showing the report in a frame moved up to it, all at once */
    const char *art = src_path("build/test-artifacts/html-sections");
    char list[1200];
    snprintf(list, sizeof list, "%s/%s-sections.txt", dir, name);
    FILE *l = fopen(list, "w");
    cr_assert(l);
    const cJSON *sec;
    cJSON_ArrayForEach(sec, cJSON_GetObjectItem(out, "sections"))
    {
        const char *id = cJSON_GetObjectItem(sec, "id")->valuestring;
        int top = (int)cJSON_GetObjectItem(sec, "top")->valuedouble, height = (int)cJSON_GetObjectItem(sec, "height")->valuedouble;
        snprintf(wrap, sizeof wrap, "%s/%s-%s.html", dir, name, id);
        FILE *w = fopen(wrap, "w");
        cr_assert(w);
        fprintf(w, "<html><body style=\"margin:0;overflow:hidden\"><iframe src=\"%s\" scrolling=\"no\" "
                   "style=\"position:absolute;top:-%dpx;left:0;width:1400px;height:%dpx;border:0\"></iframe></body></html>",
                html, top - 8, top + height + 16);
        fclose(w);
        fprintf(l, "%s-%s %d\n", name, id, height + 16);
    }
    fclose(l);
    run("mkdir -p '%s' && cd '%s' && xargs -P 4 -L 1 sh -c 'timeout 120 chromium " CHROMIUM_FLAGS " --hide-scrollbars "
        "--allow-file-access-from-files --screenshot=\"%s/$0.png\" --window-size=1400,$1 \"file://%s/$0.html\" >/dev/null 2>&1' < '%s'",
        art, dir, art, dir, list);
    return out;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);
    return n >= k && strcmp(s + n - k, end) == 0;
}

/* Nothing sticks out of its box, no label is cut so that it reads like another, and no header is a
 * column's name: words, with the unit of a time column's cells. */
static void expect_readable(const cJSON *c, const char *what)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(c, "errors")) cr_expect(0, "%s: the page could not be read: %s", what, v->valuestring);
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(c, "overflow")) cr_expect(0, "%s: %s", what, v->valuestring);
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(c, "repeated")) cr_expect(0, "%s: a label read twice: %s", what, v->valuestring);
    int headers = 0;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(c, "headers"))
    {
        const char *col = cJSON_GetObjectItem(v, "col")->valuestring, *text = cJSON_GetObjectItem(v, "text")->valuestring;
        cr_expect(!strchr(text, '_'), "%s: a header in words, not %s", what, text);
        size_t n = strlen(col);
        if (n > 3 && strcmp(col + n - 3, "_ns") == 0)
            cr_expect(ends_with(text, " (s)") || ends_with(text, " (ms)") || ends_with(text, " (\xc2\xb5s)") || ends_with(text, " (ns)"),
                      "%s: %s's header says its unit: %s", what, col, text);
        headers++;
    }
    cr_expect_gt(headers, 20, "%s: the tables' headers were read", what);
}

/* The timeline's ticks: evenly spaced, each with a unit, inside [lo, hi]. */
static void expect_ticks(const cJSON *ticks, double lo, double hi, const char *what)
{
    int n = cJSON_GetArraySize(ticks);
    cr_expect_geq(n, 5, "%s: at least 5 ticks (%d)", what, n);
    double step = n > 1 ? cJSON_GetObjectItem(cJSON_GetArrayItem(ticks, 1), "at")->valuedouble -
                              cJSON_GetObjectItem(cJSON_GetArrayItem(ticks, 0), "at")->valuedouble
                        : 0;
    for (int i = 0; i < n; i++) {
        const cJSON *t = cJSON_GetArrayItem(ticks, i);
        double at = cJSON_GetObjectItem(t, "at")->valuedouble;
        const char *text = cJSON_GetObjectItem(t, "text")->valuestring;
        cr_expect(at >= lo - 1 && at <= hi + 1, "%s: tick %s at %.0f in [%.0f, %.0f]", what, text, at, lo, hi);
        cr_expect(i == 0 || fabs(at - cJSON_GetObjectItem(cJSON_GetArrayItem(ticks, i - 1), "at")->valuedouble - step) <= 1,
                  "%s: evenly spaced", what);
        cr_expect(ends_with(text, " ns") || ends_with(text, " \xc2\xb5s") || ends_with(text, " ms") || ends_with(text, " s"),
                  "%s: tick %s has a unit", what, text);
    }
}

/* GPU busy % of [a, b) on device d, worked here from the events table alone: the union of its kernels,
 * copies and sets clipped to the window (a sweep over the rows in start order), to 0.01 %. */
static double busy_pct(sqlite3 *s, int64_t a, int64_t b, int64_t d)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(s, "SELECT max(e.start_ns, ?1), min(e.start_ns + e.dur_ns, ?2) FROM event e JOIN kind k ON k.id = e.kind "
                                       "WHERE k.name IN ('kernel', 'memcpy', 'memset') AND e.device = ?3 AND e.dur_ns > 0 "
                                       "AND e.start_ns < ?2 AND e.start_ns + e.dur_ns > ?1 ORDER BY 1",
                                    -1, &st, NULL),
                 SQLITE_OK);
    sqlite3_bind_int64(st, 1, a), sqlite3_bind_int64(st, 2, b), sqlite3_bind_int64(st, 3, d);
    int64_t covered = 0, end = INT64_MIN;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t s0 = sqlite3_column_int64(st, 0), e0 = sqlite3_column_int64(st, 1);
        if (e0 <= end)
            continue;
        covered += e0 - (s0 < end ? end : s0);
        end = e0;
    }
    sqlite3_finalize(st);
    return round(10000.0 * (double)covered / (double)(b - a)) / 100;
}

/* Each step's dot on the step chart and its GPU busy share on the utilisation chart, for the run named
 * `run` in the page, against the events of its database: the steps' count and durations, the shares. */
static void expect_steps(const cJSON *c, const char *db, const char *run)
{
    sqlite3 *s = db_open(db);
    const cJSON *d;
    int dots = 0, util = 0;
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(c, "dots"))
    {
        if (strcmp(cJSON_GetObjectItem(d, "run")->valuestring, run) != 0)
            continue;
        char sql[400];
        snprintf(sql, sizeof sql, "SELECT e.dur_ns FROM event e JOIN string n ON n.id = e.name_id JOIN kind k ON k.id = e.kind "
                                  "WHERE k.name = 'range' AND n.value = '%s'", cJSON_GetObjectItem(d, "step")->valuestring);
        cr_expect_eq((int64_t)cJSON_GetObjectItem(d, "value")->valuedouble, db_int(s, sql), "%s: %s's time", run, sql);
        dots++;
    }
    cr_expect_eq(dots, db_int(s, "SELECT count(*) FROM event e JOIN string n ON n.id = e.name_id JOIN kind k ON k.id = e.kind "
                                 "WHERE k.name = 'range' AND n.value GLOB 'ProfilerStep#[0-9]*'"),
                 "%s: a dot per step", run);
    cJSON_ArrayForEach(d, cJSON_GetObjectItem(c, "util"))
    {
        if (strcmp(cJSON_GetObjectItem(d, "run")->valuestring, run) != 0 || strcmp(cJSON_GetObjectItem(d, "col")->valuestring, "busy_pct") != 0)
            continue;
        char sql[400];
        snprintf(sql, sizeof sql, "SELECT e.start_ns FROM event e JOIN string n ON n.id = e.name_id JOIN kind k ON k.id = e.kind "
                                  "WHERE k.name = 'range' AND n.value = '%s'", cJSON_GetObjectItem(d, "step")->valuestring);
        int64_t a = db_int(s, sql);
        snprintf(sql, sizeof sql, "SELECT e.start_ns + e.dur_ns FROM event e JOIN string n ON n.id = e.name_id JOIN kind k ON k.id = e.kind "
                                  "WHERE k.name = 'range' AND n.value = '%s'", cJSON_GetObjectItem(d, "step")->valuestring);
        int64_t b = db_int(s, sql);
        double want = busy_pct(s, a, b, (int64_t)cJSON_GetObjectItem(d, "device")->valuedouble);
        cr_expect(fabs(cJSON_GetObjectItem(d, "value")->valuedouble - want) < 0.006, "%s: %s busy %.2f%%, worked here %.2f%%", run,
                  cJSON_GetObjectItem(d, "step")->valuestring, cJSON_GetObjectItem(d, "value")->valuedouble, want);
        util++;
    }
    cr_expect_eq(util, dots, "%s: a busy share per step", run);
    sqlite3_close(s);
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
        /* its label in bytes of powers of 1000, as the tables print them: four significant digits */
        double v = (double)num(r, "peak_allocated_bytes"), d = v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1;
        if (d == 1)
            snprintf(want, sizeof want, "peak %.0f B at ", v);
        else
            snprintf(want, sizeof want, "peak %.*f %s at ", v / d >= 100 ? 1 : v / d >= 10 ? 2 : 3, v / d,
                     d == 1e9 ? "GB" : d == 1e6 ? "MB" : "KB");
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
    /* read as laid out: nothing cut or out of its box, five steps as five dots (not a histogram), each
     * step's GPU busy share as worked from the events; NCCL's kernels drawn as communication, copies as memory */
    cJSON *c = page_check(html, dir, "df", "{}");
    expect_readable(c, "df");
    const cJSON *kind = cJSON_GetObjectItem(c, "latency_kind");
    cr_expect(cJSON_IsString(kind) && strcmp(kind->valuestring, "strip") == 0, "five steps as a strip of dots");
    expect_steps(c, db, "run");
    int nccl = 0, copies = 0;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "classes"))
    {
        const char *fill_name = r->valuestring, *n = strchr(fill_name, ' ') + 1;
        if (strncmp(n, "ncclKernel", 10) == 0) {
            nccl++;
            cr_expect(strncmp(fill_name, "#e0823b ", 8) == 0, "communication: %s", fill_name);
        }
        if (strncmp(n, "Memcpy ", 7) == 0 || strncmp(n, "Memset ", 7) == 0) {
            copies++;
            cr_expect(strncmp(fill_name, "#c2459a ", 8) == 0, "memory: %s", fill_name);
        }
    }
    cr_expect(nccl > 0 && copies > 0, "NCCL kernels (%d) and copies (%d) drawn", nccl, copies);
    cJSON_Delete(c);
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
    /* both runs: in the timeline (each run's tracks, as its events table has them), as dots on the step
     * chart and on the utilisation chart (worked from each database), in the GPU time comparison */
    cJSON *c = page_check(html, dir, "diff", "{}");
    expect_readable(c, "diff");
    const cJSON *runs = cJSON_GetObjectItem(c, "runs");
    cr_expect(cJSON_GetArraySize(runs) == 2 && strcmp(cJSON_GetArrayItem(runs, 0)->valuestring, "New run") == 0 &&
                  strcmp(cJSON_GetArrayItem(runs, 1)->valuestring, "Baseline") == 0,
              "two runs in the timeline");
    static const char *const tracks_sql = "SELECT count(DISTINCT e.thread_id) FROM event e JOIN kind k ON k.id = e.kind "
                                          "WHERE e.dur_ns > 0 AND k.name NOT IN ('trace', 'memory', 'gpu_range')";
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItem(c, "tracks")), file_int(new_db, tracks_sql) + file_int(base, tracks_sql),
                 "the tracks of both");
    expect_steps(c, new_db, "new");
    expect_steps(c, base, "baseline");
    int seen[2] = {0, 0};
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(c, "diff_device")) seen[strcmp(cJSON_GetObjectItem(r, "run")->valuestring, "new") == 0]++;
    cr_expect(seen[0] == 3 && seen[1] == 3, "GPU time of the baseline and of the new run (%d, %d)", seen[0], seen[1]);
    cJSON_Delete(c);
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

/* The alexnet trace (HTA's critical-path one) as a user reads it: every text in its box, names distinct,
 * headers in words with units; a track per thread and GPU stream with events, labelled; a time axis;
 * hovering the longest kernel reads its name, start and duration as the events table holds them
 * (sqlite3 here, not tracedb); a drag zooms the axis to the second quarter. */
Test(html, report_reads_at_a_glance, .timeout = 600)
{
    if (!have_chromium())
        skip_for_missing("chromium is not installed (tools/deps.sh test installs it)");
    char *dir = temp_dir(), db[1100], html[1100];
    snprintf(db, sizeof db, "%s/alexnet.db", dir);
    snprintf(html, sizeof html, "%s/alexnet.html", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    cr_assert_eq(run("'%s' report '%s' -o '%s' 2>/dev/null", tracedb(), db, html), 0);
    sqlite3 *s = db_open(db);
    int64_t t0 = db_int(s, "SELECT coalesce((SELECT min(first_ns) FROM trace), (SELECT min(start_ns) FROM event))");
    int64_t t1 = db_int(s, "SELECT coalesce((SELECT max(last_ns) FROM trace), (SELECT max(start_ns + dur_ns) FROM event))");
    char *kname = db_text(s, "SELECT s.value FROM event e JOIN string s ON s.id = e.name_id JOIN kind k ON k.id = e.kind "
                             "WHERE k.name = 'kernel' ORDER BY e.dur_ns DESC, e.start_ns LIMIT 1");
    int64_t kstart = db_int(s, "SELECT e.start_ns FROM event e JOIN kind k ON k.id = e.kind WHERE k.name = 'kernel' "
                               "ORDER BY e.dur_ns DESC, e.start_ns LIMIT 1") - t0;
    int64_t kdur = db_int(s, "SELECT max(e.dur_ns) FROM event e JOIN kind k ON k.id = e.kind WHERE k.name = 'kernel'");
    /* tracks: threads and streams holding events with a duration (not the trace's own span, memory or GPU ranges) */
    int64_t tracks = db_int(s, "SELECT count(DISTINCT e.thread_id) FROM event e JOIN kind k ON k.id = e.kind "
                               "WHERE e.dur_ns > 0 AND k.name NOT IN ('trace', 'memory', 'gpu_range')");
    sqlite3_close(s);
    cJSON *name = cJSON_CreateString(kname);
    char *quoted = cJSON_PrintUnformatted(name), globals[2000];
    snprintf(globals, sizeof globals, "{\"hover\": {\"name\": %s, \"start\": %lld, \"dur\": %lld}}", quoted, (long long)kstart,
             (long long)kdur);
    cJSON *c = page_check(html, dir, "alexnet", globals);
    expect_readable(c, "alexnet");
    /* tracks: hand-read from the trace: the Python thread, the GPU's two streams and its sync track */
    const cJSON *tr = cJSON_GetObjectItem(c, "tracks");
    cr_expect_eq(cJSON_GetArraySize(tr), tracks, "a track per thread and stream with events");
    static const char *const labels[] = {"thread 2869224 (python3.10)", "GPU 0, Device 0", "GPU 0, stream 7", "GPU 0, stream 20"};
    for (int i = 0; i < 4 && i < cJSON_GetArraySize(tr); i++)
        cr_expect_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(tr, i), "label")->valuestring, labels[i]);
    expect_ticks(cJSON_GetObjectItem(c, "ticks"), 0, (double)(t1 - t0), "alexnet");
    /* the hover reads the kernel as the events table has it */
    const cJSON *h = cJSON_GetObjectItem(c, "hover");
    cr_assert(cJSON_IsObject(h), "the longest kernel (%s at %lld) is drawn and hovered", kname, (long long)kstart);
    char want[64];
    cr_expect_str_eq(cJSON_GetObjectItem(h, "name")->valuestring, kname);
    snprintf(want, sizeof want, "%lld", (long long)kstart);
    cr_expect_str_eq(cJSON_GetObjectItem(h, "start")->valuestring, want);
    snprintf(want, sizeof want, "%lld", (long long)kdur);
    cr_expect_str_eq(cJSON_GetObjectItem(h, "dur")->valuestring, want);
    cr_assert_eq(kdur, 1035000, "the trace's longest kernel, 1.035 ms");
    snprintf(want, sizeof want, "duration 1.035 ms");
    cr_expect(strstr(cJSON_GetObjectItem(h, "text")->valuestring, want), "%s in %s", want, cJSON_GetObjectItem(h, "text")->valuestring);
    cr_expect(strstr(cJSON_GetObjectItem(h, "text")->valuestring, "GPU compute"), "a compute kernel");
    /* the drag zoomed to the second quarter: every tick there */
    const cJSON *z = cJSON_GetObjectItem(c, "zoom"), *t;
    cr_assert(cJSON_IsObject(z));
    double span = (double)(t1 - t0);
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(z, "ticks"))
        cr_expect(t->valuedouble >= span / 4 * 0.98 && t->valuedouble <= span / 2 * 1.02, "tick %.0f within the zoom", t->valuedouble);
    cr_expect_geq(cJSON_GetArraySize(cJSON_GetObjectItem(z, "ticks")), 4);
    cJSON_Delete(c), cJSON_Delete(name), free(quoted), free(kname);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A database tracedb did not write (a kernel's name id made text): the page is refused as `tracedb
 * kernels` refuses it, in one line naming the table, column and row, though its kernels and launches
 * parts both meet the value; no page is left. */
Test(html, report_refuses_a_database_tracedb_did_not_write_saying_so_once, .timeout = 120)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    int64_t id = file_int(db, "SELECT min(id) FROM event WHERE kind = 7");
    char sql[200], said[200], page[1100], args[1200];
    snprintf(sql, sizeof sql, "UPDATE event SET name_id = name_id || 'x' WHERE id = %lld", (long long)id);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    snprintf(said, sizeof said, "event.name_id holds a non-integer value (event id %lld)", (long long)id);
    expect_refused("kernels", db, said);
    snprintf(page, sizeof page, "%s/r.html", dir);
    snprintf(args, sizeof args, "report -o '%s'", page);
    expect_refused(args, db, said);
    struct stat sb;
    cr_expect(stat(page, &sb) != 0, "a page was left at %s", page);
    cleanup(dir, db);
}

/* A database whose event table lost a column the page's span reads (a stranger renamed start_ns): the
 * page is refused with exit 1 and SQLite's reason on stderr, not in silence; no page is left. */
Test(html, report_of_an_event_table_without_start_ns_says_why, .timeout = 120)
{
    char *dir, *db = imported("tests/data/kineto/critical_path_alexnet_trace.json.gz", &dir);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "ALTER TABLE event RENAME COLUMN start_ns TO begin_ns", NULL, NULL, NULL), SQLITE_OK,
                 "%s", sqlite3_errmsg(d));
    sqlite3_close(d);
    char page[1100];
    snprintf(page, sizeof page, "%s/r.html", dir);
    int st;
    char *err = run_capture(&st, "'%s' report '%s' -o '%s' 2>&1 >/dev/null", tracedb(), db, page);
    cr_expect_eq(st, 1, "exit 1: %s", err);
    cr_expect(strstr(err, "tracedb report: ") && strstr(err, "no such column: start_ns"), "the reason is said: \"%s\"",
              err);
    free(err);
    struct stat sb;
    cr_expect(stat(page, &sb) != 0, "a page was left at %s", page);
    cleanup(dir, db);
}

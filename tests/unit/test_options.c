/* test_options.c: report options that change a result, each on a hand-written trace where it does: latency
 * --thread, diff --tolerance, launches --short-below and --delay-above, idle --kernel-wait-below, report
 * --fail-above, --metric, --alpha (the baseline page's verdict, and tracedb diff's with the same flags) and
 * --chrome-trace, merge --force. Every expected number is worked by hand in the comment above its test,
 * with the option and without it, so that an option left unread fails. (tracedb record's options:
 * test_record_options.c.) */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* `tracedb ARGS --format json` (ARGS built like printf), parsed: the test fails unless it exits 0 with an array. */
static cJSON *json_of(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cJSON *json_of(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    int st;
    char *out = run_capture(&st, "'%s' %s --format json", tracedb(), args);
    cr_assert_eq(st, 0, "tracedb %s: exit %d: %s", args, st, out);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(rows), "tracedb %s: %s", args, out);
    free(out);
    return rows;
}

static double field(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsNumber(v), "%s is a number", key);
    return v->valuedouble;
}

static const char *text_field(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsString(v), "%s is text", key);
    return v->valuestring;
}

/* The row whose name is name, or NULL. */
static const cJSON *row_named(const cJSON *rows, const char *name)
{
    const cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        const cJSON *n = cJSON_GetObjectItem(r, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return r;
    }
    return NULL;
}

/* trace (JSON text) written to dir/name.json and imported into dir/name.db, whose path goes to db. */
static void hand_db(const char *dir, const char *name, const char *trace, char *db, size_t n)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    write_file(path, trace, (long)strlen(trace));
    snprintf(db, n, "%s/%s.db", dir, name);
    cr_assert_eq(import_to(path, db), 0, "import %s", path);
}

/* --thread with --top-level: the top-level operators and ranges of one thread (tid as in the trace).
 * Thread 1: infer [0, 10] us holding aten::add [2, 7] (depth 1: not top level), infer [20, 50]; thread 2:
 * infer [0, 50] (a range), load [60, 100].
 *   every thread: infer 3 (10, 30, 50 us: mean 30, median 30, p90 at rank 0.9 * 2 = 1.8: 30 + 0.8 * 20 =
 *     46 us), load 1 (40 us)
 *   --thread 1: infer 2 (10, 30: mean 20, median 20, p90 at rank 0.9: 10 + 0.9 * 20 = 28 us), no load
 *   --thread 2: infer 1 (50), load 1 (40);  --thread 3 (no such thread): no rows
 * --each lists those instances: start (after the trace's first event, 0), duration and thread. --thread without
 * --top-level is refused. */
Test(options, latency_thread_keeps_one_threads_top_level_events)
{
    const char *trace = "{\"traceEvents\":["
                        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"infer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
                        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":5},"
                        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"infer\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":30},"
                        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"infer\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},"
                        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"load\",\"pid\":1,\"tid\":2,\"ts\":60,\"dur\":40}]}";
    char *dir = temp_dir(), db[1200];
    import_text(dir, trace, db, sizeof db);
    static const struct {
        const char *thread;
        int rows;
        double infer[5]; /* count, min, max, mean, median (ns); count 0: no infer row */
        double p90;
        int load;
    } want[] = {
        {"", 2, {3, 10000, 50000, 30000, 30000}, 46000, 1},
        {" --thread 1", 1, {2, 10000, 30000, 20000, 20000}, 28000, 0},
        {" --thread 2", 2, {1, 50000, 50000, 50000, 50000}, 50000, 1},
        {" --thread 3", 0, {0, 0, 0, 0, 0}, 0, 0},
    };
    static const char *const cols[] = {"count", "min_ns", "max_ns", "mean_ns", "median_ns"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cJSON *rows = json_of("latency '%s' --top-level%s", db, want[i].thread);
        cr_expect_eq(cJSON_GetArraySize(rows), want[i].rows, "--top-level%s: %d rows", want[i].thread, want[i].rows);
        const cJSON *infer = row_named(rows, "infer"), *load = row_named(rows, "load");
        cr_expect_eq(infer != NULL, want[i].infer[0] > 0, "--top-level%s: infer", want[i].thread);
        for (int c = 0; infer && c < 5; c++)
            cr_expect_eq(field(infer, cols[c]), want[i].infer[c], "--top-level%s: infer %s: want %.0f, got %.0f", want[i].thread,
                         cols[c], want[i].infer[c], field(infer, cols[c]));
        if (infer)
            cr_expect_eq(field(infer, "p90_ns"), want[i].p90, "--top-level%s: p90", want[i].thread);
        cr_expect_eq(load != NULL, want[i].load, "--top-level%s: load", want[i].thread);
        if (load) {
            cr_expect_eq(field(load, "count"), 1, "--top-level%s: load", want[i].thread);
            cr_expect_eq(field(load, "median_ns"), 40000, "--top-level%s: load", want[i].thread);
        }
        cJSON_Delete(rows);
    }
    int st;
    char *out = run_capture(&st, "'%s' latency '%s' --top-level --each --format csv", tracedb(), db);
    cr_expect_str_eq(out, "name,start_ns,dur_ns,tid,operator_index,trace_id,span_id\r\ninfer,0,10000,1,,,\r\ninfer,0,50000,2,,,\r\ninfer,20000,30000,1,,,\r\nload,60000,40000,2,,,\r\n");
    free(out);
    out = run_capture(&st, "'%s' latency '%s' --top-level --each --thread 1 --format csv", tracedb(), db);
    cr_expect_str_eq(out, "name,start_ns,dur_ns,tid,operator_index,trace_id,span_id\r\ninfer,0,10000,1,,,\r\ninfer,20000,30000,1,,,\r\n");
    free(out);
    out = run_capture(&st, "'%s' latency '%s' --top-level --each --thread 2 --format csv", tracedb(), db);
    cr_expect_str_eq(out, "name,start_ns,dur_ns,tid,operator_index,trace_id,span_id\r\ninfer,0,50000,2,,,\r\nload,60000,40000,2,,,\r\n");
    free(out);
    /* without --top-level the thread would not be applied: refused, not ignored (--name infer is 3 instances) */
    out = run_capture(&st, "'%s' latency '%s' --name infer --thread 1 --format json 2>&1", tracedb(), db);
    cr_expect_eq(st, 2, "%s", out);
    cr_expect(strstr(out, "--thread goes with --top-level"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --tolerance PCT: a change of at most PCT % of the base (|new - base| <= PCT / 100 * base) is 'unchanged'.
 * Base: aten::a, aten::b, aten::c 100 us each, aten::d 200 us (one call each, no children: self time is
 * the duration); new: a 103 (+3%), b 110 (+10%), c 96 (-4%), d 201 (+0.5%).
 *   default 1: a increased, b increased, c decreased, d unchanged
 *   --tolerance 5: a unchanged, b increased, c unchanged, d unchanged
 *   --tolerance 10: all unchanged (b's +10% is at the bound, which is inside)
 *   --tolerance 0: every change counts: d increased too
 * The numbers themselves do not move: delta_ns 3000, 10000, -4000, 1000. */
Test(options, diff_tolerance_sets_what_is_unchanged)
{
    const char *base = "{\"traceEvents\":["
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::b\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::c\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":100},"
                       "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::d\",\"pid\":1,\"tid\":1,\"ts\":600,\"dur\":200}]}";
    const char *new_trace = "{\"traceEvents\":["
                            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":103},"
                            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::b\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":110},"
                            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::c\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":96},"
                            "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::d\",\"pid\":1,\"tid\":1,\"ts\":600,\"dur\":201}]}";
    char *dir = temp_dir(), b[1200], n[1200];
    hand_db(dir, "base", base, b, sizeof b);
    hand_db(dir, "new", new_trace, n, sizeof n);
    static const char *const names[] = {"aten::a", "aten::b", "aten::c", "aten::d"};
    static const double delta[] = {3000, 10000, -4000, 1000};
    static const struct {
        const char *flag, *status[4];
    } want[] = {
        {"", {"increased", "increased", "decreased", "unchanged"}},
        {" --tolerance 5", {"unchanged", "increased", "unchanged", "unchanged"}},
        {" --tolerance 10", {"unchanged", "unchanged", "unchanged", "unchanged"}},
        {" --tolerance 0", {"increased", "increased", "decreased", "increased"}},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cJSON *rows = json_of("diff '%s' '%s'%s", b, n, want[i].flag);
        cr_expect_eq(cJSON_GetArraySize(rows), 4, "%s", want[i].flag);
        for (int k = 0; k < 4; k++) {
            const cJSON *r = row_named(rows, names[k]);
            cr_assert(r, "%s: %s", want[i].flag, names[k]);
            cr_expect_str_eq(text_field(r, "status"), want[i].status[k], "diff%s: %s", want[i].flag, names[k]);
            cr_expect_eq(field(r, "delta_ns"), delta[k], "diff%s: %s", want[i].flag, names[k]);
        }
        cJSON_Delete(rows);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Four launches of kernel k (cudaLaunchKernel; call = its duration, delay = the kernel's start - the call's end):
 *   #1 call [0, 5] us, kernel [10, 12]:       call 5,  GPU 2,  delay 5
 *   #2 call [100, 120], kernel [170, 180]:    call 20, GPU 10, delay 50
 *   #3 call [300, 360], kernel [560, 590]:    call 60, GPU 30, delay 200
 *   #4 call [1000, 1040], kernel [1190, 1240]: call 40, GPU 50, delay 150
 * short_kernels: call <= --short-below and GPU < call; runtime_outliers: call > --short-below;
 * delay_outliers: delay > --delay-above.
 *   defaults (50us, 100us): short #1 #2 = 2 (#4's kernel outlasts its call), runtime #3 = 1, delay #3 #4 = 2
 *   --short-below 10us: short #1 = 1, runtime #2 #3 #4 = 3
 *   --short-below 20us: short #1 #2 = 2 (20 <= 20), runtime #3 #4 = 2
 *   --short-below 100us: short #1 #2 #3 = 3, runtime 0
 *   --delay-above 40us: #2 #3 #4 = 3;  50us: #3 #4 = 2 (50 is not over 50);  200us: 0
 * launches (4) and delay_max (200 us) do not move. Once the trace's rank is text, the database is refused. */
Test(options, launches_short_below_and_delay_above_set_the_outlier_counts)
{
    const char *trace =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":20,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":170,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":60,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":560,\"dur\":30,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":40,\"args\":{\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1190,\"dur\":50,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}}]}";
    char *dir = temp_dir(), db[1200];
    import_text(dir, trace, db, sizeof db);
    static const struct {
        const char *flags;
        double shorts, runtime, delay;
    } want[] = {
        {"", 2, 1, 2},
        {" --short-below 10us", 1, 3, 2},
        {" --short-below 20us", 2, 2, 2},
        {" --short-below 100us", 3, 0, 2},
        {" --delay-above 40us", 2, 1, 3},
        {" --delay-above 50us", 2, 1, 2},
        {" --delay-above 200us", 2, 1, 0},
        {" --short-below 10us --delay-above 40us", 1, 3, 3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cJSON *rows = json_of("launches '%s'%s", db, want[i].flags);
        const cJSON *k = row_named(rows, "k");
        cr_assert(k && cJSON_GetArraySize(rows) == 1, "launches%s: one row, k", want[i].flags);
        cr_expect_eq(field(k, "launches"), 4);
        cr_expect_eq(field(k, "delay_max_ns"), 200000);
        cr_expect_eq(field(k, "short_kernels"), want[i].shorts, "launches%s: short_kernels: want %.0f, got %.0f", want[i].flags,
                     want[i].shorts, field(k, "short_kernels"));
        cr_expect_eq(field(k, "runtime_outliers"), want[i].runtime, "launches%s: runtime_outliers: want %.0f, got %.0f",
                     want[i].flags, want[i].runtime, field(k, "runtime_outliers"));
        cr_expect_eq(field(k, "delay_outliers"), want[i].delay, "launches%s: delay_outliers: want %.0f, got %.0f", want[i].flags,
                     want[i].delay, field(k, "delay_outliers"));
        cJSON_Delete(rows);
    }
    /* ranks that are not integers (a database tracedb did not write): refused, with any cutoffs */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 'r' || coalesce(rank, 0)", NULL, NULL, NULL), SQLITE_OK);
    cr_assert_gt(sqlite3_changes(d), 0);
    sqlite3_close(d);
    expect_refused("launches --short-below 10us --delay-above 40us", db, "trace.rank holds a non-integer value (trace id 1)");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* One stream, four kernels of 10 us: k1 [10, 20], k2 [40, 50], k3 [100, 110], k4 [210, 220] us, launched at 0,
 * 3, 6 and 200 us. k2 and k3 were launched before the kernel ahead of them ended: their gaps, 20 us (40 -
 * 20) and 50 us (100 - 50), are kernel wait when shorter than --kernel-wait-below, else other. k4 was
 * launched at 200, after k3 ended at 110: its 100 us gap is host wait whatever the limit. Idle 170 us.
 *   default 30us: kernel wait 20, other 50
 *   --kernel-wait-below 60us: kernel wait 70, other 0
 *   --kernel-wait-below 21us: kernel wait 20, other 50
 *   --kernel-wait-below 20us: kernel wait 0, other 70 (20 is not shorter than 20)
 * host wait 100 us and idle 170 us throughout. */
Test(options, idle_kernel_wait_below_splits_kernel_wait_from_other)
{
    const char *trace =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":2,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":2,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":2,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":2,\"args\":{\"correlation\":4}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":7,\"ts\":210,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}}]}";
    char *dir = temp_dir(), db[1200];
    import_text(dir, trace, db, sizeof db);
    static const struct {
        const char *flag;
        double kernel, other;
    } want[] = {
        {"", 20000, 50000},
        {" --kernel-wait-below 60us", 70000, 0},
        {" --kernel-wait-below 21us", 20000, 50000},
        {" --kernel-wait-below 20us", 0, 70000},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cJSON *rows = json_of("idle '%s'%s", db, want[i].flag);
        cr_assert_eq(cJSON_GetArraySize(rows), 1, "idle%s: one stream", want[i].flag);
        const cJSON *r = cJSON_GetArrayItem(rows, 0);
        cr_expect_eq(field(r, "stream"), 7);
        cr_expect_eq(field(r, "idle_ns"), 170000, "idle%s", want[i].flag);
        cr_expect_eq(field(r, "host_wait_ns"), 100000, "idle%s", want[i].flag);
        cr_expect_eq(field(r, "kernel_wait_ns"), want[i].kernel, "idle%s: kernel wait: want %.0f, got %.0f", want[i].flag,
                     want[i].kernel, field(r, "kernel_wait_ns"));
        cr_expect_eq(field(r, "other_ns"), want[i].other, "idle%s: other: want %.0f, got %.0f", want[i].flag, want[i].other,
                     field(r, "other_ns"));
        cJSON_Delete(rows);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace of ProfilerStep#0.. of these durations (us), 10 us apart, and one kernel gemm of gemm_us. */
static void steps_db(const char *dir, const char *name, const int *steps, int n, int gemm_us, char *db, size_t cap)
{
    char trace[4096];
    int len = snprintf(trace, sizeof trace, "{\"traceEvents\":["), ts = 0;
    for (int i = 0; i < n; ts += steps[i] + 10, i++)
        len += snprintf(trace + len, sizeof trace - (size_t)len,
                        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},",
                        i, ts, steps[i]);
    snprintf(trace + len, sizeof trace - (size_t)len,
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":5,"
             "\"args\":{\"correlation\":1}},"
             "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":%d,"
             "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}]}",
             gemm_us);
    hand_db(dir, name, trace, db, cap);
}

/* The page's embedded data (const DATA = {...}), parsed. */
static cJSON *page_data(const char *html)
{
    char *page = read_file(html, NULL);
    const char *start = strstr(page, "const DATA = ");
    cr_assert(start, "%s holds its data", html);
    cJSON *data = cJSON_ParseWithOpts(start + strlen("const DATA = "), NULL, 0);
    cr_assert(cJSON_IsObject(data), "%s: the data parses", html);
    free(page);
    return data;
}

/* The baseline page's gate (report --fail-above, --metric, --alpha), and tracedb diff's with the same flags.
 * Base steps 100, 101, 102, 103, 104, 111 us and a 50 us kernel; new steps 110, 112, 113, 114, 115, 116 us and
 * a 52 us kernel.
 *   step_median: (102 + 103) / 2 = 102.5 -> (113 + 114) / 2 = 113.5 us: +11 / 102.5 = +10.73%.
 *   Mann-Whitney U: of the 36 (base, new) pairs one has the new step faster (111 > 110): U = 1; exact
 *     two-sided p = 2 * P(U <= 1) = 2 * 2 / C(12, 6) = 4 / 924 = 0.004329.
 *   step_p99: linear rank 0.99 * 5 = 4.95: 104 + 0.95 * 7 = 110.65 -> 115 + 0.95 * 1 = 115.95 us: +5.3 / 110.65
 *     = +4.79%.
 *   kernel_total: 50 -> 52 us, +4.00%.
 * Verdicts (the report's limit is 5 unless given; diff is given it):
 *   defaults: +10.73% over 5, p < 0.05: FAIL
 *   --fail-above 11: within: PASS
 *   --alpha 0.004: over 5, p >= 0.004 (the smallest p of 6 and 6 steps, 2 / 924 = 0.0022, is below it):
 *     INCONCLUSIVE, counted as FAIL
 *   --metric step_p99: +4.79% within 5: PASS;  --metric kernel_total: +4% within 5: PASS
 *   --metric kernel_total --fail-above 3: +4% over 3: FAIL
 * The page is written whatever the verdict (exit 0); diff exits 3 on a failing one. */
Test(options, report_gate_takes_fail_above_metric_and_alpha, .timeout = 120)
{
    static const int base_steps[] = {100, 101, 102, 103, 104, 111}, new_steps[] = {110, 112, 113, 114, 115, 116};
    char *dir = temp_dir(), b[1200], n[1200], html[1200];
    steps_db(dir, "base", base_steps, 6, 50, b, sizeof b);
    steps_db(dir, "new", new_steps, 6, 52, n, sizeof n);
    snprintf(html, sizeof html, "%s/diff.html", dir);
    static const struct {
        const char *report_flags, *diff_flags;
        int rc;
        const char *verdict;
    } want[] = {
        {"", "--fail-above 5", 3,
         "FAIL: step_median 102.500us -> 113.500us (+10.73%, limit +5.00%); Mann-Whitney U p = 0.004329 (6 / 6 steps, "
         "exact): p < alpha 0.05: the steps did get slower"},
        {"--fail-above 11", "--fail-above 11", 0,
         "PASS: step_median 102.500us -> 113.500us (+10.73%, limit +11.00%); Mann-Whitney U p = 0.004329 (6 / 6 steps, "
         "exact): the change is within the limit"},
        {"--alpha 0.004", "--fail-above 5 --alpha 0.004", 3,
         "INCONCLUSIVE, counted as FAIL: step_median 102.500us -> 113.500us (+10.73%, limit +5.00%); Mann-Whitney U p = "
         "0.004329 (6 / 6 steps, exact): p >= alpha 0.004: the steps cannot tell this change from noise"},
        {"--metric step_p99", "--fail-above 5 --metric step_p99", 0,
         "PASS: step_p99 110.650us -> 115.950us (+4.79%, limit +5.00%); Mann-Whitney U p = 0.004329 (6 / 6 steps, exact): "
         "the change is within the limit"},
        {"--metric kernel_total", "--fail-above 5 --metric kernel_total", 0,
         "PASS: kernel_total 50.000us -> 52.000us (+4.00%, limit +5.00%): within the limit"},
        {"--metric kernel_total --fail-above 3", "--fail-above 3 --metric kernel_total", 3,
         "FAIL: kernel_total 50.000us -> 52.000us (+4.00%, limit +3.00%): over the limit"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int st;
        char *err = run_capture(&st, "'%s' report '%s' --baseline '%s' -o '%s' --force %s 2>&1", tracedb(), n, b, html,
                                want[i].report_flags);
        cr_assert_eq(st, 0, "report %s: the page is written: %s", want[i].report_flags, err);
        free(err);
        cJSON *data = page_data(html);
        const cJSON *diff = cJSON_GetObjectItem(data, "diff");
        cr_assert(diff, "report %s: a diff", want[i].report_flags);
        cr_expect_eq(field(diff, "gate_rc"), want[i].rc, "report %s: gate_rc", want[i].report_flags);
        cr_expect_str_eq(text_field(diff, "verdict"), want[i].verdict, "report %s", want[i].report_flags);
        cJSON_Delete(data);
        char *line = run_capture(&st, "'%s' diff '%s' '%s' %s 2>&1 >/dev/null", tracedb(), b, n, want[i].diff_flags);
        cr_expect_eq(st, want[i].rc, "diff %s: exit %d: %s", want[i].diff_flags, want[i].rc, line);
        char expect[700];
        snprintf(expect, sizeof expect, "tracedb diff: %s\n", want[i].verdict);
        cr_expect_str_eq(line, expect, "diff %s", want[i].diff_flags);
        free(line);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --chrome-trace FILE: the page names the file in its data and, rendered, links it (<a href="FILE"
 * id="chrome-trace">); without it the data holds null and the page shows the export command instead. */
Test(options, report_chrome_trace_is_linked, .timeout = 300)
{
    static const int steps[] = {100, 101, 102};
    char *dir = temp_dir(), db[1200], with[1200], without[1200];
    steps_db(dir, "run", steps, 3, 50, db, sizeof db);
    snprintf(with, sizeof with, "%s/with.html", dir);
    snprintf(without, sizeof without, "%s/without.html", dir);
    cr_assert_eq(run("'%s' report '%s' -o '%s' --chrome-trace traces/step3.json.gz 2>/dev/null", tracedb(), db, with), 0);
    cr_assert_eq(run("'%s' report '%s' -o '%s' 2>/dev/null", tracedb(), db, without), 0);
    cJSON *data = page_data(with);
    const cJSON *meta = cJSON_GetObjectItem(data, "meta");
    cr_expect_str_eq(text_field(meta, "chrome_trace"), "traces/step3.json.gz");
    cJSON_Delete(data);
    data = page_data(without);
    cr_expect(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(data, "meta"), "chrome_trace")), "no trace named");
    cJSON_Delete(data);
    if (run("command -v chromium >/dev/null 2>&1") != 0)
        skip_for_missing("chromium is not installed (tools/deps.sh test installs it): the link itself was not rendered");
    const char *pages[] = {with, without};
    for (int k = 0; k < 2; k++) {
        int st;
        char *dom = run_capture(&st, "cd '%s' && timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                                     "--disable-background-networking --disable-component-update --disable-sync "
                                     "--dump-dom 'file://%s' 2>/dev/null", dir, pages[k]);
        cr_assert_eq(st, 0, "chromium ran");
        cr_assert(strstr(dom, "data-rendered=\"ok\""), "the script ran to its end");
        if (k == 0)
            cr_expect(strstr(dom, "<a href=\"traces/step3.json.gz\" id=\"chrome-trace\">traces/step3.json.gz</a>"),
                      "the trace is linked");
        else
            cr_expect(!strstr(dom, "id=\"chrome-trace\"") && strstr(dom, "-o trace.json.gz</code>"),
                      "no link, the command to make one");
        free(dom);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* merge --force: a.db holds 4 events, b.db 2. merge a b -o job.db: 6 events. Merging b alone into the existing
 * job.db is refused without --force (exit 1, said, job.db byte for byte as it was) and done with it (job.db
 * then holds b's 2 events alone). */
Test(options, merge_replaces_an_existing_output_only_with_force)
{
    const char *a = "{\"traceEvents\":["
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::b\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::c\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":100},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::d\",\"pid\":1,\"tid\":1,\"ts\":600,\"dur\":200}]}";
    const char *b = "{\"traceEvents\":["
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"infer\",\"pid\":2,\"tid\":2,\"ts\":0,\"dur\":10},"
                    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"load\",\"pid\":2,\"tid\":2,\"ts\":20,\"dur\":30}]}";
    char *dir = temp_dir(), adb[1200], bdb[1200], job[1200];
    hand_db(dir, "a", a, adb, sizeof adb);
    hand_db(dir, "b", b, bdb, sizeof bdb);
    snprintf(job, sizeof job, "%s/job.db", dir);
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s' 2>/dev/null", tracedb(), adb, bdb, job), 0);
    cr_assert_eq(file_int(job, "SELECT count(*) FROM event"), 6);
    cr_assert_eq(run("cp '%s' '%s/job.before'", job, dir), 0);
    int st;
    char *err = run_capture(&st, "'%s' merge '%s' -o '%s' 2>&1", tracedb(), bdb, job);
    cr_expect_eq(st, 1, "refused: %s", err);
    cr_expect(strstr(err, "job.db already exists; use --force to replace it"), "%s", err);
    cr_expect(!strstr(err, "--append"), "no option merge lacks is offered: %s", err);
    free(err);
    cr_expect_eq(run("cmp -s '%s' '%s/job.before'", job, dir), 0, "job.db is as it was");
    cr_assert_eq(run("'%s' merge '%s' -o '%s' --force 2>/dev/null", tracedb(), bdb, job), 0);
    cr_expect_eq(file_int(job, "SELECT count(*) FROM event"), 2, "b's events alone");
    cr_expect_eq(file_int(job, "SELECT count(*) FROM events WHERE name IN ('infer', 'load')"), 2);
    run("rm -rf '%s'", dir);
    free(dir);
}

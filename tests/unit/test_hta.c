/* test_hta.c: tracedb's HTA-style analyses against HTA itself. HTA was run once on the real traces
 * (tests/oracle/hta_overlap.py; its output committed as tests/data/hta_overlap_expected.json); the tests
 * never need it. Where tracedb differs on purpose (README: HTA's analyses) the test checks the
 * corrected figure and that HTA's own rule, applied to tracedb's data, gives HTA's number. */
#include "helpers.h"
#include "sqlfuncs.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* HTA's committed output (tests/data/NAME): its "traces" object. */
static cJSON *hta_output(const char *name, cJSON **doc)
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
static void import_real(const char *dir, const char *name, char *db, size_t n)
{
    char rel[600];
    snprintf(db, n, "%s/%s.db", dir, name);
    snprintf(rel, sizeof rel, "tests/data/kineto/%s", name);
    cr_assert_eq(import_to(src_path(rel), db), 0, "%s", name);
}

/* HTA's kernel types (utils.get_kernel_type), name by name; hip* memcpy is memory here, not communication. */
Test(hta, kernel_types_follow_hta_patterns)
{
    static const char *const cases[][2] = {
        {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "communication"},
        {"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)", "communication"},
        {"void at::native::elementwise_kernel<128, 4>(int)", "computation"},
        {"volta_sgemm_128x64_nn", "computation"},
        {"Memcpy HtoD (Pageable -> Device)", "memory"},
        {"Memset (Device)", "memory"},
        {"hipMemcpyWithStream", "memory"},     /* HTA: communication (its ^hip pattern) */
        {"dma_copy", "memory"},
        {"Context Sync", "other"},
        {"Stream Wait Event", "other"},
        {"Event Sync", "other"},
        {"cudaLaunchKernel", "other"},
        {"hipModuleLaunchKernel", "other"},
        {"foo_Memcpy_bar", "other"},           /* memcpy anywhere: not computation */
        {"rcclAllReduceKernel", "communication"},
        {"hcclAllReduce", "communication"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_expect_str_eq(tdb_kernel_type(cases[i][0]), cases[i][1], "%s", cases[i][0]);
}

/* tracedb overlap --drop-last-step equals HTA's get_comm_comp_overlap per rank, with the merged
 * communication and computation times HTA's helpers give, on 7 real traces. The ns-resolution traces
 * (nccl_parser_config, the AMD one) are kept in ns by tracedb, where HTA rounds each kernel to whole us
 * (start up, end down): there the figures differ by less than 1 us a kernel, and HTA's rounding applied
 * to tracedb's rows gives HTA's figures exactly. */
static void check_overlap_against_hta(int text_ranks)
{
    cJSON *doc, *traces = hta_output("hta_overlap_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int checked = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (text_ranks) { /* ranks that are not integers: SQL's GROUP BY makes the sums (type_stats_sql.sql) */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 'r' || coalesce(rank, 0)", NULL, NULL, NULL), SQLITE_OK);
            sqlite3_close(d);
        }
        int st;
        char *out = run_capture(&st, "'%s' overlap '%s' --drop-last-step --by-rank --format json", tracedb(), db);
        cr_assert_eq(st, 0, "%s", out);
        cJSON *rows = cJSON_Parse(out);
        free(out);
        sqlite3 *d = db_open(db); /* a trace with ns-resolution times (float ts): HTA rounds them to whole us */
        int ns_trace = db_int(d, "SELECT count(*) FROM event WHERE kind IN (7, 8, 9) AND (start_ns % 1000 != 0 OR dur_ns % 1000 != 0)") > 0;
        sqlite3_close(d);
        cJSON *rank;
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *row = NULL, *r;
            cJSON_ArrayForEach(r, rows)
            {
                const cJSON *rk = cJSON_GetObjectItem(r, "rank"); /* no distributedInfo: HTA calls it rank 0 */
                long ours = cJSON_IsNumber(rk) ? (long)rk->valuedouble : cJSON_IsString(rk) ? atol(rk->valuestring + 1) : 0;
                cr_assert(!text_ranks || (cJSON_IsString(rk) && rk->valuestring[0] == 'r'), "%s: ranks in text", trace->string);
                if (ours == atol(rank->string))
                    row = r;
            }
            cr_assert(row, "%s: a row for rank %s", trace->string, rank->string);
            double comm = cJSON_GetObjectItem(row, "comm_ns")->valuedouble;
            double comp = cJSON_GetObjectItem(row, "compute_ns")->valuedouble;
            double hta_comm = 1000 * cJSON_GetObjectItem(rank, "comm_us")->valuedouble;
            double hta_comp = 1000 * cJSON_GetObjectItem(rank, "compute_us")->valuedouble;
            const cJSON *pct = cJSON_GetObjectItem(row, "overlap_pct"), *hta_pct = cJSON_GetObjectItem(rank, "overlap_pct");
            if (ns_trace) {
                double slack = 1000 * cJSON_GetObjectItem(rank, "gpu_rows")->valuedouble;
                cr_expect(fabs(comm - hta_comm) <= slack && fabs(comp - hta_comp) <= slack,
                          "%s: %.0f / %.0f ns against HTA's %.0f / %.0f (whole us)", trace->string, comm, comp, hta_comm,
                          hta_comp);
            } else {
                cr_expect_eq(comm, hta_comm, "%s rank %s: communication %.0f ns, HTA %.0f", trace->string, rank->string,
                             comm, hta_comm);
                cr_expect_eq(comp, hta_comp, "%s rank %s: computation %.0f ns, HTA %.0f", trace->string, rank->string, comp,
                             hta_comp);
                cr_expect_eq(cJSON_IsNull(pct), cJSON_IsNull(hta_pct), "%s: no communication, no percentage", trace->string);
                if (!cJSON_IsNull(pct))
                    cr_expect(fabs(pct->valuedouble - hta_pct->valuedouble) < 0.0051, "%s: overlap %.2f%%, HTA %.2f%%",
                              trace->string, pct->valuedouble, hta_pct->valuedouble);
            }
            checked++;
        }
        if (ns_trace && cJSON_GetObjectItem(trace, "0")) { /* HTA's rounding, applied to tracedb's rows in its window */
            char *got = run_capture(
                &st,
                "'%s' sql '%s' \"WITH last AS (SELECT max(start_ns) AS l FROM steps), g AS (SELECT kernel_type(s.value) AS t, "
                "((e.start_ns + 999) / 1000) * 1000 AS a, ((e.start_ns + e.dur_ns) / 1000) * 1000 AS b FROM event e "
                "JOIN string s ON s.id = e.name_id WHERE e.kind IN (7, 8, 9, 10) AND "
                "(SELECT x.start_ns FROM event x WHERE x.id = e.launch_id) < (SELECT l FROM last)) "
                "SELECT interval_union(CASE WHEN t = 'communication' THEN a END, CASE WHEN t = 'communication' THEN b END) "
                "|| ',' || interval_union(CASE WHEN t = 'computation' THEN a END, CASE WHEN t = 'computation' THEN b END) "
                "FROM g\" --format csv",
                tracedb(), db);
            cJSON *r0 = cJSON_GetObjectItem(trace, "0");
            char want[100];
            snprintf(want, sizeof want, "%.0f,%.0f", 1000 * cJSON_GetObjectItem(r0, "comm_us")->valuedouble,
                     1000 * cJSON_GetObjectItem(r0, "compute_us")->valuedouble);
            cr_expect(strstr(got, want), "HTA's rounding gives HTA's figures: %s in %s", want, got);
            free(got);
        }
        cJSON_Delete(rows);
    }
    cr_assert_eq(checked, 7, "seven traces, one rank each");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, overlap_equals_hta, .timeout = 240)
{
    check_overlap_against_hta(0);
}

Test(hta, overlap_equals_hta_with_ranks_named_in_text, .timeout = 240)
{
    check_overlap_against_hta(1);
}

/* --drop-last-step is HTA's window: on a trace with 6 steps, the host events after the last step's start
 * and the GPU work they launched go; a trace with fewer than 2 steps is kept whole. */
Test(hta, drop_last_step_is_htas_window, .timeout = 120)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), db), 0);
    int st;
    char *all = run_capture(&st, "'%s' latency '%s' --format csv", tracedb(), db);
    char *dropped = run_capture(&st, "'%s' latency '%s' --drop-last-step --format csv", tracedb(), db);
    cr_assert(strstr(all, "ProfilerStep*,6,") && strstr(dropped, "ProfilerStep*,5,"), "%s\n%s", all, dropped);
    free(all), free(dropped);
    sqlite3 *d = db_open(db);
    int64_t last = db_int(d, "SELECT max(start_ns) FROM steps");
    char sql[600];
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM kernels k JOIN event a ON a.id = k.launch_id WHERE a.start_ns < %lld", (long long)last);
    int64_t kept = db_int(d, sql);
    sqlite3_close(d);
    char *k = run_capture(&st, "'%s' kernels '%s' --drop-last-step --format json | grep -o '\"instances\":[0-9]*' | "
                               "cut -d: -f2 | paste -sd+ | bc", tracedb(), db);
    cr_assert_eq(atoll(k), kept, "kernels launched before the last step: %s", k);
    free(k);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace's GPU rows at ns resolution (float ts in the JSON): HTA rounds them to whole us. */
static int ns_resolution(const char *db)
{
    sqlite3 *d = db_open(db);
    int ns = db_int(d, "SELECT count(*) FROM event WHERE kind IN (7, 8, 9) AND (start_ns % 1000 != 0 OR dur_ns % 1000 != 0)") > 0;
    sqlite3_close(d);
    return ns;
}

/* The rows a tracedb command line prints as json (it must succeed). */
static cJSON *json_rows(const char *command)
{
    int st;
    char *out = run_capture(&st, "%s", command);
    cr_assert_eq(st, 0, "%s: %s", command, out);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(rows), "%s: %s", command, out);
    free(out);
    return rows;
}

static cJSON *command_json(const char *args, const char *db)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' %s '%s' --drop-last-step --format json", tracedb(), args, db);
    return json_rows(cmd);
}

static double field(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItem(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* tracedb idle --negative-gaps equals HTA's get_idle_time_breakdown per stream and cause on the
 * us-resolution traces (with negative gaps clipped, the default, no figure is below HTA's); on the ns one,
 * the total is within 1% (HTA's rounding to whole us). */
static void check_idle_against_hta(int text_devices)
{
    cJSON *doc, *traces = hta_output("hta_idle_launches_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int streams = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (text_devices) { /* keys that are not integers: the pass takes SQL's order of the work (idle_sorted.sql) */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE event SET device = 'gpu' || device WHERE device IS NOT NULL", NULL, NULL, NULL),
                         SQLITE_OK);
            sqlite3_close(d);
        }
        int ns = ns_resolution(db);
        cJSON *hta_rows = command_json("idle --negative-gaps", db), *clipped = command_json("idle", db), *rank;
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *stream;
            cJSON_ArrayForEach(stream, cJSON_GetObjectItem(rank, "idle"))
            {
                const cJSON *row = NULL, *plain = NULL, *r;
                cJSON_ArrayForEach(r, hta_rows) if ((long)field(r, "stream") == atol(stream->string)) row = r;
                cJSON_ArrayForEach(r, clipped) if ((long)field(r, "stream") == atol(stream->string)) plain = r;
                cr_assert(row && plain, "%s: stream %s", trace->string, stream->string);
                cr_expect_eq(field(row, "rank"), atof(rank->string), "%s stream %s: rank %g, HTA's %s", trace->string,
                             stream->string, field(row, "rank"), rank->string);
                static const char *const cats[][2] = {{"host_wait", "host_wait_ns"}, {"kernel_wait", "kernel_wait_ns"},
                                                      {"other", "other_ns"}};
                double ours = 0, hta = 0;
                for (int c = 0; c < 3; c++) {
                    const cJSON *h = cJSON_GetObjectItem(stream, cats[c][0]);
                    double want = cJSON_IsNumber(h) ? 1000 * h->valuedouble : 0;
                    ours += field(row, cats[c][1]), hta += want;
                    if (!ns)
                        cr_expect_eq(field(row, cats[c][1]), want, "%s stream %s %s: %.0f ns, HTA %.0f", trace->string,
                                     stream->string, cats[c][0], field(row, cats[c][1]), want);
                    cr_expect_geq(field(plain, cats[c][1]), field(row, cats[c][1]), "clipping never lowers a figure");
                }
                if (ns)
                    cr_expect(fabs(ours - hta) <= 0.01 * hta, "%s stream %s: %.0f ns idle, HTA %.0f", trace->string,
                              stream->string, ours, hta);
                streams++;
            }
        }
        cJSON_Delete(hta_rows), cJSON_Delete(clipped);
    }
    cr_assert_eq(streams, 20, "20 streams on 6 traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, idle_equals_hta, .timeout = 240)
{
    check_idle_against_hta(0);
}

Test(hta, idle_equals_hta_with_devices_named_in_text, .timeout = 240)
{
    check_idle_against_hta(1);
}

/* tracedb launches --each, summed per kernel name, equals HTA's get_cuda_kernel_launch_stats per launch
 * summed the same way (launches, call, GPU and delay time, the three outlier counts) on the us-resolution
 * traces; on the ns one the launch counts are equal. The summary rows agree with --each. */
static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile's default (linear) over sorted v[0..n). */
static double linear_percentile(const double *v, int n, double p)
{
    double pos = p / 100 * (n - 1);
    int lo = (int)pos, hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

static void check_launches_against_hta(int text_ranks)
{
    cJSON *doc, *traces = hta_output("hta_idle_launches_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int names = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (text_ranks) { /* ranks that are not integers: the sums come from SQL alone (launches_grouped.sql) */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 'r' || coalesce(rank, 0)", NULL, NULL, NULL), SQLITE_OK);
            sqlite3_close(d);
        }
        int ns = ns_resolution(db);
        cJSON *each = command_json("launches --each", db), *summary = command_json("launches --by-rank", db), *rank;
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *k;
            cJSON_ArrayForEach(k, cJSON_GetObjectItem(rank, "launches"))
            {
                double n = 0, cpu = 0, gpu = 0, delay = 0, mx = 0, shorts = 0, rt = 0, dl = 0;
                double *delays = malloc((size_t)cJSON_GetArraySize(each) * sizeof *delays);
                const cJSON *r;
                cJSON_ArrayForEach(r, each)
                {
                    if (strcmp(cJSON_GetObjectItem(r, "name")->valuestring, k->string) != 0)
                        continue;
                    double c = field(r, "cpu_ns"), g = field(r, "gpu_ns"), d = field(r, "delay_ns");
                    delays[(int)n] = d;
                    n++, cpu += c, gpu += g, delay += d, mx = d > mx ? d : mx;
                    shorts += c <= 50000 && g < c, rt += c > 50000, dl += d > 100000;
                }
                cr_expect_eq(n, field(k, "launches"), "%s: %s launches", trace->string, k->string);
                if (!ns) {
                    cr_expect(cpu == 1000 * field(k, "cpu_us") && gpu == 1000 * field(k, "gpu_us") &&
                                  delay == 1000 * field(k, "delay_us") && mx == 1000 * field(k, "delay_max_us"),
                              "%s: %s times", trace->string, k->string);
                    cr_expect(shorts == field(k, "short") && rt == field(k, "runtime_outliers") && dl == field(k, "delay_outliers"),
                              "%s: %s counts", trace->string, k->string);
                }
                const cJSON *s = NULL;
                cJSON_ArrayForEach(r, summary) if (strcmp(cJSON_GetObjectItem(r, "name")->valuestring, k->string) == 0) s = r;
                cr_assert(s, "%s in the summary", k->string);
                char want_rank[32]; /* HTA's rank, as the text the database was given */
                snprintf(want_rank, sizeof want_rank, "r%s", rank->string);
                const cJSON *got_rank = cJSON_GetObjectItem(s, "rank");
                if (text_ranks)
                    cr_expect(cJSON_IsString(got_rank) && strcmp(got_rank->valuestring, want_rank) == 0, "%s: %s rank",
                              trace->string, k->string);
                else
                    cr_expect_eq(field(s, "rank"), atof(rank->string), "%s: %s rank %g, HTA's %s", trace->string,
                                 k->string, field(s, "rank"), rank->string);
                cr_expect(field(s, "launches") == n && field(s, "delay_max_ns") == mx && field(s, "short_kernels") == shorts &&
                              field(s, "runtime_outliers") == rt && field(s, "delay_outliers") == dl &&
                              fabs(field(s, "delay_avg_ns") - delay / n) <= 0.5,
                          "%s: %s summary", trace->string, k->string);
                qsort(delays, (size_t)n, sizeof *delays, cmp_dbl); /* the delay's median and p99, numpy's way */
                cr_expect(fabs(field(s, "delay_p50_ns") - linear_percentile(delays, (int)n, 50)) <= 0.5 &&
                              fabs(field(s, "delay_p99_ns") - linear_percentile(delays, (int)n, 99)) <= 0.5,
                          "%s: %s delay p50 %g p99 %g", trace->string, k->string, field(s, "delay_p50_ns"),
                          field(s, "delay_p99_ns"));
                free(delays);
                names++;
            }
        }
        cJSON_Delete(each), cJSON_Delete(summary);
    }
    cr_assert_eq(names, 479, "479 kernel names on 6 traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, launches_equal_hta, .timeout = 240)
{
    check_launches_against_hta(0);
}

Test(hta, launches_equal_hta_with_ranks_named_in_text, .timeout = 240)
{
    check_launches_against_hta(1);
}

/* tracedb kernels --by-type equals HTA's kernel type breakdown (exclusive time of computation,
 * communication, memory and each overlap of them, and the shares) on the us-resolution traces; on the
 * ns ones (HTA rounds to whole us) each category's time is within 1 us per GPU row. */
static void check_kernel_types_against_hta(int text_ranks)
{
    cJSON *doc, *traces = hta_output("hta_kernel_types_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int categories = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (text_ranks) { /* ranks that are not integers: SQL's GROUP BY makes the sums (type_stats_sql.sql) */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 'r' || coalesce(rank, 0)", NULL, NULL, NULL), SQLITE_OK);
            sqlite3_close(d);
        }
        int ns = ns_resolution(db);
        sqlite3 *d = db_open(db);
        double rows = (double)db_int(d, "SELECT count(*) FROM event WHERE kind IN (7, 8, 9, 10)");
        sqlite3_close(d);
        cJSON *ours = command_json("kernels --by-type", db), *cat;
        cJSON_ArrayForEach(cat, trace)
        {
            char lower[200];
            size_t i = 0;
            for (; cat->string[i] && i < sizeof lower - 1; i++)
                lower[i] = (char)(cat->string[i] >= 'A' && cat->string[i] <= 'Z' ? cat->string[i] + 32 : cat->string[i]);
            lower[i] = 0;
            const cJSON *row = NULL, *r;
            cJSON_ArrayForEach(r, ours) if (strcmp(cJSON_GetObjectItem(r, "kernel_type")->valuestring, lower) == 0) row = r;
            double want = 1000 * field(cat, "sum_us");
            if (!row) {
                cr_expect(want == 0 || (ns && want <= rows * 1000), "%s: %s (%.0f ns) is there", trace->string, lower, want);
                continue;
            }
            if (ns)
                cr_expect(fabs(field(row, "time_ns") - want) <= rows * 1000, "%s: %s %.0f ns, HTA %.0f", trace->string, lower,
                          field(row, "time_ns"), want);
            else {
                cr_expect_eq(field(row, "time_ns"), want, "%s: %s %.0f ns, HTA %.0f", trace->string, lower,
                             field(row, "time_ns"), want);
                cr_expect(fabs(field(row, "time_pct") - field(cat, "percentage")) <= 0.051, "%s: %s %.2f%%, HTA %.1f%%",
                          trace->string, lower, field(row, "time_pct"), field(cat, "percentage"));
            }
            categories++;
        }
        cJSON_Delete(ours);
    }
    cr_assert_geq(categories, 25, "the categories HTA found on 7 traces (%d)", categories);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, kernel_type_breakdown_equals_hta, .timeout = 240)
{
    check_kernel_types_against_hta(0);
}

Test(hta, kernel_type_breakdown_equals_hta_with_ranks_named_in_text, .timeout = 240)
{
    check_kernel_types_against_hta(1);
}

/* summary's GPU efficiency line holds what overlap, idle and launches say of the whole trace. */
Test(hta, summary_line_agrees_with_the_reports, .timeout = 120)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), db), 0);
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), db);
    cJSON *doc = cJSON_Parse(out);
    free(out);
    const cJSON *line = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "gpu_efficiency"), 0);
    cr_assert(line, "a GPU efficiency line");
    char *o = run_capture(&st, "'%s' overlap '%s' --format json", tracedb(), db);
    cJSON *ov = cJSON_Parse(o);
    cr_expect_eq(field(line, "comm_overlap_pct"), field(cJSON_GetArrayItem(ov, 0), "overlap_pct"));
    char *i = run_capture(&st, "'%s' idle '%s' --format json", tracedb(), db);
    cJSON *idle = cJSON_Parse(i), *r;
    double idle_ns = 0, host = 0;
    cJSON_ArrayForEach(r, idle) idle_ns += field(r, "idle_ns"), host += field(r, "host_wait_ns");
    cr_expect_eq(field(line, "idle_ns"), idle_ns);
    cr_expect(fabs(field(line, "host_wait_pct") - round(10000 * host / idle_ns) / 100) < 0.0051);
    char *l = run_capture(&st, "'%s' launches '%s' --each --format json", tracedb(), db);
    cJSON *each = cJSON_Parse(l);
    double worst = 0;
    cJSON_ArrayForEach(r, each) worst = field(r, "delay_ns") > worst ? field(r, "delay_ns") : worst;
    cr_expect_eq(field(line, "worst_launch_delay_ns"), worst);
    cr_assert_gt(worst, 0);
    cJSON_Delete(doc), cJSON_Delete(ov), cJSON_Delete(idle), cJSON_Delete(each);
    free(o), free(i), free(l);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* tracedb queue equals HTA's get_queue_length_summary per stream: samples, max, min and median exactly,
 * the sample mean within 0.5% (HTA orders a launch and a kernel start at the same us at random; tracedb
 * counts the launch first; ns traces are rounded to us by HTA). The time-weighted mean is the series' (--timeline) integral over its span. */
static void check_queue_against_hta(int text_devices)
{
    cJSON *doc, *traces = hta_output("hta_queue_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int streams = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (text_devices) { /* keys that are not integers: the pass takes SQL's order of the steps */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE event SET device = 'gpu' || device WHERE device IS NOT NULL", NULL, NULL, NULL),
                         SQLITE_OK);
            sqlite3_close(d);
        }
        cJSON *rows = command_json("queue", db), *series = command_json("queue --timeline", db), *rank;
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *h;
            cJSON_ArrayForEach(h, rank)
            {
                const cJSON *row = NULL, *r;
                cJSON_ArrayForEach(r, rows) if ((long)field(r, "stream") == atol(h->string)) row = r;
                cr_assert(row, "%s: stream %s", trace->string, h->string);
                cr_expect_eq(field(row, "rank"), atof(rank->string), "%s stream %s: rank %g, HTA's %s", trace->string,
                             h->string, field(row, "rank"), rank->string);
                cr_expect(field(row, "samples") == field(h, "count") && field(row, "max_queue") == field(h, "max") &&
                              field(row, "min_queue") == field(h, "min") && field(row, "p50_queue") == field(h, "50%"),
                          "%s stream %s: %g samples, max %g, min %g, p50 %g; HTA %g, %g, %g, %g", trace->string, h->string,
                          field(row, "samples"), field(row, "max_queue"), field(row, "min_queue"), field(row, "p50_queue"),
                          field(h, "count"), field(h, "max"), field(h, "min"), field(h, "50%"));
                cr_expect(fabs(field(row, "sample_mean") - field(h, "mean")) <= 0.005 * field(h, "mean") + 0.001,
                          "%s stream %s: mean %.3f, HTA %.3f", trace->string, h->string, field(row, "sample_mean"),
                          field(h, "mean"));
                /* the time-weighted mean from the series itself */
                double area = 0, first = -1, last = 0, prev_ts = 0, prev_q = 0;
                cJSON_ArrayForEach(r, series)
                {
                    if ((long)field(r, "stream") != atol(h->string))
                        continue;
                    double ts = field(r, "ts_ns");
                    if (first < 0)
                        first = ts;
                    else
                        area += prev_q * (ts - prev_ts);
                    prev_ts = ts, prev_q = field(r, "queue"), last = ts;
                }
                if (last > first)
                    cr_expect(fabs(field(row, "mean_queue") - area / (last - first)) < 0.0006, "%s stream %s: %.3f vs %.4f",
                              trace->string, h->string, field(row, "mean_queue"), area / (last - first));
                streams++;
            }
        }
        cJSON_Delete(rows), cJSON_Delete(series);
    }
    cr_assert_eq(streams, 20, "20 streams on 6 traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, queue_equals_hta, .timeout = 240)
{
    check_queue_against_hta(0);
}

Test(hta, queue_equals_hta_with_devices_named_in_text, .timeout = 240)
{
    check_queue_against_hta(1);
}

/* A bandwidth figure of tracedb (rounded to 6 decimals in SQL) against an oracle's: both NULL, or within
 * the rounding. */
static int bw_near(const cJSON *row, const char *ours, const cJSON *want, const char *theirs)
{
    const cJSON *a = cJSON_GetObjectItem(row, ours), *b = cJSON_GetObjectItem(want, theirs);
    if (!cJSON_IsNumber(b))
        return !cJSON_IsNumber(a);
    return cJSON_IsNumber(a) && fabs(a->valuedouble - b->valuedouble) <= 1e-6 + 1e-9 * fabs(b->valuedouble);
}

/* The describe() figures of a row of memops --bandwidth against an oracle's (count, mean, std, min,
 * quartiles, max); what differs is said. */
static int bw_stats_equal(const cJSON *row, const cJSON *want, const char *what)
{
    static const char *const keys[][2] = {{"mean_gbps", "mean"}, {"std_gbps", "std"}, {"min_gbps", "min"}, {"p25_gbps", "25%"},
                                          {"p50_gbps", "50%"},   {"p75_gbps", "75%"}, {"max_gbps", "max"}};
    int ok = field(row, "samples") == field(want, "count");
    cr_expect(ok, "%s: %g samples, the oracle %g", what, field(row, "samples"), field(want, "count"));
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int same = bw_near(row, keys[k][0], want, keys[k][1]);
        cr_expect(same, "%s: %s %.9g, the oracle's %s %.9g", what, keys[k][0], field(row, keys[k][0]), keys[k][1],
                  field(want, keys[k][1]));
        ok &= same;
    }
    return ok;
}

/* tracedb memops --bandwidth --drop-last-step on the real traces, per rank and memory type: the samples'
 * count, mean, std, min, quartiles and max, the time-weighted mean and the busy time equal the oracle's
 * (tests/oracle/hta_membw.py: HTA's window and kernel types, tracedb's rules in pandas: times in ns, every
 * change at one time applied at once, 0 when nothing runs); and HTA's own get_memory_bw_summary wherever
 * no two of the type's steps share a time (elsewhere HTA's order of them, and so its samples, is
 * arbitrary). The series (--timeline) has a row per change, and its integral gives the weighted mean. */
Test(hta, memory_bandwidth_equals_hta, .timeout = 240)
{
    cJSON *doc, *traces = hta_output("hta_membw_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int groups = 0, as_hta = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        cJSON *rows = command_json("memops --bandwidth", db), *series = command_json("memops --bandwidth --timeline", db);
        cJSON *rank, *r;
        int want_rows = 0;
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *op;
            cJSON_ArrayForEach(op, rank)
            {
                const cJSON *exact = cJSON_GetObjectItem(op, "exact"), *hta = cJSON_GetObjectItem(op, "hta"), *row = NULL;
                if (!exact)
                    continue;
                if (strstr(trace->string, "mtia") && !hta) {
                    /* MTIA's dma_request rows are a kind of their own here (category mtia_ccp_events), not GPU
                     * work as the HTA reports read it; all are 0 GB/s, so HTA's summary has nothing either */
                    cJSON_ArrayForEach(r, rows) cr_expect(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "operation")), op->string) != 0);
                    continue;
                }
                want_rows++;
                cJSON_ArrayForEach(r, rows)
                if (field(r, "rank") == atof(rank->string) && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "operation")), op->string) == 0)
                    row = r;
                char what[600];
                snprintf(what, sizeof what, "%s rank %s %s", trace->string, rank->string, op->string);
                cr_assert(row, "%s: no row", what);
                bw_stats_equal(row, exact, what);
                cr_expect(bw_near(row, "weighted_mean_gbps", exact, "weighted_mean") && field(row, "busy_ns") == field(exact, "busy_ns"),
                          "%s: weighted mean %.9g over %g ns, the oracle %.9g over %g", what, field(row, "weighted_mean_gbps"),
                          field(row, "busy_ns"), field(exact, "weighted_mean"), field(exact, "busy_ns"));
                if (hta && field(hta, "hta_steps_tied") == 0) {
                    char h[700];
                    snprintf(h, sizeof h, "%s (HTA's own)", what);
                    as_hta += bw_stats_equal(row, hta, h);
                }
                /* the series: a row per change; its integral is the weighted mean times the busy time */
                double area = 0, prev_ts = 0, prev_v = 0, first_ts = 0;
                int changes = 0;
                cJSON_ArrayForEach(r, series)
                {
                    if (field(r, "rank") != atof(rank->string) || strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "operation")), op->string) != 0)
                        continue;
                    double ts = field(r, "ts_ns");
                    if (changes++)
                        area += prev_v * (ts - prev_ts);
                    else
                        first_ts = ts;
                    prev_ts = ts, prev_v = field(r, "gbps");
                }
                /* each value is rounded to 6 decimals: the area is off by at most 5e-7 GB/s over the span */
                double want_area = field(exact, "weighted_mean") * field(exact, "busy_ns");
                cr_expect(changes == field(exact, "changes") && prev_v == 0 &&
                              fabs(area - want_area) <= 5e-7 * (prev_ts - first_ts) + 1e-9 * want_area,
                          "%s: %d changes (the oracle %g), the last %g, area %.9g (the oracle %.9g)", what, changes,
                          field(exact, "changes"), prev_v, area, want_area);
                groups++;
            }
        }
        cr_expect_eq(cJSON_GetArraySize(rows), want_rows, "%s: %d rows, the oracle %d", trace->string, cJSON_GetArraySize(rows), want_rows);
        cJSON_Delete(rows), cJSON_Delete(series);
    }
    cr_assert_geq(groups, 30, "%d memory types over the traces (30 on 11)", groups);
    cr_assert_geq(as_hta, 27, "%d of them equal HTA's own summary", as_hta);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The bandwidth by hand (times in us, GB/s): Memcpy HtoD A [0, 10] 2, B [5, 15] 3, C [15, 20] 4 (it starts
 * where B ends: one change, 3 -> 4), D at 30 with no duration 1.5 (counts 1 us, as in HTA), E [40, 50]
 * with no bandwidth (0 GB/s, as HTA fills it: it changes nothing but is busy time), F [60, 70] 0.1 and
 * G [62, 65] 0.2 (in floats the sum comes back to 2.8e-17, not 0, at 70: no op runs, so 0); a Memcpy DtoH
 * whose bandwidth is text (0); Memset S [100, 104] 8; dma_copy [200, 210] 1 ("Memcpy Unknown"); a compute
 * kernel with a bandwidth counts nowhere.
 * HtoD changes at 0 5 10 15 20 30 31 40 50 60 62 65 70 to 2 5 3 4 0 1.5 0 0 0 0.1 0.3 0.1 0: samples 2 5 3 4
 * 1.5 0.1 0.3 0.1 (8), mean 16/8 = 2, sorted 0.1 0.1 0.3 1.5 2 3 4 5: min 0.1, p25 0.1 + 0.75 * 0.2 = 0.25,
 * median 1.75, p75 3 + 0.25 = 3.25, max 5; std sqrt((0 + 9 + 1 + 4 + 0.25 + 3.61 + 2.89 + 3.61) / 7) =
 * sqrt(24.36 / 7); busy 5 + 5 + 5 + 5 + 1 + 10 + 2 + 3 + 5 = 41 us, area 10 + 25 + 15 + 20 + 1.5 + 0 + 0.2
 * + 0.9 + 0.5 = 73.1, weighted mean 73.1 / 41. */
Test(hta, memory_bandwidth_by_hand)
{
#define MEMCPY(name, ts, dur, bw) \
    "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"device\":0,\"stream\":7,\"memory bandwidth (GB/s)\":" bw "}},"
    static const char trace[] =
        "{\"traceEvents\":[" MEMCPY("Memcpy HtoD (Pinned -> Device)", 0, 10, "2.0") MEMCPY("Memcpy HtoD (Pageable -> Device)", 5, 10, "3")
        MEMCPY("Memcpy HtoD (Pinned -> Device)", 15, 5, "4") MEMCPY("Memcpy HtoD (Pinned -> Device)", 30, 0, "1.5")
        "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},"
        MEMCPY("Memcpy HtoD (Pinned -> Device)", 60, 10, "0.1") MEMCPY("Memcpy HtoD (Pinned -> Device)", 62, 3, "0.2")
        MEMCPY("Memcpy DtoH (Device -> Pinned)", 80, 5, "\"fast\"")
        "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"memory bandwidth (GB/s)\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"dma_copy\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"memory bandwidth (GB/s)\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":10,\"args\":{\"device\":0,\"stream\":7,\"memory bandwidth (GB/s)\":50}}"
        "]}";
#undef MEMCPY
    char *dir = temp_dir(), db[600];
    import_text(dir, trace, db, sizeof db);
    cJSON *rows = command_json("memops --bandwidth", db), *row;
    cr_assert_eq(cJSON_GetArraySize(rows), 4, "DtoH, HtoD, Memset and the unknown copy");
    row = cJSON_GetArrayItem(rows, 0);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "operation")), "Memcpy DtoH");
    cr_expect(field(row, "samples") == 0 && cJSON_IsNull(cJSON_GetObjectItem(row, "mean_gbps")) && field(row, "weighted_mean_gbps") == 0 &&
              field(row, "busy_ns") == 5000);
    row = cJSON_GetArrayItem(rows, 1);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "operation")), "Memcpy HtoD");
    cr_expect(field(row, "samples") == 8 && field(row, "mean_gbps") == 2 && field(row, "min_gbps") == 0.1 && field(row, "p25_gbps") == 0.25 &&
                  field(row, "p50_gbps") == 1.75 && field(row, "p75_gbps") == 3.25 && field(row, "max_gbps") == 5 &&
                  fabs(field(row, "std_gbps") - sqrt(24.36 / 7)) < 1e-6 && fabs(field(row, "weighted_mean_gbps") - 73.1 / 41) < 1e-6 &&
                  field(row, "busy_ns") == 41000,
              "HtoD: %g samples, mean %g, std %g, min %g, p25 %g, p50 %g, p75 %g, max %g, weighted %g, busy %g", field(row, "samples"),
              field(row, "mean_gbps"), field(row, "std_gbps"), field(row, "min_gbps"), field(row, "p25_gbps"), field(row, "p50_gbps"),
              field(row, "p75_gbps"), field(row, "max_gbps"), field(row, "weighted_mean_gbps"), field(row, "busy_ns"));
    row = cJSON_GetArrayItem(rows, 2);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "operation")), "Memcpy Unknown");
    cr_expect(field(row, "samples") == 1 && field(row, "mean_gbps") == 1 && field(row, "busy_ns") == 10000);
    row = cJSON_GetArrayItem(rows, 3);
    cr_expect_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(row, "operation")), "Memset");
    cr_expect(field(row, "samples") == 1 && field(row, "max_gbps") == 8 && cJSON_IsNull(cJSON_GetObjectItem(row, "std_gbps")) &&
              field(row, "weighted_mean_gbps") == 8 && field(row, "busy_ns") == 4000);
    cJSON_Delete(rows);
    static const double want_ts[] = {0, 5, 10, 15, 20, 30, 31, 40, 50, 60, 62, 65, 70},
                        want_v[] = {2, 5, 3, 4, 0, 1.5, 0, 0, 0, 0.1, 0.3, 0.1, 0};
    cJSON *series = command_json("memops --bandwidth --timeline", db);
    cr_assert_eq(cJSON_GetArraySize(series), 2 + 13 + 2 + 2, "13 changes of HtoD, 2 of each other type");
    for (int i = 0; i < 13; i++) {
        const cJSON *s = cJSON_GetArrayItem(series, 2 + i);
        cr_expect(field(s, "ts_ns") == want_ts[i] * 1000 && field(s, "gbps") == want_v[i], "change %d: %g ns %g GB/s", i, field(s, "ts_ns"),
                  field(s, "gbps"));
    }
    cJSON_Delete(series);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* tracedb kernels --patterns OP --drop-last-step equals HTA's get_frequent_cuda_kernel_sequences on every
 * real trace and common operator HTA answers for (its call stacks raise on three traces): the same
 * patterns in the same order, each with HTA's count and its GPU and CPU time (HTA's us, exact). One
 * case differs on purpose: on negative_queue_length_values_check HTA's call stack nests 9 of the 12
 * backward aten::mm of its window under a 1 us aten::item of an earlier step (a later step's calls
 * inside it), so they are deeper and HTA counts 1 occurrence; there the count is checked against the
 * database's own nesting, counted here in plain SQL: the aten::mm before the last step with 3 or more
 * GPU operations whose launch has it among its ancestors. */
Test(hta, kernel_patterns_equal_hta, .timeout = 240)
{
    cJSON *doc, *traces = hta_output("hta_kernel_patterns_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int cases = 0, patterns = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        if (cJSON_GetObjectItem(trace, "error") || !trace->child)
            continue;
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        cJSON *rank, *op;
        cJSON_ArrayForEach(rank, trace) cJSON_ArrayForEach(op, rank)
        {
            if (!cJSON_IsArray(op)) /* HTA raised */
                continue;
            char args[300];
            snprintf(args, sizeof args, "kernels --patterns '%s'", op->string);
            cJSON *rows = command_json(args, db);
            if (strstr(trace->string, "negative_queue") && strcmp(op->string, "aten::mm") == 0) {
                sqlite3 *d = db_open(db);
                int64_t want = db_int(d, "WITH RECURSIVE last AS (SELECT max(e.start_ns) AS t FROM event e JOIN string s ON s.id = e.name_id "
                                         "WHERE s.value GLOB 'ProfilerStep#*'), "
                                         "mm AS (SELECT e.id FROM event e JOIN string s ON s.id = e.name_id "
                                         "WHERE instr(s.value, 'aten::mm') > 0 AND e.start_ns < (SELECT t FROM last)), "
                                         "up(g, a) AS (SELECT g.id, g.launch_id FROM event g WHERE g.launch_id IS NOT NULL AND g.kind IN (7, 8, 9) "
                                         "UNION ALL SELECT up.g, e.parent_id FROM up JOIN event e ON e.id = up.a WHERE e.parent_id IS NOT NULL) "
                                         "SELECT count(*) FROM (SELECT a FROM up WHERE a IN (SELECT id FROM mm) GROUP BY a HAVING count(*) >= 3)");
                sqlite3_close(d);
                double got = 0;
                int has_hta_pattern = 0;
                const cJSON *r;
                cJSON_ArrayForEach(r, rows)
                {
                    got += field(r, "count");
                    has_hta_pattern |= strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "pattern")),
                                              cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(op, 0), "pattern"))) == 0;
                }
                cr_expect(want == 4 && got == want && has_hta_pattern, "%s aten::mm: %g occurrences, the nesting's %lld", trace->string, got,
                          (long long)want);
                cJSON_Delete(rows);
                cases++;
                continue;
            }
            cr_expect_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(op), "%s %s: %d patterns, HTA %d", trace->string, op->string,
                         cJSON_GetArraySize(rows), cJSON_GetArraySize(op));
            for (int i = 0; i < cJSON_GetArraySize(op) && i < cJSON_GetArraySize(rows); i++) {
                const cJSON *h = cJSON_GetArrayItem(op, i), *r = cJSON_GetArrayItem(rows, i);
                const char *hp = cJSON_GetStringValue(cJSON_GetObjectItem(h, "pattern")), *rp = cJSON_GetStringValue(cJSON_GetObjectItem(r, "pattern"));
                int bars = 0;
                for (const char *p = hp; *p; p++)
                    bars += *p == '|';
                cr_expect(strcmp(hp, rp) == 0 && field(r, "rank") == atof(rank->string) && field(r, "count") == field(h, "count") &&
                              field(r, "gpu_ns") == round(field(h, "gpu_us") * 1000) && field(r, "cpu_ns") == round(field(h, "cpu_us") * 1000) &&
                              field(r, "kernels") == bars,
                          "%s %s #%d: count %g gpu %g cpu %g kernels %g; HTA %g %g us %g us (%d) %.120s | %.120s", trace->string, op->string, i,
                          field(r, "count"), field(r, "gpu_ns"), field(r, "cpu_ns"), field(r, "kernels"), field(h, "count"), field(h, "gpu_us"),
                          field(h, "cpu_us"), bars, rp, hp);
                patterns++;
            }
            cJSON_Delete(rows);
            cases++;
        }
    }
    cr_assert_geq(cases, 8, "%d operator cases on 6 traces", cases);
    cr_assert_geq(patterns, 17, "%d patterns equal HTA's", patterns);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A Kineto-shaped trace built in a test: host events (pid 1) and launches with their kernel (pid 0, stream
 * 7, 10 us each), written at p; each returns the end of what it wrote. */
static char *trace_event(char *p, const char *name, const char *cat, int tid, int ts, int dur, const char *args)
{
    return p + sprintf(p, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d%s},", cat, name,
                       tid, ts, dur, args);
}

static char *trace_launch(char *p, int *corr, int tid, int ts, const char *kernel, int kts)
{
    char a[64];
    snprintf(a, sizeof a, ",\"args\":{\"correlation\":%d}", ++*corr);
    p = trace_event(p, "cudaLaunchKernel", "cuda_runtime", tid, ts, 5, a);
    return p + sprintf(p, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":10,"
                          "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},",
                   kernel, kts, *corr);
}

/* The backward thread hung under the main thread's "## backward ##", as HTA links them (its output on this
 * trace, run once: 2 occurrences of aten::mm|gemm_a|gemm_b|add_c, 60 us of GPU time, 200 us of CPU
 * time). Three steps on thread 10 (main), each: ProfilerStep#k [1000k, +990], "## forward ##" [+10, +400]
 * holding aten::mm [+20, +100] (depth 2) that launches gemm_a, gemm_b, add_c (10 us each); "## backward ##"
 * [+500, +400]. Thread 20 (backward): evaluate_function: MmBackward0 [+550, +200] (its top level, inside
 * the annotation) holding aten::mm [+560, +150] (depth 1 on its thread) that launches gemm_bwd three times.
 * Linked, the backward aten::mm is at depth 1 + 1 + 1 = 3, so the forward one (2) is the root: HTA's
 * window (the last step dropped) holds 2. Unlinked, the backward one (1) would be. With the whole trace, 3;
 * with --min-kernels 4, none; with 'MmBackward' (depth 2 linked, no other candidate), the backward calls
 * (HTA, run once on this trace: the same for aten::mm, MmBackward and min_pattern_len 4). */
Test(hta, kernel_patterns_follow_the_backward_thread_link)
{
    char trace[12000] = "{\"traceEvents\":[", *p = trace + strlen(trace);
    int corr = 0;
#define EVENT(name, cat, tid, ts, dur, args) p = trace_event(p, name, cat, tid, ts, dur, args)
#define LAUNCH(tid, ts, kernel, kts) p = trace_launch(p, &corr, tid, ts, kernel, kts)
    for (int k = 0; k < 3; k++) {
        int b = 1000 * k;
        char step[32];
        snprintf(step, sizeof step, "ProfilerStep#%d", k);
        EVENT(step, "user_annotation", 10, b, 990, "");
        EVENT("## forward ##", "user_annotation", 10, b + 10, 400, "");
        EVENT("aten::mm", "cpu_op", 10, b + 20, 100, "");
        LAUNCH(10, b + 30, "gemm_a", b + 40);
        LAUNCH(10, b + 50, "gemm_b", b + 60);
        LAUNCH(10, b + 70, "add_c", b + 80);
        EVENT("## backward ##", "user_annotation", 10, b + 500, 400, "");
        EVENT("autograd::engine::evaluate_function: MmBackward0", "cpu_op", 20, b + 550, 200, "");
        EVENT("aten::mm", "cpu_op", 20, b + 560, 150, "");
        LAUNCH(20, b + 570, "gemm_bwd", b + 580);
        LAUNCH(20, b + 590, "gemm_bwd", b + 600);
        LAUNCH(20, b + 610, "gemm_bwd", b + 620);
    }
#undef EVENT
#undef LAUNCH
    strcpy(p - 1, "]}");
    char *dir = temp_dir(), db[600];
    import_text(dir, trace, db, sizeof db);
    static const struct {
        const char *args, *pattern;
        double count, gpu, cpu;
        int last_step_too;
    } want[] = {
        {"--patterns aten::mm", "aten::mm|gemm_a|gemm_b|add_c", 2, 60000, 200000, 0},
        {"--patterns aten::mm", "aten::mm|gemm_a|gemm_b|add_c", 3, 90000, 300000, 1},
        {"--patterns aten::mm --min-kernels 4", NULL, 0, 0, 0, 0},
        {"--patterns MmBackward", "autograd::engine::evaluate_function: MmBackward0|gemm_bwd|gemm_bwd|gemm_bwd", 2, 60000, 400000, 0},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "'%s' kernels '%s' %s%s --format json", tracedb(), db, want[i].args,
                 want[i].last_step_too ? "" : " --drop-last-step");
        int st;
        char *out = run_capture(&st, "%s", cmd);
        cJSON *rows = cJSON_Parse(out);
        if (!want[i].pattern) {
            cr_expect(!rows || cJSON_GetArraySize(rows) == 0, "%s: %s", want[i].args, out);
        } else {
            const cJSON *r = cJSON_GetArrayItem(rows, 0);
            cr_expect(cJSON_GetArraySize(rows) == 1 && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "pattern")), want[i].pattern) == 0 &&
                          field(r, "count") == want[i].count && field(r, "gpu_ns") == want[i].gpu && field(r, "cpu_ns") == want[i].cpu &&
                          field(r, "kernels") == 3,
                      "%s%s: %s", want[i].args, want[i].last_step_too ? " (whole trace)" : "", out);
        }
        cJSON_Delete(rows);
        free(out);
    }
    /* a stranger's database with a loop of parents on the backward thread: the walk up ends (it ran forever) */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event SET parent_id = (SELECT c.id FROM event c WHERE c.parent_id = event.id) "
                                 "WHERE thread_id = (SELECT thread_id FROM event WHERE parent_id IS NOT NULL ORDER BY thread_id DESC LIMIT 1) "
                                 "AND depth = 0 AND kind = 1",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    cr_assert_gt(sqlite3_changes(d), 0);
    sqlite3_close(d);
    int st;
    char *out = run_capture(&st, "timeout 60 '%s' kernels '%s' --patterns aten::mm --format json; echo rc=$?", tracedb(), db);
    cr_expect(strstr(out, "rc=0") && strstr(out, "gemm_bwd"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Roots that touch and a candidate inside a candidate, worked by hand: aten::a [0, 100] us launches k1,
 * k2, k3; aten::b [100, 200] (it begins where aten::a ends: a sibling, not a child) holds aten::c [110,
 * 170], whose three launches and a fourth after it (at 180 us, inside aten::b only) are aten::b's. Both
 * are roots at depth 0: aten::a|k1|k2|k3 (30 us of GPU time, 100 us of CPU time) and
 * aten::b|k4|k5|k6|k7 (40 us, 100 us); aten::c, deeper, is none. The C pass leaves a candidate inside a
 * candidate out as it reads; one that leaves out a call whose neighbour ended at its start (aten::b) loses
 * a root. */
Test(hta, kernel_patterns_touching_and_nested_calls)
{
    char trace[4000] = "{\"traceEvents\":[", *p = trace + strlen(trace);
    int corr = 0;
#define EVENT(name, ts, dur) p = trace_event(p, name, "cpu_op", 10, ts, dur, "")
#define LAUNCH(ts, kernel, kts) p = trace_launch(p, &corr, 10, ts, kernel, kts)
    EVENT("aten::a", 0, 100);
    LAUNCH(10, "k1", 20);
    LAUNCH(30, "k2", 40);
    LAUNCH(50, "k3", 60);
    EVENT("aten::b", 100, 100);
    EVENT("aten::c", 110, 60);
    LAUNCH(120, "k4", 300);
    LAUNCH(140, "k5", 320);
    LAUNCH(160, "k6", 340);
    LAUNCH(180, "k7", 360);
#undef EVENT
#undef LAUNCH
    strcpy(p - 1, "]}");
    char *dir = temp_dir(), db[600], cmd[1200];
    import_text(dir, trace, db, sizeof db);
    snprintf(cmd, sizeof cmd, "'%s' kernels '%s' --patterns aten:: --format json", tracedb(), db);
    cJSON *rows = json_rows(cmd);
    static const struct {
        const char *pattern;
        double kernels, gpu, cpu;
    } want[] = {{"aten::a|k1|k2|k3", 3, 30000, 100000}, {"aten::b|k4|k5|k6|k7", 4, 40000, 100000}};
    cr_expect_eq(cJSON_GetArraySize(rows), 2, "%d patterns", cJSON_GetArraySize(rows));
    for (int i = 0; i < 2; i++) {
        const cJSON *r = NULL, *x;
        cJSON_ArrayForEach(x, rows) if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(x, "pattern")), want[i].pattern) == 0) r = x;
        cr_expect(r && field(r, "count") == 1 && field(r, "kernels") == want[i].kernels && field(r, "gpu_ns") == want[i].gpu &&
                      field(r, "cpu_ns") == want[i].cpu,
                  "%s: %s, count %g, kernels %g, gpu %g, cpu %g", want[i].pattern, r ? "found" : "missing", field(r, "count"),
                  field(r, "kernels"), field(r, "gpu_ns"), field(r, "cpu_ns"));
    }
    cJSON_Delete(rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

static int lines(const char *s)
{
    int n = 0;
    for (; (s = strchr(s, '\n')); s++)
        n++;
    return n;
}

/* `kernels --patterns` runs as one C pass (analyzer/report/pattern_sweep.c); queries/kernels_patterns.sql,
 * the same in SQL (the one kernel_patterns_equal_hta checked against HTA before the C pass), serves a
 * foreign database. On every real trace, for candidates of every kind (all operators, the backward
 * thread's calls, communication) and windows (HTA's, without the last step; a time window), both give
 * the same rows: the second run's database holds an instant at each operator's start whose duration is
 * a real number, which neither counts but which sends the report to SQL. TRACEDB_TIMING's phases say
 * which ran ("patterns: grouped" is the C pass's last). */
/* Takes TRACEDB_TIMING's lines ("tracedb: ...") out of a command's output, in place. */
static void drop_phase_lines(char *out)
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

Test(hta, kernel_patterns_c_pass_equals_its_sql, .timeout = 300)
{
    static const char *const names[] = {"aten::", "autograd::", "nccl"};
    static const char *const windows[] = {"--drop-last-step --min-kernels 1", "--from 1ms --to 300ms --min-kernels 2"};
    enum { RUNS = sizeof names / sizeof names[0] * (sizeof windows / sizeof windows[0]) };
    cJSON *doc, *traces = hta_output("hta_kernel_patterns_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int dbs = 0, compared = 0, rows = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        char *c_out[RUNS];
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                sqlite3 *d;
                cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
                cr_assert_eq(sqlite3_exec(d, "INSERT INTO event (kind, name_id, thread_id, start_ns, dur_ns, self_ns, depth) "
                                             "SELECT 12, name_id, thread_id, start_ns, 0.5, 0, 0 FROM event WHERE kind = 1",
                                          NULL, NULL, NULL),
                             SQLITE_OK, "%s", sqlite3_errmsg(d));
                sqlite3_close(d);
            }
            for (int r = 0; r < RUNS; r++) {
                const char *name = names[r / (sizeof windows / sizeof windows[0])], *window = windows[r % (sizeof windows / sizeof windows[0])];
                int st;
                char *out = run_capture(&st, "TRACEDB_TIMING=1 '%s' kernels '%s' --patterns '%s' %s --format csv 2>&1", tracedb(), db, name, window);
                cr_assert_eq(st, 0, "%s %s %s: %s", trace->string, name, window, out);
                char *timing = strstr(out, "tracedb: patterns: grouped");
                /* (a window without operators holds no foreign instant: the C pass then runs, and finds nothing) */
                cr_expect(pass == 0 ? timing != NULL : timing == NULL || lines(c_out[r]) < 2, "%s %s %s, %s: %s",
                          trace->string, name, window, pass == 0 ? "the C pass" : "SQL", out);
                drop_phase_lines(out); /* the rows without the phases' lines */
                if (pass == 0) {
                    c_out[r] = out;
                    continue;
                }
                cr_expect_str_eq(c_out[r], out, "%s --patterns %s %s: the C pass and SQL differ", trace->string, name, window);
                rows += lines(out) - 1;
                compared++;
                free(c_out[r]);
                free(out);
            }
        }
        dbs++;
    }
    cr_assert_geq(dbs, 16, "%d real traces", dbs);
    cr_assert_geq(rows, 500, "%d rows compared in %d runs", rows, compared);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* tracedb device --drop-last-step's whole-trace row equals HTA's temporal breakdown: span = kernel time,
 * run = compute, IO-wait = non-compute, idle = idle, on the traces whose GPU rows are kernels, memcpy and
 * memset. HTA also counts synchronization rows that carry a stream (Event Sync, Context Sync) as GPU
 * time, which tracedb does not: on the one trace that has them (alexnet) compute time is equal and the
 * span differs by their extent. The ns-resolution trace is left out (HTA's rounding). */
Test(hta, device_equals_htas_temporal_breakdown, .timeout = 240)
{
    cJSON *doc, *traces = hta_output("hta_temporal_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int ranks = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        if (ns_resolution(db))
            continue;
        sqlite3 *d = db_open(db);
        int syncs = db_int(d, "SELECT count(*) FROM event WHERE kind = 10 AND stream IS NOT NULL") > 0;
        sqlite3_close(d);
        cJSON *rows = command_json("device", db), *rank;
        const cJSON *whole = NULL, *r;
        cJSON_ArrayForEach(r, rows) if (cJSON_IsNull(cJSON_GetObjectItem(r, "step"))) whole = r;
        cr_assert(whole, "%s: a whole-trace row", trace->string);
        cJSON_ArrayForEach(rank, trace)
        {
            cr_expect_eq(field(whole, "run_ns"), 1000 * field(rank, "compute_us"), "%s: run %.0f, HTA compute %.0f us",
                         trace->string, field(whole, "run_ns"), field(rank, "compute_us"));
            if (!syncs) {
                cr_expect_eq(field(whole, "span_ns"), 1000 * field(rank, "kernel_us"), "%s: span", trace->string);
                cr_expect_eq(field(whole, "io_wait_ns"), 1000 * field(rank, "non_compute_us"), "%s: IO-wait", trace->string);
                cr_expect_eq(field(whole, "idle_ns"), 1000 * field(rank, "idle_us"), "%s: idle", trace->string);
            } else {
                cr_expect_lt(field(whole, "span_ns"), 1000 * field(rank, "kernel_us"), "%s: HTA's span has the syncs",
                             trace->string);
            }
            ranks++;
        }
        cJSON_Delete(rows);
    }
    cr_assert_eq(ranks, 5, "five us-resolution traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* One `tracedb critical-path` row (args after the database), as JSON. */
static cJSON *critical_path_json(const char *db, const char *args)
{
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' critical-path '%s' %s --format json", tracedb(), db, args);
    return json_rows(cmd);
}

/* critical-path DB --each lists n edges: each (type, bound, event name) and its weight in ns. */
static void expect_path(const char *db, size_t n, const char *const (*want)[3], const double *dur)
{
    cJSON *each = critical_path_json(db, "--each"), *s;
    cr_assert_eq(cJSON_GetArraySize(each), (int)n);
    size_t i = 0;
    cJSON_ArrayForEach(s, each)
    {
        const char *type = cJSON_GetObjectItem(s, "type")->valuestring, *bound = cJSON_GetObjectItem(s, "bound")->valuestring;
        const char *name = cJSON_GetObjectItem(s, "name")->valuestring;
        cr_expect(strcmp(type, want[i][0]) == 0 && strcmp(bound, want[i][1]) == 0 && strcmp(name, want[i][2]) == 0 &&
                      field(s, "dur_ns") == dur[i],
                  "edge %zu: %s %s %s %g; want %s %s %s %g", i + 1, type, bound, name, field(s, "dur_ns"), want[i][0],
                  want[i][1], want[i][2], dur[i]);
        i++;
    }
    cJSON_Delete(each);
}

static double bound_us(const cJSON *c, const char *k)
{
    return field(cJSON_GetObjectItem(c, "bound_us"), k);
}

/* tracedb critical-path equals HTA's critical_path_analysis on 14 cases from 12 real traces (HTA's own
 * test traces, alexnet in 3 windows and the multi-stream event sync one, and every other real trace HTA's
 * analysis runs on): in HTA's window and rounding (--drop-last-step --hta-rounding) the path's length, its
 * sums per bound, its edges (count, types, and a digest of their weights in order; for paths of up to
 * 4000 edges each edge's type, weight and event name) and the graph's size. Where tracedb differs on
 * purpose: HTA keeps one kernel per CUDA graph launch (it links a launch call to the last kernel sharing
 * its correlation), tracedb every one, so on the two traces replaying CUDA graphs the graph has 2 nodes
 * more per dropped kernel (counted here in SQL) and the same path. */
Test(hta, critical_path_equals_hta, .timeout = 300)
{
    cJSON *doc;
    char rel[200];
    snprintf(rel, sizeof rel, "tests/data/%s", "hta_critical_path_expected.json");
    char *text = read_file(src_path(rel), NULL), *dir = temp_dir();
    doc = cJSON_Parse(text);
    free(text);
    cJSON *cases = cJSON_GetObjectItem(doc, "cases"), *c;
    cr_assert(cJSON_GetArraySize(cases) >= 14);
    int checked = 0, listed = 0;
    cJSON_ArrayForEach(c, cases)
    {
        const char *trace = cJSON_GetObjectItem(c, "trace")->valuestring;
        const char *annotation = cJSON_GetObjectItem(c, "annotation")->valuestring;
        const cJSON *inst = cJSON_GetObjectItem(c, "instance");
        char db[1200], args[600];
        snprintf(db, sizeof db, "%s/%s.db", dir, trace);
        if (access(db, F_OK) != 0)
            import_real(dir, trace, db, sizeof db);
        if (*annotation)
            snprintf(args, sizeof args, "--range '%s#%d' --drop-last-step --hta-rounding", annotation, inst->valueint);
        else
            snprintf(args, sizeof args, "--drop-last-step --hta-rounding");
        cJSON *rows = critical_path_json(db, args), *row = cJSON_GetArrayItem(rows, 0);
        cr_assert_eq(cJSON_GetArraySize(rows), 1, "%s %s", trace, args);
        cr_expect_eq(field(row, "path_ns"), field(c, "path_us") * 1000, "%s %s: %g vs HTA %g us", trace, args,
                     field(row, "path_ns"), field(c, "path_us"));
        static const char *const bounds[][2] = {{"cpu_ns", "cpu_bound"},
                                                {"gpu_compute_ns", "gpu_compute_bound"},
                                                {"gpu_comm_ns", "gpu_communication_bound"},
                                                {"launch_ns", "gpu_kernel_launch_overhead"},
                                                {"kernel_gap_ns", "gpu_kernel_kernel_overhead"}};
        for (size_t b = 0; b < 5; b++)
            cr_expect_eq(field(row, bounds[b][0]), bound_us(c, bounds[b][1]) * 1000, "%s %s: %s %g vs HTA %g us", trace, args,
                         bounds[b][0], field(row, bounds[b][0]), bound_us(c, bounds[b][1]));
        cr_expect_eq(field(row, "path_edges"), field(c, "path_edges"), "%s: edges", trace);
        cr_expect_eq(field(row, "path_events"), field(c, "path_events"), "%s: events", trace);
        /* HTA drops all but the last kernel of a CUDA graph launch from its graph */
        sqlite3 *d = db_open(db);
        int64_t dropped = db_int(d, "WITH last AS (SELECT coalesce((SELECT max(e.start_ns) FROM event e JOIN string n ON n.id = e.name_id "
                                    "  WHERE e.kind = 2 AND n.value GLOB 'ProfilerStep#[0-9]*' HAVING count(DISTINCT n.value) >= 2), "
                                    "  9223372036854775807) AS s) "
                                    "SELECT count(*) FROM event g JOIN event l ON l.id = g.launch_id, last "
                                    "WHERE g.stream IS NOT NULL AND g.stream != -1 AND l.start_ns < last.s AND l.dur_ns > 0 "
                                    "AND EXISTS (SELECT 1 FROM event g2 WHERE g2.launch_id = g.launch_id AND g2.id > g.id "
                                    "  AND g2.stream IS NOT NULL AND g2.stream != -1)");
        sqlite3_close(d);
        cr_expect_eq(field(row, "graph_nodes"), field(c, "graph_nodes") + 2.0 * (double)dropped, "%s: %g nodes, HTA %g + 2 x %lld",
                     trace, field(row, "graph_nodes"), field(c, "graph_nodes"), (long long)dropped);
        if (dropped == 0)
            cr_expect_eq(field(row, "graph_edges"), field(c, "graph_edges"), "%s: graph edges", trace);
        /* the path itself, edge by edge */
        snprintf(args + strlen(args), sizeof args - strlen(args), " --each");
        cJSON *each = critical_path_json(db, args), *s;
        cr_assert_eq(cJSON_GetArraySize(each), (int)field(c, "path_edges"), "%s: --each rows", trace);
        uint64_t digest = 0;
        int i = 0;
        const cJSON *steps = cJSON_GetObjectItem(c, "steps"), *types = cJSON_GetObjectItem(c, "types");
        int type_count[5] = {0};
        static const char *const type_names[] = {"operator", "dependency", "launch_delay", "kernel_gap", "sync"};
        cJSON_ArrayForEach(s, each)
        {
            double w = field(s, "dur_ns") / 1000;
            digest = (digest + (uint64_t)(i + 1) * (uint64_t)w) % (1ULL << 61);
            const char *type = cJSON_GetObjectItem(s, "type")->valuestring;
            for (int t = 0; t < 5; t++)
                type_count[t] += strcmp(type, type_names[t]) == 0;
            if (cJSON_IsArray(steps)) {
                const cJSON *h = cJSON_GetArrayItem(steps, i);
                const cJSON *name = cJSON_GetObjectItem(s, "name");
                cr_expect(strcmp(type, cJSON_GetArrayItem(h, 0)->valuestring) == 0 &&
                              w == cJSON_GetArrayItem(h, 1)->valuedouble && cJSON_IsString(name) &&
                              strcmp(name->valuestring, cJSON_GetArrayItem(h, 2)->valuestring) == 0,
                          "%s: edge %d: %s %g %s; HTA %s %g %s", trace, i + 1, type, w, cJSON_IsString(name) ? name->valuestring : "-",
                          cJSON_GetArrayItem(h, 0)->valuestring, cJSON_GetArrayItem(h, 1)->valuedouble,
                          cJSON_GetArrayItem(h, 2)->valuestring);
                listed++;
            }
            i++;
        }
        cr_expect_eq((double)digest, field(c, "digest"), "%s: the weights in path order differ", trace);
        for (int t = 0; t < 5; t++)
            cr_expect_eq(type_count[t], (int)field(types, type_names[t]), "%s: %s edges", trace, type_names[t]);
        cJSON_Delete(each);
        cJSON_Delete(rows);
        checked++;
    }
    cr_expect(checked >= 14 && listed > 8000, "%d cases, %d edges listed", checked, listed);
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A hand-worked trace in ns (all times us): op A [0, 100] launches K1 (L1 [10, 20]) and K2 (L2 [30, 40])
 * on stream 7 and waits in cudaDeviceSynchronize S [50, 100]; op B [100, 130] follows. K1 runs [25, 60],
 * K2 [60.25, 90.125]. The path: A's start to L1 (10, cpu), launch delay to K1 (15: the queue was empty),
 * K1 (35), the gap to K2 (0.25: K2 was queued behind K1), K2 (29.875), the context sync to S's end (0),
 * A's end (0), B (30, cpu): 120.125 us. Had S's own 50 us counted (a blocking call), the host path
 * A, L1, L2, S, B (130) would win. With HTA's rounding K2 is [61, 90]: the gap 1, K2 29, the path 120. */
/* The queue by hand (times in us): launches L1-L4 at 10, 20, 30 and 40 on one thread; their kernels K1-K4
 * start at 5 (before its launch: the queue goes below 0), 25, 40 (with L4: the launch counts first) and
 * 60 on stream 7. Steps: 5 -1, 10 +1, 20 +1, 25 -1, 30 +1, 40 +1, 40 -1, 60 -1; lengths -1 0 1 0 1 2 1 0.
 * 8 samples, max 2, min -1, sample mean 4/8; sorted -1 0 0 0 1 1 1 2: the median between ranks 3 and 4,
 * (0 + 1) / 2. Time-weighted over 5..60: (-1*5 + 0*10 + 1*5 + 0*5 + 1*10 + 2*0 + 1*20) / 55 = 30/55.
 * At or above 1: 20..25, 30..40, 40..60 = 35 us. Written in time order (the pass reads the rows' own
 * order) and backwards (ids out of time order: it sorts copies), with devices as integers and as text
 * (SQL's sort of the steps). */
Test(hta, queue_by_hand)
{
    static const char *const events[] = {
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K1\",\"pid\":0,\"tid\":7,\"ts\":5,\"dur\":3,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":2,\"args\":{\"correlation\":1}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":2,\"args\":{\"correlation\":2}}",
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K2\",\"pid\":0,\"tid\":7,\"ts\":25,\"dur\":3,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":2,\"args\":{\"correlation\":3}}",
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":2,\"args\":{\"correlation\":4}}",
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K3\",\"pid\":0,\"tid\":7,\"ts\":40,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}}",
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K4\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":4}}"};
    const size_t n = sizeof events / sizeof *events;
    char *dir = temp_dir();
    for (int backwards = 0; backwards < 2; backwards++)
        for (int text_devices = 0; text_devices < 2; text_devices++) {
            char trace[4000] = "{\"traceEvents\":[", db[600];
            for (size_t i = 0; i < n; i++) {
                strcat(trace, events[backwards ? n - 1 - i : i]);
                strcat(trace, i + 1 < n ? "," : "]}");
            }
            run("rm -f '%s/hand.db'", dir);
            import_text(dir, trace, db, sizeof db);
            if (text_devices) {
                sqlite3 *d;
                cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
                cr_assert_eq(sqlite3_exec(d, "UPDATE event SET device = 'gpu' || device WHERE device IS NOT NULL", NULL, NULL, NULL),
                             SQLITE_OK);
                sqlite3_close(d);
            }
            cJSON *rows = command_json("queue --blocked-at 1", db), *row = cJSON_GetArrayItem(rows, 0);
            cr_assert_eq(cJSON_GetArraySize(rows), 1);
            cr_expect(field(row, "stream") == 7 && field(row, "samples") == 8 && field(row, "max_queue") == 2 &&
                          field(row, "min_queue") == -1 && field(row, "sample_mean") == 0.5 && field(row, "p50_queue") == 0.5 &&
                          fabs(field(row, "mean_queue") - 30.0 / 55) < 0.0006 && field(row, "blocked_ns") == 35000,
                      "backwards %d, text devices %d: stream %g, %g samples, max %g, min %g, mean %g, p50 %g, "
                      "weighted %g, blocked %g",
                      backwards, text_devices, field(row, "stream"), field(row, "samples"), field(row, "max_queue"),
                      field(row, "min_queue"), field(row, "sample_mean"), field(row, "p50_queue"), field(row, "mean_queue"),
                      field(row, "blocked_ns"));
            cJSON_Delete(rows);
        }
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, critical_path_by_hand)
{
    static const char trace[] =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1010,\"dur\":10,\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1030,\"dur\":10,\"args\":{\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":1050,\"dur\":50,\"args\":{\"correlation\":3}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1100,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K1\",\"pid\":0,\"tid\":7,\"ts\":1025,\"dur\":35,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"K2\",\"pid\":0,\"tid\":7,\"ts\":1060.250,\"dur\":29.875,\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Context Sync\",\"pid\":0,\"tid\":-1,\"ts\":1050,\"dur\":50,\"args\":{\"device\":0,\"stream\":-1,\"correlation\":3}}"
        "]}";
    char *dir = temp_dir(), db[600];
    import_text(dir, trace, db, sizeof db);
    static const struct {
        const char *args;
        double path, cpu, compute, launch, gap;
    } want[] = {{"", 120125, 40000, 64875, 15000, 250}, {"--hta-rounding", 120000, 40000, 64000, 15000, 1000}};
    for (size_t k = 0; k < 2; k++) {
        cJSON *rows = critical_path_json(db, want[k].args), *row = cJSON_GetArrayItem(rows, 0);
        cr_expect(field(row, "path_ns") == want[k].path && field(row, "cpu_ns") == want[k].cpu &&
                      field(row, "gpu_compute_ns") == want[k].compute && field(row, "launch_ns") == want[k].launch &&
                      field(row, "kernel_gap_ns") == want[k].gap && field(row, "gpu_comm_ns") == 0,
                  "%s: path %g cpu %g compute %g launch %g gap %g", want[k].args, field(row, "path_ns"), field(row, "cpu_ns"),
                  field(row, "gpu_compute_ns"), field(row, "launch_ns"), field(row, "kernel_gap_ns"));
        cJSON_Delete(rows);
    }
    static const char *const path[][3] = {{"operator", "cpu", "A"},         {"launch_delay", "launch", "K1"},
                                          {"operator", "gpu_compute", "K1"}, {"kernel_gap", "kernel_gap", "K1"},
                                          {"operator", "gpu_compute", "K2"}, {"sync", "", "cudaDeviceSynchronize"},
                                          {"operator", "cpu", "A"},         {"dependency", "", "B"},
                                          {"operator", "cpu", "B"}};
    static const double dur[] = {10000, 15000, 35000, 250, 29875, 0, 0, 0, 30000};
    expect_path(db, 9, path, dur);
    /* a window: B alone (by name), and an instance that is not there */
    cJSON *b = critical_path_json(db, "--range B");
    cr_expect_eq(field(cJSON_GetArrayItem(b, 0), "path_ns"), 30000);
    cJSON_Delete(b);
    int st;
    char *out = run_capture(&st, "'%s' critical-path '%s' --range 'A#1' 2>&1", tracedb(), db);
    cr_expect(st == 1 && strstr(out, "'A' has 1 instance") && strstr(out, "#1 is not one"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* HTA's critical path on hand-written traces (tests/data/critical_path_hand; HTA's paths, edge by edge,
 * in expected.json, from tests/oracle/hta_critical_path_hand.py), each pinning a rule of HTA's that no
 * real trace here decides (times in us):
 * - ties.json: op foo [0, 100] launches K (cudaLaunchKernel [10, 20]; K runs [30, 40] on stream 7) and
 *   waits in cudaDeviceSynchronize [40, 60] (a blocking call: its own edge weighs 0). The sync's end is
 *   reached at 40 both from its start (the host's edge, added first) and from K's end (the context sync
 *   edge, added later); networkx keeps the first predecessor with the longest distance, so the path
 *   stays on the host (foo 10, cudaLaunchKernel 10, foo 20, the sync 0, foo 40). Had the later edge won,
 *   it would run through K's launch delay and K.
 * - equal_times.json: C [0, 5] comes in the file before P [0, 20] and starts with it, so P, the longer,
 *   opens first (C is P's child); Q [5, 10] starts as C ends (the end first: Q is P's child, not C's);
 *   R [15, 20] ends with P (the shorter first). In file order at equal times C would hold P.
 * - overlap.json: A [0, 10], B [5, 15]: B starts inside A; A's end pops the top of the stack (B) and B's
 *   end pops A, so the tree is A > B and the walk enters A, enters B, exits B, exits A (A 5, B 10, A -5,
 *   counted 0). Walked in the order of the times, A's end would come before B's. */
Test(hta, critical_path_follows_hta_on_hand_traces)
{
    char *text = read_file(src_path("tests/data/critical_path_hand/expected.json"), NULL), *dir = temp_dir();
    cJSON *doc = cJSON_Parse(text), *c;
    free(text);
    cJSON *cases = cJSON_GetObjectItem(doc, "cases");
    cr_assert_eq(cJSON_GetArraySize(cases), 3);
    cJSON_ArrayForEach(c, cases)
    {
        const char *trace = cJSON_GetObjectItem(c, "trace")->valuestring;
        char rel[300], db[900];
        snprintf(rel, sizeof rel, "tests/data/critical_path_hand/%s", trace);
        snprintf(db, sizeof db, "%s/%s.db", dir, trace);
        cr_assert_eq(import_to(src_path(rel), db), 0, "%s", trace);
        const cJSON *steps = cJSON_GetObjectItem(c, "steps");
        cJSON *each = critical_path_json(db, "--each"), *s;
        cr_assert_eq(cJSON_GetArraySize(each), cJSON_GetArraySize(steps), "%s: edges", trace);
        int i = 0;
        cJSON_ArrayForEach(s, each)
        {
            const cJSON *h = cJSON_GetArrayItem(steps, i);
            const char *type = cJSON_GetObjectItem(s, "type")->valuestring, *name = cJSON_GetObjectItem(s, "name")->valuestring;
            double hta_us = cJSON_GetArrayItem(h, 1)->valuedouble;
            cr_expect(strcmp(type, cJSON_GetArrayItem(h, 0)->valuestring) == 0 &&
                          strcmp(name, cJSON_GetArrayItem(h, 2)->valuestring) == 0 &&
                          field(s, "dur_ns") == (hta_us > 0 ? hta_us * 1000 : 0),
                      "%s: edge %d: %s %s %g ns; HTA %s %s %g us", trace, i + 1, type, name, field(s, "dur_ns"),
                      cJSON_GetArrayItem(h, 0)->valuestring, cJSON_GetArrayItem(h, 2)->valuestring, hta_us);
            i++;
        }
        cJSON_Delete(each);
    }
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A real trace imported into db, and a copy of it (copy) changed by sql. */
static void import_and_alter(const char *dir, const char *name, const char *sql, char *db, size_t n, char *copy,
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
static void import_with_event_view(const char *dir, const char *name, const char *select, char *db, size_t n,
                                   char *copy, size_t m)
{
    char sql[600];
    snprintf(sql, sizeof sql, "ALTER TABLE event RENAME TO event_rows; CREATE VIEW event AS %s", select);
    import_and_alter(dir, name, sql, db, n, copy, m);
}

/* A database whose event rows do not come in id order (a stranger's, where event is a view): the pass
 * must sort them back, and the path edge by edge is the same as from the plain database. (The pass reads
 * id ranges, so an index no longer reorders the scan; a view still can.) */
Test(hta, critical_path_does_not_depend_on_the_scan_order, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], idx[1300];
    import_with_event_view(dir, "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz",
                           "SELECT * FROM event_rows ORDER BY thread_id DESC, id DESC", db, sizeof db, idx, sizeof idx);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(idx, &d), SQLITE_OK);
    sqlite3_stmt *q;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT id FROM event WHERE id BETWEEN 0 AND 1e18", -1, &q, NULL), SQLITE_OK);
    int64_t prev = -1, out_of_order = 0;
    while (sqlite3_step(q) == SQLITE_ROW) {
        out_of_order += sqlite3_column_int64(q, 0) < prev;
        prev = sqlite3_column_int64(q, 0);
    }
    sqlite3_finalize(q);
    sqlite3_close(d);
    cr_assert(out_of_order > 10, "the rows come in id order: the test would not test the sort");
    int st1, st2;
    char *a = run_capture(&st1, "'%s' critical-path '%s' --each --format csv", tracedb(), db);
    char *b = run_capture(&st2, "'%s' critical-path '%s' --each --format csv", tracedb(), idx);
    cr_expect(st1 == 0 && st2 == 0 && strcmp(a, b) == 0 && strlen(a) > 1000, "%s\n---\n%s", a, b);
    free(a), free(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* critical-path's sums and path, and whether it read the import's pack (its phase line under
 * TRACEDB_TIMING). */
static char *cp_listing(const char *db, const char *args, int *from_pack)
{
    int st;
    char *out = run_capture(&st, "TRACEDB_TIMING=1 '%s' critical-path '%s' %s --format csv 2>&1 && '%s' critical-path '%s' %s --each --format csv",
                            tracedb(), db, args, tracedb(), db, args); /* the sums (the graph's size too), then the path */
    cr_assert_eq(st, 0, "%s %s: %s", db, args, out);
    *from_pack = strstr(out, "tracedb: cp: scan (the import's pack)") != NULL;
    drop_phase_lines(out); /* the rows without the phases' lines */
    return out;
}

static void file_exec(const char *db, const char *sql)
{
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(d));
    sqlite3_close(d);
}

/* On every real trace, critical-path's path, edge by edge, read from the import's pack (event_pack.h)
 * equals the one read from the event table's rows, after an edit that changes no value took the pack
 * away (its trigger: any UPDATE of a packed column). Imports whose end linked launches late hold fixes
 * in the pack, and the traces with sync rows send their waits through the args. */
struct pack_check {
    char *dir;
    int64_t fixes, syncs;
    int compared;
};

/* One real trace: its pack's listing against its rows' (see the test below). */
static void pack_against_rows(const char *path, void *ctx)
{
    static const char *const windows[] = {"", "--drop-last-step"};
    struct pack_check *c = ctx;
    char db[1200];
    snprintf(db, sizeof db, "%s/%s.db", c->dir, strrchr(path, '/') + 1);
    cr_assert_eq(import_to(path, db), 0, "%s", path);
    cr_assert_eq(file_int(db, "SELECT value FROM meta WHERE key = 'event_pack'"), file_int(db, "SELECT count(*) FROM event"), "%s",
                 path);
    c->fixes += file_int(db, "SELECT count(*) FROM event_pack_fix");
    c->syncs += file_int(db, "SELECT count(*) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'sync') AND args LIKE '%wait_on%'");
    char *packed[2];
    int from_pack;
    for (int w = 0; w < 2; w++) {
        packed[w] = cp_listing(db, windows[w], &from_pack);
        cr_assert(from_pack, "%s: the pack was not read", path);
    }
    file_exec(db, "UPDATE event SET start_ns = start_ns WHERE id = (SELECT min(id) FROM event)");
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event_pack"), 0, "%s: the trigger left the pack", path);
    for (int w = 0; w < 2; w++) {
        char *rows = cp_listing(db, windows[w], &from_pack);
        cr_assert(!from_pack, "%s: a pack was read after the edit", path);
        cr_expect_str_eq(packed[w], rows, "%s %s: the pack and the rows differ", path, windows[w]);
        c->compared += strlen(rows) > 200;
        free(rows), free(packed[w]);
    }
}

Test(hta, critical_path_from_the_imports_pack_equals_the_tables_rows, .timeout = 300)
{
    struct pack_check c = {.dir = temp_dir()};
    cr_assert_geq(each_real_trace(pack_against_rows, &c), 16);
    cr_expect_gt(c.fixes, 100, "no import's end linked a launch late: the fixes are not tested");
    cr_expect_gt(c.syncs, 0, "no sync row waits: their lookup is not tested");
    cr_expect_geq(c.compared, 20);
    run("rm -rf '%s'", c.dir);
    free(c.dir);
}

/* A trace holding rows critical_path_rows.sql leaves out (an async span, an instant), over operators
 * that launch kernels, gives the same sums and path from the pack as from the rows (none of the 16 real
 * traces holds an async span). Such rows, kept by mistake, would not change this graph either (checked:
 * HTA's graph takes no node from them here), so the kind filter itself is held only by its being the
 * same range as the SQL's. */
Test(hta, critical_path_pack_equals_the_rows_with_async_spans_and_instants, .timeout = 60)
{
    char *dir = temp_dir(), db[1100];
    const char *trace =
        "{\"traceEvents\": ["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10,"
        "\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":40,"
        "\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}},"
        "{\"ph\":\"b\",\"cat\":\"cpu_op\",\"name\":\"aten::async_span\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":90,\"args\":{}},"
        "{\"ph\":\"e\",\"cat\":\"cpu_op\",\"name\":\"aten::async_span\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":300,\"args\":{}},"
        "{\"ph\":\"i\",\"cat\":\"cpu_op\",\"name\":\"aten::instant\",\"pid\":1,\"tid\":1,\"ts\":120,\"s\":\"t\"},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":205,\"dur\":10,"
        "\"args\":{\"correlation\":8}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add\",\"pid\":0,\"tid\":7,\"ts\":220,\"dur\":60,"
        "\"args\":{\"correlation\":8,\"device\":0,\"stream\":7}}"
        "]}";
    import_text(dir, trace, db, sizeof db);
    cr_assert_gt(file_int(db, "SELECT count(*) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'async')"), 0,
                 "the trace holds no async span: the test would test nothing");
    int from_pack;
    char *packed = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    file_exec(db, "UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)");
    char *rows = cp_listing(db, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_eq(packed, rows);
    cr_expect(strstr(rows, "gemm") || strstr(rows, "add"), "no kernel on the path: %s", rows);
    free(packed), free(rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The pack follows the table or goes: an edit of a value is read (the pack gone with it), an append
 * drops the earlier import's pack, a second trace's rows are kept apart, and a stranger's bytes in the
 * pack send critical-path to the rows (the listing as the table's, not a crash). */
Test(hta, critical_path_pack_goes_when_the_table_changes_and_is_not_trusted, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], two[1300];
    import_real(dir, "critical_path_alexnet_trace.json.gz", db, sizeof db);
    int from_pack;
    char *before = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    /* an edit that moves a kernel: the listing changes, and is the table's */
    file_exec(db, "UPDATE event SET dur_ns = dur_ns * 3 WHERE id = (SELECT id FROM event WHERE stream IS NOT NULL "
                "ORDER BY dur_ns DESC LIMIT 1)");
    char *edited = cp_listing(db, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_neq(before, edited, "the edit changed nothing: it tests nothing");
    free(before), free(edited);
    /* a stranger's bytes where the pack was (its meta row back, the trigger not fired) */
    char *fresh_rows;
    import_real(dir, "critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", db, sizeof db);
    char *good = cp_listing(db, "", &from_pack);
    cr_assert(from_pack);
    static const char *const damage[] = {
        "UPDATE event_pack SET data = randomblob(length(data)) WHERE block = 0",
        "UPDATE event_pack SET data = substr(data, 1, length(data) - 3) WHERE block = 0",
        "UPDATE event_pack SET rows = rows + 1 WHERE block = 0",
        "UPDATE event_pack SET data = zeroblob(length(data)) WHERE block = 0",
        "UPDATE meta SET value = value + 1 WHERE key = 'event_pack'",
        "INSERT INTO event_pack SELECT block + 1000, rows, data FROM event_pack",
        "INSERT INTO event_pack_fix VALUES (-5, 1)",
    };
    for (size_t k = 0; k < sizeof damage / sizeof damage[0]; k++) {
        char copy[1400];
        snprintf(copy, sizeof copy, "%s/damaged.db", dir);
        cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
        file_exec(copy, damage[k]);
        char *out = cp_listing(copy, "", &from_pack);
        cr_expect(!from_pack, "%s: read as a pack", damage[k]);
        cr_expect_str_eq(good, out, "%s", damage[k]);
        free(out);
    }
    /* two traces in one database: each trace's own rows from the one pack */
    snprintf(two, sizeof two, "%s/two.db", dir);
    cr_assert_eq(run("'%s' import -q --allow-duplicate '%s' '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"),
                     src_path("tests/data/kineto/critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"), two),
                 0);
    file_exec(two, "UPDATE trace SET rank = 1 WHERE id = (SELECT max(id) FROM trace)");
    char *both = cp_listing(two, "", &from_pack);
    cr_assert(from_pack);
    file_exec(two, "UPDATE event SET kind = kind WHERE id = (SELECT min(id) FROM event)");
    fresh_rows = cp_listing(two, "", &from_pack);
    cr_assert(!from_pack);
    cr_expect_str_eq(both, fresh_rows);
    cr_expect_gt(lines(both), 100);
    free(both), free(fresh_rows);
    /* an append: the first import's pack goes, and the rows are read */
    cr_assert_eq(run("'%s' import -q --append --allow-duplicate '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db),
                 0);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM meta WHERE key = 'event_pack'"), 0);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'event_pack%'"), 0);
    char *appended = cp_listing(db, "", &from_pack);
    cr_expect(!from_pack);
    free(appended), free(good);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A stranger's event view that gives every row twice (more rows than ids: each half of the read
 * outgrows the room its ids gave it): every row is read, so every node of the graph comes twice. */
Test(hta, critical_path_reads_every_row_of_a_view_with_repeated_ids, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], twice[1300];
    import_with_event_view(dir, "critical_path_alexnet_trace.json.gz",
                           "SELECT * FROM event_rows UNION ALL SELECT * FROM event_rows ORDER BY id", db, sizeof db,
                           twice, sizeof twice);
    cJSON *a = critical_path_json(db, ""), *b = critical_path_json(twice, "");
    double nodes = field(cJSON_GetArrayItem(a, 0), "graph_nodes");
    cr_expect(nodes > 1000 && field(cJSON_GetArrayItem(b, 0), "graph_nodes") == 2 * nodes, "%g nodes, then %g", nodes,
              field(cJSON_GetArrayItem(b, 0), "graph_nodes"));
    cJSON_Delete(a), cJSON_Delete(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The path of b equals a's edge by edge (type, bound, weight, event name); a's has at least least edges. */
static void expect_same_path(const char *a_db, const char *b_db, const char *args, int least)
{
    cJSON *a = critical_path_json(a_db, args), *b = critical_path_json(b_db, args);
    int n = cJSON_GetArraySize(a);
    cr_assert(n >= least && n == cJSON_GetArraySize(b), "%s: %d vs %d edges", args, n, cJSON_GetArraySize(b));
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
        cr_assert(strcmp(cJSON_GetObjectItem(x, "type")->valuestring, cJSON_GetObjectItem(y, "type")->valuestring) == 0 &&
                      strcmp(cJSON_GetObjectItem(x, "bound")->valuestring, cJSON_GetObjectItem(y, "bound")->valuestring) == 0 &&
                      strcmp(cJSON_GetObjectItem(x, "name")->valuestring, cJSON_GetObjectItem(y, "name")->valuestring) == 0 &&
                      field(x, "dur_ns") == field(y, "dur_ns"),
                  "%s: edge %d differs", args, i + 1);
    }
    cJSON_Delete(a), cJSON_Delete(b);
}

/* The alexnet trace changed by sql (check, when given, looks at the changed database first) has the
 * same path, edge by edge, as the trace itself: over the whole trace and in HTA's window. */
static void expect_alexnet_path_unchanged(const char *sql, void (*check)(const char *altered))
{
    char *dir = temp_dir(), db[1200], altered[1300];
    import_and_alter(dir, "critical_path_alexnet_trace.json.gz", sql, db, sizeof db, altered, sizeof altered);
    if (check)
        check(altered);
    expect_same_path(db, altered, "--each", 100);
    expect_same_path(db, altered, "--drop-last-step --each", 100);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The path does not depend on where the trace sits in time: every event moved by 2^61 ns (so far that the
 * call stacks are ordered by comparison, twice a time no longer fitting an int64) gives the same path,
 * edge by edge (type, bound, weight, event), as the trace where it was (itself HTA's, checked above). */
Test(hta, critical_path_does_not_depend_on_the_time_origin, .timeout = 120)
{
    expect_alexnet_path_unchanged(
        "UPDATE event SET start_ns = start_ns + 2305843009213693952; "
        "UPDATE trace SET first_ns = first_ns + 2305843009213693952, last_ns = last_ns + 2305843009213693952",
        NULL);
}

/* The alexnet trace (20 sync rows with waits, ids 543-763) with the ids below 650 moved 1000 down: read
 * in two halves, the upper half's sync rows (waits on streams and recorded events, which its path
 * depends on) keep their own waits when the halves join; and launch ids below 0 are ids like any other
 * (not "no launch": a stranger's database may number events from below 0). */
/* Both halves of the read hold waits (the test would not test the join otherwise). */
static void waits_in_both_halves(const char *altered)
{
    sqlite3 *d = db_open(altered);
    const char *waits = "SELECT count(*) FROM event WHERE kind = 10 AND json_extract(args, '$.wait_on_stream') >= 0 AND id %s "
                        "((SELECT min(id) FROM event) + (SELECT max(id) FROM event)) / 2";
    char sql[400];
    snprintf(sql, sizeof sql, waits, "<=");
    int64_t lower = db_int(d, sql);
    snprintf(sql, sizeof sql, waits, ">");
    int64_t upper = db_int(d, sql);
    sqlite3_close(d);
    cr_assert(lower >= 5 && upper >= 5, "%lld and %lld waits in the halves: the test would not test the join",
              (long long)lower, (long long)upper);
}

Test(hta, critical_path_keeps_the_waits_of_both_halves, .timeout = 120)
{
    expect_alexnet_path_unchanged("UPDATE event SET launch_id = launch_id - 1000 WHERE launch_id < 650; "
                                  "UPDATE event SET parent_id = parent_id - 1000 WHERE parent_id < 650; "
                                  "UPDATE event SET id = id - 1000 WHERE id < 650",
                                  waits_in_both_halves);
}

/* A stranger's database may number its events anywhere: the first and the last at int64's ends (the
 * references to them moved too) give the same path; the ids' span no longer fits an int64. */
Test(hta, critical_path_reads_ids_at_the_ends_of_int64, .timeout = 120)
{
    expect_alexnet_path_unchanged(
        "CREATE TEMP TABLE m AS SELECT (SELECT min(id) FROM event) AS lo, (SELECT max(id) FROM event) AS hi; "
        "UPDATE event SET launch_id = -9223372036854775807 WHERE launch_id = (SELECT lo FROM m); "
        "UPDATE event SET launch_id = 9223372036854775807 WHERE launch_id = (SELECT hi FROM m); "
        "UPDATE event SET id = -9223372036854775807 WHERE id = (SELECT lo FROM m); "
        "UPDATE event SET id = 9223372036854775807 WHERE id = (SELECT hi FROM m)",
        NULL);
}

/* A stranger's event whose name id is text ('<id>abc', an existing string's id first, which SQLite
 * keeps as text): its edges have no name, as SQL's lookup through the event finds none (read as an
 * integer the id would name that other string); every other edge keeps its name. */
Test(hta, critical_path_each_names_an_event_by_sql_lookup_where_its_name_id_is_no_integer, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], altered[1300];
    import_and_alter(dir, "critical_path_alexnet_trace.json.gz", "SELECT 1", db, sizeof db, altered, sizeof altered);
    cJSON *a = critical_path_json(db, "--each");
    cr_assert_gt(cJSON_GetArraySize(a), 100);
    int64_t victim = (int64_t)field(cJSON_GetArrayItem(a, 10), "event_id");
    sqlite3 *d = db_open(db);
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT min(id) FROM string WHERE id <> (SELECT name_id FROM event WHERE id = %lld)",
             (long long)victim);
    int64_t other = db_int(d, sql);
    sqlite3_close(d);
    snprintf(sql, sizeof sql, "UPDATE event SET name_id = '%lldabc' WHERE id = %lld", (long long)other, (long long)victim);
    cr_assert_eq(sqlite3_open(altered, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d));
    snprintf(sql, sizeof sql, "SELECT typeof(name_id) = 'text' FROM event WHERE id = %lld", (long long)victim);
    cr_assert_eq(db_int(d, sql), 1, "the name id did not stay text: the test would not test the lookup");
    sqlite3_close(d);
    cJSON *b = critical_path_json(altered, "--each");
    int n = cJSON_GetArraySize(a), nameless = 0;
    cr_assert_eq(cJSON_GetArraySize(b), n);
    for (int i = 0; i < n; i++) {
        const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
        const cJSON *yn = cJSON_GetObjectItem(y, "name");
        if ((int64_t)field(y, "event_id") == victim) {
            cr_expect(cJSON_IsNull(yn), "edge %d (event %lld): named %s", i + 1, (long long)victim,
                      cJSON_IsString(yn) ? yn->valuestring : "?");
            nameless++;
        } else {
            cr_expect(cJSON_IsString(yn) && strcmp(yn->valuestring, cJSON_GetObjectItem(x, "name")->valuestring) == 0,
                      "edge %d: name changed", i + 1);
        }
    }
    cr_expect_geq(nameless, 1);
    cJSON_Delete(a), cJSON_Delete(b);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --each -n N keeps only the first N edges of each path (the pass writes no more): the listing is the
 * first N rows of the whole one, with two traces in one database, of one rank and of two. Either way the
 * first trace's path comes whole, then the second's (seq 1, 2, ... twice): two traces of one rank do not
 * interleave by position. */
Test(hta, critical_path_each_limited_is_the_start_of_the_whole_listing, .timeout = 120)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/two.db", dir);
    cr_assert_eq(run("'%s' import -q --allow-duplicate '%s' '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"),
                     src_path("tests/data/kineto/critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz"), db), 0);
    for (int ranks = 1; ranks <= 2; ranks++) {
        if (ranks == 2) {
            sqlite3 *d;
            cr_assert_eq(sqlite3_open_v2(db, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 1 WHERE id = (SELECT max(id) FROM trace)", NULL, NULL, NULL),
                         SQLITE_OK);
            sqlite3_close(d);
        }
        int st;
        char *all = run_capture(&st, "'%s' critical-path '%s' --each --format csv", tracedb(), db);
        cr_assert_eq(st, 0);
        cr_assert_gt(strlen(all), 1000);
        long rows = 0, firsts = 0, prev = 0, breaks = 0, second_at = 0; /* seq, the second column */
        for (const char *line = strchr(all, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            const char *comma = strchr(line + 1, ',');
            long seq = comma ? strtol(comma + 1, NULL, 10) : -1;
            rows++;
            if (seq == 1)
                firsts++, second_at = firsts == 2 ? rows : second_at;
            else if (seq != prev + 1)
                breaks++;
            prev = seq;
        }
        cr_assert(firsts == 2 && breaks == 0 && second_at > 100 && rows - second_at >= 10,
                  "%d rank(s): %ld rows, %ld paths begin, %ld breaks in seq, the second at row %ld", ranks, rows, firsts,
                  breaks, second_at);
        for (int n = 1; n <= 400; n = n * 3 + 1) {
            char *some = run_capture(&st, "'%s' critical-path '%s' --each --limit %d --format csv", tracedb(), db, n);
            cr_assert_eq(st, 0);
            const char *end = all; /* the header and the first n rows of the whole listing */
            for (int lines = 0; lines <= n && *end; end++)
                if (*end == '\n')
                    lines++;
            cr_assert(strlen(some) == (size_t)(end - all) && strncmp(some, all, (size_t)(end - all)) == 0,
                      "%d rank(s), --limit %d: %s", ranks, n, some);
            free(some);
        }
        free(all);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

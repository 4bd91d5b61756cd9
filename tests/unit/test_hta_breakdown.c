/* test_hta_breakdown.c: tracedb's kernel types, kernel type breakdown (kernels --by-type), communication
 * overlap (overlap), HTA's window (--drop-last-step), temporal breakdown (device) and summary line against
 * HTA itself. HTA was run once on the real traces (tests/oracle/hta_*.py; its output committed as
 * tests/data/hta_*_expected.json); the tests never need it. Where tracedb differs on purpose (README: HTA's
 * analyses) the test checks the corrected figure and that HTA's own rule, applied to tracedb's data, gives
 * HTA's number. */
#include "hta_helpers.h"
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlfuncs.h"

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


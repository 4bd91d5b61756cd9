/* test_hta_idle_launches.c: tracedb idle (GPU idle time by cause) and launches (launch statistics)
 * against HTA's get_idle_time_breakdown and get_cuda_kernel_launch_stats, run once on the real traces
 * (tests/oracle/hta_idle_launches.py, tests/data/hta_idle_launches_expected.json). */
#include "hta_helpers.h"
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tracedb idle --negative-gaps --hta-rounding equals HTA's get_idle_time_breakdown exactly, per stream
 * and cause (host wait, kernel wait, other; a cause HTA lists no kernel of is 0 here), and each cause's
 * share as HTA rounds its idle_time_ratio (numpy's round to 2 decimals of the cause's time over the
 * stream's, from HTA's own times: a whole percent), on 8 real traces, the ns-resolution ones
 * (nccl_parser_config, ns_resolution, triton_example) among them: --hta-rounding makes each kernel and each launch call's start HTA's
 * whole us. With negative gaps clipped (the default) no figure is below HTA's. On the us-resolution traces
 * the rounding changes no time. Every stream HTA lists has its row, and no other: triton_example's one
 * stream has one kernel, no gap, and a row of zeros in HTA's output as here. */
static void check_idle_against_hta(void)
{
    cJSON *doc, *traces = hta_output("hta_idle_launches_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int streams = 0, ns_traces = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        int ns = ns_resolution(db);
        ns_traces += ns;
        cJSON *hta_rows = command_json("idle --negative-gaps --hta-rounding", db), *clipped = command_json("idle --hta-rounding", db);
        cJSON *unrounded = command_json("idle --negative-gaps", db), *rank;
        int hta_streams = 0;
        cJSON_ArrayForEach(rank, trace) hta_streams += cJSON_GetArraySize(cJSON_GetObjectItem(rank, "idle"));
        cr_expect_eq(cJSON_GetArraySize(hta_rows), hta_streams, "%s: %d rows, HTA's streams %d", trace->string,
                     cJSON_GetArraySize(hta_rows), hta_streams);
        cJSON_ArrayForEach(rank, trace)
        {
            cJSON *stream;
            cJSON_ArrayForEach(stream, cJSON_GetObjectItem(rank, "idle"))
            {
                const cJSON *row = NULL, *plain = NULL, *whole_ns = NULL, *r;
                cJSON_ArrayForEach(r, hta_rows) if ((long)field(r, "stream") == atol(stream->string)) row = r;
                cJSON_ArrayForEach(r, clipped) if ((long)field(r, "stream") == atol(stream->string)) plain = r;
                cJSON_ArrayForEach(r, unrounded) if ((long)field(r, "stream") == atol(stream->string)) whole_ns = r;
                cr_assert(row && plain && whole_ns, "%s: stream %s", trace->string, stream->string);
                cr_expect_eq(field(row, "rank"), atof(rank->string), "%s stream %s: rank %g, HTA's %s", trace->string,
                             stream->string, field(row, "rank"), rank->string);
                static const char *const cats[][3] = {{"host_wait", "host_wait_ns", "host_wait_pct"},
                                                      {"kernel_wait", "kernel_wait_ns", "kernel_wait_pct"},
                                                      {"other", "other_ns", "other_pct"}};
                double hta_total = 0;
                for (int c = 0; c < 3; c++)
                    hta_total += field(stream, cats[c][0]);
                for (int c = 0; c < 3; c++) {
                    double hta = field(stream, cats[c][0]); /* us; absent: 0 */
                    cr_expect_eq(field(row, cats[c][1]), 1000 * hta, "%s stream %s %s: %.0f ns, HTA %.0f us", trace->string,
                                 stream->string, cats[c][0], field(row, cats[c][1]), hta);
                    if (hta_total != 0) { /* HTA's ratio, rounded to 0.01, as a percent */
                        double want = rint(100 * (hta / hta_total));
                        cr_expect_eq(field(row, cats[c][2]), want, "%s stream %s %s: %.17g%%, HTA's ratio %.2f", trace->string,
                                     stream->string, cats[c][0], field(row, cats[c][2]), want / 100);
                    }
                    cr_expect_geq(field(plain, cats[c][1]), field(row, cats[c][1]), "clipping never lowers a figure");
                    if (!ns)
                        cr_expect_eq(field(whole_ns, cats[c][1]), field(row, cats[c][1]), "%s stream %s %s without rounding",
                                     trace->string, stream->string, cats[c][0]);
                }
                streams++;
            }
        }
        cJSON_Delete(hta_rows), cJSON_Delete(clipped), cJSON_Delete(unrounded);
    }
    cr_assert_eq(streams, 22, "22 streams on 8 traces");
    cr_assert_eq(ns_traces, 3, "three at ns resolution");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, idle_equals_hta, .timeout = 240)
{
    check_idle_against_hta();
}

/* Devices or ranks in text (a database tracedb did not write): idle and launches refuse it, naming the
 * table, column and row, and print no rows. */
Test(hta, idle_and_launches_refuse_keys_named_in_text, .timeout = 120)
{
    char *dir = temp_dir(), db[1200];
    import_real(dir, "critical_path_alexnet_trace.json.gz", db, sizeof db);
    file_exec(db, "UPDATE event SET device = 'gpu' || device WHERE id = (SELECT min(id) FROM event WHERE kind = 7)");
    int64_t first = file_int(db, "SELECT min(id) FROM event WHERE kind = 7"); /* the first kernel, its device made text */
    char said[200];
    snprintf(said, sizeof said, "event.device holds a non-integer value (event id %lld)", (long long)first);
    expect_refused("idle", db, said);
    expect_refused("idle --negative-gaps --hta-rounding", db, said);
    file_exec(db, "UPDATE event SET device = 0 WHERE typeof(device) = 'text'; UPDATE trace SET rank = 'r0'");
    expect_refused("launches", db, "trace.rank holds a non-integer value (trace id 1)");
    expect_refused("launches --by-rank --hta-rounding", db, "trace.rank holds a non-integer value (trace id 1)");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* tracedb launches --each --hta-rounding, summed per kernel name, equals HTA's get_cuda_kernel_launch_stats
 * per launch summed the same way, exactly (launches, call, GPU and delay time, the three outlier counts),
 * on 7 real traces, the two at ns resolution among them (--hta-rounding: HTA's whole-us starts and ends of
 * the launch calls and the work); a kernel name of HTA's that tracedb lacks fails, and so does one of
 * tracedb's that HTA lacks. The summary rows agree with --each (its averages and percentiles are printed
 * in whole ns: within 0.5 ns of the exact ones). */
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

static void check_launches_against_hta(void)
{
    cJSON *doc, *traces = hta_output("hta_idle_launches_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int names = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        cJSON *each = command_json("launches --each --hta-rounding", db), *rank;
        cJSON *summary = command_json("launches --by-rank --hta-rounding", db);
        int hta_names = 0;
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
                cr_expect(cpu == 1000 * field(k, "cpu_us") && gpu == 1000 * field(k, "gpu_us") && delay == 1000 * field(k, "delay_us") &&
                              mx == 1000 * field(k, "delay_max_us"),
                          "%s: %s: call %.0f, GPU %.0f, delay %.0f, max %.0f ns; HTA %g, %g, %g, %g us", trace->string, k->string, cpu,
                          gpu, delay, mx, field(k, "cpu_us"), field(k, "gpu_us"), field(k, "delay_us"), field(k, "delay_max_us"));
                cr_expect(shorts == field(k, "short") && rt == field(k, "runtime_outliers") && dl == field(k, "delay_outliers"),
                          "%s: %s: %g short, %g runtime and %g delay outliers; HTA %g, %g, %g", trace->string, k->string, shorts, rt,
                          dl, field(k, "short"), field(k, "runtime_outliers"), field(k, "delay_outliers"));
                hta_names++;
                const cJSON *s = NULL;
                cJSON_ArrayForEach(r, summary) if (strcmp(cJSON_GetObjectItem(r, "name")->valuestring, k->string) == 0) s = r;
                cr_assert(s, "%s in the summary", k->string);
                cr_expect_eq(field(s, "rank"), atof(rank->string), "%s: %s rank %g, HTA's %s", trace->string, k->string,
                             field(s, "rank"), rank->string);
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
        cr_expect_eq(cJSON_GetArraySize(summary), hta_names, "%s: %d kernel names, HTA %d", trace->string,
                     cJSON_GetArraySize(summary), hta_names);
        cJSON_Delete(each), cJSON_Delete(summary);
    }
    cr_assert_eq(names, 558, "558 kernel names on 7 traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, launches_equal_hta, .timeout = 240)
{
    check_launches_against_hta();
}


/* test_hta_counters.c: HTA's trace counters: tracedb queue (launch queue length) and memops --bandwidth
 * (memory bandwidth) against HTA's get_queue_length_summary and get_memory_bw_summary (run once:
 * tests/oracle/hta_queue.py, hta_membw.py; tests/data/hta_queue_expected.json, hta_membw_expected.json),
 * and both worked by hand. */
#include "hta_helpers.h"
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tracedb queue --hta-rounding equals HTA's get_queue_length_summary per stream (ns traces rounded to
 * whole us as HTA does): samples, max, min and median exactly; the sample mean exactly where no two steps
 * of a stream share a time. Where they do, HTA's order of them is its unstable sort's (numpy's quicksort
 * of its table), which tracedb does not copy: it counts launches first. Each launch HTA puts after a
 * kernel start of the same time lowers one sample by 2, so the sum of tracedb's samples (its series,
 * --timeline) less HTA's (mean * count) is even, at least 0, and at most 2ab summed over the times where
 * a launches and b kernel starts meet (bounded here by m^2 / 2 for the m steps at one time). The
 * time-weighted mean is the series' integral over its span. */
static void check_queue_against_hta(void)
{
    cJSON *doc, *traces = hta_output("hta_queue_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int streams = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        cJSON *rows = command_json("queue --hta-rounding", db), *series = command_json("queue --timeline --hta-rounding", db), *rank;
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
                /* the time-weighted mean, the samples' sum and the steps at one time, from the series itself */
                double area = 0, first = -1, last = 0, prev_ts = 0, prev_q = 0, sum = 0, tied = 0, run = 0;
                cJSON_ArrayForEach(r, series)
                {
                    if ((long)field(r, "stream") != atol(h->string))
                        continue;
                    double ts = field(r, "ts_ns");
                    if (first < 0)
                        first = ts;
                    else
                        area += prev_q * (ts - prev_ts);
                    run = run > 0 && ts == prev_ts ? run + 1 : 1; /* m steps at one time: floor(m^2 / 2) in all */
                    tied += floor(run * run / 2) - floor((run - 1) * (run - 1) / 2);
                    prev_ts = ts, prev_q = field(r, "queue"), last = ts, sum += prev_q;
                }
                double hta_sum = round(field(h, "mean") * field(h, "count")), lower = sum - hta_sum;
                cr_expect(lower >= 0 && fmod(lower, 2) == 0 && lower <= tied, /* no steps at one time: equal sums */
                          "%s stream %s: the samples sum to %.0f, HTA's to %.0f (%.0f steps' orders at one time)", trace->string,
                          h->string, sum, hta_sum, tied);
                cr_expect(fabs(field(row, "sample_mean") - sum / field(h, "count")) <= 0.0005, /* printed to 3 decimals */
                          "%s stream %s: mean %.3f, its series' %.6f",
                          trace->string, h->string, field(row, "sample_mean"), sum / field(h, "count"));
                if (last > first)
                    cr_expect(fabs(field(row, "mean_queue") - area / (last - first)) < 0.0006, "%s stream %s: %.3f vs %.4f",
                              trace->string, h->string, field(row, "mean_queue"), area / (last - first));
                streams++;
            }
        }
        cJSON_Delete(rows), cJSON_Delete(series);
    }
    cr_assert_eq(streams, 21, "21 streams on 7 traces");
    cJSON_Delete(doc);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(hta, queue_equals_hta, .timeout = 240)
{
    check_queue_against_hta();
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
 * arbitrary), with --hta-rounding too (HTA's times: the same samples, in HTA's order where none tie).
 * The series (--timeline) has a row per change, and its integral gives the weighted mean. */
Test(hta, memory_bandwidth_equals_hta, .timeout = 240)
{
    cJSON *doc, *traces = hta_output("hta_membw_expected.json", &doc), *trace;
    char *dir = temp_dir();
    int groups = 0, as_hta = 0, as_hta_rounded = 0;
    cJSON_ArrayForEach(trace, traces)
    {
        char db[1200];
        import_real(dir, trace->string, db, sizeof db);
        cJSON *rows = command_json("memops --bandwidth", db), *series = command_json("memops --bandwidth --timeline", db);
        cJSON *rounded = command_json("memops --bandwidth --hta-rounding", db);
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
                    const cJSON *rrow = NULL;
                    cJSON_ArrayForEach(r, rounded)
                    if (field(r, "rank") == atof(rank->string) && strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "operation")), op->string) == 0)
                        rrow = r;
                    snprintf(h, sizeof h, "%s (HTA's own, --hta-rounding)", what);
                    cr_expect(rrow, "%s: no row", h);
                    as_hta_rounded += rrow && bw_stats_equal(rrow, hta, h);
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
        cJSON_Delete(rows), cJSON_Delete(series), cJSON_Delete(rounded);
    }
    cr_assert_geq(groups, 30, "%d memory types over the traces (30 on 11)", groups);
    cr_assert_geq(as_hta, 27, "%d of them equal HTA's own summary", as_hta);
    cr_assert_eq(as_hta_rounded, as_hta, "%d of them with --hta-rounding, %d without", as_hta_rounded, as_hta);
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

/* The queue by hand (times in us): launches L1-L4 at 10, 20, 30 and 40 on one thread; their kernels K1-K4
 * start at 5 (before its launch: the queue goes below 0), 25, 40 (with L4: the launch counts first) and
 * 60 on stream 7. Steps: 5 -1, 10 +1, 20 +1, 25 -1, 30 +1, 40 +1, 40 -1, 60 -1; lengths -1 0 1 0 1 2 1 0.
 * 8 samples, max 2, min -1, sample mean 4/8; sorted -1 0 0 0 1 1 1 2: the median between ranks 3 and 4,
 * (0 + 1) / 2. Time-weighted over 5..60: (-1*5 + 0*10 + 1*5 + 0*5 + 1*10 + 2*0 + 1*20) / 55 = 30/55.
 * At or above 1: 20..25, 30..40, 40..60 = 35 us. Written in time order (the pass reads the rows' own
 * order) and backwards (ids out of time order: it sorts copies). With devices as text (a database
 * tracedb did not write) it is refused, naming event.device. */
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
                expect_refused("queue --blocked-at 1", db, "event.device holds a non-integer value (event id ");
                continue;
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


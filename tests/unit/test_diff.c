/* test_diff.c: `tracedb diff`: per-kernel totals of the two real runs against a Python sum over their
 * JSON, --by-shape, the sections people read, each run's operator rows against `tracedb ops` of that run
 * (and not the import's per-name sums), names' kinds by hand; the regression gate of --fail-above: the
 * Mann-Whitney U p-values against scipy.stats.mannwhitneyu (tests/oracle/mwu_expected.py, committed as
 * tests/data/mwu_expected.json), and the verdicts on the real HTA trace_diff pair and hand-made series. */
#include "helpers.h"
#include "mann_whitney.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double *numbers(const cJSON *arr, size_t *n)
{
    *n = (size_t)cJSON_GetArraySize(arr);
    double *v = malloc(*n * sizeof *v + 1);
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) v[i++] = e->valuedouble;
    return v;
}

static cJSON *expected(void)
{
    char *text = read_file(src_path("tests/data/mwu_expected.json"), NULL);
    cJSON *doc = cJSON_Parse(text);
    free(text);
    cr_assert(doc);
    return doc;
}

Test(diff_gate, mann_whitney_p_values_equal_scipys)
{
    cJSON *doc = expected(), *c;
    int cases = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases"))
    {
        size_t nx, ny;
        double *x = numbers(cJSON_GetObjectItem(c, "x"), &nx), *y = numbers(cJSON_GetObjectItem(c, "y"), &ny);
        struct tdb_mwu t;
        cr_assert_eq(tdb_mann_whitney(x, nx, y, ny, &t), 0);
        const char *name = cJSON_GetObjectItem(c, "name")->valuestring;
        double p = cJSON_GetObjectItem(c, "p")->valuedouble, u1 = cJSON_GetObjectItem(c, "u1")->valuedouble;
        cr_assert_float_eq(t.u1, u1, 1e-9, "%s: U %g, scipy %g", name, t.u1, u1);
        cr_assert(fabs(t.p - p) <= 1e-9 * fmax(1, p) + 1e-15, "%s: p %.17g, scipy %.17g", name, t.p, p);
        free(x), free(y);
        cases++;
    }
    cr_assert_eq(cases, 8);
    cJSON_Delete(doc);
    /* the smallest p of 3 and 3 steps, by hand: 2 / C(6,3) = 0.1; of 6 and 6: 2 / 924 */
    cr_assert_float_eq(tdb_mann_whitney_min_p(3, 3), 0.1, 1e-12);
    cr_assert_float_eq(tdb_mann_whitney_min_p(6, 6), 2.0 / 924, 1e-12);
}

/* A trace of ProfilerStep#0.. with these durations (ns), one after the other. */
static char *steps_db(const char *dir, const char *name, const cJSON *durs)
{
    char trace[600], *db = malloc(600);
    snprintf(trace, sizeof trace, "%s/%s.json", dir, name);
    snprintf(db, 600, "%s/%s.db", dir, name);
    FILE *f = fopen(trace, "w");
    fprintf(f, "[");
    double ts = 0;
    int i = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, durs)
    {
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                   "\"ts\":%.3f,\"dur\":%.3f}",
                i ? "," : "", i, ts, d->valuedouble / 1000);
        ts += d->valuedouble / 1000 + 1;
        i++;
    }
    fprintf(f, "]");
    fclose(f);
    run("rm -f '%s'", db); /* a case may be gated twice */
    cr_assert_eq(import_to(trace, db), 0);
    return db;
}

/* The verdict line and exit status of the gate on one hand-made case. */
static char *gate(const char *dir, const char *case_name, const char *flags, int *status)
{
    cJSON *doc = expected(), *c, *found = NULL;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) if (strcmp(cJSON_GetObjectItem(c, "name")->valuestring,
                                                                         case_name) == 0) found = c;
    cr_assert(found, "%s", case_name);
    char bname[64], nname[64];
    snprintf(bname, sizeof bname, "%s_base", case_name);
    snprintf(nname, sizeof nname, "%s_new", case_name);
    char *b = steps_db(dir, bname, cJSON_GetObjectItem(found, "x")), *n = steps_db(dir, nname, cJSON_GetObjectItem(found, "y"));
    char *out = run_capture(status, "'%s' diff '%s' '%s' %s 2>&1 >/dev/null", tracedb(), b, n, flags);
    free(b), free(n);
    cJSON_Delete(doc);
    return out;
}

Test(diff_gate, hand_made_step_series)
{
    char *dir = temp_dir();
    int st;
    /* +0.5%: under a 5% limit, whatever the test says */
    char *out = gate(dir, "small_change_under_limit", "--fail-above 5", &st);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "PASS: step_median") && strstr(out, "within the limit"), "%s", out);
    free(out);
    /* +50%, every new step slower: exact p = 2/924 (scipy: 0.0021645) */
    out = gate(dir, "clear_shift", "--fail-above 5", &st);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "FAIL: step_median") && strstr(out, "p = 0.002165 (6 / 6 steps, exact)"), "%s", out);
    free(out);
    /* noisy, 20 and 20 steps, a real shift: scipy's normal approximation p = 0.0013486 */
    out = gate(dir, "noisy_real_shift", "--fail-above 5", &st);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "p = 0.001349 (20 / 20 steps, normal approximation)"), "%s", out);
    free(out);
    /* 2 and 3 steps can never reach alpha: inconclusive, failing by default */
    out = gate(dir, "too_few_steps", "--fail-above 5", &st);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "INCONCLUSIVE, counted as FAIL") && strstr(out, "too few steps"), "%s", out);
    free(out);
    out = gate(dir, "too_few_steps", "--fail-above 5 --on-inconclusive pass", &st);
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    /* 60 and 45 noisy steps, a shift the test cannot see (scipy p = 0.3124, with ties) above a 1% limit:
     * inconclusive, failing by default; with alpha 0.4 the same p calls it real */
    out = gate(dir, "large_samples", "--fail-above 1", &st);
    cr_assert(strstr(out, "p = 0.3124 (60 / 45 steps, normal approximation)") &&
                  strstr(out, "cannot tell this change from noise"),
              "%s", out);
    cr_assert_eq(st, 3, "%s", out);
    free(out);
    out = gate(dir, "large_samples", "--fail-above 1 --alpha 0.4", &st);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "FAIL: step_median") && strstr(out, "p < alpha 0.4"), "%s", out);
    free(out);
    out = gate(dir, "large_samples", "--fail-above 1 --on-inconclusive pass", &st);
    cr_assert_eq(st, 0, "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* HTA's trace_diff control and test runs, imported into dir as control.db (c) and test.db (t). */
static void real_pair(const char *dir, char c[600], char t[600])
{
    snprintf(c, 600, "%s/control.db", dir);
    snprintf(t, 600, "%s/test.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_control_control.json.gz"), c), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), t), 0);
}

/* HTA's trace_diff pair: every one of the 6 test steps is slower than every one of the 6 control steps
 * (+49.27% median). The previous gate passed it as "within the run-to-run spread". */
Test(diff_gate, real_regression_fails_and_identical_runs_pass)
{
    char *dir = temp_dir(), c[600], t[600];
    real_pair(dir, c, t);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --fail-above 5 2>&1 >/dev/null", tracedb(), c, t);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "FAIL: step_median 76.834ms -> 114.689ms (+49.27%, limit +5.00%); Mann-Whitney U p = "
                          "0.002165 (6 / 6 steps, exact)"),
              "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --fail-above 5 2>&1 >/dev/null", tracedb(), c, c);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "PASS: step_median 76.834ms -> 76.834ms (+0.00%"), "%s", out);
    free(out);
    /* a negative limit (the new run must be faster by that much) prints with its own sign */
    out = run_capture(&st, "'%s' diff '%s' '%s' --fail-above -5 2>&1 >/dev/null", tracedb(), c, c);
    cr_assert_eq(st, 3, "%s", out);
    cr_assert(strstr(out, "(+0.00%, limit -5.00%)") && !strstr(out, "+-"), "%s", out);
    free(out);
    cr_assert_eq(run("'%s' diff '%s' '%s' --fail-above 5 --alpha 2 2>/dev/null", tracedb(), c, t), 2);
    cr_assert_eq(run("'%s' diff '%s' '%s' --fail-above 5 --on-inconclusive maybe 2>/dev/null", tracedb(), c, t), 2);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* AlexNet's trace has no ProfilerStep#N and no [memory] events: a gate on a metric neither run has fails,
 * saying which and why in words (it said "base nan, new nan"). */
Test(diff_gate, a_metric_neither_run_has_is_said_in_words)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/alexnet.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    static const char *const said[][2] = {
        {"step_median", "FAIL: step_median is not in either run (no ProfilerStep#N steps); cannot compare"},
        {"memory_peak", "FAIL: memory_peak is not in either run (no [memory] events); cannot compare"}};
    for (size_t k = 0; k < 2; k++) {
        int st;
        char *out = run_capture(&st, "'%s' diff '%s' '%s' --fail-above 5 --metric %s 2>&1 >/dev/null", tracedb(), db, db,
                                said[k][0]);
        cr_expect_eq(st, 3, "%s", out);
        cr_expect(strstr(out, said[k][1]) && !strstr(out, "nan"), "%s", out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The real pair ran on an A100 (control) and a V100 (test): said on top of the table, on stderr beside csv,
 * and in the device section's columns, naming both (the models and totalGlobalMem of the traces'
 * deviceProperties: 42505273344 and 16945512448 bytes, 39.6 and 15.8 GiB). Runs on the same model say
 * nothing, also when the card reports a little other memory (AlexNet's A100: 42297524224 bytes). */
Test(diff, runs_on_other_gpus_are_said_on_top)
{
    char *dir = temp_dir(), c[600], t[600], a[700];
    real_pair(dir, c, t);
    snprintf(a, sizeof a, "%s/alexnet.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), a), 0);
    static const char said[] = "the runs used different GPUs: base ran on 1 x NVIDIA A100-PG509-200 (39.6 GiB), new on "
                               "1 x Tesla V100-SXM2-16GB (15.8 GiB)";
    int st;
    char *out = run_capture(&st, "COLUMNS=1000 '%s' diff '%s' '%s' 2>/dev/null | head -1", tracedb(), c, t); /* one line */
    cr_assert(strncmp(out, "Warning: ", 9) == 0 && strstr(out, said), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --format csv 2>&1 >/dev/null", tracedb(), c, t);
    cr_assert(strstr(out, "tracedb diff: warning: ") && strstr(out, said), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --section device --format csv 2>/dev/null", tracedb(), c, t);
    cr_assert(strstr(out, ",base_gpu,new_gpu\r\n") && strstr(out, ",NVIDIA A100-PG509-200,Tesla V100-SXM2-16GB\r\n"),
              "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' 2>&1", tracedb(), c, c);
    cr_assert(!strstr(out, "different GPUs"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' 2>&1", tracedb(), c, a);
    cr_assert(!strstr(out, "different GPUs"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The sections people read on the real pair: runtime calls under their own kind, the ops table cut at 20
 * rows with the count of the rest, devices paired although the runs used GPU 3 and GPU 1, the steps'
 * Mann-Whitney p instead of a 0/1 "beyond spread". */
Test(diff_gate, sections_on_the_real_pair)
{
    char *dir = temp_dir(), c[600], t[600];
    real_pair(dir, c, t);
    int st;
    /* cudaMemcpyAsync: cat cuda_runtime, 228 and 4812 calls (counted by Python from the JSON) */
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --format csv | grep '^cudaMemcpyAsync,'", tracedb(), c, t);
    cr_assert(strncmp(out, "cudaMemcpyAsync,runtime,228,4812,", 33) == 0, "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --format csv | tail -n +2 | wc -l", tracedb(), c, t);
    long all = atol(out);
    free(out);
    out = run_capture(&st, "COLUMNS=200 '%s' diff '%s' '%s' --section ops", tracedb(), c, t);
    char more[64];
    snprintf(more, sizeof more, "(%ld more rows: --limit N to see more)", all - 20);
    cr_assert(strstr(out, more), "%ld rows in csv; table: %s", all, out);
    free(out);
    /* devices: GPU 3 in the control run, GPU 1 in the test run (Python), paired; busy as HTA's oracle */
    out = run_capture(&st, "'%s' diff '%s' '%s' --section device --format csv | tail -1", tracedb(), c, t);
    cr_assert(strncmp(out, "3,1,", 4) == 0, "%s", out);
    char *text = read_file(src_path("tests/data/device_expected.json"), NULL);
    cJSON *dev = cJSON_Parse(text);
    free(text);
    double busy = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(dev, "trace_diff_test_test.json.gz"), "1"),
                                      "busy_ns")->valuedouble;
    char want[64];
    snprintf(want, sizeof want, ",%.0f,", busy);
    cr_assert(strstr(out, want), "new busy %s: %s", want, out);
    cJSON_Delete(dev);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --section steps --format csv", tracedb(), c, t);
    cr_assert(strstr(out, ",p_value\r\n") && strstr(out, ",49.27,0.0021645021645021"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(diff, per_kernel_totals_of_two_real_runs_match_python, .timeout = 120)
{
    char *text = read_file(src_path("tests/data/diff_expected.json"), NULL);
    cJSON *want = cJSON_Parse(text);
    free(text);
    char *dir = temp_dir(), a[1100], b[1100];
    snprintf(a, sizeof a, "%s/control.db", dir);
    snprintf(b, sizeof b, "%s/test.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_control_control.json.gz"), a), 0);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), b), 0);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --kinds kernel --format json", tracedb(), a, b);
    cr_assert_eq(st, 0);
    cJSON *rows = cJSON_Parse(out);
    free(out);
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(want), "one row per kernel name in either run");
    cJSON *r;
    cJSON_ArrayForEach(r, rows)
    {
        const char *name = cJSON_GetObjectItem(r, "name")->valuestring;
        cJSON *w = cJSON_GetObjectItem(want, name);
        cr_assert(w, "%s", name);
        cr_assert_eq(cJSON_GetObjectItem(r, "base_total_ns")->valuedouble, cJSON_GetArrayItem(w, 0)->valuedouble, "%s", name);
        cr_assert_eq(cJSON_GetObjectItem(r, "new_total_ns")->valuedouble, cJSON_GetArrayItem(w, 1)->valuedouble, "%s", name);
        cr_assert_eq(cJSON_GetObjectItem(r, "base_calls")->valuedouble, cJSON_GetArrayItem(w, 2)->valuedouble, "%s", name);
        cr_assert_eq(cJSON_GetObjectItem(r, "new_calls")->valuedouble, cJSON_GetArrayItem(w, 3)->valuedouble, "%s", name);
        cr_assert_eq(cJSON_GetObjectItem(r, "delta_ns")->valuedouble,
                     cJSON_GetArrayItem(w, 1)->valuedouble - cJSON_GetArrayItem(w, 0)->valuedouble);
    }
    cJSON_Delete(rows);
    cJSON_Delete(want);
    /* the gate: kernel time grew (see the oracle); a run against itself passes */
    cr_assert_eq(run("'%s' diff '%s' '%s' --metric kernel_total --fail-above 1 >/dev/null 2>&1", tracedb(), a, b), 3);
    cr_assert_eq(run("'%s' diff '%s' '%s' --metric kernel_total --fail-above 1000 >/dev/null 2>&1", tracedb(), a, b), 0);
    cr_assert_eq(run("'%s' diff '%s' '%s' --fail-above 0 >/dev/null 2>&1", tracedb(), a, a), 0);
    out = run_capture(&st, "'%s' diff '%s' '%s' --metric kernel_total --fail-above 1 2>&1 >/dev/null", tracedb(), a, b);
    cr_assert(strstr(out, "FAIL: kernel_total"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(diff, by_shape_matches_name_and_input_dims)
{
    char *dir = temp_dir(), a[1100];
    snprintf(a, sizeof a, "%s/nq.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/negative_queue_length_values_check_rank0.json.gz"), a), 0);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --by-shape --kinds op,range,runtime,driver --format json", tracedb(), a, a);
    cr_assert_eq(st, 0);
    cJSON *rows = cJSON_Parse(out), *r;
    free(out);
    /* 821 distinct (name, Input Dims) pairs of CPU-side events, counted by Python from the JSON */
    cr_assert_eq(cJSON_GetArraySize(rows), 821);
    cJSON_ArrayForEach(r, rows) cr_assert_str_eq(cJSON_GetObjectItem(r, "status")->valuestring, "unchanged");
    cJSON_Delete(rows);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* diff's memory section and the memory_peak gate are `tracedb memory`'s peaks of each run: per trace and
 * device, the allocator's "Total Allocated" where the events carry it, else the running sum of Bytes.
 * Base: the real df_index_resolver trace (rank 1), whose 28010 [memory] events all carry Total Allocated:
 * its highest per device, by pandas over the JSON, cuda:1 6629508096 (reserved 12782141440), cpu 8 (0).
 * New: two hand traces of one database, without totals. Rank 0: cuda:0 +1000 +2000 -1000 +1500 at 10, 20,
 * 30, 40 us (running 1000, 3000, 2000, 3500: peak 3500), the host +64 -64 (64), device type 2 +300 (300).
 * Rank 1: cuda:0 +5000 -4000 +100 at 15, 25, 35 us (5000, 1000, 1100: 5000), its own sum, not rank 0's. */
Test(diff, memory_peaks_are_memorys_per_trace_and_device)
{
    char *dir = temp_dir(), base[600], fresh[600], t0[600], t1[600];
    snprintf(base, sizeof base, "%s/base.db", dir);
    snprintf(fresh, sizeof fresh, "%s/new.db", dir);
    snprintf(t0, sizeof t0, "%s/r0.json", dir);
    snprintf(t1, sizeof t1, "%s/r1.json", dir);
#define MEM(pid, ts, addr, bytes, dev) \
    "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":" #pid ",\"tid\":1,\"ts\":" #ts ",\"args\":{\"Addr\":" #addr \
    ",\"Bytes\":" #bytes ",\"Device Type\":" dev "}}"
    static const char r0[] = "{\"distributedInfo\":{\"rank\":0},\"traceEvents\":["
                             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                             MEM(1, 10, 1, 1000, "1,\"Device Id\":0") "," MEM(1, 20, 2, 2000, "1,\"Device Id\":0") ","
                             MEM(1, 30, 1, -1000, "1,\"Device Id\":0") "," MEM(1, 40, 3, 1500, "1,\"Device Id\":0") ","
                             MEM(1, 50, 9, 64, "0") "," MEM(1, 60, 9, -64, "0") ","
                             MEM(1, 70, 5, 300, "2,\"Device Id\":0") "]}";
    static const char r1[] = "{\"distributedInfo\":{\"rank\":1},\"traceEvents\":["
                             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":2,\"tid\":1,\"ts\":0,\"dur\":100},"
                             MEM(2, 15, 1, 5000, "1,\"Device Id\":0") "," MEM(2, 25, 2, -4000, "1,\"Device Id\":0") ","
                             MEM(2, 35, 3, 100, "1,\"Device Id\":0") "]}";
#undef MEM
    write_file(t0, r0, (long)strlen(r0));
    write_file(t1, r1, (long)strlen(r1));
    cr_assert_eq(import_to(src_path("tests/data/kineto/df_index_resolver_df_index_resolver.json.gz"), base), 0);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' --rank 0", tracedb(), t0, fresh), 0);
    cr_assert_eq(run("'%s' import -q --append '%s' -o '%s' --rank 1", tracedb(), t1, fresh), 0);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --section memory --format csv 2>/dev/null | tr -d '\\r'", tracedb(),
                            base, fresh);
    cr_assert_str_eq(out, "run,device,peak_allocated_bytes,peak_reserved_bytes\n"
                          "new,cpu,64,\n"
                          "base,cpu,8,0\n"
                          "new,cuda:0,3500,\n"
                          "new,cuda:0,5000,\n"
                          "base,cuda:1,6629508096,12782141440\n"
                          "new,device type 2:0,300,\n");
    free(out);
    /* the gate's memory_peak: each run's highest peak */
    out = run_capture(&st, "'%s' diff '%s' '%s' --section memory --fail-above 0 --metric memory_peak 2>&1 >/dev/null",
                      tracedb(), base, fresh);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "PASS: memory_peak 6629508096 b -> 5000 b"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --section memory --fail-above 0 --metric memory_peak 2>&1 >/dev/null",
                      tracedb(), fresh, base);
    cr_assert(strstr(out, "FAIL: memory_peak 5000 b -> 6629508096 b"), "%s", out);
    free(out);
    /* memory --timeline: the same running sums, each trace its own */
    out = run_capture(&st, "'%s' memory '%s' --timeline --by-rank --format csv | tr -d '\\r' | grep ',cuda:0,' | cut -d, -f1,5",
                      tracedb(), fresh);
    cr_assert_str_eq(out, "0,1000\n0,3000\n0,2000\n0,3500\n1,5000\n1,1000\n1,1100\n");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* One rule for step statistics: `latency`, `ranks` and diff's steps section cut a median that falls on
 * x.5 ns to whole ns alike (as latency cuts it for Furiosa's print_summary). Two ranks, two steps each,
 * by hand: rank 0 steps 1000 and 2000 ns, rank 1 steps 1003 and 2005 ns. All four steps: median
 * (1003 + 2000) / 2 = 1501.5 (Python's statistics.median) -> 1501; step 1 across ranks:
 * (1000 + 1003) / 2 = 1001.5 -> 1001, trailed by 2; step 2: (2000 + 2005) / 2 = 2002.5 -> 2002, by 3. */
Test(diff, step_medians_on_half_a_ns_are_cut_alike_in_latency_ranks_and_diff)
{
    char *dir = temp_dir(), trace[2][600], job[600];
    const int durs[2][2] = {{1000, 2000}, {1003, 2005}};
    for (int r = 0; r < 2; r++) {
        snprintf(trace[r], sizeof trace[r], "%s/rank%d.json", dir, r);
        FILE *f = fopen(trace[r], "w");
        cr_assert(f);
        fprintf(f, "{\"distributedInfo\":{\"rank\":%d},\"traceEvents\":[", r);
        for (int s = 0; s < 2; s++)
            fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
                       "\"ts\":%d,\"dur\":%.3f}",
                    s ? "," : "", s + 1, 10 * s, durs[r][s] / 1000.0);
        fprintf(f, "]}");
        fclose(f);
    }
    snprintf(job, sizeof job, "%s/job.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' '%s' -o '%s'", tracedb(), trace[0], trace[1], job), 0);
    int st;
    /* name, count, median_ns */
    char *out = run_capture(&st, "'%s' latency '%s' --format csv | tr -d '\\r' | cut -d, -f1,2,6", tracedb(), job);
    cr_assert(st == 0 && strstr(out, "\nProfilerStep*,4,1501\n"), "latency: %s", out);
    free(out);
    /* step, ranks, min_ns, median_ns, straggle_ns */
    out = run_capture(&st, "'%s' ranks '%s' --format csv | tr -d '\\r' | cut -d, -f1-4,7", tracedb(), job);
    cr_assert(st == 0 && strstr(out, "\n1,2,1000,1001,2\n") && strstr(out, "\n2,2,2000,2002,3\n"), "ranks: %s", out);
    free(out);
    /* run, count, median_ns, delta_median_ns */
    out = run_capture(&st, "'%s' diff '%s' '%s' --section steps --format csv | tr -d '\\r' | cut -d, -f1-3,10", tracedb(),
                      job, job);
    cr_assert(st == 0 && strstr(out, "\nbase,4,1501,\n") && strstr(out, "\nnew,4,1501,0\n"), "diff: %s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The rows `tracedb ops` prints of db as json (every row; CPU-side rows alone with no_device). */
static cJSON *ops_rows(const char *db, int no_device)
{
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --format json --limit 1000000 %s", tracedb(), db,
                            no_device ? "--no-device-rows" : "");
    cr_assert_eq(st, 0, "%s", out);
    cJSON *rows = cJSON_Parse(out);
    free(out);
    cr_assert(cJSON_IsArray(rows));
    return rows;
}

static int64_t num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsNumber(v), "%s", key);
    return (int64_t)v->valuedouble;
}

/* One side (base_, new_) of diff's rows against `tracedb ops` of that run's database (ops_db): every
 * CPU-side row of ops (--no-device-rows) is a diff row of a CPU-side kind with its calls and self CPU
 * time, every further row of ops (the device rows) one of kernel, memcpy or memset with its calls and
 * self device time, and diff has no other row of that run. Names are unique per side in these traces. */
static void side_is_ops(const cJSON *diff, const char *side, const char *ops_db)
{
    cJSON *all = ops_rows(ops_db, 0), *cpu = ops_rows(ops_db, 1);
    int n_all = cJSON_GetArraySize(all), n_cpu = cJSON_GetArraySize(cpu), matched = 0, in_diff = 0;
    char calls_key[32], total_key[32];
    snprintf(calls_key, sizeof calls_key, "%scalls", side);
    snprintf(total_key, sizeof total_key, "%stotal_ns", side);
    cr_assert(n_all >= n_cpu && n_cpu > 10, "%d rows, %d CPU-side", n_all, n_cpu);
    const cJSON *d;
    cJSON_ArrayForEach(d, diff)
    {
        if (num(d, calls_key) == 0)
            continue; /* not in this run */
        in_diff++;
        const char *name = cJSON_GetObjectItem(d, "name")->valuestring, *kind = cJSON_GetObjectItem(d, "kind")->valuestring;
        int device = strcmp(kind, "kernel") == 0 || strcmp(kind, "memcpy") == 0 || strcmp(kind, "memset") == 0;
        const cJSON *o, *hit = NULL, *rows = device ? all : cpu;
        cJSON_ArrayForEach(o, rows) if (strcmp(cJSON_GetObjectItem(o, "name")->valuestring, name) == 0 &&
                                        (!device || num(o, "cpu_total_ns") == 0)) hit = o;
        cr_assert(hit, "%s %s %s: no such row in ops", side, kind, name);
        cr_assert_eq(num(d, calls_key), num(hit, "calls"), "%s %s calls", side, name);
        cr_assert_eq(num(d, total_key), num(hit, device ? "self_device_ns" : "self_cpu_ns"), "%s %s time", side, name);
        matched++;
    }
    cr_assert_eq(in_diff, n_all, "%s: %d rows in diff, %d in ops", side, in_diff, n_all);
    cr_assert_eq(matched, n_all);
    cJSON_Delete(all);
    cJSON_Delete(cpu);
}

/* diff base new against ops of base_ops and new_ops (the same runs, their sums untouched). */
static void diff_is_ops(const char *base, const char *fresh, const char *base_ops, const char *new_ops)
{
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --section ops --format json 2>/dev/null", tracedb(), base, fresh);
    cr_assert_eq(st, 0, "%s", out);
    cJSON *rows = cJSON_Parse(out);
    free(out);
    cr_assert(cJSON_IsArray(rows));
    side_is_ops(rows, "base_", base_ops);
    side_is_ops(rows, "new_", new_ops);
    cJSON_Delete(rows);
}

/* A copy of db at copy with the import's per-name time sums zeroed: what diff must not read. */
static void zeroed_copy(const char *db, const char *copy)
{
    cr_assert_eq(run("cp '%s' '%s'", db, copy), 0);
    sqlite3 *d = NULL;
    cr_assert_eq(sqlite3_open_v2(copy, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE event_stats SET self_ns = 0, self_device_ns = 0, device_total_ns = 0", NULL, NULL,
                              NULL), SQLITE_OK);
    sqlite3_close(d);
}

/* diff's rows of each run are that run's `tracedb ops` rows: calls and self CPU time of the CPU-side rows
 * after PyTorch's merge of an only same-name child (torch_merge.json.gz, whose ops rows
 * test_ops_merge.c checks against PyTorch's key_averages(), and the trace_diff pair, with hundreds of
 * events inside one of their own name), device time of the GPU work per name; also with the import's
 * per-name time sums zeroed, which diff does not read. */
Test(diff, rows_are_each_runs_ops_rows, .timeout = 240)
{
    char *dir = temp_dir(), c[600], t[600], m[600], zc[600], zt[600], zm[600];
    real_pair(dir, c, t);
    snprintf(m, sizeof m, "%s/merge.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/torch_merge.json.gz"), m), 0);
    cr_assert(file_int(m, "SELECT value FROM meta WHERE key = 'ops.same_name_nesting'") > 10);
    cr_assert(file_int(c, "SELECT value FROM meta WHERE key = 'ops.same_name_nesting'") > 100);
    diff_is_ops(m, c, m, c);
    diff_is_ops(c, t, c, t);
    cr_assert(file_int(c, "SELECT count(DISTINCT name_id) FROM event WHERE kind = (SELECT id FROM kind WHERE name = 'kernel')") > 10);
    snprintf(zc, sizeof zc, "%s/zc.db", dir), snprintf(zt, sizeof zt, "%s/zt.db", dir), snprintf(zm, sizeof zm, "%s/zm.db", dir);
    zeroed_copy(c, zc), zeroed_copy(t, zt), zeroed_copy(m, zm);
    diff_is_ops(zm, zc, m, c);
    diff_is_ops(zc, zt, c, t);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --by-shape: the CPU-side rows are `ops --group-by shape`'s (name, input shapes, calls, self CPU time),
 * the GPU work's still one row per name; on torch_merge.json.gz, whose rows by shape test_ops_merge.c
 * checks against PyTorch. */
Test(diff, by_shape_rows_are_ops_group_by_shape_rows, .timeout = 120)
{
    char *dir, *db = imported("tests/data/torch_merge.json.gz", &dir);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --group-by shape --no-device-rows --format csv --limit 100000 | tr -d '\\r' "
                                 "| python3 -c 'import csv,sys\nfor r in csv.DictReader(sys.stdin): "
                                 "print(r[\"name\"], r[\"input_shapes\"], r[\"calls\"], r[\"self_cpu_ns\"])' | sort",
                            tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    char *got = run_capture(&st, "'%s' diff '%s' '%s' --by-shape --kinds op,range,runtime,driver --format csv | tr -d '\\r' "
                                 "| python3 -c 'import csv,sys\nfor r in csv.DictReader(sys.stdin): "
                                 "print(r[\"name\"], r[\"input_shapes\"], r[\"base_calls\"], r[\"base_total_ns\"])' | sort",
                            tracedb(), db, db);
    cr_assert_eq(st, 0, "%s", got);
    cr_assert(strlen(out) > 200);
    cr_assert_str_eq(got, out);
    free(out);
    free(got);
    cleanup(dir, db);
}

/* Kinds by hand. "X": an operator (10 us) and a range (5 us) of one name: one row, as `ops` has it, under
 * op (the first of op, range, runtime, driver), 2 calls, 15 us. "k": an operator (10 us, Input Dims [[1]])
 * around a launch (2 us) of a kernel also named "k" (7 us): an op row (1 call, self 8 us) and a kernel row
 * (1 call, 7 us); by shape the op's row has its shapes and the kernel's none (NULL; "" for no
 * Input Dims). "Y" (10 us) around its only
 * child "Y" (4 us): PyTorch's merge, 1 call of self 10 us. */
Test(diff, a_names_kind_and_sides_by_hand)
{
    static const char json[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},\n"
        "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":10,\"args\":{\"Input Dims\":[[1]]}},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":31,\"dur\":2,"
        "\"args\":{\"correlation\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":34,\"dur\":7,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Y\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"Y\",\"pid\":1,\"tid\":1,\"ts\":51,\"dur\":4}]}";
    char *dir = temp_dir(), db[600];
    import_text(dir, json, db, sizeof db);
    int st;
    /* name, kind, base_calls, base_total_ns, input_shapes */
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --format csv | tr -d '\\r' | cut -d, -f1,2,3,5,12- | sort", tracedb(),
                            db, db);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert_str_eq(out, "X,op,2,15000,\nY,op,1,10000,\ncudaLaunchKernel,runtime,1,2000,\nk,kernel,1,7000,\nk,op,1,8000,\n"
                          "name,kind,base_calls,base_total_ns,input_shapes\n");
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --by-shape --format csv | tr -d '\\r' | cut -d, -f1,2,3,5,12- | sort",
                      tracedb(), db, db);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert_str_eq(out, "X,op,2,15000,\"\"\nY,op,1,10000,\"\"\ncudaLaunchKernel,runtime,1,2000,\"\"\n"
                          "k,kernel,1,7000,\nk,op,1,8000,[[1]]\nname,kind,base_calls,base_total_ns,input_shapes\n");
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' --kinds kernel,range --format csv | tr -d '\\r' | cut -d, -f1,2", tracedb(),
                      db, db);
    cr_assert_str_eq(out, "name,kind\nk,kernel\n");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Overwrites 48 KiB of db at pct of its size (page-aligned) with 0x5a bytes: a database damaged midway. */
static void damage(const char *db, int pct)
{
    FILE *f = fopen(db, "r+b");
    cr_assert(f);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long at = ftell(f) / 100 * pct / 4096 * 4096;
    cr_assert_eq(fseek(f, at, SEEK_SET), 0);
    for (int i = 0; i < 49152; i++)
        fputc(0x5a, f);
    cr_assert_eq(fclose(f), 0);
}

/* A database damaged where the ops pass reads it (the largest real trace, so that its events are read in
 * two halves on two threads, and diff reads both runs at once; its rows, the import's pack taken away):
 * the error is said once, not followed by SQLite's "not an error" of the other connection, and diff names
 * the run that could not be read. (test_event_pack_rows.c damages the pack.) */
Test(diff, a_damaged_run_is_named_and_said_once, .timeout = 120)
{
    char *dir, *good = imported("tests/data/kineto/df_index_resolver_df_index_resolver.json.gz", &dir);
    char bad[1200], bad2[1200];
    snprintf(bad, sizeof bad, "%s/damaged.db", dir), snprintf(bad2, sizeof bad2, "%s/damaged2.db", dir);
    cr_assert_eq(run("cp '%s' '%s' && cp '%s' '%s'", good, bad, good, bad2), 0);
    for (int k = 0; k < 2; k++) /* (a DELETE in meta: no trigger takes the pack away, and no page of event moves) */
        cr_assert_eq(run("sqlite3 '%s' \"DELETE FROM meta WHERE key = 'event_pack_v2'\"", k ? bad2 : bad), 0);
    damage(bad, 50), damage(bad2, 40);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' 2>&1 >/dev/null", tracedb(), bad);
    cr_assert_neq(st, 0);
    cr_assert_str_eq(out, "tracedb ops: database disk image is malformed\n");
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' 2>&1 >/dev/null", tracedb(), good, bad);
    cr_assert_neq(st, 0);
    cr_assert(strstr(out, "damaged.db (the new run): its memory peaks and operators could not be read\n") &&
              !strstr(out, "not an error") && !strstr(out, "the base run"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' diff '%s' '%s' 2>&1 >/dev/null", tracedb(), bad2, bad);
    cr_assert_neq(st, 0);
    cr_assert(strstr(out, "damaged2.db (the base run): its memory peaks") && strstr(out, "damaged.db (the new run): its memory peaks"),
              "%s", out);
    free(out);
    cleanup(dir, good);
}

/* A shard directory (tracedb-mpi import's: a shards.json in it) where diff wants one database: said as
 * such, with the command that makes one, not as a directory without traces. */
Test(diff, a_shard_directory_is_said_as_one)
{
    char *dir, *good = imported("tests/data/kineto/trace_diff_test_test.json.gz", &dir);
    cr_assert_eq(run("mkdir '%s/sh' && echo '{\"shards\": []}' > '%s/sh/shards.json'", dir, dir), 0);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s/sh' '%s' 2>&1 >/dev/null", tracedb(), dir, good);
    cr_assert_eq(st, 1);
    cr_assert(strstr(out, "/sh is a directory of shards (tracedb-mpi import), and this command reads one database: "
                          "make one of them with `tracedb merge ") && !strstr(out, "no trace in it"), "%s", out);
    free(out);
    cleanup(dir, good);
}

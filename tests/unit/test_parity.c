/* test_parity.c: tracedb's numbers against independent sources:
 *  - the bundled samples against PyTorch's own key_averages() (saved by samples/make_samples.py);
 *  - every real Kineto trace against counts made by Python's json module (tests/oracle/);
 *  - a few events worked by hand from call_stack_backward_thread.json. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_against_key_averages(const char *sample)
{
    char *dir = temp_dir(), db[512], ops[512], trace[256], oracle[256];
    snprintf(db, sizeof db, "%s/run.db", dir);
    snprintf(ops, sizeof ops, "%s/ops.json", dir);
    snprintf(trace, sizeof trace, "samples/%s.json.gz", sample);
    snprintf(oracle, sizeof oracle, "samples/%s.key_averages.json", sample);
    cr_assert_eq(import_to(src_path(trace), db), 0);
    cr_assert_eq(run("'%s' ops '%s' --format json > '%s'", tracedb(), db, ops), 0);

    char *want_text = read_file(src_path(oracle), NULL), *got_text = read_file(ops, NULL);
    cJSON *want = cJSON_Parse(want_text);
    cJSON *got = cJSON_Parse(got_text);
    free(want_text);
    free(got_text);
    cr_assert(want && got);
    cJSON *rows = cJSON_GetObjectItem(want, "rows");
    cr_assert_eq(cJSON_GetArraySize(got), cJSON_GetArraySize(rows), "one row per PyTorch row");
    cJSON *w;
    cJSON_ArrayForEach(w, rows)
    {
        const char *name = cJSON_GetObjectItem(w, "name")->valuestring;
        cJSON *g = NULL, *it;
        cJSON_ArrayForEach(it, got) if (strcmp(cJSON_GetObjectItem(it, "name")->valuestring, name) == 0) g = it;
        cr_assert(g, "%s: PyTorch lists %s, tracedb does not", sample, name);
        double calls = cJSON_GetObjectItem(w, "calls")->valuedouble;
        double tol = 1000.0 * calls; /* 1 us per call of rounding */
        cr_assert_eq(cJSON_GetObjectItem(g, "calls")->valuedouble, calls, "%s calls", name);
        cr_assert_float_eq(cJSON_GetObjectItem(g, "self_cpu_ns")->valuedouble,
                           cJSON_GetObjectItem(w, "self_cpu_us")->valuedouble * 1000, tol, "%s self CPU", name);
        cr_assert_float_eq(cJSON_GetObjectItem(g, "cpu_total_ns")->valuedouble,
                           cJSON_GetObjectItem(w, "cpu_total_us")->valuedouble * 1000, tol, "%s CPU total", name);
    }
    cJSON_Delete(want);
    cJSON_Delete(got);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(parity, resnet18_inference_matches_pytorch_key_averages, .timeout = 60)
{
    check_against_key_averages("resnet18_inference");
}

Test(parity, resnet18_matches_pytorch_with_the_imports_sorts_on_disk, .timeout = 60)
{
    setenv("TRACEDB_SORT_KIB", "1", 1); /* every sort of the import spills runs of 16 to 42 records */
    check_against_key_averages("resnet18_inference");
}

Test(parity, training_schedule_matches_pytorch_key_averages, .timeout = 60)
{
    check_against_key_averages("train_schedule");
}

Test(parity, every_real_kineto_trace_imports_with_the_expected_counts, .timeout = 240)
{
    char *text = read_file(src_path("tests/data/kineto_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    cr_assert(expected);
    char *dir = temp_dir();
    int files = 0;
    cJSON *trace;
    cJSON_ArrayForEach(trace, expected)
    {
        char db[512], sql[512], in[512];
        snprintf(db, sizeof db, "%s/%d.db", dir, files++);
        snprintf(in, sizeof in, "tests/data/kineto/%s", trace->string);
        cr_assert_eq(import_to(src_path(in), db), 0, "%s imports without error", trace->string);
        sqlite3 *d = db_open(db);
        cJSON *k;
        int64_t total = 0;
        cJSON_ArrayForEach(k, cJSON_GetObjectItem(trace, "kinds"))
        {
            snprintf(sql, sizeof sql, "SELECT count(*) FROM events WHERE kind = '%s'", k->string);
            cr_assert_eq(db_int(d, sql), (int64_t)k->valuedouble, "%s: %s events", trace->string, k->string);
            total += (int64_t)k->valuedouble;
        }
        cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), total, "%s: no extra events", trace->string);
        cr_assert_eq(db_int(d, "SELECT count(*) FROM flow"), (int64_t)cJSON_GetObjectItem(trace, "flows")->valuedouble,
                     "%s: flows", trace->string);
        int64_t ktotal = db_int(d, "SELECT coalesce(sum(dur_ns), 0) FROM kernels");
        cr_assert_eq(ktotal, (int64_t)cJSON_GetObjectItem(trace, "kernel_total_ns")->valuedouble, "%s: kernel ns",
                     trace->string);
        cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE launch_id IS NOT NULL"),
                     (int64_t)cJSON_GetObjectItem(trace, "gpu_linked")->valuedouble, "%s: linked GPU work",
                     trace->string);
        cr_assert_eq(launch_ns_wrong(d, "main"), 0, "%s: every GPU row holds its launch's start", trace->string);
        cr_assert_eq(db_int(d, "SELECT value = 'complete' FROM meta WHERE key = 'import_status'"), 1);
        cr_assert_eq(db_int(d, "PRAGMA user_version"), 1);
        sqlite3_close(d);
    }
    cr_assert_eq(files, 17, "all 17 real traces");
    cJSON_Delete(expected);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(parity, hand_checked_backward_thread_events, .timeout = 30)
{
    char *dir = temp_dir(), db[512];
    snprintf(db, sizeof db, "%s/bw.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/call_stack_backward_thread.json"), db), 0);
    sqlite3 *d = db_open(db);
    /* evaluate_function (145 us) > AddmmBackward0 (102 us) > aten::mm (58 us) > cudaLaunchKernel (10 us) */
    cr_assert_eq(db_int(d, "SELECT self_ns FROM ops WHERE name = 'aten::mm'"), 48000);
    cr_assert_eq(db_int(d, "SELECT self_ns FROM ops WHERE name = 'AddmmBackward0'"), 44000);
    cr_assert_eq(db_int(d, "SELECT self_ns FROM ops WHERE name LIKE 'autograd::engine%'"), 43000);
    cr_assert_eq(db_int(d, "SELECT depth FROM api_calls WHERE name = 'cudaLaunchKernel'"), 3);
    cr_assert_eq(db_int(d, "SELECT p.name = 'aten::mm' FROM api_calls a JOIN ops p ON p.id = a.parent_id"), 1);
    /* ProfilerStep#552 (413451 us) holds "## backward ##" (107988 us) on thread 3914 */
    cr_assert_eq(db_int(d, "SELECT self_ns FROM steps WHERE step = 552"), INT64_C(305463000));
    cr_assert_eq(db_int(d, "SELECT start_ns FROM steps"), INT64_C(1666149715033200000));
    /* the kernel: linked to its launch and to aten::mm; launch geometry as columns */
    cr_assert_eq(db_int(d, "SELECT o.name = 'aten::mm' FROM kernels k JOIN ops o ON o.id = k.op_id"), 1);
    cr_assert_eq(db_int(d, "SELECT grid_x * 100 + grid_y * 10 + grid_z FROM kernels"), 3212); /* grid [32, 1, 2] */
    cr_assert_eq(db_int(d, "SELECT block_x FROM kernels"), 128);
    cr_assert_eq(db_int(d, "SELECT registers FROM kernels"), 240);
    cr_assert_eq(db_int(d, "SELECT shared_mem FROM kernels"), 98304);
    cr_assert_eq(db_int(d, "SELECT correlation FROM kernels"), 2131433);
    cr_assert_eq(db_int(d, "SELECT stream * 10 + device FROM kernels"), 70);
    /* args that became columns are not stored again; the rest are */
    char *args = db_text(d, "SELECT args FROM kernels");
    cr_assert_str_eq(args, "{\"queued\":0,\"context\":1}");
    free(args);
    args = db_text(d, "SELECT json_extract(args, '$.\"Input Dims\"') FROM ops WHERE name = 'aten::mm'");
    cr_assert_str_eq(args, "[[2048,2048],[2048,256]]");
    free(args);
    char *dist = db_text(d, "SELECT json_extract(value, '$.rank') FROM meta WHERE key = 'distributed_info'");
    cr_assert_str_eq(dist, "0");
    free(dist);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(parity, fractional_ns_times_are_exact, .timeout = 60)
{
    char *dir = temp_dir(), db[512];
    snprintf(db, sizeof db, "%s/ns.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/ns_resolution_trace_rank-0.json.gz"), db), 0);
    sqlite3 *d = db_open(db);
    /* the file's first event: "ts": 1712195495519689.047, "dur": 63.813 (DivBackward1's parent) */
    cr_assert_eq(db_int(d, "SELECT start_ns FROM event WHERE id = (SELECT min(id) FROM ops)"),
                 INT64_C(1712195495519689047));
    cr_assert_eq(db_int(d, "SELECT dur_ns FROM event WHERE id = (SELECT min(id) FROM ops)"), 63813);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

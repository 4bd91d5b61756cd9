/* test_reports.c: the analyzer's reports against independent numbers: device time and memory per
 * operator from a Python tree walk (tests/oracle/ops_expected.py), FLOPs from PyTorch's published
 * resnet18 figures, percentiles and kernel statistics from pandas (tests/oracle/pandas_expected.py),
 * and hand-worked traces for memory, windows and ranks (`device`'s: test_device_report.c). */
#include "helpers.h"
#include "sqlfuncs.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Writes json as NAME.json into a fresh dir and imports it into NAME.db there; returns the db. */
static char *imported_json(const char *name, const char *json, char **dir)
{
    *dir = temp_dir();
    char file[64], *db = malloc(1024);
    snprintf(file, sizeof file, "%s.json", name);
    char *trace = write_text_file(*dir, file, json);
    snprintf(db, 1024, "%s/%s.db", *dir, name);
    cr_assert_eq(import_to(trace, db), 0, "import %s", trace);
    free(trace);
    return db;
}

static void ops_match_the_python_tree_walk(void)
{
    char *text = read_file(src_path("tests/data/ops_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    cJSON *trace;
    const char *keys[] = {"self_device_ns", "device_total_ns", "cpu_mem_bytes", "self_cpu_mem_bytes",
                          "device_mem_bytes", "self_device_mem_bytes"};
    cJSON_ArrayForEach(trace, expected)
    {
        char rel[512], *dir, args[1200];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", trace->string);
        char *db = imported(rel, &dir);
        for (int path = 0; path < 2; path++) { /* from the import's sums, and from the events; the CPU-side rows
                                                * the walk names (the device rows: test_kernel_ops.c) */
            snprintf(args, sizeof args, "ops '%s' --no-device-rows%s", db, path ? " --from 0" : "");
            cJSON *got = tracedb_json(args);
            cJSON *r;
            int checked = 0;
            cJSON_ArrayForEach(r, got)
            {
                const char *name = cJSON_GetObjectItem(r, "name")->valuestring;
                cJSON *want = cJSON_GetObjectItem(trace, name);
                for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                    cJSON *w = want ? cJSON_GetObjectItem(want, keys[k]) : NULL;
                    double expect = w ? w->valuedouble : 0;
                    cr_assert_eq(json_num(r, keys[k]), expect, "%s %s %s (path %d)", trace->string, name, keys[k], path);
                    checked += expect != 0;
                }
            }
            cr_assert_gt(checked, 10, "%s: nonzero values were compared", trace->string);
            cJSON_Delete(got);
        }
        cleanup(dir, db);
    }
    cJSON_Delete(expected);
}

Test(reports, ops_device_time_and_memory_match_the_python_tree_walk, .timeout = 120)
{
    ops_match_the_python_tree_walk();
}

/* The import's sorts (nesting, launch links, attribution, device time) spilled to disk in runs of
 * 16 to 42 records: the same figures (TRACEDB_SORT_KIB: what each sort may hold in memory). */
Test(reports, ops_device_time_and_memory_match_with_the_imports_sorts_on_disk, .timeout = 120)
{
    setenv("TRACEDB_SORT_KIB", "1", 1);
    ops_match_the_python_tree_walk();
}

/* Every operator of a model profiled by PyTorch with with_flops (tests/oracle/torch_flops.py: mm, addmm,
 * bmm, baddbmm, mul and add with broadcasting and scalars, mul_, add_, div, matmul, linear) carries PyTorch's
 * own FLOPs for it (the profiler's e.flops()) in its args: tdb_flops gives the same for each event, NULL where
 * PyTorch has no formula (its 0); and ops --group-by shape sums them per name and shapes. */
Test(reports, flops_of_every_operator_equal_pytorchs)
{
    char *dir;
    char *db = imported("tests/data/torch_flops.json.gz", &dir);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    tdb_register_functions(d);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM events WHERE kind = 'op' AND coalesce(tdb_flops(name, args), 0) != "
                           "json_extract(args, '$.torch_flops')"),
                 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM events WHERE kind = 'op' AND json_extract(args, '$.torch_flops') > 0"), 14);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM events WHERE kind = 'op' AND name IN ('aten::mul_', 'aten::add_') AND "
                           "tdb_flops(name, args) IS NULL"),
                 2, "no formula for in-place forms");
    sqlite3_close(d);
    char args[1200];
    snprintf(args, sizeof args, "ops '%s' --with-flops --group-by shape", db);
    cJSON *rows = tracedb_json(args);
    /* aten::mul [16, 1] x [16, 64]: PyTorch counts input 0's 16 elements, not the 1,024 of the broadcast */
    cr_assert_eq(json_num(json_row_named(rows, "input_shapes", "[[16,1],[16,64]]"), "flops"), 16);
    cr_assert_eq(json_num(json_row_named(rows, "input_shapes", "[[],[16,64]]"), "flops"), 1);
    cJSON_Delete(rows);
    cleanup(dir, db);
}

Test(reports, resnet18_flops_match_pytorch)
{
    char *dir, args[1200];
    char *db = imported("tests/data/resnet18_flops.json", &dir);
    snprintf(args, sizeof args, "ops '%s' --with-flops", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(json_num(json_row_named(rows, "name", "aten::conv2d"), "flops"), 18135613440.0);
    cr_assert_eq(json_num(json_row_named(rows, "name", "aten::addmm"), "flops"), 5120000.0);
    cJSON_Delete(rows);
    cleanup(dir, db);
}

/* The rows of `tracedb <report> db` against pandas' statistics per group: the key is
 * the name, or with by_launch "name|grid|block|registers|shared memory". */
static void stats_match_pandas(const char *db, const char *report, cJSON *expected, const char *count, int by_launch)
{
    char args[1400];
    snprintf(args, sizeof args, "%s '%s'", report, db); /* JSON: every row */
    cJSON *rows = tracedb_json(args), *want;
    cr_assert(cJSON_GetArraySize(expected) >= 3, "%s: pandas' groups", report);
    cJSON_ArrayForEach(want, expected)
    {
        cJSON *r = NULL, *row;
        cJSON_ArrayForEach(row, rows)
        {
            char key[1024];
            const char *name = cJSON_GetObjectItem(row, "name")->valuestring;
            if (by_launch)
                snprintf(key, sizeof key, "%s|%s|%s|%.0f|%.0f", name, cJSON_GetObjectItem(row, "grid")->valuestring,
                         cJSON_GetObjectItem(row, "block")->valuestring, json_num(row, "registers"), json_num(row, "shared_mem_bytes"));
            else
                snprintf(key, sizeof key, "%s", name);
            if (strcmp(key, want->string) == 0) {
                cr_assert(!r, "%s: %s listed twice", report, want->string);
                r = row;
            }
        }
        cr_assert(r, "%s: %s listed", report, want->string);
        cr_assert_eq(json_num(r, count), json_num(want, "instances"), "%s: %s count", report, want->string);
        cr_assert_eq(json_num(r, "total_ns"), json_num(want, "total"), "%s: %s total", report, want->string);
        cr_assert_eq(json_num(r, "min_ns"), json_num(want, "min"));
        cr_assert_eq(json_num(r, "max_ns"), json_num(want, "max"));
        cr_assert_leq(fabs(json_num(r, "med_ns") - json_num(want, "median")), 0.5, "%s: %s median", report, want->string);
        cr_assert_leq(fabs(json_num(r, "avg_ns") - json_num(want, "mean")), 0.5, "%s: %s mean", report, want->string);
        cJSON *sd = cJSON_GetObjectItem(want, "std");
        if (cJSON_IsNumber(sd))
            cr_assert_leq(fabs(json_num(r, "stddev_ns") - sd->valuedouble), 0.5, "%s: %s stddev", report, want->string);
    }
    cJSON_Delete(rows);
}

Test(reports, latency_percentiles_and_kernel_stats_match_pandas, .timeout = 120)
{
    char *text = read_file(src_path("tests/data/pandas_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    char rel[512], *dir, args[1400];
    snprintf(rel, sizeof rel, "tests/data/kineto/%s", cJSON_GetObjectItem(expected, "trace")->valuestring);
    char *db = imported(rel, &dir);
    cJSON *want;
    cJSON_ArrayForEach(want, cJSON_GetObjectItem(expected, "latency"))
    {
        if (strcmp(want->string, "ProfilerStep*") == 0)
            snprintf(args, sizeof args, "latency '%s'", db);
        else
            snprintf(args, sizeof args, "latency '%s' --name '%s'", db, want->string);
        cJSON *rows = tracedb_json(args);
        cJSON *r = cJSON_GetArrayItem(rows, 0);
        cr_assert_eq(json_num(r, "count"), json_num(want, "count"), "%s count", want->string);
        cr_assert_eq(json_num(r, "min_ns"), json_num(want, "min"));
        cr_assert_eq(json_num(r, "max_ns"), json_num(want, "max"));
        const char *pairs[][2] = {{"mean_ns", "mean"}, {"median_ns", "p50"}, {"p90_ns", "p90"}, {"p95_ns", "p95"},
                                  {"p97_ns", "p97"},   {"p99_ns", "p99"},    {"p999_ns", "p99.9"}};
        for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) { /* cut to whole ns, as Furiosa's int() */
            double w = json_num(want, pairs[k][1]), cut = floor(w);
            if (fabs(w - nearbyint(w)) < 1e-6) /* on a whole ns: either side of it, as two sums' last bits fall */
                cr_assert_leq(fabs(json_num(r, pairs[k][0]) - nearbyint(w)), 1, "%s %s", want->string, pairs[k][0]);
            else
                cr_assert_eq(json_num(r, pairs[k][0]), cut, "%s %s: %.3f", want->string, pairs[k][0], w);
        }
        cJSON_Delete(rows);
    }
    /* 151,391 event ids: each pass reads them in two halves at once (kernel_sweep.c), which these sums,
     * medians and deviations of groups met in both halves check too */
    stats_match_pandas(db, "kernels", cJSON_GetObjectItem(expected, "kernels"), "instances", 0);
    stats_match_pandas(db, "kernels --group-by launch", cJSON_GetObjectItem(expected, "kernels_by_launch"), "instances", 1);
    stats_match_pandas(db, "api", cJSON_GetObjectItem(expected, "api"), "calls", 0);
    cJSON_Delete(expected);
    cleanup(dir, db);
}

/* Two [memory] events of 2^63 - 1 bytes each (no real trace's; this one's own values, as imported): their
 * sum passes 2^63, and ops and the HTML report, which sum them, stop and say what that means, not a bare
 * "integer overflow" (memory's sums saturate: untrusted_times/memory_byte_sums_saturate_instead_of_overflowing). */
Test(reports, ops_and_the_report_say_what_a_sum_past_2_63_means)
{
    static const char trace[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"Addr\":1,"
        "\"Bytes\":9223372036854775807,\"Device Type\":0}},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Addr\":2,"
        "\"Bytes\":9223372036854775807,\"Device Type\":0}}]}";
    char *dir = temp_dir(), db[600];
    import_text(dir, trace, db, sizeof db);
    static const char *const cmds[] = {"ops '%s'", "report '%s' -o %s/r.html"};
    for (int i = 0; i < 2; i++) {
        char args[1400];
        snprintf(args, sizeof args, cmds[i], db, dir);
        int st;
        char *out = run_capture(&st, "'%s' %s 2>&1; echo rc=$?", tracedb(), args);
        cr_expect(strstr(out, "rc=1\n"), "%s: exit 1: %s", args, out);
        cr_expect(strstr(out, "integer overflow: a sum of the database's values passed 2^63"), "%s: said: %s", args, out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Op A [0,100) allocates 1000 at addr 1 and 500 at addr 2; op B [100,200) frees addr 1 and allocates
 * 3000 at addr 3. Totals as the allocator reports them. Peak allocated 3500 at 120 us inside B;
 * peak reserved 4000; fragmentation (4000 - 3500) / 4000 = 12.5%; leaked addr 2 + addr 3 = 3500. */
static const char memory_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":"
    "{\"Addr\":1,\"Bytes\":1000,\"Total Allocated\":1000,\"Total Reserved\":2000,\"Device Type\":1,\"Device Id\":0}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":"
    "{\"Addr\":2,\"Bytes\":500,\"Total Allocated\":1500,\"Total Reserved\":2000,\"Device Type\":1,\"Device Id\":0}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":110,\"args\":"
    "{\"Addr\":1,\"Bytes\":-1000,\"Total Allocated\":500,\"Total Reserved\":4000,\"Device Type\":1,\"Device Id\":0}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":120,\"args\":"
    "{\"Addr\":3,\"Bytes\":3000,\"Total Allocated\":3500,\"Total Reserved\":4000,\"Device Type\":1,\"Device Id\":0}}]}";

Test(reports, memory_peaks_leaks_by_hand)
{
    char *dir = temp_dir(), *trace = write_text_file(dir, "m.json", memory_trace), db[1100], args[1200];
    snprintf(db, sizeof db, "%s/m.db", dir);
    cr_assert_eq(import_to(trace, db), 0);
    snprintf(args, sizeof args, "memory '%s'", db);
    cJSON *rows = tracedb_json(args);
    cJSON *r = json_row_named(rows, "device", "cuda:0");
    cr_assert(r);
    cr_assert_eq(json_num(r, "peak_allocated_bytes"), 3500);
    cr_assert_eq(json_num(r, "peak_allocated_ns"), 120000);
    cr_assert_eq(json_num(r, "peak_reserved_bytes"), 4000);
    cr_assert_float_eq(json_num(r, "fragmentation_pct"), 12.5, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(r, "peak_op")->valuestring, "B");
    cr_assert_eq(json_num(r, "leaked_bytes"), 3500);
    cr_assert_eq(json_num(r, "allocs"), 3);
    cr_assert_eq(json_num(r, "frees"), 1);
    cr_assert_eq(json_num(r, "allocated_bytes"), 4500);
    cr_assert_eq(json_num(r, "freed_bytes"), 1000);
    cJSON_Delete(rows);
    snprintf(args, sizeof args, "ops '%s'", db);
    rows = tracedb_json(args);
    cr_assert_eq(json_num(json_row_named(rows, "name", "A"), "self_device_mem_bytes"), 1500);
    cr_assert_eq(json_num(json_row_named(rows, "name", "B"), "device_mem_bytes"), 2000);
    cJSON_Delete(rows);
    snprintf(args, sizeof args, "memory '%s' --timeline", db);
    rows = tracedb_json(args);
    cr_assert_eq(cJSON_GetArraySize(rows), 4);
    cr_assert_eq(json_num(cJSON_GetArrayItem(rows, 3), "allocated_bytes"), 3500);
    cJSON_Delete(rows);
    /* without the allocator's totals the running sum (1000, 1500, 500, 3500) gives the peak; a device a
     * foreign database names in text keeps a group of its own */
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE memory_event SET total_allocated = NULL; "
                                 "UPDATE event SET device = 'x' WHERE id IN (SELECT event_id FROM memory_event)",
                              NULL, NULL, NULL),
                 SQLITE_OK);
    sqlite3_close(d);
    snprintf(args, sizeof args, "memory '%s'", db);
    rows = tracedb_json(args);
    r = json_row_named(rows, "device", "cuda:x");
    cr_assert(r);
    cr_assert_eq(json_num(r, "peak_allocated_bytes"), 3500);
    cr_assert_eq(json_num(r, "peak_allocated_ns"), 120000);
    cr_assert_eq(json_num(r, "leaked_bytes"), 3500);
    cr_assert_str_eq(cJSON_GetObjectItem(r, "peak_op")->valuestring, "B");
    cJSON_Delete(rows);
    free(trace);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* [memory] events with no Addr (as tracedb.torch writes them, and PyTorch's own exports of host memory):
 * no free pairs with an allocation, so leaked bytes are allocated minus freed (100 + 50 - 30 = 120), said
 * on stderr; where frees outweigh the allocations (of memory allocated before the trace) it is not known. */
Test(reports, memory_leaks_without_addresses_are_allocated_less_freed)
{
    static const char *const frees[] = {"-30", "-500"};
    for (int k = 0; k < 2; k++) {
        char json[1500], *dir;
        snprintf(json, sizeof json,
                 "{\"traceEvents\":["
                 "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                 "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"Bytes\":100,\"Device Type\":0}},"
                 "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Bytes\":50,\"Device Type\":0}},"
                 "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,\"args\":{\"Bytes\":%s,\"Device Type\":0}}]}",
                 frees[k]);
        char *db = imported_json("noaddr", json, &dir), args[1200];
        snprintf(args, sizeof args, "memory '%s'", db);
        cJSON *rows = tracedb_json(args), *r = json_row_named(rows, "device", "cpu");
        cr_assert(r);
        cr_assert_eq(json_num(r, "allocated_bytes"), 150);
        if (k == 0)
            cr_assert_eq(json_num(r, "leaked_bytes"), 120);
        else
            cr_assert(cJSON_IsNull(cJSON_GetObjectItem(r, "leaked_bytes")), "frees outweigh allocations: not known");
        cJSON_Delete(rows);
        int st;
        char *out = run_capture(&st, "'%s' memory '%s' 2>&1 >/dev/null", tracedb(), db);
        cr_assert(st == 0 && strstr(out, "3 allocations carry no address") == NULL && strstr(out, "2 allocations carry no address"),
                  "%s", out);
        free(out);
        cleanup(dir, db);
    }
}

/* Summary's memory section is `tracedb memory`'s peaks, also where [memory] events carry no "Total
 * Allocated" (tdb_mem_* recordings, CUPTI, older PyTorch). cuda:0 gets +1000, +2000, -1000, +1500 bytes:
 * running sums 1000, 3000, 2000, 3500, so the peak is 3500 (3 allocations, 1 free); the host gets +64
 * then -64: peak 64. No "Total Reserved": no reserved peak, no fragmentation. */
Test(reports, summary_memory_is_memorys_peak_without_totals)
{
    char *dir, args[1200];
    char *db = imported_json("nototal",
                             "{\"traceEvents\":["
                             "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":10,\"args\":{\"Addr\":1,\"Bytes\":1000,\"Device Type\":1,\"Device Id\":0}},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,\"args\":{\"Addr\":2,\"Bytes\":2000,\"Device Type\":1,\"Device Id\":0}},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,\"args\":{\"Addr\":1,\"Bytes\":-1000,\"Device Type\":1,\"Device Id\":0}},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":40,\"args\":{\"Addr\":3,\"Bytes\":1500,\"Device Type\":1,\"Device Id\":0}},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":50,\"args\":{\"Addr\":9,\"Bytes\":64,\"Device Type\":0}},"
                             "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":60,\"args\":{\"Addr\":9,\"Bytes\":-64,\"Device Type\":0}}]}",
                             &dir);
    snprintf(args, sizeof args, "summary '%s'", db);
    cJSON *sum = tracedb_json(args), *mem = cJSON_GetObjectItem(sum, "memory");
    cr_assert_eq(cJSON_GetArraySize(mem), 2);
    cJSON *gpu = json_row_named(mem, "device", "cuda:0"), *host = json_row_named(mem, "device", "cpu");
    cr_assert(gpu && host);
    cr_assert_eq(json_num(gpu, "peak_allocated_bytes"), 3500);
    cr_assert_eq(json_num(gpu, "allocs"), 3);
    cr_assert_eq(json_num(gpu, "frees"), 1);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(gpu, "peak_reserved_bytes")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItem(gpu, "fragmentation_pct")));
    cr_assert_eq(json_num(host, "peak_allocated_bytes"), 64);
    /* the same peaks `tracedb memory` gives */
    snprintf(args, sizeof args, "memory '%s'", db);
    cJSON *rows = tracedb_json(args);
    cr_assert_eq(json_num(json_row_named(rows, "device", "cuda:0"), "peak_allocated_bytes"), 3500);
    cr_assert_eq(json_num(json_row_named(rows, "device", "cpu"), "peak_allocated_bytes"), 64);
    cJSON_Delete(rows);
    cJSON_Delete(sum);
    cleanup(dir, db);
}

/* Windows: step 1 [0,100) holds x [10,20) and y [30,40); step 2 [100,200) holds x [110,130). */
static const char window_trace[] =
    "{\"distributedInfo\":{\"rank\":RANK},\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":1100,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1010,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":1030,\"dur\":10},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1110,\"dur\":20}]}";

static int64_t calls_of(const char *args, const char *name)
{
    cJSON *rows = tracedb_json(args);
    cJSON *r = json_row_named(rows, "name", name);
    int64_t v = r ? (int64_t)json_num(r, "calls") : 0;
    cJSON_Delete(rows);
    return v;
}

Test(reports, windows_ranges_and_ranks)
{
    char *dir = temp_dir(), json[2048], db[1100], args[1300];
    for (int rank = 0; rank < 2; rank++) {
        char *p = strstr(strcpy(json, window_trace), "RANK");
        memmove(p + 1, p + 4, strlen(p + 4) + 1);
        *p = (char)('0' + rank);
        char name[16];
        snprintf(name, sizeof name, "w%d.json", rank);
        char *trace = write_text_file(dir, name, json);
        snprintf(db, sizeof db, "%s/w.db", dir);
        cr_assert_eq(run("'%s' import -q %s '%s' -o '%s'", tracedb(), rank ? "--append" : "", trace, db), 0);
        free(trace);
        if (rank == 0) {
            snprintf(args, sizeof args, "ops '%s' --range 'ProfilerStep#2'", db);
            cr_assert_eq(calls_of(args, "x"), 1);
            cr_assert_eq(calls_of(args, "y"), 0);
            snprintf(args, sizeof args, "ops '%s' --range x", db); /* two windows: y starts between them */
            cr_assert_eq(calls_of(args, "x"), 2);
            cr_assert_eq(calls_of(args, "y"), 0);
            snprintf(args, sizeof args, "ops '%s' --from 100us", db);
            cr_assert_eq(calls_of(args, "x"), 1);
            snprintf(args, sizeof args, "ops '%s' --to 100us", db);
            cr_assert_eq(calls_of(args, "x"), 1);
            cr_assert_eq(calls_of(args, "y"), 1);
            cr_assert_eq(calls_of(args, "ProfilerStep*"), 1);
            snprintf(args, sizeof args, "latency '%s' --each", db);
            cJSON *rows = tracedb_json(args);
            cr_assert_eq(cJSON_GetArraySize(rows), 2);
            cr_assert_eq(json_num(cJSON_GetArrayItem(rows, 1), "start_ns"), 100000);
            cJSON_Delete(rows);
            snprintf(args, sizeof args, "ops '%s' --range nothing-like-this", db);
            cr_assert_neq(run("'%s' %s 2>/dev/null", tracedb(), args), 0, "an unknown range is an error");
        }
    }
    for (int windowed = 0; windowed < 2; windowed++) { /* the whole trace's sums (ops.sql); a window: the C pass */
        snprintf(args, sizeof args, "ops '%s' --by-rank%s", db, windowed ? " --from 0" : "");
        cJSON *rows = tracedb_json(args), *r;
        int per_rank[2] = {0, 0};
        cJSON_ArrayForEach(r, rows) if (strcmp(cJSON_GetObjectItem(r, "name")->valuestring, "x") == 0)
            per_rank[(int)json_num(r, "rank")] += (int)json_num(r, "calls");
        cr_assert(per_rank[0] == 2 && per_rank[1] == 2, "x twice in each rank (%s)", args);
        cJSON_Delete(rows);
    }
    snprintf(args, sizeof args, "ops '%s'", db);
    cr_assert_eq(calls_of(args, "x"), 4);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* kernels --group-by launch worked by hand: one kernel name launched with two configurations that differ
 * in shared memory alone (twice with the first), once with none recorded; each its own row. */
static const char launch_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,\"args\":{\"device\":0,"
    "\"stream\":7,\"correlation\":1,\"grid\":[2,1,1],\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":20,\"args\":{\"device\":0,"
    "\"stream\":7,\"correlation\":2,\"grid\":[2,1,1],\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":1024}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":30,\"args\":{\"device\":0,"
    "\"stream\":7,\"correlation\":3,\"grid\":[2,1,1],\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":5,\"args\":{\"device\":0,"
    "\"stream\":7,\"correlation\":4}}]";

Test(reports, kernels_by_launch_configuration_by_hand)
{
    char *dir, *db = imported_json("launch", launch_trace, &dir);
    int st;
    char *out = run_capture(&st, "'%s' kernels '%s' --group-by launch --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    /* 10 + 30 us at (2,1,1): sample stddev sqrt(2 x 10^2 / 1) = 14.142 us; shares of 65 us */
    cr_assert_str_eq(out, "time_pct,total_ns,instances,avg_ns,med_ns,min_ns,max_ns,stddev_ns,name,kind,grid,block,"
                          "registers,shared_mem_bytes\r\n"
                          "61.54,40000,2,20000,20000,10000,30000,14142,k,kernel,\"2,1,1\",\"128,1,1\",32,0\r\n"
                          "30.77,20000,1,20000,20000,20000,20000,,k,kernel,\"2,1,1\",\"128,1,1\",32,1024\r\n"
                          "7.69,5000,1,5000,5000,5000,5000,,k,kernel,,,,\r\n");
    free(out);
    cleanup(dir, db);
}

/* api worked by hand: three cudaLaunchKernel calls of 10, 20 and 60 us, a cudaMemcpyAsync of 10 us and a
 * driver call of 5 us, 105 us in all. cudaLaunchKernel: 90/105 = 85.71%, mean 30 us, median 20 us, sample
 * stddev sqrt((20^2 + 10^2 + 30^2) / 2) = 26.458 us, per rank with --by-rank. A rank in text (a
 * database tracedb did not write) is refused. */
static const char api_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":20},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":60},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":140,\"dur\":5}]";

Test(reports, api_by_hand)
{
    char *dir, *db = imported_json("api", api_trace, &dir);
    static const char rows[] = "85.71,90000,3,30000,20000,10000,60000,26458,cudaLaunchKernel,runtime\r\n"
                               "9.52,10000,1,10000,10000,10000,10000,,cudaMemcpyAsync,runtime\r\n"
                               "4.76,5000,1,5000,5000,5000,5000,,cuLaunchKernel,driver\r\n";
    static const char head[] = "time_pct,total_ns,calls,avg_ns,med_ns,min_ns,max_ns,stddev_ns,name,api\r\n";
    char want[1024];
    int st;
    char *out = run_capture(&st, "'%s' api '%s' --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    snprintf(want, sizeof want, "%s%s", head, rows);
    cr_assert_str_eq(out, want);
    free(out);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 3", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    out = run_capture(&st, "'%s' api '%s' --by-rank --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    int n = snprintf(want, sizeof want, "rank,%s", head);
    for (const char *line = rows; *line; line = strchr(line, '\n') + 1)
        n += snprintf(want + n, sizeof want - (size_t)n, "3,%.*s", (int)(strchr(line, '\n') + 1 - line), line);
    cr_assert_str_eq(out, want);
    free(out);
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE trace SET rank = 'r3'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    expect_refused("api --by-rank --format csv", db, "trace.rank holds a non-integer value (trace id 1)");
    cleanup(dir, db);
}

/* A trace with no events (an empty import, or a recording killed before its first commit, which every
 * report reads through the window): windowed reports say there are no rows and exit 0; the window's
 * start was NULL and its table refused it ("NOT NULL constraint failed: scope_window.start_ns"). */
Test(reports, windows_over_a_trace_with_no_events, .timeout = 120)
{
    char *dir, *db = imported_json("empty", "{\"traceEvents\":[]}", &dir);
    static const char *const windowed[] = {"ops --from 0", "kernels --to 1ms", "overlap --drop-last-step", "idle --from 0",
                                           "queue --from 0", "launches --to 1s", "device --from 0", "api --from 0",
                                           "memory --from 0", "latency --from 0", NULL};
    static const char *const plain[] = {"ops", "kernels", "overlap", "idle", "device", "api", NULL};
    for (int recording = 0; recording < 2; recording++) {
        const char *const *reports = recording ? plain : windowed;
        if (recording) { /* as a recording never closed: no sums, every report through the window */
            sqlite3 *d;
            cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
            cr_assert_eq(sqlite3_exec(d, "UPDATE meta SET value = 'recording' WHERE key = 'import_status'", NULL, NULL, NULL),
                         SQLITE_OK);
            sqlite3_close(d);
        }
        for (size_t i = 0; reports[i]; i++) {
            int st;
            char *out = run_capture(&st, "'%s' %s '%s' 2>&1", tracedb(), reports[i], db);
            cr_expect_eq(st, 0, "%s: %s", reports[i], out);
            cr_expect(!strstr(out, "constraint"), "%s: %s", reports[i], out);
            free(out);
        }
        int st;
        char *out = run_capture(&st, "'%s' report '%s' -o '%s/empty.html' --force 2>&1", tracedb(), db, dir);
        cr_expect_eq(st, 0, "report: %s", out);
        free(out);
    }
    cleanup(dir, db);
}

/* A smoke test: each report exits 0 and prints JSON that parses, on every real trace. It checks no number;
 * each report's numbers have tests of their own: summary (hta::summary_line_agrees_with_the_reports), ops
 * (ops_device_time_and_memory_match_the_python_tree_walk, ops_rows_order_and_percentages_by_hand, FLOPs in
 * resnet18_flops_match_pytorch, shapes in group_by_stack_and_shape), kernels and latency
 * (latency_percentiles_and_kernel_stats_match_pandas, kernels_by_launch_configuration_by_hand), api
 * (api_by_hand), memops and device (device_run_io_wait_idle_by_hand), memory (memory_peaks_leaks_by_hand). */
Test(reports, smoke_every_report_exits_0_with_json_on_every_real_trace, .timeout = 300)
{
    static const char *const reports[] = {"summary", "ops", "ops --with-flops --group-by shape", "kernels --kinds kernel,memcpy,memset",
                                          "kernels --group-by launch", "api", "memops", "latency", "latency --top-level --each",
                                          "device", "memory", "memory --by-op"};
    char *text = read_file(src_path("tests/data/kineto_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    char *dir = temp_dir();
    cJSON *trace;
    int n = 0;
    cJSON_ArrayForEach(trace, expected)
    {
        char in[512], db[1100], args[1400];
        snprintf(in, sizeof in, "tests/data/kineto/%s", trace->string);
        snprintf(db, sizeof db, "%s/%d.db", dir, n++);
        cr_assert_eq(import_to(src_path(in), db), 0);
        for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++) {
            snprintf(args, sizeof args, "%s '%s'", reports[i], db);
            cJSON_Delete(tracedb_json(args)); /* exits 0 and prints JSON that parses */
        }
        for (int f = 0; f < 2; f++)
            cr_assert_eq(run("'%s' summary '%s' --format %s > /dev/null", tracedb(), db, f ? "csv" : "table"), 0);
    }
    cJSON_Delete(expected);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Python frames main [0,100) > f [10,50) > aten::mm [20,30); main > aten::mm [60,70). */
static const char stack_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"a.py(1): main\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"b.py(2): f\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10,"
    "\"args\":{\"Input Dims\":[[2,3],[3,4]]}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":10,"
    "\"args\":{\"Input Dims\":[[4,4],[4,4]]}}]}";

Test(reports, group_by_stack_and_shape)
{
    char *dir = temp_dir(), *trace = write_text_file(dir, "s.json", stack_trace), db[1100], args[1200];
    snprintf(db, sizeof db, "%s/s.db", dir);
    cr_assert_eq(import_to(trace, db), 0);
    snprintf(args, sizeof args, "ops '%s' --group-by stack --stack-depth 1", db);
    cJSON *rows = tracedb_json(args);
    cr_assert(json_row_named(rows, "stack", "b.py(2): f") && json_row_named(rows, "stack", "a.py(1): main"));
    cJSON_Delete(rows);
    snprintf(args, sizeof args, "ops '%s' --group-by stack --stack-depth 2", db);
    rows = tracedb_json(args);
    cr_assert(json_row_named(rows, "stack", "b.py(2): f; a.py(1): main"));
    cJSON_Delete(rows);
    snprintf(args, sizeof args, "ops '%s' --group-by shape --with-flops", db);
    rows = tracedb_json(args);
    cJSON *r = json_row_named(rows, "input_shapes", "[[2,3],[3,4]]");
    cr_assert(r);
    cr_assert_eq(json_num(r, "flops"), 48); /* 2 * 2 * 3 * 4 */
    cr_assert_eq(json_num(json_row_named(rows, "input_shapes", "[[4,4],[4,4]]"), "flops"), 128);
    cJSON_Delete(rows);
    free(trace);
    run("rm -rf '%s'", dir);
    free(dir);
}

static void device_time_matches_hta_definitions(void)
{
    char *text = read_file(src_path("tests/data/device_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    cJSON *trace;
    cJSON_ArrayForEach(trace, expected)
    {
        char rel[512], *dir, args[1300];
        snprintf(rel, sizeof rel, "tests/data/kineto/%s", trace->string);
        char *db = imported(rel, &dir);
        for (int path = 0; path < 2; path++) { /* device_stats from the import, and device.sql over a window */
            snprintf(args, sizeof args, "device '%s' --steps no-such-step%s", db, path ? " --from 0" : "");
            cJSON *rows = tracedb_json(args), *r;
            cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(trace), "%s: one row per device", trace->string);
            cJSON_ArrayForEach(r, rows)
            {
                char dev[16];
                snprintf(dev, sizeof dev, "%d", (int)json_num(r, "device"));
                cJSON *w = cJSON_GetObjectItem(trace, dev);
                cr_assert(w, "%s device %s", trace->string, dev);
                cr_assert_eq(json_num(r, "span_ns"), json_num(w, "span_ns"), "%s span (path %d)", trace->string, path);
                cr_assert_eq(json_num(r, "busy_ns"), json_num(w, "busy_ns"), "%s busy (path %d)", trace->string, path);
                cr_assert_eq(json_num(r, "run_ns"), json_num(w, "run_ns"), "%s run (path %d)", trace->string, path);
            }
            cJSON_Delete(rows);
        }
        cleanup(dir, db);
    }
    cJSON_Delete(expected);
}

Test(reports, device_time_of_real_traces_matches_hta_definitions_in_python, .timeout = 120)
{
    device_time_matches_hta_definitions();
}

Test(reports, device_time_matches_hta_definitions_with_the_imports_sorts_on_disk, .timeout = 120)
{
    setenv("TRACEDB_SORT_KIB", "1", 1);
    device_time_matches_hta_definitions();
}

/* --by-step worked by hand where steps overlap (a second thread's step, as a second rank's would) and
 * leave gaps: an event belongs to the latest-starting step that holds its start (GPU work: its launch's
 * start; no launch: its own). Steps 1 [0,100), 2 [100,200), 3 [300,400) on tid 1, 9 [50,350) on tid 2. */
static const char steps_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#9\",\"pid\":1,\"tid\":2,\"ts\":50,\"dur\":300},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_1_and_9\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_2_and_9\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":160,\"dur\":5,"
    "\"args\":{\"correlation\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_9_only\",\"pid\":1,\"tid\":1,\"ts\":250,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_3_and_9\",\"pid\":1,\"tid\":1,\"ts\":320,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"in_none\",\"pid\":1,\"tid\":1,\"ts\":450,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_launched_in_2\",\"pid\":0,\"tid\":7,\"ts\":320,\"dur\":5,"
    "\"args\":{\"correlation\":7,\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_unlaunched_in_1_and_9\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":5,"
    "\"args\":{\"correlation\":8,\"device\":0,\"stream\":7}}]";

Test(reports, by_step_takes_the_latest_step_holding_the_start)
{
    char *dir, *db = imported_json("steps", steps_trace, &dir);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --by-step --format csv | grep ',in_' | cut -d, -f1,2 | sort", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(out, ",in_none\nProfilerStep#1,in_1\nProfilerStep#2,in_2_and_9\nProfilerStep#3,in_3_and_9\n"
                          "ProfilerStep#9,in_1_and_9\nProfilerStep#9,in_9_only\n");
    free(out);
    /* the steps in the order they start (1 at 0, 9 at 50, 2 at 100, 3 at 300), not by name; what starts
     * in no step first (its step is NULL), from the C pass and from the stack path's SQL alike */
    for (int stacks = 0; stacks < 2; stacks++) {
        out = run_capture(&st, "'%s' ops '%s' --by-step %s --format csv 2>/dev/null | cut -d, -f1 | uniq", tracedb(), db,
                          stacks ? "--group-by stack" : "");
        cr_assert_eq(st, 0);
        cr_assert_str_eq(out, "step\n\nProfilerStep#1\nProfilerStep#9\nProfilerStep#2\nProfilerStep#3\n");
        free(out);
    }
    /* each kernel is all of its step's time (of the whole trace's, half) */
    out = run_capture(&st, "'%s' kernels '%s' --by-step --format csv | grep ',k_' | cut -d, -f1,2,10 | sort", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(out, "ProfilerStep#2,100,k_launched_in_2\nProfilerStep#9,100,k_unlaunched_in_1_and_9\n");
    free(out);
    /* a second trace with a step of the same name, elsewhere in time: one row per step name, as ranks' are */
    char *second = write_text_file(dir, "second.json",
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":5,\"tid\":1,\"ts\":1000,\"dur\":100},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":1,\"ts\":1010,\"dur\":5,"
        "\"args\":{\"correlation\":70}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_launched_in_2\",\"pid\":6,\"tid\":7,\"ts\":1050,\"dur\":5,"
        "\"args\":{\"correlation\":70,\"device\":0,\"stream\":7}}]");
    cr_assert_eq(run("'%s' import -q --append '%s' -o '%s' 2>/dev/null", tracedb(), second, db), 0);
    out = run_capture(&st, "'%s' kernels '%s' --by-step --format csv | grep ',k_' | cut -d, -f1,4,10 | sort", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(out, "ProfilerStep#2,2,k_launched_in_2\nProfilerStep#9,1,k_unlaunched_in_1_and_9\n");
    free(out);
    free(second);
    cleanup(dir, db);
}

/* ops' rows in order, with their percentages, worked by hand: two steps (1: 0-100 us holding a 30, c 30,
 * b 10 and its own 30; 2: 100-150 us holding b 40, a 5 and its own 5) and z (7 us) in none. By step, each
 * step's percentages are of its own total (100 and 50 us; z's of the no-step rows'), the no-step rows come
 * first, then the steps by start; in a step, the --sort value descending, ties by name (ASCII: 'P' < 'a');
 * --limit N keeps each step's first N. Whole (--from 0), the percentages are of all 157 us. The C pass's
 * order (ops_sweep.c), per name and per stack alike. */
static const char ordered_trace[] =
    "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":30},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":30},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":50},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":40},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":140,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":7}]";

Test(reports, ops_rows_order_and_percentages_by_hand)
{
    char *dir, *db = imported_json("ordered", ordered_trace, &dir);
    static const struct {
        const char *opts, *cut, *want;
    } cases[] = {
        {"--by-step", "1,2,4,5,7",
         ",z,7000,100,100\nProfilerStep#1,ProfilerStep*,30000,30,100\nProfilerStep#1,a,30000,30,30\n"
         "ProfilerStep#1,c,30000,30,30\nProfilerStep#1,b,10000,10,10\nProfilerStep#2,b,40000,80,80\n"
         "ProfilerStep#2,ProfilerStep*,5000,10,100\nProfilerStep#2,a,5000,10,10\n"},
        {"--by-step --sort calls", "1,2",
         ",z\nProfilerStep#1,ProfilerStep*\nProfilerStep#1,a\nProfilerStep#1,b\nProfilerStep#1,c\n"
         "ProfilerStep#2,ProfilerStep*\nProfilerStep#2,a\nProfilerStep#2,b\n"},
        {"--by-step --sort cpu_total_ns --limit 2", "1,2",
         ",z\nProfilerStep#1,ProfilerStep*\nProfilerStep#1,a\nProfilerStep#2,ProfilerStep*\nProfilerStep#2,b\n"},
        {"--by-step --sort name --limit 1", "1,2", ",z\nProfilerStep#1,ProfilerStep*\nProfilerStep#2,ProfilerStep*\n"},
        {"--from 0", "1,3,4,6",
         "b,50000,31.85,31.85\nProfilerStep*,35000,22.29,95.54\na,35000,22.29,22.29\nc,30000,19.11,19.11\n"
         "z,7000,4.46,4.46\n"},
        {"--from 0 --sort cpu_total_ns --limit 3", "1,5", "ProfilerStep*,150000\nb,50000\na,35000\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int stacks = 0; stacks < 2; stacks++) {
            int st;
            char *out = run_capture(&st, "'%s' ops '%s' %s %s --format csv 2>/dev/null | tail -n +2 | cut -d, -f%s",
                                    tracedb(), db, cases[i].opts, stacks ? "--group-by stack" : "", cases[i].cut);
            cr_assert_eq(st, 0);
            cr_assert_str_eq(out, cases[i].want, "ops %s%s", cases[i].opts, stacks ? " --group-by stack" : "");
            free(out);
        }
    /* a second trace's ProfilerStep#1, after both: one step of that name, placed by its first start */
    char *second = write_text_file(dir, "second.json",
        "[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":5,\"tid\":1,\"ts\":1000,\"dur\":10},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"y\",\"pid\":5,\"tid\":1,\"ts\":1000,\"dur\":4}]");
    cr_assert_eq(run("'%s' import -q --append '%s' -o '%s' 2>/dev/null", tracedb(), second, db), 0);
    for (int stacks = 0; stacks < 2; stacks++) {
        int st;
        char *out = run_capture(&st, "'%s' ops '%s' --by-step %s --format csv 2>/dev/null | tail -n +2 | cut -d, -f1,2,5",
                                tracedb(), db, stacks ? "--group-by stack" : "");
        cr_assert_eq(st, 0);
        cr_assert_str_eq(out, ",z,100\nProfilerStep#1,ProfilerStep*,32.73\nProfilerStep#1,a,27.27\nProfilerStep#1,c,27.27\n"
                              "ProfilerStep#1,b,9.09\nProfilerStep#1,y,3.64\nProfilerStep#2,b,80\n"
                              "ProfilerStep#2,ProfilerStep*,10\nProfilerStep#2,a,10\n", "%s", out);
        free(out);
    }
    free(second);
    cleanup(dir, db);
}

/* ops and kernels --by-step on a real trace, against Python's count per ProfilerStep#N
 * (tests/oracle/by_step_expected.py): aten::mm calls starting in each step, and kernels by the step their
 * launch starts in, with their device time. */
Test(reports, ops_and_kernels_by_step_match_python)
{
    char *text = read_file(src_path("tests/data/by_step_expected.json"), NULL);
    cJSON *want = cJSON_Parse(text);
    free(text);
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/df.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/df_index_resolver_df_index_resolver.json.gz"), db), 0);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' --by-step --format csv | grep ',aten::mm,'", tracedb(), db);
    cr_assert_eq(st, 0);
    cJSON *step;
    int n = 0;
    cJSON_ArrayForEach(step, cJSON_GetObjectItem(want, "aten_mm_calls"))
    {
        char line[128];
        snprintf(line, sizeof line, "%s,aten::mm,%d,", step->string, step->valueint);
        cr_assert(strstr(out, line), "%s in %s", line, out);
        n++;
    }
    cr_assert_eq(n, 5);
    free(out);
    out = run_capture(&st, "'%s' kernels '%s' --by-step --format csv | awk -F, 'NR > 1 { n[$1] += $4; t[$1] += $3 } "
                           "END { for (k in n) printf \"%%s %%d %%d\\n\", k, n[k], t[k] }'",
                      tracedb(), db);
    cJSON_ArrayForEach(step, cJSON_GetObjectItem(want, "kernels"))
    {
        char line[128];
        snprintf(line, sizeof line, "%s %d %.0f\n", step->string, cJSON_GetArrayItem(step, 0)->valueint,
                 cJSON_GetArrayItem(step, 1)->valuedouble);
        cr_assert(strstr(out, line), "%s in %s", line, out);
    }
    free(out);
    /* the table: a Step column, --limit per step */
    out = run_capture(&st, "COLUMNS=200 '%s' ops '%s' --by-step --limit 1 --columns step,name,calls", tracedb(), db);
    cr_assert(strstr(out, "Step") && strstr(out, "ProfilerStep#6  ProfilerStep*"), "%s", out);
    free(out);
    /* --limit 2 with --by-step: each step's first two rows of the whole listing, nothing else */
    char *all = run_capture(&st, "'%s' ops '%s' --by-step --format csv | awk -F, 'NR == 1 || ++n[$1] <= 2'", tracedb(), db);
    out = run_capture(&st, "'%s' ops '%s' --by-step --limit 2 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(out, all);
    int lines = 0;
    for (const char *c = out; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, 1 + 1 + 2 * 5, "a header, the one call outside every step, two rows for each of 5 steps: %s", out);
    free(out), free(all);
    all = run_capture(&st, "'%s' kernels '%s' --by-step --format csv | awk -F, 'NR == 1 || ++n[$1] <= 2'", tracedb(), db);
    out = run_capture(&st, "'%s' kernels '%s' --by-step --limit 2 --format csv", tracedb(), db);
    cr_assert_eq(st, 0);
    cr_assert_str_eq(out, all);
    lines = 0;
    for (const char *c = out; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, 1 + 2 * 5, "a header, two kernels for each of 5 steps: %s", out);
    free(out), free(all);
    cJSON_Delete(want);
    run("rm -rf '%s'", dir);
    free(dir);
}

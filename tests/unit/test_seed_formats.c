/* test_seed_formats.c: the seed systems' traces read as their own tools read them. Furiosa: its record
 * CSV and its Chrome export (tests/data/furiosa: both made, and every expected table computed, by the
 * `profile` class of Furiosa's SDK itself, tests/oracle/furiosa_tables.py) give Furiosa's NPU executions,
 * NPU operators, inferences, external operators and summary. RAF: its stream spans are device work, its
 * args_string its inputs' shapes (a trace as RAF's profiler writes it, worked by hand). */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *report(const char *db, const char *args)
{
    int st;
    char *out = run_capture(&st, "'%s' %s '%s' --format json", tracedb(), args, db);
    cr_assert_eq(st, 0, "tracedb %s", args);
    cJSON *j = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(j), "tracedb %s: JSON rows: %s", args, out);
    free(out);
    return j;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    cr_assert(cJSON_IsNumber(v), "no number %s", key);
    return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A thread id as the report gives it (a number, or text for a named track) */
static long long tid_of(const cJSON *o)
{
    const cJSON *v = cJSON_GetObjectItem(o, "tid");
    cr_assert(cJSON_IsNumber(v) || cJSON_IsString(v), "no tid");
    return cJSON_IsNumber(v) ? (long long)v->valuedouble : atoll(v->valuestring);
}

static cJSON *expected(void)
{
    char *text = read_file(src_path("tests/data/furiosa/expected.json"), NULL);
    cJSON *e = cJSON_Parse(text);
    free(text);
    cr_assert(e);
    return e;
}

/* Every table of Furiosa's on one import (records: ids too). */
static void furiosa_tables(const char *trace, int records)
{
    char *dir;
    char *db = imported(trace, &dir);
    cJSON *want = expected();

    /* print_npu_executions: pe_index, execution_index, NPU Total, Run, IoWait, in time order (the
     * records' order: their executions start one after another) */
    cJSON *rows = report(db, "device --executions");
    const cJSON *x = cJSON_GetObjectItem(want, "npu_executions");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(x));
    double total[2] = {0}, run[2] = {0}, io[2] = {0};
    for (int i = 0; i < cJSON_GetArraySize(x); i++) {
        const cJSON *w = cJSON_GetArrayItem(x, i), *g = cJSON_GetArrayItem(rows, i);
        cr_assert_eq(num(g, "pe_index"), num(w, "pe_index"));
        cr_assert_eq(num(g, "execution_index"), num(w, "execution_index"));
        cr_assert_eq(num(g, "total_ns"), num(w, "NPU Total"), "execution %d", i);
        cr_assert_eq(num(g, "run_ns"), num(w, "NPU Run"), "execution %d", i);
        cr_assert_eq(num(g, "io_wait_ns"), num(w, "NPU IoWait"), "execution %d", i);
        if (records) {
            cr_assert_str_eq(str(g, "trace_id"), str(w, "trace_id"));
            cr_assert_str_eq(str(g, "span_id"), str(w, "span_id"));
        } else {
            cr_assert_null(str(g, "trace_id"), "the Chrome export has no ids");
        }
        int pe = (int)num(w, "pe_index");
        total[pe] += num(w, "NPU Total"), run[pe] += num(w, "NPU Run"), io[pe] += num(w, "NPU IoWait");
    }
    cJSON_Delete(rows);

    /* device: each PE busy for its executions (they do not overlap), running its operators */
    rows = report(db, "device");
    cr_assert_eq(cJSON_GetArraySize(rows), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *g = cJSON_GetArrayItem(rows, i);
        int pe = (int)num(g, "device");
        cr_assert_eq(num(g, "busy_ns"), total[pe], "PE %d", pe);
        cr_assert_eq(num(g, "run_ns"), run[pe], "PE %d", pe);
        cr_assert_eq(num(g, "io_wait_ns"), io[pe], "PE %d", pe);
    }
    cJSON_Delete(rows);

    /* print_npu_operators: count and average elapsed per NPU operator (kernels) */
    rows = report(db, "kernels");
    x = cJSON_GetObjectItem(want, "npu_operators");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(x), "no Execution, Load, Store");
    const cJSON *w;
    cJSON_ArrayForEach(w, x)
    {
        const cJSON *g = NULL, *r;
        cJSON_ArrayForEach(r, rows) if (strcmp(str(r, "name"), str(w, "name")) == 0) g = r;
        cr_assert(g, "kernel %s", str(w, "name"));
        cr_assert_eq(num(g, "instances"), num(w, "count"));
        cr_assert_float_eq(num(g, "total_ns") / num(g, "instances"), num(w, "average elapsed(ns)"), 1e-9);
    }
    cJSON_Delete(rows);

    /* print_summary, with --name in any case */
    const cJSON *sum = cJSON_GetObjectItem(want, "summary");
    rows = report(db, "latency --name inference");
    const cJSON *g = cJSON_GetArrayItem(rows, 0);
    const char *pairs[][2] = {{"count", "Inference counts"},
                              {"min_ns", "Min latency (ns)"},
                              {"max_ns", "Max latency (ns)"},
                              {"mean_ns", "Mean latency (ns)"},
                              {"median_ns", "Median latency (ns)"},
                              {"p90_ns", "90.0 percentile latency (ns)"},
                              {"p95_ns", "95.0 percentile latency (ns)"},
                              {"p97_ns", "97.0 percentile latency (ns)"},
                              {"p99_ns", "99.0 percentile latency (ns)"},
                              {"p999_ns", "99.9 percentile latency (ns)"}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        cr_assert_eq(num(g, pairs[k][0]), num(sum, pairs[k][1]), "%s", pairs[k][1]);
    cJSON_Delete(rows);

    /* summary shows the same figures (the trace has no ProfilerStep#N) */
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), db);
    cr_assert_eq(st, 0);
    cJSON *s = cJSON_Parse(out);
    free(out);
    g = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "latency"), 0);
    cr_assert(g, "summary has a latency section");
    cr_assert_str_eq(str(g, "name"), "Inference");
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++)
        cr_assert_eq(num(g, pairs[k][0]), num(sum, pairs[k][1]), "summary %s", pairs[k][1]);
    cJSON_Delete(s);

    /* print_inferences: thread, dur (and the ids) of each */
    rows = report(db, "latency --name Inference --each");
    x = cJSON_GetObjectItem(want, "inferences");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(x));
    for (int i = 0; i < cJSON_GetArraySize(x); i++) {
        w = cJSON_GetArrayItem(x, i), g = cJSON_GetArrayItem(rows, i);
        cr_assert_eq(num(g, "dur_ns"), num(w, "dur"));
        cr_assert_eq(tid_of(g), (long long)num(w, "thread.id"));
        if (records)
            cr_assert_str_eq(str(g, "span_id"), str(w, "span_id"));
    }
    cJSON_Delete(rows);

    /* print_external_operators: the host spans with an operator_index */
    rows = report(db, "latency --name '*' --each");
    x = cJSON_GetObjectItem(want, "external_operators");
    int found = 0, i = 0;
    cJSON_ArrayForEach(g, rows)
    {
        if (!cJSON_IsNumber(cJSON_GetObjectItem(g, "operator_index")))
            continue;
        w = cJSON_GetArrayItem(x, i++);
        cr_assert(w, "more operators than Furiosa's");
        cr_assert_str_eq(str(g, "name"), str(w, "name"));
        cr_assert_eq(num(g, "operator_index"), num(w, "operator_index"));
        cr_assert_eq(num(g, "dur_ns"), num(w, "dur"));
        cr_assert_eq(tid_of(g), (long long)num(w, "thread.id"));
        if (records)
            cr_assert_str_eq(str(g, "trace_id"), str(w, "trace_id"));
        found++;
    }
    cr_assert_eq(found, cJSON_GetArraySize(x));
    cJSON_Delete(rows);

    /* a profiler.record label is a range: the two inferences warmed up */
    rows = report(db, "latency --name Inference --range 'warm up'");
    cr_assert_eq(num(cJSON_GetArrayItem(rows, 0), "count"), 2);
    cJSON_Delete(rows);
    cJSON_Delete(want);
    cleanup(dir, db);
}

Test(seed_formats, furiosa_records_give_furiosas_tables)
{
    furiosa_tables("tests/data/furiosa/records.csv", 1);
}

Test(seed_formats, furiosa_chrome_export_gives_furiosas_tables)
{
    furiosa_tables("tests/data/furiosa/trace.json", 0);
}

/* A report given Furiosa's records themselves reads them as it reads a trace (records.tracedb beside
 * them): Furiosa's executions, each NPU Total as its print_npu_executions gives it. */
Test(seed_formats, a_report_reads_furiosas_records_as_a_trace)
{
    char *dir = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/records.csv", dir);
    cr_assert_eq(run("cp '%s' '%s'", src_path("tests/data/furiosa/records.csv"), path), 0);
    cJSON *want = expected(), *rows = report(path, "device --executions");
    const cJSON *x = cJSON_GetObjectItem(want, "npu_executions");
    cr_assert_eq(cJSON_GetArraySize(rows), cJSON_GetArraySize(x));
    for (int i = 0; i < cJSON_GetArraySize(x); i++)
        cr_assert_eq(num(cJSON_GetArrayItem(rows, i), "total_ns"), num(cJSON_GetArrayItem(x, i), "NPU Total"));
    cJSON_Delete(rows);
    cJSON_Delete(want);
    /* summary has no "GPU efficiency, HTA's way": HTA's analyses are of GPUs a CUDA or HIP runtime launches
     * work on (test_hta_breakdown checks the line on Kineto's traces) */
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' 2>&1", tracedb(), path);
    cr_assert(st == 0 && strstr(out, "Top kernels") && !strstr(out, "GPU efficiency"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* NPU Run is Furiosa's: every operator whose parent span is the execution, at any depth in time (inside
 * the Load, inside another operator) and overlapping or not. By hand: execution [1000, 2000), Load
 * [1000, 1600), Conv [1100, 1300) inside the Load, Pad [1350, 1800), Add [1400, 1500) inside the Pad:
 * run = 200 + 450 + 100 = 750, IoWait = 1000 - 750 = 250 (Furiosa's table, pandas on its rule). */
Test(seed_formats, npu_run_sums_every_operator_of_the_execution)
{
    static const char rows[] =
        "trace_id,parent_span_id,span_id,start,end,cat,name,thread.id,dram_base,pe_index,execution_index,"
        "instruction_index,operator_index\n"
        "aa,0000000000000000,e1,1000,2000,NPU,Execution,77,,0,0,,\n"
        "aa,e1,l1,1000,1600,NPU,Load,77,,0,0,0,\n"
        "aa,e1,k1,1100,1300,NPU,LowLevelConv,77,,0,0,1,\n"
        "aa,e1,k2,1350,1800,NPU,LowLevelPad,77,,0,0,2,\n"
        "aa,e1,k3,1400,1500,NPU,LowLevelAdd,77,,0,0,3,\n";
    char *dir = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/o.csv", dir);
    write_file(path, rows, (long)strlen(rows));
    char *dbdir;
    char *db = imported(path, &dbdir);
    cJSON *got = report(db, "device --executions");
    cr_assert_eq(cJSON_GetArraySize(got), 1);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "total_ns"), 1000);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "run_ns"), 750);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "io_wait_ns"), 250);
    cJSON_Delete(got);
    cleanup(dbdir, db);
    cleanup(dir, NULL);
}

/* A profiler.record label named "inference" beside Furiosa's Inference spans is not one of them:
 * print_summary takes the Nux spans named Inference (expected.json: 6 of them), and so do summary and
 * latency --name Inference; --name inference, matching a name as written, takes the label. */
Test(seed_formats, a_label_named_inference_is_not_an_inference)
{
    char *dir = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/l.csv", dir);
    cr_assert_eq(run("{ cat '%s'; echo 'x,0000000000000000,ff,1690000000000000000,1690000000016000000,Runtime,inference,1,,,,,'; } > '%s'",
                     src_path("tests/data/furiosa/records.csv"), path),
                 0);
    char *dbdir;
    char *db = imported(path, &dbdir);
    cJSON *want = expected();
    double count = num(cJSON_GetObjectItem(want, "summary"), "Inference counts"),
           mean = num(cJSON_GetObjectItem(want, "summary"), "Mean latency (ns)");
    cJSON *got = report(db, "latency --name Inference");
    cr_assert_eq(cJSON_GetArraySize(got), 1);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "count"), count);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "mean_ns"), mean);
    cJSON_Delete(got);
    got = report(db, "latency --name inference");
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "count"), 1);
    cr_assert_eq(num(cJSON_GetArrayItem(got, 0), "mean_ns"), 16000000);
    cJSON_Delete(got);
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' --format json", tracedb(), db);
    cJSON *s = cJSON_Parse(out);
    free(out);
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "latency"), 0);
    cr_assert(g && strcmp(str(g, "name"), "Inference") == 0);
    cr_assert_eq(num(g, "count"), count);
    cr_assert_eq(num(g, "mean_ns"), mean);
    cJSON_Delete(s);
    cJSON_Delete(want);
    cleanup(dbdir, db);
    cleanup(dir, NULL);
}

/* A header that is not Furiosa's is refused with what it lacks; a row whose end is before its start is
 * skipped and said, the rest kept (the trace partial). */
Test(seed_formats, furiosa_records_refuse_what_they_are_not)
{
    char *dir = temp_dir(), path[512], db[512];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    snprintf(db, sizeof db, "%s/x.db", dir);
    static const char foreign[] = "a,b,c\n1,2,3\n";
    write_file(path, foreign, (long)strlen(foreign));
    int st;
    char *out = run_capture(&st, "'%s' import '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_assert_neq(st, 0);
    cr_assert(strstr(out, "not Furiosa's records") && strstr(out, "start, end, cat and name"), "%s", out);
    free(out);
    static const char bad_row[] =
        "trace_id,parent_span_id,span_id,start,end,cat,name,thread.id,dram_base,pe_index,execution_index,"
        "instruction_index,operator_index\n"
        "aa,0000000000000000,01,100,300,Nux,Inference,1,,,,,\n"
        "aa,01,02,250,200,Nux,Quantize,1,,,,,0\n";
    write_file(path, bad_row, (long)strlen(bad_row));
    out = run_capture(&st, "'%s' import '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_assert_eq(st, 1, "%s", out);
    cr_assert(strstr(out, "row 3 skipped: end before start"), "%s", out);
    free(out);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM events WHERE name = 'Inference' AND dur_ns = 200"), 1);
    cr_assert_eq(file_int(db, "SELECT json_extract(args, '$.parent_span_id') = '0000000000000000' FROM events"), 1,
                 "ids stay text");
    /* a header naming a column twice is no header of Furiosa's */
    static const char twice[] = "trace_id,start,end,cat,name,start\naa,1,2,Nux,x,3\n";
    write_file(path, twice, (long)strlen(twice));
    out = run_capture(&st, "'%s' import --force '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_assert(st != 0 && strstr(out, "names the column start twice"), "%s", out);
    free(out);
    /* the last row cut short (no line end: 5 of the header's 13 fields) is skipped and said, the trace
     * partial; no event without a name */
    static const char cut[] =
        "trace_id,parent_span_id,span_id,start,end,cat,name,thread.id,dram_base,pe_index,execution_index,"
        "instruction_index,operator_index\n"
        "aa,0000000000000000,01,100,300,Nux,Inference,1,,,,,\n"
        "aa,0000000000000000,02,1000,2000";
    write_file(path, cut, (long)strlen(cut));
    out = run_capture(&st, "'%s' import --force '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_assert(st == 1 && strstr(out, "row 3 skipped: 5 fields where the header has 13 (cut short?)"), "%s", out);
    free(out);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM events"), 1);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM trace WHERE status = 'partial'"), 1);
    /* Furiosa's records gzip'd and cut 10 bytes short: said, partial, exit 1 (as a .json.gz cut short) */
    char gz[600];
    snprintf(gz, sizeof gz, "%s/r.csv.gz", dir);
    cr_assert_eq(run("gzip -c '%s' > '%s.full' && head -c $(( $(stat -c%%s '%s.full') - 10 )) '%s.full' > '%s'",
                     src_path("tests/data/furiosa/records.csv"), gz, gz, gz, gz),
                 0);
    out = run_capture(&st, "'%s' import --force '%s' -o '%s' 2>&1", tracedb(), gz, db);
    cr_assert(st == 1 && strstr(out, "cannot read past row"), "%s", out);
    free(out);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM trace WHERE status = 'partial'"), 1);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM events WHERE name = '' OR name IS NULL"), 0);
    cleanup(dir, NULL);
}

/* What a stranger's records may hold beyond Furiosa's: a field longer than --max-string (1 KiB here; 64 MiB
 * by default) skips its row, said, without buffering it (a 4 MiB field: the import's peak stays near
 * --max-string's size, measured by make bench's shapes); NPU rows whose pe_index is missing, not a number
 * or negative are kept on their threads (no event lost) and said, once, with the first row; Furiosa's header
 * with no rows says nothing was recorded. */
Test(seed_formats, furiosa_records_beyond_furiosas_are_said)
{
    char *dir = temp_dir(), path[512], db[512];
    snprintf(path, sizeof path, "%s/x.csv", dir);
    snprintf(db, sizeof db, "%s/x.db", dir);
    static const char header[] = "trace_id,parent_span_id,span_id,start,end,cat,name,thread.id,dram_base,pe_index,"
                                 "execution_index,instruction_index,operator_index\n";
    int st;
    cr_assert_eq(run("cd '%s' && { printf '%%s' '%s'; echo 'aa,0,01,100,300,Nux,kept,1,,,,,'; "
                     "printf 'aa,0,02,100,300,Nux,'; head -c 4194304 /dev/zero | tr '\\0' x; echo ',1,,,,,'; "
                     "echo 'aa,0,03,100,300,NPU,Execution,1,,abc,0,,'; echo 'aa,0,04,100,300,NPU,Execution,1,,-2,0,,'; "
                     "echo 'aa,0,05,100,300,NPU,Execution,1,,,0,,'; echo 'aa,0,06,100,300,NPU,Execution,1,,3,0,,'; } > x.csv",
                     dir, header),
                 0);
    char *out = run_capture(&st, "'%s' import --max-string 1K '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_assert_eq(st, 1, "%s", out);
    cr_expect(strstr(out, "row 3 skipped: longer than --max-string (1024 bytes)"), "%s", out);
    cr_expect(strstr(out, "3 NPU rows (row 4 the first) have no pe_index that is a PE's number: kept on their threads"),
              "%s", out);
    free(out);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM events"), 5, "every row but the long one");
    cr_expect_eq(file_int(db, "SELECT count(*) FROM events WHERE name = 'Execution' AND device IS NULL"), 3);
    cr_expect_eq(file_int(db, "SELECT device FROM events WHERE json_extract(args, '$.span_id') = '06'"), 3);
    cr_expect_eq(file_int(db, "SELECT count(*) FROM trace WHERE status = 'partial'"), 1);
    write_file(path, header, (long)strlen(header));
    out = run_capture(&st, "'%s' import --force '%s' -o '%s' 2>&1", tracedb(), path, db);
    cr_expect_eq(st, 0, "%s", out);
    cr_expect(strstr(out, "x.csv: Furiosa's header and no rows: nothing was recorded"), "%s", out);
    free(out);
    cleanup(dir, NULL);
}

/* tests/data/raf/trace.json, as RAF's profiler (src/profiler/base/profiler.cc) writes: B/E pairs whose
 * category and track are the VM's stream ("Default Stream", "Stream 1"), ts in us, args_string its op_env
 * key (non-constant inputs, each ending with ',', tuples in parentheses, '|', outputs); level 2 adds
 * VMInstruction spans on the host.
 * By hand: matmul [1000, 1040) us on stream 0, add [1050, 1060) on stream 1, InvokeJit [990, 1045) on the
 * host. Device 0: span [1000, 1060) 60 us, busy and run 50, idle 10; the host's 55 us are its own. */
Test(seed_formats, raf_streams_are_device_work_with_their_shapes)
{
    char *trace = read_file(src_path("tests/data/raf/trace.json"), NULL);
    char *dir = temp_dir(), db[512];
    import_text(dir, trace, db, sizeof db);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM kernels WHERE device = 0"), 2);
    cr_assert_eq(file_int(db, "SELECT stream FROM kernels WHERE name = 'raf.op.tvm.add'"), 1);
    cr_assert_eq(file_int(db, "SELECT stream FROM kernels WHERE name = 'raf.op.cublas.matmul'"), 0);
    sqlite3 *d = db_open(db);
    char *dims = db_text(d, "SELECT json_extract(args, '$.\"Input Dims\"') FROM events WHERE name = 'raf.op.cublas.matmul'");
    cr_assert_str_eq(dims, "[[768,768],[768,3072]]");
    free(dims);
    dims = db_text(d, "SELECT json_extract(args, '$.\"Input Dims\"') FROM events WHERE name = 'raf.op.tvm.add'");
    cr_assert_str_eq(dims, "[[[4],[4]],[]]");
    free(dims);
    char *types = db_text(d, "SELECT json_extract(args, '$.\"Input type\"') FROM events WHERE name = 'raf.op.tvm.add'");
    cr_assert_str_eq(types, "[\"Tuple\",\"f32\"]");
    free(types);
    cr_assert_eq(db_int(d, "SELECT json_extract(args, '$.\"Input Dims\"') IS NULL FROM events WHERE name = 'InvokeJit'"), 1);
    sqlite3_close(d);
    {   /* an op of no inputs ("|" then its outputs) has Input Dims [] and Input type [], as PyTorch's ops of
         * no inputs do, so it groups by shape with its kind */
        char *dir2 = temp_dir(), db2[512];
        import_text(dir2,
                    "[{\"name\":\"raf.op.zeros\",\"cat\":\"Default Stream\",\"ph\":\"B\",\"ts\":1,\"pid\":1,"
                    "\"tid\":\"Default Stream\",\"args\":{\"args_string\":\"|T<4xf32>\"}},{\"name\":\"raf.op.zeros\","
                    "\"cat\":\"Default Stream\",\"ph\":\"E\",\"ts\":3,\"pid\":1,\"tid\":\"Default Stream\"}]",
                    db2, sizeof db2);
        sqlite3 *d2 = db_open(db2);
        char *t = db_text(d2, "SELECT json_extract(args, '$.\"Input Dims\"') || ' ' || json_extract(args, '$.\"Input type\"') "
                              "FROM events WHERE name = 'raf.op.zeros'");
        cr_assert_str_eq(t, "[] []");
        free(t);
        sqlite3_close(d2);
        cleanup(dir2, NULL);
    }
    cJSON *rows = report(db, "device");
    const cJSON *g = cJSON_GetArrayItem(rows, 0);
    cr_assert_eq(num(g, "span_ns"), 60000);
    cr_assert_eq(num(g, "busy_ns"), 50000);
    cr_assert_eq(num(g, "run_ns"), 50000);
    cr_assert_eq(num(g, "idle_ns"), 10000);
    cJSON_Delete(rows);
    rows = report(db, "ops --no-device-rows");
    cr_assert_eq(cJSON_GetArraySize(rows), 1, "the streams' spans are not host operators");
    cr_assert_eq(num(cJSON_GetArrayItem(rows, 0), "self_cpu_ns"), 55000);
    cJSON_Delete(rows);
    /* grouped by shape: the device rows by their own inputs, as PyTorch's rows by Input Dims */
    rows = report(db, "ops --group-by shape");
    cr_assert_eq(cJSON_GetArraySize(rows), 3);
    int matched = 0;
    cJSON_ArrayForEach(g, rows)
    {
        if (strcmp(str(g, "name"), "raf.op.cublas.matmul") == 0) {
            cr_assert_str_eq(str(g, "input_shapes"), "[[768,768],[768,3072]]");
            cr_assert_eq(num(g, "self_device_ns"), 40000);
            cr_assert_eq(num(g, "self_cpu_ns"), 0);
            matched++;
        } else if (strcmp(str(g, "name"), "raf.op.tvm.add") == 0) {
            cr_assert_str_eq(str(g, "input_shapes"), "[[[4],[4]],[]]");
            matched++;
        }
    }
    cr_assert_eq(matched, 2);
    cJSON_Delete(rows);
    int st; /* no "GPU efficiency, HTA's way": no runtime launches RAF's streams' work */
    char *out = run_capture(&st, "'%s' summary '%s' 2>&1", tracedb(), db);
    cr_assert(st == 0 && strstr(out, "raf.op.cublas.matmul") && !strstr(out, "GPU efficiency"), "%s", out);
    free(out);
    free(trace);
    cleanup(dir, NULL);
}

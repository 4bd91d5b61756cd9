/* test_hta_patterns.c: tracedb kernels --patterns against HTA's get_frequent_cuda_kernel_sequences (run
 * once: tests/oracle/hta_kernel_patterns.py, tests/data/hta_kernel_patterns_expected.json), on traces
 * worked by hand, and its C pass against its SQL. */
#include "hta_helpers.h"
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* `kernels --patterns` is one C pass (analyzer/report/pattern_sweep.c). A database holding a value
 * tracedb never writes is refused, naming the table, column and row, whatever the window: here an instant
 * at each operator's start whose duration is a real number (0.5), or a kernel's name that is a blob. */
Test(hta, kernel_patterns_refuse_a_value_tracedb_never_writes, .timeout = 120)
{
    char *dir = temp_dir(), db[1200], said[200];
    import_real(dir, "critical_path_alexnet_trace.json.gz", db, sizeof db);
    int64_t first = file_int(db, "SELECT max(id) + 1 FROM event"); /* the first instant's id */
    file_exec(db, "INSERT INTO event (kind, name_id, thread_id, start_ns, dur_ns, self_ns, depth) "
                  "SELECT 12, name_id, thread_id, start_ns, 0.5, 0, 0 FROM event WHERE kind = 1 ORDER BY id");
    snprintf(said, sizeof said, "event.dur_ns holds a non-integer value (event id %lld)", (long long)first);
    expect_refused("kernels --patterns aten:: --min-kernels 1", db, said);
    expect_refused("kernels --patterns aten:: --drop-last-step --min-kernels 1", db, "event.dur_ns holds a non-integer value");
    file_exec(db, "DELETE FROM event WHERE kind = 12 AND typeof(dur_ns) = 'real'");
    int64_t name = file_int(db, "SELECT min(name_id) FROM event WHERE kind = 7");
    char sql[200];
    snprintf(sql, sizeof sql, "UPDATE string SET value = CAST(value AS BLOB) WHERE id = %lld", (long long)name);
    file_exec(db, sql);
    snprintf(said, sizeof said, "string.value holds a value that is not text (string id %lld)", (long long)name);
    expect_refused("kernels --patterns aten:: --min-kernels 1", db, said);
    run("rm -rf '%s'", dir);
    free(dir);
}


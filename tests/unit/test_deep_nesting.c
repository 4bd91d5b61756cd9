/* test_deep_nesting.c: reports on one thread of calls nested in each other (event i of n at i us for
 * 2n - 2i us: 20,000 of them; 50,000 each launching a kernel; 400,000, past the depth the import counts
 * to), against numbers worked out from that shape: every event's self time is 2 us (less what it holds
 * beside the next one in), its total 2n - 2i us, what each operator launches counts in its own total and
 * in every one's above it, and its Python stack is the frames above it. The reports that walked up from
 * each event took the depth each time, O(n^2): `ops --group-by stack` on the 20,000 did not finish in
 * 100 s, `ops --from 0` on the 50,000 took over a minute, `kernels --patterns` on the 400,000 a minute
 * (it looked for each call's parent down the whole stack); each must now stay well inside its bound,
 * sanitizers included. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 20000           /* events nested */
#define N_LAUNCHING 50000 /* operators nested, each launching a kernel */
#define N_PATTERN 400000  /* calls nested, past the depth the import counts to (65,535) */
#define BOUND_S 20.0      /* a report's time at most: seconds, on a shared machine under AddressSanitizer */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* `tracedb ops DB ARGS --format json` on n nested operators, parsed, within BOUND_S seconds (stopped at 3
 * times that). */
static cJSON *ops_json(const char *db, const char *args, int n)
{
    int st;
    double t0 = now_s();
    char *out = run_capture(&st, "timeout %d '%s' ops '%s' %s --format json 2>/dev/null", (int)(3 * BOUND_S), tracedb(), db, args);
    double took = now_s() - t0;
    cr_assert_eq(st, 0, "ops %s: exit status %d (124: stopped after %.0f s)", args, st, 3 * BOUND_S);
    cr_assert_lt(took, BOUND_S, "ops %s on %d nested operators took %.1f s", args, n, took);
    cJSON *rows = cJSON_Parse(out);
    cr_assert(cJSON_IsArray(rows), "ops %s: %s", args, out);
    free(out);
    return rows;
}

static double num(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsNumber(v), "%s", key);
    return v->valuedouble;
}

static const char *text(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItem(row, key);
    cr_assert(cJSON_IsString(v), "%s", key);
    return v->valuestring;
}

/* Imports the trace of events 0..count-1, each(out, i) writing event i's JSON objects (comma-led after the
 * first). */
static void import_nested(char *dir, int count, void (*each)(FILE *out, int i), char *db, size_t n)
{
    char *json = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&json, &len);
    cr_assert(out);
    fputs("{\"traceEvents\":[\n", out);
    for (int i = 0; i < count; i++)
        each(out, i);
    fputs("]}\n", out);
    fclose(out);
    import_text(dir, json, db, n);
    free(json);
}

/* Every fourth event (i % 4 == 3) a Python frame, a.py and b.py in turn; the others operators. */
static void with_frames(FILE *out, int i)
{
    fprintf(out, "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n", i ? "," : "",
            i % 4 == 3 ? "python_function" : "cpu_op", i % 4 != 3 ? "aten::op" : (i / 4) % 2 ? "b.py(2): b" : "a.py(1): a", i,
            2 * N - 2 * i);
}

/* What `ops --group-by stack --stack-depth depth` gives, by hand: operator i has i / 4 frames above it
 * (frame m at 4m + 3: a.py for m even, b.py for odd), innermost first; it takes 2 us itself and 2N - 2i
 * in all. Operators 4m + 1 and 4m + 2 are each the only child of one of their own name: PyTorch's merge
 * makes them part of operator 4m, one call of 6 us itself. */
struct want {
    char stack[128];
    double calls, self_ns, total_ns;
};

static int expected_stacks(int depth, struct want *w)
{
    int n = 0;
    for (int i = 0; i < N; i++) {
        if (i % 4 != 0)
            continue;
        char s[128] = "";
        for (int m = i / 4 - 1; m >= 0 && m > i / 4 - 1 - depth; m--)
            snprintf(s + strlen(s), sizeof s - strlen(s), "%s%s", s[0] ? "; " : "", m % 2 ? "b.py(2): b" : "a.py(1): a");
        int k = 0;
        while (k < n && strcmp(w[k].stack, s) != 0)
            k++;
        if (k == n)
            memset(&w[n++], 0, sizeof *w), strcpy(w[k].stack, s);
        w[k].calls++, w[k].self_ns += 3 * 2000, w[k].total_ns += (2.0 * N - 2.0 * i) * 1000;
    }
    return n;
}

Test(deep_nesting, ops_group_by_stack_on_20000_nested_operators, .timeout = 300)
{
    char *dir = temp_dir(), db[1100];
    import_nested(dir, N, with_frames, db, sizeof db);
    static const int depths[] = {5, 1, 0};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        struct want w[16];
        int n = expected_stacks(depths[d], w); /* depth 5: "", 4 shallow stacks and the two that alternate */
        char args[64];
        snprintf(args, sizeof args, "--group-by stack --stack-depth %d", depths[d]);
        cJSON *rows = ops_json(db, args, N), *r;
        cr_assert_eq(cJSON_GetArraySize(rows), n, "%s: %d rows, not %d", args, cJSON_GetArraySize(rows), n);
        cJSON_ArrayForEach(r, rows)
        {
            int k = 0;
            while (k < n && strcmp(w[k].stack, text(r, "stack")) != 0)
                k++;
            cr_assert_lt(k, n, "%s: stack '%s'", args, text(r, "stack"));
            cr_assert_str_eq(text(r, "name"), "aten::op");
            cr_expect_eq(num(r, "calls"), w[k].calls, "%s '%s': calls", args, w[k].stack);
            cr_expect_eq(num(r, "self_cpu_ns"), w[k].self_ns, "%s '%s': self", args, w[k].stack);
            cr_expect_eq(num(r, "cpu_total_ns"), w[k].total_ns, "%s '%s': total", args, w[k].stack);
        }
        cJSON_Delete(rows);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Operators aten::op_<i % 5>, each launching a kernel of 1 us (its cudaLaunchKernel in the last 0.5 us
 * of the last us it holds beside the next operator) and holding a [memory] event of 1,024 device bytes. */
static void with_launches(FILE *out, int i)
{
    const int n = N_LAUNCHING;
    int end = 2 * n - i - 1; /* operator i alone from here to its end */
    fprintf(out,
            "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op_%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n"
            "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d.25,"
            "\"dur\":0.5,\"args\":{\"correlation\":%d}},\n"
            "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,"
            "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}},\n"
            "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%d.1,"
            "\"args\":{\"Bytes\":1024,\"Addr\":%d,\"Device Id\":0,\"Device Type\":1}}\n",
            i ? "," : "", i % 5, i, 2 * n - 2 * i, end, i + 1, 2 * n + 10 + i, i + 1, end, 4096 + i);
}

/* By hand: operator i of n takes 1.5 us itself (2 us less its launch) and 2n - 2i in all; its own kernel
 * and bytes are its self device time and memory, those of it and the n - 1 - i below it its totals. */
Test(deep_nesting, ops_device_and_memory_totals_on_50000_nested_operators, .timeout = 300)
{
    char *dir = temp_dir(), db[1100];
    const int n = N_LAUNCHING;
    import_nested(dir, n, with_launches, db, sizeof db);
    double want[5][6] = {{0}}; /* by name: calls, self, total, self device, device total, device bytes total */
    for (int i = 0; i < n; i++) {
        double *w = want[i % 5];
        w[0]++, w[1] += 1500, w[2] += (2.0 * n - 2.0 * i) * 1000, w[3] += 1000, w[4] += (n - i) * 1000.0,
            w[5] += (n - i) * 1024.0;
    }
    static const char *const ways[] = {"--from 0", "--by-step", "--group-by stack"};
    for (size_t k = 0; k < sizeof ways / sizeof *ways; k++) {
        cJSON *rows = ops_json(db, ways[k], n), *r;
        int seen = 0;
        cJSON_ArrayForEach(r, rows)
        {
            const char *name = text(r, "name");
            if (strcmp(name, "cudaLaunchKernel") == 0) {
                cr_expect_eq(num(r, "calls"), n);
                cr_expect_eq(num(r, "self_cpu_ns"), n * 500.0);
                cr_expect_eq(num(r, "device_total_ns"), 0, "%s: a launch holds no kernel", ways[k]);
                continue;
            }
            if (strcmp(name, "k") == 0) { /* the kernels' own row, as key_averages() lists device events */
                cr_expect_eq(num(r, "calls"), n);
                cr_expect_eq(num(r, "self_cpu_ns"), 0);
                cr_expect_eq(num(r, "self_device_ns"), n * 1000.0, "%s: the kernels' row", ways[k]);
                continue;
            }
            cr_assert(strncmp(name, "aten::op_", 9) == 0 && name[9] >= '0' && name[9] <= '4' && !name[10], "%s", name);
            const double *w = want[name[9] - '0'];
            seen++;
            cr_expect_eq(num(r, "calls"), w[0], "%s %s: calls", ways[k], name);
            cr_expect_eq(num(r, "self_cpu_ns"), w[1], "%s %s: self", ways[k], name);
            cr_expect_eq(num(r, "cpu_total_ns"), w[2], "%s %s: total", ways[k], name);
            cr_expect_eq(num(r, "self_device_ns"), w[3], "%s %s: self device", ways[k], name);
            cr_expect_eq(num(r, "device_total_ns"), w[4], "%s %s: device total %.0f, not %.0f", ways[k], name,
                         num(r, "device_total_ns"), w[4]);
            cr_expect_eq(num(r, "self_device_mem_bytes"), 1024.0 * w[0], "%s %s: self device bytes", ways[k], name);
            cr_expect_eq(num(r, "device_mem_bytes"), w[5], "%s %s: device bytes", ways[k], name);
            cr_expect_eq(num(r, "cpu_mem_bytes"), 0, "%s %s: host bytes", ways[k], name);
        }
        cr_expect_eq(seen, 5, "%s: %d operator rows", ways[k], seen);
        cJSON_Delete(rows);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Calls aten::op nested N_PATTERN deep, the innermost launching kernels k0, k1 and k2 (1 us each). */
static void with_kernels(FILE *out, int i)
{
    const int n = N_PATTERN;
    fprintf(out, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}\n",
            i ? "," : "", i, 2 * n - 2 * i);
    for (int k = 0; i == n - 1 && k < 3; k++)
        fprintf(out,
                ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d.%d,"
                "\"dur\":0.2,\"args\":{\"correlation\":%d}}\n"
                ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":1,"
                "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}\n",
                i, 2 + 3 * k, k + 1, k, 2 * n + 10 + 2 * k, k + 1);
}

/* By hand: the one root is the outermost call (depth 0, 2n us), its sequence the three kernels. */
Test(deep_nesting, kernels_patterns_on_400000_nested_calls, .timeout = 300)
{
    char *dir = temp_dir(), db[1100];
    import_nested(dir, N_PATTERN, with_kernels, db, sizeof db);
    int st;
    double t0 = now_s();
    char *out = run_capture(&st, "timeout %d '%s' kernels '%s' --patterns aten::op --format csv", (int)(3 * BOUND_S), tracedb(), db);
    double took = now_s() - t0;
    cr_assert_eq(st, 0, "kernels --patterns: exit status %d (124: stopped after %.0f s)", st, 3 * BOUND_S);
    cr_assert_lt(took, BOUND_S, "kernels --patterns on %d nested calls took %.1f s", N_PATTERN, took);
    char want[256];
    snprintf(want, sizeof want, "rank,count,kernels,gpu_ns,cpu_ns,pattern\r\n,1,3,3000,%lld,aten::op|k0|k1|k2\r\n",
             2LL * N_PATTERN * 1000);
    cr_assert_str_eq(out, want);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

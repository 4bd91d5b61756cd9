/* test_hta_summary.c: summary's GPU efficiency section is what tracedb overlap, idle and launches print,
 * row for row per rank and device: each of its figures is read back from the commands' own csv of the
 * same database (the idle shares recomputed from idle's per-stream ns), on real traces, and on one made
 * to run on two GPUs in one rank, whose per-device rows the commands give on copies holding one device's
 * GPU work each. */
#include "hta_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A csv table: rows of fields, row 0 the header. */
struct csv {
    char ***row;
    int *fields, n;
};

/* Parses RFC 4180 text (quoted fields with "" for a quote, \r\n or \n ends a row) up to the end or an
 * empty line. */
static struct csv csv_parse(const char *s)
{
    struct csv t = {0};
    while (*s && *s != '\r' && *s != '\n') {
        t.row = realloc(t.row, sizeof *t.row * (size_t)(t.n + 1));
        t.fields = realloc(t.fields, sizeof *t.fields * (size_t)(t.n + 1));
        char **f = NULL;
        int n = 0;
        for (;;) {
            char *v = malloc(strlen(s) + 1);
            size_t k = 0;
            if (*s == '"') {
                for (s++; *s && !(*s == '"' && s[1] != '"'); s++)
                    v[k++] = *s == '"' ? *s++ : *s;
                s += *s == '"';
            } else {
                while (*s && *s != ',' && *s != '\r' && *s != '\n')
                    v[k++] = *s++;
            }
            v[k] = 0;
            f = realloc(f, sizeof *f * (size_t)(n + 1));
            f[n++] = v;
            if (*s != ',')
                break;
            s++;
        }
        s += *s == '\r';
        s += *s == '\n';
        t.row[t.n] = f, t.fields[t.n++] = n;
    }
    return t;
}

static void csv_free(struct csv *t)
{
    for (int r = 0; r < t->n; r++) {
        for (int f = 0; f < t->fields[r]; f++)
            free(t->row[r][f]);
        free(t->row[r]);
    }
    free(t->row), free(t->fields);
}

/* Row r's field of column name ("" when the table has no such column: a test then fails on it). */
static const char *cell(const struct csv *t, int r, const char *name)
{
    for (int f = 0; f < t->fields[0] && f < t->fields[r]; f++)
        if (strcmp(t->row[0][f], name) == 0)
            return t->row[r][f];
    return "";
}

/* A tracedb command's csv over db (it must succeed). */
static struct csv command_csv(const char *args, const char *db)
{
    int st;
    char *out = run_capture(&st, "'%s' %s '%s' --format csv", tracedb(), args, db);
    cr_assert_eq(st, 0, "%s: %s", args, out);
    struct csv t = csv_parse(out);
    free(out);
    return t;
}

/* summary's gpu_efficiency section over db, as csv. */
static struct csv summary_section(const char *db)
{
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' --format csv", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    const char *at = strstr(out, "# gpu_efficiency\r\n");
    cr_assert(at, "a GPU efficiency section: %s", out);
    struct csv t = csv_parse(at + strlen("# gpu_efficiency\r\n"));
    free(out);
    return t;
}

/* The share as the section rounds it: to 0.01%. */
static double share(long long part, long long whole)
{
    return round(10000.0 * (double)part / (double)whole) / 100;
}

/* Row r of summary s (of some database) against what overlap, idle and launches print over db for the
 * same rank and device. launches has no device column: db holds the row's device's GPU work alone, or
 * the rank runs on one GPU. */
static void check_row(const struct csv *s, int r, const char *db, const char *what)
{
    const char *rank = cell(s, r, "trace_rank"), *device = cell(s, r, "device");
    struct csv ov = command_csv("overlap", db), idle = command_csv("idle --limit 1000000", db);
    struct csv ln = command_csv("launches --by-rank --limit 1000000", db);
    int found = 0;
    for (int k = 1; k < ov.n; k++)
        if (strcmp(cell(&ov, k, "rank"), rank) == 0 && strcmp(cell(&ov, k, "device"), device) == 0) {
            found++;
            cr_expect_str_eq(cell(s, r, "comm_overlap_pct"), cell(&ov, k, "overlap_pct"), "%s rank %s device %s", what, rank,
                             device);
        }
    cr_expect_eq(found, 1, "%s: rank %s device %s is overlap's row", what, rank, device);
    long long idle_ns = 0, host = 0, kernel = 0, other = 0;
    for (int k = 1; k < idle.n; k++)
        if (strcmp(cell(&idle, k, "rank"), rank) == 0 && strcmp(cell(&idle, k, "device"), device) == 0) {
            idle_ns += atoll(cell(&idle, k, "idle_ns")), host += atoll(cell(&idle, k, "host_wait_ns"));
            kernel += atoll(cell(&idle, k, "kernel_wait_ns")), other += atoll(cell(&idle, k, "other_ns"));
        }
    cr_expect_eq(atoll(cell(s, r, "idle_ns")), idle_ns, "%s rank %s device %s: idle", what, rank, device);
    cr_expect_gt(idle_ns, 0, "%s: idle time to share", what);
    static const char *const shares[] = {"host_wait_pct", "kernel_wait_pct", "other_pct"};
    long long parts[] = {host, kernel, other};
    for (int k = 0; k < 3; k++) /* SQLite's round() and C's agree but for a tie: one step apart at most */
        cr_expect(fabs(atof(cell(s, r, shares[k])) - share(parts[k], idle_ns)) < 0.0051, "%s rank %s device %s: %s %s, %.2f", what,
                  rank, device, shares[k], cell(s, r, shares[k]), share(parts[k], idle_ns));
    /* the longest delay of the rank's launches, and its kernel (ties: the first name) */
    long long worst = -1;
    const char *name = "";
    for (int k = 1; k < ln.n; k++) {
        long long d = atoll(cell(&ln, k, "delay_max_ns"));
        if (strcmp(cell(&ln, k, "rank"), rank) == 0 && (d > worst || (d == worst && strcmp(cell(&ln, k, "name"), name) < 0)))
            worst = d, name = cell(&ln, k, "name");
    }
    cr_expect_gt(worst, 0, "%s: launches", what);
    cr_expect_eq(atoll(cell(s, r, "worst_launch_delay_ns")), worst, "%s rank %s device %s: worst delay", what, rank, device);
    cr_expect_str_eq(cell(s, r, "worst_launch_delay_kernel"), name, "%s rank %s device %s", what, rank, device);
    csv_free(&ov), csv_free(&idle), csv_free(&ln);
}

/* The summary's rows over real traces (one rank and GPU each) are overlap's rows, and each row's figures
 * are the commands'. */
Test(hta, summary_gpu_efficiency_is_the_commands_rows, .timeout = 240)
{
    static const char *const traces[] = {"trace_diff_test_test.json.gz", "nccl_parser_config_nccl_data.json.gz",
                                         "critical_path_alexnet_trace.json.gz"};
    char *dir = temp_dir();
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) {
        char db[1200];
        import_real(dir, traces[i], db, sizeof db);
        struct csv s = summary_section(db), ov = command_csv("overlap", db);
        cr_expect_eq(s.n, ov.n, "%s: %d rows, overlap %d", traces[i], s.n - 1, ov.n - 1);
        for (int r = 1; r < s.n; r++)
            check_row(&s, r, db, traces[i]);
        csv_free(&s), csv_free(&ov);
    }
    /* alexnet's idle time over its streams (24.9 s) passes its device's span (12.9 s): the page says it is a sum */
    int st;
    char *text = run_capture(&st, "'%s' summary '%s/critical_path_alexnet_trace.json.gz.db' --wide", tracedb(), dir);
    cr_expect(strstr(text, "HTA's way (tracedb overlap, idle, launches; Idle summed over streams)"), "%s", text);
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* trace_diff_test_test and nccl_parser_config with their work on streams other than 7 moved to the next
 * GPU: one rank, two devices. The section has a row per device (overlap's), each the commands' figures
 * over a copy holding that device's GPU work alone; one row per rank would sum the devices' idle time and
 * join communication on one GPU with computation on the other. */
Test(hta, summary_gpu_efficiency_splits_a_ranks_devices, .timeout = 240)
{
    static const char *const traces[] = {"trace_diff_test_test.json.gz", "nccl_parser_config_nccl_data.json.gz"};
    char *dir = temp_dir();
    for (size_t i = 0; i < sizeof traces / sizeof *traces; i++) {
        char db[1200], one[1300];
        import_real(dir, traces[i], db, sizeof db);
        file_exec(db, "UPDATE event SET device = device + 1 WHERE kind IN (7, 8, 9) AND stream <> 7");
        struct csv s = summary_section(db), ov = command_csv("overlap", db);
        cr_expect_eq(s.n, 3, "%s: two rows (%d)", traces[i], s.n - 1);
        cr_expect_eq(s.n, ov.n, "%s: %d rows, overlap %d", traces[i], s.n - 1, ov.n - 1);
        for (int r = 1; r < s.n; r++) {
            snprintf(one, sizeof one, "%s.%d.db", db, r);
            cr_assert_eq(run("cp '%s' '%s'", db, one), 0);
            char sql[200];
            snprintf(sql, sizeof sql, "DELETE FROM event WHERE kind IN (7, 8, 9) AND device IS NOT %s", cell(&s, r, "device"));
            file_exec(one, sql);
            char what[1400];
            snprintf(what, sizeof what, "%s, device %s alone", traces[i], cell(&s, r, "device"));
            check_row(&s, r, one, what);
        }
        csv_free(&s), csv_free(&ov);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

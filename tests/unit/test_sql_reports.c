/* test_sql_reports.c: the reports as SQL table functions (tracedb_kernels() ...) give the rows of the
 * reports' own --format csv, through the sqlite3 shell with `.load build/libtracedb` and `tracedb sql`. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tests/sql_reports_check.py: 13 reports, no options and two option sets each, on three real traces. */
Test(sql_reports, every_report_table_function_equals_its_csv, .timeout = 600)
{
    if (run("command -v sqlite3 >/dev/null") != 0)
        skip_for_missing("the sqlite3 shell (sh tools/deps.sh test installs it)");
    static const char *const traces[] = {
        "tests/data/kineto/nccl_parser_config_nccl_data.json.gz",
        "tests/data/kineto/trace_diff_control_control.json.gz",
        "tests/data/kineto/critical_path_alexnet_trace.json.gz",
    };
    char *dirs[3], *dbs[3];
    for (int i = 0; i < 3; i++)
        dbs[i] = imported(traces[i], &dirs[i]);
    char lib[1024];
    snprintf(lib, sizeof lib, "%s", src_path("build/libtracedb"));
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' '%s' '%s' 2>&1", src_path("tests/sql_reports_check.py"),
                            tracedb(), lib, dbs[0], dbs[1], dbs[2]);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, " 0 failures") && !strstr(out, "'queries': 0,"), "%s", out);
    free(out);
    for (int i = 0; i < 3; i++)
        cleanup(dirs[i], dbs[i]);
}

/* `tracedb sql` has them: a filter over tracedb_kernels() gives the NCCL kernels' names and total time that
 * plain SQL over the kernels view counts; a view cannot make a report run (SQLITE_VTAB_DIRECTONLY; a view in the database file, as one sent to you would hold). */
Test(sql_reports, tracedb_sql_filters_a_report_and_views_cannot_run_one, .timeout = 120)
{
    char *dir;
    char *db = imported("tests/data/kineto/nccl_parser_config_nccl_data.json.gz", &dir);
    int64_t names = file_int(db, "SELECT count(DISTINCT name) FROM kernels WHERE name LIKE 'nccl%'");
    int64_t total = file_int(db, "SELECT sum(dur_ns) FROM kernels WHERE name LIKE 'nccl%'");
    cr_assert_gt(names, 0);
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' \"SELECT count(*), sum(total_ns) FROM tracedb_kernels() WHERE name LIKE "
                                 "'nccl%%'\" --format csv", tracedb(), db);
    cr_assert_eq(st, 0, "%s", out);
    long long n = -1, t = -1;
    cr_assert_eq(sscanf(strstr(out, "\n") + 1, "%lld,%lld", &n, &t), 2, "%s", out);
    cr_assert_eq(n, names, "%s", out);
    cr_assert_eq(t, total, "%s", out);
    free(out);
    out = run_capture(&st, "sqlite3 '%s' '.load %s' 'CREATE VIEW v AS SELECT * FROM tracedb_ops(); SELECT count(*) FROM v' 2>&1",
                      db, src_path("build/libtracedb"));
    cr_assert_neq(st, 0, "%s", out);
    cr_assert(strstr(out, "unsafe use of virtual table"), "%s", out);
    free(out);
    cleanup(dir, db);
}

/* test_ops_merge.c: `tracedb ops` with PyTorch's merge of an operator's only child of its own name
 * (EventList._remove_dup_nodes), against PyTorch's own key_averages() on the same run
 * (tests/oracle/torch_merge.py; tests/ops_merge_check.py compares every row by name, shape and step);
 * and the import's count of events inside one of their own name, which tells `ops` whether its
 * per-name sums serve, against SQL over the rows, through appends and `tracedb merge`. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAME_NAME_SQL                                                                                                  \
    "SELECT count(*) FROM event c JOIN event p ON p.id = c.parent_id AND p.name_id = c.name_id AND p.kind = c.kind "  \
    "AND p.device IS c.device"
#define COUNT_SQL "SELECT value FROM meta WHERE key = 'ops.same_name_nesting'"

Test(ops_merge, rows_equal_pytorchs_key_averages_by_name_shape_and_step, .timeout = 120)
{
    char *dir, *db = imported("tests/data/torch_merge.json.gz", &dir);
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' 2>&1", src_path("tests/ops_merge_check.py"), tracedb(),
                            db, src_path("tests/data/torch_merge_expected.json"));
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, " 0 failures"), "%s", out);
    free(out);
    cleanup(dir, db);
}

/* The count is the rows' own, on real traces imported streaming and swept; an append adds to it; tracedb
 * merge sums its inputs'; without one (a database made before it was kept) ops reads the events, and with
 * one it makes an append or a merge unknown (-1). */
Test(ops_merge, the_imports_count_follows_appends_and_merges, .timeout = 120)
{
    char *dir = temp_dir(), a[512], b[512], m[512], old[512], m2[512], bb[512];
    snprintf(a, sizeof a, "%s/a.db", dir), snprintf(b, sizeof b, "%s/b.db", dir), snprintf(m, sizeof m, "%s/m.db", dir);
    snprintf(old, sizeof old, "%s/old.db", dir), snprintf(m2, sizeof m2, "%s/m2.db", dir);
    snprintf(bb, sizeof bb, "%s/bb.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/trace_diff_test_test.json.gz"), a), 0);
    cr_assert_eq(import_to(src_path("tests/data/torch_merge.json.gz"), b), 0);
    int64_t na = file_int(a, COUNT_SQL), nb = file_int(b, COUNT_SQL);
    cr_assert_eq(na, file_int(a, SAME_NAME_SQL));
    cr_assert_eq(nb, file_int(b, SAME_NAME_SQL));
    cr_assert(na > 100 && nb > 10, "%lld %lld", (long long)na, (long long)nb);
    cr_assert_eq(run("'%s' import --append '%s' -o '%s' >/dev/null 2>&1", tracedb(), src_path("tests/data/torch_merge.json.gz"), a), 0);
    cr_assert_eq(file_int(a, COUNT_SQL), na + nb);
    cr_assert_eq(file_int(a, COUNT_SQL), file_int(a, SAME_NAME_SQL));
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s' >/dev/null 2>&1", tracedb(), a, b, m), 0);
    cr_assert_eq(file_int(m, COUNT_SQL), na + 2 * nb);
    cr_assert_eq(file_int(m, COUNT_SQL), file_int(m, SAME_NAME_SQL));
    /* a database made before the count */
    cr_assert_eq(run("cp '%s' '%s'", b, old), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open_v2(old, &d, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "DELETE FROM meta WHERE key = 'ops.same_name_nesting'", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(d);
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' 2>&1", src_path("tests/ops_merge_check.py"), tracedb(),
                            old, src_path("tests/data/torch_merge_expected.json"));
    cr_assert(st == 0 && strstr(out, " 0 failures"), "without the count: %s", out);
    free(out);
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s' >/dev/null 2>&1", tracedb(), old, b, m2), 0);
    cr_assert_eq(run("'%s' merge '%s' '%s' -o '%s' >/dev/null 2>&1", tracedb(), b, b, bb), 0);
    cr_assert_eq(file_int(bb, COUNT_SQL), 2 * nb);
    cr_assert_eq(file_int(m2, COUNT_SQL), -1);
    cr_assert_eq(run("'%s' import --append '%s' -o '%s' >/dev/null 2>&1", tracedb(), src_path("tests/data/kineto/triton_example_triton_example.json.gz"), old), 0);
    cr_assert_eq(file_int(old, COUNT_SQL), -1);
    int st1, st2;
    char *want = run_capture(&st1, "'%s' ops '%s' --format csv --limit 1000", tracedb(), bb);
    char *got = run_capture(&st2, "'%s' ops '%s' --format csv --limit 1000", tracedb(), m2);
    cr_assert_eq(st1, 0);
    cr_assert_eq(st2, 0);
    cr_assert(strstr(want, "aten::div_,"), "%s", want);
    cr_assert_str_eq(got, want);
    free(want), free(got);
    free(dir);
}

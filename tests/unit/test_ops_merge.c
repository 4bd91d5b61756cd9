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

/* Two traces of the same run at the same times in one database: each event holds its own trace's [memory]
 * events only, and every figure is twice PyTorch's. */
Test(ops_merge, two_traces_at_the_same_times_count_their_own_memory, .timeout = 120)
{
    char *dir = temp_dir(), copy[1100], db[1100];
    snprintf(copy, sizeof copy, "%s/again.json.gz", dir), snprintf(db, sizeof db, "%s/two.db", dir);
    cr_assert_eq(run("cp '%s' '%s'", src_path("tests/data/torch_merge.json.gz"), copy), 0);
    cr_assert_eq(run("'%s' import -q --allow-duplicate '%s' '%s' -o '%s' 2>/dev/null", tracedb(),
                     src_path("tests/data/torch_merge.json.gz"), copy, db), 0);
    int st;
    char *out = run_capture(&st, "/usr/bin/python3 '%s' '%s' '%s' '%s' 2 2>&1", src_path("tests/ops_merge_check.py"), tracedb(),
                            db, src_path("tests/data/torch_merge_expected.json"));
    cr_assert(st == 0 && strstr(out, " 0 failures"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
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

static char *hand_ops(const char *dir, const char *name, const char *events, const char *args)
{
    char json[2000], db[1100];
    snprintf(json, sizeof json, "{\"traceEvents\":[%s]}", events);
    char *path = malloc(1100);
    snprintf(path, 1100, "%s/%s.json", dir, name);
    write_file(path, json, (long)strlen(json));
    snprintf(db, sizeof db, "%s/%s.db", dir, name);
    cr_assert_eq(import_to(path, db), 0);
    free(path);
    int st;
    char *out = run_capture(&st, "'%s' ops '%s' %s --format csv 2>/dev/null | cut -d, -f1-6", tracedb(), db, args);
    cr_assert_eq(st, 0);
    return out;
}

#define EV(name, cat, ts, dur)                                                                                       \
    "{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur "}"

/* PyTorch compares names alone: a record_function range X whose only child is the operator X is one call
 * of 100 us, its own and the child's self time (PyTorch's EventList on these three events gives X: 1 call,
 * self 100 us, total 100 us), whichever way ops reads. */
Test(ops_merge, a_child_of_another_kind_merges_by_its_name)
{
    char *dir = temp_dir();
    const char *events = EV("X", "user_annotation", 0, 100) "," EV("X", "cpu_op", 10, 50) "," EV("Y", "cpu_op", 200, 10);
    static const char *const ways[] = {"", "--from 0", "--group-by shape"};
    for (int w = 0; w < 3; w++) {
        char name[16];
        snprintf(name, sizeof name, "kinds%d", w);
        char *out = hand_ops(dir, name, events, ways[w]);
        cr_expect(strstr(out, "\nX,1,100000,") && strstr(out, "\nX,1,100000,90.91,100000,"), "ops %s:\n%s", ways[w], out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* In a window the merge still sees the whole tree: X [0,100] holds X [10,30] and Y [60,80]; `--to 50us`
 * reads X and the inner X alone, but X has two children, so neither merges (2 calls, 80 + 20 us self,
 * 100 + 20 us total). */
Test(ops_merge, a_window_does_not_hide_a_sibling)
{
    char *dir = temp_dir();
    const char *events = EV("X", "cpu_op", 0, 100) "," EV("X", "cpu_op", 10, 20) "," EV("Y", "cpu_op", 60, 20) ","
        EV("Z", "cpu_op", 200, 10);
    char *out = hand_ops(dir, "window", events, "--to 50us");
    cr_expect(strstr(out, "\nX,2,80000,") && strstr(out, ",120000"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* diff counts operators as ops does, through chains and pairs, in time linear in them (each step of the
 * chain read once; the timeout holds it to that under the sanitizers): a chain of 2,000 aten::foo each
 * the only child of the one above (one call: the top's 5,000 us, all its self time), 500
 * aten::pair [t, t+10] holding one aten::pair [t+2, t+7] (500 calls, 10 us each), and a loop of parents
 * written into the database (two events each the other's parent: no top, both kept). */
Test(ops_merge, diff_merges_chains_and_pairs_as_ops_does, .timeout = 120)
{
    char *dir = temp_dir(), path[600], db[700];
    snprintf(path, sizeof path, "%s/chain.json", dir), snprintf(db, sizeof db, "%s/chain.db", dir);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fprintf(f, "{\"traceEvents\":[");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::foo\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d}",
                i ? "," : "", i, 2 * (2000 - i) + 1000);
    for (int k = 0, t = 8000; k < 500; k++, t += 20)
        fprintf(f, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::pair\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":10},"
                   "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::pair\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5}",
                t, t + 2);
    fprintf(f, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"L\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":10},"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"L\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":10}]}");
    fclose(f);
    cr_assert_eq(import_to(path, db), 0);
    sqlite3 *h;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(h, "WITH l AS (SELECT e.id FROM event e JOIN string n ON n.id = e.name_id WHERE n.value = 'L') "
                                 "UPDATE event SET parent_id = (SELECT id FROM l WHERE l.id <> event.id) WHERE id IN l; "
                                 "UPDATE meta SET value = -1 WHERE key = 'ops.same_name_nesting'",
                                 NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
    int st;
    char *out = run_capture(&st, "'%s' diff '%s' '%s' --section ops --format csv --kinds op", tracedb(), db, db);
    cr_assert_eq(st, 0, "%s", out);
    cr_expect(strstr(out, "\naten::foo,op,1,1,5000000,5000000,") && strstr(out, "\naten::pair,op,500,500,5000000,5000000,") &&
                  strstr(out, "\nL,op,2,2,"),
              "%s", out);
    free(out);
    out = run_capture(&st, "'%s' ops '%s' --format csv", tracedb(), db);
    cr_expect(strstr(out, "\naten::foo,1,5000000,") && strstr(out, "\naten::pair,500,5000000,"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

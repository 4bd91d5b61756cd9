/* test_errors_said.c: every failure says what went wrong. A damaged database page under any report or
 * export is an error with SQLite's reason (never exit 1 and silence), a merge of a partial input says so,
 * `tracedb sql`'s table stops with a message instead of buffering an endless query, and a dangling
 * symbolic link as an import's output is said before any work. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each page of alexnet's database in turn overwritten with a pattern (a damaged disk, an edited file):
 * every command that fails says why on stderr, and none crashes. */
Test(errors_said, a_damaged_page_under_a_report_or_an_export_is_an_error_with_a_reason, .timeout = 300)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    int st;
    /* one python3 writes every damaged copy (p1.db ...); then each command on each copy */
    char *out = run_capture(
        &st,
        "cd '%s' && /usr/bin/python3 -c \"import os\n"
        "a = open('a.db', 'rb').read()\n"
        "for p in range(1, len(a) // 4096):\n"
        "    open('p%%d.db' %% p, 'wb').write(a[:p * 4096] + bytes((i * 131 + p * 7) %% 256 for i in range(4096)) + "
        "a[(p + 1) * 4096:])\" && pages=0; for f in p*.db; do pages=$((pages + 1)); "
        "  for c in overlap 'export chrome' 'export csv'; do "
        "    case $c in export*) args=\"-o -\";; *) args=;; esac; [ \"$c\" = 'export csv' ] && args='--table events'; "
        "    '%s' $c $f $args > /dev/null 2> err; rc=$?; "
        "    if [ $rc -ne 0 ] && [ ! -s err ]; then echo \"page $f: $c: exit $rc, nothing said\"; fi; "
        "    if [ $rc -gt 2 ]; then echo \"page $f: $c: exit $rc\"; fi; "
        "  done; rm -f $f; done; echo pages=$pages",
        dir, tracedb());
    cr_expect_eq(st, 0);
    cr_expect(strstr(out, "pages="), "the sweep ran: %s", out);
    cr_expect(!strstr(out, "page "), "failures without a word, or crashes:\n%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(errors_said, a_merge_of_a_partial_input_says_its_output_is_partial)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/p.db", dir);
    /* a trace cut short imports as a partial database (meta import_status) */
    run("cd '%s' && gzip -dc '%s' | head -c 20000 > cut.json", dir,
        src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    run("cd '%s' && '%s' import -q cut.json -o p.db 2>/dev/null", dir, tracedb());
    cr_assert_eq(file_int(db, "SELECT value = 'partial' FROM meta WHERE key = 'import_status'"), 1);
    int st;
    char *out = run_capture(&st, "cd '%s' && '%s' merge p.db -o m.db 2>&1; echo rc=$?", dir, tracedb());
    cr_expect(strstr(out, "p.db is partial") && strstr(out, "the merged database is marked partial too"), "%s", out);
    cr_expect(strstr(out, "rc=1\n"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* An endless query in table form (a table's widths need its rows first): stops at 200,000 rows with a
 * message and exit 1, within bounded memory, instead of growing until it is killed. */
Test(errors_said, an_endless_query_as_a_table_stops_with_a_message, .timeout = 120)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    int st;
    char *out = run_capture(&st, "'%s' sql '%s' 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                                 "SELECT x FROM c' 2>&1 >/dev/null; echo rc=$?", tracedb(), db);
    cr_expect(strstr(out, "the table stops at its first 200000 rows") && strstr(out, "--format csv"), "%s", out);
    cr_expect(strstr(out, "rc=1\n"), "%s", out);
    free(out);
    out = run_capture(&st, "'%s' sql '%s' 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                           "SELECT x FROM c' --format csv | head -3", tracedb(), db);
    cr_expect_str_eq(out, "x\r\n1\r\n2\r\n", "csv streams (and ends quietly on a closed pipe)");
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(errors_said, a_dangling_symlink_as_the_output_is_said_before_the_import)
{
    char *dir = temp_dir();
    int st;
    char *out = run_capture(&st, "cd '%s' && ln -s nowhere/x.db o.db && '%s' import '%s' -o o.db 2>&1; echo rc=$?", dir,
                            tracedb(), src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"));
    cr_expect(strstr(out, "o.db is a symbolic link to a file that does not exist"), "%s", out);
    cr_expect(!strstr(out, "events imported") && !strstr(out, "another process"), "said before any work: %s", out);
    cr_expect(strstr(out, "rc=1\n"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

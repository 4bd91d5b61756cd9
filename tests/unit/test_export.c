/* test_export.c: exports against independent checks: a Chrome export imported again gives the same rows
 * (every real trace); CSV read back by pandas equals the database read by pandas. */
#include "helpers.h"
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rows of a.db and b.db (attached to one connection) that differ in any imported column. */
static const char roundtrip_sql[] =
    "SELECT (SELECT count(*) FROM a.event) - (SELECT count(*) FROM b.event) "
    " + (SELECT count(*) FROM a.event x JOIN b.event y ON y.id = x.id "
    "    JOIN a.string xn ON xn.id = x.name_id JOIN b.string yn ON yn.id = y.name_id "
    "    LEFT JOIN a.string xc ON xc.id = x.cat_id LEFT JOIN b.string yc ON yc.id = y.cat_id "
    "    WHERE xn.value IS NOT yn.value OR xc.value IS NOT yc.value OR x.kind IS NOT y.kind "
    "       OR x.start_ns IS NOT y.start_ns OR x.dur_ns IS NOT y.dur_ns OR x.self_ns IS NOT y.self_ns "
    "       OR x.parent_id IS NOT y.parent_id OR x.depth IS NOT y.depth OR x.correlation IS NOT y.correlation "
    "       OR x.external_id IS NOT y.external_id OR x.device IS NOT y.device OR x.stream IS NOT y.stream "
    "       OR x.bytes IS NOT y.bytes OR x.launch_id IS NOT y.launch_id OR x.args IS NOT y.args) "
    " + (SELECT count(*) FROM a.kernel_launch x LEFT JOIN b.kernel_launch y ON y.event_id = x.event_id "
    "    WHERE y.event_id IS NULL OR x.grid_x IS NOT y.grid_x OR x.grid_z IS NOT y.grid_z OR x.block_x IS NOT y.block_x "
    "       OR x.registers IS NOT y.registers OR x.shared_mem IS NOT y.shared_mem "
    "       OR x.blocks_per_sm IS NOT y.blocks_per_sm OR x.occupancy_pct IS NOT y.occupancy_pct) "
    " + (SELECT count(*) FROM a.memory_event x LEFT JOIN b.memory_event y ON y.event_id = x.event_id "
    "    WHERE y.event_id IS NULL OR x.addr IS NOT y.addr OR x.total_allocated IS NOT y.total_allocated "
    "       OR x.total_reserved IS NOT y.total_reserved OR x.device_type IS NOT y.device_type) "
    " + abs((SELECT count(*) FROM a.flow) - (SELECT count(*) FROM b.flow)) "
    " + (SELECT count(*) FROM a.thread x JOIN a.process xp ON xp.id = x.process_id WHERE x.name IS NOT NULL AND "
    "    NOT EXISTS (SELECT 1 FROM b.thread y JOIN b.process yp ON yp.id = y.process_id "
    "                WHERE yp.pid IS xp.pid AND y.tid IS x.tid AND y.name IS x.name)) "
    " + (SELECT count(*) FROM a.event x JOIN a.thread xt ON xt.id = x.thread_id JOIN a.process xp ON xp.id = xt.process_id "
    "    JOIN b.event y ON y.id = x.id JOIN b.thread yt ON yt.id = y.thread_id JOIN b.process yp ON yp.id = yt.process_id "
    "    WHERE xp.pid IS NOT yp.pid OR xt.tid IS NOT yt.tid)";

Test(export, chrome_round_trip_keeps_every_row_of_every_real_trace, .timeout = 300)
{
    char *text = read_file(src_path("tests/data/kineto_expected.json"), NULL);
    cJSON *expected = cJSON_Parse(text);
    free(text);
    char *dir = temp_dir();
    cJSON *trace;
    int n = 0;
    cJSON_ArrayForEach(trace, expected)
    {
        char in[512], a[1100], b[1100], json[1100];
        snprintf(in, sizeof in, "tests/data/kineto/%s", trace->string);
        snprintf(a, sizeof a, "%s/a%d.db", dir, n);
        snprintf(b, sizeof b, "%s/b%d.db", dir, n);
        snprintf(json, sizeof json, "%s/e%d.json%s", dir, n, n % 2 ? ".gz" : ""); /* gzip every other one */
        n++;
        cr_assert_eq(import_to(src_path(in), a), 0);
        cr_assert_eq(run("'%s' export chrome '%s' -o '%s'", tracedb(), a, json), 0, "%s exports", trace->string);
        cr_assert_eq(import_to(json, b), 0, "%s: the export imports again", trace->string);
        sqlite3 *db;
        sqlite3_open(":memory:", &db);
        char *attach = sqlite3_mprintf("ATTACH %Q AS a; ATTACH %Q AS b", a, b);
        cr_assert_eq(sqlite3_exec(db, attach, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_free(attach);
        cr_assert_gt(db_int(db, "SELECT count(*) FROM b.event"), 0);
        cr_assert_eq(db_int(db, roundtrip_sql), 0, "%s: the same rows after export and import", trace->string);
        cr_assert_eq(db_int(db, "SELECT count(*) FROM a.counter x WHERE NOT EXISTS (SELECT 1 FROM b.counter y "
                                "JOIN b.string n ON n.id = y.name_id WHERE y.ts_ns = x.ts_ns AND y.value IS x.value "
                                "AND n.value = (SELECT value FROM a.string WHERE id = x.name_id))"), 0,
                     "%s: every counter sample is there", trace->string);
        sqlite3_close(db);
    }
    cJSON_Delete(expected);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(export, chrome_window_and_kinds_filters)
{
    char *dir = temp_dir(), db[1100], json[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(json, sizeof json, "%s/k.json", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    cr_assert_eq(run("'%s' export chrome '%s' -o '%s' --kinds kernel,memcpy", tracedb(), db, json), 0);
    int st;
    char *out = run_capture(&st, "grep -c '\"ph\":\"X\"' '%s'", json);
    cr_assert_eq(atoi(out), 79 + 16, "79 kernels and 16 memcpy, nothing else");
    free(out);
    cr_assert_neq(run("'%s' export chrome '%s' -o '%s' --kinds nonsense --force 2>/dev/null", tracedb(), db, json), 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(export, csv_reads_back_in_pandas, .timeout = 120)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    cr_assert_eq(run("'%s' export csv '%s' --table events -o '%s/events.csv'", tracedb(), db, dir), 0);
    cr_assert_eq(run("'%s' export csv '%s' --report kernels -o '%s/kernels.csv'", tracedb(), db, dir), 0);
    cr_assert_eq(run("/usr/bin/python3 '%s' '%s' '%s'", src_path("tests/pandas_check.py"), db, dir), 0);
    /* never SQL from a table name */
    cr_assert_neq(run("'%s' export csv '%s' --table 'event; DROP TABLE event' 2>/dev/null", tracedb(), db), 0);
    cr_assert_eq(run("'%s' export csv '%s' --query 'SELECT count(*) AS n FROM kernels' | grep -qx 79.", tracedb(), db), 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* CSV's values by hand: integers as printf's %lld writes them (int64's ends, 0, negatives), reals
 * exactly (%.15g, else %.17g), a text quoted only where RFC 4180 needs it, "" for an empty text and
 * nothing for NULL; CRLF after each row. */
Test(export, csv_writes_values_as_written_by_hand, .timeout = 60)
{
    char *dir = temp_dir(), db[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    int st;
    char *out = run_capture(&st,
                            "'%s' export csv '%s' --query \"SELECT -9223372036854775807 - 1 AS a, 9223372036854775807 AS b, "
                            "0 AS c, -42 AS d, 1234567890 AS e, 0.1 AS f, -0.0 AS g, 0.30000000000000004 AS h, 'x,y' AS i, "
                            "'' AS j, NULL AS k, 'say ' || char(34) || 'hi' || char(34) AS l, ' pad' AS m UNION ALL SELECT -1, 10, 9, -10, 100, "
                            "1e300, 2.5, -1e-5, 'plain', 'a b', 7, 'z', 'tail '\"",
                            tracedb(), db);
    const char *want = "a,b,c,d,e,f,g,h,i,j,k,l,m\r\n"
                       "-9223372036854775808,9223372036854775807,0,-42,1234567890,0.1,-0,0.30000000000000004,\"x,y\",\"\",,"
                       "\"say \"\"hi\"\"\",\" pad\"\r\n"
                       "-1,10,9,-10,100,1e+300,2.5,-1e-05,plain,a b,7,z,\"tail \"\r\n";
    cr_assert(st == 0 && strcmp(out, want) == 0, "got:\n%s\nwant:\n%s", out, want);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Chrome's times are microseconds with three decimals, negative ones too (a trace may start before its
 * clock's zero): the export writes back what the trace said, worked by hand. */
Test(export, chrome_writes_negative_and_small_times_exactly)
{
    char *dir = temp_dir(), json[1100], db[1100], out[1100];
    snprintf(json, sizeof json, "%s/neg.json", dir);
    snprintf(db, sizeof db, "%s/neg.db", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    const char *trace = "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":-5.001,\"dur\":0.004},"
                        "{\"ph\":\"X\",\"name\":\"n2\",\"pid\":1,\"tid\":1,\"ts\":-0.003,\"dur\":1},"
                        "{\"ph\":\"X\",\"name\":\"big\",\"pid\":1,\"tid\":1,\"ts\":1234567890123.456,\"dur\":0},"
                        "{\"ph\":\"i\",\"name\":\"m\",\"pid\":1,\"tid\":2,\"ts\":-1234567.891,\"s\":\"p\"}]}";
    write_file(json, trace, (long)strlen(trace));
    cr_assert_eq(import_to(json, db), 0);
    cr_assert_eq(run("'%s' export chrome '%s' -o '%s'", tracedb(), db, out), 0);
    long n;
    char *text = read_file(out, &n);
    const char *want[] = {"\"ts\":-5.001,\"dur\":0.004", "\"ts\":-0.003,\"dur\":1.000", "\"ts\":1234567890123.456,\"dur\":0.000",
                          "\"ts\":-1234567.891"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_expect(strstr(text, want[i]), "%s not in the export:\n%s", want[i], text);
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A stranger's database may hold reals JSON cannot write (SQLite keeps 9e999 as infinity): the Chrome
 * export writes such an arg as null, so the file still parses (cJSON here); finite ones stay numbers. */
Test(export, chrome_writes_a_real_that_is_not_finite_as_null)
{
    char *dir = temp_dir(), db[1100], out[1100];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(out, sizeof out, "%s/out.json", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    sqlite3 *d;
    cr_assert_eq(sqlite3_open(db, &d), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(d, "UPDATE kernel_launch SET occupancy_pct = 9e999, blocks_per_sm = -9e999 "
                                 "WHERE event_id = (SELECT min(event_id) FROM kernel_launch)", NULL, NULL, NULL), SQLITE_OK);
    int64_t victim = db_int(d, "SELECT min(event_id) FROM kernel_launch");
    sqlite3_close(d);
    cr_assert_eq(run("'%s' export chrome '%s' -o '%s'", tracedb(), db, out), 0);
    char *text = read_file(out, NULL);
    cJSON *doc = cJSON_Parse(text), *e;
    cr_assert(doc, "the export does not parse as JSON");
    int nulls = 0, numbers = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(doc, "traceEvents"))
    {
        const cJSON *args = cJSON_GetObjectItem(e, "args"), *occ = args ? cJSON_GetObjectItem(args, "est. achieved occupancy %") : NULL;
        if (!occ)
            continue;
        if (cJSON_IsNull(occ)) {
            nulls++;
            cr_expect(cJSON_IsNull(cJSON_GetObjectItem(args, "blocks per SM")));
        } else
            numbers += cJSON_IsNumber(occ);
    }
    cr_expect(nulls == 1 && numbers > 10, "%d nulls, %d numbers (event %lld edited)", nulls, numbers, (long long)victim);
    cJSON_Delete(doc);
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* --query is one statement: a second after it (SELECT 1; DELETE FROM meta) is refused, not left unrun in
 * silence with exit 0; a trailing semicolon or comment is no statement. The database is as it was. */
Test(export, csv_query_with_a_second_statement_is_refused)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    static const char *const queries[] = {"SELECT 1; DELETE FROM meta", "SELECT 1; SELECT 2", "SELECT 1; ATTACH 'x.db' AS x"};
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++) {
        int st;
        char *text = run_capture(&st, "cd '%s' && cksum < a.db > before && '%s' export csv a.db --query \"%s\" 2>&1; "
                                      "echo rc=$?; cksum < a.db | cmp -s - before && echo same",
                                 dir, tracedb(), queries[i]);
        cr_expect(strstr(text, "--query must be one statement") && strstr(text, "rc=1\n"), "%s: refused: %s", queries[i],
                  text);
        cr_expect(strstr(text, "same\n"), "%s: the database as it was: %s", queries[i], text);
        free(text);
    }
    int st;
    char *text = run_capture(&st, "cd '%s' && '%s' export csv a.db --query 'SELECT 1 AS n; -- the end' 2>&1", dir, tracedb());
    cr_expect_eq(st, 0, "%s", text);
    cr_expect_str_eq(text, "n\r\n1\r\n", "one statement and a comment: its rows");
    free(text);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* The command a missing table's or kind's message suggests runs as typed, whatever the database's name. */
Test(export, the_listing_a_message_suggests_runs_as_typed)
{
    char *dir = temp_dir(), db[600];
    snprintf(db, sizeof db, "%s/a.db", dir);
    cr_assert_eq(import_to(src_path("tests/data/kineto/critical_path_alexnet_trace.json.gz"), db), 0);
    cr_assert_eq(run("cd '%s' && mv -- a.db \"-it's a.db\"", dir), 0); /* a name the shell must be given quoted */
    static const char *const asks[] = {"csv --table no_such -- \"$db\"", "chrome -o k.json --kinds kernel,no_such -- \"$db\""};
    static const char *const listed[] = {"event_pack_less", "memset"}; /* a table; a kind */
    for (size_t i = 0; i < 2; i++) {
        int st;
        char *said = run_capture(&st, "cd '%s' && db=\"$(ls)\" && '%s' export %s 2>&1 >/dev/null", dir, tracedb(), asks[i]);
        cr_expect_neq(st, 0, "%s", said);
        const char *see = strstr(said, "(see: tracedb ");
        cr_assert(see && strchr(see, '\n'), "%s", said);
        char cmd[1500];
        snprintf(cmd, sizeof cmd, "%.*s", (int)(strchr(see, '\n') - see - 15), see + 14); /* "sql DB \"QUERY\"" */
        free(said);
        char *out = run_capture(&st, "cd '%s' && '%s' %s 2>&1", dir, tracedb(), cmd);
        cr_expect_eq(st, 0, "%s: %s", cmd, out);
        cr_expect(strstr(out, listed[i]), "%s lists %s: %s", cmd, listed[i], out);
        free(out);
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

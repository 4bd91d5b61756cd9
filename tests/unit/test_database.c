/* test_database.c: the database an import writes, worked by hand: an existing one never clobbered,
 * standard input and the legacy array, foreign files refused, counters, spans, rows batched and grouped
 * keeping every column, flows riding in their event's row, launches' reals, meta's event count. */
#include "input_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

Test(database, existing_database_is_never_clobbered)
{
    struct fixture f = fx_new("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    long n1;
    char *before = read_file(f.db, &n1);
    cr_assert_neq(fx_import(&f, ""), 0, "refuses without --force/--append");
    cr_assert(err_has(&f, "--force"));
    char saved[1024];
    snprintf(saved, sizeof saved, "%s", f.trace);
    snprintf(f.trace, sizeof f.trace, "%s/missing.json", f.dir);
    cr_assert_neq(fx_import(&f, "--force"), 0, "a failed --force");
    long n2;
    char *after = read_file(f.db, &n2);
    cr_assert(n1 == n2 && memcmp(before, after, (size_t)n1) == 0, "leaves the old database as it was");
    free(before);
    free(after);
    snprintf(f.trace, sizeof f.trace, "%s", saved);
    cr_assert_eq(fx_import(&f, "--append"), 1, "the same trace again is refused");
    cr_assert_eq(fx_import(&f, "--append --allow-duplicate"), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM trace"), 2);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 2);
    cr_assert_eq(file_int(f.db, "SELECT count(DISTINCT thread_id) FROM event"), 2, "each trace has its own tracks");
    cr_assert_eq(fx_import(&f, "--force"), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM trace"), 1);
    fx_free(&f);
}

Test(database, standard_input_and_legacy_array)
{
    struct fixture f = fx_new(NULL, "json");
    cr_assert_eq(run("gzip -dc '%s' | '%s' import -q - -o '%s'", src_path("samples/train_schedule.json.gz"), tracedb(),
                     f.db), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM steps"), 3);
    cr_assert_eq(file_int(f.db, "SELECT value = 'chrome-array' FROM meta WHERE key = 'source_format'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 390);
    fx_free(&f);
}

Test(database, tracedb_reports_refuse_foreign_files)
{
    struct fixture f = fx_new("not a database", "json");
    int st;
    char *out = run_capture(&st, "'%s' summary '%s' 2>&1", tracedb(), f.trace);
    cr_assert_neq(st, 0);
    cr_assert(strstr(out, f.trace), "%s", out);
    free(out);
    fx_free(&f);
}

Test(database, counter_events_become_one_series_per_arg)
{
    struct fixture f = fx_new("[{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":1,\"ts\":1,\"args\":{\"a\":1,\"b\":2.5}},"
                              "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":1,\"ts\":2,\"args\":{\"a\":3}},"
                              "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"tid\":1,\"ts\":3,\"args\":{\"q\\\"t\\u0001\":7}}]", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM counter"), 4);
    /* a key with escapes keeps them, as JSON writes them */
    cr_assert_eq(file_int(f.db, "SELECT c.value FROM counter c JOIN string n ON n.id = c.name_id WHERE n.value = 'mem.q\\\"t\\u0001'"), 7);
    cr_assert_eq(file_int(f.db, "SELECT sum(c.value) FROM counter c JOIN string n ON n.id = c.name_id WHERE n.value = 'mem.a'"), 4);
    cr_assert_eq(file_int(f.db, "SELECT c.ts_ns FROM counter c JOIN string n ON n.id = c.name_id WHERE n.value = 'mem.b'"), 1000);
    cr_assert_eq(file_int(f.db, "SELECT c.value * 10 FROM counter c JOIN string n ON n.id = c.name_id WHERE n.value = 'mem.b'"), 25);
    fx_free(&f);
}

/* Furiosa-style spans: an unknown category stays a kind of its own, except operators (operator_index),
 * which are operators wherever they come from; latency finds spans of any kind by name. */
Test(database, furiosa_spans)
{
    struct fixture f = fx_new("[{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"inference\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                              "{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"inference\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":300},"
                              "{\"ph\":\"X\",\"cat\":\"NPU\",\"name\":\"Conv\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":50,"
                              "\"args\":{\"operator_index\":3}},"
                              "{\"ph\":\"X\",\"cat\":\"NPU Execution\",\"name\":\"exec\",\"pid\":2,\"tid\":0,\"ts\":20,\"dur\":40,"
                              "\"args\":{\"pe_index\":0,\"execution_index\":7}}]", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM ops WHERE name = 'Conv' AND json_extract(args, '$.operator_index') = 3"), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events WHERE kind = 'npu execution' AND name = 'exec'"), 1);
    int st;
    char *out = run_capture(&st, "'%s' latency '%s' --name inference --format csv", tracedb(), f.db);
    cr_assert_eq(st, 0);
    cr_assert(strstr(out, "inference,2,100000,300000,200000,200000,"), "%s", out);
    free(out);
    fx_free(&f);
}

/* Rows are written many to a statement, host rows (no GPU fields) with a shorter one: every column of
 * every row must still land on its own row. 100 events: CPU ops with a category and args, and from the
 * 65th on every 7th a kernel (so both statements and single rows are used). Expected values come from
 * the generating formula. */
Test(database, batched_rows_keep_every_column)
{
    char json[32768];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n");
    for (int i = 0; i < 100; i++) {
        if (i >= 64 && i % 7 == 3)
            n += (size_t)snprintf(json + n, sizeof json - n,
                                  "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,"
                                  "\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}\n",
                                  i ? "," : "", i, i * 10, i + 1000);
        else
            n += (size_t)snprintf(json + n, sizeof json - n,
                                  "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e%d\",\"pid\":1,\"tid\":1,\"ts\":%d,"
                                  "\"dur\":5,\"args\":{\"k\":%d}}\n",
                                  i ? "," : "", i, i * 10, i);
    }
    snprintf(json + n, sizeof json - n, "]}");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events"), 100);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events WHERE kind = 'op' AND name = 'e' || (start_ns / 10000) AND "
                         "dur_ns = 5000 AND self_ns = 5000 AND json_extract(args, '$.k') = start_ns / 10000 AND "
                         "cat = 'cpu_op' AND parent_id IS NULL AND depth = 0 AND device IS NULL AND stream IS NULL AND "
                         "correlation IS NULL AND bytes IS NULL AND launch_id IS NULL AND tid = 1"), 95);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events WHERE kind = 'kernel' AND name = 'k' || (start_ns / 10000) AND "
                         "dur_ns = 4000 AND device = 0 AND stream = 7 AND correlation = start_ns / 10000 + 1000 AND "
                         "cat = 'kernel' AND tid = 7"), 5);
    fx_free(&f);
}

/* Launch configurations, memory records and loose flow halves go to the database GROUP_ROWS (32) to a
 * statement: 100 of each (three full groups and a remainder of 4) keep every column and, for flows,
 * the file's order in their ids (each half 1 us after its kernel: no row carries it). */
Test(database, grouped_rows_keep_every_column_and_their_order)
{
    static char json[200000];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":4,"
                              "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d,\"grid\":[%d,2,3],\"block\":[4,5,%d],"
                              "\"registers per thread\":%d,\"shared memory\":%d}},\n"
                              "{\"ph\":\"f\",\"id\":%d,\"pid\":0,\"tid\":7,\"ts\":%d.001,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
                              "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
                              "\"ts\":%d,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":%d,\"Bytes\":%d,"
                              "\"Total Allocated\":%d,\"Total Reserved\":%d}}",
                              i ? ",\n" : "", i * 10, i + 1000, i + 1, i + 6, i + 7, i + 8, i + 1000, i * 10, i * 10 + 5,
                              i + 9, i + 10, i + 11, i + 12);
    snprintf(json + n, sizeof json - n, "]}");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    /* row i's values, worked from i by the formulas above */
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM kernel_launch l JOIN event e ON e.id = l.event_id WHERE "
                         "l.grid_x = e.start_ns / 10000 + 1 AND grid_y = 2 AND grid_z = 3 AND block_x = 4 AND block_y = 5 "
                         "AND block_z = e.start_ns / 10000 + 6 AND registers = e.start_ns / 10000 + 7 AND "
                         "shared_mem = e.start_ns / 10000 + 8"), 100);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM memory_event m JOIN event e ON e.id = m.event_id WHERE "
                         "m.addr = (e.start_ns - 5000) / 10000 + 9 AND total_allocated = (e.start_ns - 5000) / 10000 + 11 "
                         "AND total_reserved = (e.start_ns - 5000) / 10000 + 12 AND device_type = 1 AND "
                         "e.bytes = (e.start_ns - 5000) / 10000 + 10"), 100);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM flow_loose WHERE flow_id = id + 999 AND ts_ns = (id - 1) * 10000 + 1 AND phase = 'f' "
                         "AND bind_enclosing = 1"), 100);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM flow"), 100);
    fx_free(&f);
}

/* A flow half that comes right after its event, on its track at its start with the event's correlation
 * for id, rides in the event's row (event.flow); every other half is a row of flow_loose, and the view
 * flow lists them all as the file gave them. Worked by hand: of 8 halves, the s after the launch and the
 * f after the kernel ride; a second half after the kernel, one at another time, one with another id, one
 * before its event, one after an event with no correlation and one with no category are loose. The
 * export writes each riding half right after its event, so that importing it again carries it again. */
Test(database, flow_halves_right_after_their_event_ride_in_its_row)
{
    static const char json[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":2,\"args\":{\"correlation\":7}},\n"
        "{\"ph\":\"s\",\"id\":7,\"pid\":1,\"tid\":1,\"ts\":5,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}},\n"
        "{\"ph\":\"f\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
        "{\"ph\":\"t\",\"id\":7,\"pid\":0,\"tid\":7,\"ts\":10,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":8}},\n"
        "{\"ph\":\"f\",\"id\":8,\"pid\":0,\"tid\":7,\"ts\":21,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":9}},\n"
        "{\"ph\":\"f\",\"id\":10,\"pid\":0,\"tid\":7,\"ts\":30,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
        "{\"ph\":\"f\",\"id\":11,\"pid\":0,\"tid\":8,\"ts\":40,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k4\",\"pid\":0,\"tid\":8,\"ts\":40,\"dur\":4,\"args\":{\"device\":0,\"stream\":8,\"correlation\":11}},\n"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":5},\n"
        "{\"ph\":\"s\",\"id\":12,\"pid\":1,\"tid\":1,\"ts\":50,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"},\n"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":2,\"args\":{\"correlation\":13}},\n"
        "{\"ph\":\"s\",\"id\":13,\"pid\":1,\"tid\":1,\"ts\":60,\"name\":\"ac2g\"}]}";
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    char again[600], out[600];
    snprintf(out, sizeof out, "%s/export.json", f.dir);
    snprintf(again, sizeof again, "%s/again.db", f.dir);
    cr_assert_eq(run("'%s' export chrome '%s' -o '%s'", tracedb(), f.db, out), 0);
    cr_assert_eq(import_to(out, again), 0);
    const char *dbs[] = {f.db, again};
    for (int i = 0; i < 2; i++) {
        const char *db = dbs[i];
        cr_assert_eq(file_int(db, "SELECT count(*) FROM flow"), 8, "%s", db);
        cr_assert_eq(file_int(db, "SELECT count(*) FROM flow_loose"), 6, "%s", db);
        cr_assert_eq(file_int(db, "SELECT count(*) FROM event WHERE flow IS NOT NULL"), 2, "%s", db);
        /* the rows carrying them, their values worked from the file */
        cr_assert_eq(file_int(db, "SELECT count(*) FROM event e JOIN string n ON n.id = e.name_id WHERE n.value = 'cudaLaunchKernel' "
                           "AND e.start_ns = 5000 AND e.flow = (SELECT id FROM string WHERE value = 'ac2g') * 8 + 1"), 1, "%s", db);
        cr_assert_eq(file_int(db, "SELECT count(*) FROM event e JOIN string n ON n.id = e.name_id WHERE n.value = 'k' "
                           "AND e.flow = (SELECT id FROM string WHERE value = 'ac2g') * 8 + 4 + 3"), 1, "%s", db);
        /* the view gives them as the file did */
        cr_assert_eq(file_int(db, "SELECT count(*) FROM flow f JOIN thread t ON t.id = f.thread_id JOIN process p ON p.id = t.process_id "
                           "JOIN string c ON c.id = f.cat_id WHERE f.event_id IS NOT NULL AND c.value = 'ac2g' AND f.flow_id = 7 AND "
                           "((f.phase = 's' AND f.bind_enclosing = 0 AND f.ts_ns = 5000 AND p.pid = 1 AND t.tid = 1) OR "
                           "(f.phase = 'f' AND f.bind_enclosing = 1 AND f.ts_ns = 10000 AND p.pid = 0 AND t.tid = 7))"), 2, "%s", db);
        sqlite3 *d = db_open(db);
        char *loose = db_text(d, "SELECT group_concat(f.phase || f.flow_id || '@' || p.pid || '/' || t.tid || '@' || f.ts_ns || "
                                 "'/' || coalesce(c.value, '-') || '/' || f.bind_enclosing, ' ') FROM (SELECT * FROM flow_loose ORDER BY id) f "
                                 "JOIN thread t ON t.id = f.thread_id JOIN process p ON p.id = t.process_id "
                                 "LEFT JOIN string c ON c.id = f.cat_id");
        cr_assert_str_eq(loose, "t7@0/7@10000/ac2g/0 f8@0/7@21000/ac2g/1 f10@0/7@30000/ac2g/1 f11@0/8@40000/ac2g/1 "
                                "s12@1/1@50000/fwdbwd/0 s13@1/1@60000/-/0", "%s", db);
        free(loose);
        sqlite3_close(d);
    }
    fx_free(&f);
}

/* A kernel's real-valued launch fields are read without strtod when the text is a plain decimal that a
 * double division gives exactly (json: chrome_events.c's plain_decimal) and with strtod otherwise: every
 * value must be the double the compiler makes of the same text, to the last bit, on both sides of the
 * line (19 digits, 2^53, 22 places, exponents; not -0.0, which SQLite keeps as 0). */
Test(database, launch_reals_are_the_nearest_doubles)
{
    static const struct {
        const char *text;
        double want;
    } v[] = {
        {"0.3", 0.3}, {"170.2", 170.2}, {"2", 2}, {"0.1", 0.1}, {"-0.5", -0.5}, {"0", 0}, {"1.2", 1.2},
        {"0.0000000000000000000001", 0.0000000000000000000001}, /* 22 places: the last fast one */
        {"0.00000000000000000000001", 0.00000000000000000000001}, /* 23: strtod */
        {"9007199254740991", 9007199254740991.0}, /* 2^53 - 1: fast */
        {"9007199254740993", 9007199254740993.0}, /* 2^53 + 1: strtod rounds it to even */
        {"1234567890123456789", 1234567890123456789.0}, {"12345678901234567890", 12345678901234567890.0},
        {"3.141592653589793238", 3.141592653589793238}, {"-12.5", -12.5}, {"1e3", 1e3}, {"2.5E-3", 2.5E-3},
        {"123456.789012", 123456.789012}, {"0.000001", 0.000001}, {"99.99999999999999", 99.99999999999999},
    };
    size_t count = sizeof v / sizeof v[0];
    char json[16384];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < count; i++)
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%zu,\"dur\":1,"
                              "\"args\":{\"grid\":[1,1,1],\"blocks per SM\":%s,\"warps per SM\":%s,"
                              "\"est. achieved occupancy %%\":%s}}\n",
                              i ? "," : "", i * 10, v[i].text, v[i].text, v[i].text);
    snprintf(json + n, sizeof json - n, "]}");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    sqlite3 *d = db_open(f.db);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT blocks_per_sm, warps_per_sm, occupancy_pct FROM kernel_launch l "
                                       "JOIN event e ON e.id = l.event_id ORDER BY e.start_ns", -1, &st, NULL), SQLITE_OK);
    size_t rows = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; rows++)
        for (int c = 0; c < 3; c++) {
            double got = sqlite3_column_double(st, c);
            cr_expect(memcmp(&got, &v[rows].want, sizeof got) == 0, "%s read as %.17g, not %.17g", v[rows].text, got,
                      v[rows].want);
        }
    sqlite3_finalize(st);
    sqlite3_close(d);
    cr_assert_eq(rows, count);
    fx_free(&f);
}

/* meta's event_count is the event table's row count however the database was made: a fresh import takes
 * the count of rows it wrote (count(*) reads every page of the table), an append counts them. */
static void event_count_is_the_rows(const char *db, const char *how)
{
    int64_t said = file_int(db, "SELECT value FROM meta WHERE key = 'event_count'");
    int64_t rows = file_int(db, "SELECT count(*) FROM event");
    cr_assert(rows > 0 && said == rows, "%s: meta says %lld events, the table holds %lld", how, (long long)said,
              (long long)rows);
}

static void real_trace_event_count(const char *path, void *ctx)
{
    char db[1024];
    snprintf(db, sizeof db, "%s/one.db", (const char *)ctx);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' --force 2>/dev/null", tracedb(), path, db), 0);
    event_count_is_the_rows(db, path);
}

Test(database, meta_event_count_is_the_rows_count_fresh_appended_and_cut)
{
    char *dir = temp_dir();
    cr_assert_geq(each_real_trace(real_trace_event_count, dir), 17);
    char db[1024];
    snprintf(db, sizeof db, "%s/several.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' '%s' '%s' -o '%s' 2>/dev/null", tracedb(), src_path("tests/data/kineto/trace_diff_test_test.json.gz"),
                     src_path("tests/data/kineto/cpu_only_rank-34.json.gz"), src_path("tests/data/kineto/call_stack_backward_thread.json"),
                     db), 0);
    event_count_is_the_rows(db, "three traces at once");
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' --append 2>/dev/null", tracedb(), src_path("tests/data/kineto/timeline_analysis_sampled_rank-0.json.gz"),
                     db), 0);
    event_count_is_the_rows(db, "appended");
    char *full = hundred_events(), cut[1024];
    snprintf(cut, sizeof cut, "%s/cut.json", dir);
    write_file(cut, full, (long)strlen(full) - 40); /* the last events cut off: a partial import */
    free(full);
    snprintf(db, sizeof db, "%s/cut.db", dir);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' 2>/dev/null", tracedb(), cut, db), 1);
    event_count_is_the_rows(db, "cut short");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* test_nesting_stream.c: nesting as rows stream in (stream_nest.c), worked by hand: a thread's later
 * runs nesting among its earlier ones, a GPU stream going back, overlaps met again, rows left to the
 * rewrite, streaming against the sweep (by hand and on the real traces), the order of events at one
 * start, a thread going back at every event staying linear. */
#include "input_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* PyTorch's order on one thread: its operators (P holding A and B), then its [memory] instants, then its
 * launches, each run in time order. The later runs are nested among the earlier ones as they come (read
 * back from the frame log): only A and B change (a launch inside each takes from its self time), fixed
 * as the launches come; nothing is left to the end's rewrite. Worked by hand: every parent, depth and
 * self time. */
static const char three_runs_trace[] = "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":40},"
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
        "\"args\":{\"Bytes\":64,\"Device Type\":0}},"
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":70,"
        "\"args\":{\"Bytes\":-64,\"Device Type\":0}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10,"
        "\"args\":{\"correlation\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":55,\"dur\":10,"
        "\"args\":{\"correlation\":2}}]}";

/* three_runs_trace imported (alone or after another trace): none of its 7 rows rewritten at the end, and
 * every parent, depth and self time as worked by hand. */
static void check_three_runs(const struct fixture *f)
{
    cr_assert(err_has(f, "0 rows to rewrite of 7"), "the later runs were not nested as they came");
    cr_assert_eq(file_int(f->db, "SELECT count(*) FROM events WHERE name = 'P' AND parent_id IS NULL AND depth = 0 AND self_ns = 30000"), 1);
    cr_assert_eq(file_int(f->db, "SELECT count(*) FROM events c JOIN events p ON p.id = c.parent_id WHERE p.name = 'P' AND "
                          "c.depth = 1 AND ((c.name = 'A' AND c.self_ns = 20000) OR (c.name = 'B' AND c.self_ns = 30000))"), 2);
    cr_assert_eq(file_int(f->db, "SELECT count(*) FROM events c JOIN events p ON p.id = c.parent_id WHERE c.depth = 2 AND "
                          "((p.name = 'A' AND c.start_ns IN (15000, 30000)) OR (p.name = 'B' AND c.start_ns IN (55000, 70000)))"), 4);
}

Test(nesting, later_runs_of_a_thread_nest_among_its_first_as_they_come)
{
    struct fixture f = fx_new(three_runs_trace, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    check_three_runs(&f);
    fx_free(&f);
}

/* The same thread as the second trace of a database whose first holds 300 threads: its track id is past
 * the frame log's 256 places, which are given to tracks in the order they come, trace by trace. */
Test(nesting, later_runs_nest_as_they_come_after_a_trace_of_many_threads)
{
    char many[32768];
    size_t n = (size_t)snprintf(many, sizeof many, "{\"traceEvents\":[");
    for (int i = 1; i <= 300; i++)
        n += (size_t)snprintf(many + n, sizeof many - n, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"t\",\"pid\":1,"
                              "\"tid\":%d,\"ts\":%d,\"dur\":1}", i > 1 ? "," : "", i, i);
    snprintf(many + n, sizeof many - n, "]}");
    struct fixture f = fx_new(many, "json");
    char second[1100], quoted[1104];
    snprintf(second, sizeof second, "%s/three_runs.json", f.dir);
    write_file(second, three_runs_trace, (long)strlen(three_runs_trace));
    snprintf(quoted, sizeof quoted, "'%s'", second);
    cr_assert_eq(fx_import_timed(&f, quoted), 0);
    check_three_runs(&f);
    fx_free(&f);
}

/* A thread in three runs: its operators P > Q, then its launches L1 and L2, then its instants m1 (inside
 * L1, a frame of the second run, read back from the log with the first's) and m2. Everything nests as
 * it comes, P's self time fixed as the launches come: nothing is left to the end's rewrite. With
 * `hold`, a range on another thread, open until the end, keeps every row in the reorder buffer: P's
 * row is fixed there, before it is written. Worked by hand (the sweep: P > L1 > m1, P > m2, P > L2,
 * P > Q; P's self time 100 - 20 - 10 - 10 us). */
static void check_third_run_among_the_second(int hold)
{
    char json[2048];
    snprintf(json, sizeof json, "{\"traceEvents\":[%s"
        "{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"name\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"L1\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},"
        "{\"ph\":\"X\",\"name\":\"L2\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":10},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m1\",\"pid\":1,\"tid\":1,\"ts\":20},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m2\",\"pid\":1,\"tid\":1,\"ts\":50}]}",
        hold ? "{\"ph\":\"X\",\"name\":\"hold\",\"pid\":1,\"tid\":9,\"ts\":0,\"dur\":1000}," : "");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, hold ? "0 rows to rewrite of 7" : "0 rows to rewrite of 6"), "a row was left to the rewrite");
    const struct nested want[] = {
        {"P", NULL, 0, 60}, {"Q", "P", 1, 10}, {"L1", "P", 1, 20}, {"L2", "P", 1, 10}, {"m1", "L1", 2, 0}, {"m2", "P", 1, 0},
    };
    assert_nested(f.db, want, sizeof want / sizeof want[0], hold ? "rows held" : "rows written");
    fx_free(&f);
}

Test(nesting, a_third_run_nests_among_the_second_runs_frames)
{
    check_third_run_among_the_second(0);
}

Test(nesting, a_third_run_nests_among_the_second_runs_frames_while_rows_wait)
{
    check_third_run_among_the_second(1);
}

/* A GPU stream that goes back in time (as in 4 of the 17 real traces): an annotation [0,100) holding
 * k1 [50,60), then k0 [10,20) before it. The stream's first run is logged like a thread's: k0 finds its
 * annotation as it comes, whose self time is fixed; nothing is left to the rewrite. Worked by hand. */
Test(nesting, a_gpu_stream_going_back_nests_as_it_comes)
{
    const struct nested want[] = {{"ann", NULL, 0, 80}, {"k1", "ann", 1, 10}, {"k0", "ann", 1, 10}};
    struct fixture f = nested_by_hand("{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ann\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":10,"
        "\"args\":{\"device\":0,\"stream\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k0\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":10,"
        "\"args\":{\"device\":0,\"stream\":7}}]}", "0 rows to rewrite of 3", want, sizeof want / sizeof want[0],
        "a GPU stream");
    fx_free(&f);
}

/* Overlaps are counted once, as the sweep counts them: B starts inside A and outlives it (one overlap,
 * in the first run); C, a second run, nests in A; when the end merges B back in, B ends A again, which
 * must not count twice. Worked by hand: A's self time 10 - 1 us, nothing left to the rewrite. */
Test(nesting, an_overlap_met_again_in_a_later_run_counts_once)
{
    const struct nested want[] = {{"A", NULL, 0, 9}, {"B", NULL, 0, 15}, {"C", "A", 1, 1}};
    struct fixture f = nested_by_hand("{\"traceEvents\":["
        "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":15},"
        "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]}", "0 rows to rewrite of 3", want,
        sizeof want / sizeof want[0], "an overlap across runs");
    cr_assert_eq(file_int(f.db, "SELECT overlaps FROM trace"), 1);
    fx_free(&f);
}

/* An earlier run's row inside a later run's event: the instant m (first run, in P) lies inside the
 * launch L (second run), so the sweep makes L its parent. The row of m was written with P: the track
 * turns dirty and the end's rewrite writes the sweep's values over its rows. Worked by hand. */
Test(nesting, an_earlier_row_inside_a_later_event_leaves_its_track_to_the_rewrite)
{
    const struct nested want[] = {{"P", NULL, 0, 90}, {"L", "P", 1, 10}, {"m", "L", 2, 0}};
    struct fixture f = nested_by_hand("{\"traceEvents\":["
        "{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":20},"
        "{\"ph\":\"X\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":10}]}", "3 rows to rewrite of 3", want,
        sizeof want / sizeof want[0], "rewritten");
    fx_free(&f);
}

/* Imports trace into a.db as it streams in and into b.db with TRACEDB_NEST=sweep (every track left to
 * the end-of-trace sweep, nesting.c: the one rule, with no reorder buffer, frame log or fixes); every
 * event's parent, depth, self time and launch, every per-name sum (self times, and device time and
 * memory through the call paths: where no track is dirty the stream finds them and the sweep does not
 * run) and the overlaps counted must come out the same. */
static void check_stream_equals_sweep(const char *trace, const char *dir)
{
    char a[1024], b[1024], sql[4096];
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    cr_assert_eq(run("rm -f '%s' '%s' && '%s' import -q '%s' -o '%s' && TRACEDB_NEST=sweep '%s' import -q '%s' -o '%s'",
                     a, b, tracedb(), trace, a, tracedb(), trace, b), 0, "%s", trace);
    sqlite3 *d = db_open(a);
    snprintf(sql, sizeof sql, "ATTACH '%s' AS s", b);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK);
    const char *rows = "SELECT id, parent_id, depth, self_ns, launch_id FROM %s.event";
    const char *stats = "SELECT kind, name_id, device, calls, total_ns, self_ns, min_ns, max_ns FROM %s.event_stats";
    for (int k = 0; k < 2; k++) {
        char x[512], y[512];
        snprintf(x, sizeof x, k ? stats : rows, "main");
        snprintf(y, sizeof y, k ? stats : rows, "s");
        snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM (%s EXCEPT %s)) + (SELECT count(*) FROM (%s EXCEPT %s))", x,
                 y, y, x);
        cr_assert_eq(db_int(d, sql), 0, "%s: %s differ between streaming and the sweep alone", trace, k ? "sums" : "rows");
    }
    cr_assert_eq(db_int(d, "SELECT count(*) FROM main.trace a JOIN s.trace b USING (id, overlaps)"),
                 db_int(d, "SELECT count(*) FROM s.trace"), "%s: overlaps differ", trace);
    cr_assert_gt(db_int(d, "SELECT count(*) FROM s.event"), 0);
    sqlite3_close(d);
}

/* A track that goes back in time, where an earlier run's event (A) gains this run's children whose
 * durations sum past 2^63 (B, C and E overlap: each ends the one before it, and each is A's child): when
 * the merge of A's later neighbour D ends A, the saturated sum turns the track over to the sweep, which
 * freed the earlier runs' reader while the merge still read D from it (found by fuzz_cupti; ASan's
 * use-after-free in the test build). The rows are the sweep's: A's self time is its duration less the
 * children's sum held at 2^63 - 1 (worked by hand), B, C and E are A's children at depth 1. */
Test(nesting, a_saturated_sum_on_a_merged_event_leaves_the_track_to_the_sweep_safely)
{
    char *dir = temp_dir(), trace[1024], db[1100];
    snprintf(trace, sizeof trace, "%s/t.json", dir);
    snprintf(db, sizeof db, "%s/a.db", dir);
    const char *json =
        "{\"traceEvents\":["
        "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":4611686018427000},"
        "{\"ph\":\"X\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":4611686018427100,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":4611686018426000},"
        "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":4611686018426000},"
        "{\"ph\":\"X\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":4611686018426000}]}";
    write_file(trace, json, (long)strlen(json));
    check_stream_equals_sweep(trace, dir);
    sqlite3 *d = db_open(db);
    cr_expect_eq(db_int(d, "SELECT self_ns FROM event e JOIN string n ON n.id = e.name_id WHERE n.value = 'A'"),
                 4611686018427000000LL - INT64_MAX);
    cr_expect_eq(db_int(d, "SELECT count(*) FROM event e JOIN string n ON n.id = e.name_id JOIN event p ON p.id = e.parent_id "
                           "JOIN string pn ON pn.id = p.name_id WHERE n.value IN ('B', 'C', 'E') AND pn.value = 'A' "
                           "AND e.depth = 1 AND e.self_ns = e.dur_ns"),
                 3);
    cr_expect_eq(db_int(d, "SELECT count(*) FROM event WHERE parent_id IS NULL AND depth = 0"), 2);
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Nesting as events stream in (stream_nest.c: the reorder buffer, each thread's runs merged back from
 * the frame log, operators fixed as later children come, tracks turned dirty) against the sweep alone,
 * on the 17 real traces (each goes back in time its own way) and the generator's PyTorch order. */
static void stream_equals_sweep_on(const char *trace, void *dir)
{
    check_stream_equals_sweep(trace, dir);
}

Test(nesting, streaming_gives_the_sweeps_values_on_real_traces, .timeout = 300)
{
    char *dir = temp_dir(), trace[1024];
    int traces = each_real_trace(stream_equals_sweep_on, dir);
    cr_assert_geq(traces, 17, "%d real traces", traces);
    snprintf(trace, sizeof trace, "%s/kineto.json", dir);
    cr_assert_eq(run("'%s' 3 --kineto-order > '%s'", src_path("build/gen_trace"), trace), 0);
    check_stream_equals_sweep(trace, dir);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* Events of no duration at one start, then a longer event at that start (PyTorch writes a [memory]
 * instant or an empty operator before the launch it is in): the sweep puts the longer one first, their
 * parent. It comes ahead of them as it streams in (their rows waited for it), not as a restart: nothing
 * is left to the rewrite, in a roomy reorder buffer or a tiny one (TRACEDB_SORT_KIB=1: rows leave
 * early and it restarts instead). Worked by hand: P > L > m, z; P's self time 100 - 10 us; and every
 * value as the sweep alone gives it, device time and memory through the call paths included. */
static void check_comes_ahead(const char *kib)
{
    const char *json = "{\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
        "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
        "\"ts\":10,\"args\":{\"Bytes\":512,\"Device Type\":1}},"
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"z\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":0},"
        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"L\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,"
        "\"args\":{\"correlation\":7}},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":5,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}}]}";
    struct fixture f = fx_new(json, "json");
    setenv("TRACEDB_SORT_KIB", kib, 1);
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    if (strcmp(kib, "1") != 0)
        cr_assert(err_has(&f, "0 rows to rewrite of 5"), "the launch did not come ahead of the instants");
    const struct nested want[] = {{"P", NULL, 0, 90}, {"L", "P", 1, 10}, {"[memory]", "L", 2, 0}, {"z", "L", 2, 0}};
    assert_nested(f.db, want, sizeof want / sizeof want[0], kib);
    check_stream_equals_sweep(f.trace, f.dir);
    unsetenv("TRACEDB_SORT_KIB");
    fx_free(&f);
}

Test(nesting, a_longer_event_comes_ahead_of_the_instants_at_its_start)
{
    check_comes_ahead("8192");
}

Test(nesting, a_longer_event_comes_ahead_of_the_instants_at_its_start_in_a_tiny_buffer)
{
    check_comes_ahead("1");
}

/* Several events at the instants' start come ahead of them in turn, each no longer than the one before
 * (the sweep's order: E 10, E2 5, E3 3 us, then the instants m and m2): the instants end up in E3, the
 * last; an event longer than the one before (F, 20 us, after E3) cannot come ahead and restarts the
 * track, whose rows the end's sweep writes. Worked by hand. */
Test(nesting, events_at_one_start_come_ahead_of_its_instants_in_turn)
{
    const char *ahead = "{\"traceEvents\":["
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"X\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10},"
        "{\"ph\":\"X\",\"name\":\"E2\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m2\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"X\",\"name\":\"E3\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":3}%s]}";
    char json[2048];
    for (int longer = 0; longer < 2; longer++) {
        snprintf(json, sizeof json, ahead, longer ? ",{\"ph\":\"X\",\"name\":\"F\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20}" : "");
        struct fixture f = fx_new(json, "json");
        cr_assert_eq(fx_import_timed(&f, ""), 0);
        cr_assert(longer ? err_has(&f, "6 rows to rewrite of 6") : err_has(&f, "0 rows to rewrite of 5"),
                  "longer %d: the rewrite went otherwise", longer);
        const struct nested want[] = {{"E", longer ? "F" : NULL, longer, 5}, {"E2", "E", 1 + longer, 2},
                                      {"E3", "E2", 2 + longer, 3}, {"m", "E3", 3 + longer, 0},
                                      {"m2", "E3", 3 + longer, 0}, {"F", NULL, 0, 10}};
        assert_nested(f.db, want, 5 + (size_t)longer, longer ? "F restarts" : "in turn");
        check_stream_equals_sweep(f.trace, f.dir);
        fx_free(&f);
    }
}

/* A thread that goes back in time at every event (60,000 operators, then 60,000 instants each earlier
 * than the one before): each restart may read the first run back only a few times a track, or the import
 * reads it once an event (quadratic: a minute here, where it takes well under a second). Worked by hand:
 * every instant lies 2 us into its operator. */
Test(nesting, a_thread_going_back_at_every_event_stays_linear, .timeout = 15)
{
    enum { N = 60000 };
    size_t cap = (size_t)N * 200, n = 0;
    char *json = malloc(cap);
    cr_assert_not_null(json);
    n += (size_t)snprintf(json + n, cap - n, "{\"traceEvents\":[");
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(json + n, cap - n, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,"
                              "\"ts\":%d,\"dur\":5}", i ? "," : "", i * 10);
    for (int i = N - 1; i >= 0; i--)
        n += (size_t)snprintf(json + n, cap - n, ",{\"ph\":\"i\",\"s\":\"t\",\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":%d}",
                              i * 10 + 2);
    snprintf(json + n, cap - n, "]}");
    struct fixture f = fx_new(json, "json");
    free(json);
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events m JOIN events o ON o.id = m.parent_id WHERE m.name = 'm' AND "
                         "o.name = 'op' AND o.start_ns = m.start_ns - 2000 AND m.depth = 1 AND o.self_ns = 5000"), N);
    fx_free(&f);
}

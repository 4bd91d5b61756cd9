/* test_nesting.c: nesting and self time worked by hand: parents, depths and self times, overlaps, sums
 * by name per device, instants, rows streamed and swept, GPU work linked to launches late or as it
 * comes, PyTorch's order against time order, B/E pairs. */
#include "input_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

Test(nesting, parents_depth_and_self_time_by_hand)
{
    struct fixture f = fx_new(
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},\n"
        "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},\n"
        "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":60},\n"
        "{\"ph\":\"X\",\"name\":\"other\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":1},\n"
        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":1,\"tid\":1,\"ts\":12,\"s\":\"t\"}\n"
        "]}", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    /* outer [0,100) > a [10,30) > b [10,15) > mark @12. c [50,110) outlives outer: not nested (PyTorch
     * closes outer), so c is a root and d [60,70) is c's child. */
    cr_assert_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'outer'"), 80000);
    cr_assert_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'a'"), 15000);
    cr_assert_eq(file_int(f.db, "SELECT depth FROM events WHERE name = 'b'"), 2);
    cr_assert_eq(file_int(f.db, "SELECT e.depth * 10 + (p.name = 'b') FROM events e JOIN events p ON p.id = e.parent_id "
                         "WHERE e.name = 'mark'"), 31);
    cr_assert_eq(file_int(f.db, "SELECT parent_id IS NULL AND depth = 0 FROM events WHERE name = 'c'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'c'"), 50000);
    cr_assert_eq(file_int(f.db, "SELECT p.name = 'c' FROM events e JOIN events p ON p.id = e.parent_id WHERE e.name = 'd'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT parent_id IS NULL FROM events WHERE name = 'other'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT overlaps FROM trace"), 1);
    fx_free(&f);
}

/* Rows are nested as they stream in while their track is in order (stream_nest.c) and by the sweep
 * once a track goes out of order; with TRACEDB_SORT_KIB=1 the reorder buffer holds 64 rows and a long
 * range makes rows leave early. Worked by hand: the same values every way. */
static void check_streamed_and_swept_nesting(const char *kib)
{
    char json[16384];
    size_t o = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n"
        /* tid 1, in order: A [0,100) > B [10,40) > C [15,20); D instant @50 and E [60,100) in A;
         * F [100,110) after A; G [105,125) starts in F and outlives it (an overlap): a root */
        "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30},\n"
        "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":15,\"dur\":5},\n"
        "{\"ph\":\"i\",\"name\":\"D\",\"pid\":1,\"tid\":1,\"ts\":50,\"s\":\"t\"},\n"
        "{\"ph\":\"X\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":40},\n"
        "{\"ph\":\"X\",\"name\":\"F\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"G\",\"pid\":1,\"tid\":1,\"ts\":105,\"dur\":20},\n"
        /* tid 2, I comes after H but starts before it: G2 [0,50) > I [5,35) > H [10,20) */
        "{\"ph\":\"X\",\"name\":\"G2\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},\n"
        "{\"ph\":\"X\",\"name\":\"H\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"I\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":30},\n"
        /* tid 3, equal starts, the shorter first: K [0,20) > J [0,10) */
        "{\"ph\":\"X\",\"name\":\"J\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"K\",\"pid\":1,\"tid\":3,\"ts\":0,\"dur\":20},\n"
        /* tid 4, in order: L [0,1000) holds 150 leaves [5i+1, 5i+3): more than 64 rows wait for L */
        "{\"ph\":\"X\",\"name\":\"L\",\"pid\":1,\"tid\":4,\"ts\":0,\"dur\":1000}");
    for (int i = 0; i < 150; i++)
        o += (size_t)snprintf(json + o, sizeof json - o,
                              ",\n{\"ph\":\"X\",\"name\":\"leaf\",\"pid\":1,\"tid\":4,\"ts\":%d,\"dur\":2}", 5 * i + 1);
    snprintf(json + o, sizeof json - o, "\n]}");
    struct fixture f = fx_new(json, "json");
    setenv("TRACEDB_SORT_KIB", kib, 1);
    cr_assert_eq(fx_import(&f, ""), 0);
    const struct nested want[] = {
        {"A", NULL, 0, 30}, {"B", "A", 1, 25}, {"C", "B", 2, 5}, {"D", "A", 1, 0}, {"E", "A", 1, 40},
        {"F", NULL, 0, 10}, {"G", NULL, 0, 20}, {"G2", NULL, 0, 20}, {"I", "G2", 1, 20}, {"H", "I", 2, 10},
        {"K", NULL, 0, 10}, {"J", "K", 1, 10}, {"L", NULL, 0, 700},
    };
    assert_nested(f.db, want, sizeof want / sizeof want[0], kib);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events e JOIN events p ON p.id = e.parent_id "
                         "WHERE e.name = 'leaf' AND p.name = 'L' AND e.depth = 1 AND e.self_ns = 2000"), 150);
    cr_assert_eq(file_int(f.db, "SELECT overlaps FROM trace"), 1);
    fx_free(&f);
}

/* json imported with its rows nested as they stream in (sweep 0), or by the sweep alone (1: every
 * track dirty, TRACEDB_NEST=sweep): the two must agree. */
static struct fixture imported_nested(const char *json, int sweep)
{
    struct fixture f = fx_new(json, "json");
    if (sweep)
        setenv("TRACEDB_NEST", "sweep", 1);
    cr_assert_eq(fx_import(&f, ""), 0);
    unsetenv("TRACEDB_NEST");
    return f;
}

/* Hand-worked, tid 1 in file order: P [0, 100), Q [80, 137), then back in time (a second run) a launch
 * [10, 30) and L2 [60, 104). The sweep (start order: P, launch, L2, Q): the launch nests in P; L2
 * outlives P, which it pops (an overlap); Q outlives L2, which it pops (a second): 2, L2 and Q roots.
 * As the events stream in, Q popped P in the first run, and L2 (merged in before Q) popped P again:
 * 3 were counted where the sweep counts 2 (found by fuzz_json, which checks the two ways agree). */
Test(nesting, an_overlap_popped_again_by_a_later_runs_event_counts_once)
{
    static const char json[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"name\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":57},\n"
        "{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},\n"
        "{\"ph\":\"X\",\"name\":\"L2\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":44}\n"
        "]}";
    for (int sweep = 0; sweep < 2; sweep++) {
        struct fixture f = imported_nested(json, sweep);
        cr_expect_eq(file_int(f.db, "SELECT overlaps FROM trace"), 2, "sweep %d", sweep);
        cr_expect_eq(file_int(f.db, "SELECT p.name = 'P' FROM events e JOIN events p ON p.id = e.parent_id WHERE e.name = 'launch'"), 1);
        cr_expect_eq(file_int(f.db, "SELECT count(*) FROM events WHERE name IN ('P', 'Q', 'L2') AND parent_id IS NULL"), 3);
        cr_expect_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'P'"), 80000, "sweep %d", sweep);
        fx_free(&f);
    }
}

/* A trace of tid 1: head's events, 40 of 5 us every 10 us from first_ts (rows written to the table
 * before what comes after them), then tail's (each event's line ending ",\n" but the last's "\n"). */
static void with_fillers(char *json, size_t cap, const char *head, int first_ts, const char *tail)
{
    size_t o = (size_t)snprintf(json, cap, "{\"traceEvents\":[\n%s", head);
    for (int i = 0; i < 40; i++)
        o += (size_t)snprintf(json + o, cap - o, "{\"ph\":\"X\",\"name\":\"F\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5},\n",
                              first_ts + 10 * i);
    snprintf(json + o, cap - o, "%s]}", tail);
}

/* Hand-worked, tid 1 in file order: A [0, 1000), 40 events after it (A's row is in the table by the time
 * its fixes come), then back in time twice: B [50, 60), then C [10, 20). Each later run gives A a child:
 * its self time is 1000 - 10 - 10 = 980 us, two fixes of one row written together (self_fixes.c), each
 * taken. Streamed and swept alike. */
Test(nesting, an_operator_given_children_by_two_later_runs_loses_both)
{
    char json[8192];
    with_fillers(json, sizeof json, "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n", 2000,
                 "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10},\n"
                 "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10}\n");
    for (int sweep = 0; sweep < 2; sweep++) {
        struct fixture f = imported_nested(json, sweep);
        cr_expect_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'A'"), 980000, "sweep %d", sweep);
        cr_expect_eq(file_int(f.db, "SELECT count(*) FROM events e JOIN events p ON p.id = e.parent_id "
                                    "WHERE e.name IN ('B', 'C') AND p.name = 'A' AND e.self_ns = 10000"), 2, "sweep %d", sweep);
        fx_free(&f);
    }
}

/* Hand-worked, tid 1 in file order: A [0, 1000), A2 [1000, 2000), 40 events after them (both rows are in
 * the table by the time their fixes come), then back in time: B [50, 60) in A, C [1050, 1070) in A2. A's
 * self time is 990 us, A2's 980 us: rows 1 id apart, fixed by one UPDATE over their range (self_fixes.c).
 * The trace again, appended after a user's trigger on event: with it SQLite updates in two passes
 * (every row's WHERE, then every row's SET), and each row must still take its own fix. */
Test(nesting, nearby_rows_take_their_own_fixes_under_a_users_update_trigger)
{
    char json[8192];
    with_fillers(json, sizeof json,
                 "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},\n"
                 "{\"ph\":\"X\",\"name\":\"A2\",\"pid\":1,\"tid\":1,\"ts\":1000,\"dur\":1000},\n", 3000,
                 "{\"ph\":\"X\",\"name\":\"B\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":10},\n"
                 "{\"ph\":\"X\",\"name\":\"C\",\"pid\":1,\"tid\":1,\"ts\":1050,\"dur\":20}\n");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(f.db, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE audit (event_id INTEGER); CREATE TRIGGER audit_update AFTER UPDATE "
                                  "ON event BEGIN INSERT INTO audit VALUES (NEW.id); END;", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    cr_assert_eq(fx_import(&f, "--append --allow-duplicate"), 0);
    cr_expect_eq(file_int(f.db, "SELECT count(*) FROM events WHERE name = 'A' AND self_ns = 990000"), 2);
    cr_expect_eq(file_int(f.db, "SELECT count(*) FROM events WHERE name = 'A2' AND self_ns = 980000"), 2);
    fx_free(&f);
}

/* The trace of the two tests below: tid 1's P [0, 100) and Q [200, 300), then 80 instants on tid 3, then
 * back in time ten times x [10 + 5i, +2) in P and y [210 + 5i, +2) in Q (the stream gives the track to
 * the sweep), E [400, 410) after them, a kernel (correlation 100) before its launch at 990 us. By hand:
 * P and Q self 80 us, each x and y at depth 1 with 2 us, E a root of 10 us, the kernel linked to the
 * launch (launch_ns 990000). */
static void two_runs_trace(char *json, size_t cap)
{
    size_t o = (size_t)snprintf(json, cap, "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},\n"
        "{\"ph\":\"X\",\"name\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":30,"
        "\"args\":{\"device\":0,\"stream\":7,\"correlation\":100}},\n");
    for (int i = 0; i < 80; i++)
        o += (size_t)snprintf(json + o, cap - o, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"tick\",\"pid\":1,\"tid\":3,\"ts\":%d},\n", i);
    for (int i = 0; i < 10; i++)
        o += (size_t)snprintf(json + o, cap - o,
                              "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2},\n"
                              "{\"ph\":\"X\",\"name\":\"y\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2},\n", 10 + 5 * i, 210 + 5 * i);
    snprintf(json + o, cap - o,
             "{\"ph\":\"X\",\"name\":\"E\",\"pid\":1,\"tid\":1,\"ts\":400,\"dur\":10},\n"
             "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":4,\"ts\":990,"
             "\"dur\":5,\"args\":{\"correlation\":100}}\n]}");
}

/* two_runs_trace's hand-worked rows, counted over `traces` copies of it in f's database. */
static void expect_two_runs_rows(const struct fixture *f, int traces)
{
    static const struct {
        const char *sql;
        int64_t count; /* a trace's */
    } rows[] = {
        {"SELECT count(*) FROM events WHERE name IN ('P', 'Q') AND parent_id IS NULL AND depth = 0 AND self_ns = 80000", 2},
        {"SELECT count(*) FROM events c JOIN events p ON p.id = c.parent_id WHERE p.trace_id = c.trace_id AND c.depth = 1 "
         "AND c.self_ns = 2000 AND ((c.name = 'x' AND p.name = 'P') OR (c.name = 'y' AND p.name = 'Q'))", 20},
        {"SELECT count(*) FROM events WHERE name = 'E' AND parent_id IS NULL AND depth = 0 AND self_ns = 10000", 1},
        {"SELECT count(*) FROM events k JOIN events l ON l.id = k.launch_id JOIN event r ON r.id = k.id WHERE k.name = 'k' "
         "AND l.name = 'cudaLaunchKernel' AND l.trace_id = k.trace_id AND r.launch_ns = 990000 AND k.self_ns = 30000", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        cr_expect_eq(file_int(f->db, rows[i].sql), rows[i].count * traces, "%s", rows[i].sql);
}

static void db_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
    sqlite3_close(db);
}

/* two_runs_trace is rewritten at its end in two runs of rows; appended after a user's UPDATE trigger
 * on event (SQLite then updates a run in two passes: every row's WHERE, then every row's SET), each row
 * still takes its own values. */
Test(nesting, runs_rewritten_at_the_end_under_a_users_update_trigger)
{
    char json[32768];
    two_runs_trace(json, sizeof json);
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, "24 rows to rewrite of 105: runs of rows"), "the end's rewrite went another way");
    db_exec(f.db, "CREATE TRIGGER t AFTER UPDATE ON event BEGIN SELECT 1; END;");
    int rc = fx_import(&f, "--append --allow-duplicate");
    char *err = read_file(f.err, NULL); /* (not err_has: it logs an error, which fails the run, where the text is missing) */
    cr_expect(strstr(err, "internal error") == NULL, "the append said: %s", err);
    free(err);
    cr_assert_eq(rc, 0);
    expect_two_runs_rows(&f, 2);
    fx_free(&f);
}

/* tracedb finish of a trace left importing reads its rows back and rewrites them in one pass, which
 * cannot go back: a trigger firing on that UPDATE stops it before it writes, naming the trigger (the
 * trace stays as it was); an INSERT trigger, whose body updates another table, does not, and finishing
 * gives the hand-worked rows. */
Test(nesting, finish_stops_at_a_users_update_trigger_and_passes_an_insert_trigger)
{
    char json[32768];
    two_runs_trace(json, sizeof json);
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    db_exec(f.db, "UPDATE trace SET status = 'importing'; CREATE TABLE log (x); "
                  "CREATE TRIGGER ti AFTER INSERT ON event BEGIN UPDATE log SET x = 1; END;");
    int st;
    char *out = run_capture(&st, "'%s' finish '%s' 2>&1", tracedb(), f.db);
    cr_expect_eq(st, 0, "%s", out);
    free(out);
    expect_two_runs_rows(&f, 1);
    db_exec(f.db, "UPDATE trace SET status = 'importing'; CREATE TRIGGER \"my t\" AFTER UPDATE OF self_ns ON event BEGIN SELECT 1; END;");
    out = run_capture(&st, "'%s' finish '%s' 2>&1", tracedb(), f.db);
    cr_expect_neq(st, 0);
    cr_expect(strstr(out, "cannot finish trace 1: the trigger \"my t\" on table event") != NULL, "%s", out);
    free(out);
    cr_expect_eq(file_int(f.db, "SELECT status = 'importing' FROM trace"), 1);
    fx_free(&f);
}

/* The per-name sums (event_stats) keep one row per (kind, name, device): the same kernel on two GPUs,
 * met in turn, is two rows. By hand: device 0 runs k for 10 and 5 us, device 64 for 30 and 7 us (64
 * apart: the same slot in ingest_events.c's table of aggregates met lately, which must still tell them apart). */
Test(nesting, sums_by_name_keep_each_device_apart)
{
    static const char json[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10,\"args\":{\"device\":0,\"stream\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":7,\"ts\":20,\"dur\":30,\"args\":{\"device\":64,\"stream\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}},\n"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":1,\"tid\":7,\"ts\":70,\"dur\":7,\"args\":{\"device\":64,\"stream\":7}}\n"
        "]}";
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    sqlite3 *d = db_open(f.db);
    char *got = db_text(d, "SELECT group_concat(device || ':' || calls || ':' || total_ns || ':' || min_ns || ':' || max_ns, ' ') "
                           "FROM (SELECT * FROM event_stats WHERE name_id = (SELECT id FROM string WHERE value = 'k') ORDER BY device)");
    cr_assert(got && strcmp(got, "0:2:15000:5000:10000 64:2:37000:7000:30000") == 0, "%s", got ? got : "none");
    free(got);
    sqlite3_close(d);
    fx_free(&f);
}

/* Hand-worked, tid 1 in file order: an instant I1 at 80, then back in time (a second run) A [10, 30),
 * an instant I2 at 80 and Q [80, 90). The sweep (start order, the longer first at a tie, then file
 * order: A, Q, I1, I2): Q holds both instants. As the events stream in, I2 merged I1 back in (as a
 * root: nothing was open at 80) and then waited for an event to come ahead of it; Q did, but with
 * no earlier run's event left to merge it took I2 alone, and I1 stayed a root (found by fuzz_json).
 * An earlier run's event merged at Q's start makes Q a restart, as while some are left. */
Test(nesting, an_earlier_runs_instant_at_a_later_events_start_nests_in_it)
{
    static const char json[] =
        "{\"traceEvents\":[\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"I1\",\"pid\":1,\"tid\":1,\"ts\":80},\n"
        "{\"ph\":\"X\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":20},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"I2\",\"pid\":1,\"tid\":1,\"ts\":80},\n"
        "{\"ph\":\"X\",\"name\":\"Q\",\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":10}\n"
        "]}";
    const struct nested want[] = {{"A", NULL, 0, 20}, {"Q", NULL, 0, 10}, {"I1", "Q", 1, 0}, {"I2", "Q", 1, 0}};
    for (int sweep = 0; sweep < 2; sweep++) {
        struct fixture f = imported_nested(json, sweep);
        assert_nested(f.db, want, sizeof want / sizeof want[0], sweep ? "the sweep" : "streaming");
        cr_expect_eq(file_int(f.db, "SELECT overlaps FROM trace"), 0);
        fx_free(&f);
    }
}

Test(nesting, streamed_and_swept_rows_by_hand)
{
    check_streamed_and_swept_nesting("8192");
}

Test(nesting, streamed_and_swept_rows_by_hand_with_a_small_reorder_buffer)
{
    check_streamed_and_swept_nesting("1");
}

/* Kernels inside GPU annotations on their stream, 40 of them; `late` of them come before their launch.
 * Right before it (as CUPTI hands them over: at_end 0), a kernel waits in the reorder buffer for its
 * launch and is written with it; when its launch comes after 70 more rows (at_end 1: the launches of
 * the late kernels close the trace on a thread of their own, after a last kernel and 70 instants), it
 * is linked only at the end of the trace. Tid 2 goes out of order (Q before P), so its three rows are
 * rewritten too (the instant R ends P: no row waits in the buffer behind an open P). A late link changes only launch_id: worked by hand, each kernel keeps its annotation
 * as parent. `how` says how many rows the end finds to rewrite (tid 2's three and each late kernel) and
 * how many it changes: all but R, which holds its values already (no parent, depth 0, self 0). */
static void check_late_links(int late, int at_end, const char *how)
{
    char json[32768];
    size_t o = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"name\":\"Q\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":10},\n"
        "{\"ph\":\"X\",\"name\":\"P\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":50},\n"
        "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"R\",\"pid\":1,\"tid\":2,\"ts\":60}");
    for (int i = 0; i < 40; i++) {
        char launch[256];
        int t = 1000 * i;
        snprintf(launch, sizeof launch, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                 "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}}", t, 100 + i);
        if (i >= late)
            o += (size_t)snprintf(json + o, sizeof json - o, "%s", launch);
        o += (size_t)snprintf(json + o, sizeof json - o,
                              ",\n{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ann\",\"pid\":0,\"tid\":7,"
                              "\"ts\":%d,\"dur\":100}"
                              ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":30,"
                              "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%d}}", t + 10, t + 20, 100 + i);
        if (i < late && !at_end)
            o += (size_t)snprintf(json + o, sizeof json - o, "%s", launch);
    }
    if (at_end) /* closes the last annotation: no row waits in the buffer for another reason */
        o += (size_t)snprintf(json + o, sizeof json - o,
                              ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tail\",\"pid\":0,\"tid\":7,\"ts\":50000,\"dur\":1}");
    for (int i = 0; at_end && i < 70; i++)
        o += (size_t)snprintf(json + o, sizeof json - o, ",\n{\"ph\":\"i\",\"s\":\"t\",\"name\":\"tick\",\"pid\":1,\"tid\":3,\"ts\":%d}", i);
    for (int i = 0; at_end && i < late; i++)
        o += (size_t)snprintf(json + o, sizeof json - o,
                              ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":4,"
                              "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}}", 1000 * i, 100 + i);
    snprintf(json + o, sizeof json - o, "\n]}");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, how), "the rewrite went another way than %s", how);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events k JOIN events a ON a.id = k.parent_id "
                         "JOIN events l ON l.id = k.launch_id WHERE k.name = 'k' AND a.name = 'ann' AND a.start_ns = "
                         "k.start_ns - 10000 AND k.depth = 1 AND k.self_ns = 30000 AND l.name = 'cudaLaunchKernel' AND "
                         "l.correlation = k.correlation AND l.start_ns = k.start_ns - 20000"), 40);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events WHERE name = 'ann' AND parent_id IS NULL AND depth = 0 "
                         "AND self_ns = 70000"), 40);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events q JOIN events p ON p.id = q.parent_id WHERE q.name = 'Q' "
                         "AND p.name = 'P' AND q.depth = 1 AND q.self_ns = 10000 AND p.self_ns = 40000 AND p.depth = 0"), 1);
    fx_free(&f);
}

Test(nesting, a_kernel_linked_late_keeps_its_parent)
{
    check_late_links(1, 1, "4 rows to rewrite of 194: runs of rows, 3 written");
}

Test(nesting, kernels_linked_late_keep_their_parents)
{
    check_late_links(40, 1, "43 rows to rewrite of 194: runs of rows, 42 written");
}

/* Each kernel right before its launch: all 40 are written with their launch, only tid 2's three rows
 * are rewritten at the end. */
Test(nesting, kernels_just_before_their_launch_are_written_linked)
{
    check_late_links(40, 0, "3 rows to rewrite of 123: runs of rows, 2 written");
}

/* Launches whose correlations are 65536 apart (and 2^32, 2^48 apart), all before their kernels: each
 * kernel is written with its own launch as it comes (the recent launches' table gives each correlation
 * a slot of its own), none is left to the end's rewrite, and each links to its launch. */
Test(nesting, launches_65536_apart_each_link_their_kernel_as_it_comes)
{
    static const long long corr[] = {5, 65541, 131077, 4294967301LL, 281474976710661LL, 70};
    enum { N = sizeof corr / sizeof corr[0] };
    char json[8192];
    size_t o = (size_t)snprintf(json, sizeof json, "{\"traceEvents\":[\n");
    for (int i = 0; i < N; i++)
        o += (size_t)snprintf(json + o, sizeof json - o,
                              "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                              "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%lld}},\n", 10 * i, corr[i]);
    for (int i = 0; i < N; i++)
        o += (size_t)snprintf(json + o, sizeof json - o,
                              "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":3,"
                              "\"args\":{\"device\":0,\"stream\":7,\"correlation\":%lld}}", i ? ",\n" : "", i, 100 + 10 * i, corr[i]);
    snprintf(json + o, sizeof json - o, "\n]}");
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, "tracedb: 0 rows to rewrite of 12"), "a kernel was left to the end's rewrite");
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM events k JOIN events l ON l.id = k.launch_id JOIN event r ON r.id = k.id "
                         "WHERE k.name LIKE 'k%' AND l.name = 'cudaLaunchKernel' AND l.correlation = k.correlation AND "
                         "r.launch_ns = l.start_ns AND l.start_ns = k.start_ns - 100000"),
                 N);
    fx_free(&f);
}

static void check_same_tables(const struct fixture *f, const char *db2);

/* The bench's generator writes the same events in time order and in PyTorch's order (CPU ops, then
 * [memory] instants, then kernels each before its launch): both are nested as they stream in (in
 * PyTorch's order each later run among the earlier runs read back from the frame log, the operators'
 * self times fixed as their launches come), nothing left to the end-of-trace rewrite. Every event's
 * parent, depth, self time and launch, and every per-name sum, must come out the same. */
Test(nesting, pytorch_order_and_time_order_give_the_same_tables, .timeout = 120)
{
    struct fixture f = fx_new(NULL, "json");
    char kineto[1024], db2[512];
    snprintf(kineto, sizeof kineto, "%s/kineto.json", f.dir);
    snprintf(db2, sizeof db2, "%s/kineto.db", f.dir);
    cr_assert_eq(run("'%s' 3 > '%s' && '%s' 3 --kineto-order > '%s'", src_path("build/gen_trace"), f.trace,
                     src_path("build/gen_trace"), kineto), 0);
    setenv("TRACEDB_TIMING", "1", 1);
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert(err_has(&f, "tracedb: 0 rows to rewrite of"), "the time-ordered trace is nested as it streams in");
    cr_assert_eq(run("'%s' import -q '%s' -o '%s' 2>'%s'", tracedb(), kineto, db2, f.err), 0);
    unsetenv("TRACEDB_TIMING");
    cr_assert(err_has(&f, "tracedb: 0 rows to rewrite of"), "PyTorch's order is nested as it streams in");
    check_same_tables(&f, db2);
    fx_free(&f);
}

/* The generator's layouts of real traces, the same events again: --real-order (the GPU section as
 * CUPTI's buffers, out of time order) and --flows-apart (every kernel and its flow end before every
 * launch and its flow start). Each is the order it says (the file is not another order's) and imports
 * to the time order's tables, whatever the import rewrites at the end to get there. */
Test(nesting, real_trace_orders_and_time_order_give_the_same_tables, .timeout = 120)
{
    struct fixture f = fx_new(NULL, "json");
    const char *gen = src_path("build/gen_trace");
    char real[1024], apart[1024], kineto[1024], db2[512];
    snprintf(real, sizeof real, "%s/real.json", f.dir);
    snprintf(apart, sizeof apart, "%s/apart.json", f.dir);
    snprintf(kineto, sizeof kineto, "%s/kineto.json", f.dir);
    cr_assert_eq(run("'%s' 3 > '%s' && '%s' 3 --real-order > '%s' && '%s' 3 --flows-apart > '%s' && "
                     "'%s' 3 --kineto-order > '%s'", gen, f.trace, gen, real, gen, apart, gen, kineto), 0);
    cr_assert_neq(run("cmp -s '%s' '%s'", real, kineto), 0, "--real-order wrote PyTorch's order");
    cr_assert_neq(run("cmp -s '%s' '%s'", apart, kineto), 0, "--flows-apart wrote PyTorch's order");
    const char *first_kernel = "grep -m1 '\"cat\": \"kernel\"'";
    cr_assert_neq(run("test \"$(%s '%s')\" = \"$(%s '%s')\"", first_kernel, real, first_kernel, f.trace), 0,
                  "--real-order's GPU section begins with the first kernel, in time order");
    cr_assert_eq(run("test $(grep -n '\"cat\": \"kernel\"' '%s' | tail -1 | cut -d: -f1) -lt "
                     "$(grep -n cudaLaunchKernel '%s' | head -1 | cut -d: -f1)", apart, apart), 0,
                 "--flows-apart has a kernel after a launch");
    cr_assert_eq(fx_import(&f, ""), 0);
    const char *orders[] = {real, apart};
    for (int i = 0; i < 2; i++) {
        snprintf(db2, sizeof db2, "%s/order%d.db", f.dir, i);
        cr_assert_eq(run("'%s' import -q '%s' -o '%s' 2>'%s'", tracedb(), orders[i], db2, f.err), 0);
        check_same_tables(&f, db2);
    }
    fx_free(&f);
}

/* f's database (the time order's) and db2 (the same events in another order) hold the same events,
 * parents, depths, self times and launches, the same per-name sums. */
static void check_same_tables(const struct fixture *f, const char *db2)
{
    sqlite3 *d = db_open(f->db);
    char sql[4608];
    snprintf(sql, sizeof sql, "ATTACH '%s' AS k", db2);
    cr_assert_eq(sqlite3_exec(d, sql, NULL, NULL, NULL), SQLITE_OK);
    const char *rows = "SELECT e.thread_id, e.start_ns, e.dur_ns, e.name, e.depth, e.self_ns, p.name, p.start_ns, "
                       "l.start_ns, e.correlation, e.args FROM %s.events e LEFT JOIN %s.events p ON p.id = e.parent_id "
                       "LEFT JOIN %s.events l ON l.id = e.launch_id";
    char a[1024], b[1024];
    snprintf(a, sizeof a, rows, "main", "main", "main");
    snprintf(b, sizeof b, rows, "k", "k", "k");
    snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM (%s EXCEPT %s)) + (SELECT count(*) FROM (%s EXCEPT %s))", a, b, b, a);
    cr_assert_eq(db_int(d, sql), 0, "an event differs between the two orders (%s)", db2);
    cr_assert_gt(db_int(d, "SELECT count(*) FROM main.event"), 10000);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.event"), db_int(d, "SELECT count(*) FROM main.event"));
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.kernels WHERE launch_id IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM main.kernels"));
    /* time order links as rows are written, PyTorch's mostly at the end of the trace: both store the start */
    cr_assert_eq(launch_ns_wrong(d, "main"), 0);
    cr_assert_eq(launch_ns_wrong(d, "k"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.event WHERE launch_ns IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM main.kernels"));
    const char *stats = "SELECT s.kind, n.value, s.device, s.calls, s.total_ns, s.self_ns, s.min_ns, s.max_ns "
                        "FROM %s.event_stats s JOIN %s.string n ON n.id = s.name_id";
    snprintf(a, sizeof a, stats, "main", "main");
    snprintf(b, sizeof b, stats, "k", "k");
    snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM (%s EXCEPT %s)) + (SELECT count(*) FROM (%s EXCEPT %s))", a, b, b, a);
    cr_assert_eq(db_int(d, sql), 0, "a per-name sum differs between the two orders");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM main.device_stats a JOIN k.device_stats b USING (device, first_ns, "
                           "last_ns, busy_ns, run_ns, events)"), 1);
    cr_assert_eq(db_int(d, "SELECT (SELECT overlaps FROM main.trace) = (SELECT overlaps FROM k.trace)"), 1);
    sqlite3_close(d);
}

Test(nesting, raf_begin_end_pairs)
{
    struct fixture f = fx_new(
        "[{\"ph\":\"B\",\"name\":\"fused_matmul\",\"cat\":\"Default Stream\",\"pid\":0,\"tid\":\"stream 0\",\"ts\":100,"
        "\"args\":{\"args_string\":\"T<768x768xf32>,|T<768x768xf16>\"}},\n"
        "{\"ph\":\"B\",\"name\":\"inner\",\"cat\":\"Default Stream\",\"pid\":0,\"tid\":\"stream 0\",\"ts\":110},\n"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":\"stream 0\",\"ts\":120},\n"
        "{\"ph\":\"E\",\"pid\":0,\"tid\":\"stream 0\",\"ts\":200}]", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT dur_ns FROM events WHERE name = 'fused_matmul'"), 100000);
    cr_assert_eq(file_int(f.db, "SELECT self_ns FROM events WHERE name = 'fused_matmul'"), 90000);
    cr_assert_eq(file_int(f.db, "SELECT p.name = 'fused_matmul' FROM events o JOIN events p ON p.id = o.parent_id WHERE o.name = 'inner'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT json_extract(args, '$.args_string') = 'T<768x768xf32>,|T<768x768xf16>' FROM events "
                         "WHERE name = 'fused_matmul'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT tid = 'stream 0' FROM thread"), 1);
    fx_free(&f);
}

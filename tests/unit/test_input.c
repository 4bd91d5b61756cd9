/* test_input.c: import behaviour worked by hand: nesting and self time, B/E pairs, and bad input
 * (truncated, invalid, wrong types, absurd values, empty), and never clobbering a database. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct fixture {
    char *dir;
    char trace[1024], db[512], err[512];
};

static struct fixture fx_new(const char *json, const char *ext)
{
    struct fixture f;
    f.dir = temp_dir();
    snprintf(f.trace, sizeof f.trace, "%s/trace.%s", f.dir, ext);
    snprintf(f.db, sizeof f.db, "%s/run.db", f.dir);
    snprintf(f.err, sizeof f.err, "%s/stderr", f.dir);
    if (json)
        write_file(f.trace, json, (long)strlen(json));
    return f;
}

static int fx_import(struct fixture *f, const char *extra)
{
    return run("'%s' import -q %s '%s' -o '%s' 2>'%s'", tracedb(), extra, f->trace, f->db, f->err);
}

/* fx_import of f's trace and the traces in `more` ("" or quoted paths) with TRACEDB_TIMING on: the
import's phases and its rewrite counts go to f's stderr file. */
static int fx_import_timed(struct fixture *f, const char *more)
{
    setenv("TRACEDB_TIMING", "1", 1);
    int rc = run("'%s' import -q '%s' %s -o '%s' 2>'%s'", tracedb(), f->trace, more, f->db, f->err);
    unsetenv("TRACEDB_TIMING");
    return rc;
}

static void fx_free(struct fixture *f)
{
    run("rm -rf '%s'", f->dir);
    free(f->dir);
}

/* Whether the import's stderr contains text. */
static int err_has(const struct fixture *f, const char *text)
{
    char *err = read_file(f->err, NULL);
    int found = strstr(err, text) != NULL;
    free(err);
    return found;
}

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

/* An event (named once in its trace) worked by hand: its parent's name, its depth, its self time. */
struct nested {
    const char *name, *parent;
    int depth;
    int64_t self_us;
};

static void assert_nested(const char *db, const struct nested *want, size_t n, const char *how)
{
    for (size_t i = 0; i < n; i++) {
        char sql[512];
        snprintf(sql, sizeof sql,
                 "SELECT e.depth * 1000000000 + e.self_ns + (coalesce(p.name, '') = '%s') * 100000000 "
                 "FROM events e LEFT JOIN events p ON p.id = e.parent_id WHERE e.name = '%s'",
                 want[i].parent ? want[i].parent : "", want[i].name);
        cr_assert_eq(file_int(db, sql), want[i].depth * 1000000000LL + want[i].self_us * 1000 + 100000000,
                     "%s: parent %s, depth %d, self %lld us (%s)", want[i].name, want[i].parent ? want[i].parent : "none",
                     want[i].depth, (long long)want[i].self_us, how);
    }
}

/* Imports json with TRACEDB_TIMING on: the end's rewrite count must read `rewrites` ("N rows to rewrite
 * of M") and each event's nesting what was worked by hand. The fixture, for more checks (fx_free it). */
static struct fixture nested_by_hand(const char *json, const char *rewrites, const struct nested *want, size_t n,
                                     const char *how)
{
    struct fixture f = fx_new(json, "json");
    cr_assert_eq(fx_import_timed(&f, ""), 0);
    cr_assert(err_has(&f, rewrites), "%s: the end did not report \"%s\"", how, rewrites);
    assert_nested(f.db, want, n, how);
    return f;
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
 * as parent. `how` names the rewrite the counts call for (ingest_sweep.c: by id when at most one row
 * in 8 changes, else one pass). */
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

Test(nesting, a_kernel_linked_late_keeps_its_parent_rewritten_by_id)
{
    check_late_links(1, 1, "4 rows to rewrite of 194: by id");
}

Test(nesting, kernels_linked_late_keep_their_parents_rewritten_in_one_pass)
{
    check_late_links(40, 1, "43 rows to rewrite of 194: one pass");
}

/* Each kernel right before its launch: all 40 are written with their launch, only tid 2's three rows
 * are rewritten at the end. */
Test(nesting, kernels_just_before_their_launch_are_written_linked)
{
    check_late_links(40, 0, "3 rows to rewrite of 123: by id");
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
    sqlite3 *d = db_open(f.db);
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
    cr_assert_eq(db_int(d, sql), 0, "an event differs between the two orders");
    cr_assert_gt(db_int(d, "SELECT count(*) FROM main.event"), 10000);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.event"), db_int(d, "SELECT count(*) FROM main.event"));
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.kernels WHERE launch_id IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM main.kernels"));
    /* time order links as rows are written, PyTorch's mostly at the end of the trace: both store the start */
    cr_assert_eq(launch_ns_wrong(d, "main"), 0);
    cr_assert_eq(launch_ns_wrong(d, "k"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM k.event WHERE launch_ns IS NOT NULL"),
                 db_int(d, "SELECT count(*) FROM main.kernels"));
    const char *stats = "SELECT s.kind, n.value, s.device, s.calls, s.total_ns, s.self_ns, s.min_ns, s.max_ns, "
                        "s.self_device_ns, s.device_total_ns, s.self_cpu_mem, s.cpu_mem, s.self_device_mem, s.device_mem "
                        "FROM %s.event_stats s JOIN %s.string n ON n.id = s.name_id";
    snprintf(a, sizeof a, stats, "main", "main");
    snprintf(b, sizeof b, stats, "k", "k");
    snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM (%s EXCEPT %s)) + (SELECT count(*) FROM (%s EXCEPT %s))", a, b, b, a);
    cr_assert_eq(db_int(d, sql), 0, "a per-name sum differs between the two orders");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM main.device_stats a JOIN k.device_stats b USING (device, first_ns, "
                           "last_ns, busy_ns, run_ns, events)"), 1);
    cr_assert_eq(db_int(d, "SELECT (SELECT overlaps FROM main.trace) = (SELECT overlaps FROM k.trace)"), 1);
    sqlite3_close(d);
    fx_free(&f);
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
    cr_assert_eq(file_int(f.db, "SELECT dur_ns FROM ops WHERE name = 'fused_matmul'"), 100000);
    cr_assert_eq(file_int(f.db, "SELECT self_ns FROM ops WHERE name = 'fused_matmul'"), 90000);
    cr_assert_eq(file_int(f.db, "SELECT p.name = 'fused_matmul' FROM ops o JOIN ops p ON p.id = o.parent_id WHERE o.name = 'inner'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT json_extract(args, '$.args_string') = 'T<768x768xf32>,|T<768x768xf16>' FROM ops "
                         "WHERE name = 'fused_matmul'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT tid = 'stream 0' FROM thread"), 1);
    fx_free(&f);
}

/* A B never ended is a fact of real traces (a profiler stopped mid-range): kept, ending at its thread's
 * last timestamp (x ends at 2 us), flagged and counted; exit 0. --strict makes it an error. */
Test(badinput, unmatched_begin_is_kept_flagged_and_counted)
{
    struct fixture f = fx_new("[{\"ph\":\"B\",\"name\":\"a\",\"pid\":0,\"tid\":0,\"ts\":1},"
                              "{\"ph\":\"X\",\"name\":\"x\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1}]", "json");
    cr_assert_eq(fx_import(&f, ""), 0);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 2);
    cr_assert_eq(file_int(f.db, "SELECT dur_ns FROM events WHERE name = 'a'"), 1000);
    cr_assert_eq(file_int(f.db, "SELECT json_extract(args, '$.\"tracedb.anomaly\"') = 'never ended' FROM events WHERE name = 'a'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT value FROM meta WHERE key = 'anomalies.begin_never_ended'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT value = 'complete' FROM meta WHERE key = 'import_status'"), 1);
    cr_assert(err_has(&f, "1 event(s) were B events never ended"));
    run("rm -f '%s'", f.db);
    cr_assert_eq(fx_import(&f, "--strict"), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 1);
    cr_assert_eq(file_int(f.db, "SELECT skipped_events FROM trace"), 1);
    cr_assert(err_has(&f, "never ended"));
    fx_free(&f);
}

/* 100 events "e0".."e99", 1 us apart, as one JSON text. */
static char *hundred_events(void)
{
    size_t cap = 20000, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\": [\n");
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(s + n, cap - n, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e%d\", \"pid\": 1, "
                              "\"tid\": 1, \"ts\": %d, \"dur\": 1}", i ? ",\n" : "", i, i * 2);
    snprintf(s + n, cap - n, "\n], \"traceName\": \"t\"}");
    return s;
}

Test(badinput, truncated_file_keeps_every_whole_event)
{
    char *full = hundred_events();
    char *cut = strstr(full, "\"name\": \"e57\"") + 5; /* inside event 57 */
    *cut = 0;
    struct fixture f = fx_new(full, "json");
    cr_assert_eq(fx_import(&f, ""), 1, "non-zero exit");
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 57, "e0..e56 kept");
    cr_assert_eq(file_int(f.db, "SELECT max(name) = 'e56' FROM ops WHERE name GLOB 'e5*'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT value = 'partial' FROM meta WHERE key = 'import_status'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT status = 'partial' FROM trace"), 1);
    char at[64]; /* the file ends at byte strlen(full): the offset named is the end, not past it */
    snprintf(at, sizeof at, "near byte %zu: the file ends", strlen(full));
    cr_assert(err_has(&f, f.trace) && err_has(&f, at), "names file and offset (%s)", at);
    fx_free(&f);
    free(full);
}

Test(badinput, truncated_gzip_keeps_every_whole_event)
{
    char *full = hundred_events();
    struct fixture f = fx_new(full, "json");
    char gz[512];
    snprintf(gz, sizeof gz, "%s/t.json.gz", f.dir);
    cr_assert_eq(run("gzip -c '%s' | head -c 600 > '%s'", f.trace, gz), 0);
    snprintf(f.trace, sizeof f.trace, "%s", gz);
    cr_assert_eq(fx_import(&f, ""), 1);
    int64_t n = file_int(f.db, "SELECT count(*) FROM event");
    cr_assert(n > 0 && n < 100, "some whole events kept: %lld", (long long)n);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM ops WHERE name = 'e' || (id - 1)"), n, "in order, none damaged");
    fx_free(&f);
    free(full);
}

Test(badinput, invalid_json_midway)
{
    struct fixture f = fx_new("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                              "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
                              "{\"ph\":\"X\",,\"name\":\"c\"}]", "json");
    cr_assert_eq(fx_import(&f, ""), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 2);
    cr_assert(err_has(&f, "invalid JSON near byte 117"));
    fx_free(&f);
}

Test(badinput, wrong_types_and_absurd_values_skip_only_that_event)
{
    struct fixture f = fx_new("[{\"ph\":\"X\",\"name\":\"ok1\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                              "{\"ph\":\"X\",\"name\":\"ts_text\",\"pid\":1,\"tid\":1,\"ts\":\"abc\",\"dur\":1},\n"
                              "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":-3},\n"
                              "{\"ph\":\"X\",\"name\":\"huge\",\"pid\":1,\"tid\":1,\"ts\":1e300,\"dur\":1},\n"
                              "{\"ph\":\"X\",\"name\":\"nodur\",\"pid\":1,\"tid\":1,\"ts\":3},\n"
                              "{\"ph\":\"X\",\"name\":\"args\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1,\"args\":7},\n"
                              "42,\n"
                              "{\"name\":\"nophase\",\"pid\":1,\"ts\":3},\n"
                              "{\"ph\":\"X\",\"name\":\"ok2\",\"pid\":\"str\",\"ts\":9,\"dur\":1,\"args\":{\"n\":[1,{\"x\":null}]}}]",
                              "json");
    cr_assert_eq(fx_import(&f, ""), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 3);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM ops WHERE name IN ('ok1', 'ok2')"), 2);
    cr_assert_eq(file_int(f.db, "SELECT dur_ns FROM ops WHERE name = 'neg'"), 0, "a negative dur is an anomaly: kept as 0");
    cr_assert_eq(file_int(f.db, "SELECT skipped_events FROM trace"), 6);
    cr_assert_eq(file_int(f.db, "SELECT args = '{\"n\":[1,{\"x\":null}]}' FROM ops WHERE name = 'ok2'"), 1);
    cr_assert_eq(file_int(f.db, "SELECT pid = 'str' AND tid = 'str' FROM events WHERE name = 'ok2'"), 1,
                 "missing tid defaults to pid");
    cr_assert(err_has(&f, "\"ts\" is a string"));
    cr_assert(err_has(&f, "had a negative \"dur\": kept with dur 0"));
    cr_assert(err_has(&f, "out of range"));
    run("rm -f '%s'", f.db);
    cr_assert_eq(fx_import(&f, "--strict"), 1);
    cr_assert_eq(file_int(f.db, "SELECT count(*) FROM event"), 2);
    cr_assert_eq(file_int(f.db, "SELECT skipped_events FROM trace"), 7);
    cr_assert(err_has(&f, "skipped: negative \"dur\""));
    fx_free(&f);
}

Test(badinput, empty_and_missing_files)
{
    struct fixture f = fx_new("", "json");
    cr_assert_eq(fx_import(&f, ""), 1);
    cr_assert(err_has(&f, "empty"));
    run("rm -f '%s'", f.db);
    snprintf(f.trace, sizeof f.trace, "%s/nope.json", f.dir);
    cr_assert_eq(fx_import(&f, ""), 1);
    struct stat sb;
    cr_assert_neq(stat(f.db, &sb), 0, "no database left behind");
    cr_assert_eq(run("ls '%s' | grep -q tmp", f.dir), 1, "no temporary file left behind");
    fx_free(&f);
}

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

/* Hostile input: a real trace cut at 60 places and with bytes overwritten at 60 others. Every import
 * ends with status 0 or 1 (never a crash; the sanitizers watch), keeps only whole events, and leaves a
 * database that opens (none when what is left holds no trace, and it says so). */
Test(badinput, cut_and_corrupted_real_trace_never_crashes, .timeout = 120)
{
    long len;
    char *full = read_file(src_path("tests/data/kineto/call_stack_backward_thread.json"), &len);
    struct fixture f = fx_new(NULL, "json");
    unsigned seed = 12345;
    for (int i = 0; i < 120; i++) {
        char *copy = malloc((size_t)len);
        memcpy(copy, full, (size_t)len);
        long n = len;
        seed = seed * 1103515245u + 12345u;
        long at = (long)(seed % (unsigned)len);
        if (i < 60)
            n = at; /* cut */
        else
            copy[at] = "{}[],:\"\\x0 "[seed % 11]; /* a byte that matters to a JSON parser */
        write_file(f.trace, copy, n);
        free(copy);
        run("rm -f '%s'", f.db);
        int st = fx_import(&f, "");
        cr_assert(st == 0 || st == 1, "import of a damaged copy (%s at byte %ld) exits 0 or 1, not %d",
                  i < 60 ? "cut" : "changed", at, st);
        struct stat sb;
        if (stat(f.db, &sb) == 0) /* a database that opens, or none when the cut left no trace (and it says so) */
            cr_assert_geq(file_int(f.db, "SELECT count(*) FROM event"), 0);
        else
            cr_assert(err_has(&f, "nothing written"), "no database, and no word why (%s at byte %ld)",
                      i < 60 ? "cut" : "changed", at);
    }
    free(full);
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
    const char *stats = "SELECT kind, name_id, device, calls, total_ns, self_ns, min_ns, max_ns, self_device_ns, "
                        "device_total_ns, self_cpu_mem, cpu_mem, self_device_mem, device_mem FROM %s.event_stats";
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

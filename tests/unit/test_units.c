/* test_units.c: unit tests of the small exact pieces: time parsing, statistics, JSON/CSV writing.
 * Expected values are worked by hand (or by numpy/pandas, quoted in each case). */
#include "helpers.h"
#include "bigmem.h"
#include "event_pack.h"
#include "frame_log.h"
#include "ingest.h" /* TDB_NULL */
#include "jsonbuf.h"
#include "render.h"
#include "spill_sort.h"
#include "step_index.h"
#include "sqlfuncs.h"
#include "strmap.h"
#include "timeparse.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int64_t ns(const char *s)
{
    int64_t v = 0;
    cr_assert_eq(tdb_us_to_ns(s, strlen(s), &v), 0, "parse %s", s);
    return v;
}

/* The pack's rows come back as they went in: every int64 at both ends, NULLs in every column that may
 * hold one, ids and times that go back; a cut or a stray byte is refused, never read past. */
Test(event_pack, rows_round_trip_at_the_ends_of_int64_and_refuse_bad_bytes)
{
    static const int64_t v[] = {0, 1, -1, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, 1000000007, -999, TDB_NULL};
    enum { NV = sizeof v / sizeof v[0], ROWS = 400 };
    struct tdb_pack_row in[ROWS];
    for (int i = 0; i < ROWS; i++) { /* each column walks the values at its own pace */
        int64_t *c = &in[i].id;
        for (int k = 0; k < 14; k++) {
            int64_t x = v[(i * (k + 1) + k * 3) % NV];
            int nullable = k == 3 || (k >= 7 && k != 12); /* cat, corr, device, stream, launch, parent, launch's start */
            c[k] = x == TDB_NULL && !nullable ? 42 : x;
        }
    }
    struct tdb_pack_block b = {0};
    tdb_pack_reset(&b);
    for (int i = 0; i < ROWS; i++)
        cr_assert_eq(tdb_pack_add(&b, &in[i]), 0);
    cr_assert_eq(b.rows, ROWS);
    struct tdb_pack_reader r;
    struct tdb_pack_row out;
    tdb_pack_read_init(&r, b.data, b.n, TDB_PACK_V2);
    for (int i = 0; i < ROWS; i++) {
        cr_assert_eq(tdb_pack_next(&r, &out), 1, "row %d", i);
        cr_assert(memcmp(&out, &in[i], sizeof out) == 0, "row %d differs", i);
    }
    cr_assert_eq(tdb_pack_next(&r, &out), 0);
    for (size_t cut = 1; cut < 40; cut++) { /* cut anywhere inside the first rows: refused, or fewer whole rows */
        int got = 0, last;
        tdb_pack_read_init(&r, b.data, cut, TDB_PACK_V2);
        while ((last = tdb_pack_next(&r, &out)) == 1)
            got++;
        cr_assert(last == -1 || got < ROWS, "cut at %zu", cut);
        cr_assert(r.p <= b.data + cut);
    }
    unsigned char bad[] = {0x80, 1, 2}; /* flags no row has */
    tdb_pack_read_init(&r, bad, sizeof bad, TDB_PACK_V2);
    cr_assert_eq(tdb_pack_next(&r, &out), -1);
    bad[0] = 0x20; /* nor a row of format 1 */
    tdb_pack_read_init(&r, bad, sizeof bad, TDB_PACK_V1);
    cr_assert_eq(tdb_pack_next(&r, &out), -1);
    /* a format 1 row, as a database made before format 2 holds it: id 5, kind 2, name 3, no category, track
     * 1, start 100, duration 7, and no correlation, device, stream or launch (flags 31) */
    static const unsigned char v1[] = {31, 10, 4, 6, 2, 0xc8, 0x01, 14};
    tdb_pack_read_init(&r, v1, sizeof v1, TDB_PACK_V1);
    cr_assert_eq(tdb_pack_next(&r, &out), 1);
    struct tdb_pack_row want = {5, 2, 3, TDB_NULL, 1, 100, 7, TDB_NULL, TDB_NULL, TDB_NULL, TDB_NULL, TDB_NULL, TDB_NULL, TDB_NULL};
    cr_assert(memcmp(&out, &want, sizeof out) == 0);
    cr_assert_eq(tdb_pack_next(&r, &out), 0);
    unsigned char endless[16]; /* a varint over 10 bytes */
    memset(endless, 0xff, sizeof endless);
    endless[0] = 0;
    tdb_pack_read_init(&r, endless, sizeof endless, TDB_PACK_V2);
    cr_assert_eq(tdb_pack_next(&r, &out), -1);
    tdb_pack_read_init(&r, NULL, 0, TDB_PACK_V2); /* an empty blob, as SQLite gives it (fuzz_db found the NULL + 0) */
    cr_assert_eq(tdb_pack_next(&r, &out), 0);
    tdb_pack_free(&b);
}

Test(timeparse, exact_beyond_double_precision)
{
    /* 1712195495519695.812 us: a double holds 1712195495519695.75; we must not lose the 62 ns */
    cr_assert_eq(ns("1712195495519695.812"), INT64_C(1712195495519695812));
    cr_assert_eq(ns("1669783687464181"), INT64_C(1669783687464181000));
    cr_assert_eq(ns("63.813"), 63813);
    cr_assert_eq(ns("0"), 0);
    cr_assert_eq(ns("-1.5"), -1500);
    cr_assert_eq(ns("1.5e3"), 1500000);
    cr_assert_eq(ns("2E-3"), 2);
    cr_assert_eq(ns("0.0004"), 0);     /* 0.4 ns rounds to 0 */
    cr_assert_eq(ns("0.0005"), 1);     /* 0.5 ns rounds away from zero */
    cr_assert_eq(ns("1.23456"), 1235); /* 1234.56 ns */
    cr_assert_eq(ns("9223372036854775.807"), INT64_MAX);
}

Test(timeparse, rejects_bad_text_and_overflow)
{
    int64_t v;
    cr_assert_eq(tdb_us_to_ns("", 0, &v), -1);
    cr_assert_eq(tdb_us_to_ns("abc", 3, &v), -1);
    cr_assert_eq(tdb_us_to_ns("1.2.3", 5, &v), -1);
    cr_assert_eq(tdb_us_to_ns("1e", 2, &v), -1);
    cr_assert_eq(tdb_us_to_ns("9223372036854775.808", 20, &v), -2);
    cr_assert_eq(tdb_us_to_ns("1e300", 5, &v), -2);
    cr_assert_eq(tdb_parse_int("12.5", 4, &v), -1);
    cr_assert_eq(tdb_parse_int("12.0", 4, &v), 0);
    cr_assert_eq(v, 12);
}

static double sql_value(const char *sql)
{
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    cr_assert_eq(tdb_register_functions(db), 0);
    double v = db_double(db, sql);
    sqlite3_close(db);
    return v;
}

Test(sqlfuncs, percentiles_match_numpy_linear)
{
    const char *vals = "WITH v(x) AS (VALUES (1), (2), (3), (4), (10)) ";
    char sql[256];
    /* numpy.percentile([1, 2, 3, 4, 10], p): 50 -> 3.0, 90 -> 7.6, 99 -> 9.76, 0 -> 1, 100 -> 10 */
    struct { double p, want; } cases[] = {{50, 3.0}, {90, 7.6}, {99, 9.76}, {0, 1}, {100, 10}, {25, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(sql, sizeof sql, "%sSELECT percentile(x, %g) FROM v", vals, cases[i].p);
        cr_assert_float_eq(sql_value(sql), cases[i].want, 1e-9, "p%g", cases[i].p);
    }
    cr_assert_float_eq(sql_value("WITH v(x) AS (VALUES (4), (1), (3), (2)) SELECT median(x) FROM v"), 2.5, 1e-12);
    /* pandas Series([2, 4, 4, 4, 5, 5, 7, 9]).std() = 2.138089935299395 (sample) */
    cr_assert_float_eq(sql_value("WITH v(x) AS (VALUES (2),(4),(4),(4),(5),(5),(7),(9)) SELECT stddev(x) FROM v"),
                       2.138089935299395, 1e-12);
    cr_assert_float_eq(sql_value("WITH v(x) AS (VALUES (NULL), (5)) SELECT median(x) FROM v"), 5, 1e-12);
}

/* tdb_launch_call(name): the twelve calls that launch GPU work in HTA's launch mask (CUDA runtime and driver,
 * HIP, MTIA's runFunction), and nothing else: not the blocking cudaMemcpy, not a sync, not a near name, not
 * NULL. The SQL of `tracedb queue` and the critical path's graph read this one list. */
Test(sqlfuncs, launch_call_is_htas_twelve)
{
    cr_assert_eq(sql_value("WITH v(n) AS (VALUES ('cudaLaunchKernel'), ('cudaLaunchKernelExC'), "
                           "('cuLaunchKernel'), ('cuLaunchKernelEx'), ('cudaMemcpyAsync'), ('cudaMemsetAsync'), "
                           "('hipLaunchKernel'), ('hipExtModuleLaunchKernel'), ('hipMemcpyAsync'), ('hipMemsetAsync'), "
                           "('hipMemcpyWithStream'), ('runFunction - job_prep_and_submit_for_execution')) "
                           "SELECT sum(tdb_launch_call(n)) FROM v"),
                 12);
    cr_assert_eq(sql_value("WITH v(n) AS (VALUES ('cudaMemcpy'), ('cudaStreamSynchronize'), ('cudaEventRecord'), "
                           "('cudaHostAlloc'), ('cudaLaunchKernel '), ('cudalaunchkernel'), ('runFunction'), ('cpu_op'), "
                           "(''), (NULL)) SELECT count(*) FROM v WHERE tdb_launch_call(n) != 0"),
                 0);
}

/* type_unions by hand: computation [0,10), communication [5,15), memory [12,20), other [30,40); an empty
 * and a NULL interval cover nothing. Lengths: a 10, b 10, c 8, a|b [0,15) 15, a|c [0,10)+[12,20) 18,
 * b|c [5,20) 15, a|b|c [0,20) 20, other and sync [30,45) 15; each equal to interval_union of the rows. */
static int cmp_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* tdb_sort_i64 (a radix sort from 512 values) orders as qsort does: negatives, extremes, repeats, values
 * sharing their upper bytes (the passes it skips), short and long arrays. */
Test(sqlfuncs, sort_i64_orders_as_qsort)
{
    static const size_t sizes[] = {0, 1, 2, 511, 512, 513, 4096, 100000};
    uint64_t seed = 88172645463325252ull;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int shape = 0; shape < 4; shape++) {
            size_t n = sizes[si];
            int64_t *v = malloc((n + 1) * sizeof *v), *w = malloc((n + 1) * sizeof *w);
            cr_assert(v && w);
            for (size_t i = 0; i < n; i++) {
                seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17; /* xorshift64 */
                int64_t x = (int64_t)seed;
                v[i] = shape == 0 ? x                                  /* anything, negatives too */
                       : shape == 1 ? (int64_t)(seed % 100000)         /* durations: the upper bytes shared */
                       : shape == 2 ? (int64_t)(seed % 7) - 3          /* repeats around zero */
                                    : (i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : x); /* extremes */
                w[i] = v[i];
            }
            tdb_sort_i64(v, n);
            qsort(w, n, sizeof *w, cmp_int64);
            for (size_t i = 0; i < n; i++)
                cr_assert_eq(v[i], w[i], "n %zu shape %d at %zu: %lld, qsort %lld", n, shape, i, (long long)v[i],
                             (long long)w[i]);
            free(v), free(w);
        }
}

Test(sqlfuncs, type_unions_by_hand_and_as_interval_union)
{
    const char *rows = "WITH v(t, s, e) AS (VALUES ('computation', 0, 10), ('communication', 5, 15), ('memory', 12, 20), "
                       "('other', 30, 40), ('computation', 3, 3), ('memory', NULL, 4), ('sync', 35, 45)) ";
    const double want[8] = {10, 10, 8, 15, 18, 15, 20, 15}; /* 'sync' is other: [30,45) */
    const char *sets[8] = {"t = 'computation'", "t = 'communication'", "t = 'memory'", "t IN ('computation', 'communication')",
                           "t IN ('computation', 'memory')", "t IN ('communication', 'memory')",
                           "t IN ('computation', 'communication', 'memory')", "t NOT IN ('computation', 'communication', 'memory')"};
    char sql[600];
    for (int k = 0; k < 8; k++) {
        snprintf(sql, sizeof sql, "%sSELECT type_unions(t, s, e) ->> %d FROM v", rows, k);
        cr_assert_float_eq(sql_value(sql), want[k], 0, "set %d", k);
        snprintf(sql, sizeof sql, "%sSELECT interval_union(CASE WHEN %s THEN s END, e) FROM v", rows, sets[k]);
        cr_assert_float_eq(sql_value(sql), want[k], 0, "set %d by interval_union", k);
    }
    /* then the rows of each type, empty and NULL intervals included: 2 computation, 1 communication,
     * 2 memory, 2 other ('other' and 'sync') */
    const double count[4] = {2, 1, 2, 2};
    for (int k = 0; k < 4; k++) {
        snprintf(sql, sizeof sql, "%sSELECT type_unions(t, s, e) ->> %d FROM v", rows, 8 + k);
        cr_assert_float_eq(sql_value(sql), count[k], 0, "rows of type %d", k);
    }
}

/* type_unions on many intervals of the four types (short spans on a small clock: nested ones, shared
 * starts and ends, an end on another's start), given in order of their starts (swept as they come) and
 * in the order they were drawn (sorted first): each set's length equals interval_union of its rows
 * (its own sort and merge). */
Test(sqlfuncs, type_unions_equal_interval_union_in_any_order)
{
    static const char *const types[] = {"computation", "communication", "memory", "other"};
    const char *sets[8] = {"t = 'computation'", "t = 'communication'", "t = 'memory'", "t IN ('computation', 'communication')",
                           "t IN ('computation', 'memory')", "t IN ('communication', 'memory')",
                           "t IN ('computation', 'communication', 'memory')", "t NOT IN ('computation', 'communication', 'memory')"};
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    cr_assert_eq(tdb_register_functions(db), 0);
    cr_assert_eq(sqlite3_exec(db, "CREATE TABLE v (k INTEGER PRIMARY KEY, t TEXT, s INTEGER, e INTEGER)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *ins;
    cr_assert_eq(sqlite3_prepare_v2(db, "INSERT INTO v (t, s, e) VALUES (?, ?, ?)", -1, &ins, NULL), SQLITE_OK);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 3000; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17; /* xorshift64 */
        int64_t start = (int64_t)(seed % 20000), len = (int64_t)((seed >> 20) % (seed >> 40 & 1 ? 400 : 12));
        sqlite3_bind_text(ins, 1, types[(seed >> 32) % 4], -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, start), sqlite3_bind_int64(ins, 3, start + len);
        cr_assert_eq(sqlite3_step(ins), SQLITE_DONE);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    static const char *const orders[] = {"SELECT * FROM v ORDER BY s", "SELECT * FROM v ORDER BY k"};
    char sql[800];
    for (int o = 0; o < 2; o++)
        for (int k = 0; k < 8; k++) {
            snprintf(sql, sizeof sql, "SELECT type_unions(t, s, e) ->> %d FROM (%s)", k, orders[o]);
            double got = db_double(db, sql);
            snprintf(sql, sizeof sql, "SELECT interval_union(CASE WHEN %s THEN s END, e) FROM v", sets[k]);
            double want = db_double(db, sql);
            cr_expect(got == want && want > 0, "%s: set %d: %.0f, interval_union %.0f", orders[o], k, got, want);
        }
    sqlite3_close(db);
}

Test(jsonbuf, escapes_every_control_character)
{
    struct buf b = {0};
    const char s[] = "a\"b\\c\n\x01\x1f" "d";
    buf_add_json_string(&b, s, sizeof s - 1);
    buf_addc(&b, 0);
    cr_assert_str_eq(b.p, "\"a\\\"b\\\\c\\n\\u0001\\u001fd\"");
    buf_free(&b);

    struct jw w;
    jw_init(&w, &b);
    jw_open(&w, '{');
    jw_key(&w, "k", 1);
    jw_open(&w, '[');
    jw_raw(&w, "1", 1);
    jw_string(&w, "x", 1);
    jw_close(&w, ']');
    jw_key(&w, "n", 1);
    jw_raw(&w, "null", 4);
    jw_close(&w, '}');
    buf_addc(&b, 0);
    cr_assert_str_eq(b.p, "{\"k\":[1,\"x\"],\"n\":null}");
    buf_free(&b);
}

/* The escape rules of jsonbuf.h, one byte at a time: the oracle for the word-at-a-time copy. */
static void escape_by_hand(const unsigned char *s, size_t n, char *out)
{
    char *o = out;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            *o++ = '\\', *o++ = (char)c;
        else if (c == '\n')
            *o++ = '\\', *o++ = 'n';
        else if (c < 0x20)
            o += sprintf(o, "\\u%04x", c);
        else if (c == 0xC3 && i + 1 < n && s[i + 1] == 0xA9) /* the only valid sequence below: kept */
            *o++ = (char)c, *o++ = (char)s[++i];
        else if (c >= 0x80)
            o += sprintf(o, "\xEF\xBF\xBD");
        else
            *o++ = (char)c;
    }
    *o++ = '"';
    *o = 0;
}

/* Strings are checked 8 bytes at a time: each byte that needs care (control, quote, backslash, a valid
 * and an invalid UTF-8 sequence) at every offset of a 27-byte string, and every length to 27. */
Test(jsonbuf, escapes_at_every_offset_and_length)
{
    static const char *const specials[] = {"\x01", "\x1f", "\"", "\\", "\n", "\xC3\xA9", "\xFF", "\x80", " ", "\x7f"};
    char want[256];
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++)
        for (size_t at = 0; at < 27; at++) {
            unsigned char s[40];
            memset(s, 'x', sizeof s);
            size_t sn = strlen(specials[k]);
            memcpy(s + at, specials[k], sn);
            size_t n = at + sn + (at % 5); /* the special byte at the end, or a few bytes before it */
            struct buf b = {0};
            buf_add(&b, "ab", 2); /* not at the buffer's start */
            buf_add_json_string(&b, (const char *)s, n);
            buf_addc(&b, 0);
            escape_by_hand(s, n, want);
            cr_assert_str_eq(b.p + 2, want, "special %zu at %zu, length %zu", k, at, n);
            buf_free(&b);
        }
    for (size_t n = 0; n <= 27; n++) {
        char s[28], w[32] = "\"";
        memset(s, 'q', sizeof s);
        struct buf b = {0};
        buf_add_json_string(&b, s, n);
        buf_addc(&b, 0);
        memcpy(w + 1, s, n), w[n + 1] = '"', w[n + 2] = 0;
        cr_assert_str_eq(b.p, w, "plain, length %zu", n);
        buf_free(&b);
    }
}

/* Whether a comes before b in the nesting sweep's order: start, the longer first, the earlier row. */
static int sweep_before(const struct frame_rec *a, const struct frame_rec *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end > b->end;
    return a->id < b->id;
}

/* The frame log gives back each track's events across blocks written to its file and the block still
 * in memory: one run in the order it went in; several runs merged in the sweep's order (ties across
 * runs included), each record once, with its parent and depth (a record taken back is not given);
 * at most FRAME_LOG_RUNS runs; a track past FRAME_LOG_TRACKS is not kept; reset forgets. */
Test(frame_log, merges_each_tracks_runs_in_the_sweeps_order)
{
    char *dir = temp_dir();
    struct frame_log *g = frame_log_new(dir);
    cr_assert_not_null(g);
    for (int i = 0; i < 1500; i++) { /* two tracks interleaved: blocks of both in one file */
        struct frame_rec r = {2 * i, 2 * i + 10, 1000 + i, 999 + i, i % 7, 0};
        cr_assert_eq(frame_log_append(g, 3, &r), 0);
        if (i % 500 == 0) {
            struct frame_rec o = {-i, 5, 7, TDB_NULL, 1, 0};
            cr_assert_eq(frame_log_append(g, 0, &o), 0);
        }
    }
    cr_assert(frame_log_complete(g, 3) && frame_log_complete(g, 0) && !frame_log_complete(g, 1));
    struct frame_rec over = {0, 1, 2, 0, 0, 0};
    cr_assert_eq(frame_log_append(g, FRAME_LOG_TRACKS, &over), -1);
    cr_assert(!frame_log_complete(g, FRAME_LOG_TRACKS));
    struct frame_log_reader *r = frame_log_read(g, 3); /* one run: as it went in */
    const struct frame_rec *f;
    int n = 0;
    while ((f = frame_log_next(r)) != NULL) {
        cr_assert(f->start == 2 * n && f->end == 2 * n + 10 && f->id == 1000 + n && f->parent == 999 + n &&
                      f->depth == n % 7, "frame %d", n);
        n++;
    }
    cr_assert_eq(n, 1500);
    cr_assert(!frame_log_failed(r));
    frame_log_reader_free(r);
    /* a second run: instants between the first run's starts; a third: an instant on a start (after
     * the first run's there: shorter), a frame longer than the first run's at its start (before it),
     * one equal (after it) */
    for (int i = 0; i < 700; i++) {
        struct frame_rec in = {2 * i + 1, 2 * i + 1, 5000 + i, TDB_NULL, 0, 0};
        cr_assert_eq(frame_log_append(g, 3, &in), 0);
    }
    frame_log_reader_free(frame_log_read(g, 3));
    struct frame_rec back[3], one = {9000, 9000, 7000, TDB_NULL, 0, 0};
    cr_assert_eq(frame_log_take_back(g, 3, 1, back), -1, "the run just ended holds nothing to take back");
    cr_assert_eq(frame_log_append(g, 3, &one), 0);
    cr_assert_eq(frame_log_take_back(g, 3, 2, back), -1, "past the run's start");
    cr_assert(frame_log_take_back(g, 3, 1, back) == 0 && back[0].id == 7000, "the last record, taken back");
    struct frame_rec on = {200, 200, 6000, TDB_NULL, 0, 0}, longer = {202, 300, 6001, TDB_NULL, 0, 0},
                     equal = {204, 214, 6002, TDB_NULL, 0, 0};
    cr_assert(frame_log_append(g, 3, &on) == 0 && frame_log_append(g, 3, &longer) == 0 &&
              frame_log_append(g, 3, &equal) == 0);
    r = frame_log_read(g, 3);
    struct frame_rec prev = {0};
    long long idsum = 0, want = 0;
    for (int i = 0; i < 1500; i++)
        want += 1000 + i;
    for (int i = 0; i < 700; i++)
        want += 5000 + i;
    want += 6000 + 6001 + 6002;
    int pos[7000];
    for (n = 0; (f = frame_log_next(r)) != NULL; n++) {
        cr_assert(n == 0 || sweep_before(&prev, f), "record %d (id %lld) out of the sweep's order", n, (long long)f->id);
        cr_assert(f->id >= 1000 && f->id < 7000);
        pos[f->id] = n;
        idsum += f->id;
        prev = *f;
    }
    cr_assert_eq(pos[6000], pos[1100] + 1, "the shorter after the longer at a tie");
    cr_assert_eq(pos[1101], pos[6001] + 1, "the longer first at a tie");
    cr_assert_eq(pos[6002], pos[1102] + 1, "the earlier row first at a full tie");
    cr_assert_eq(n, 1500 + 703);
    cr_assert_eq(idsum, want);
    frame_log_reader_free(r);
    r = frame_log_read(g, 0);
    for (n = 0; (f = frame_log_next(r)) != NULL; n++)
        cr_assert(f->start == -500 * n && f->parent == TDB_NULL);
    cr_assert_eq(n, 3);
    frame_log_reader_free(r);
    for (n = 3; n < FRAME_LOG_RUNS; n++) { /* track 3 has three runs ended: the rest up to the limit */
        r = frame_log_read(g, 3);
        cr_assert_not_null(r, "run %d", n + 1);
        frame_log_reader_free(r);
    }
    cr_assert_null(frame_log_read(g, 3), "past FRAME_LOG_RUNS runs");
    frame_log_reset(g);
    cr_assert(!frame_log_complete(g, 3));
    cr_assert_null(frame_log_read(g, 3));
    frame_log_free(g);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(strmap, interns_many_keys)
{
    struct strmap m;
    strmap_init(&m);
    char key[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "kernel_%d", i);
        cr_assert_eq(strmap_get(&m, key, strlen(key)), -1);
        cr_assert_eq(strmap_put(&m, key, strlen(key), i), 0);
    }
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "kernel_%d", i);
        cr_assert_eq(strmap_get(&m, key, strlen(key)), i);
    }
    cr_assert_eq(strmap_get(&m, "", 0), -1);
    strmap_free(&m);
}

/* A hint is only where to look first: a right one, a wrong one (another key's slot, an empty slot, past
 * the table), one made stale by the table growing, one shared by keys of one length and the same first
 * and last bytes: every lookup answers what strmap_get answers, and an absent key stays absent. */
Test(strmap, hinted_lookups_answer_as_plain_ones_whatever_the_hint)
{
    struct strmap m;
    strmap_init(&m);
    size_t hint = 12345;
    cr_assert_eq(strmap_get_hinted(&m, "a", 1, &hint), -1, "an empty map");
    char key[32];
    size_t shared = 0; /* one hint for every lookup: it follows the last key found */
    for (int i = 0; i < 3000; i++) {
        snprintf(key, sizeof key, "op_%04d_x", i); /* one length, first and last bytes for all */
        cr_assert_eq(strmap_get_hinted(&m, key, strlen(key), &shared), -1, "%s before it was put", key);
        cr_assert_eq(strmap_put(&m, key, strlen(key), i * 7), 0);
        cr_assert_eq(strmap_get_hinted(&m, key, strlen(key), &shared), i * 7, "%s just put", key);
        if (i % 97 == 0) /* an older key, with the hint at the newest: the slot holds another key */
            for (int j = 0; j <= i; j += 31) {
                snprintf(key, sizeof key, "op_%04d_x", j);
                cr_assert_eq(strmap_get_hinted(&m, key, strlen(key), &shared), j * 7, "%s", key);
            }
    }
    for (size_t h = 0; h < m.cap + 3; h += 61) { /* every kind of slot as the hint: each key still found */
        size_t mine = h;
        cr_assert_eq(strmap_get_hinted(&m, "op_0042_x", 9, &mine), 42 * 7);
        mine = h;
        cr_assert_eq(strmap_get_hinted(&m, "op_9999_x", 9, &mine), -1, "absent, hint %zu", h);
        mine = h;
        cr_assert_eq(strmap_get_hinted(&m, "op_0042_x", 9, &mine), 42 * 7); /* mine: that key's slot */
        cr_assert_eq(strmap_get_hinted(&m, "op_0042_", 8, &mine), -1, "a prefix of the key at the hint");
        cr_assert_eq(strmap_get_hinted(&m, "op_0043_x", 9, &mine), 43 * 7, "another key, hint at op_0042_x");
    }
    strmap_free(&m);
}

static char *render_sql(const char *sql, enum render_format fmt)
{
    sqlite3 *db;
    sqlite3_open(":memory:", &db);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    char *text = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&text, &n);
    cr_assert_geq(render_query(st, fmt, NULL, out, stderr), 0);
    fclose(out);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return text;
}

struct rec3 {
    uint64_t a;
    uint32_t b, seq;
};

static int rec3_cmp(const void *x, const void *y)
{
    const struct rec3 *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    return (p->seq > q->seq) - (p->seq < q->seq);
}

/* The external sort against qsort of the same records, in memory and spilled in many runs, a reset
 * between inputs: random records with many duplicates of the first keys (more than the sort's piles:
 * sorted by comparison); 8 interleaved ascending sequences with every 50th record late (dealt onto a
 * few piles and merged); records already in order (one pile). */
Test(spill_sort, equals_qsort_in_memory_and_on_disk)
{
    char *dir = temp_dir();
    size_t n = 100003;
    struct rec3 *want = malloc(n * sizeof *want);
    size_t budgets[] = {64u << 20, 4096, 16 * sizeof(struct rec3)};
    for (size_t b = 0; b < 3; b++) {
        struct spill_sort *s = spill_sort_new(sizeof(struct rec3), budgets[b], rec3_cmp, dir);
        cr_assert(s);
        for (int round = 0; round < 4; round++) {
            unsigned long long x = 88172645463325252ULL + (unsigned)round;
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                if (round < 2)
                    want[i] = (struct rec3){x % 1000, (uint32_t)(x >> 40) % 7, (uint32_t)i};
                else if (round == 2) /* track i % 8, its time rising, a late one now and then */
                    want[i] = (struct rec3){(i % 8) << 32 | (i - (i % 50 == 0 ? i % 977 : 0)), (uint32_t)(x % 3), (uint32_t)i};
                else
                    want[i] = (struct rec3){i / 3, (uint32_t)(i % 3), (uint32_t)i};
                struct rec3 *r = spill_sort_push(s);
                cr_assert(r);
                *r = want[i];
            }
            qsort(want, n, sizeof *want, rec3_cmp);
            cr_assert_eq(spill_sort_done(s), 0);
            cr_assert_eq(spill_sort_count(s), n);
            cr_assert_eq(spill_sort_runs(s) > 0, b > 0, "budget %zu: spilled %zu runs", budgets[b], spill_sort_runs(s));
            const struct rec3 *r;
            size_t got = 0;
            while ((r = spill_sort_next(s)) != NULL) {
                cr_assert_lt(got, n);
                cr_assert(memcmp(r, &want[got], sizeof *r) == 0, "record %zu of budget %zu", got, budgets[b]);
                got++;
            }
            cr_assert_eq(got, n);
            cr_assert_null(spill_sort_error(s));
            spill_sort_reset(s);
        }
        spill_sort_free(s);
    }
    free(want);
    DIR *d = opendir(dir); /* the runs' file was unlinked when made: nothing is left behind */
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d)) != NULL)
        files += e->d_name[0] != '.' || strncmp(e->d_name, ".tracedb-sort", 13) == 0;
    closedir(d);
    cr_assert_eq(files, 0);
    run("rm -rf '%s'", dir);
    free(dir);
}

Test(spill_sort, names_the_directory_it_cannot_spill_to)
{
    struct spill_sort *s = spill_sort_new(sizeof(struct rec3), 16 * sizeof(struct rec3), rec3_cmp, "/nonexistent/dir");
    cr_assert(s);
    void *r = NULL;
    for (int i = 0; i < 17; i++)
        if ((r = spill_sort_push(s)) != NULL)
            memset(r, 0, sizeof(struct rec3));
    cr_assert_null(r, "the 17th record needs a run on disk");
    const char *why = spill_sort_error(s);
    cr_assert(why && strstr(why, "/nonexistent/dir") && strstr(why, "No such file"), "%s", why ? why : "(none)");
    cr_assert_eq(spill_sort_done(s), -1);
    spill_sort_free(s);
}

Test(render, csv_quotes_per_rfc4180)
{
    char *t = render_sql("SELECT 'a,b' AS name, 'say \"hi\"' AS q, 3 AS calls, NULL AS n, 'plain' AS p", FMT_CSV);
    cr_assert_str_eq(t, "name,q,calls,n,p\r\n\"a,b\",\"say \"\"hi\"\"\",3,,plain\r\n");
    free(t);
}

Test(render, json_rows_keep_integers)
{
    char *t = render_sql("SELECT 'x\"y' AS name, 9007199254740993 AS big_ns, 1.5 AS r, NULL AS n", FMT_JSON);
    cr_assert_str_eq(t, "[\n{\"name\":\"x\\\"y\",\"big_ns\":9007199254740993,\"r\":1.5,\"n\":null}\n]\n");
    free(t);
}

/* Times in PyTorch's units; bytes in KB of 1000 (1536 bytes: 1.536 KB, to the hundredth 1.54 KB). */
Test(render, table_uses_units)
{
    char *t = render_sql("SELECT 'op' AS name, 1234567 AS self_cpu_ns, 812 AS a_ns, 2000000000 AS b_ns, "
                         "1536 AS mem_bytes", FMT_TABLE);
    cr_assert(strstr(t, "1.235ms"), "%s", t);
    cr_assert(strstr(t, "0.812us"), "%s", t);
    cr_assert(strstr(t, "2.000s"), "%s", t);
    cr_assert(strstr(t, "1.54 KB"), "%s", t);
    free(t);
}

/* render_bytes: B below 1000, then KB, MB, GB of powers of 1000, to the hundredth, halves up; by hand:
 * 1005 B = 1.005 KB -> 1.01, 1004 -> 1.00, 999999 = 999.999 KB -> 1000.00 KB (the unit goes by the
 * bytes, as PyTorch's does), 1234567 = 1.234567 MB -> 1.23, 2^63 = 9223372036.854775808 GB -> .85. */
Test(render, bytes_print_in_kb_mb_gb_of_1000)
{
    static const struct {
        int64_t b;
        const char *text;
    } cases[] = {{0, "0 B"},
                 {999, "999 B"},
                 {-999, "-999 B"},
                 {1000, "1.00 KB"},
                 {1004, "1.00 KB"},
                 {1005, "1.01 KB"},
                 {1536, "1.54 KB"},
                 {-16000, "-16.00 KB"},
                 {999999, "1000.00 KB"},
                 {1000000, "1.00 MB"},
                 {1234567, "1.23 MB"},
                 {2500000000, "2.50 GB"},
                 {INT64_MIN, "-9223372036.85 GB"}};
    char got[64];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        render_bytes(got, sizeof got, cases[i].b);
        cr_expect_str_eq(got, cases[i].text, "%lld bytes", (long long)cases[i].b);
    }
}

/* render_time prints a time as printf's "%.3f" of the double (PyTorch's tables do the same) on the
 * microseconds, milliseconds or seconds: it reads the digits off the integer, except on an exact tie
 * and near 10^14 ns, where printf decides. The oracle is printf itself, on random times of every range,
 * on every kind of tie (half a unit of the last digit) and on the edges. */
static void printf_time(char *dst, size_t n, int64_t ns)
{
    double us = (double)ns / 1000.0;
    if (fabs(us) >= 1e6)
        snprintf(dst, n, "%.3fs", us / 1e6);
    else if (fabs(us) >= 1e3)
        snprintf(dst, n, "%.3fms", us / 1e3);
    else
        snprintf(dst, n, "%.3fus", us);
}

Test(render, times_print_as_printf_prints_them)
{
    static const int64_t edge[] = {0, 1, -1, 999, 1000, 999999, 1000000, -1000000, 1234500, 1235500, -1234500,
                                   999999499, 999999500, 999999999, 1000000000, 2500000000, 1000500000,
                                   99999999999999, 100000000000000, -99999999999999, INT64_MAX, INT64_MIN};
    char got[64], want[64];
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        render_time(got, sizeof got, edge[i]);
        printf_time(want, sizeof want, edge[i]);
        cr_assert_str_eq(got, want, "%lld ns", (long long)edge[i]);
    }
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 600000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t sign = (x >> 62) & 1 ? -1 : 1, v;
        switch (i % 5) {
        case 0: v = sign * (int64_t)(x % 2000000000u); break;                /* us, ms, s */
        case 1: v = sign * (int64_t)(x % 100000000000000u); break;           /* up to 10^14 */
        case 2: v = sign * (int64_t)((x % 2000000u) * 1000 + 500); break;    /* ms ties */
        case 3: v = sign * (int64_t)((x % 2000000u) * 1000000 + 500000); break; /* s ties */
        default: v = (int64_t)x; break;                                      /* anything */
        }
        render_time(got, sizeof got, v);
        printf_time(want, sizeof want, v);
        cr_assert_str_eq(got, want, "%lld ns", (long long)v);
    }
}

/* render_memory and render_pct print what printf's "%.2f Kb" (Mb, Gb; "%lld b") and "%.2f%%" print,
 * reading the digits off the integer where no tie or rounding error can decide them. The oracle is
 * printf itself: on every kind of tie (an exact half hundredth of a Kb, Mb or Gb; x.xx5 percentages),
 * on the unit edges, on negatives that print as -0.00, and on random values of every range. */
static void printf_memory(char *dst, size_t n, int64_t b)
{
    const double kb = 1024.0, mb = kb * 1024, gb = mb * 1024;
    double a = fabs((double)b);
    if (a >= gb)
        snprintf(dst, n, "%.2f Gb", (double)b / gb);
    else if (a >= mb)
        snprintf(dst, n, "%.2f Mb", (double)b / mb);
    else if (a >= kb)
        snprintf(dst, n, "%.2f Kb", (double)b / kb);
    else
        snprintf(dst, n, "%lld b", (long long)b);
}

Test(render, bytes_and_percentages_print_as_printf_prints_them)
{
    static const int64_t edge[] = {0, 1, -1, 1023, 1024, -1024, 1152, 1153, -1152, 1536, 1048575, 1048576,
                                   1048576 + 5242, 1048576 + 5243, 1073741823, 1073741824, 1073741824 + 5368709,
                                   (int64_t)1 << 53, ((int64_t)1 << 53) - 1, -((int64_t)1 << 53), INT64_MAX, INT64_MIN};
    char got[64], want[64];
    for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
        render_memory(got, sizeof got, edge[i]);
        printf_memory(want, sizeof want, edge[i]);
        cr_assert_str_eq(got, want, "%lld bytes", (long long)edge[i]);
    }
    static const double pedge[] = {0.0, -0.0, 0.005, 0.015, 0.125, -0.125, 12.345, 99.995, 100.0, -0.004, -0.005,
                                   -0.006, 1e-300, -1e-300, 33.333333, 66.666667, 1e12, -1e12, 999999999999.99,
                                   1e300, -1e300};
    for (size_t i = 0; i < sizeof pedge / sizeof *pedge; i++) {
        render_pct(got, sizeof got, pedge[i]);
        snprintf(want, sizeof want, "%.2f%%", pedge[i]);
        cr_assert_str_eq(got, want, "%.17g", pedge[i]);
    }
    render_pct(got, sizeof got, NAN);
    snprintf(want, sizeof want, "%.2f%%", NAN);
    cr_assert_str_eq(got, want);
    render_pct(got, sizeof got, INFINITY);
    snprintf(want, sizeof want, "%.2f%%", INFINITY);
    cr_assert_str_eq(got, want);
    uint64_t x = 2463534242u;
    for (int i = 0; i < 600000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t sign = (x >> 62) & 1 ? -1 : 1, b;
        switch (i % 4) {
        case 0: b = sign * (int64_t)(x % 4096); break;                               /* b and Kb */
        case 1: b = sign * (int64_t)((x % 3000000u) * 256 + 128); break;             /* Kb ties and near */
        case 2: b = sign * (int64_t)(x % ((uint64_t)1 << 54)); break;                /* Mb, Gb, past 2^53 */
        default: b = (int64_t)x; break;                                              /* anything */
        }
        render_memory(got, sizeof got, b);
        printf_memory(want, sizeof want, b);
        cr_assert_str_eq(got, want, "%lld bytes", (long long)b);
        double v, u = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
        switch (i % 5) {
        case 0: v = round(u * 1000000) / 100; break;                    /* as SQLite's round(x, 2) leaves them */
        case 1: v = (double)(x % 200000) / 1000 + 0.005 - 0.0005; break; /* x.xx45 */
        case 2: v = (double)(x % 200000) / 200; break;                   /* x.xx5 and x.xx0 */
        case 3: v = u * 200 - 100; break;                                /* anything, both signs */
        default: v = (u - 0.5) * 1e13; break;                            /* past 10^12 too */
        }
        render_pct(got, sizeof got, v);
        snprintf(want, sizeof want, "%.2f%%", v);
        cr_assert_str_eq(got, want, "%.17g", v);
    }
}

/* step_index_find (segments between the steps' starts and ends, a hint per pass) gives what the rule
 * gives, read off every step here (the latest-starting step holding the instant, at equal starts the
 * first name): on random sets of overlapping, nested, equal-start, empty and negative-time steps, at
 * every boundary and next to it, and at random instants in time order and out of it. */
static long step_by_rule(const struct step_index *s, int64_t t)
{
    long best = -1;
    for (size_t i = 0; i < s->n; i++) /* by start then name: a later start wins, an equal one does not */
        if (s->v[i].start <= t && t < s->v[i].end && (best < 0 || s->v[i].start > s->v[best].start))
            best = (long)i;
    return best;
}

Test(steps, the_segments_find_what_the_rule_finds)
{
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int round = 0; round < 200; round++) {
        sqlite3 *db;
        cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
        cr_assert_eq(sqlite3_exec(db, "CREATE TEMP TABLE scope_steps (name TEXT, start_ns INTEGER, end_ns INTEGER)",
                                  NULL, NULL, NULL), SQLITE_OK);
        sqlite3_stmt *ins;
        cr_assert_eq(sqlite3_prepare_v2(db, "INSERT INTO scope_steps VALUES (?1, ?2, ?3)", -1, &ins, NULL), SQLITE_OK);
        int nsteps = round % 7 == 0 ? 0 : 1 + (int)(round % 40);
        for (int i = 0; i < nsteps; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            char name[32];
            snprintf(name, sizeof name, "ProfilerStep#%d", (int)(x % 9)); /* names repeat, as ranks' do */
            int64_t start = (int64_t)(x % 1000) - 200, dur = (int64_t)((x >> 20) % 300);
            if ((x >> 40) % 5 == 0)
                dur = 0;
            sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(ins, 2, start);
            sqlite3_bind_int64(ins, 3, start + dur);
            cr_assert_eq(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
        sqlite3_finalize(ins);
        struct step_index s;
        cr_assert_eq(step_index_load(&s, db), 0);
        size_t hint = 0, cold;
        for (size_t k = 0; k < s.nseg; k++) /* each boundary and its neighbours */
            for (int64_t d = -1; d <= 1; d++) {
                cold = 0;
                cr_assert_eq(step_index_find(&s, s.seg_at[k] + d, &hint), step_by_rule(&s, s.seg_at[k] + d));
                cr_assert_eq(step_index_find(&s, s.seg_at[k] + d, &cold), step_by_rule(&s, s.seg_at[k] + d));
            }
        for (int64_t t = -300; t < 1400; t += 1 + (int64_t)(x % 3)) /* in time order, the hint's case */
            cr_assert_eq(step_index_find(&s, t, &hint), step_by_rule(&s, t), "t %lld", (long long)t);
        for (int i = 0; i < 2000; i++) { /* anywhere */
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int64_t t = (int64_t)(x % 1700) - 300;
            cr_assert_eq(step_index_find(&s, t, &hint), step_by_rule(&s, t), "t %lld", (long long)t);
        }
        step_index_free(&s);
        sqlite3_close(db);
    }
}

/* libtracedb.so exports the public API of include/tracedb.h, the SQLite extension entry point, and
 * nothing else (no buf_add, no render_query: include/libtracedb.map). */
Test(library, shared_library_exports_only_the_public_api)
{
    int st;
    char *out = run_capture(&st, "nm -D --defined-only '%s' | awk '{print $3}'", src_path("build/libtracedb.so"));
    cr_assert_eq(st, 0);
    char *header = read_file(src_path("include/tracedb.h"), NULL);
    int n = 0;
    for (char *name = strtok(out, "\n"); name; name = strtok(NULL, "\n"), n++) {
        char decl[128];
        snprintf(decl, sizeof decl, "%s(", name);
        if (strcmp(name, "sqlite3_tracedb_init") == 0) /* `.load build/libtracedb` (docs/sql.md) */
            continue;
        cr_assert(strncmp(name, "tdb_", 4) == 0 && strstr(header, decl), "'%s' is exported but not public", name);
    }
    cr_assert_geq(n, 20, "the API itself is exported (%d symbols)", n);
    free(header);
    free(out);
}

/* The NVTX/CUPTI injection library carries what recording needs: no report renderer, no Chrome export, no
 * option parser (before, it linked every object). */
Test(library, injection_library_links_only_the_recorder)
{
    struct stat sb;
    if (stat(src_path("build/libtracedb_inject.so"), &sb) != 0)
        skip_for_missing("no CUDA toolkit at CUDA_HOME: the injection library and the recording tests are not built");
    int st;
    char *out = run_capture(&st, "nm '%s' | grep -c -E ' (render_table|chrome_export|cli_parse_options|tdb_import_chrome)$'",
                            src_path("build/libtracedb_inject.so"));
    cr_assert_eq(atoi(out), 0, "analyzer or importer code in the injection library: %s", out);
    free(out);
    out = run_capture(&st, "nm '%s' | grep -c ' tdb_ingest_event$'", src_path("build/libtracedb_inject.so"));
    cr_assert_eq(atoi(out), 1, "the recorder's writer is there");
    free(out);
}

/* The layers of docs/layout.md: a source file includes headers of its own folder, of include/, and of
 * folders below its own, never of a folder beside or above it (the report and export layers do not know
 * the command line; the recorder knows nothing of the analyzer; import and live do not lean on each other). */
static const struct {
    const char *dir;
    int rank;
} layers[] = {{"include", 0}, {"util", 0}, {"recorder/store", 1}, {"recorder/import", 2},
              {"recorder/live", 2}, {"analyzer/report", 3}, {"analyzer/export", 4}, {"analyzer/cli", 5}};
#define N_LAYERS (int)(sizeof layers / sizeof layers[0])

/* The layer holding header name, or -1 (a system header, or one the build makes). */
static int layer_of_header(const char *name)
{
    for (int i = 0; i < N_LAYERS; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", layers[i].dir, name);
        struct stat sb;
        if (stat(src_path(path), &sb) == 0)
            return i;
    }
    return -1;
}

Test(library, layers_include_only_layers_below)
{
    int files = 0, includes = 0;
    for (int i = 1; i < N_LAYERS; i++) {
        DIR *d = opendir(src_path(layers[i].dir));
        cr_assert(d, "no folder %s", layers[i].dir);
        for (struct dirent *e; (e = readdir(d));) {
            size_t n = strlen(e->d_name);
            if (n < 3 || e->d_name[n - 2] != '.' || (e->d_name[n - 1] != 'c' && e->d_name[n - 1] != 'h'))
                continue;
            char rel[512];
            snprintf(rel, sizeof rel, "%s/%s", layers[i].dir, e->d_name);
            char *text = read_file(src_path(rel), NULL);
            files++;
            for (char *p = strstr(text, "#include \""); p; p = strstr(p + 1, "#include \"")) {
                char name[128];
                if (sscanf(p, "#include \"%127[^\"]\"", name) != 1)
                    continue;
                int at = layer_of_header(name);
                if (at < 0 || at == i)
                    continue;
                includes++;
                cr_expect(layers[at].rank < layers[i].rank, "%s includes %s from %s, not a layer below it", rel, name,
                          layers[at].dir);
            }
            free(text);
        }
        closedir(d);
    }
    cr_assert_gt(files, 50, "the sources were found (%d files)", files);
    cr_assert_gt(includes, 20, "includes across layers were seen (%d)", includes);
}

/* Whether the mapping holding address a has VM_HUGEPAGE ("hg" in /proc/self/smaps' VmFlags). */
static int advised_huge(const void *a)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    cr_assert(f);
    char line[512];
    int in = 0, hg = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping begins */
            in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
        else if (in && strncmp(line, "VmFlags:", 8) == 0)
            hg = strstr(line, " hg") != NULL;
    }
    fclose(f);
    return hg;
}

Test(bigmem, big_arrays_ask_for_huge_pages_and_keep_their_values)
{
    struct stat sb;
    int thp = stat("/sys/kernel/mm/transparent_hugepage/enabled", &sb) == 0; /* else madvise says no */
    size_t n = (size_t)16 << 20;
    unsigned char *p = tdb_big_calloc(n, 1);
    cr_assert(p);
    cr_assert(p[0] == 0 && p[n / 2] == 0 && p[n - 1] == 0);
    uintptr_t inside = ((uintptr_t)p + ((uintptr_t)4 << 20)) & ~(((uintptr_t)2 << 20) - 1);
    if (thp)
        cr_assert(advised_huge((void *)inside), "a 16 MB array's 2 MB pages are asked for");
    p[0] = 7, p[n - 1] = 9;
    unsigned char *q = tdb_big_realloc(p, 2 * n);
    cr_assert(q);
    cr_assert(q[0] == 7 && q[n - 1] == 9, "realloc keeps the values");
    inside = ((uintptr_t)q + n + ((uintptr_t)4 << 20)) & ~(((uintptr_t)2 << 20) - 1);
    if (thp)
        cr_assert(advised_huge((void *)inside), "and the grown part asks too");
    free(q);
    cr_assert_null(tdb_big_calloc(SIZE_MAX / 2, 4), "a size that overflows is refused");
    int *small = tdb_big_malloc(64 * sizeof *small);
    cr_assert(small);
    small[63] = 1;
    free(small);
}

/* test_input.c: bad input worked by hand: a B never ended, truncated files (plain and gzip), invalid JSON
 * midway, wrong types and absurd values, empty and missing files, a real trace cut and corrupted. */
#include "input_helpers.h"
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

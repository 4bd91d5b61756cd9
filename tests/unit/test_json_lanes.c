/* test_json_lanes.c: the Chrome importer's two JSON lanes agree. The fast lane (simdjson walks runs of
 * whole events) and the yajl lane (TRACEDB_JSON=yajl: yajl reads everything) must give the same database,
 * the same messages and the same exit status: on the real traces, and on traces built to move events
 * from one lane to the other (escapes, damage of every kind, run cuts that fall inside strings or nested
 * values, events bigger than the fast lane's buffer, long strings, other shapes, cut files). The fast
 * lane must also really read the events of a well-formed trace (TRACEDB_TIMING counts them). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lane_run {
    int status;
    char *msgs, *dump;
    long fast_events, yajl_events;
};

/* Imports trace with one lane (0 yajl, 1 fast) into dir: exit status, messages (the timing lines
 * removed), the database dumped (meta left out: it holds the import's time). */
static struct lane_run import_lane(const char *trace, const char *opts, const char *dir, int lane)
{
    struct lane_run r = {0};
    r.status = run("%s TRACEDB_TIMING=1 '%s' import -q %s '%s' -o '%s/run.db' 2>'%s/%d.err'",
                   lane ? "" : "TRACEDB_JSON=yajl", tracedb(), opts, trace, dir, dir, lane);
    run("sed -E '/^tracedb: .* [0-9]+\\.[0-9]{3} s$/d; /^tracedb: row writer busy/d; /^tracedb: json lanes/d' "
        "'%s/%d.err' > '%s/%d.msgs'", dir, lane, dir, lane);
    run("(test -f '%s/run.db' && sqlite3 '%s/run.db' .dump | grep -v '^INSERT INTO meta') > '%s/%d.dump' 2>&1", dir, dir,
        dir, lane);
    char path[1024];
    snprintf(path, sizeof path, "%s/%d.msgs", dir, lane);
    r.msgs = read_file(path, NULL);
    snprintf(path, sizeof path, "%s/%d.dump", dir, lane);
    r.dump = read_file(path, NULL);
    snprintf(path, sizeof path, "%s/%d.err", dir, lane);
    char *err = read_file(path, NULL);
    const char *l = strstr(err, "json lanes: ");
    if (!l || sscanf(l, "json lanes: %ld events read by simdjson, %ld by yajl", &r.fast_events, &r.yajl_events) != 2)
        r.fast_events = r.yajl_events = -1;
    free(err);
    run("rm -f '%s/run.db' '%s/%d.err' '%s/%d.msgs' '%s/%d.dump'", dir, dir, lane, dir, lane, dir, lane);
    return r;
}

/* The first line where a and b differ, for the message. */
static void first_difference(const char *a, const char *b, char *out, size_t n)
{
    size_t i = 0, line = 0;
    while (a[i] && a[i] == b[i])
        line = a[i++] == '\n' ? i : line;
    snprintf(out, n, "yajl: %.160s\nfast: %.160s", a + line, b + line);
}

/* Both lanes on trace (with opts): everything the same. Returns the fast lane's run (counts). */
static struct lane_run lanes_agree(const char *trace, const char *opts)
{
    char *dir = temp_dir();
    struct lane_run y = import_lane(trace, opts, dir, 0);
    struct lane_run f = import_lane(trace, opts, dir, 1);
    char diff[400];
    cr_assert_eq(y.status, f.status, "%s: exit status yajl %d, fast %d", trace, y.status, f.status);
    first_difference(y.msgs, f.msgs, diff, sizeof diff);
    cr_assert_str_eq(y.msgs, f.msgs, "%s: messages differ:\n%s", trace, diff);
    first_difference(y.dump, f.dump, diff, sizeof diff);
    cr_assert(strcmp(y.dump, f.dump) == 0, "%s: databases differ:\n%s", trace, diff);
    cr_assert(strstr(y.dump, "CREATE TABLE event") || y.status != 0, "%s: no database", trace);
    cr_assert_eq(y.fast_events, 0, "the yajl lane read %ld events with simdjson", y.fast_events);
    cr_assert_eq(f.fast_events + f.yajl_events, y.yajl_events, "%s: events read: fast lane %ld + %ld, yajl lane %ld",
                 trace, f.fast_events, f.yajl_events, y.yajl_events);
    free(y.msgs), free(y.dump), free(f.msgs), free(f.dump);
    run("rm -rf '%s'", dir);
    free(dir);
    return f;
}

/* A Kineto-shaped trace of n events (CPU ops with nested args, launches, kernels, flows, [memory]
 * instants), with special (an event's text, or anything) in place of every every-th event (0: never)
 * and of the middle one. */
static void write_trace(const char *path, int n, const char *special, int every, int bare)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(bare ? "[\n  " : "{\"schemaVersion\": 1, \"traceName\": \"lanes\",\n  \"traceEvents\": [\n  ", f);
    for (int i = 0; i < n; i++) {
        long ts = 1000 + 10L * i;
        if (i)
            fputs(",\n  ", f);
        if (special && ((every && i % every == every - 1) || i == n / 2)) {
            fputs(special, f);
            continue;
        }
        switch (i % 6) {
        case 0:
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": %ld.5, "
                       "\"dur\": 5.25, \"args\": {\"External id\": %d, \"Input Dims\": [[32, 128], [128]], "
                       "\"Input type\": [\"float\", \"float\"], \"flag\": true, \"none\": null}}", ts, i);
            break;
        case 1:
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
                       "\"ts\": %ld, \"dur\": 2, \"args\": {\"correlation\": %d, \"External id\": %d}}", ts, i, i - 1);
            break;
        case 2:
            fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void k<float>(int)\", \"pid\": 0, \"tid\": 7, "
                       "\"ts\": %ld, \"dur\": 4.125, \"args\": {\"correlation\": %d, \"device\": 0, \"stream\": 7, "
                       "\"grid\": [1, 2, 3], \"block\": [128, 1, 1], \"registers per thread\": 32, \"x\": -1.5e-3}}",
                    ts + 3, i - 1);
            break;
        case 3:
            fprintf(f, "{\"ph\": \"s\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %ld, \"cat\": \"ac2g\", \"name\": \"ac2g\"}",
                    i, ts - 20);
            break;
        case 4:
            fprintf(f, "{\"ph\": \"f\", \"id\": %d, \"pid\": 0, \"tid\": 7, \"ts\": %ld, \"cat\": \"ac2g\", \"name\": \"ac2g\", "
                       "\"bp\": \"e\"}", i - 1, ts - 7);
            break;
        default:
            fprintf(f, "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"[memory]\", \"pid\": 1, "
                       "\"tid\": 1, \"ts\": %ld, \"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Addr\": %d, "
                       "\"Bytes\": 512, \"Total Allocated\": 1024, \"Total Reserved\": 2048}}", ts, 4096 + i);
        }
    }
    fputs(bare ? "\n]\n" : "\n  ],\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"A\"}, {\"id\": 1, \"name\": \"B\"}],\n"
                           "  \"distributedInfo\": {\"rank\": 0}}\n", f);
    fclose(f);
}

/* Writes the trace to a temp file, checks both lanes agree on it; returns the fast lane's run. */
static struct lane_run built_agree(int n, const char *special, int every, int bare, const char *opts)
{
    char *dir = temp_dir(), path[512];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    write_trace(path, n, special, every, bare);
    struct lane_run f = lanes_agree(path, opts);
    run("rm -rf '%s'", dir);
    free(dir);
    return f;
}

static void real_trace_lanes_agree(const char *trace, void *ctx)
{
    (void)ctx;
    struct lane_run f = lanes_agree(trace, "");
    cr_assert(f.fast_events + f.yajl_events < 100 || f.fast_events > 9 * f.yajl_events,
              "%s: the fast lane read %ld events, yajl %ld", trace, f.fast_events, f.yajl_events);
}

Test(lanes, real_traces_agree_and_the_fast_lane_reads_them, .timeout = 300)
{
    struct lane_run f = lanes_agree(src_path("samples/resnet18_inference.json.gz"), "");
    cr_assert_gt(f.fast_events, 9 * f.yajl_events);
    int traces = each_real_trace(real_trace_lanes_agree, NULL);
    cr_assert_geq(traces, 17, "%d real traces", traces);
}

Test(lanes, a_well_formed_trace_goes_through_the_fast_lane, .timeout = 120)
{
    struct lane_run f = built_agree(12000, NULL, 0, 0, "");
    cr_assert_eq(f.fast_events + f.yajl_events, 12000);
    cr_assert_leq(f.yajl_events, 1, "yajl read %ld events (the last one only expected)", f.yajl_events);
    f = built_agree(12000, NULL, 0, 1, ""); /* a bare array */
    cr_assert_leq(f.yajl_events, 1);
}

/* Events the fast lane leaves to yajl, or walks as yajl would; the file stays valid JSON. */
Test(lanes, escapes_odd_values_and_odd_elements_agree, .timeout = 200)
{
    const char *specials[] = {
        /* \u escapes (a pair, a lone surrogate, NUL) and the others, in values and keys */
        "{\"ph\": \"X\", \"name\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\\\ \\/ \\n\\t\", \"pid\": 1, \"tid\": 2, "
        "\"ts\": 5, \"dur\": 1, \"args\": {\"lone\": \"\\ud800x\", \"nul\": \"a\\u0000b\", \"k\\u0065y\": 1, \"t\\tab\": 2}}",
        /* what simdjson refuses and yajl takes: bytes that are not UTF-8, a raw control character */
        "{\"ph\": \"X\", \"name\": \"bad \xff\xfe utf8\", \"pid\": 1, \"tid\": 2, \"ts\": 6, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"ctl \x01 char\", \"pid\": 1, \"tid\": 2, \"ts\": 7, \"dur\": 1}",
        /* not events: scalars, arrays, an empty object; wrong types; duplicate keys; deep nesting */
        "5", "\"text\"", "null", "[1, {\"a\": 2}]", "{}", "true",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": \"12\", \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": {\"a\": [1]}, \"pid\": [1], \"tid\": 1, \"ts\": 1, \"dur\": -4}",
        "{\"ph\": \"X\", \"name\": \"first\", \"name\": \"second\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"ts\": 2, \"dur\": 3}",
        "{\"ph\": \"E\", \"pid\": 1, \"tid\": 9, \"ts\": 3}",
        "{\"ph\": \"B\", \"name\": \"open\", \"pid\": 1, \"tid\": 9, \"ts\": 3}",
        "{\"name\": \"no phase\", \"pid\": 1, \"tid\": 1, \"ts\": 3}",
        "{\"ph\": \"X\", \"name\": 12.5e3, \"pid\": \"p\", \"tid\": \"t\", \"ts\": 1e2, \"dur\": 0.0, "
        "\"args\": {\"big\": 123456789012345678901234567890, \"neg\": -0, \"e\": 1E+2}}",
        /* a cut inside a string or a nested value: the run does not parse */
        "{\"ph\": \"X\", \"name\": \"x}, {y\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"note\": \"a},\\n{b\"}}",
        "{\"ph\": \"X\", \"name\": \"nested\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, "
        "\"args\": {\"list\": [{\"a\": 1}, {\"b\": [{\"c\": 2}, {\"d\": 3}]}]}}",
    };
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        struct lane_run f = built_agree(4000, specials[i], 97, 0, "");
        int walked = i == 7 || i >= 9; /* the fast lane walks these as yajl does (16, 17: when no run is cut in them) */
        cr_assert(walked || f.yajl_events > 1, "special %zu: yajl read %ld events: the fast lane took events it must leave",
                  i, f.yajl_events);
        cr_assert(!walked || f.fast_events > 3000, "special %zu: the fast lane read only %ld events", i, f.fast_events);
    }
    /* on every event: the run is cut inside a string (it does not parse: yajl reads it), or inside a nested
     * list (the last event is left to yajl) */
    cr_assert_gt(built_agree(3000, specials[16], 1, 1, "").yajl_events, 2000); /* a bare array: no cut after it */
    cr_assert_gt(built_agree(3000, specials[17], 1, 1, "").yajl_events, 0);
    built_agree(3000, specials[12], 5, 0, "--strict");
}

Test(lanes, deep_nesting_and_events_bigger_than_the_buffer_agree, .timeout = 120)
{
    size_t depth = 3000, big = (size_t)3 << 19; /* 1.5 MiB: more than the fast lane's run */
    char *s = malloc(big + 2 * depth + 200);
    int n = sprintf(s, "{\"ph\": \"X\", \"name\": \"deep\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"d\": ");
    for (size_t i = 0; i < depth; i++)
        s[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        s[n++] = ']';
    strcpy(s + n, "}}");
    built_agree(3000, s, 0, 0, "");
    n = sprintf(s, "{\"ph\": \"X\", \"name\": \"big\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"s\": \"");
    memset(s + n, 'x', big);
    strcpy(s + n + big, "\"}}");
    built_agree(6000, s, 0, 0, "");
    /* strings over --max-string: the event is skipped the same way, in values and in keys */
    built_agree(3000, "{\"ph\": \"X\", \"name\": \"0123456789012345678901234567890123456789\", \"pid\": 1, \"tid\": 1, "
                      "\"ts\": 1, \"dur\": 1, \"args\": {\"abcdefghijabcdefghijabcdefghijabcdefghijx\": 1}}",
                250, 0, "--max-string 32");
    free(s);
}

/* Damage: yajl's lane stops at it with its message and keeps every whole event before it; so must the
 * fast lane. */
Test(lanes, damage_agrees, .timeout = 200)
{
    const char *specials[] = {
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 01, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1., \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": -, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1e5x, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": +1, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": .5, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": tru}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": nulll}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\" 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1,}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"args\": {\"a\": [1, 2,]}}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1} {\"ph\": \"i\"}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}]",
        "{\"ph\": \"X\", \"name\": \"bad escape \\x\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, 7: 1}",
        "{\"ph\": \"X\", \"name\": \"unclosed, \"pid\": 1}",
        ",",
        /* a value followed by something else than ',' or its closer (the fuzzer's find) */
        "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 2, \"tid\": 1, \"args\": \"{mean\":\"main\"}}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1 \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\" \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"args\": {\"a\": [1 2], \"b\": true null}}",
        "{\"ph\": \"X\", \"name\": \"n\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1, \"args\": {\"a\": 1]}}",
    };
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
        struct lane_run f = built_agree(12000, specials[i], 0, 0, ""); /* the damage in the third MiB */
        cr_assert_gt(f.fast_events, 4000, "special %zu: the fast lane read %ld events before the damage", i, f.fast_events);
    }
}

/* Files cut short, plain and gzip'd, at places inside and between the fast lane's runs. */
Test(lanes, cut_files_agree, .timeout = 200)
{
    char *dir = temp_dir(), path[512], cut[600];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    write_trace(path, 9000, NULL, 0, 0);
    const long at[] = {100, 1048576 + 77, 1500001, 1900000};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        snprintf(cut, sizeof cut, "%s/cut.json", dir);
        run("head -c %ld '%s' > '%s'", at[i], path, cut);
        lanes_agree(cut, "");
        run("gzip -c '%s' > '%s.gz'", cut, cut);
        snprintf(cut, sizeof cut, "%s/cut.json.gz", dir);
        lanes_agree(cut, "");
    }
    run("gzip -c '%s' | head -c 300000 > '%s/cutgz.json.gz'", path, dir); /* the compressed stream cut */
    snprintf(cut, sizeof cut, "%s/cutgz.json.gz", dir);
    lanes_agree(cut, "");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* test_read_ahead.c: the importer's input (recorder/import/read_ahead.c): plain or gzip, read on the
 * parser's thread (TRACEDB_READ_AHEAD=off) or ahead on a thread of its own (=on). Both ways must give
 * the same database, messages and exit status: on the real traces, on a trace of many blocks (plain,
 * gzip, from a pipe, in several gzip members, with bytes after the last member), on a gzip file cut
 * short, and on damaged gzip data, where every whole event before the damage is kept (counted from the
 * text: zlib's gzread, used before, lost what it had inflated in the call that met the damage). */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct outcome {
    int status;
    char *msgs, *dump;
};

/* Imports trace (a shell word: a path, or "-" with input) with TRACEDB_READ_AHEAD=mode into dir:
 * exit status, messages (timing lines removed) and the database dumped without meta (the import's
 * time is there). */
static struct outcome import_mode(const char *input, const char *trace, const char *dir, const char *mode)
{
    struct outcome o;
    o.status = run("%s TRACEDB_READ_AHEAD=%s '%s' import -q '%s' -o '%s/run.db' --force 2>'%s/%s.err'", input, mode,
                   tracedb(), trace, dir, dir, mode); /* one name: the messages name the database */
    run("(test -f '%s/run.db' && sqlite3 '%s/run.db' .dump | grep -v '^INSERT INTO meta') > '%s/%s.dump' 2>&1", dir, dir, dir,
        mode);
    run("mv -f '%s/run.db' '%s/%s.db' 2>/dev/null", dir, dir, mode);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.err", dir, mode);
    o.msgs = read_file(path, NULL);
    snprintf(path, sizeof path, "%s/%s.dump", dir, mode);
    o.dump = read_file(path, NULL);
    return o;
}

static void outcome_free(struct outcome *o)
{
    free(o->msgs), free(o->dump);
}

/* The trace imported with the thread and without: the same in every way. Returns the dump's size. */
static size_t modes_agree(const char *input, const char *trace, const char *dir)
{
    struct outcome on = import_mode(input, trace, dir, "on"), off = import_mode(input, trace, dir, "off");
    cr_assert_eq(on.status, off.status, "%s: exit status %d with the thread, %d without", trace, on.status, off.status);
    cr_assert_str_eq(on.msgs, off.msgs, "%s: messages differ", trace);
    cr_assert(strcmp(on.dump, off.dump) == 0, "%s: databases differ", trace);
    size_t n = strlen(on.dump);
    outcome_free(&on), outcome_free(&off);
    return n;
}

static void real_trace(const char *path, void *ctx)
{
    size_t n = modes_agree("", path, ctx);
    cr_assert(n > 1000, "%s: no database", path);
}

Test(read_ahead, real_traces_read_ahead_equal_read_in_place)
{
    char *dir = temp_dir();
    cr_assert_geq(each_real_trace(real_trace, dir), 17);
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace of n complete events named e0, e1, ... on one thread, one after another (no nesting), each
 * with args, so that it spans many of the thread's 256 KiB blocks. */
static void write_many(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("{\"traceEvents\": [\n", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"e%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 5, "
                   "\"args\": {\"External id\": %d, \"Input Dims\": [[32, 128], [128]], \"note\": \"%0*d\"}}",
                i ? ",\n" : "", i, 10 * i, i, 1 + i % 97, 0);
    fputs("\n]}\n", f);
    cr_assert_eq(fclose(f), 0);
}

Test(read_ahead, a_trace_of_many_blocks_plain_gzip_and_piped)
{
    char *dir = temp_dir();
    char trace[1024], gz[1100], db[1100];
    snprintf(trace, sizeof trace, "%s/many.json", dir);
    snprintf(gz, sizeof gz, "%s/many.json.gz", dir);
    write_many(trace, 40000); /* about 7 MB: 28 blocks, the ring of 4 wraps 7 times */
    cr_assert_eq(run("gzip -k '%s'", trace), 0);
    modes_agree("", trace, dir);
    modes_agree("", gz, dir);
    char input[1200];
    snprintf(input, sizeof input, "cat '%s' |", gz); /* a pipe: size unknown, read ahead by default */
    modes_agree(input, "-", dir);
    /* by default (no knob), each way gives the same rows, every event kept in order */
    snprintf(db, sizeof db, "%s/default.db", dir);
    const char *ways[3] = {trace, gz, "-"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(run("%s '%s' import -q '%s' -o '%s' --force", i == 2 ? input : "", tracedb(), ways[i], db), 0);
        cr_assert_eq(file_int(db, "SELECT count(*) FROM event"), 40000);
        cr_assert_eq(file_int(db, "SELECT count(*) FROM ops WHERE name = 'e' || (id - 1)"), 40000, "in order");
    }
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A trace of 40,000 events made into a broken gzip file by make (a shell command: %1$s the trace's path,
 * %2$s the gzip file's), imported both ways: the import fails the same way (exit status 1, the same
 * messages, one saying what), with the same rows, and keeps every whole event of the text before the
 * byte the message names (counted from the text: each event ends with "}}"), in order. Returns that
 * byte. */
static long broken_gzip(const char *make, const char *what)
{
    char *dir = temp_dir();
    char trace[1024], gz[1100], db[1100];
    snprintf(trace, sizeof trace, "%s/many.json", dir);
    snprintf(gz, sizeof gz, "%s/broken.json.gz", dir);
    snprintf(db, sizeof db, "%s/on.db", dir);
    write_many(trace, 40000);
    cr_assert_eq(run(make, trace, gz), 0);
    struct outcome on = import_mode("", gz, dir, "on"), off = import_mode("", gz, dir, "off");
    cr_assert_eq(on.status, 1, "%s", on.msgs);
    cr_assert_eq(off.status, 1, "%s", off.msgs);
    cr_assert_str_eq(on.msgs, off.msgs);
    cr_assert(strcmp(on.dump, off.dump) == 0, "databases differ");
    const char *at = strstr(on.msgs, what);
    long byte = -1;
    cr_assert(at && sscanf(at + strlen(what), " after byte %ld", &byte) == 1, "%s", on.msgs);
    long len;
    char *text = read_file(trace, &len);
    int64_t whole = 0;
    for (long i = 1; i < byte && i < len; i++)
        whole += text[i - 1] == '}' && text[i] == '}';
    free(text);
    cr_assert(whole > 10000 && whole < 40000, "%lld whole events before byte %ld", (long long)whole, byte);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event"), whole, "every whole event before byte %ld", byte);
    cr_assert_eq(file_int(db, "SELECT count(*) FROM ops WHERE name = 'e' || (id - 1)"), whole, "in order, whole");
    outcome_free(&on), outcome_free(&off);
    run("rm -rf '%s'", dir);
    free(dir);
    return byte;
}

Test(read_ahead, a_gzip_file_cut_short_keeps_every_whole_event_before_the_cut)
{
    broken_gzip("gzip -c '%1$s' | head -c 200000 > '%2$s'", "compressed file is truncated"); /* about half */
}

Test(read_ahead, damaged_gzip_data_keeps_every_whole_event_before_it)
{
    /* the first 3 MB as one gzip member, then a member whose first deflate block has the reserved type
     * (0x07): inflate stops there with "invalid block type" (zlib's gzread, used before, lost what it had
     * inflated in its last call: 535 of the 13,853 events, reading 256 KiB at a time) */
    long byte = broken_gzip("head -c 3000000 '%1$s' | gzip -c > '%2$s' && "
                            "printf '\\037\\213\\010\\0\\0\\0\\0\\0\\0\\003\\007junk' >> '%2$s'",
                            "compressed data damaged");
    cr_assert_eq(byte, 3000000, "the damage is at the second member's start");
}

Test(read_ahead, gzip_members_and_bytes_after_the_last_are_read_as_gzip_does)
{
    char *dir = temp_dir();
    char trace[1024], gz[1100], plain_db[1100], db[1100];
    snprintf(trace, sizeof trace, "%s/many.json", dir);
    snprintf(gz, sizeof gz, "%s/parts.json.gz", dir);
    snprintf(plain_db, sizeof plain_db, "%s/plain.db", dir);
    snprintf(db, sizeof db, "%s/parts.db", dir);
    write_many(trace, 40000);
    /* three members (cut inside events), then bytes that are no member: gzip -d reads the members and
     * warns of the rest; tracedb imports the members' text, the same rows as the plain file's */
    cr_assert_eq(run("(head -c 1000000 '%s' | gzip -c; tail -c +1000001 '%s' | head -c 2500000 | gzip -c; "
                     "tail -c +3500001 '%s' | gzip -c; printf 'trailing junk') > '%s'", trace, trace, trace, gz), 0);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(), trace, plain_db), 0);
    modes_agree("", gz, dir);
    cr_assert_eq(run("'%s' import -q '%s' -o '%s'", tracedb(), gz, db), 0, "bytes after the last member are ignored");
    cr_assert_eq(file_int(db, "SELECT count(*) FROM event"), 40000);
    cr_assert_eq(run("sqlite3 '%s' .dump | grep -v '^INSERT INTO meta' > '%s/a' && sqlite3 '%s' .dump | "
                     "grep -v '^INSERT INTO meta' | sed 's/parts.json.gz/many.json/g' > '%s/b' && cmp -s '%s/a' '%s/b'",
                     plain_db, dir, db, dir, dir, dir), 0, "the members' rows are the plain file's");
    run("rm -rf '%s'", dir);
    free(dir);
}

/* A gzip file cut before its first inflated byte (its header alone, a few bytes of deflate) is said to be
 * cut short, as a longer cut is, not empty: an empty file is one with no bytes (gzip -t says the same). */
Test(read_ahead, a_gzip_file_cut_before_its_first_byte_is_said_to_be_truncated)
{
    char *dir = temp_dir();
    static const int cuts[] = {2, 10, 11};
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        int st;
        char *out = run_capture(&st, "cd '%s' && printf '[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]' | "
                                     "gzip -c | head -c %d > t.json.gz && (gzip -t t.json.gz 2>/dev/null || echo gzip_says_cut) && "
                                     "'%s' import t.json.gz -o t.db 2>&1; echo rc=$?; test -e t.db || echo no_db",
                                dir, cuts[i], tracedb());
        cr_expect(strstr(out, "gzip_says_cut\n"), "%d bytes: gzip -t: %s", cuts[i], out);
        cr_expect(strstr(out, "t.json.gz: compressed file is truncated before the first byte of the trace\n") &&
                      !strstr(out, "empty file") && strstr(out, "rc=1\n") && strstr(out, "no_db\n"),
                  "%d bytes: %s", cuts[i], out);
        free(out);
    }
    int st; /* a file of no bytes is empty */
    char *out = run_capture(&st, "cd '%s' && : > e.json.gz && '%s' import e.json.gz -o e.db 2>&1", dir, tracedb());
    cr_expect(strstr(out, "e.json.gz: empty file: no trace events\n"), "%s", out);
    free(out);
    run("rm -rf '%s'", dir);
    free(dir);
}

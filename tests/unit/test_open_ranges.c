/* test_open_ranges.c: B events waiting for their E are held in bounded memory, the oldest beyond a budget
 * in a temporary file (recorder/import/open_ranges.c). A million B ranges never ended took 741 MB at
 * import (three buffers of 256 bytes each), then 120 MB with the sanitizers (the nesting's stack of a
 * million frames, when they end); now they must stay within a bound below that, sanitizers included,
 * with the rows worked out by hand from the trace. Ranges spilled to the file and read back
 * (a 1 KiB budget: TRACEDB_SORT_KIB=1) give the same database, row for row, as ranges held in memory, on
 * tracks that interleave, nest deep, end out of turn and leave ranges open. */
#include "helpers.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define N_NEVER_ENDED 1000000 /* B events, none ended */
#define RSS_BOUND_KB (96 * 1024) /* the import's peak: 120 MB with the sanitizers before the stacks were paged, 51 now */

/* B event i of n at i us named r<i % 100> on one thread, never ended: each is kept, ending at the trace's
 * last time, (n - 1) us, so range i lasts n - 1 - i us, and each is flagged. */
Test(open_ranges, a_million_ranges_never_ended_import_in_bounded_memory, .timeout = 120)
{
    char *dir = temp_dir(), json[600], db[600];
    snprintf(json, sizeof json, "%s/deep.json", dir);
    snprintf(db, sizeof db, "%s/deep.db", dir);
    FILE *out = fopen(json, "w");
    cr_assert(out);
    fputs("{\"traceEvents\":[\n", out);
    for (int i = 0; i < N_NEVER_ENDED; i++)
        fprintf(out, "%s{\"ph\":\"B\",\"name\":\"r%d\",\"ts\":%d,\"pid\":1,\"tid\":1}\n", i ? "," : "", i % 100, i);
    fputs("]}\n", out);
    cr_assert_eq(fclose(out), 0);
    /* the quarantine holds no freed memory: the peak is what the import holds */
    cr_assert_eq(run("ASAN_OPTIONS=\"$ASAN_OPTIONS:quarantine_size_mb=0\" '%s' import -q '%s' -o '%s' 2>/dev/null",
                     tracedb(), json, db), 0);
    struct rusage ru;
    cr_assert_eq(getrusage(RUSAGE_CHILDREN, &ru), 0);
    cr_assert_lt(ru.ru_maxrss, RSS_BOUND_KB, "peak RSS of the import %ld KB: every open range held in memory",
                 ru.ru_maxrss);
    const int64_t n = N_NEVER_ENDED, last_ns = (n - 1) * 1000;
    sqlite3 *d = db_open(db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), n);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE args = '{\"tracedb.anomaly\":\"never ended\"}'"), n,
                 "every range flagged");
    cr_assert_eq(db_int(d, "SELECT count(DISTINCT start_ns + dur_ns) FROM event"), 1, "one end for all");
    cr_assert_eq(db_int(d, "SELECT max(start_ns + dur_ns) FROM event"), last_ns);
    cr_assert_eq(db_int(d, "SELECT sum(dur_ns / 1000) FROM event"), n * (n - 1) / 2, "range i lasts n - 1 - i us");
    /* in file order: ids ascend with the start, and the names go r0, r1, ... r99 in turn */
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event a JOIN event b ON b.id = a.id + 1 WHERE b.start_ns <= a.start_ns"), 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM events WHERE name <> 'r' || ((start_ns / 1000) % 100)"), 0);
    /* each inside the one before (row 1 the outermost), its depth the number above it, which the import
     * holds up to 65,535 (16 bits) and then stays at; but the last, row n = 1,000,000: it lasts 0 us from
     * where the one before ends, and a range holds [start, end), so it stands alone at depth 0 */
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE parent_id IS NOT (CASE WHEN id BETWEEN 2 AND 999999 THEN id - 1 END)"),
                 0, "each range inside the one before");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE depth <> (CASE WHEN id < 1000000 THEN min(id - 1, 65535) ELSE 0 END)"),
                 0);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE self_ns <> (CASE WHEN id < 1000000 THEN 1000 ELSE 0 END)"), 0,
                 "1 us of its own (its child starts 1 us after it and ends with it), the last none");
    sqlite3_close(d);
    run("rm -rf '%s'", dir);
    free(dir);
}

static uint64_t rng = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng % n);
}

#define THREADS 5

/* Writes ranges on THREADS tracks in turn at random: long runs of B (deep), E that end one track's
 * ranges while others' lie above them, E with no B open, E before their B, names, categories and args
 * of many lengths. Counts what the import must give: the B events (each a row), those left open (each
 * flagged never ended), the E events that ended one. */
static void write_ranges(const char *path, int *begins, int *open_at_end, int *ended)
{
    FILE *out = fopen(path, "w");
    cr_assert(out);
    int depth[THREADS] = {0};
    *begins = *ended = 0;
    fputs("[\n", out);
    long ts = 0;
    for (int i = 0; i < 40000; i++) {
        int t = rnd(THREADS);
        ts += rnd(3);
        int phase = (i / 4000) % 2; /* runs of mostly B, then mostly E */
        if (rnd(100) < (phase ? 30 : 75)) {
            int pad = rnd(4) == 0 ? (int)rnd(600) : 0;
            fprintf(out, "%s{\"ph\":\"B\",\"name\":\"n%u%.*s\",\"ts\":%ld,\"pid\":1,\"tid\":%d", i ? "," : "", rnd(40), pad,
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                    ts, t);
            if (rnd(2))
                fprintf(out, ",\"cat\":\"%s\"", rnd(2) ? "cpu_op" : "user_annotation");
            if (rnd(3) == 0)
                fprintf(out, ",\"args\":{\"External id\":%d,\"note\":\"%.*s\"}", i, (int)rnd(300),
                        "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
                        "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
                        "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
            fputs("}\n", out);
            depth[t]++, (*begins)++;
        } else {
            long at = rnd(50) == 0 ? ts - (long)rnd(20) : ts; /* now and then before its B */
            fprintf(out, "%s{\"ph\":\"E\",\"ts\":%ld,\"pid\":1,\"tid\":%d}\n", i ? "," : "", at, t);
            if (depth[t])
                depth[t]--, (*ended)++;
        }
    }
    fputs("]\n", out);
    cr_assert_eq(fclose(out), 0);
    *open_at_end = 0;
    for (int t = 0; t < THREADS; t++)
        *open_at_end += depth[t];
}

/* Every column of every event row, in id order, as one text. */
static char *event_rows(const char *db)
{
    sqlite3 *d = db_open(db);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d, "SELECT * FROM event ORDER BY id", -1, &st, NULL), SQLITE_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert(out);
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int k = 0; k < sqlite3_column_count(st); k++) {
            const unsigned char *v = sqlite3_column_text(st, k);
            fprintf(out, "%s%s", k ? "|" : "", v ? (const char *)v : "NULL");
        }
        fputc('\n', out);
    }
    sqlite3_finalize(st);
    sqlite3_close(d);
    fclose(out);
    return text;
}

Test(open_ranges, ranges_spilled_to_disk_give_the_rows_of_ranges_in_memory, .timeout = 120)
{
    char *dir = temp_dir(), json[600], mem_db[600], disk_db[600];
    snprintf(json, sizeof json, "%s/ranges.json", dir);
    snprintf(mem_db, sizeof mem_db, "%s/mem.db", dir);
    snprintf(disk_db, sizeof disk_db, "%s/disk.db", dir);
    int begins, open_at_end, ended;
    write_ranges(json, &begins, &open_at_end, &ended);
    cr_assert_gt(open_at_end, 1000, "the trace leaves ranges open (%d)", open_at_end);
    cr_assert_eq(import_to(json, mem_db), 0);
    setenv("TRACEDB_SORT_KIB", "1", 1); /* a few ranges in memory, the rest in the file */
    cr_assert_eq(import_to(json, disk_db), 0);
    unsetenv("TRACEDB_SORT_KIB");
    sqlite3 *d = db_open(disk_db);
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event"), begins, "a row per B event");
    cr_assert_eq(db_int(d, "SELECT count(*) FROM event WHERE args LIKE '%\"tracedb.anomaly\":\"never ended\"}'"),
                 open_at_end, "the ranges left open flagged");
    cr_assert_eq(begins - open_at_end, ended);
    sqlite3_close(d);
    char *mem = event_rows(mem_db), *disk = event_rows(disk_db);
    cr_assert(strcmp(mem, disk) == 0, "the rows differ with the ranges on disk");
    free(mem), free(disk);
    run("rm -rf '%s'", dir);
    free(dir);
}

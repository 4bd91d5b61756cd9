/* recorder_bench.c: the recorder's costs, each beside its baseline in the same run:
 *   - one tdb_range_push + tdb_range_pop pair on the hot path, median over batches, against the same
 *     loop with no calls (the loop's own cost) and against two clock reads (the floor: a pair takes
 *     two timestamps);
 *   - sustained events/s into SQLite: one thread records marks as fast as it can for 2 s; the rows
 *     that reach the database over the wall time, and how many were dropped instead of blocking;
 *     against SQLite alone: the same rows (same table, same pragmas) inserted by one thread with a
 *     prepared statement, one transaction, nothing else running: the ceiling for any writer of
 *     this schema on this machine;
 *   - paced: a thread records marks, or ranges two deep, at a fixed rate for 1 s; how many were
 *     dropped at each rate and how long closing took (nesting, sums, indexes).
 * Usage: recorder_bench DIR */
#include "tracedb.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 1000
#define BATCHES 300

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

/* SQLite alone: n rows like the recorder's marks into the event table of a database with the
 * recorder's schema (copied from the recording at path), WAL and synchronous=OFF as a recording has. */
static double sqlite_alone(const char *path, const char *dir, long n)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s/sqlite-alone.db", dir);
    unlink(copy);
    sqlite3 *src, *db;
    sqlite3_stmt *st;
    if (sqlite3_open(path, &src) != SQLITE_OK || sqlite3_open(copy, &db) != SQLITE_OK)
        return 0;
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF; PRAGMA cache_size=-4096", NULL, NULL, NULL);
    if (sqlite3_prepare_v2(src, "SELECT sql FROM sqlite_schema WHERE name = 'event'", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_step(st) != SQLITE_ROW ||
        sqlite3_exec(db, (const char *)sqlite3_column_text(st, 0), NULL, NULL, NULL) != SQLITE_OK)
        return 0;
    sqlite3_finalize(st);
    sqlite3_close(src);
    if (sqlite3_prepare_v2(db, "INSERT INTO event (id, kind, name_id, thread_id, start_ns, dur_ns, self_ns) "
                           "VALUES (?1, 12, 1, 1, ?2, 0, 0)", -1, &st, NULL) != SQLITE_OK)
        return 0;
    double t0 = now_ns();
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (long i = 1; i <= n; i++) {
        sqlite3_bind_int64(st, 1, i);
        sqlite3_bind_int64(st, 2, 1700000000000000000 + i * 40);
        sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    double t1 = now_ns();
    sqlite3_finalize(st);
    sqlite3_close(db);
    unlink(copy);
    return (double)n / ((t1 - t0) / 1e9);
}

/* Records events at `rate` per second for 1 s (paced in groups of 100): marks, or ranges nested two
 * deep (outer { inner }); returns the share of records dropped, and the time tdb_close took. */
static double paced(const char *path, double rate, int ranges, long *calls, double *close_s)
{
    unlink(path);
    tdb_recording *r = tdb_open(path, NULL);
    if (!r)
        return -1;
    double t0 = now_ns();
    long n = 0;
    for (;;) {
        double t = now_ns() - t0;
        if (t >= 1e9)
            break;
        if ((double)n < rate * t / 1e9) {
            for (int i = 0; i < 100; i += 1 + ranges) {
                if (ranges) {
                    tdb_range_push("outer");
                    tdb_range_push("inner");
                    tdb_range_pop();
                    tdb_range_pop();
                } else {
                    tdb_instant("mark");
                }
            }
            n += 100;
        }
    }
    int64_t dropped = tdb_dropped();
    double t1 = now_ns();
    tdb_close(r);
    *close_s = (now_ns() - t1) / 1e9;
    *calls = n;
    return (double)dropped / (double)(ranges ? 2 * n : n); /* a range is two records */
}

/* This process's resident memory now, in KiB (Linux /proc). */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void pause_ms(int ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    char path[4096];
    snprintf(path, sizeof path, "%s/recorder-bench.db", dir);
    unlink(path);
    tdb_recording *r = tdb_open(path, NULL);
    if (!r)
        return 1;
    static double pair[BATCHES], empty[BATCHES], clocks[BATCHES];
    volatile long sink = 0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < BATCH; i++)
            sink += i;
        double t1 = now_ns();
        for (int i = 0; i < BATCH; i++) {
            tdb_range_push("aten::linear");
            tdb_range_pop();
        }
        double t2 = now_ns();
        for (int i = 0; i < BATCH; i++) {
            struct timespec a, c;
            clock_gettime(CLOCK_REALTIME, &a);
            clock_gettime(CLOCK_REALTIME, &c);
            sink += a.tv_nsec + c.tv_nsec;
        }
        double t3 = now_ns();
        empty[b] = (t1 - t0) / BATCH, pair[b] = (t2 - t1) / BATCH, clocks[b] = (t3 - t2) / BATCH;
        pause_ms(2); /* let the writer drain: measure recording, not dropping */
    }
    int64_t dropped_hot = tdb_dropped();
    tdb_flush();
    double t0 = now_ns();
    long marks = 0, rss_start = rss_kib(), rss_half = 0;
    while (now_ns() - t0 < 2e9) {
        for (int i = 0; i < 1000; i++)
            tdb_instant("mark");
        marks += 1000;
        if (!rss_half && now_ns() - t0 >= 1e9)
            rss_half = rss_kib();
    }
    double t1 = now_ns();
    long rss_end = rss_kib();
    int64_t dropped = tdb_dropped() - dropped_hot;
    if (tdb_close(r) != 0)
        return 1;
    double t2 = now_ns();
    sqlite3 *db;
    sqlite3_stmt *st;
    long written = 0;
    if (sqlite3_open(path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM event WHERE name_id = (SELECT id FROM string WHERE value = 'mark')",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        written = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    printf("recorder hot path (median of %d batches of %d):\n", BATCHES, BATCH);
    printf("  empty loop iteration                 %8.1f ns\n", median(empty, BATCHES));
    printf("  two clock_gettime (the floor)        %8.1f ns\n", median(clocks, BATCHES));
    printf("  tdb_range_push + tdb_range_pop       %8.1f ns   (target < 100 ns; %lld dropped)\n",
           median(pair, BATCHES), (long long)dropped_hot);
    printf("recorder sustained, one thread recording as fast as it can for %.1f s:\n", (t1 - t0) / 1e9);
    printf("  recorded calls %ld: %ld rows written, %lld dropped (never blocking)\n", marks, written, (long long)dropped);
    printf("  resident memory: %ld MiB at the start, %ld MiB after 1 s, %ld MiB after 2 s (bounded: rings, batches, "
           "SQLite's cache)\n", rss_start / 1024, rss_half / 1024, rss_end / 1024);
    printf("  rows into SQLite: %.2f M/s over the recording and close (%.2f s, of which tdb_close %.2f s; "
           "target >= 2 M/s)\n",
           (double)written / ((t2 - t0) / 1e9) / 1e6, (t2 - t0) / 1e9, (t2 - t1) / 1e9);
    double alone = sqlite_alone(path, dir, written > 0 ? written : 1000000);
    printf("  SQLite alone, the same rows by one thread, nothing else running: %.2f M/s (the ceiling; "
           "recorder/ceiling %.2f over the recording and close)\n",
           alone / 1e6, (double)written / ((t2 - t0) / 1e9) / alone);
    printf("recorder paced for 1 s at a fixed rate (one thread), then closed:\n");
    static const double rates[] = {0.25e6, 0.5e6, 1e6, 2e6};
    for (int ranges = 0; ranges < 2; ranges++)
        for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
            long calls = 0;
            double close_s = 0, share = paced(path, rates[i], ranges, &calls, &close_s);
            printf("  %-6s %.2f M events/s: %ld recorded, %5.1f%% dropped, tdb_close %.2f s\n",
                   ranges ? "ranges" : "marks", rates[i] / 1e6, calls, share * 100, close_s);
        }
    (void)sink;
    return 0;
}

/* recorder_bench.c: the recorder's costs, each beside its baseline in the same run:
 *   - one tdb_range_push + tdb_range_pop pair on the hot path, median over batches, against the same
 *     loop with no calls (the loop's own cost) and against two clock reads (the floor: a pair takes
 *     two timestamps);
 *   - offered load sustained: threads record ranges (outer { inner }) at a fixed rate (2 M/s from one
 *     thread, 1 M/s from each of two, 1 M/s, and 0.5 M/s for 10 s); records dropped, the rows in the
 *     database afterwards (exact?), staging bytes per range, resident memory each second, and how long
 *     closing took against the recording time; beside SQLite alone inserting the same rows (one
 *     thread, prepared statement, one transaction: the ceiling for any writer of this schema here);
 *   - tdb_finish on a staging file of 2 M ranges: conversion with no background converter's help.
 * Usage: recorder_bench DIR [hot [LABEL]]   (hot: the hot path only, labelled as how the library was linked) */
#include "tracedb.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/wait.h>

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
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* What one paced run measured. */
struct paced_run {
    long ranges;        /* recorded (pushes) */
    int64_t dropped;    /* records the rings could not take */
    double record_s, close_s;
    long stage_bytes;   /* the staging file just before close */
    long rss_kib[12];   /* the process's resident memory after each second */
    int nrss;
    long rows;          /* ranges in the database afterwards */
};

struct pacer {
    double rate, seconds;
    long n;
};

/* Ranges nested two deep (outer { inner }) at p->rate per second for p->seconds, paced in groups of 100. */
static void *pace(void *arg)
{
    struct pacer *p = arg;
    double t0 = now_ns();
    for (;;) {
        double t = now_ns() - t0;
        if (t >= p->seconds * 1e9)
            break;
        if ((double)p->n < p->rate * t / 1e9) {
            for (int i = 0; i < 50; i++) {
                tdb_range_push("outer");
                tdb_range_push("inner");
                tdb_range_pop();
                tdb_range_pop();
            }
            p->n += 100;
        }
    }
    return NULL;
}

static long file_bytes(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (f)
        fclose(f);
    return n;
}

static long count_rows(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long n = -1;
    if (sqlite3_open(path, &db) == SQLITE_OK && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

/* `threads` threads each record ranges at `rate` per second for `seconds`, then the recording closes. */
static int paced(const char *path, double rate, double seconds, int threads, struct paced_run *out)
{
    char stage[4200];
    snprintf(stage, sizeof stage, "%s-stage", path);
    unlink(path);
    memset(out, 0, sizeof *out);
    tdb_recording *r = tdb_open(path, NULL);
    if (!r)
        return -1;
    struct pacer p[8];
    pthread_t th[8];
    double t0 = now_ns();
    for (int i = 0; i < threads; i++) {
        p[i] = (struct pacer){rate, seconds, 0};
        if (pthread_create(&th[i], NULL, pace, &p[i]) != 0)
            return -1;
    }
    while (now_ns() - t0 < seconds * 1e9 && out->nrss < 12) { /* resident memory each second */
        pause_ms(1000);
        if (now_ns() - t0 <= seconds * 1e9 + 5e7)
            out->rss_kib[out->nrss++] = rss_kib();
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        out->ranges += p[i].n;
    }
    double t1 = now_ns();
    out->dropped = tdb_dropped();
    out->stage_bytes = file_bytes(stage);
    if (tdb_close(r) != 0)
        return -1;
    double t2 = now_ns();
    out->record_s = (t1 - t0) / 1e9, out->close_s = (t2 - t1) / 1e9;
    out->rows = count_rows(path, "SELECT count(*) FROM event WHERE kind = 2");
    return 0;
}

/* The staging file of a recording the program never closed (a child that records, then _exits), built
 * into its database by tdb_finish: conversion alone, with no background converter having helped. */
static int finish_rate(const char *path, long ranges, double *rows_per_s)
{
    unlink(path);
    pid_t child = fork();
    if (child == 0) {
        if (!tdb_open(path, NULL))
            _exit(1);
        for (long i = 0; i < ranges; i += 2) {
            tdb_range_push("outer");
            tdb_range_push("inner");
            tdb_range_pop();
            tdb_range_pop();
            if (i % 20000 == 0)
                pause_ms(1); /* the writer keeps up: nothing dropped */
        }
        tdb_flush();
        pause_ms(50);
        _exit(0); /* no tdb_close: the staging file stays */
    }
    int status;
    waitpid(child, &status, 0);
    double t0 = now_ns();
    FILE *null = fopen("/dev/null", "w");
    int rc = tdb_finish(path, null);
    fclose(null);
    double t1 = now_ns();
    long rows = count_rows(path, "SELECT count(*) FROM event");
    *rows_per_s = (double)rows / ((t1 - t0) / 1e9);
    return rc;
}

static void print_run(const char *what, const struct paced_run *x)
{
    long events = 2 * x->ranges; /* records: a push and a pop */
    printf("  %-34s %ld ranges in %.2f s, %lld records dropped (%.3f%%); rows %ld (%s)\n", what, x->ranges, x->record_s,
           (long long)x->dropped, 100.0 * (double)x->dropped / (double)(events ? events : 1), x->rows,
           x->rows == x->ranges ? "exact" : "NOT exact");
    printf("  %-34s staging file %.1f MB, %.1f bytes per range (%.1f per record); resident memory each second:",
           "", (double)x->stage_bytes / 1e6, (double)x->stage_bytes / (double)(x->ranges ? x->ranges : 1),
           (double)x->stage_bytes / (double)(events ? events : 1));
    for (int i = 0; i < x->nrss; i++)
        printf(" %ld", x->rss_kib[i] / 1024);
    printf(" MiB\n");
    printf("  %-34s close %.2f s = %.2fx the recording time (%.2f M rows/s over it)\n", "", x->close_s,
           x->close_s / x->record_s, (double)x->rows / x->close_s / 1e6);
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
        pause_ms(2);
    }
    int64_t dropped_hot = tdb_dropped();
    if (tdb_close(r) != 0)
        return 1;
    double p = median(pair, BATCHES), c = median(clocks, BATCHES);
    int hot_only = argc > 2 && strcmp(argv[2], "hot") == 0;
    printf("recorder hot path, %s (median of %d batches of %d):\n", argc > 3 ? argv[3] : "libtracedb.a", BATCHES,
           BATCH);
    printf("  empty loop iteration                 %8.1f ns\n", median(empty, BATCHES));
    printf("  two clock_gettime (the floor)        %8.1f ns\n", c);
    printf("  tdb_range_push + tdb_range_pop       %8.1f ns = %.2fx the floor (target <= 1.3x; %lld dropped)\n", p,
           p / c, (long long)dropped_hot);
    if (hot_only) {
        unlink(path);
        return 0;
    }

    struct paced_run run;
    printf("recorder, offered load sustained (ranges outer { inner }, paced; rows checked in the database):\n");
    if (paced(path, 2e6, 2, 1, &run) == 0)
        print_run("2 M ranges/s, one thread, 2 s:", &run);
    if (paced(path, 1e6, 2, 2, &run) == 0)
        print_run("1 M ranges/s from each of 2 threads:", &run);
    if (paced(path, 1e6, 2, 1, &run) == 0)
        print_run("1 M ranges/s, one thread, 2 s:", &run);
    double alone = sqlite_alone(path, dir, run.rows > 0 ? run.rows : 1000000);
    printf("  SQLite alone, the same rows by one thread, one transaction, nothing else running: %.2f M rows/s\n",
           alone / 1e6);
    if (paced(path, 0.5e6, 10, 1, &run) == 0)
        print_run("0.5 M ranges/s, one thread, 10 s:", &run);
    double finish = 0;
    if (finish_rate(path, 2000000, &finish) == 0)
        printf("  tracedb finish (a staging file of 2 M ranges, converted with no background help): %.2f M rows/s\n",
               finish / 1e6);
    unlink(path);
    (void)sink;
    return 0;
}

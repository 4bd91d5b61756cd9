/* record_sample.c: a program that uses tracedb's C API, for tests/unit/test_record.c.
 *   record_sample api DB     ranges, scopes, marks, counters, memory, steps under a schedule
 *   record_sample env        the same calls with no tdb_open: TRACEDB_OUTPUT decides
 *   record_sample steps      6 steps (tdb_step), each making the calls of env once, with no tdb_open:
 *                            TRACEDB_OUTPUT, TRACEDB_SCHEDULE, TRACEDB_KINDS and TRACEDB_LEVEL decide
 *   record_sample crash DB   records 10 ranges and 1000 marks, begins a range it never ends, waits 300 ms (past a
 *                            commit), then records 100 marks a millisecond until killed, printing the
 *                            count after each 1000
 *   record_sample live DB    reads its own database while recording (after tdb_flush) and prints what
 *                            it finds; leaves one range open at tdb_close
 *   record_sample reopen A B a thread records into A; A closes; the same thread records into B
 *   record_sample window DB  a worker's range begun in the one active step, ended after it
 *   record_sample threads DB 40 threads one after another, each recording 40,000 marks (run it with
 *                            TRACEDB_RING_KIB=1024: each fills most of its ring); prints how much
 *                            resident memory grew
 *   record_sample fork DB    forks while recording; the child records, closes and exits; the parent
 *                            goes on and closes (prints the child's exit status)
 *   record_sample flushes DB 4 threads record 40,000 marks each as fast as they can while the main thread
 *                            calls tdb_flush 200 times (the writer thread stages the rings meanwhile)
 *   record_sample clock DB   5 ranges around sleeps of 20-60 ms; prints CLOCK_REALTIME before and after
 *                            each push and each pop
 *   record_sample paced DB RATE SECONDS  ranges outer { inner } at RATE ranges a second for SECONDS (paced
 *                            in groups of 100); prints how many and how many records were dropped
 *   record_sample flood DB   A { B } { C { c } } 100,000 times as fast as it can, so that a small ring
 *                            (TRACEDB_RING_KIB=64) overflows;
 *                            prints how many records were dropped */
#define _GNU_SOURCE /* pthread_setname_np */
#include "tracedb.h"
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

static int cycles;

static void on_cycle(tdb_recording *rec, void *arg)
{
    (void)rec;
    (*(int *)arg)++;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void work(void)
{
    static char block[4096];
    tdb_range_push_args("forward", "{\"Input Dims\":[[32,128]]}");
    {
        TDB_SCOPE("aten::linear");
        tdb_mem_alloc(block, sizeof block, 0);
        tdb_counter("loss", 0.5);
        tdb_mem_free(block, sizeof block, 0);
    }
    tdb_instant("mark");
    tdb_range_pop();
}

static long long realtime_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Resident memory of this process, KiB. */
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

/* 40,000 marks (about 0.94 MiB of ring: 24 bytes each) in bursts the writer can keep up with. */
static void *burst(void *arg)
{
    (void)arg;
    for (int i = 0; i < 40; i++) {
        for (int j = 0; j < 1000; j++)
            tdb_instant("burst");
        sleep_ms(1);
    }
    return NULL;
}

/* 40,000 marks as fast as they come (a 4 MiB ring holds them all). */
static void *spin(void *arg)
{
    (void)arg;
    for (int j = 0; j < 40000; j++)
        tdb_instant("burst");
    return NULL;
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int phase; /* 0: thread records into A; 1: main switched to B; 2: thread recorded into B */

static void window_set(int p)
{
    pthread_mutex_lock(&gate);
    phase = p;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&gate);
}

static void window_wait(int p)
{
    pthread_mutex_lock(&gate);
    while (phase != p)
        pthread_cond_wait(&turn, &gate);
    pthread_mutex_unlock(&gate);
}

static void *window_worker(void *arg)
{
    (void)arg;
    tdb_range_push("window");
    window_set(1);
    window_wait(2);
    tdb_range_pop();
    return NULL;
}

static void *worker(void *arg)
{
    (void)arg;
    tdb_instant("in A");
    pthread_mutex_lock(&gate);
    phase = phase ? phase : 0;
    pthread_cond_broadcast(&turn);
    while (phase != 1)
        pthread_cond_wait(&turn, &gate);
    pthread_mutex_unlock(&gate);
    tdb_instant("in B"); /* its ring in A is gone: it must get a new one */
    pthread_mutex_lock(&gate);
    phase = 2;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&gate);
    return NULL;
}

static int reopen(const char *a, const char *b)
{
    tdb_recording *r = tdb_open(a, NULL);
    if (!r)
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    sleep_ms(50);
    if (tdb_close(r) != 0 || !(r = tdb_open(b, NULL)))
        return 1;
    pthread_mutex_lock(&gate);
    phase = 1;
    pthread_cond_broadcast(&turn);
    while (phase != 2)
        pthread_cond_wait(&turn, &gate);
    pthread_mutex_unlock(&gate);
    pthread_join(t, NULL);
    return tdb_close(r) != 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "reopen") == 0)
        return reopen(argv[2], argv[3]);
    if (argc >= 3 && strcmp(argv[1], "api") == 0) {
        /* skip 1, then one cycle of wait 1, warmup 1, active 2: steps 4 and 5 are kept */
        struct tdb_options o = {.level = 2, .skip_first = 1, .wait = 1, .warmup = 1, .active = 2, .repeat = 1,
                                .on_cycle = on_cycle, .on_cycle_arg = &cycles};
        tdb_recording *r = tdb_open(argv[2], &o);
        if (!r)
            return 1;
        for (int i = 0; i < 7; i++) {
            tdb_step();
            work();
            if (i == 4) /* after it first recorded: the recording ends with the new name */
                pthread_setname_np(pthread_self(), "trainer");
        }
        printf("cycles %d\n", cycles);
        return tdb_close(r) != 0;
    }
    if (argc >= 2 && strcmp(argv[1], "env") == 0) {
        for (int i = 0; i < 3; i++)
            work();
        return 0; /* closed at exit */
    }
    if (argc >= 2 && strcmp(argv[1], "steps") == 0) {
        for (int i = 0; i < 6; i++) {
            tdb_step();
            work();
        }
        return 0; /* closed at exit */
    }
    if (argc >= 3 && strcmp(argv[1], "flushes") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        pthread_t t[4];
        for (int i = 0; i < 4; i++) /* four threads record marks while this one flushes, over and over */
            pthread_create(&t[i], NULL, spin, NULL);
        for (int i = 0; i < 200; i++)
            tdb_flush();
        for (int i = 0; i < 4; i++)
            pthread_join(t[i], NULL);
        printf("dropped %lld\n", (long long)tdb_dropped());
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "clock") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        for (int i = 0; i < 5; i++) { /* each range's start and end, bracketed by CLOCK_REALTIME reads */
            long long t0 = realtime_ns();
            tdb_range_push("timed");
            long long t1 = realtime_ns();
            sleep_ms(20 + 10 * i);
            long long t2 = realtime_ns();
            tdb_range_pop();
            long long t3 = realtime_ns();
            printf("%lld %lld %lld %lld\n", t0, t1, t2, t3);
        }
        return tdb_close(r) != 0;
    }
    if (argc >= 5 && strcmp(argv[1], "paced") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        double rate = atof(argv[3]), seconds = atof(argv[4]), t0 = now_s();
        long n = 0;
        for (double t; (t = now_s() - t0) < seconds;)
            if ((double)n < rate * t) {
                for (int i = 0; i < 50; i++) {
                    tdb_range_push("outer");
                    tdb_range_push("inner");
                    tdb_range_pop();
                    tdb_range_pop();
                }
                n += 100;
            }
        printf("ranges %ld dropped %lld\n", n, (long long)tdb_dropped());
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "flood") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        for (int i = 0; i < 100000; i++) { /* 700,000 records: far more than a ring holds */
            tdb_range_push("A");
            tdb_range_push("B");
            tdb_range_pop();
            tdb_range_push("C");
            tdb_instant("c");
            tdb_range_pop();
            tdb_range_pop();
        }
        printf("dropped %lld\n", (long long)tdb_dropped());
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "window") == 0) {
        /* wait 1, active 1, no repeat limit over 3 steps: step 2 is kept. A worker begins a range in
         * step 2 and ends it in step 3, after the window; the recording closes 100 ms later. */
        struct tdb_options o = {.level = 2, .wait = 1, .active = 1};
        tdb_recording *r = tdb_open(argv[2], &o);
        if (!r)
            return 1;
        tdb_step(); /* 1: waiting */
        tdb_step(); /* 2: active */
        pthread_t t;
        pthread_create(&t, NULL, window_worker, NULL);
        window_wait(1);
        tdb_step(); /* 3: waiting again */
        window_set(2);
        pthread_join(t, NULL);
        sleep_ms(100);
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "threads") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        long before = rss_kib();
        for (int i = 0; i < 40; i++) { /* one after another, each filling most of its ring */
            pthread_t t;
            pthread_create(&t, NULL, burst, NULL);
            pthread_join(t, NULL);
        }
        tdb_flush();
        printf("rss growth %ld KiB\n", rss_kib() - before);
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "fork") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        tdb_range_push("parent");
        for (int i = 0; i < 100; i++)
            tdb_instant("busy"); /* the writer is likely at work when the fork comes */
        pid_t pid = fork();
        if (pid == 0) { /* records nothing, and its close and exit leave the parent's database alone */
            tdb_range_push("child");
            tdb_range_pop();
            int closed = tdb_close(r);
            _exit(closed == 0 ? 3 : 0); /* as multiprocessing's workers end (and LeakSanitizer's exit
                                        * check would hang in a child forked from threads) */
        }
        int status = 0;
        waitpid(pid, &status, 0);
        tdb_range_pop();
        tdb_instant("after");
        printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "live") == 0) {
        tdb_recording *r = tdb_open(argv[2], NULL);
        if (!r)
            return 1;
        tdb_range_push("outer");
        tdb_range_push("inner");
        sleep_ms(2);
        tdb_range_pop();
        tdb_instant("m");
        if (tdb_flush() != 0)
            return 1;
        sqlite3 *db;
        sqlite3_stmt *st;
        if (sqlite3_open_v2(argv[2], &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
            sqlite3_prepare_v2(db, "SELECT s.value, e.depth, e.parent_id, e.self_ns = e.dur_ns AND e.dur_ns >= 2000000 "
                               "FROM event e JOIN string s ON s.id = e.name_id ORDER BY s.value", -1, &st, NULL) != SQLITE_OK)
            return 1;
        while (sqlite3_step(st) == SQLITE_ROW)
            printf("%s depth %d parent %lld long %d\n", (const char *)sqlite3_column_text(st, 0), sqlite3_column_int(st, 1),
                   (long long)sqlite3_column_int64(st, 2), sqlite3_column_int(st, 3));
        sqlite3_finalize(st);
        sqlite3_close(db);
        tdb_range_pop();
        tdb_range_push("unclosed");
        return tdb_close(r) != 0;
    }
    if (argc >= 3 && strcmp(argv[1], "crash") == 0) {
        if (!tdb_open(argv[2], NULL))
            return 1;
        for (int i = 0; i < 10; i++) {
            tdb_range_push("work");
            tdb_instant("before");
            tdb_range_pop();
        }
        for (int i = 0; i < 990; i++)
            tdb_instant("before");
        tdb_range_push("never ended");
        sleep_ms(300);
        printf("ready\n");
        fflush(stdout);
        for (long n = 100;; n += 100) { /* 100,000 marks a second until killed; every 1000, how many so far */
            for (int i = 0; i < 100; i++)
                tdb_instant("after");
            if (n % 1000 == 0) {
                printf("%ld\n", n);
                fflush(stdout);
            }
            sleep_ms(1);
        }
    }
    fprintf(stderr, "usage: record_sample api DB | env | crash DB\n");
    return 2;
}
